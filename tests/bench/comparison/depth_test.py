#!/usr/bin/python3
# Tests of bench/comparison/depth.py: the phases of one tree, Monkey's
# ratios to fixed10 step by step, the table, and the model's prediction
# (from monkey_plan, when ctest passes it in MONKEY_PLAN).

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

import testing  # noqa: F401  (the import path)
from comparison import depth
from comparison.runner import Runner
from comparison.specs import (DEEP_L0_FILES, UNIVERSAL_L0_FILE_KEYS,
                              UNIVERSAL_RUNS_AT_REST, parse_config)
from runner_test import FAKE_DB_BENCH, FAKE_MONKEY_PLAN


def point(label, num, added, runs, sum_fpr, filter_bytes):
    return {"num": num, "label": label, "l0_files_added": added,
            "filtered_runs": runs, "sum_fpr_runs": sum_fpr,
            "filter_bytes": filter_bytes, "tree": []}


def tiered_point(label, added, fp, model_fp, filter_bytes, now=None,
                 optimum=None):
    """A universal sweep's measurement on a tree of added + 1 runs."""
    return {"num": 10, "label": label, "l0_files_added": added,
            "sorted_runs": added + 1, "fp_per_absent_lookup": fp,
            "ticker_fp_per_lookup": fp, "model_fp_per_absent_lookup": model_fp,
            "filter_bytes": filter_bytes, "bits_per_key": 10.0, "tree": [],
            "advisor_sorted_runs": None if now is None else added + 1,
            "advisor_fp_now": now, "advisor_optimum": optimum,
            "advisor_missing": None}


