#!/usr/bin/python3
# Tests of bench/comparison/parse.py on real output of the build: Monkey's
# PlanToString (print_plan, static and live), FormatPlanTable with its
# uniform column (monkey_plan), a filter report (fpr_check's ToTable and
# ToJsonLine) and, when Debian's db_bench is installed, its benchmark lines
# and histograms. ctest passes the programs in PRINT_PLAN, MONKEY_PLAN,
# FPR_CHECK and STOCK_DB_BENCH.

import os
import re
import subprocess
import tempfile
import unittest

from testing import program, result
from comparison import parse
from comparison.checks import instrument_checks
from comparison.figures import level_rows, summarize
from comparison.tables import print_table


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def live_plan(uri):
    """print_plan's live plan of its small tree (L0 and the last level)."""
    with tempfile.TemporaryDirectory() as tmp:
        return run(program("PRINT_PLAN"), uri, os.path.join(tmp, "db"))


def printed_sum_fpr(text):
    """The sum FPR of FormatPlanTable's last line."""
    line = next(l for l in text.splitlines()
                if l.startswith("avg bits/key, sum FPR"))
    return float(line.split("|")[1].split()[1].rstrip("%")) / 100


class PlanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.static = run(program("PRINT_PLAN"), "monkey:10")
        cls.tool = run(program("MONKEY_PLAN"), "--bits_per_key=10",
                       "--size_ratio=10", "--num_levels=7", "--model=bloom")
        cls.live = live_plan("monkey:10")
        cls.live_no_last = live_plan(
            "id=monkey;bits_per_key=7;last_level_filter=false")

    def plan(self, text):
        return parse.parse_plan(parse.lines_of(text))

    def test_static_plan_has_every_level(self):
        plan = self.plan(self.static)
        self.assertEqual(sorted(plan), list(range(7)), self.static)
        # Monkey: fewer bits than the budget on the last level, more above.
        self.assertLess(plan[6]["bits_per_key"], 10)
        self.assertGreater(plan[5]["bits_per_key"], 10)
        # One run per level: the rows' FPRs add up to the printed sum.
        self.assertAlmostEqual(sum(p["fpr"] for p in plan.values()),
                               printed_sum_fpr(self.static), delta=1e-6)

    def test_policy_and_monkey_plan_agree_and_uniform_is_ignored(self):
        # The same static plan, printed by PlanToString and by monkey_plan,
        # whose third cell (uniform bits) must not be read as the plan.
        self.assertIn("uniform", self.tool)
        self.assertEqual(self.plan(self.tool), self.plan(self.static))

    def test_plan_sums_of_monkey_plans_table(self):
        monkey_bits, monkey_fpr, uniform_bits, uniform_fpr = parse.plan_sums(
            self.tool)
        self.assertAlmostEqual(monkey_bits, 10, delta=0.001)
        self.assertEqual(uniform_bits, 10)
        self.assertAlmostEqual(monkey_fpr, printed_sum_fpr(self.tool))
        self.assertLess(monkey_fpr, uniform_fpr)
        self.assertIsNone(parse.plan_sums("no table here"))

    def test_live_plan_rows_with_fractional_runs(self):
        # L0's runs, weighted by its share, print as "9.999e-05".
        self.assertIn("live shape", self.live)
        self.assertRegex(self.live, r"\nL0 .*e-0\d \|")
        plan = self.plan(self.live)
        self.assertEqual(sorted(plan), [0, 6], self.live)
        self.assertGreater(plan[0]["bits_per_key"], 0)
        self.assertTrue(0 < plan[6]["fpr"] < 1)

    def test_levels_without_a_filter_are_left_out(self):
        self.assertRegex(self.live_no_last, r"\nL6 .*\|\s+none\s+100%")
        self.assertEqual(sorted(self.plan(self.live_no_last)), [0],
                         self.live_no_last)

    def test_last_table_in_a_log_wins(self):
        text = ("header\n" + self.static + "fillrandom   :  ignored\n"
                + self.live + "Filter report: readmissing (1 thread)\n")
        self.assertEqual(self.plan(text), self.plan(self.live))
        self.assertEqual(self.plan("no plan here\n"), {})

    def test_carriage_returns_keep_the_last_write(self):
        text = self.static.replace("level ", "... finished 100 ops\rlevel ")
        self.assertEqual(self.plan(text), self.plan(self.static))


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as tmp:
            cls.text = run(program("FPR_CHECK"), "--filter_uri=monkey:7",
                           "--num=20000", "--probes=20000",
                           "--write_baseline=" + os.path.join(tmp, "b.json"))
        cls.report = parse.parse_reports(parse.lines_of(cls.text))["fpr_check"]

    def table_rows(self):
        """ToTable's level rows: {level: agrees column}."""
        rows = {}
        for line in self.text.splitlines():
            m = re.match(r"^L(\d+)\s+\d+\s+\d+\s.*\s(\S+)$", line)
            if m:
                rows[int(m.group(1))] = m.group(2)
        return rows

    def test_json_line_matches_the_table(self):
        rows = self.table_rows()
        self.assertEqual([l["level"] for l in self.report["levels"]],
                         sorted(rows))
        for l in self.report["levels"]:
            self.assertEqual({True: "yes", False: "NO"}[l["model_agrees"]],
                             rows[l["level"]])
        self.assertAlmostEqual(
            sum(l["fpr"] for l in self.report["levels"]),
            self.report["sum_fpr"])

    def test_figures_table_and_checks_read_a_real_report(self):
        report = dict(self.report, benchmark="readmissing")
        r = result("monkey:7", 20000, 0, 0, 0)
        r["reports"] = {"readmissing": report}
        s = summarize(r)
        self.assertEqual(s["sum_fpr"], report["sum_fpr"])
        self.assertEqual(s["model_sum_fpr"], report["model_sum_fpr"])
        self.assertEqual(s["filter_bytes"], report["filter_bytes_total"])
        self.assertEqual(s["filter_and_index_bytes"],
                         report["filter_bytes_total"]
                         + report["index_bytes_total"])
        self.assertEqual(s["data_blocks_per_lookup"],
                         (report["block_cache_data_hit"]
                          + report["block_cache_data_miss"])
                         / report["lookups"])
        self.assertEqual(len(level_rows(r)), len(report["levels"]))
        table = print_table([r], "default")
        for l in report["levels"]:
            self.assertIn(f"L{l['level']} FPR", table)
        rows = self.table_rows()
        verdicts = instrument_checks([r])
        if all(v == "yes" for v in rows.values()):
            self.assertEqual(verdicts, [
                f"PASS instrument: all {len(rows)} measured levels agree "
                "with the model (3 sigma or 5%)"])
        else:
            self.assertEqual(len(verdicts),
                             sum(v == "NO" for v in rows.values()))


