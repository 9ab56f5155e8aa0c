#!/usr/bin/python3
# Tests of tools/comparison/depth.py: the phases of one tree, Monkey's
# ratios to fixed10 step by step, the table, and the model's prediction
# (from monkey_plan, when ctest passes it in MONKEY_PLAN).

import os
import unittest

import testing  # noqa: F401  (the import path)
from comparison import depth
from comparison.specs import DEEP_L0_FILES


def point(label, num, added, runs, sum_fpr, filter_bytes):
    return {"num": num, "label": label, "l0_files_added": added,
            "filtered_runs": runs, "sum_fpr_runs": sum_fpr,
            "filter_bytes": filter_bytes, "tree": []}


class DepthTest(unittest.TestCase):
    def test_a_measure_after_the_load_and_after_every_l0_file(self):
        names = [name for name, _ in depth.steps(1000)]
        self.assertEqual(names, ["load", "measure"]
                         + ["l0 file", "measure"] * DEEP_L0_FILES)
        l0_file = dict(depth.steps(1000))["l0 file"]
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
