# The side-by-side table of every configuration (one column each, one block
# per size), and the comparison of --also_db_bench builds with --db_bench.

from comparison.figures import (fmt_num, fmt_pct, labels_in_order,
                                level_rows, summarize)
from comparison.spread import (fmt_ratio, fmt_spread_cell, ops_rounds,
                               ratio_rounds)


def builds_table(results):
    """Each --also_db_bench build against --db_bench, configuration by
    configuration: its ops/s as a ratio (the median of the rounds' ratios
    and their min-max, or no difference measured), and both sum FPRs (the
    filters and so the FPRs must not depend on the build)."""
    lines = []
    for r in results:
        build = r["config"].get("build")
        if not build:
            continue
        base = next((b for b in results if b["num"] == r["num"]
                     and b["config"]["label"] == r["config"]["base_label"]),
                    None)
        if base is None:
            continue
        if not lines:
            lines.append("build comparison: ops/s of CONFIG@BUILD over "
                         "--db_bench's, and sum FPR of each")
        mine, theirs = summarize(r), summarize(base)
        lines.append(
            f"  {r['num']:,} keys {r['config']['label']}: "
            + ", ".join(ratio_cells(r, base))
            + f"; sum FPR {fmt_pct(theirs['sum_fpr'])} -> "
            f"{fmt_pct(mine['sum_fpr'])}")
    return "\n".join(lines)


def ratio_cells(result, base):
    """"BENCH RATIO" for each measured benchmark that both ran: the ratio of
    their ops/s round by round, as spread.fmt_ratio prints it."""
    cells = []
    for b in result["benchmarks"]:
        if b.get("phase") != "measure":
            continue
        ratios = ratio_rounds(ops_rounds(result, b["benchmark"]),
                              ops_rounds(base, b["benchmark"]))
        if ratios:
            cells.append(f"{b['benchmark']} {fmt_ratio(ratios)}")
    return cells


# The configuration each throughput is compared with, the first present.
THROUGHPUT_BASES = ("bloomfilter:10", "fixed10")


def throughput_table(results):
    """Every configuration's measured ops/s over THROUGHPUT_BASES' at the
    same size: the median of the rounds' ratios with their min-max, "no
    difference measured" where that range contains 1.0. Empty without a
    base or other configurations."""
    lines = []
    for num in sorted({r["num"] for r in results}):
        by = {r["config"]["label"]: r for r in results if r["num"] == num}
        name = next((b for b in THROUGHPUT_BASES if b in by), None)
        if name is None:
            continue
        for label, r in by.items():
            cells = ratio_cells(r, by[name]) if label != name else []
            if not cells:
                continue
            if not lines:
                lines.append(f"ops/s over {name}'s, round by round (median "
                             "ratio, min-max over the rounds):")
            lines.append(f"  {num:,} keys {label}: " + ", ".join(cells))
    return "\n".join(lines)


def trees_table(results):
    """Each result's tree, files per level, after each phase that printed
    it (db_bench's levelstats): the load's end, the measurement's."""
    when = {"load": "load", "runs": "load end", "measure": "measurement"}
    lines = []
    for r in results:
        for phase, tree in r.get("trees", {}).items():
            cells = ", ".join(f"L{t['level']} {t['files']}" for t in tree)
            lines.append(f"  {r['num']:,} keys {r['config']['label']}, "
                         f"{when.get(phase, phase)}: {cells}")
    return ("tree (files per level):\n" + "\n".join(lines)) if lines else ""