class PercentileTest(unittest.TestCase):
    def test_interpolates_like_rocksdb(self):
        buckets = [(0, 1, 90), (1, 2, 5), (4, 6, 5)]
        self.assertAlmostEqual(parse.percentile(buckets, 50), 50 / 90)
        self.assertAlmostEqual(parse.percentile(buckets, 95), 2.0)
        self.assertAlmostEqual(parse.percentile(buckets, 99), 5.6)
        self.assertIsNone(parse.percentile([], 95))

    def test_keeps_within_min_and_max(self):
        buckets = [(0, 1, 90), (1, 2, 5), (4, 6, 5)]
        self.assertEqual(parse.percentile(buckets, 99, 0, 5), 5)
        self.assertEqual(parse.percentile(buckets, 10, 1, 5), 1)

    @unittest.skipUnless(os.environ.get("STOCK_DB_BENCH"),
                         "no db_bench (Debian package rocksdb-tools)")
    def test_matches_db_bench_percentiles(self):
        """Each benchmark's buckets give the Median and percentiles that
        db_bench itself printed."""
        with tempfile.TemporaryDirectory() as tmp:
            text = run(program("STOCK_DB_BENCH"),
                       "--benchmarks=fillrandom,readmissing,readrandom",
                       "--num=3000", "--reads=3000", "--histogram=1",
                       "--seed=1", "--db=" + os.path.join(tmp, "db"))
        lines = parse.lines_of(text)
        benchmarks = parse.read_histograms(lines)
        self.assertEqual([b["benchmark"] for b in benchmarks],
                         ["fillrandom", "readmissing", "readrandom"])
        self.assertEqual([b["operations"] for b in benchmarks], [3000] * 3)
        printed = []  # (Median, {p: value}) of each benchmark's histogram
        for line in lines:
            if parse.BENCH_RE.match(line):
                printed.append([None, None])
            m = re.match(r"^Min: \S+\s+Median: (\S+)", line)
            if m and printed and printed[-1][0] is None:
                printed[-1][0] = float(m.group(1))
            if line.startswith("Percentiles:") and printed[-1][1] is None:
                printed[-1][1] = {float(p): float(v) for p, v in
                                  re.findall(r"P([\d.]+): ([\d.]+)", line)}
        for b, (median, percentiles) in zip(benchmarks, printed):
            self.assertEqual(sum(c for _, _, c in b["buckets"]), 3000)
            self.assertAlmostEqual(
                parse.percentile(b["buckets"], 50, b["min"], b["max"]),
                median, delta=0.00005 + 1e-9, msg=b["benchmark"])
            for p, value in percentiles.items():
                self.assertAlmostEqual(
                    parse.percentile(b["buckets"], p, b["min"], b["max"]),
                    value, delta=0.005 + 1e-9, msg=f"{b['benchmark']} P{p}")
        p95 = parse.parse_benchmarks(lines)[1]["p95_micros"]
        self.assertEqual(p95, parse.percentile(
            benchmarks[1]["buckets"], 95, benchmarks[1]["min"],
            benchmarks[1]["max"]))


