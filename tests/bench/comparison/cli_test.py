#!/usr/bin/python3
# Tests of bench/compare.py's command line (bench/comparison/cli.py): its
# flags, a whole run with a stand-in db_bench, and --replot.

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from testing import SOURCE_ROOT, level, result
from comparison.outputs import write_outputs
from comparison.specs import PARTITIONED_FLAGS
from runner_test import FAKE_DB_BENCH

COMPARE = os.path.join(SOURCE_ROOT, "bench", "compare.py")
FLAGS = ["--db_bench", "--also_db_bench", "--preset", "--config", "--num",
         "--reads", "--repeat", "--threads", "--cache_size", "--results",
         "--db_dir", "--keep_db", "--partitioned", "--replot",
         "--monkey_plan"]


def compare(*args):
    return subprocess.run([sys.executable, COMPARE, *args],
                          capture_output=True, text=True)


class CliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def fake_db_bench(self):
        fake = os.path.join(self.dir, "db_bench")
        with open(fake, "w") as f:
            f.write(FAKE_DB_BENCH.format(python=sys.executable))
        os.chmod(fake, 0o755)
        return fake

    def test_flags(self):
        run = compare("--help")
        self.assertEqual(run.returncode, 0, run.stderr)
        for flag in FLAGS:
            self.assertIn(flag, run.stdout)
        self.assertIn("{deep,default,memlimit,scale,tdstore,universal}",
                      run.stdout)
        run = compare("--preset=default")
        self.assertEqual(run.returncode, 2)
        self.assertIn("--db_bench is required", run.stderr)

    def test_a_run(self):
        fake = self.fake_db_bench()
        results = os.path.join(self.dir, "results")
        run = compare("--db_bench=" + fake, "--config=none",
                      "--config=monkey:7", "--num=1000", "--reads=100",
                      "--repeat=1", "--results=" + results)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("compare: 2 configurations: none, monkey:7", run.stdout)
        self.assertIn("[4/4] 1,000 keys, monkey:7: measure", run.stdout)
        (stamp,) = os.listdir(results)
        with open(os.path.join(results, stamp, "table.txt")) as f:
            table = f.read()
        self.assertTrue(table.startswith(" " * 30 + "          none"), table)
        self.assertIn("\n" + table, run.stdout)  # the table and verdicts
        for name in ("summary.csv", "results.json"):
            self.assertTrue(os.path.exists(
                os.path.join(results, stamp, name)), name)

    def test_partitioned_runs_every_configuration_partitioned(self):
        fake = self.fake_db_bench()
        results = os.path.join(self.dir, "results")
        run = compare("--db_bench=" + fake, "--config=none",
                      "--config=monkey:7", "--num=1000", "--reads=100",
                      "--repeat=1", "--partitioned", "--results=" + results)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        (stamp,) = os.listdir(results)
        with open(os.path.join(results, stamp, "results.json")) as f:
            saved = json.load(f)
        self.assertTrue(saved["meta"]["partitioned"])
        commands = [c for r in saved["results"] for c in r["commands"]]
        self.assertEqual(len(commands), 4)
        for c in commands:
            for flag in PARTITIONED_FLAGS:
                self.assertIn(flag, c)

    def test_replot_keeps_the_plan(self):
        results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                   result("monkey:7", 1000, 0.015, 0.015, 70,
                          levels=[level(5), level(6)],
                          plan={6: {"bits_per_key": 6.5, "fpr": 0.04}})]
        with contextlib.redirect_stdout(io.StringIO()):
            write_outputs(self.dir, results, "default",
                          {"preset": "default"})
        os.remove(os.path.join(self.dir, "levels.csv"))
        run = compare("--replot", self.dir)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("L5 FPR", run.stdout)
        self.assertIn("PASS 1,000 keys monkey:7 vs bloomfilter:10",
                      run.stdout)
        with open(os.path.join(self.dir, "levels.csv")) as f:
            plan = {(r["config"], r["level"]): r["plan_bits_per_key"]
                    for r in csv.DictReader(f)}
        self.assertEqual(plan[("monkey:7", "6")], "6.5")
        self.assertEqual(plan[("monkey:7", "5")], "")


if __name__ == "__main__":
    unittest.main()
