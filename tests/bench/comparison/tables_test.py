#!/usr/bin/python3
# Tests of bench/comparison/tables.py: the side-by-side table, throughput
# with its spread over the rounds (and bench/comparison/spread.py behind it)
# and the comparison of --also_db_bench builds.

import unittest

from testing import level, result
from comparison.specs import parse_config, with_builds
from comparison.spread import (fmt_ratio, fmt_spread_cell, no_difference,
                               ratio_rounds)
from comparison.tables import (builds_table, print_table, throughput_table,
                               trees_table)


def with_rounds(r, bench, rounds):
    """Sets the measured rounds of `bench` in result r: ops/s, their median
    as the runner keeps it."""
    r["benchmarks"] = [b for b in r["benchmarks"] if b["benchmark"] != bench]
    r["benchmarks"].append({"benchmark": bench, "phase": "measure",
                            "ops_per_sec": sorted(rounds)[len(rounds) // 2],
                            "ops_per_sec_rounds": rounds,
                            "p95_micros": 1.0})
    return r


class TablesTest(unittest.TestCase):
    def test_table_has_every_config_and_level(self):
        results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                   result("monkey:7", 1000, 0.05, 0.05, 70,
                          levels=[level(5, fpr=0.002), level(6)])]
        lines = print_table(results, "default").splitlines()
        self.assertEqual(lines[0], " " * 30 + "  bloomfilter:10"
                         + "        monkey:7")
        self.assertIn("L5 FPR" + " " * 24 + "               -"
                      + "          0.200%", lines)
        self.assertIn("sum FPR" + " " * 23 + "          2.000%"
                      + "          5.000%", lines)
        self.assertIn("readmissing P95 us", "\n".join(lines))
        self.assertNotIn("filter cache MiB", "\n".join(lines))
        self.assertIn("filter cache MiB",
                      print_table(results, "tdstore"))

    def test_deep_shows_runs_and_trees(self):
        r = result("monkey:7", 1000, 0.05, 0.05, 70,
                   levels=[level(0, fpr=0.001), level(6, fpr=0.01)])
        self.assertNotIn("filtered runs", print_table([r], "default"))
        lines = print_table([r], "deep").splitlines()
        self.assertIn(f"{'filtered runs':<30}{'4':>14}", lines)
        self.assertIn(f"{'sum FPR over runs':<30}{'1.300%':>14}", lines)
        self.assertEqual(trees_table([r]), "")
        r["trees"] = {"runs": [{"level": 0, "files": 3, "mb": 0},
                               {"level": 6, "files": 40, "mb": 9}],
                      "measure": [{"level": 6, "files": 41, "mb": 9}]}
        self.assertEqual(trees_table([r]).splitlines(), [
            "tree (files per level):",
            "  1,000 keys monkey:7, load end: L0 3, L6 40",
            "  1,000 keys monkey:7, measurement: L6 41"])

    def test_universal_shows_runs_and_fp_per_lookup_not_sum_fpr(self):
        r = result("monkey:10", 1000, 0.05, 0.05, 70,
                   levels=[level(0, fpr=0.001), level(6, fpr=0.01)])
        r["trees"] = {"measure": [{"level": 0, "files": 9, "mb": 9},
                                  {"level": 6, "files": 1, "mb": 60}]}
        r["ticker_fp_per_lookup"] = [0.0123]
        r["advice"] = {"compaction_style": "universal", "sorted_runs": 10,
                       "sum_fpr_now": 0.05, "same_bytes": {"sum_fpr": 0.04}}
        leveled = print_table([r], "default")
        self.assertNotIn("sorted runs at rest", leveled)
        self.assertIn("sum FPR", leveled)
        lines = print_table([r], "universal").splitlines()
        self.assertIn(f"{'sorted runs at rest':<30}{'10':>14}", lines)
        self.assertIn(f"{'FP per absent lookup, tickers':<30}{'0.0123':>14}",
                      lines)
        self.assertIn(f"{'advisor: optimum, same bytes':<30}{'0.0400':>14}",
                      lines)
        self.assertFalse(any(l.startswith("sum FPR") for l in lines), lines)
        # Without the advisor's universal figures: dashes, not zeros.
        del r["advice"]["sorted_runs"]
        lines = print_table([r], "universal").splitlines()
        self.assertIn(f"{'advisor: optimum, same bytes':<30}{'-':>14}", lines)

    def test_sizes_get_their_own_blocks(self):
        results = [result("monkey:7", n, 0.05, 0.05, 70)
                   for n in (4000, 1000)]
        table = print_table(results, "default")
        self.assertLess(table.index("--- 1,000 keys"),
                        table.index("--- 4,000 keys"))

    def test_throughput_rows_carry_the_spread(self):
        bloom = with_rounds(result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                            "readmissing", [666000, 995000, 656000])
        bloom["benchmarks"].append({"benchmark": "fillrandom",
                                    "phase": "load", "ops_per_sec": 60000,
                                    "p95_micros": 9.0})
        lines = print_table([bloom], "default").splitlines()
        width = len("666,000-995,000") + 2
        self.assertIn(f"{'readmissing ops/s, median':<30}{'666,000':>{width}}",
                      lines)
        self.assertIn(f"{'readmissing ops/s, min-max':<30}"
                      f"{'656,000-995,000':>{width}}", lines)
        # A load runs once: no spread to give.
        self.assertIn(f"{'fillrandom ops/s, min-max':<30}{'1 run':>{width}}",
                      lines)

    def test_a_ratio_whose_range_contains_one_is_no_difference(self):
        bloom = with_rounds(result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                            "readmissing", [666000, 995000, 656000])
        same = with_rounds(result("monkey:7", 1000, 0.05, 0.05, 70),
                           "readmissing", [700000, 900000, 700000])
        faster = with_rounds(result("monkey:10", 1000, 0.014, 0.014, 100),
                             "readmissing", [999000, 1492500, 984000])
        table = throughput_table([bloom, same, faster])
        self.assertEqual(table.splitlines(), [
            "ops/s over bloomfilter:10's, round by round (median ratio, "
            "min-max over the rounds):",
            "  1,000 keys monkey:7: readmissing no difference measured "
            "(1.05x, 0.90-1.07x over 3 rounds)",
            "  1,000 keys monkey:10: readmissing 1.50x (1.50-1.50x over 3 "
            "rounds)"])
        # fixed10 is the base where there is no bloomfilter:10.
        fixed = dict(bloom, config=parse_config("fixed10=bloomfilter:10"))
        self.assertTrue(throughput_table([fixed, same]).startswith(
            "ops/s over fixed10's"))
        self.assertEqual(throughput_table([same, faster]), "")

    def test_spread_of_ratios(self):
        # Rounds run every configuration back to back: ratios pair them.
        self.assertEqual(ratio_rounds([2, 3], [1, 2]), [2, 1.5])
        # Rounds that do not pair: every value over every other.
        self.assertEqual(sorted(ratio_rounds([2, 4], [1])), [2, 4])
        self.assertEqual(sorted(ratio_rounds([2], [1, 4])), [0.5, 2])
        self.assertEqual(ratio_rounds([2], []), [])
        self.assertEqual(ratio_rounds([2], [0]), [])
        self.assertTrue(no_difference([0.9, 1.2]))
        self.assertTrue(no_difference([1.0, 1.2]))
        self.assertFalse(no_difference([1.01, 1.2]))
        self.assertFalse(no_difference([0.7, 0.99]))
        self.assertFalse(no_difference([1.0]))  # one round: no spread
        self.assertEqual(fmt_ratio([0.9, 1.0, 1.3]),
                         "no difference measured (1.00x, 0.90-1.30x over 3 "
                         "rounds)")
        self.assertEqual(fmt_ratio([1.2, 1.4]),
                         "1.30x (1.20-1.40x over 2 rounds)")
        self.assertEqual(fmt_ratio([1.35]), "1.35x (1 round, no spread)")
        self.assertEqual(fmt_ratio([]), "-")
        self.assertEqual(fmt_spread_cell([3000, 1000, 2000]), "1,000-3,000")
        self.assertEqual(fmt_spread_cell([]), "-")

    def test_builds_are_compared(self):
        configs = with_builds([parse_config("monkey:7")],
                              ["release=/fork/db_bench"])
        quick = result("monkey:7", 1000, 0.05, 0.05, 100)
        release = result("monkey:7", 1000, 0.051, 0.05, 100)
        release["config"] = configs[1]
        for r, ops in ((quick, 100), (release, 135)):
            r["benchmarks"][0].update(ops_per_sec=ops)
        table = builds_table([quick, release])
        self.assertIn("monkey:7@release: readmissing 1.35x", table)
        self.assertIn("sum FPR 5.000% -> 5.100%", table)
        self.assertEqual(builds_table([quick]), "")
        # Rounds whose ratios straddle 1.0: no difference measured.
        with_rounds(quick, "readmissing", [100, 120, 100])
        with_rounds(release, "readmissing", [135, 108, 130])
        self.assertIn("monkey:7@release: readmissing no difference measured "
                      "(1.30x, 0.90-1.35x over 3 rounds)",
                      builds_table([quick, release]))


if __name__ == "__main__":
    unittest.main()
