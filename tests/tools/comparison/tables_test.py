#!/usr/bin/python3
# Tests of tools/comparison/tables.py: the side-by-side table and the
# comparison of --also_db_bench builds.

import unittest

from testing import level, result
from comparison.specs import parse_config, with_builds
from comparison.tables import builds_table, print_table, trees_table


class TablesTest(unittest.TestCase):
    def test_table_has_every_config_and_level(self):
        results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                   result("monkey:7", 1000, 0.05, 0.05, 70,
                          levels=[level(5, fpr=0.002), level(6)])]
        lines = print_table(results, "default").splitlines()
        self.assertEqual(lines[0], " " * 30 + "  bloomfilter:10"
                         + "        monkey:7")
        self.assertIn("L5 FPR" + " " * 24 + "               -"
                      + "          0.200%", lines)
        self.assertIn("sum FPR" + " " * 23 + "          2.000%"
                      + "          5.000%", lines)
        self.assertIn("readmissing P95 us", "\n".join(lines))
        self.assertNotIn("filter cache MiB", "\n".join(lines))
        self.assertIn("filter cache MiB",
                      print_table(results, "tdstore"))

    def test_deep_shows_runs_and_trees(self):
        r = result("monkey:7", 1000, 0.05, 0.05, 70,
                   levels=[level(0, fpr=0.001), level(6, fpr=0.01)])
        self.assertNotIn("filtered runs", print_table([r], "default"))
        lines = print_table([r], "deep").splitlines()
        self.assertIn(f"{'filtered runs':<30}{'4':>14}", lines)
        self.assertIn(f"{'sum FPR over runs':<30}{'1.300%':>14}", lines)
        self.assertEqual(trees_table([r]), "")
        r["trees"] = {"runs": [{"level": 0, "files": 3, "mb": 0},
                               {"level": 6, "files": 40, "mb": 9}],
                      "measure": [{"level": 6, "files": 41, "mb": 9}]}
        self.assertEqual(trees_table([r]).splitlines(), [
            "tree (files per level):",
            "  1,000 keys monkey:7, load end: L0 3, L6 40",
            "  1,000 keys monkey:7, measurement: L6 41"])

    def test_sizes_get_their_own_blocks(self):
        results = [result("monkey:7", n, 0.05, 0.05, 70)
                   for n in (4000, 1000)]
        table = print_table(results, "default")
        self.assertLess(table.index("--- 1,000 keys"),
                        table.index("--- 4,000 keys"))

    def test_builds_are_compared(self):
        configs = with_builds([parse_config("monkey:7")],
                              ["release=/fork/db_bench"])
        quick = result("monkey:7", 1000, 0.05, 0.05, 100)
        release = result("monkey:7", 1000, 0.051, 0.05, 100)
        release["config"] = configs[1]
        for r, ops in ((quick, 100), (release, 135)):
            r["benchmarks"][0].update(ops_per_sec=ops)
        table = builds_table([quick, release])
        self.assertIn("monkey:7@release: readmissing 1.35x", table)
        self.assertIn("sum FPR 5.000% -> 5.100%", table)
        self.assertEqual(builds_table([quick]), "")


if __name__ == "__main__":
    unittest.main()
