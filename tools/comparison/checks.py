# The PASS/FAIL verdicts of a comparison: the instrument (each measured
# level's FPR) against the FPR model, and Monkey against bloomfilter:10 at
# the same size.

from comparison.figures import fmt_pct, main_report, summarize


def instrument_checks(results):
    """A FAIL line for each level whose measured FPR disagrees with its
    model; else one PASS line, or a note that no level was judged."""
    out = []
    checked = 0
    for r in results:
        main = main_report(r)
        if not main:
            continue
        for l in main["levels"]:
            if l.get("model_agrees") is not None:
                checked += 1
            if l.get("model_agrees") is False:
                out.append(
                    f"FAIL instrument: {r['num']:,} keys {r['config']['label']}"
                    f" L{l['level']}: measured {fmt_pct(l['fpr'], 4)}, model "
                    f"{fmt_pct(l['model_fpr'], 4)} (sigma "
                    f"{fmt_pct(l['fpr_sigma'], 4)}, "
                    f"{l['useful'] + l['false_positives']:,} trials)")
    if not out and checked:
        out.append(f"PASS instrument: all {checked} measured levels agree "
                   "with the model (3 sigma or 5%)")
    elif not out:
        out.append("instrument: no level judged (every level's files "
                   "changed during the measurement)")
    return out


def summaries_by_size(results):
    """(size, {label: summarize(result)}) for every size, smallest first."""
    for num in sorted({r["num"] for r in results}):
        yield num, {r["config"]["label"]: summarize(r) for r in results
                    if r["num"] == num}


def monkey_checks(results):
    """monkey:10 (and variants labelled "monkey:10/...") must have a lower
    sum FPR than bloomfilter:10 in at most 1.05x its bytes; monkey:7 (and
    "monkey:7/...") at most its sum FPR in fewer bytes; objective=memory
    ("monkey10/memory") at most 1.05x its sum FPR (what the 200k absent
    lookups measure to) in fewer bytes."""
    out = []
    for num, by in summaries_by_size(results):
        base = by.get("bloomfilter:10")
        if not base or base["sum_fpr"] is None:
            continue
        for label, m in by.items():
            memory = label.endswith("/memory")
            if label.split("/")[0] not in ("monkey:10", "monkey:7") and \
                    not memory:
                continue
            if m["sum_fpr"] is None:
                continue
            fpr_ratio = m["sum_fpr"] / base["sum_fpr"]
            bytes_ratio = m["filter_bytes"] / base["filter_bytes"]
            if memory:
                ok = fpr_ratio <= 1.05 and bytes_ratio < 1
                want = "sum FPR <= 1.05x, fewer bytes"
            elif label.startswith("monkey:10"):
                ok = fpr_ratio < 1 and bytes_ratio <= 1.05
                want = "lower sum FPR, bytes <= 1.05x"
            else:
                ok = fpr_ratio <= 1 and bytes_ratio < 1
                want = "sum FPR <=, fewer bytes"
            out.append(
                f"{'PASS' if ok else 'FAIL'} {num:,} keys {label} vs "
                f"bloomfilter:10 ({want}): sum FPR {fmt_pct(m['sum_fpr'])} vs "
                f"{fmt_pct(base['sum_fpr'])} ({fpr_ratio:.3f}x), filter bytes "
                f"{bytes_ratio:.3f}x; measured/model sum FPR "
                f"{m['sum_fpr'] / m['model_sum_fpr']:.3f}")
    return out


# The deep preset's bars (TDStore's groups, at 6 or more filtered runs):
# monkey10 at most this share of fixed10's sum FPR over runs, in at most
# this share of its bytes; monkey7 in at most this share of the bytes, at
# most fixed10's sum FPR, and within this much of its own model.
DEEP_MIN_RUNS = 6
DEEP_MONKEY10_FPR = 0.35
DEEP_MONKEY10_BYTES = 1.05
DEEP_MONKEY7_BYTES = 0.75
DEEP_MONKEY7_MODEL = 0.10


