/* tests/gpu_test_capture.h: catching anything a vendor library prints on
 * stdout or stderr while the test calls into it (kiln must stay silent). */
#ifndef KILN_TESTS_GPU_TEST_CAPTURE_H
#define KILN_TESTS_GPU_TEST_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

typedef struct capture {
  FILE *file;
  int saved_stdout, saved_stderr;
} capture;

/* Sends fds 1 and 2 to a temporary file; 0 if that cannot be done. */
static inline int capture_begin(capture *c) {
  fflush(stdout);
  fflush(stderr);
  c->file = tmpfile();
  if (!c->file) return 0;
  c->saved_stdout = dup(1);
  c->saved_stderr = dup(2);
  dup2(fileno(c->file), 1);
  dup2(fileno(c->file), 2);
  return 1;
}

/* Restores fds 1 and 2; returns how many bytes were written meanwhile and
 * copies the start of them into text (NUL-terminated). */
static inline long capture_end(capture *c, char *text, size_t size) {
  fflush(stdout);
  fflush(stderr);
  dup2(c->saved_stdout, 1);
  dup2(c->saved_stderr, 2);
  close(c->saved_stdout);
  close(c->saved_stderr);
  fseek(c->file, 0, SEEK_END);
  long length = ftell(c->file);
  rewind(c->file);
  size_t got = fread(text, 1, size - 1, c->file);
  text[got] = '\0';
  fclose(c->file);
  return length;
}

#endif