class LevelstatsTest(unittest.TestCase):
    # db_bench 7.8.3's levelstats, as printed after the deep preset's load.
    TEXT = ("Level Files Size(MB)\n--------------------\n"
            "  0        3        0\n  1        0        0\n"
            "  2        0        0\n  3        0        0\n"
            "  4       15        1\n  5      152        9\n"
            "  6     1451       86\n\nSTATISTICS:\n")

    def test_non_empty_levels_of_the_last_table(self):
        self.assertEqual(parse.parse_levelstats(self.TEXT), [
            {"level": 0, "files": 3, "mb": 0},
            {"level": 4, "files": 15, "mb": 1},
            {"level": 5, "files": 152, "mb": 9},
            {"level": 6, "files": 1451, "mb": 86}])
        later = self.TEXT.replace("1451", "1452")
        self.assertEqual(parse.parse_levelstats(self.TEXT + later)[-1]["files"],
                         1452)
        self.assertEqual(parse.parse_levelstats("fillrandom : 1 ops\n"), [])

    def test_tickers_of_the_statistics_dump(self):
        text = ("STATISTICS:\nrocksdb.block.cache.miss COUNT : 259459\n"
                "rocksdb.block.cache.data.bytes.insert COUNT : 12\n"
                "rocksdb.db.get.micros P50 : 1.0 P95 : 2.0 COUNT : 3\n")
        self.assertEqual(parse.parse_tickers(text), {
            "rocksdb.block.cache.miss": 259459,
            "rocksdb.block.cache.data.bytes.insert": 12})

    def test_count_and_sum_of_each_histogram_of_the_dump(self):
        # 9.11.2's db_bench line, from a cache-grid run.
        text = ("rocksdb.block.cache.miss COUNT : 259459\n"
                "rocksdb.sst.read.micros P50 : 38.441111 P95 : 50.734442 "
                "P99 : 70.819634 P100 : 13622.000000 COUNT : 233967 "
                "SUM : 8782527\n"
                "rocksdb.file.read.get.micros P50 : 0.000000 P95 : 0.000000 "
                "P99 : 0.000000 P100 : 0.000000 COUNT : 0 SUM : 0\n")
        self.assertEqual(parse.parse_histogram_sums(text), {
            "rocksdb.sst.read.micros": (233967, 8782527),
            "rocksdb.file.read.get.micros": (0, 0)})


if __name__ == "__main__":
    unittest.main()
