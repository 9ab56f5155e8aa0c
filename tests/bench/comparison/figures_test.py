#!/usr/bin/python3
# Tests of bench/comparison/figures.py: which report a result is judged by,
# its scalar figures, and the plan next to each level.

import unittest

from testing import level, result
from comparison.figures import (fmt_num, fmt_pct, labels_in_order,
                                level_rows, main_report, run_figures,
                                summarize)


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
