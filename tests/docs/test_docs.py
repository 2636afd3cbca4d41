#!/usr/bin/env python3
"""tests/docs/test_docs.py: every C code block of README.md and docs/*.md
compiles against kiln's public headers, and complete programs run.

The fence's info string says what a block is (docs/testing.md, "Code blocks
in the docs"):
  ```c               a complete program (has main): compiled, linked with
                     libkiln, run on the default backend (exit 0; 77 skips)
  ```c compile-only  a complete program compiled and linked, not run
                     (needs arguments, MPI, a GPU...)
  ```c fragment      statements: compiled inside main() of a wrapper that
                     declares ctx, stream, arrays a b c x y v w out result
                     s view, n and shape; an HTML comment right above the
                     fence, <!-- docs-test: declarations -->, adds the
                     declarations the fragment needs (at the start of the
                     fragment's block: they may shadow the wrapper's names)
  ```c file-scope    host declarations/functions (no main): compiled as a
                     translation unit
  ```c kernel        kernel language: compiled by kiln_kernel_create on the
                     default backend (a dummy entry is appended)
Any other marker after ```c fails the test, so nothing is skipped silently.
Usage: test_docs.py --source DIR --cc CC --include DIR --lib LIBKILN
                    --kernel-check EXE --work DIR [--cflags "..."]"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

MARKERS = ("", "compile-only", "fragment", "file-scope", "kernel")
PRELUDE = re.compile(r"<!--\s*docs-test:(.*?)-->", re.S)
HEADERS = ("#include <kiln/kiln.h>\n#include <math.h>\n#include <stdint.h>\n"
           "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n")
FRAGMENT_MAIN = """int main(void) {
  kiln_context *ctx = NULL;
  kiln_stream *stream = NULL;
  kiln_array *a = NULL, *b = NULL, *c = NULL, *x = NULL, *y = NULL, *v = NULL,
             *w = NULL, *out = NULL, *result = NULL, *s = NULL, *view = NULL;
  int64_t n = 0, shape[KILN_MAX_DIMS] = {0};
  (void)ctx; (void)stream; (void)a; (void)b; (void)c; (void)x; (void)y;
  (void)v; (void)w; (void)out; (void)result; (void)s; (void)view; (void)n;
  (void)shape;
  {
%s
#line %d "%s"
%s
  }
  return 0;
}
"""
# Errors a renamed function, a wrong argument count or a wrong type gives.
STRICT = ["-std=c11", "-Wall", "-Werror=implicit-function-declaration",
          "-Werror=incompatible-pointer-types", "-Werror=int-conversion",
          "-Werror=int-to-pointer-cast", "-Werror=return-type",
          "-Wno-unused-variable", "-Wno-unused-but-set-variable",
          "-Wno-unused-function", "-Wno-uninitialized", "-Wno-maybe-uninitialized"]


def blocks(path):
    """Yields (line, marker, prelude, code) for each ```c block of path."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```c(?:\s+(.*))?$", lines[i].rstrip())
        if m:
            marker = (m.group(1) or "").strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            prelude = ""
            k = i - 1
            while k >= 0 and lines[k].strip() == "":
                k -= 1
            if k >= 0 and lines[k].rstrip().endswith("-->"):
                start = k
                while start > 0 and "<!--" not in lines[start]:
                    start -= 1
                pm = PRELUDE.search("\n".join(lines[start:k + 1]))
                if pm:
                    prelude = pm.group(1)
            yield i + 2, marker, prelude, "\n".join(lines[i + 1:j])
            i = j
        i += 1


def run(cmd, timeout=120, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    for name in ("source", "cc", "include", "lib", "kernel-check", "work"):
        ap.add_argument("--" + name, required=True)
    ap.add_argument("--cflags", default="")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    files = [os.path.join(args.source, "README.md")] + sorted(
        glob.glob(os.path.join(args.source, "docs", "*.md")))
    cc = [args.cc] + shlex.split(args.cflags) + STRICT + ["-I", args.include]
    libdir = os.path.dirname(os.path.abspath(args.lib))
    link = [args.lib, "-Wl,-rpath," + libdir, "-lm"]
    failures, counts, skipped = [], {}, 0
    for path in files:
        rel = os.path.relpath(path, args.source)
        for line, marker, prelude, code in blocks(path):
            where = "%s:%d" % (rel, line)
            stem = os.path.join(args.work, re.sub(r"[^A-Za-z0-9]", "_", where))
            if marker not in MARKERS:
                failures.append("%s: unknown fence marker '```c %s' (known: %s)" %
                                (where, marker, ", ".join(m or "(none)" for m in MARKERS)))
                continue
            counts[marker or "program"] = counts.get(marker or "program", 0) + 1
            line_directive = '#line %d "%s"\n' % (line, path)
            if marker == "kernel":
                src = code + "\nKILN_KERNEL void kiln_docs_check_entry(int64_t unused) {}\n"
                open(stem + ".kl", "w").write(src)
                rc, log = run([args.kernel_check, stem + ".kl", "kiln_docs_check_entry"])
                if rc == 77:
                    skipped += 1
                elif rc != 0:
                    failures.append("%s: kernel does not compile:\n%s" % (where, log))
                continue
            if marker == "fragment":
                src = HEADERS + FRAGMENT_MAIN % (prelude, line, path, code)
            else:
                src = HEADERS + line_directive + code + "\n"
                has_main = re.search(r"\bint\s+main\s*\(", code) is not None
                if marker in ("", "compile-only") and not has_main:
                    failures.append("%s: a '```c%s' block must be a complete program "
                                    "(mark fragments '```c fragment')" %
                                    (where, " " + marker if marker else ""))
                    continue
            open(stem + ".c", "w").write(src)
            if marker in ("fragment", "file-scope"):
                rc, log = run(cc + ["-c", stem + ".c", "-o", stem + ".o"])
            else:
                rc, log = run(cc + [stem + ".c", "-o", stem] + link)
            if rc != 0:
                failures.append("%s: does not compile:\n%s" % (where, log))
                continue
            if marker == "":
                try:
                    rc, log = run([stem], timeout=300)
                except subprocess.TimeoutExpired:
                    rc, log = -1, "timed out"
                if rc == 77:
                    skipped += 1
                elif rc != 0:
                    failures.append("%s: the program exits %d:\n%s" % (where, rc, log))
    total = sum(counts.values())
    print("test_docs: %d C blocks in %d files (%s)%s" % (
        total, len(files), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())),
        ", %d not run: no device" % skipped if skipped else ""))
    for f in failures:
        print("FAIL " + f)
    if failures:
        return 1
    if total == 0:
        print("FAIL: no C block found")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
