# Reads db_bench's output: the benchmark lines with their latency histograms
# (ops/s, P95), our filter reports (the "filter_report_json: " lines of
# include/monkey/filter_report.h) and Monkey's plan table (PlanToString,
# util/plan_format.cc's FormatPlanTable).

import json
import re

BENCH_RE = re.compile(r"^(\w+)\s*:\s*([\d.]+) micros/op (\d+) ops/sec "
                      r"([\d.]+) seconds (\d+) operations;")
BUCKET_RE = re.compile(r"^[\[(]\s*([\d.]+),\s*([\d.]+)\s*[\])]\s+(\d+)\s")
MIN_MAX_RE = re.compile(r"^Min: ([\d.]+)\s+Median: [\d.]+\s+Max: ([\d.]+)")
# monkey::kFilterReportJsonPrefix.
JSON_PREFIX = "filter_report_json: "
# FormatPlanTable's column heads, cell by cell ("|" between cells); a third
# cell, the uniform plan, may follow.
PLAN_HEAD = [["level", "keys", "runs"], ["bits/key", "FPR"]]
PLAN_LEVEL_RE = re.compile(r"^L(\d+)$")


def lines_of(text):
    """The lines as a terminal shows them: db_bench rewrites its progress
    line with carriage returns, and the last write is what remains."""
    return [line.split("\r")[-1] for line in text.splitlines()]


def percentile(buckets, p, low=None, high=None):
    """RocksDB's HistogramStat::Percentile over printed buckets: linear
    within the bucket that reaches p%, then kept within the histogram's
    printed Min and Max (low, high) when given."""
    total = sum(count for _, _, count in buckets)
    if total == 0:
        return None
    threshold = total * (p / 100.0)  # as RocksDB rounds it
    cumulative = 0
    for left, right, count in buckets:
        cumulative += count
        if cumulative >= threshold:
            pos = (threshold - (cumulative - count)) / count if count else 0
            value = left + (right - left) * pos
            if low is not None:
                value = max(value, low)
            if high is not None:
                value = min(value, high)
            return value
    return buckets[-1][1] if high is None else high


def read_histograms(lines):
    """One entry per benchmark line: its ops/s, micros/op, seconds and
    operations, and the first latency histogram printed after it: its
    buckets (left, right, count) and its Min and Max (None if not
    printed)."""
    benchmarks = []
    current = None
    in_hist = False
    for line in lines:
        m = BENCH_RE.match(line)
        if m:
            current = {"benchmark": m.group(1),
                       "micros_per_op": float(m.group(2)),
                       "ops_per_sec": int(m.group(3)),
                       "seconds": float(m.group(4)),
                       "operations": int(m.group(5)), "buckets": [],
                       "min": None, "max": None}
            benchmarks.append(current)
            in_hist = False
            continue
        if line.startswith("Microseconds per") and current is not None:
            in_hist = not current["buckets"]
            continue
        if in_hist:
            b = BUCKET_RE.match(line)
            limits = MIN_MAX_RE.match(line)
            if b:
                current["buckets"].append(
                    (float(b.group(1)), float(b.group(2)), int(b.group(3))))
            elif limits:
                current["min"] = float(limits.group(1))
                current["max"] = float(limits.group(2))
            elif line.strip() == "" and current["buckets"]:
                in_hist = False
    return benchmarks


def parse_benchmarks(lines):
    """One entry per benchmark line: its ops/s, micros/op, seconds,
    operations and the P95 of its histogram (None without one)."""
    benchmarks = read_histograms(lines)
    for b in benchmarks:
        b["p95_micros"] = percentile(b.pop("buckets"), 95, b.pop("min"),
                                     b.pop("max"))
    return benchmarks


def parse_reports(lines):
    """The filter reports by benchmark name; a later report of the same
    benchmark replaces an earlier one."""
    reports = {}
    for line in lines:
        if line.startswith(JSON_PREFIX):
            report = json.loads(line[len(JSON_PREFIX):])
            reports[report["benchmark"]] = report
    return reports


def _cells(line):
    return [cell.split() for cell in line.split("|")]


