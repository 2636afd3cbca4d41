#!/usr/bin/env bash
# The README's test command: installs what is missing, builds kiln with
# warnings as errors and runs the conformance suite with ctest.
# Usage: ci/test.sh [--sanitize] [extra ctest arguments]
#   --sanitize  ASan + UBSan build (build-sanitize/), leaks checked too.
# The OpenCL backend is required here (KILN_TEST_REQUIRE=opencl): without a
# working PoCL the suite fails instead of skipping. Backends with no device
# on this machine (cuda, hip) skip with their printed reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_args=()
if [ "${1:-}" = --sanitize ]; then build_args+=(--sanitize); shift; fi
bash "$root/ci/install-deps.sh"
build=$(bash "$root/ci/build.sh" "${build_args[@]}" | tail -n 1)
export KILN_TEST_REQUIRE=${KILN_TEST_REQUIRE:-opencl}
if [ ${#build_args[@]} -gt 0 ]; then
  # intercept_tls_get_addr=0: LeakSanitizer can take a dynamic TLS block
  # of a dlopen'ed library (PoCL loads each compiled kernel as one) for a
  # bogus range and crash its own tracer at exit ("Tracer caught signal 11",
  # "DTLS 5 at 0x...6e", google/sanitizers#1322); without the interception
  # LSan still scans static TLS, stacks and globals.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:intercept_tls_get_addr=0}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
