#!/usr/bin/python3
# Tests of bench/comparison/runner.py with a stand-in db_bench that records
# its command lines: the order of the runs, their logs, the rounds' medians,
# the DBs and failures.

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import textwrap
import unittest

import testing  # noqa: F401  (the import path)
from comparison.runner import (advise, block_loads, median_of_rounds,
                               run_comparison, ticker_fp_per_lookup)
from comparison.specs import (DEEP_L0_FILES, UNIVERSAL_L0_FILE_KEYS,
                              UNIVERSAL_RUNS_AT_REST, parse_config,
                              with_builds)

# The advisor's JSON for any --db, or its failure (FAKE_PLAN_FAIL); appends
# the DB to plans.txt, where it checks that the DB is still there.
FAKE_MONKEY_PLAN = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    db = sys.argv[1][len("--db="):]
    with open(os.path.join(os.path.dirname(sys.argv[0]), "plans.txt"),
              "a") as f:
        f.write(db + " " + str(os.path.isdir(db)) + "\\n")
    if os.environ.get("FAKE_PLAN_FAIL"):
        print("not a database", file=sys.stderr)
        sys.exit(3)
    print(json.dumps({{"column_families": [{{
        "name": "default", "sum_fpr_now": 0.1,
        "same_bytes": {{"sum_fpr": 0.08}}}}]}}))
    """)

# Prints one benchmark line and a histogram per benchmark of --benchmarks,
# with ops/s = 1000 x the number of runs on its DB so far, and a filter
# report after each measured one; appends its command to calls.jsonl.
FAKE_DB_BENCH = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    flags = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
    with open(os.path.join(os.path.dirname(sys.argv[0]), "calls.jsonl"),
              "a") as f:
        f.write(json.dumps(sys.argv) + "\\n")
    if os.environ.get("FAKE_FAIL"):
        print("Invalid argument: a reason")
        sys.exit(3)
    os.makedirs(flags["db"], exist_ok=True)
    counter = os.path.join(flags["db"], "runs")
    runs = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    open(counter, "w").write(str(runs))
    for name in flags["benchmarks"].split(","):
        if name in ("flush", "compact0", "waitforcompaction"):
            continue
        if name == "levelstats":
            print("Level Files Size(MB)")
            print("--------------------")
            for level in range(7):
                files = runs if level == 6 else 0
                print(f"{{level:3d}} {{files:8d}} {{files // 2:8d}}")
            continue
        print(f"{{name:<12}} :       1.000 micros/op {{1000 * runs}} ops/sec "
              f"1.000 seconds 1000 operations;")
        print("Microseconds per read:")
        print("[       0,       1 ]     1000 100.000% 100.000% ####")
        print("")
        if "use_existing_db" in flags:
            report = {{"benchmark": name, "levels": [], "sum_fpr": 0.01,
                       "model_sum_fpr": 0.01, "filter_bytes_total": 100}}
            print("filter_report_json: " + json.dumps(report))
    """)


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.fakes = []
        for name in ("bin", "fork"):
            os.makedirs(os.path.join(self.dir, name))
            path = os.path.join(self.dir, name, "db_bench")
            with open(path, "w") as f:
                f.write(FAKE_DB_BENCH.format(python=sys.executable))
            os.chmod(path, 0o755)
            self.fakes.append(path)
        self.out = os.path.join(self.dir, "out")
        os.makedirs(self.out)

    def run_it(self, configs, sizes, repeat, keep_db=False, preset="default",
               monkey_plan=None):
        args = argparse.Namespace(preset=preset, threads=1,
                                  cache_size=1 << 20, repeat=repeat,
                                  db_bench=self.fakes[0], keep_db=keep_db,
                                  monkey_plan=monkey_plan)
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            results = run_comparison(args, configs, sizes, 100, self.out,
                                     self.out)
        return results, said.getvalue()

    def calls(self, name="bin"):
        with open(os.path.join(self.dir, name, "calls.jsonl")) as f:
            return [json.loads(line) for line in f]

    def test_loads_first_then_rounds_over_the_configurations(self):
        configs = [parse_config("none"), parse_config("monkey:7")]
        results, said = self.run_it(configs, [1000, 2000], 2)
        order = [("load" if "--benchmarks=fillrandom,flush,compact0,"
                  "waitforcompaction" in c else "measure",
                  next(a for a in c if a.startswith("--db=")))
                 for c in self.calls()]
        db = [os.path.join(self.out, f"db-{n}-{i}") for n in (1000, 2000)
              for i in (0, 1)]
        self.assertEqual([(p, d[5:]) for p, d in order], [
            ("load", db[0]), ("load", db[1]), ("measure", db[0]),
            ("measure", db[1]), ("measure", db[0]), ("measure", db[1]),
            ("load", db[2]), ("load", db[3]), ("measure", db[2]),
            ("measure", db[3]), ("measure", db[2]), ("measure", db[3])])
        self.assertIn("[12/12] 2,000 keys, monkey:7: measure (round 2 of 2)",
                      said)
        self.assertTrue(os.path.exists(
            os.path.join(self.out, "2000-1-measure-2.log")))
        self.assertEqual([(r["num"], r["config"]["label"]) for r in results],
                         [(1000, "none"), (1000, "monkey:7"),
                          (2000, "none"), (2000, "monkey:7")])
        # monkey:7 gets its filter; none gets no --filter_uri.
        self.assertIn("--filter_uri=monkey:7", self.calls()[1])
        self.assertFalse(any(a.startswith("--filter_uri")
                             for a in self.calls()[0]))
        self.assertFalse(any(os.path.exists(d) for d in db))

    def test_medians_of_the_rounds_and_the_reports(self):
        results, _ = self.run_it([parse_config("monkey:7")], [1000], 3,
                                 keep_db=True)
        benchmarks = {b["benchmark"]: b for b in results[0]["benchmarks"]}
        self.assertEqual(benchmarks["fillrandom"]["phase"], "load")
        self.assertEqual(benchmarks["fillrandom"]["ops_per_sec"], 1000)
        self.assertEqual(benchmarks["readmissing"]["ops_per_sec_rounds"],
                         [2000, 3000, 4000])
        self.assertEqual(benchmarks["readmissing"]["ops_per_sec"], 3000)
        self.assertEqual(benchmarks["readrandom"]["p95_micros"], 0.95)
        self.assertEqual(sorted(results[0]["reports"]),
                         ["readmissing", "readrandom"])
        self.assertEqual(len(results[0]["commands"]), 4)
        self.assertTrue(os.path.isdir(os.path.join(self.out, "db-1000-0")))

    def test_deep_runs_its_l0_phase_once_and_keeps_the_trees(self):
        results, said = self.run_it([parse_config("monkey:7")], [1000], 2,
                                    preset="deep")
        phases = [next(a for a in c if a.startswith("--benchmarks="))
                  for c in self.calls()]
        self.assertEqual(len(phases), 4)  # load, L0 files, 2 rounds
        self.assertTrue(phases[1].startswith("--benchmarks=overwrite,flush"))
        self.assertIn("--write_buffer_size=131072", self.calls()[0])
        self.assertIn("[2/4] 1,000 keys, monkey:7: runs", said)
        r = results[0]
        # The L0 phase's overwrites count with the load, not as a round.
        self.assertEqual([b["phase"] for b in r["benchmarks"]
                          if b["benchmark"] == "overwrite"],
                         ["runs"] * DEEP_L0_FILES)
        # Files per level after the L0 phase (the DB's 2nd run) and after
        # the last round (its 4th).
        self.assertEqual(r["trees"], {
            "runs": [{"level": 6, "files": 2, "mb": 1}],
            "measure": [{"level": 6, "files": 4, "mb": 2}]})

    def fake_monkey_plan(self):
        path = os.path.join(self.dir, "bin", "monkey_plan")
        with open(path, "w") as f:
            f.write(FAKE_MONKEY_PLAN.format(python=sys.executable))
        os.chmod(path, 0o755)
        return path

    def test_universal_tops_up_from_the_loads_tree_and_asks_the_advisor(self):
        plan = self.fake_monkey_plan()
        results, said = self.run_it([parse_config("monkey:10")], [1000], 2,
                                    preset="universal", monkey_plan=plan)
        calls = self.calls()
        phases = [next(a for a in c if a.startswith("--benchmarks="))
                  for c in calls]
        self.assertEqual(len(phases), 4)  # load, runs, 2 rounds
        self.assertIn("--compaction_style=1", calls[0])
        # The fake's load leaves one run (L6): the runs phase adds the rest.
        self.assertEqual(phases[1], "--benchmarks=" + ",".join(
            ["overwrite,flush"] * (UNIVERSAL_RUNS_AT_REST - 1))
            + ",levelstats")
        self.assertIn(f"--writes={UNIVERSAL_L0_FILE_KEYS}", calls[1])
        self.assertIn("[2/4] 1,000 keys, monkey:10: runs", said)
        # The fake's measured tree has one run: said loudly, each round.
        self.assertEqual(said.count("compare: WARNING: 1,000 keys, monkey:10: "
                                    "measure"), 2)
        self.assertIn("only 1 sorted runs at rest, the preset wants >= 8",
                      said)
        # The advisor ran once, on the DB before it was deleted.
        with open(os.path.join(self.dir, "bin", "plans.txt")) as f:
            self.assertEqual(f.read().split(),
                             [os.path.join(self.out, "db-1000-0"), "True"])
        self.assertEqual(results[0]["advice"], {
            "name": "default", "sum_fpr_now": 0.1,
            "same_bytes": {"sum_fpr": 0.08}})
        self.assertEqual(results[0]["ticker_fp_per_lookup"], [None, None])

    def test_no_advisor_outside_universal_or_without_monkey_plan(self):
        plan = self.fake_monkey_plan()
        results, _ = self.run_it([parse_config("monkey:7")], [1000], 1,
                                 monkey_plan=plan)
        self.assertNotIn("advice", results[0])
        results, said = self.run_it([parse_config("monkey:7")], [1000], 1,
                                    preset="universal")
        self.assertNotIn("advice", results[0])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bin",
                                                     "plans.txt")))

    def test_a_failed_advisor_is_kept_as_its_error(self):
        plan = self.fake_monkey_plan()
        os.environ["FAKE_PLAN_FAIL"] = "1"
        self.addCleanup(os.environ.pop, "FAKE_PLAN_FAIL")
        advice = advise(plan, self.out)
        self.assertEqual(advice, {"error": "monkey_plan exit 3: not a "
                                           "database"})

    def test_ticker_fp_per_lookup(self):
        reports = {"readmissing": {"lookups": 200}}
        tickers = {"rocksdb.bloom.filter.full.positive": 30,
                   "rocksdb.bloom.filter.full.true.positive": 10}
        self.assertEqual(ticker_fp_per_lookup(reports, tickers), 0.1)
        self.assertIsNone(ticker_fp_per_lookup({}, tickers))
        del tickers["rocksdb.bloom.filter.full.true.positive"]
        self.assertIsNone(ticker_fp_per_lookup(reports, tickers))

    def test_builds_run_their_own_db_bench(self):
        configs = with_builds([parse_config("monkey:7")],
                              ["fork=" + self.fakes[1]])
        self.run_it(configs, [1000], 1)
        self.assertEqual(len(self.calls("bin")), 2)
        self.assertEqual(len(self.calls("fork")), 2)
        self.assertEqual(self.calls("fork")[0][0], self.fakes[1])

    def test_a_failed_run_stops_with_its_log(self):
        os.environ["FAKE_FAIL"] = "1"
        self.addCleanup(os.environ.pop, "FAKE_FAIL")
        with self.assertRaises(SystemExit) as e:
            self.run_it([parse_config("monkey:7")], [1000], 1)
        self.assertIn("compare: db_bench failed (3); log "
                      + os.path.join(self.out, "1000-0-load.log"),
                      str(e.exception.code))
        self.assertIn("Invalid argument: a reason", str(e.exception.code))

    def test_block_loads_per_operation(self):
        reports = {"insertunique": {
            "lookups": 100, "block_cache_filter_bytes_insert": 5000,
            "filter_cache_bytes": 300, "filter_cache_source": "block_cache"}}
        tickers = {"rocksdb.block.cache.data.bytes.insert": 80000}
        self.assertEqual(block_loads(reports, tickers, 1000),
                         {"filter_bytes_per_op": 50,
                          "data_bytes_per_op": 800,
                          "filter_cache_share": 0.3})
        reports["insertunique"]["filter_cache_source"] = "table_readers"
        self.assertIsNone(block_loads(reports, {}, 1000)["filter_cache_share"])
        self.assertIsNone(block_loads({}, tickers, 1000))

    def test_median_of_rounds(self):
        rounds = [[{"benchmark": "r", "ops_per_sec": v, "p95_micros": None,
                    "micros_per_op": 1.0}] for v in (5, 1, 3, 9)]
        merged = median_of_rounds(rounds)
        self.assertEqual(merged[0]["ops_per_sec"], 4)
        self.assertIsNone(merged[0]["p95_micros"])
        self.assertEqual(median_of_rounds([]), [])


if __name__ == "__main__":
    unittest.main()
