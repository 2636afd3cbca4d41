#!/usr/bin/env python3
"""tools/ufunc_call_cost.py: instructions per call of a tiny ufunc call and
of a raw launch of the same kernel, counted by callgrind (deterministic,
unlike host timings on a shared CPU).

Runs `ufunc_bench --tiny-only` (bench/ufunc_bench.c: float32 add of 1 and
1024 elements, device operands, `out` given, repeat calls) under
valgrind --tool=callgrind, collecting only inside kiln_ufunc_call (ufunc
side) or kiln_kernel_launch (raw side), at two burst lengths; the
difference of the counts over the difference of the calls is the cost of
one steady-state call (warm-up and first-call compiles cancel out). The
split per call:
  kiln         everything under the entry point outside the backend's
               launch op (checks, dispatch, broadcast, layout, variant
               lookup, argument packing, pool, locks, kiln's own malloc)
  backend      the backend's launch op (kiln_opencl_launch / gpu_launch)
               minus the driver calls in it (argument array, stream lookup)
  driver       the OpenCL / CUDA entry points the launch op calls
and the functions of kiln's own code by self cost.

Usage: tools/ufunc_call_cost.py [build_dir] [--top=N]
Environment: as for any kiln program (default backend here: PoCL's OpenCL);
needs valgrind and callgrind_annotate."""
import os
import re
import subprocess
import sys
import tempfile

ENTRIES = {"ufunc": "kiln_ufunc_call", "raw": "kiln_kernel_launch"}
LAUNCH_OPS = ("kiln_opencl_launch", "gpu_launch")
DRIVER = re.compile(r"^(cl[A-Z]\w*|cu[A-Z]\w*|hip[A-Z]\w*)$")
REPEATS, BURSTS = 2, (40, 240)
SIZES = 2  # ufunc_bench --tiny-only times 1 and 1024 elements
LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:\*\s+)?(.*?):(.*?) \[(.*)\]\s*$")


def annotate(path, inclusive):
    out = subprocess.run(["callgrind_annotate", "--threshold=100",
                          "--inclusive=" + ("yes" if inclusive else "no"), path],
                         check=True, capture_output=True, text=True).stdout
    costs = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        count, _, function, obj = m.groups()
        function = re.sub(r"\.(part|constprop|isra|cold)\.\d+", "", function)
        key = (function, os.path.basename(obj))
        costs[key] = costs.get(key, 0) + int(count.replace(",", ""))
    return costs


def profile(bench, entry, burst, workdir):
    out = os.path.join(workdir, "cg.%s.%d" % (entry, burst))
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                    "--toggle-collect=" + entry, bench, "1", str(REPEATS), str(burst),
                    "--tiny-only"], check=True, capture_output=True)
    return annotate(out, True), annotate(out, False)


def per_call(a, b, calls):
    keys = set(a) | set(b)
    return {k: (b.get(k, 0) - a.get(k, 0)) / calls for k in keys}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = next((int(a[6:]) for a in sys.argv[1:] if a.startswith("--top=")), 25)
    build = args[0] if args else "build"
    bench = os.path.join(build, "bench", "ufunc_bench")
    exe = os.path.basename(bench)
    calls = SIZES * REPEATS * (BURSTS[1] - BURSTS[0])
    with tempfile.TemporaryDirectory() as workdir:
        for side, entry in ENTRIES.items():
            (inc0, self0), (inc1, self1) = (profile(bench, entry, b, workdir) for b in BURSTS)
            inc, own = per_call(inc0, inc1, calls), per_call(self0, self1, calls)
            total = sum(v for (f, _), v in inc.items() if f == entry)
            op = sum(v for (f, _), v in inc.items() if f in LAUNCH_OPS)
            driver = sum(v for (f, o), v in inc.items() if DRIVER.match(f) and o != exe)
            print("%s (%s): %.0f instructions per call: kiln %.0f, backend launch op %.0f "
                  "(of which driver %.0f, backend's own %.0f)"
                  % (side, entry, total, total - op, op, driver, op - driver))
            mine = sorted(((v, f) for (f, o), v in own.items() if o == exe and v >= 0.5),
                          reverse=True)
            print("  kiln's functions by self cost (instructions per call):")
            for v, f in mine[:top]:
                print("    %8.1f  %s" % (v, f))
            libc = sorted(((v, f) for (f, o), v in own.items()
                           if o.startswith("libc") and v >= 0.5), reverse=True)
            print("  libc (kiln's and the driver's calls together): " +
                  ", ".join("%s %.0f" % (f, v) for v, f in libc[:8]))


if __name__ == "__main__":
    main()
