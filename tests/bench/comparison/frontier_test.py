#!/usr/bin/python3
# Tests of bench/comparison/frontier.py: the runs' key shares, the
# information-theoretic bound, the memory each kind needs at a target and
# the summary.

import math
import unittest

import testing  # noqa: F401  (the import path)
from comparison import frontier


class FrontierTest(unittest.TestCase):
    def test_shares_count_every_l0_file(self):
        report = {"levels": [
            {"level": 0, "files": 2, "entries": 20, "filter_bytes": 9,
             "filter_entries": 20},
            {"level": 5, "files": 9, "entries": 160, "filter_bytes": 90,
             "filter_entries": 160},
            {"level": 6, "files": 90, "entries": 800, "filter_bytes": 0,
             "filter_entries": 0},
            # One moved file's filter in an unfiltered level is not a run.
            {"level": 6, "files": 90, "entries": 800, "filter_bytes": 69,
             "filter_entries": 1}]}
        self.assertEqual(frontier.run_shares(report), [1 / 18, 1 / 18,
                                                       16 / 18])

    def test_the_bound(self):
        # One run: H = 0, so b bits buy 2^-b.
        self.assertAlmostEqual(frontier.bound_bits([1.0], 2 ** -10), 10)
        # Two equal runs: e^H = 2, one bit more for the same sum.
        self.assertAlmostEqual(frontier.bound_bits([0.5, 0.5], 2 ** -10), 11)
        self.assertAlmostEqual(frontier.entropy([0.5, 0.5]), math.log(2))

    def test_bytes_for_a_target_between_budgets(self):
        points = [{"kind": "bloom", "sum_fpr_runs": 0.04,
                   "filter_bytes": 100},
                  {"kind": "bloom", "sum_fpr_runs": 0.01,
                   "filter_bytes": 200},
                  {"kind": "monkey", "sum_fpr_runs": 0.03,
                   "filter_bytes": 60},
                  {"kind": "monkey", "sum_fpr_runs": 0.005,
                   "filter_bytes": 140}]
        self.assertAlmostEqual(frontier.bytes_for(points, "bloom", 0.02), 150)
        self.assertIsNone(frontier.bytes_for(points, "bloom", 0.05))
        self.assertIsNone(frontier.bytes_for(points, "ribbon", 0.02))
        text = frontier.summary(points)
        row = next(l for l in text.splitlines() if l.strip().startswith("2%"))
        monkey = frontier.bytes_for(points, "monkey", 0.02)
        self.assertIn(f"{monkey / 150:.3f}x", row)


if __name__ == "__main__":
    unittest.main()