def print_table(results, preset):
    configs = labels_in_order(results)
    sizes = sorted({r["num"] for r in results})
    benches = []
    for r in results:
        for b in r["benchmarks"]:
            if b["benchmark"] not in benches:
                benches.append(b["benchmark"])
    # Wide enough for every label and every ops/s range.
    width = max([14] + [len(c) + 2 for c in configs]
                + [len(fmt_spread_cell(ops_rounds(r, b))) + 2
                   for r in results for b in benches])
    lines = []

    def row(name, cells):
        lines.append(f"{name:<30}" + "".join(f"{c:>{width}}" for c in cells))

    row("", configs)
    for num in sizes:
        by_label = {r["config"]["label"]: r for r in results if r["num"] == num}
        sums = {k: summarize(v) for k, v in by_label.items()}
        if len(sizes) > 1:
            lines.append(f"--- {num:,} keys")

        def cells(key, fmt):
            return [fmt(sums[c].get(key)) if c in sums else "" for c in configs]

        row("filter MiB", cells("filter_bytes",
                                lambda v: fmt_num(v and v / 2**20, "{:.3f}")))
        row("realized bits/key", cells("bits_per_key",
                                       lambda v: fmt_num(v, "{:.2f}")))
        levels = sorted({l["level"] for r in by_label.values()
                         for l in level_rows(r)})
        for lv in levels:
            def level_cell(label, key, fmt):
                r = by_label.get(label)
                for l in level_rows(r) if r else []:
                    if l["level"] == lv:
                        return fmt(l.get(key))
                return "-"
            row(f"L{lv} bits/key", [level_cell(c, "bits_per_key",
                                               lambda v: fmt_num(v, "{:.2f}"))
                                    for c in configs])
            row(f"L{lv} FPR", [level_cell(c, "fpr", fmt_pct) for c in configs])
        # A universal tree is judged by FP per absent lookup, every L0 file
        # a run; the levels' sum counts L0 once.
        if preset != "universal":
            row("sum FPR", cells("sum_fpr", fmt_pct))
            row("sum FPR, model", cells("model_sum_fpr", fmt_pct))
        if preset == "deep":
            row("filtered runs", cells("filtered_runs", fmt_num))
            row("runs probed per lookup", cells(
                "runs_probed", lambda v: fmt_num(v, "{:.2f}")))
            row("sum FPR over runs", cells("sum_fpr_runs", fmt_pct))
            row("sum FPR over runs, model", cells("model_sum_fpr_runs",
                                                  fmt_pct))
        row("FP per absent lookup", cells("fp_per_absent_lookup",
                                          lambda v: fmt_num(v, "{:.4f}")))
        if preset == "universal":
            fp = lambda v: fmt_num(v, "{:.4f}")  # noqa: E731
            row("sorted runs at rest", cells("sorted_runs", fmt_num))
            row("FP per absent lookup, tickers",
                cells("ticker_fp_per_lookup", fp))
            row("FP per absent lookup, model", cells(
                "model_fp_per_absent_lookup", fp))
            row("advisor: sorted runs", cells("advisor_sorted_runs", fmt_num))
            row("advisor: FP/lookup as built", cells("advisor_fp_now", fp))
            row("advisor: optimum, same bytes", cells("advisor_optimum", fp))
        row("data blocks per lookup", cells("data_blocks_per_lookup",
                                            lambda v: fmt_num(v, "{:.4f}")))
        if preset == "memlimit":
            row("filter bytes loaded per op", cells(
                "filter_bytes_per_op", lambda v: fmt_num(v, "{:,.0f}")))
            row("data bytes loaded per op", cells(
                "data_bytes_per_op", lambda v: fmt_num(v, "{:,.0f}")))
            row("filters' share of the cache", cells(
                "filter_cache_share", lambda v: fmt_num(v and 100 * v,
                                                         "{:.1f}%")))
        if preset in ("tdstore", "memlimit"):
            row("filters+indexes MiB", cells(
                "filter_and_index_bytes",
                lambda v: fmt_num(v and v / 2**20, "{:.3f}")))
            row("filter cache MiB", cells(
                "filter_cache_bytes",
                lambda v: fmt_num(v and v / 2**20, "{:.3f}")))
            row("filter block cache misses", cells("filter_cache_misses",
                                                   fmt_num))
            row("filter MiB read", cells(
                "filter_bytes_read",
                lambda v: fmt_num(v and v / 2**20, "{:.1f}")))
        for bench in benches:
            row(f"{bench} ops/s, median", cells(f"{bench}_ops_per_sec",
                                                fmt_num))
            row(f"{bench} ops/s, min-max", [
                fmt_spread_cell(ops_rounds(by_label[c], bench))
                if c in by_label else "" for c in configs])
            row(f"{bench} P95 us", cells(f"{bench}_p95_micros",
                                         lambda v: fmt_num(v, "{:.2f}")))
        row("instrument agrees w/ model",
            cells("model_agrees",
                  lambda v: "-" if v is None else ("yes" if v else "NO")))
    return "\n".join(lines)
