#!/usr/bin/env bash
# Builds kiln and the threaded tests with clang's ThreadSanitizer and runs
# them on PoCL: the shared-context stress test (tests/test_threads_stress.c),
# the host path's copy threads (ufunc_host) and concurrent kernel launches
# (kernel). Any data race fails the run (halt_on_error). Bounded: the stress
# test runs KILN_STRESS_ROUNDS rounds per thread (default 4 here).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/ci/install-deps.sh" >/dev/null
build="$root/build-tsan"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DKILN_WERROR=ON -DKILN_TSAN=ON -DKILN_BUILD_EXAMPLES=OFF -DKILN_BUILD_TOOLS=OFF \
      -DKILN_TEST_BACKENDS=opencl >/dev/null
cmake --build "$build" -j"$(nproc)" --target test_threads_stress test_ufunc_host test_kernel 2>&1 |
  grep -Ev '^\[ *[0-9]+%\]|^-- ' || true
cd "$build"
KILN_STRESS_ROUNDS=${KILN_STRESS_ROUNDS:-4} KILN_TEST_REQUIRE=opencl \
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp" \
  ctest --output-on-failure --timeout 300 -R '^(threads_stress|ufunc_host|kernel)\.opencl$'
