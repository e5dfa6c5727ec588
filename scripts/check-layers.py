#!/usr/bin/env python3
"""Checks that dp-bench's top-level modules import only downwards.

Usage: scripts/check-layers.py [--graph]

Reads every `.rs` file under crates/dp-bench/src, finds each reference to another top-level
module (`crate::NAME` anywhere in the code, and `super::NAME` from a file at the crate root),
and fails (exit 1) on any reference from a module to one in a higher layer or a module in the
same layer, naming the file and line. Comments and string literals are ignored. The layers,
from the top (a module may use any module in a lower layer):
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "dp-bench", "src")

# Top to bottom; the crate reads top-down: cli, then what it drives, then the engine, then
# storage and plotting helpers.
LAYERS = [
    ["cli"],
    ["studies"],
    ["cluster", "report"],
    ["papers"],
    ["audit", "pareto"],
    ["methods"],
    ["experiment"],
    ["figures"],
    ["plot"],
    ["files"],
    ["quoting", "error", "console"],
]
__doc__ += "\n".join("  " + ", ".join(layer) for layer in LAYERS) + "\n"

LEVEL = {m: i for i, layer in enumerate(LAYERS) for m in layer}


def strip(text):
    """The code of a Rust file without comments, string and char literals (same line count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            j = n if j < 0 else j + len(end)
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or text.startswith("'\\u{", i):
            j = text.find("'", i + 1 if text[i + 1] != "\\" else i + 2)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def module_of(rel):
    parts = rel.split(os.sep)
    if len(parts) == 1:
        return os.path.splitext(parts[0])[0]
    return parts[0]


def references(path, rel):
    me = module_of(rel)
    at_root = len(rel.split(os.sep)) == 1
    code = strip(open(path, encoding="utf-8").read())
    # `use crate::{a, b::c}` groups.
    for m in re.finditer(r"\bcrate::\{([^}]*)\}", code):
        line = code.count("\n", 0, m.start()) + 1
        for name in re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", m.group(1)):
            yield me, name, line
    for m in re.finditer(r"\bcrate::([a-z_][a-z0-9_]*)", code):
        yield me, m.group(1), code.count("\n", 0, m.start()) + 1
    if at_root:
        for m in re.finditer(r"\bsuper::([a-z_][a-z0-9_]*)", code):
            yield me, m.group(1), code.count("\n", 0, m.start()) + 1


def main():
    problems, edges = [], set()
    for dirpath, _, files in os.walk(ROOT):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            for me, target, line in references(path, rel):
                if target == me or me in ("lib", "main") or target not in LEVEL:
                    continue
                if me not in LEVEL:
                    problems.append(f"{rel}: module `{me}` is not in a layer of scripts/check-layers.py")
                    continue
                edges.add((me, target))
                if LEVEL[target] <= LEVEL[me]:
                    how = "a higher" if LEVEL[target] < LEVEL[me] else "the same"
                    problems.append(f"crates/dp-bench/src/{rel}:{line}: `{me}` uses `crate::{target}`, in {how} layer")
    if "--graph" in sys.argv:
        for a, b in sorted(edges):
            print(f"{a} -> {b}")
    for p in sorted(set(problems)):
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(set(problems))} upward or sideways import(s); see the layers in scripts/check-layers.py", file=sys.stderr)
        return 1
    print(f"dp-bench: {len(edges)} imports between top-level modules, all downwards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
