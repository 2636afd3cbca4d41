#!/usr/bin/env bash
# Configures and builds kiln. Usage: ci/build.sh [--sanitize] [--build-dir DIR]
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
[ "$sanitize" = ON ] && type=Debug
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=$type -DKILN_WERROR=ON \
      -DKILN_SANITIZE=$sanitize >/dev/null
cmake --build "$build" -j"$(nproc)" 2>&1 | grep -Ev '^\[ *[0-9]+%\]|^-- ' || true
test -f "$build/libkiln.so" || { echo "ci/build.sh: build failed" >&2; exit 1; }
echo "$build"