class DepthTest(unittest.TestCase):
    def test_a_measure_after_the_load_and_after_every_l0_file(self):
        names = [name for name, _ in depth.steps(1000, 50)]
        self.assertEqual(names, ["load", "measure"]
                         + ["l0 file", "measure"] * DEEP_L0_FILES)
        l0_file = dict(depth.steps(1000, 50))["l0 file"]
        self.assertIn("--benchmarks=overwrite,flush", l0_file)
        self.assertIn("--use_existing_db=1", l0_file)

    def test_ratios_pair_each_step_with_fixed10s(self):
        points = [point("fixed10", 10, 0, 3, 0.03, 100),
                  point("monkey10", 10, 0, 3, 0.012, 101),
                  point("fixed10", 10, 1, 4, 0.04, 101),
                  point("monkey7", 10, 1, 4, 0.05, 70),
                  point("monkey7", 20, 0, 5, 0.05, 70)]  # no fixed10 there
        rows = depth.ratios(points)
        self.assertEqual([(r["label"], r["runs"]) for r in rows],
                         [("monkey10", 3), ("monkey7", 4)])
        self.assertAlmostEqual(rows[0]["sum_fpr"], 0.4)
        self.assertAlmostEqual(rows[1]["bytes"], 70 / 101)
        text = depth.table(rows, {3: {"monkey10": 0.5, "monkey7": 1.2}})
        self.assertIn("monkey10", text.splitlines()[1])
        self.assertIn("0.400", text.splitlines()[1])
        self.assertIn("0.500", text.splitlines()[1])
        self.assertTrue(text.splitlines()[2].split()[5] == "-")

    def test_a_sweep_measures_every_step_of_every_tree(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        fake = os.path.join(tmp, "db_bench")
        with open(fake, "w") as f:
            f.write(FAKE_DB_BENCH.format(python=sys.executable))
        os.chmod(fake, 0o755)
        with contextlib.redirect_stdout(io.StringIO()):
            points = depth.run_sweep(Runner(fake), [100, 200], 50, tmp, tmp,
                                     [parse_config("monkey:7")])
        self.assertEqual([(p["num"], p["l0_files_added"]) for p in points],
                         [(n, k) for n in (100, 200)
                          for k in range(DEEP_L0_FILES + 1)])
        with open(os.path.join(tmp, "calls.jsonl")) as f:
            calls = [json.loads(line) for line in f]
        self.assertEqual(len(calls), 2 * (2 + 2 * DEEP_L0_FILES))
        self.assertIn("--filter_uri=monkey:7", calls[0])
        self.assertIn("--reads=50", calls[1])
        # The DBs are gone; the logs stay.
        self.assertFalse(os.path.exists(os.path.join(tmp,
                                                     "depth-100-monkey:7")))
        self.assertTrue(os.path.exists(os.path.join(
            tmp, "200-monkey:7-measure-3.log")))

    def test_the_universal_cycle_from_one_run_to_its_runs_at_rest(self):
        steps = depth.universal_steps(1000, 50)
        names = [name for name, _ in steps]
        self.assertEqual(names, ["load", "measure"] + ["l0 file", "measure"]
                         * (UNIVERSAL_RUNS_AT_REST - 1))
        # The load ends in a full compaction: one sorted run.
        self.assertIn("--benchmarks=fillrandom,flush,waitforcompaction,"
                      "compact,levelstats", steps[0][1])
        self.assertIn("--benchmarks=overwrite,flush", steps[2][1])
        self.assertIn(f"--writes={UNIVERSAL_L0_FILE_KEYS}", steps[2][1])
        self.assertIn("--benchmarks=readmissing,levelstats", steps[1][1])

    def test_universal_ratios_pair_each_step_with_blooms(self):
        points = [tiered_point("bloomfilter:10", 0, 0.010, 0.010, 100,
                               0.010, 0.010),
                  tiered_point("monkey:10", 0, 0.011, 0.010, 100),
                  tiered_point("bloomfilter:10", 4, 0.050, 0.048, 104,
                               0.048, 0.036),
                  tiered_point("monkey:10", 4, 0.030, 0.029, 106, 0.029,
                               0.027),
                  tiered_point("monkey:7", 5, 0.2, 0.2, 70)]  # no Bloom
        rows = depth.universal_ratios(points)
        self.assertEqual([(r["label"], r["runs"]) for r in rows],
                         [("monkey:10", 1), ("monkey:10", 5)])
        self.assertAlmostEqual(rows[1]["fp"], 0.6)
        self.assertAlmostEqual(rows[1]["model"], 0.029 / 0.048)
        # The model's best for Monkey's tree over Bloom's filters as built.
        self.assertAlmostEqual(rows[1]["optimum"], 0.027 / 0.048)
        self.assertAlmostEqual(rows[1]["bytes"], 106 / 104)
        self.assertIsNone(rows[0]["optimum"])  # Monkey's DB had no advice
        lines = depth.universal_table(points, rows).splitlines()
        self.assertEqual(lines[-1].split(),
                         ["monkey:10", "10", "5", "0.600", "0.604", "0.562",
                          "1.019"])
        self.assertEqual(lines[-2].split()[-2], "-")

    def test_a_universal_sweep_asks_the_advisor_at_every_step(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        paths = {}
        for name, text in (("db_bench", FAKE_DB_BENCH),
                           ("monkey_plan", FAKE_MONKEY_PLAN)):
            paths[name] = os.path.join(tmp, name)
            with open(paths[name], "w") as f:
                f.write(text.format(python=sys.executable))
            os.chmod(paths[name], 0o755)
        with contextlib.redirect_stdout(io.StringIO()):
            points = depth.run_universal_sweep(
                Runner(paths["db_bench"]), [100], 50, tmp, tmp,
                paths["monkey_plan"], [parse_config("monkey:10")])
        self.assertEqual([p["l0_files_added"] for p in points],
                         list(range(UNIVERSAL_RUNS_AT_REST)))
        with open(os.path.join(tmp, "calls.jsonl")) as f:
            calls = [json.loads(line) for line in f]
        self.assertIn("--compaction_style=1", calls[0])
        with open(os.path.join(tmp, "plans.txt")) as f:
            self.assertEqual(len(f.read().splitlines()),
                             UNIVERSAL_RUNS_AT_REST)
        # The fake advisor has no universal figures: none taken.
        self.assertIsNone(points[0]["advisor_optimum"])
        self.assertIn("advisor has no universal support",
                      points[0]["advisor_missing"])
        self.assertEqual(points[0]["sorted_runs"], 1)  # the fake's L6

    @unittest.skipUnless(os.environ.get("MONKEY_PLAN"), "needs MONKEY_PLAN")
    def test_the_model_gains_with_depth(self):
        plan = os.environ["MONKEY_PLAN"]
        one, six, ten = (depth.model_ratios(plan, n) for n in (1, 6, 10))
        # One filtered run: Monkey at 10 bits is uniform 10 bits.
        self.assertAlmostEqual(one["monkey10"], 1.0, places=3)
        self.assertGreater(one["monkey7"], 1)
        self.assertLess(six["monkey10"], 0.35)
        self.assertLess(ten["monkey10"], six["monkey10"])
        self.assertLess(ten["monkey7"], 0.688)  # TDStore's, at ~8 runs


if __name__ == "__main__":
    unittest.main()
