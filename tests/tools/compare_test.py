#!/usr/bin/python3
"""Tests of tools/compare.py: configuration specs, db_bench output parsing
(benchmark lines, histogram P95, filter_report_json, the Monkey plan), the
side-by-side table and the acceptance checks."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "tools"))
import compare  # noqa: E402

OUTPUT = """\
Filter policy: monkey {id=monkey;filter=bloom;bits_per_key=10.000000;}
monkey plan: 10.000000 bits/key (bloom), size_ratio 10.000000, 7 levels
level      keys  runs |  bits/key        FPR
L5      9.0000%     1 |    14.729   0.13699%
L6     90.0000%     1 |     9.400   1.24622%
readmissing  :       1.313 micros/op 760716 ops/sec 0.026 seconds 20000 operations; (0 of 20000 found)

Microseconds per read:
Count: 100 Average: 1.3242  StdDev: 53.18
Percentiles: P50: 0.51 P75: 0.77 P99: 4.40 P99.9: 34.00 P99.99: 2900.00
------------------------------------------------------
[       0,       1 ]       90  90.000%  90.000% ####################
(       1,       2 ]        5   5.000%  95.000% #
(       4,       6 ]        5   5.000% 100.000% #

Filter report: readmissing (1 thread)
filter_report_json: {"benchmark":"readmissing","levels":[],"sum_fpr":0.0134}
readrandom   :       4.000 micros/op 250000 ops/sec 0.800 seconds 200000 operations;   20.9 MB/s (1 of 2 found)

