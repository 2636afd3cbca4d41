#!/usr/bin/env python3
"""tests/circles/check_circles.py: fails when files of libkiln depend on each
other in a circle (DESIGN.md: "no two files call each other in a circle").

Two graphs are checked:
- calls: object file A -> B when A uses a symbol (function or data) that B
  defines, read with `nm` from the static library's members; each member
  x.c.o is named back to its source file under the source tree;
- includes: header A -> header B when A has `#include "B"` (quoted includes,
  resolved from the source root), so two headers cannot include each other
  (include guards would hide such a circle from the compiler).

A circle is a strongly connected component of more than one file (or a file
including itself); each is printed with one path around it.
Usage: check_circles.py <libkiln.a> <source root>. Exit 0: none, 1: circles,
2: bad input (no nm, unreadable library)."""
import os
import re
import subprocess
import sys


def strongly_connected(graph):
    """Tarjan's algorithm, iterative (graphs here have a few hundred nodes)."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(sorted(component))
    return result


def one_cycle(graph, component):
    """A path from the component's first node back to itself inside it."""
    members = set(component)
    start = component[0]
    previous = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return list(reversed(path)) + [start]
            if nxt in members and nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return component


def call_graph(library, root):
    sources = {}
    for folder in ("core", "backends", "kernels"):
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith(".c"):
                    path = os.path.relpath(os.path.join(directory, name), root)
                    sources.setdefault(name, []).append(path)
    try:
        text = subprocess.run(["nm", "-A", library], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"check_circles: cannot read {library} with nm: {error}")
        sys.exit(2)
    defines, uses = {}, {}
    for line in text.splitlines():
        # "libkiln.a:member.c.o:0000000000000000 T name" or "...:         U name"
        match = re.match(r"^[^:]+:([^:]+):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not match:
            continue
        member, kind, symbol = match.groups()
        name = member[:-2] if member.endswith(".o") else member
        paths = sources.get(name)
        node = paths[0] if paths and len(paths) == 1 else member
        uses.setdefault(node, set())
        if kind == "U":
            uses[node].add(symbol)
        elif kind.isupper():
            defines.setdefault(symbol, set()).add(node)
    graph = {node: set() for node in uses}
    for node, symbols in uses.items():
        for symbol in symbols:
            for owner in defines.get(symbol, ()):
                if owner != node:
                    graph[node].add(owner)
    if len(graph) < 10:
        print(f"check_circles: only {len(graph)} object files in {library}: not libkiln?")
        sys.exit(2)
    return graph


def include_graph(root):
    graph = {}
    pattern = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for folder in ("include", "core", "backends", "kernels"):
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith((".h", ".inc")):
                    continue
                path = os.path.join(directory, name)
                node = os.path.relpath(path, root)
                graph.setdefault(node, set())
                with open(path, encoding="utf-8", errors="replace") as handle:
                    for line in handle:
                        match = pattern.match(line)
                        if not match:
                            continue
                        target = match.group(1)
                        for base in (root, os.path.join(root, "include"), directory):
                            candidate = os.path.join(base, target)
                            if os.path.isfile(candidate):
                                graph[node].add(os.path.relpath(candidate, root))
                                break
    return graph


def report(kind, graph):
    circles = [c for c in strongly_connected(graph)
               if len(c) > 1 or c[0] in graph.get(c[0], ())]
    for component in circles:
        print(f"circle of {kind}: " + " -> ".join(one_cycle(graph, component)))
    edges = sum(len(v) for v in graph.values())
    print(f"check_circles: {kind}: {len(graph)} files, {edges} edges, {len(circles)} circles")
    return len(circles)


def self_test():
    """The checker must find planted circles, or its green means nothing."""
    planted = {"a.c": {"b.c"}, "b.c": {"c.c"}, "c.c": {"a.c"}, "d.c": {"a.c"},
               "e.c": {"e.c"}, "f.c": set()}
    circles = [c for c in strongly_connected(planted) if len(c) > 1 or c[0] in planted[c[0]]]
    expected = [["a.c", "b.c", "c.c"], ["e.c"]]
    if sorted(circles) != expected or one_cycle(planted, ["a.c", "b.c", "c.c"]) != \
            ["a.c", "b.c", "c.c", "a.c"]:
        print(f"check_circles: self-test failed: {sorted(circles)}")
        sys.exit(2)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    self_test()
    library, root = sys.argv[1], sys.argv[2]
    found = report("calls between object files", call_graph(library, root))
    found += report("includes between headers", include_graph(root))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
