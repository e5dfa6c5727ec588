"""What scripts/snapshot-check.py and scripts/snapshot-sources.py share: the repository's
paths, file hashes, git, the markdown tables of a SOURCES.md and the lines of
docs/figures/runs.txt."""
import hashlib
import os
import re
import subprocess

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FIGURES = os.path.join(REPO, "docs", "figures")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def git(*args):
    """(exit code, stripped stdout) of `git ARGS` in the repository."""
    r = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    return r.returncode, r.stdout.strip()


def read_table(text, heading):
    """Rows (dicts, backticks stripped) of the markdown table under `## heading` in text."""
    m = re.search(r"^## " + re.escape(heading) + r"\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return []
    lines = [line for line in m.group(1).splitlines() if line.startswith("|")]
    if len(lines) < 2:
        return []
    cells = lambda line: [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
    head = cells(lines[0])
    return [dict(zip(head, cells(line))) for line in lines[2:]]


def manifest(paper):
    """The PAPER lines of docs/figures/runs.txt as dicts."""
    out = []
    with open(os.path.join(FIGURES, "runs.txt")) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split(None, 5)
            if parts[0] == paper:
                out.append({"run": parts[1], "config": parts[2], "cut": parts[3],
                            "check": parts[4], "gives": parts[5].strip()})
    return out
