# The figures of one result (one size and configuration) that the table, the
# checks, the CSV files and the plots share, and how they are printed.

import statistics

from comparison.spread import ops_rounds, spread

# The report a result is judged by: the absent-key lookups of the default
# workload, or tdstore's unique-key inserts.
MAIN_BENCHMARKS = ("readmissing", "insertunique")


def fmt_pct(x, digits=3):
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def fmt_num(x, fmt="{:,.0f}"):
    return "-" if x is None else fmt.format(x)


def main_report(result):
    """The filter report of the first of MAIN_BENCHMARKS the result has, or
    None."""
    reports = result["reports"]
    for name in MAIN_BENCHMARKS:
        if reports.get(name):
            return reports[name]
    return None


def filtered_levels(report):
    """(level, runs) for each level of a report that counts as filtered
    runs: every L0 file one run, every other level one. A level counts where
    most of its keys have filters: a file built elsewhere and moved keeps
    its filter (a one-key file with a 69-byte filter sat in the deep
    preset's unfiltered L6)."""
    for l in report.get("levels", []):
        if l.get("filter_bytes") and l.get("files") and \
                2 * l.get("filter_entries", 0) >= l.get("entries", 0):
            yield l, (l["files"] if l["level"] == 0 else 1)


def run_figures(report):
    """Sigma FPR counted by runs, as Monkey plans and TDStore reports it
    (the runs of filtered_levels). Returns filtered_runs (how many runs have
    filters), runs_probed (filter probes per lookup: the runs an absent key
    reaches), sum_fpr_runs (each run's measured FPR once: a level's FPR
    times its runs) and its model."""
    runs = probed = measured = model = 0.0
    lookups = report.get("lookups") or 0
    for l, n in filtered_levels(report):
        runs += n
        if lookups:
            probed += l["probes"] / lookups
        if l.get("fpr") is not None and l.get("model_fpr") is not None:
            measured += n * l["fpr"]
            model += n * l["model_fpr"]
    return {"filtered_runs": runs if report else None,
            "runs_probed": probed if lookups else None,
            "sum_fpr_runs": measured if report else None,
            "model_sum_fpr_runs": model if report else None}


def sorted_runs(tree):
    """The sorted runs of a tree (parse_levelstats rows: its non-empty
    levels): every L0 file one, every other level one."""
    return sum(t["files"] if t["level"] == 0 else 1 for t in tree)


def model_fp_per_lookup(report):
    """The FPR model's false positives per lookup for the filters as built:
    each level's model FPR (its files' mean, weighted as its probes fall)
    times the level's probes per lookup; None without lookups or where a
    probed level has no model."""
    lookups = report.get("lookups")
    if not lookups:
        return None
    total = 0.0
    for l in report.get("levels", []):
        if not l.get("probes"):
            continue
        if l.get("model_fpr") is None:
            return None
        total += l["model_fpr"] * l["probes"] / lookups
    return total


# What the universal verdicts and the table say where the advisor's JSON
# lacks its universal figures (it reads leveled trees only).
NO_UNIVERSAL_ADVICE = "advisor has no universal support"


def universal_advice(advice):
    """(sorted runs, model FP per lookup now, the optimum at the same bytes)
    from the advisor's JSON on a universal DB, or (None, why) where it has
    none: no advice, an error, or no "compaction_style" universal with
    "sorted_runs" and "same_bytes"."""
    if not advice:
        return None, "advisor not run (no --monkey_plan)"
    if advice.get("error"):
        return None, f"advisor failed: {advice['error']}"
    style = advice.get("compaction_style")
    same = advice.get("same_bytes") or {}
    if style is None or advice.get("sorted_runs") is None or \
            same.get("sum_fpr") is None or advice.get("sum_fpr_now") is None:
        return None, (f"{NO_UNIVERSAL_ADVICE} (monkey_plan --db --json "
                      "without compaction_style, sorted_runs and "
                      "same_bytes.sum_fpr)")
    if str(style).lower() not in ("universal", "1",
                                  "kcompactionstyleuniversal"):
        return None, f"advisor reads the DB as compaction_style={style}"
    runs = advice["sorted_runs"]
    runs = len(runs) if isinstance(runs, list) else runs
    return (runs, advice["sum_fpr_now"], same["sum_fpr"]), None


