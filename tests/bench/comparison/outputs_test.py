#!/usr/bin/python3
# Tests of bench/comparison/outputs.py: summary.csv, levels.csv and
# results.json.

import contextlib
import csv
import io
import json
import shutil
import tempfile
import unittest

from testing import level, result
from comparison.outputs import write_outputs


class OutputsTest(unittest.TestCase):
    def test_files(self):
        results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                   result("m7=monkey:7 --bloom_locality=1", 1000, 0.05, 0.05,
                          70, levels=[level(5), level(6)],
                          plan={5: {"bits_per_key": 11.5, "fpr": 0.005}})]
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        with contextlib.redirect_stdout(io.StringIO()):
            write_outputs(out, results, "default", {"preset": "default"})
        with open(f"{out}/summary.csv") as f:
            summary = list(csv.DictReader(f))
        self.assertEqual([(r["keys"], r["config"], r["filter_uri"], r["flags"])
                          for r in summary],
                         [("1000", "bloomfilter:10", "bloomfilter:10", ""),
                          ("1000", "m7", "monkey:7", "--bloom_locality=1")])
        self.assertEqual(summary[1]["sum_fpr"], "0.05")
        self.assertEqual(summary[1]["readmissing_ops_per_sec"], "5")
        with open(f"{out}/levels.csv") as f:
            levels = list(csv.DictReader(f))
        self.assertEqual([(r["config"], r["level"], r["plan_bits_per_key"])
                          for r in levels],
                         [("bloomfilter:10", "6", ""), ("m7", "5", "11.5"),
                          ("m7", "6", "")])
        with open(f"{out}/results.json") as f:
            saved = json.load(f)
        self.assertEqual(saved["meta"], {"preset": "default"})
        self.assertEqual(saved["results"][1]["config"]["label"], "m7")


if __name__ == "__main__":
    unittest.main()
