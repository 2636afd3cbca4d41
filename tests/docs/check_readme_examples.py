#!/usr/bin/env python3
"""tests/docs/check_readme_examples.py: the README's list of examples (the
paragraph that links [examples](examples/)) names every example in examples/
exactly once and nothing else; no Python bytecode (__pycache__, *.pyc) is
tracked by git. An example is examples/<name>.c (not *_helper.c, which are
libraries of a Python example) or examples/<name>.py, listed as `name` or
`name.py`. Usage: check_readme_examples.py <source root>. Exit 0 or 1."""
import os
import re
import subprocess
import sys


def readme_list(text):
    """The backticked names of the paragraph that links examples/."""
    for paragraph in re.split(r"\n\s*\n", text):
        if "](examples/)" in paragraph:
            return re.findall(r"`([A-Za-z0-9_.]+)`", paragraph.split("](examples/)", 1)[1])
    return None


def check(root):
    problems = []
    with open(os.path.join(root, "README.md"), encoding="utf-8") as handle:
        listed = readme_list(handle.read())
    if listed is None:
        return ["README.md has no paragraph linking [examples](examples/)"]
    examples = set()
    for name in os.listdir(os.path.join(root, "examples")):
        stem, ext = os.path.splitext(name)
        if ext == ".c" and not stem.endswith("_helper"):
            examples.add(stem)
        elif ext == ".py":
            examples.add(stem)
    names = [n[:-3] if n.endswith(".py") else n for n in listed]
    for name in sorted(set(names)):
        if names.count(name) > 1:
            problems.append(f"README lists example `{name}` {names.count(name)} times")
    for name in sorted(set(names) - examples):
        problems.append(f"README lists `{name}`, which is not in examples/")
    for name in sorted(examples - set(names)):
        problems.append(f"examples/{name} is not in the README's list of examples")
    try:
        tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        print("check_readme_examples: not a git checkout: tracked bytecode not checked")
        tracked = []
    for path in tracked:
        if "__pycache__/" in path or path.endswith(".pyc"):
            problems.append(f"Python bytecode is tracked by git: {path}")
    print(f"check_readme_examples: {len(examples)} examples, {len(names)} listed, "
          f"{len(tracked)} tracked files")
    return problems


def self_test():
    text = "intro\n\nsee the [examples](examples/): `a`, `b.py`,\n`a`.\n\nnext `c`\n"
    if readme_list(text) != ["a", "b.py", "a"] or readme_list("none") is not None:
        print("check_readme_examples: self-test failed")
        sys.exit(1)


if __name__ == "__main__":
    self_test()
    found = check(sys.argv[1] if len(sys.argv) > 1 else ".")
    for problem in found:
        print(problem)
    sys.exit(1 if found else 0)