def _plan_row(cells):
    """(level, {"bits_per_key", "fpr"}) of one table row, (level, None) for
    a row without a filter ("none  100%": the plan gave the level none, or
    it had no keys), or None when the line is not a row."""
    if len(cells) < len(PLAN_HEAD) or len(cells[0]) != len(PLAN_HEAD[0]):
        return None
    level = PLAN_LEVEL_RE.match(cells[0][0])
    plan = cells[1]
    if level is None or len(plan) != 2 or not plan[1].endswith("%"):
        return None
    if plan[0] == "none":
        return int(level.group(1)), None
    try:
        return int(level.group(1)), {"bits_per_key": float(plan[0]),
                                     "fpr": float(plan[1][:-1]) / 100}
    except ValueError:
        return None


def parse_plan(lines):
    """Monkey's plan by level, from the last plan table in the output: the
    rows after FormatPlanTable's column heads, up to the first line that is
    not a level row (its "avg bits/key, sum FPR" line). Levels without a
    filter are left out; empty without a table."""
    plan = None
    rows = None
    for line in lines:
        cells = _cells(line)
        if cells[:len(PLAN_HEAD)] == PLAN_HEAD:
            rows = {}
            continue
        if rows is None:
            continue
        row = _plan_row(cells)
        if row is None:
            plan, rows = rows, None
        elif row[1] is not None:
            rows[row[0]] = row[1]
    if rows is not None:  # the output ended inside a table
        plan = rows
    return plan or {}


# db_bench's levelstats: "Level Files Size(MB)", a rule, then one row per
# level.
LEVELSTATS_HEAD = "Level Files Size(MB)"
LEVELSTATS_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s*$")


def parse_levelstats(text):
    """The files and MB of each non-empty level in the last levelstats table
    of the output, as [{"level", "files", "mb"}]; empty without one."""
    tree = None
    rows = None
    for line in lines_of(text):
        if line.strip() == LEVELSTATS_HEAD:
            rows = []
            continue
        if rows is None or set(line.strip()) == {"-"}:
            continue
        m = LEVELSTATS_ROW_RE.match(line)
        if m is None:
            tree, rows = rows, None
        elif int(m.group(2)) > 0:
            rows.append({"level": int(m.group(1)), "files": int(m.group(2)),
                         "mb": int(m.group(3))})
    return rows if rows is not None else (tree or [])


# A ticker of db_bench's --statistics dump: "rocksdb.NAME COUNT : N".
TICKER_RE = re.compile(r"^(rocksdb\.[\w.]+) COUNT : (\d+)$")


def parse_tickers(text):
    """The tickers of the last --statistics dump, by name; a process's dump
    counts everything since it opened the DB."""
    tickers = {}
    for line in lines_of(text):
        m = TICKER_RE.match(line)
        if m:
            tickers[m.group(1)] = int(m.group(2))
    return tickers


# A histogram of db_bench's --statistics dump: "rocksdb.NAME P50 : ... P100 :
# ... COUNT : N SUM : S".
HISTOGRAM_RE = re.compile(r"^(rocksdb\.[\w.]+) P50 : .* COUNT : (\d+) "
                          r"SUM : (\d+)$")


def parse_histogram_sums(text):
    """(count, sum) of each histogram of the last --statistics dump, by
    name: rocksdb.sst.read.micros's is the device reads and their
    microseconds."""
    sums = {}
    for line in lines_of(text):
        m = HISTOGRAM_RE.match(line)
        if m:
            sums[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return sums


# FormatPlanTable's last line: Monkey's and then uniform's bits/key and sum
# FPR ("avg bits/key, sum FPR |    10.000   1.40114% |    10.000   5.79885%").
PLAN_SUMS_RE = re.compile(r"^avg bits/key, sum FPR \|\s*([\d.]+)\s+([\d.]+)% "
                          r"\|\s*([\d.]+)\s+([\d.]+)%")


def plan_sums(text):
    """(Monkey's bits/key, its sum FPR, uniform's bits/key, its sum FPR)
    from monkey_plan's table, FPRs as fractions; None without the line."""
    for line in lines_of(text):
        m = PLAN_SUMS_RE.match(line)
        if m:
            return (float(m.group(1)), float(m.group(2)) / 100,
                    float(m.group(3)), float(m.group(4)) / 100)
    return None


def parse_output(text):
    """Benchmarks (ops/s, P95), filter reports and the Monkey plan."""
    lines = lines_of(text)
    return parse_benchmarks(lines), parse_reports(lines), parse_plan(lines)
