#!/usr/bin/python3
# Tests of bench/read_cost.py: the fit of a lookup's time to its block reads
# and their bytes.

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "bench"))
import read_cost  # noqa: E402


def lookup(reads, kib, per_read=45.0, per_kib=1.3, rest=2.7, noise=0.0):
    return (reads, kib, per_read * reads + per_kib * kib + rest + noise)


class FitTest(unittest.TestCase):
    def test_recovers_the_cost_of_a_read_and_of_its_bytes(self):
        # Partitions of 4 KiB, and full filter blocks of 40-120 KiB.
        points = [lookup(0.98, 3.9), lookup(1.4, 5.6), lookup(0.45, 1.8),
                  lookup(1.7, 80.0), lookup(1.2, 110.0), lookup(2.0, 60.0)]
        got = read_cost.fit(points)
        self.assertAlmostEqual(got["micros_per_read"], 45.0)
        self.assertAlmostEqual(got["micros_per_kib"], 1.3)
        self.assertAlmostEqual(got["micros_per_lookup"], 2.7)
        self.assertAlmostEqual(got["read_latency_bytes"], 1024 * 45 / 1.3)
        self.assertAlmostEqual(got["median_error"], 0.0)
        self.assertEqual(got["runs"], 6)

    def test_the_median_error_of_noisy_runs(self):
        points = [lookup(0.98, 3.9, noise=4), lookup(1.4, 5.6, noise=-4),
                  lookup(0.45, 1.8), lookup(1.7, 80.0, noise=6),
                  lookup(1.2, 110.0, noise=-6), lookup(2.0, 60.0)]
        got = read_cost.fit(points)
        self.assertGreater(got["median_error"], 0.0)
        self.assertLess(got["median_error"], 0.1)
        self.assertIn("read_latency_bytes = ", read_cost.fit_text(got))

    def test_no_fit_where_every_read_is_the_same_size(self):
        # Partitioned filters only: bytes follow reads.
        points = [lookup(0.98, 3.92), lookup(1.4, 5.6), lookup(0.45, 1.8),
                  lookup(1.1, 4.4)]
        self.assertIsNone(read_cost.fit(points))
        self.assertIn("no fit", read_cost.fit_text(None))

    def test_no_fit_of_fewer_runs_than_unknowns(self):
        self.assertIsNone(read_cost.fit([lookup(1.0, 4.0),
                                         lookup(1.0, 100.0)]))


if __name__ == "__main__":
    unittest.main()
