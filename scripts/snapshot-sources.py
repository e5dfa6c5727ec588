#!/usr/bin/env python3
"""Writes docs/figures/PAPER/SOURCES.md: which run produced which rows of the committed
snapshot, with the config, the commit of the binary that ran it and when (from each run's
provenance.json), and the sha256 of every committed file (scripts/check-snapshots.sh fails on
a file whose bytes differ from it, i.e. one edited by hand or refreshed without this script).

Usage: scripts/snapshot-sources.py PAPER [--results DIR] [--drawn-by COMMIT]
                                  [--redrawn [FILE,FILE...]]
  --results DIR      the results root holding PAPER/<run>/ (default: results)
  --drawn-by COMMIT  commit of the `dp-bench figures` binary that drew the files
                     (default: this checkout's HEAD, +dirty when it has uncommitted changes)
  --redrawn          every file was drawn again (by --drawn-by) and found byte-identical:
                     record that build and now, not the build that first drew it; with a
                     comma-separated list, only those files (the others could not be drawn
                     again, e.g. their runs are not under DIR)

Runs are the PAPER lines of docs/figures/runs.txt. A run found under DIR gets a fresh row;
one not found keeps its row from the existing SOURCES.md (or is marked "not recorded"). A file
whose sha256 is unchanged keeps its "drawn by"; a changed or new file gets --drawn-by and now.
Typical refresh, after scripts/snapshot-runs.sh PAPER:
  dp-bench figures PAPER --results results/PAPER --out docs/figures/PAPER
  scripts/snapshot-sources.py PAPER
"""
import datetime
import json
import os
import re
import sys

from snapshot_common import REPO, git as git_run, manifest, read_table, sha256

RUN_COLUMNS = ["run", "config", "cut", "config sha256", "binary commit", "checkout commit",
               "finished (UTC)", "wall s", "threads", "gives"]
FILE_COLUMNS = ["file", "sha256", "drawn by", "drawn (UTC)"]
UNRECORDED = "not recorded"


def git(*args):
    rc, out = git_run(*args)
    return out if rc == 0 else ""


def head_commit():
    head = git("rev-parse", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + "+dirty" if dirty and head != "unknown" else head


def short(commit):
    """A commit as SOURCES.md shows it: 12 hex digits, `+dirty` kept."""
    hexpart, plus, rest = commit.partition("+")
    if re.fullmatch(r"[0-9a-f]{40}", hexpart):
        return hexpart[:12] + plus + rest
    return commit


def run_row(entry, results, paper):
    """A fresh row from results/PAPER/<run>/, or None when the run has no provenance there."""
    d = os.path.join(results, paper, entry["run"])
    try:
        with open(os.path.join(d, "provenance.json")) as f:
            p = json.load(f)
    except (OSError, ValueError):
        return None
    recipe = {}
    try:
        with open(os.path.join(d, "snapshot-recipe.txt")) as f:
            recipe = dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)
    except OSError:
        pass
    config = recipe.get("config", entry["config"])
    config_sha = recipe.get("config_sha256")
    if config_sha is None:  # run without scripts/snapshot-runs.sh: hash the config as it is now
        path = os.path.join(REPO, config)
        config_sha = sha256(path) if os.path.exists(path) else "?"
    return {
        "run": entry["run"],
        "config": config,
        "cut": recipe.get("cut", entry["cut"]),
        "config sha256": config_sha[:16],
        "binary commit": short(p.get("build_commit", "unknown")),
        "checkout commit": short(p.get("git_commit", "unknown")),
        "finished (UTC)": p.get("finished", "?"),
        "wall s": f"{float(p.get('wall_seconds', 0)):.0f}",
        "threads": str(p.get("threads", "?")),
        "gives": entry["gives"],
    }


def md_row(values):
    return "| " + " | ".join(values) + " |"


