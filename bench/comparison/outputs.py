# Writes a comparison's files: summary.csv (one row per size and
# configuration), levels.csv (one row per level), results.json (everything,
# for --replot) and the plots.

import csv
import json
import os

from comparison.figures import level_rows, summarize
from comparison.plots import plot

LEVEL_FIELDS = ("level", "files", "entries", "filter_bytes", "filter_entries",
                "bits_per_key", "filter", "probes", "useful",
                "false_positives", "fpr", "model_fpr", "fpr_sigma",
                "model_agrees", "plan_bits_per_key", "plan_fpr")


def summary_rows(results):
    return [dict({"keys": r["num"], "config": r["config"]["label"],
                  "filter_uri": r["config"]["filter_uri"],
                  "flags": " ".join(r["config"]["flags"])}, **summarize(r))
            for r in results]


def level_csv_rows(results):
    return [{"keys": r["num"], "config": r["config"]["label"],
             **{k: l.get(k) for k in LEVEL_FIELDS}}
            for r in results for l in level_rows(r)]


def write_csv(path, rows):
    """Rows of dicts; the columns are every key, in order of appearance."""
    fields = []
    for row in rows:
        fields += [k for k in row if k not in fields]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def write_outputs(out, results, preset, meta):
    level_csv = level_csv_rows(results)
    for name, rows in (("summary.csv", summary_rows(results)),
                       ("levels.csv", level_csv)):
        if rows:
            write_csv(os.path.join(out, name), rows)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    plot(out, results, level_csv)
