#!/usr/bin/env python3
"""side_by_side: one table of kiln and its peer, row by row, from one run of
each on the same machine (docs/performance.md): runs a kiln bench binary and
its *_peers.py with the same size arguments, reads the rows both print as
"<operation, 22 columns> <ms> ..." and prints, for each operation both have,
kiln's ms, the peer's ms and kiln / peer (<= 1.00: kiln at least as fast).
Rows only one side has are listed after the table.

Usage: side_by_side.py <kiln bench binary> <peers script> [size arguments...]
e.g.   KILN_BACKEND=cuda bench/side_by_side.py build/bench/reduce_bench \\
           bench/reduce_peers.py 1e8 1e6 100 30
Exit 1 when either run fails (its output is printed), else 0.
"""
import re
import subprocess
import sys

ROW = re.compile(r"^(?P<name>\S.{0,21}?)\s{2,}(?P<ms>[0-9]+\.[0-9]+)\s")


def rows(command):
    """{operation: ms} of the table a bench prints; exits on failure."""
    p = subprocess.run(command, capture_output=True, text=True)
    if p.returncode != 0:
        print("side_by_side: %s failed (%d):\n%s%s" % (" ".join(command), p.returncode,
                                                        p.stdout[-3000:], p.stderr[-3000:]))
        sys.exit(1)
    table = {}
    for line in p.stdout.splitlines():
        m = ROW.match(line)
        if m and not line.startswith(("operation", "sum =")):
            table.setdefault(m.group("name").strip(), float(m.group("ms")))
    return table, p.stdout.splitlines()[0] if p.stdout else ""


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    kiln_bin, peers, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
    kiln, kiln_head = rows([kiln_bin] + sizes)
    peer, peer_head = rows([sys.executable, peers] + sizes)
    print(kiln_head)
    print(peer_head)
    print("%-24s %10s %10s %12s" % ("operation", "kiln ms", "peer ms", "kiln / peer"))
    for name, ms in kiln.items():
        if name in peer:
            print("%-24s %10.3f %10.3f %12.2f" % (name, ms, peer[name], ms / peer[name]))
    only = [n for n in kiln if n not in peer] + [n for n in peer if n not in kiln]
    if only:
        print("only one side: " + ", ".join(only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
