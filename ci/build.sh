#!/usr/bin/env bash
# Configures and builds kiln with warnings as errors. Usage:
#   ci/build.sh [--sanitize] [--build-dir DIR]
# The default build uses gcc (cc); --sanitize builds with clang and ASan +
# UBSan and fault injection (tests/fault: every backend call and host
# allocation made to fail in turn), so every CI run compiles warning-free
# under both compilers and sweeps the failure paths under LSan.
# Prints the build directory's path on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
sanitize=OFF
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) sanitize=ON; build="$root/build-sanitize" ;;
    --build-dir) build="$2"; shift ;;
    *) echo "ci/build.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
type=Release
compiler=${CC:-cc}
if [ "$sanitize" = ON ]; then type=Debug; compiler=${CC:-clang}; fi
# the sanitized build's tests load the kernels the Release build's tests
# compiled ($root/build/kiln-test-cache: the same cache keys; the fault
# sweeps keep their own, tests/CMakeLists.txt); KILN_TEST_CACHE_DIR
# overrides, for both builds
test_cache=${KILN_TEST_CACHE_DIR:-}
if [ -z "$test_cache" ]; then
  if [ "$sanitize" = ON ]; then test_cache="$root/build/kiln-test-cache"; else test_cache="$build/kiln-test-cache"; fi
fi
mkdir -p "$test_cache"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=$type -DKILN_WERROR=ON \
      -DCMAKE_C_COMPILER="$compiler" -DKILN_SANITIZE=$sanitize \
      -DKILN_FAULT_INJECTION=$sanitize -DKILN_TEST_CACHE_DIR="$test_cache" >/dev/null
# (grep filters the progress lines; the build's own status decides: a test
# program that does not compile must fail here, not show up as "Not Run")
set +e
cmake --build "$build" -j"$(nproc)" 2>&1 | grep -Ev '^\[ *[0-9]+%\]|^-- '
built=${PIPESTATUS[0]}
set -e
[ "$built" = 0 ] || { echo "ci/build.sh: build failed" >&2; exit 1; }
test -f "$build/libkiln.so" || { echo "ci/build.sh: build failed" >&2; exit 1; }
echo "$build"
