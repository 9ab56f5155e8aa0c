#!/usr/bin/python3
"""Regenerates the docs' result tables from the committed records.

  bench/tables.py [--check] [FILE.md ...]     (default: every docs/*.md)

A generated table sits between two markers that name its record:

  <!-- bench/tables.py: bench/results/20261204-f03316d-writetax -->
  ...generated text...
  <!-- end bench/tables.py -->

and is rendered, by the record's own tool where it has one, from the JSON the
tool wrote (bench/record.py keeps it):
  - compare.sh presets (results.json with meta.preset): compare.py's table,
    its throughput ratios and its verdicts, as --replot prints them;
  - the write-tax benchmark (results.json with a summary): writetax.py's
    table and issue 29's bar;
  - grow_tree --matrix (matrix*.json[.gz]): cells within bounds and the
    settled and worst-step ratios, by load regime;
  - depth_sweep.py (depth.json): its table of ratios by filtered runs;
  - frontier.py (frontier.json): the bytes each filter needs at each Sigma
    FPR, as frontier.py prints them;
  - bench/advisor_validation.py (summary.json): the advisor against
    readmissing, and the bytes its suggestions realized;
  - a text file in a record: as the tool printed it;
  - fpr_check baselines (a directory of them, tests/baselines): each one's
    filter, realized bits per filter entry, Sigma FPR and filter bytes.
Without --check it rewrites the blocks in place; with --check it changes
nothing and fails, showing the difference, when a block is not what its
record renders to. Python's standard library only.
"""

import argparse
import difflib
import glob
import gzip
import io
import json
import os
import re
import statistics
import sys
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

BLOCK = re.compile(
    r"(<!-- bench/tables\.py: ([\w./-]+) -->\n)(.*?)"
    r"(<!-- end bench/tables\.py -->)", re.S)


def render_compare(saved):
    from comparison.checks import checks
    from comparison.tables import print_table, throughput_table
    results = saved["results"]
    for r in results:  # JSON keeps the plan's level numbers as strings
        r["plan"] = {int(level): p for level, p in r["plan"].items()}
    preset = saved["meta"]["preset"]
    parts = [print_table(results, preset), throughput_table(results)]
    with redirect_stdout(io.StringIO()):  # checks may log as they go
        verdicts = checks(results, preset)
    parts.append("\n".join(verdicts))
    return "\n\n".join(p for p in parts if p)


def render_writetax(saved):
    from comparison.writetax import bar_lines, table
    configs = saved["meta"]["config_specs"]
    return (table(saved["summary"], configs, saved["workloads"]) + "\n\n" +
            "\n".join(bar_lines(saved["summary"], configs)))


def render_matrix(cells):
    """grow_tree --matrix by memtable size and by sizing and load: cells
    within bounds, the worst Sigma FPR over the optimum at any step and
    settled, the mean settled, the budget's worst deviation settled and
    mid-load, and the mid-load steps over the budget by more than 5%."""
    head = ("cells", "within bounds", "worst step", "worst settled",
            "mean settled", "worst settled budget", "worst mid-load budget",
            "mid-load steps over 5%")

    def row(name, mine):
        steps = [s for c in mine for s in c["live"] if not s["settled"]]
        over = sum(abs(s["budget_deviation"]) > 0.05 for s in steps)
        settled = [c["settled_ratio"] for c in mine]
        return (name, str(len(mine)), str(sum(c["ok"] for c in mine)),
                f"{max(c['worst_step_ratio'] for c in mine):.3f}",
                f"{max(settled):.3f}", f"{statistics.mean(settled):.3f}",
                f"{max(c['worst_budget_deviation'] for c in mine):.1%}",
                f"{max(c['worst_midload_budget_deviation'] for c in mine):.1%}",
                f"{over} of {len(steps)}")

    by_memtable = [("memtable",) + head] + [
        row(f"{mib:g} MiB", [c for c in cells if c["memtable_mib"] == mib])
        for mib in sorted({c["memtable_mib"] for c in cells})]
    by_load = [("sizing, load",) + head] + [
        row(f"{'on' if dyn else 'off'}, {load}",
            [c for c in cells
             if c["dynamic_levels"] == dyn and c["load"] == load])
        for dyn in (True, False)
        for load in ("fast", "writers4", "sequential")
        if any(c["dynamic_levels"] == dyn and c["load"] == load
               for c in cells)]
    return text_table(by_memtable) + "\n\n" + text_table(by_load)


def render_baselines(baselines):
    rows = [("file", "filter_uri", "bits/entry", "sum FPR", "filter bytes")]
    for name, b in baselines:
        total = b["total"]
        rows.append((name, b["filter_uri"], f"{total['bits_per_key']:.3f}",
                     f"{total['sum_fpr']:.2%}", f"{total['filter_bytes']:,}"))
    return text_table(rows)


def render_depth(saved):
    from comparison.depth import table
    model = {int(runs): m for runs, m in saved["model"].items()}
    return table(saved["ratios"], model)


def text_table(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths))
                     .rstrip() for r in rows)


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def render(record):
    """The text a record renders to, by what its tool wrote."""
    path = os.path.join(ROOT, record)
    if os.path.isfile(path):  # a tool's own text output, as it printed it
        with open(path) as f:
            return f.read()
    if not os.path.isdir(path):
        raise ValueError(f"{record}: no such record")
    summary = os.path.join(path, "summary.json")
    if os.path.exists(summary):
        import advisor_validation
        return advisor_validation.table(load_json(summary))
    results = os.path.join(path, "results.json")
    if os.path.exists(results):
        saved = load_json(results)
        if "summary" in saved and "workloads" in saved:
            return render_writetax(saved)
        if "results" in saved:
            return render_compare(saved)
    matrix = sorted(glob.glob(os.path.join(path, "matrix*.json*")))
    if matrix:
        return render_matrix(load_json(matrix[-1]))
    baselines = []
    for name in sorted(glob.glob(os.path.join(path, "*.json"))):
        saved = load_json(name)
        if "fpr_check_format" in saved:
            baselines.append((os.path.basename(name)[:-5], saved))
    if baselines:
        return render_baselines(baselines)
    frontier = os.path.join(path, "frontier.json")
    if os.path.exists(frontier):
        from comparison.frontier import summary as frontier_table
        return frontier_table(load_json(frontier)["points"])
    depth = os.path.join(path, "depth.json")
    if os.path.exists(depth):
        return render_depth(load_json(depth))
    raise ValueError(f"{record}: nothing bench/tables.py can render")


def regenerate(text):
    def block(m):
        body = "```text\n" + render(m.group(2)).rstrip("\n") + "\n```\n"
        return m.group(1) + body + m.group(4)
    return BLOCK.sub(block, text)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="change nothing; fail when a table is stale")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "docs",
                                                        "*.md")))
    stale = 0
    for name in files:
        with open(name) as f:
            old = f.read()
        try:
            new = regenerate(old)
        except ValueError as e:
            print(f"tables: {name}: {e}", file=sys.stderr)
            return 1
        if new == old:
            continue
        if args.check:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), name,
                name + " (regenerated)"))
        else:
            with open(name, "w") as f:
                f.write(new)
            print(f"tables: regenerated {os.path.relpath(name, ROOT)}")
    if stale:
        print(f"tables: {stale} file(s) out of date with their records; run "
              "bench/tables.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
