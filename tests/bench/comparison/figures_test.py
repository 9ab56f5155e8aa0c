#!/usr/bin/python3
# Tests of bench/comparison/figures.py: which report a result is judged by,
# its scalar figures, and the plan next to each level.

import unittest

from testing import level, result
from comparison.figures import (NO_UNIVERSAL_ADVICE, advisor_figures,
                                fmt_num, fmt_pct, labels_in_order,
                                level_rows, main_report, model_fp_per_lookup,
                                run_figures, sorted_runs, summarize,
                                universal_advice)


def advice(**changes):
    """The advisor's JSON on a universal DB of 11 runs, with `changes`."""
    a = {"name": "default", "compaction_style": "universal",
         "sorted_runs": 11, "sum_fpr_now": 0.1,
         "same_bytes": {"sum_fpr": 0.08, "options": "id=monkey"}}
    a.update(changes)
    return a


class FiguresTest(unittest.TestCase):
    def test_main_report(self):
        r = result("monkey:7", 1000, 0.05, 0.05, 70)
        insert = dict(r["reports"]["readmissing"], benchmark="insertunique")
        r["reports"]["insertunique"] = insert
        self.assertEqual(main_report(r)["benchmark"], "readmissing")
        del r["reports"]["readmissing"]
        self.assertIs(main_report(r), insert)
        r["reports"] = {"readrandom": insert}
        self.assertIsNone(main_report(r))
        self.assertIsNone(summarize(r)["sum_fpr"])
        self.assertIsNone(summarize(r)["filter_and_index_bytes"])

    def test_summarize(self):
        r = result("monkey:7", 1000, 0.05, 0.04, 70)
        r["reports"]["readmissing"]["index_bytes_total"] = 30
        s = summarize(r)
        self.assertEqual((s["sum_fpr"], s["model_sum_fpr"], s["filter_bytes"],
                          s["filter_and_index_bytes"]), (0.05, 0.04, 70, 100))
        self.assertEqual(s["data_blocks_per_lookup"], 2 / 100)
        self.assertEqual(s["readmissing_ops_per_sec"], 5)
        # One run: no spread, its value both ends.
        self.assertEqual((s["readmissing_ops_per_sec_min"],
                          s["readmissing_ops_per_sec_max"]), (5, 5))
        r["benchmarks"][0]["ops_per_sec_rounds"] = [4, 9, 5]
        s = summarize(r)
        self.assertEqual((s["readmissing_ops_per_sec_min"],
                          s["readmissing_ops_per_sec_max"]), (4, 9))
        self.assertIs(s["model_agrees"], True)
        # No level judged: no verdict, whatever the report's flag says.
        r = result("monkey:7", 1000, 0.05, 0.04, 70,
                   levels=[level(6, agrees=None)])
        self.assertIsNone(summarize(r)["model_agrees"])

    def test_runs_count_each_l0_file(self):
        l0 = dict(level(0, fpr=0.001, model_fpr=0.002), probes=300)
        l5 = dict(level(5, fpr=0.01, model_fpr=0.01), probes=50)
        last = dict(level(6, fpr=None, model_fpr=None), filter_bytes=0)
        # One moved file's filter in an unfiltered level is not a run.
        stray = dict(level(6, fpr=None, model_fpr=None), entries=1000,
                     filter_entries=1)
        report = {"lookups": 100, "levels": [l0, l5, last, stray]}
        figures = run_figures(report)
        self.assertEqual(figures["filtered_runs"], 4)  # 3 files in L0, L5
        self.assertAlmostEqual(figures["runs_probed"], 3.5)
        self.assertAlmostEqual(figures["sum_fpr_runs"], 3 * 0.001 + 0.01)
        self.assertAlmostEqual(figures["model_sum_fpr_runs"],
                               3 * 0.002 + 0.01)
        self.assertIsNone(run_figures({})["sum_fpr_runs"])

    def test_sorted_runs_count_each_l0_file_and_each_other_level(self):
        tree = [{"level": 0, "files": 4, "mb": 6},
                {"level": 3, "files": 1, "mb": 7},
                {"level": 6, "files": 2, "mb": 63}]
        self.assertEqual(sorted_runs(tree), 6)
        self.assertEqual(sorted_runs([]), 0)

    def test_model_fp_per_lookup_weighs_each_level_by_its_probes(self):
        l0 = dict(level(0, model_fpr=0.002), probes=300)
        l6 = dict(level(6, model_fpr=0.01), probes=100)
        unprobed = dict(level(5, model_fpr=None), probes=0)
        report = {"lookups": 100, "levels": [l0, l6, unprobed]}
        self.assertAlmostEqual(model_fp_per_lookup(report),
                               3 * 0.002 + 0.01)
        # A probed level without a model: no figure, not a smaller one.
        l6["model_fpr"] = None
        self.assertIsNone(model_fp_per_lookup(report))
        self.assertIsNone(model_fp_per_lookup({"levels": [l0]}))

    def test_universal_advice_or_why_not(self):
        self.assertEqual(universal_advice(advice()), ((11, 0.1, 0.08), None))
        # Runs as a list of runs, the style as RocksDB's number.
        runs = [{"keys": 1}] * 9
        self.assertEqual(universal_advice(advice(sorted_runs=runs,
                                                 compaction_style=1))[0],
                         (9, 0.1, 0.08))
        # Today's advisor: sum_fpr_now and same_bytes, no universal keys.
        leveled = advice()
        del leveled["compaction_style"], leveled["sorted_runs"]
        figures, why = universal_advice(leveled)
        self.assertIsNone(figures)
        self.assertTrue(why.startswith(NO_UNIVERSAL_ADVICE), why)
        self.assertIsNone(universal_advice(advice(same_bytes=None))[0])
        figures, why = universal_advice(advice(compaction_style="level"))
        self.assertIsNone(figures)
        self.assertIn("compaction_style=level", why)
        self.assertIn("exit 5", universal_advice({"error": "exit 5"})[1])
        self.assertIn("no --monkey_plan", universal_advice(None)[1])

    def test_summarize_universal_figures(self):
        r = result("monkey:10", 1000, 0.05, 0.05, 70)
        r["ticker_fp_per_lookup"] = [0.09, None, 0.07, 0.08]
        r["trees"] = {"measure": [{"level": 0, "files": 9, "mb": 9},
                                  {"level": 6, "files": 1, "mb": 60}]}
        s = summarize(r)
        self.assertEqual((s["ticker_fp_per_lookup"], s["sorted_runs"]),
                         (0.08, 10))
        # The advisor's figures only where it ran (the universal preset).
        self.assertNotIn("advisor_optimum", s)
        r["advice"] = advice()
        s = summarize(r)
        self.assertEqual((s["advisor_sorted_runs"], s["advisor_fp_now"],
                          s["advisor_optimum"], s["advisor_missing"]),
                         (11, 0.1, 0.08, None))
        self.assertEqual(advisor_figures({})["advisor_optimum"], None)
        r = result("monkey:10", 1000, 0.05, 0.05, 70)
        self.assertIsNone(summarize(r)["sorted_runs"])
        self.assertIsNone(summarize(r)["ticker_fp_per_lookup"])

    def test_level_rows_carry_the_plan(self):
        r = result("monkey:7", 1000, 0.05, 0.05, 70,
                   levels=[level(5), level(6)],
                   plan={5: {"bits_per_key": 11.5, "fpr": 0.005}})
        rows = level_rows(r)
        self.assertEqual([(l["level"], l["plan_bits_per_key"], l["plan_fpr"])
                          for l in rows], [(5, 11.5, 0.005), (6, None, None)])

    def test_formats_and_labels(self):
        self.assertEqual(fmt_pct(0.012345), "1.234%")
        self.assertEqual(fmt_pct(0.012345, 4), "1.2345%")
        self.assertEqual(fmt_pct(None), "-")
        self.assertEqual(fmt_num(1234567), "1,234,567")
        self.assertEqual(fmt_num(None), "-")
        results = [result(c, n, 0, 0, 0) for n in (1, 2)
                   for c in ("b", "a", "b")]
        self.assertEqual(labels_in_order(results), ["b", "a"])


if __name__ == "__main__":
    unittest.main()
