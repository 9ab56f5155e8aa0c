#!/usr/bin/env python3
"""Checks that every figure the README and docs quote has a record behind it.

A section (a heading to the next) that quotes a measured figure -- a ratio
with decimals (0.87x, 1.02×), a percentage with decimals, ops/s, a time in
µs or ms, a wall time in "N min N s", unless it follows a comparison (a
bound: <= 1.05x) -- must link a result record,
bench/results/<name>/ with its command.txt and machine.txt, or, when its
figures are deterministic -- the model's, or a committed test's or
baseline's -- name what computes them with <!-- figures from: PATH -->,
PATH a file or directory of the repository. Tables that
bench/tables.py generates count as links to their records (that they match
their records is bench/tables.py --check's job), and so do tables it
generates from committed data elsewhere (tests/baselines). And the docs name no
commit: hashes belong in records, decision records, HISTORY.md and commit
messages.

Decision records (docs/decisions/NNN-*.md) are history: they quote runs of
their time, many from before records were kept, by the commit and the doc
version that recorded them. Each must name its evidence (an **Evidence:**
field), and every record it links and every commit it names must exist (the
commits when the source is a git checkout). HISTORY.md names the commits of
its entries and is not checked.

Usage: figures_check.py <source dir>
"""
import glob
import os
import re
import subprocess
import sys

# A figure right after a comparison (≤ 1.05x, >= 0.99x) is a bound, not a
# measurement.
FIGURE = re.compile(r"(?<![≤≥<>=\d.]\s)(?<![≤≥<>=\d.])(?:\d+\.\d+\s?[x×](?!\w)|\d+\.\d+\s?%|[\d,]+ ops/s"
                    r"|\d+(?:\.\d+)?\s?(?:µs|us|ms)\b|\d+ min \d+ s)")
RECORD = re.compile(r"bench/results/([\w.-]+)")
MODEL = re.compile(r"<!-- figures from: (\S+) -->")
GENERATED = re.compile(r"<!-- bench/tables\.py: ([\w./-]+) -->"
                       r".*?<!-- end bench/tables\.py -->", re.S)
# A commit: 7 to 40 hex digits with a letter and a digit, not inside a
# record's name.
COMMIT = re.compile(r"(?<![\w/-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])"
                    r"[0-9a-f]{7,40}(?![\w-])")


def docs(root):
    yield os.path.join(root, "README.md")
    yield from sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def sections(text):
    """(heading line number, heading, body) for each section, headings
    inside code fences left alone."""
    out, start, head, body, fenced = [], 1, "(top)", [], False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("#") and not fenced:
            out.append((start, head, "\n".join(body)))
            start, head, body = n, line, []
        else:
            body.append(line)
    out.append((start, head, "\n".join(body)))
    return out


def is_record(root, name):
    path = os.path.join(root, "bench", "results", name)
    return all(os.path.isfile(os.path.join(path, f))
               for f in ("command.txt", "machine.txt"))


def check(root, path):
    errors = []
    rel = os.path.relpath(path, root)
    with open(path) as f:
        text = f.read()
    for line, head, body in sections(text):
        records = RECORD.findall(body)
        for name in records:
            if not is_record(root, name.rstrip(".")):
                errors.append(f"{rel}:{line}: {head}: bench/results/{name} "
                              "is not a record (command.txt, machine.txt)")
        models = MODEL.findall(body)
        for model in models:
            if not os.path.exists(os.path.join(root, model)):
                errors.append(f"{rel}:{line}: {head}: figures from: "
                              f"{model} does not exist")
        generated = GENERATED.findall(body)
        prose = GENERATED.sub("", body)
        figures = FIGURE.findall(prose)
        if figures and not records and not models and not generated:
            errors.append(f"{rel}:{line}: {head}: quotes "
                          f"{', '.join(figures[:3])} and links no record")
        for commit in COMMIT.findall(RECORD.sub("", prose)):
            errors.append(f"{rel}:{line}: {head}: names commit {commit}; "
                          "link its record instead")
    return errors


def commit_exists(root, name):
    return subprocess.run(
        ["git", "-C", root, "rev-parse", "--verify", "--quiet",
         name + "^{commit}"], capture_output=True).returncode == 0


def check_decision(root, path):
    errors = []
    rel = os.path.relpath(path, root)
    with open(path) as f:
        text = f.read()
    if "**Evidence:**" not in text:
        errors.append(f"{rel}: names no evidence (an **Evidence:** field)")
    for name in RECORD.findall(text):
        if not is_record(root, name.rstrip(".")):
            errors.append(f"{rel}: bench/results/{name} is not a record")
    if os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(
            os.path.join(root, ".git")):
        for commit in sorted(set(COMMIT.findall(RECORD.sub("", text)))):
            if not commit_exists(root, commit):
                errors.append(f"{rel}: commit {commit} is not in the "
                              "repository's history")
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = [e for path in docs(root) for e in check(root, path)]
    errors += [e for path in sorted(glob.glob(
        os.path.join(root, "docs", "decisions", "[0-9]*.md")))
        for e in check_decision(root, path)]
    for e in errors:
        print(e)
    if errors:
        print(f"figures_check: {len(errors)} problem(s)")
        return 1
    print("figures_check: every quoted figure links a record")
    return 0


if __name__ == "__main__":
    sys.exit(main())
