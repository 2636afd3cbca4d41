#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan; tests/fuzz/) and runs
# each for a bounded time over a working copy of its seed corpus
# (tests/fuzz/corpus/<target>). Fails when a target finds a crash, a leak,
# undefined behaviour or a failed FUZZ_ASSERT; the input is saved under
# build-fuzz/findings/. Usage: ci/fuzz.sh [seconds per target, default 30]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-${KILN_FUZZ_SECONDS:-30}}
bash "$root/ci/install-deps.sh" >/dev/null
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
      -DKILN_WERROR=ON -DKILN_SANITIZE=ON -DKILN_FUZZ=ON -DKILN_BUILD_EXAMPLES=OFF \
      -DKILN_BUILD_TOOLS=OFF >/dev/null
# every tests/fuzz/fuzz_<target>.c (tests/fuzz.cmake builds the same list)
targets=()
for f in "$root"/tests/fuzz/fuzz_*.c; do t=$(basename "$f" .c); targets+=("${t#fuzz_}"); done
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" 2>&1 |
  grep -Ev '^\[ *[0-9]+%\]|^-- ' || true
mkdir -p "$build/findings"
status=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  mkdir -p "$work"
  cp -n "$root/tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  log="$build/fuzz_$t.log"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$build/tests/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$build/findings/$t-" "$work" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED; status=1
  fi
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  echo "fuzz $t: $result, $runs executions in ${seconds}s, $cov, corpus $(ls "$work" | wc -l)"
  [ "$result" = ok ] || tail -40 "$log"
done
exit $status
