#!/usr/bin/python3
# Tests of bench/cache_grid.py: the grid of configurations it loads, and
# where it places the cache-aware objective against the grid at a cache.

import argparse
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "bench"))
import cache_grid  # noqa: E402


def args(ks="5,10", families="bloomfilter,monkey", with_last_only=False):
    return argparse.Namespace(ks=ks, families=families,
                              with_last_only=with_last_only)


def row(label, reads, ops, model=None, cost=None, filter_bytes=None,
        read_micros=None, bits=None, kib=None):
    return {"layout": "partitioned", "fraction": 0.2, "label": label,
            "reads_total": reads, "ops_per_sec": sorted(ops)[len(ops) // 2],
            "ops_per_sec_rounds": ops, "ops_per_sec_min": min(ops),
            "ops_per_sec_max": max(ops),
            "reads": {"filter": reads, "index": 0.0, "data": 0.0},
            "model_total": model,
            "model_cost": cost, "filter_bytes": filter_bytes,
            "read_micros": read_micros, "kib": kib,
            "model": {"bits_per_level": bits} if bits else None}


class ConfigsTest(unittest.TestCase):
    def test_every_k_with_and_without_last_level_filters_reference_first(self):
        grid = cache_grid.configs(args())
        labels = [label for label, _, _ in grid]
        self.assertEqual(labels[0], "bloomfilter:10")
        self.assertEqual(len(labels), len(set(labels)))
        self.assertEqual(sorted(labels), sorted([
            "bloomfilter:5", "bloomfilter:5 no-last", "bloomfilter:10",
            "bloomfilter:10 no-last", "monkey:5", "monkey:5 no-last",
            "monkey:10", "monkey:10 no-last"]))

    def test_no_last_level_filter_is_each_familys_own_option(self):
        grid = {label: (uri, extra)
                for label, uri, extra in cache_grid.configs(args())}
        self.assertEqual(grid["bloomfilter:5 no-last"],
                         ("bloomfilter:5",
                          ["--optimize_filters_for_hits=true"]))
        self.assertEqual(grid["monkey:5 no-last"],
                         ("id=monkey;bits_per_key=5;last_level_filter=false",
                          []))
        self.assertEqual(grid["monkey:5"], ("monkey:5", []))

    def test_the_reference_is_loaded_even_when_ks_leave_it_out(self):
        labels = [label for label, _, _ in
                  cache_grid.configs(args(ks="7", families="monkey"))]
        self.assertEqual(labels, ["bloomfilter:10", "monkey:7",
                                  "monkey:7 no-last"])

    def test_a_sweep_of_k_leaves_the_no_last_configurations_out(self):
        labels = [label for label, _, _ in cache_grid.configs(
            args(ks="14,16", families="bloomfilter", with_last_only=True))]
        self.assertEqual(labels, ["bloomfilter:10", "bloomfilter:14",
                                  "bloomfilter:16"])


class VerdictsTest(unittest.TestCase):
    def test_against_the_fewest_reads_and_the_fastest_round_by_round(self):
        rows = [row("bloomfilter:10", 1.0, [100, 110, 90], 1.1),
                row("bloomfilter:5", 0.8, [120, 130, 125], 0.7),
                row("objective=io", 0.84, [120, 143, 90], 0.77)]
        lines, got = cache_grid.verdicts(rows)
        self.assertEqual(len(lines), 1)
        v = got[0]
        self.assertEqual(v["fewest_reads"], "bloomfilter:5")
        self.assertAlmostEqual(v["reads_over_fewest"], 0.84 / 0.8)
        self.assertEqual(v["fewest_model"], "bloomfilter:5")
        self.assertAlmostEqual(v["model_over_fewest"], 1.1)
        self.assertEqual(v["fastest"], "bloomfilter:5")
        self.assertAlmostEqual(v["ops_over_fastest"]["median"], 1.0)
        self.assertAlmostEqual(v["ops_over_fastest"]["min"], 90 / 125)
        self.assertAlmostEqual(v["ops_over_fastest"]["max"], 1.1)
        self.assertAlmostEqual(v["ops_over_reference"]["median"], 1.2)
        self.assertIn("1.050x the fewest (bloomfilter:5", lines[0])

    def test_the_fewest_modelled_among_the_rows_with_a_model(self):
        rows = [row("bloomfilter:10", 1.0, [100], 1.1),
                row("bloomfilter:5 no-last", 0.9, [100], None),
                row("objective=io", 1.0, [100], 0.99)]
        _, got = cache_grid.verdicts(rows)
        self.assertEqual(got[0]["fewest_model"], "bloomfilter:10")
        self.assertAlmostEqual(got[0]["model_over_fewest"], 0.9)
        self.assertNotIn("cost_over_cheapest", got[0])

    def test_the_cheapest_modelled_cost_is_its_own_verdict(self):
        # Fewer reads of bigger blocks: the fewest reads and the cheapest
        # are different configurations.
        rows = [row("bloomfilter:10", 1.0, [100], 1.0, 1.6),
                row("monkey:7", 1.05, [110], 1.05, 1.3),
                row("objective=io", 1.04, [112], 1.04, 1.3)]
        lines, got = cache_grid.verdicts(rows)
        self.assertEqual(got[0]["fewest_model"], "bloomfilter:10")
        self.assertEqual(got[0]["cheapest_model"], "monkey:7")
        self.assertAlmostEqual(got[0]["cost_over_cheapest"], 1.0)
        self.assertIn("cost 1.000x the cheapest (monkey:7)", lines[0])

    def test_without_the_model_no_modelled_ratio(self):
        rows = [row("bloomfilter:10", 1.0, [100]),
                row("objective=io", 1.0, [100])]
        lines, got = cache_grid.verdicts(rows)
        self.assertNotIn("model_over_fewest", got[0])
        self.assertNotIn("modelled", lines[0])


class SecondIoTest(unittest.TestCase):
    def test_each_io_is_judged_against_the_hand_picked_grid_alone(self):
        rows = [row("bloomfilter:10", 1.0, [100, 100]),
                row("bloomfilter:5", 0.8, [120, 120]),
                row("objective=io", 0.84, [120, 120]),
                # Faster than everything: still not the grid's fastest.
                row("objective=io#2", 0.9, [150, 150])]
        lines, got = cache_grid.verdicts(rows)
        self.assertEqual([v["io"] for v in got],
                         ["objective=io", "objective=io#2"])
        for v in got:
            self.assertEqual(v["fastest"], "bloomfilter:5")
            self.assertEqual(v["fewest_reads"], "bloomfilter:5")
        self.assertAlmostEqual(got[1]["ops_over_fastest"]["median"], 1.25)
        self.assertNotIn("objective=io#2", lines[0])
        self.assertIn("objective=io#2 reads 0.9000", lines[1])

    def test_labels(self):
        self.assertEqual(cache_grid.io_label(0), "objective=io")
        self.assertEqual(cache_grid.io_label(1), "objective=io#2")
        self.assertTrue(cache_grid.is_io("objective=io#2"))
        self.assertFalse(cache_grid.is_io("monkey:10"))


class SameFiltersTest(unittest.TestCase):
    def test_equal_filter_bytes_and_bits_of_every_level(self):
        ten, fourteen = [10.0, 10.0, 10.0], [14.16, 14.16, 14.16]
        grid = [row("bloomfilter:10", 0.9865, [100], filter_bytes=2546000,
                    bits=ten),
                row("bloomfilter:14", 0.9833, [90], filter_bytes=3539915,
                    bits=fourteen),
                row("monkey:10", 0.9861, [98], filter_bytes=2546000,
                    bits=ten),
                row("monkey:14", 0.9832, [110], filter_bytes=3539915,
                    bits=fourteen),
                # The same bytes spent otherwise, and reads as many (every
                # full filter block misses a small cache): not the same.
                row("monkey:7", 0.9833, [80], filter_bytes=3539915,
                    bits=[17.95, 13.9, 13.9])]
        self.assertEqual(
            [(a["label"], b["label"]) for a, b in
             cache_grid.same_filters(grid)],
            [("monkey:10", "bloomfilter:10"), ("monkey:14", "bloomfilter:14")])

    def test_rows_without_the_models_bits_are_never_the_same(self):
        grid = [row("bloomfilter:5 no-last", 1.98, [100], filter_bytes=9),
                row("bloomfilter:7 no-last", 1.98, [100], filter_bytes=9)]
        self.assertEqual(cache_grid.same_filters(grid), [])

    def test_the_verdict_gives_their_spread_and_the_device_latency(self):
        rows = [row("bloomfilter:10", 0.99, [95, 95, 95], filter_bytes=5),
                row("bloomfilter:14", 0.98, [90, 100, 80], filter_bytes=7,
                    read_micros=40.1, bits=[14.0]),
                row("monkey:14", 0.98, [108, 110, 100], filter_bytes=7,
                    read_micros=37.5, bits=[14.0]),
                row("objective=io", 1.0, [100, 100, 100], filter_bytes=5,
                    read_micros=41.2)]
        lines, got = cache_grid.verdicts(rows)
        self.assertEqual(got[0]["fastest"], "monkey:14")
        self.assertAlmostEqual(got[0]["same_filters_ops"]["min"], 1.1)
        self.assertAlmostEqual(got[0]["same_filters_ops"]["max"], 1.25)
        self.assertEqual(got[0]["read_micros"],
                         {"io": 41.2, "fastest": 37.5})
        self.assertIn("41.2 us a device read against 37.5", lines[0])
        self.assertIn("same filters: monkey:14 1.20x (1.10-1.25x) of "
                      "bloomfilter:14's", lines[0])


class FittedTimeTest(unittest.TestCase):
    def test_fitted_time_prices_each_rows_reads_and_kib_at_the_fit(self):
        cost = {"micros_per_read": 40.0, "micros_per_kib": 2.0,
                "micros_per_lookup": 10.0}
        rows = [row("bloomfilter:10", 1.0, [90, 95], kib=100.0),
                row("monkey:5", 1.2, [100, 100], kib=20.0),
                row("objective=io", 1.1, [90, 90], kib=30.0)]
        # 40 x reads + 2 x KiB + 10: 250, 98 and 114 us a lookup.
        lines, got = cache_grid.verdicts(rows, cost)
        self.assertEqual(got[0]["least_fitted"], "monkey:5")
        self.assertAlmostEqual(got[0]["fitted_over_least"], 114 / 98)
        self.assertIn("fitted 114.0 us a lookup = 1.163x the least "
                      "(monkey:5, 98.0)", lines[0])

    def test_no_fitted_time_without_a_fit_or_a_rows_kib(self):
        rows = [row("bloomfilter:10", 1.0, [90], kib=100.0),
                row("objective=io", 1.1, [90])]
        cost = {"micros_per_read": 40.0, "micros_per_kib": 2.0,
                "micros_per_lookup": 10.0}
        for c in (None, cost):
            lines, got = cache_grid.verdicts(rows, c)
            self.assertNotIn("fitted_over_least", got[0])
            self.assertNotIn("fitted", lines[0])


class RejudgeTest(unittest.TestCase):
    def test_a_record_without_the_rows_bits_takes_them_from_its_models(self):
        def advice(bits):
            return {"column_families": [{
                "block_reads": {"filter": 0.9, "index": 0.05, "data": 0.05},
                "levels": [{"bits_per_key": b} for b in bits]}]}

        rows = [row("bloomfilter:10", 1.0, [100, 90], filter_bytes=5),
                row("monkey:10", 1.0, [120, 90], filter_bytes=5),
                row("objective=io", 0.9, [110, 95], filter_bytes=4)]
        for r in rows:
            r["model"] = {"filter": 0.9}  # as saved before bits_per_level
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "summary.json"), "w") as f:
                json.dump({"rows": rows, "rounds": 2,
                           "io": "id=monkey;objective=io"}, f)
            for label in ("bloomfilter_10", "monkey_10"):
                with open(os.path.join(d, f"partitioned_0.2_{label}"
                                       "_model.json"), "w") as f:
                    json.dump(advice([10.0, 10.0]), f)
            text = cache_grid.rejudged(os.path.join(d, "summary.json"))
        self.assertIn("2 rounds", text)
        self.assertIn("objective=io: id=monkey;objective=io", text)
        self.assertIn("same filters: monkey:10 1.10x (1.00-1.20x) of "
                      "bloomfilter:10's", text)


if __name__ == "__main__":
    unittest.main()
