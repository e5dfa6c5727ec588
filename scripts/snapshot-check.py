#!/usr/bin/env python3
"""Checks the committed snapshots in docs/figures/<paper>/ against their SOURCES.md and,
given re-drawn figures, against a re-run; lists the runs whose commit is not HEAD.
scripts/check-snapshots.sh runs it; exit 1 on any difference.

Usage: scripts/snapshot-check.py [--hashes-only | --regen DIR [--reran RESULTS]]
                                 [--require-sources] [PAPER...]
  --hashes-only  only the sha256 check below (no list of stale runs)
  --require-sources  also fail on a run without a recorded producing commit or computed by a
               build with uncommitted changes (+dirty)
  --regen DIR  DIR/<paper>/ holds `dp-bench figures <paper>` drawn from re-runs of some of
               the paper's runs: every CSV row and markdown line drawn there must be in
               the committed file, byte for byte (a committed row edited by hand is caught
               by the sha256 check below, whether or not its run is re-run)
  --reran RESULTS  the re-runs' results (RESULTS/<paper>/<run>/), named as such in the list
  PAPER...     only these papers (default: every folder of docs/figures/)

Always: every folder of docs/figures/ has a SOURCES.md listing each of its files with its
sha256, and no line of docs/figures/runs.txt is marked "stale" (check column): a change to the
code that moves an expensive run's cells marks its line so, and the check fails until the run
is re-run (cheap runs are re-run by scripts/check-snapshots.sh itself).
"""
import csv
import io
import os
import re
import sys

from snapshot_common import FIGURES, git, manifest, read_table as table, sha256


def check_hashes(paper, errors, warnings):
    folder = os.path.join(FIGURES, paper)
    sources = os.path.join(folder, "SOURCES.md")
    if not os.path.exists(sources):
        errors.append(f"docs/figures/{paper}/SOURCES.md missing: its files name no run or"
                      f" commit (scripts/snapshot-sources.py {paper} writes it)")
        return []
    text = open(sources).read()
    listed = {r["file"]: r["sha256"] for r in table(text, "Files")}
    present = sorted(n for n in os.listdir(folder)
                     if n != "SOURCES.md" and os.path.isfile(os.path.join(folder, n)))
    for name in present:
        if name not in listed:
            errors.append(f"docs/figures/{paper}/{name}: not in SOURCES.md (refresh it with"
                          f" scripts/snapshot-sources.py {paper})")
        elif sha256(os.path.join(folder, name)) != listed[name]:
            errors.append(f"docs/figures/{paper}/{name}: sha256 differs from SOURCES.md, i.e."
                          " edited by hand or drawn again without scripts/snapshot-sources.py")
    for name in sorted(set(listed) - set(present)):
        errors.append(f"docs/figures/{paper}/SOURCES.md lists {name}, which is not there")
    return table(text, "Runs")


def csv_rows(path):
    """(header, [fields], [line]) of a CSV file; lines are the raw text of its rows."""
    with open(path, newline="") as f:
        lines = [x for x in f.read().splitlines() if x.strip()]
    if not lines:
        return "", [], []
    rows = lines[1:]
    return lines[0], [next(csv.reader(io.StringIO(x))) for x in rows], rows


def nearest(fields, committed):
    """The committed row sharing the longest run of leading fields with `fields`."""
    def shared(other):
        n = 0
        while n < min(len(fields), len(other)) and fields[n] == other[n]:
            n += 1
        return n
    best = max(range(len(committed[0])), key=lambda i: shared(committed[0][i]), default=None)
    return committed[1][best] if best is not None else "(none)"


def compare_csv(regen, committed, label, errors):
    rh, rfields, rlines = csv_rows(regen)
    ch, cfields, clines = csv_rows(committed)
    if rh != ch:
        errors.append(f"{label}: header differs\n    re-run:   {rh}\n    snapshot: {ch}")
        return 0
    have = set(clines)
    missing = [i for i, x in enumerate(rlines) if x not in have]
    if missing:
        msg = [f"{label}: {len(missing)} re-run row(s) not in the snapshot"]
        for i in missing[:8]:
            msg += [f"    re-run:   {rlines[i]}",
                    f"    snapshot: {nearest(rfields[i], (cfields, clines))}"]
        errors.append("\n".join(msg))
    return len(rlines)


# Lines a partial re-run draws in place of what it did not run.
PLACEHOLDER = re.compile(r"^(No results|.*\bskipped\b)")


def compare_md(regen, committed, label, errors):
    committed_lines = set(open(committed).read().splitlines())
    lines = [x for x in open(regen).read().splitlines()
             if x.strip() and not PLACEHOLDER.match(x)]
    missing = [x for x in lines if x not in committed_lines]
    if missing:
        errors.append("\n".join([f"{label}: {len(missing)} line(s) of the re-run are not in"
                                  " the snapshot"] + [f"    re-run:   {x}" for x in missing[:8]]))
    return len(lines)