def advisor_figures(result):
    """The advisor's model on a result's DB at rest: advisor_sorted_runs,
    advisor_fp_now (FP per lookup of its filters as built) and
    advisor_optimum (at the same bytes), None without its universal
    figures, and advisor_missing, why not (None where it has them)."""
    advice, missing = universal_advice(result.get("advice"))
    runs, now, optimum = advice or (None, None, None)
    return {"advisor_sorted_runs": runs, "advisor_fp_now": now,
            "advisor_optimum": optimum, "advisor_missing": missing}


def summarize(result):
    """Scalar figures of one (size, config) result."""
    main = main_report(result) or {}
    s = {
        "filter_bytes": main.get("filter_bytes_total"),
        "bits_per_key": main.get("bits_per_key"),
        "sum_fpr": main.get("sum_fpr"),
        "model_sum_fpr": main.get("model_sum_fpr"),
        "fp_per_absent_lookup": main.get("fp_per_absent_lookup"),
        "filter_cache_bytes": main.get("filter_cache_bytes"),
        "filter_and_index_bytes": (main["filter_bytes_total"]
                                   + main.get("index_bytes_total", 0)
                                   if main else None),
        "filter_cache_misses": main.get("block_cache_filter_miss"),
        "filter_bytes_read": main.get("block_cache_filter_bytes_insert"),
        # None when no level was judged (all changed during the run).
        "model_agrees": (main.get("model_agrees") if any(
            l.get("model_agrees") is not None
            for l in main.get("levels", [])) else None),
    }
    s.update(run_figures(main))
    s["model_fp_per_absent_lookup"] = (model_fp_per_lookup(main)
                                       if main else None)
    # The same false positives from the --statistics tickers (the median
    # of the rounds), and the sorted runs the measurement's levelstats
    # printed.
    tickers = [v for v in result.get("ticker_fp_per_lookup", [])
               if v is not None]
    s["ticker_fp_per_lookup"] = (statistics.median(tickers) if tickers
                                 else None)
    tree = result.get("trees", {}).get("measure")
    s["sorted_runs"] = sorted_runs(tree) if tree else None
    # The advisor's model on the DB at rest (universal preset), None
    # without its universal figures.
    if "advice" in result:  # the universal preset's
        s.update(advisor_figures(result))
    # Block-cache loads per operation, the median of the rounds (each round
    # on a tree its inserts have grown).
    for key in ("filter_bytes_per_op", "data_bytes_per_op",
                "filter_cache_share"):
        values = [b[key] for b in result.get("block_loads", [])
                  if b.get(key) is not None]
        s[key] = statistics.median(values) if values else None
    lookups = main.get("lookups") or 0
    hit, miss = main.get("block_cache_data_hit"), main.get("block_cache_data_miss")
    s["data_blocks_per_lookup"] = ((hit + miss) / lookups
                                   if lookups and hit is not None else None)
    for b in result["benchmarks"]:
        s[f"{b['benchmark']}_ops_per_sec"] = b["ops_per_sec"]
        # The spread of the rounds (a load phase's one run: min = max).
        rounds = spread(ops_rounds(result, b["benchmark"]))
        s[f"{b['benchmark']}_ops_per_sec_min"] = rounds and rounds[1]
        s[f"{b['benchmark']}_ops_per_sec_max"] = rounds and rounds[2]
        s[f"{b['benchmark']}_p95_micros"] = b["p95_micros"]
    return s


def level_rows(result):
    """The main report's levels, each with the plan's bits/key and FPR for
    it (None without a plan)."""
    main = main_report(result) or {}
    rows = []
    for level in main.get("levels", []):
        plan = result["plan"].get(level["level"], {})
        rows.append(dict(level, plan_bits_per_key=plan.get("bits_per_key"),
                         plan_fpr=plan.get("fpr")))
    return rows


def labels_in_order(results):
    """The configuration labels, each once, in the order they ran."""
    labels = []
    for r in results:
        if r["config"]["label"] not in labels:
            labels.append(r["config"]["label"])
    return labels