def deep_checks(results):
    """The deep preset's verdicts against fixed10, per size: the tree's
    filtered runs, then monkey10 and monkey7 (sum FPR over runs: every L0
    file once, every other filtered level once)."""
    out = []
    for num, by in summaries_by_size(results):
        base = by.get("fixed10")
        if not base or base["sum_fpr_runs"] is None:
            continue
        runs = base["filtered_runs"]
        out.append(f"{'PASS' if runs >= DEEP_MIN_RUNS else 'FAIL'} {num:,} "
                   f"keys deep tree: fixed10 has {runs:.0f} filtered runs "
                   f"above the last level (want >= {DEEP_MIN_RUNS}); absent "
                   f"keys probe {base['runs_probed']:.2f} of them")
        for label in ("monkey10", "monkey7"):
            m = by.get(label)
            if not m or m["sum_fpr_runs"] is None:
                continue
            fpr = m["sum_fpr_runs"] / base["sum_fpr_runs"]
            size = m["filter_bytes"] / base["filter_bytes"]
            model = m["sum_fpr_runs"] / m["model_sum_fpr_runs"]
            if label == "monkey10":
                ok = fpr <= DEEP_MONKEY10_FPR and size <= DEEP_MONKEY10_BYTES
                want = (f"sum FPR <= {DEEP_MONKEY10_FPR}x, bytes <= "
                        f"{DEEP_MONKEY10_BYTES}x")
            else:
                ok = (size <= DEEP_MONKEY7_BYTES and fpr <= 1
                      and abs(model - 1) <= DEEP_MONKEY7_MODEL)
                want = (f"bytes <= {DEEP_MONKEY7_BYTES}x, sum FPR <=, within "
                        f"{DEEP_MONKEY7_MODEL:.0%} of its model")
            out.append(
                f"{'PASS' if ok else 'FAIL'} {num:,} keys {label} vs fixed10 "
                f"({want}): sum FPR over runs {fmt_pct(m['sum_fpr_runs'])} vs "
                f"{fmt_pct(base['sum_fpr_runs'])} ({fpr:.3f}x), filter bytes "
                f"{size:.3f}x; measured/model {model:.3f}")
    return out


# The memlimit preset's bars for monkey7 against fixed10: insert
# throughput (median of the rounds) and filter-block bytes read into the
# cache per insert.
MEMLIMIT_OPS = 1.05
MEMLIMIT_FILTER_LOADS = 0.80


def memlimit_checks(results):
    """monkey7 against fixed10 under the memlimit preset, per size."""
    out = []
    for num, by in summaries_by_size(results):
        base, m = by.get("fixed10"), by.get("monkey7")
        key = "insertunique_ops_per_sec"
        if not base or not m or not base.get(key) or not m.get(key) or \
                not base.get("filter_bytes_per_op"):
            continue
        ops = m[key] / base[key]
        loads = m["filter_bytes_per_op"] / base["filter_bytes_per_op"]
        ok = ops >= MEMLIMIT_OPS and loads <= MEMLIMIT_FILTER_LOADS
        out.append(
            f"{'PASS' if ok else 'FAIL'} {num:,} keys monkey7 vs fixed10 "
            f"(insert ops/s >= {MEMLIMIT_OPS}x, filter bytes loaded per "
            f"insert <= {MEMLIMIT_FILTER_LOADS}x): ops/s {ops:.3f}x, filter "
            f"bytes loaded {loads:.3f}x, filter bytes {m['filter_bytes'] / base['filter_bytes']:.3f}x")
    return out


def checks(results, preset=None):
    """The acceptance checks: instrument vs model, Monkey vs Bloom, and the
    deep preset's own."""
    out = instrument_checks(results) + monkey_checks(results)
    if preset == "deep":
        out += deep_checks(results)
    if preset == "memlimit":
        out += memlimit_checks(results)
    return out
