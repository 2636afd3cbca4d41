#include "search_testing.h"
static const harness_test tests[] = {{0}};
int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
