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
from comparison.specs import DEEP_L0_FILES, parse_config
from runner_test import FAKE_DB_BENCH


def point(label, num, added, runs, sum_fpr, filter_bytes):
    return {"num": num, "label": label, "l0_files_added": added,
            "filtered_runs": runs, "sum_fpr_runs": sum_fpr,
            "filter_bytes": filter_bytes, "tree": []}


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
