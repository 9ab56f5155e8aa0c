#!/usr/bin/python3
# Tests of tools/comparison/tables.py: the side-by-side table and the
# comparison of --also_db_bench builds.

import unittest

from testing import level, result
from comparison.specs import parse_config, with_builds
from comparison.tables import builds_table, print_table


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