def code(v):
    """A commit or hash in backticks; placeholders and notes ("not recorded (…)") as they are."""
    return f"`{v}`" if v and v not in ("-", "?") and not v.startswith(UNRECORDED) else v


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    paper, args = argv[0], argv[1:]
    results = os.path.join(REPO, "results")
    drawn_by = None
    redrawn = False  # True: every file; a set: those files
    while args:
        flag = args.pop(0)
        if flag == "--redrawn":
            redrawn = True
            if args and not args[0].startswith("--"):
                redrawn = set(args.pop(0).split(","))
        elif flag in ("--results", "--drawn-by") and args:
            value = args.pop(0)
            if flag == "--results":
                results = os.path.abspath(value)
            else:
                drawn_by = value
        else:
            sys.exit(f"unknown argument {flag!r}\n\n{__doc__}")
    if isinstance(redrawn, set):
        folder_files = set(os.listdir(os.path.join(REPO, "docs", "figures", paper)))
        unknown = sorted(redrawn - folder_files)
        if unknown:
            sys.exit(f"--redrawn names files not in docs/figures/{paper}/: {', '.join(unknown)}")
    entries = manifest(paper)
    if not entries:
        sys.exit(f"docs/figures/runs.txt has no line for {paper}")
    folder = os.path.join(REPO, "docs", "figures", paper)
    target = os.path.join(folder, "SOURCES.md")
    old_text = open(target).read() if os.path.exists(target) else ""
    old_runs = {r.get("run"): r for r in read_table(old_text, "Runs")}
    old_files = {r.get("file"): r for r in read_table(old_text, "Files")}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    drawn_by = short(drawn_by or head_commit())

    runs, fresh = [], []
    for e in entries:
        row = run_row(e, results, paper)
        if row is not None:
            fresh.append(e["run"])
        else:
            row = old_runs.get(e["run"]) or dict(
                {c: UNRECORDED if c == "binary commit" else "-" for c in RUN_COLUMNS},
                run=e["run"], config=e["config"], cut=e["cut"])
            row["gives"] = e["gives"]
        runs.append(row)

    files = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name == "SOURCES.md" or not os.path.isfile(path):
            continue
        digest = sha256(path)
        old = old_files.get(name)
        again = redrawn is True or (isinstance(redrawn, set) and name in redrawn)
        if old and old.get("sha256") == digest and not again:
            files.append(old)
        else:
            files.append({"file": name, "sha256": digest, "drawn by": drawn_by,
                          "drawn (UTC)": now})

    out = [
        f"# Sources of docs/figures/{paper}/",
        "",
        f"Written by `scripts/snapshot-sources.py {paper}` from each run's `provenance.json`;"
        " do not edit by hand. `scripts/check-snapshots.sh` (CI) fails when a file below no"
        " longer has its sha256, re-runs the runs marked `ci` in `docs/figures/runs.txt` and"
        " compares their rows with these files, and lists every run whose binary commit is"
        " not the checkout's HEAD (see [README.md](../README.md)).",
        "",
        "## Runs",
        "",
        "Each run: `results/" + paper + "/<run>/`, made by `scripts/snapshot-runs.sh "
        + paper + "/<run>`; *cut* `subset[:T]` is `scripts/iyengar2019-subset.py` (ε = 0.1,"
        " dishonest tuning, T trials); *config sha256* is of the config file before the cut"
        " (first 16 hex digits); *binary commit* is the commit the `dp-bench` binary was built"
        " from, *checkout commit* the checkout it ran in; *wall s* is the last run into the"
        " folder.",
        "",
        md_row(RUN_COLUMNS),
        md_row(["---"] * len(RUN_COLUMNS)),
    ]
    for r in runs:
        out.append(md_row([code(r.get(c, "-")) if c not in ("run", "gives", "finished (UTC)",
                                                             "wall s", "threads") else
                           r.get(c, "-") for c in RUN_COLUMNS]))
    out += [
        "",
        "## Files",
        "",
        f"Drawn by `dp-bench figures {paper}` from the runs above; *drawn by* is the commit of"
        " its binary.",
        "",
        md_row(FILE_COLUMNS),
        md_row(["---"] * len(FILE_COLUMNS)),
    ]
    for f in files:
        out.append(md_row([f["file"], code(f["sha256"]), code(f["drawn by"]),
                           f["drawn (UTC)"]]))
    with open(target, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"{os.path.relpath(target, REPO)}: {len(runs)} runs ({len(fresh)} from {results}),"
          f" {len(files)} files")


if __name__ == "__main__":
    main(sys.argv[1:])