def compare(regen_root, paper, errors):
    regen = os.path.join(regen_root, paper)
    if not os.path.isdir(regen):
        return
    compared = 0
    for name in sorted(os.listdir(regen)):
        committed = os.path.join(FIGURES, paper, name)
        if not os.path.exists(committed):
            continue
        label = f"docs/figures/{paper}/{name}"
        if name.endswith(".csv"):
            compared += compare_csv(os.path.join(regen, name), committed, label, errors)
        elif name.endswith(".md"):
            compared += compare_md(os.path.join(regen, name), committed, label, errors)
    print(f"{paper}: {compared} re-drawn rows compared with the snapshot")


def unsourced(paper, runs, require_sources, errors):
    """Errors for the runs a snapshot must not rest on: a line of docs/figures/runs.txt marked
    "stale" (the current code computes its cells differently, found by whoever changed the
    code: re-run it), and with `require_sources` a run with no recorded producing commit or one
    built from uncommitted code ("+dirty")."""
    for line in manifest(paper):
        if line["check"] == "stale":
            errors.append(f"{paper}/{line['run']}: marked stale in docs/figures/runs.txt (the "
                          f"current code computes its cells differently): re-run it with "
                          f"scripts/snapshot-runs.sh {paper}/{line['run']}, redraw, refresh "
                          f"SOURCES.md and set its check column back")
    if not require_sources:
        return
    for r in runs:
        commit = r.get("binary commit", "")
        what = f"{paper}/{r.get('run')}"
        if not re.fullmatch(r"`?[0-9a-f]{7,40}`?", commit.split("+")[0]):
            errors.append(f"{what}: no recorded producing commit ({commit or 'none'}): re-run "
                          f"it with scripts/snapshot-runs.sh {what}")
        elif "+dirty" in commit:
            errors.append(f"{what}: computed by {commit}, a build with uncommitted changes: "
                          f"re-run it from a clean checkout")


def stale(paper, runs, reran):
    """Lines naming each run whose binary commit is not HEAD (re-run ones: that they were)."""
    _, head = git("rev-parse", "HEAD")
    out = []
    manifest_config = {e["run"]: e["config"] for e in manifest(paper)}
    for r in runs:
        commit = r.get("binary commit", "")
        hexpart = commit.split("+")[0]
        config = manifest_config.get(r.get("run"), r.get("config", ""))
        what = f"{paper}/{r.get('run')}"
        if reran and os.path.isdir(os.path.join(reran, paper, r.get("run", ""))):
            out.append(f"{what}: produced by {commit}; re-run now, rows compared above")
            continue
        if not re.fullmatch(r"[0-9a-f]{7,40}", hexpart):
            out.append(f"{what}: producing commit {commit or 'unknown'}")
            continue
        if head.startswith(hexpart) and "+" not in commit:
            continue
        rc, _ = git("cat-file", "-e", hexpart + "^{commit}")
        if rc != 0:
            out.append(f"{what}: produced by {commit}, not a commit of this repository")
            continue
        rc, changed = git("diff", "--name-only", hexpart, "HEAD", "--",
                          "crates", "Cargo.lock", config)
        n = len(changed.splitlines()) if changed else 0
        dirty = " with uncommitted changes" if "+" in commit else ""
        since = (f"{n} file(s) of crates/, Cargo.lock or its config changed since" if n
                 else "code and config unchanged since")
        out.append(f"{what}: stale? produced by {commit}{dirty} (HEAD {head[:12]}): {since}")
    return out


def main(argv):
    regen = reran = None
    hashes_only = False
    require_sources = False
    papers = []
    while argv:
        a = argv.pop(0)
        if a == "--regen" and argv:
            regen = argv.pop(0)
        elif a == "--reran" and argv:
            reran = argv.pop(0)
        elif a == "--hashes-only":
            hashes_only = True
        elif a == "--require-sources":
            require_sources = True
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            papers.append(a)
    papers = papers or sorted(d for d in os.listdir(FIGURES)
                              if os.path.isdir(os.path.join(FIGURES, d)))
    errors, warnings, notes = [], [], []
    for paper in papers:
        runs = check_hashes(paper, errors, warnings)
        unsourced(paper, runs, require_sources, errors)
        if regen:
            compare(regen, paper, errors)
        if not hashes_only:
            notes += stale(paper, runs, reran)
    if notes:
        print("Runs not produced by HEAD's binary (stale unless nothing they depend on changed;"
              " re-run with scripts/snapshot-runs.sh; SOURCES.md says which rows they give):")
        print("\n".join("  " + n for n in notes))
    for w in warnings if not hashes_only else []:
        print(f"warning: {w}")
    if errors:
        print(f"\nFAILED: {len(errors)} difference(s) between the snapshot and its sources:",
              file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        sys.exit(1)
    print("snapshots match their SOURCES.md" + (" and the re-runs" if regen else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