Microseconds per read:
[       0,       4 ]       10  50.000%  50.000% ####
(       4,       6 ]       10  50.000% 100.000% ####
"""


def result(label, num, sum_fpr, model_sum_fpr, filter_bytes, agrees=True):
    level = {"level": 6, "files": 3, "entries": 10, "filter_bytes": 5,
             "filter_entries": 10, "bits_per_key": 4.0, "filter": "bloom",
             "probes": 100, "useful": 99, "false_positives": 1, "fpr": 0.01,
             "model_fpr": 0.02 if not agrees else 0.01, "fpr_sigma": 0.001,
             "model_agrees": agrees}
    report = {"benchmark": "readmissing", "levels": [level],
              "sum_fpr": sum_fpr, "model_sum_fpr": model_sum_fpr,
              "filter_bytes_total": filter_bytes, "bits_per_key": 10,
              "fp_per_absent_lookup": 0.01, "lookups": 100,
              "block_cache_data_hit": 1, "block_cache_data_miss": 1,
              "model_agrees": agrees}
    return {"num": num, "config": compare.parse_config(label),
            "benchmarks": [{"benchmark": "readmissing", "ops_per_sec": 5,
                            "p95_micros": 1.0}],
            "reports": {"readmissing": report}, "plan": {}}


class CompareTest(unittest.TestCase):
    def test_parse_config(self):
        c = compare.parse_config("monkey:7")
        self.assertEqual((c["label"], c["filter_uri"], c["flags"]),
                         ("monkey:7", "monkey:7", []))
        c = compare.parse_config(
            "bloomfilter:10+hits=bloomfilter:10 --optimize_filters_for_hits=1")
        self.assertEqual(c["label"], "bloomfilter:10+hits")
        self.assertEqual(c["filter_uri"], "bloomfilter:10")
        self.assertEqual(c["flags"], ["--optimize_filters_for_hits=1"])
        c = compare.parse_config("id=monkey;bits_per_key=8")
        self.assertEqual(c["filter_uri"], "id=monkey;bits_per_key=8")
        c = compare.parse_config("m8=id=monkey;bits_per_key=8")
        self.assertEqual((c["label"], c["filter_uri"]),
                         ("m8", "id=monkey;bits_per_key=8"))
        c = compare.parse_config("none")
        self.assertEqual((c["label"], c["filter_uri"]), ("none", ""))

    def test_percentile_interpolates_like_rocksdb(self):
        buckets = [(0, 1, 90), (1, 2, 5), (4, 6, 5)]
        self.assertAlmostEqual(compare.percentile(buckets, 50), 50 / 90)
        self.assertAlmostEqual(compare.percentile(buckets, 95), 2.0)
        self.assertAlmostEqual(compare.percentile(buckets, 99), 5.6)
        self.assertIsNone(compare.percentile([], 95))

    def test_parse_output(self):
        benchmarks, reports, plan = compare.parse_output(OUTPUT)
        self.assertEqual([b["benchmark"] for b in benchmarks],
                         ["readmissing", "readrandom"])
        self.assertEqual(benchmarks[0]["ops_per_sec"], 760716)
        self.assertEqual(benchmarks[0]["operations"], 20000)
        self.assertAlmostEqual(benchmarks[0]["p95_micros"], 2.0)
        self.assertAlmostEqual(benchmarks[1]["p95_micros"], 5.8)
        self.assertEqual(reports["readmissing"]["sum_fpr"], 0.0134)
        self.assertEqual(plan[6]["bits_per_key"], 9.4)
        self.assertAlmostEqual(plan[5]["fpr"], 0.0013699)

    def test_checks(self):
        results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                   result("monkey:10", 1000, 0.014, 0.014, 104),
                   result("monkey:7", 1000, 0.05, 0.05, 70)]
        verdicts = compare.checks(results)
        self.assertTrue(verdicts[0].startswith("PASS instrument"), verdicts)
        self.assertTrue(verdicts[1].startswith("PASS 1,000 keys monkey:10"),
                        verdicts)
        self.assertTrue(verdicts[2].startswith("FAIL 1,000 keys monkey:7"),
                        verdicts)
        static = result("monkey:7/static=id=monkey;bits_per_key=7;"
                        "shape=static", 1000, 0.019, 0.02, 70)
        self.assertTrue(compare.checks(results + [static])[-1].startswith(
            "PASS 1,000 keys monkey:7/static"))
        results[1] = result("monkey:10", 1000, 0.014, 0.014, 106)
        self.assertTrue(compare.checks(results)[1].startswith("FAIL"))
        results[0] = result("bloomfilter:10", 1000, 0.02, 0.02, 100,
                            agrees=False)
        self.assertTrue(compare.checks(results)[0].startswith(
            "FAIL instrument: 1,000 keys bloomfilter:10 L6"))

    def test_table_has_every_config_and_level(self):
        results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                   result("monkey:7", 1000, 0.05, 0.05, 70)]
        table = compare.print_table(results, "default")
        self.assertIn("bloomfilter:10", table.splitlines()[0])
        self.assertIn("monkey:7", table.splitlines()[0])
        self.assertIn("L6 FPR", table)
        self.assertIn("5.000%", table)
        self.assertIn("readmissing P95 us", table)

    def test_builds_are_crossed_and_compared(self):
        configs = compare.with_builds(
            [compare.parse_config("none"), compare.parse_config("monkey:7")],
            ["release=/fork/db_bench"])
        self.assertEqual([c["label"] for c in configs],
                         ["none", "none@release", "monkey:7",
                          "monkey:7@release"])
        self.assertEqual(configs[3]["db_bench"], "/fork/db_bench")
        self.assertEqual(configs[3]["filter_uri"], "monkey:7")
        self.assertNotIn("db_bench", configs[2])
        quick = result("monkey:7", 1000, 0.05, 0.05, 100)
        release = result("monkey:7", 1000, 0.051, 0.05, 100)
        release["config"] = configs[3]
        for r, ops in ((quick, 100), (release, 135)):
            r["benchmarks"][0].update(phase="measure", ops_per_sec=ops)
        table = compare.builds_table([quick, release])
        self.assertIn("monkey:7@release: readmissing 1.35x", table)
        self.assertIn("sum FPR 5.000% -> 5.100%", table)
        self.assertEqual(compare.builds_table([quick]), "")


if __name__ == "__main__":
    unittest.main()
