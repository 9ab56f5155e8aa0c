#!/usr/bin/python3
# Tests of the write-tax benchmark (bench/writetax.py,
# bench/comparison/writetax.py): its flags, the db_bench command lines of
# each workload, the parsing of db_bench's output, the summary and table,
# and whole runs with a stand-in db_bench. Deterministic: no timing, no real
# benchmark.

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

from testing import SOURCE_ROOT
from comparison import writetax
from comparison.specs import parse_config
from comparison.spread import NO_DIFFERENCE

WRITETAX = os.path.join(SOURCE_ROOT, "bench", "writetax.py")

# db_bench 7.8.3's report line (db_bench_tool.cc, Stats::Report), its
# carriage-return progress and its --statistics dump.
REAL_OUTPUT = (
    "WARNING: Assertions are enabled; benchmarks unnecessarily slow\n"
    "... finished 100000 ops\r... finished 200000 ops\r"
    "overwrite    :      16.000 micros/op 62500 ops/sec 9.000 seconds "
    "562500 operations;    6.9 MB/s\n"
    "deleterandom :       8.000 micros/op 125000 ops/sec 0.500 seconds "
    "62500 operations;\n"
    "overwrite    :      16.000 micros/op 62500 ops/sec 9.000 seconds "
    "562500 operations;    6.9 MB/s\n"
    "deleterandom :       8.000 micros/op 125000 ops/sec 0.500 seconds "
    "62500 operations;\n"
    "flush        :       0.000 micros/op 0 ops/sec 0.010 seconds "
    "1 operations;\n"
    "STATISTICS:\n"
    "rocksdb.block.cache.miss COUNT : 12\n"
    "rocksdb.stall.micros COUNT : 81234\n")

# Prints db_bench's lines for each benchmark of --benchmarks: ops/s 10,000
# for bloomfilter, 9,000 for monkey:10 (Install), and 9,800 or 10,300 in
# turn for shape=static; stall 1 ms, 2 ms for monkey:10. Appends its
# command to calls.jsonl. An overwrite on a DB no fillrandom loaded fails.
FAKE_DB_BENCH = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    flags = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
    here = os.path.dirname(sys.argv[0])
    with open(os.path.join(here, "calls.jsonl"), "a") as f:
        f.write(json.dumps(sys.argv) + "\\n")
    uri = flags.get("filter_uri", "")
    counter = os.path.join(here, "count-" + uri.replace("/", "_"))
    calls = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    open(counter, "w").write(str(calls))
    rate = 10000
    if "shape=static" in uri:
        rate = 9800 if calls % 2 else 10300
    elif "monkey" in uri:
        rate = 9000
    db = flags["db"]
    os.makedirs(db, exist_ok=True)
    loaded = os.path.join(db, "loaded")
    if flags.get("use_existing_db") == "1" and not os.path.exists(loaded):
        print("no loaded DB at " + db)
        sys.exit(2)
    print("WARNING: Assertions are enabled; benchmarks unnecessarily slow")
    threads = int(flags.get("threads", 1))
    for name in flags["benchmarks"].split(","):
        if name in ("flush", "waitforcompaction"):
            continue
        if name == "deleterandom":
            ops = int(flags["deletes"])
        elif "writes" in flags:
            ops = int(flags["writes"])
        else:
            ops = int(flags["num"])
        ops *= threads
        if name == "fillrandom" and flags.get("use_existing_db") != "1":
            open(loaded, "w").write(flags["num"])
        print(f"... finished {{ops}} ops\\r", end="")
        print(f"{{name:<12}} : {{1e6 / rate:11.3f}} micros/op {{rate}} "
              f"ops/sec {{ops / rate:.3f}} seconds {{ops}} operations;")
    print("STATISTICS:")
    stall = 2000 if "monkey" in uri and "static" not in uri else 1000
    print(f"rocksdb.stall.micros COUNT : {{stall}}")
    """)


def run_tool(*args):
    return subprocess.run([sys.executable, WRITETAX, *args],
                          capture_output=True, text=True)


class ArgsTest(unittest.TestCase):
    def test_defaults(self):
        a = writetax.parse_args(["--db_bench=x"])
        self.assertEqual((a.rounds, a.seconds, a.quick), (5, 10.0, False))
        self.assertEqual(a.workloads, writetax.WORKLOADS)
        self.assertEqual([c["label"] for c in a.configs],
                         ["bloomfilter:10", "monkey:10", "monkey:10/static"])
        self.assertEqual(a.configs[2]["filter_uri"],
                         "id=monkey;bits_per_key=10;shape=static")
        self.assertEqual(a.preload_keys, writetax.PRELOAD_KEYS)
        self.assertIsNone(a.ops)

    def test_quick_and_overrides(self):
        a = writetax.parse_args(["--db_bench=x", "--quick"])
        self.assertEqual((a.rounds, a.seconds, a.preload_keys),
                         (2, 2.0, 50000))
        a = writetax.parse_args(["--db_bench=x", "--quick", "--rounds=3",
                                 "--seconds=0.5",
                                 "--workloads=fillseq,overwrite_delete",
                                 "--config=a=bloomfilter:10",
                                 "--config=b=monkey:7 --max_background_jobs=4"])
        self.assertEqual((a.rounds, a.seconds), (3, 0.5))
        self.assertEqual(a.workloads, ["fillseq", "overwrite_delete"])
        self.assertEqual(a.configs[1], parse_config(
            "b=monkey:7 --max_background_jobs=4"))

    def test_bad_arguments(self):
        for bad, says in (
                (["--rounds=0"], "--rounds must be at least 1"),
                (["--seconds=0"], "--seconds must be positive"),
                (["--ops=5"], "--ops must be at least 10"),
                (["--workloads=fillrandom,readrandom"],
                 "unknown workload readrandom"),
                (["--config=bloomfilter:10", "--config=bloomfilter:10"],
                 "same label")):
            err = io.StringIO()
            with self.subTest(bad=bad), contextlib.redirect_stderr(err), \
                    self.assertRaises(SystemExit) as exit:
                writetax.parse_args(["--db_bench=x"] + bad)
            self.assertEqual(exit.exception.code, 2)
            self.assertIn(says, err.getvalue())

    def test_help_and_required_db_bench(self):
        run = run_tool("--help")
        self.assertEqual(run.returncode, 0, run.stderr)
        for flag in ("--db_bench", "--rounds", "--seconds", "--quick",
                     "--workloads", "--config", "--ops", "--preload_keys",
                     "--results", "--db_dir", "--keep_db"):
            self.assertIn(flag, run.stdout)
        run = run_tool("--quick")
        self.assertEqual(run.returncode, 2)
        self.assertIn("--db_bench", run.stderr)

    def test_compare_sh_dispatches_the_preset(self):
        with open(os.path.join(SOURCE_ROOT, "tools", "compare.sh")) as f:
            script = f.read()
        self.assertIn("--preset=writetax) writetax=1", script)
        self.assertIn('bench/writetax.py --db_bench="$db_bench" "$@"',
                      script)


class FlagsTest(unittest.TestCase):
    def test_fills(self):
        self.assertEqual(
            writetax.measure_flags("fillseq", 5000, 9),
            ["--benchmarks=fillseq,flush,waitforcompaction", "--num=5000",
             "--threads=1", "--seed=1"])
        self.assertEqual(
            writetax.measure_flags("fillrandom", 5000, 9)[:2],
            ["--benchmarks=fillrandom,flush,waitforcompaction",
             "--num=5000"])

    def test_four_threads_share_the_operations(self):
        flags = writetax.measure_flags("fillrandom_4t", 10001, 9)
        self.assertIn("--threads=4", flags)
        self.assertIn("--writes=2501", flags)  # per thread
        self.assertIn("--num=10004", flags)    # the key space

    def test_overwrite_with_deletes(self):
        flags = writetax.measure_flags("overwrite_delete", 100000, 4000)
        benchmarks = flags[0].split("=", 1)[1].split(",")
        self.assertEqual(benchmarks[:2], ["overwrite", "deleterandom"])
        self.assertEqual(benchmarks.count("overwrite"), writetax.SLICES)
        self.assertEqual(benchmarks.count("deleterandom"), writetax.SLICES)
        self.assertEqual(benchmarks[-2:], ["flush", "waitforcompaction"])
        self.assertIn("--use_existing_db=1", flags)
        self.assertIn("--num=4000", flags)
        self.assertIn("--writes=9000", flags)  # 9:1 in each slice
        self.assertIn("--deletes=1000", flags)
        self.assertIn("--seed=2", flags)       # not the preload's keys
        self.assertEqual(writetax.preload_flags(4000)[:2],
                         ["--benchmarks=fillrandom,flush,waitforcompaction",
                          "--num=4000"])

    def test_sizing_and_order(self):
        self.assertEqual(writetax.ops_for(10000, 10), 140000)
        self.assertEqual(writetax.ops_for(1, 1), 1000)
        self.assertEqual(writetax.rotated([1, 2, 3], 0), [1, 2, 3])
        self.assertEqual(writetax.rotated([1, 2, 3], 4), [2, 3, 1])


class ParseTest(unittest.TestCase):
    def test_mixed_phases_add_up(self):
        ops, seconds, rate = writetax.measured_ops("overwrite_delete",
                                                   REAL_OUTPUT)
        self.assertEqual(ops, 1250000)
        self.assertAlmostEqual(seconds, 19.0)
        self.assertAlmostEqual(rate, 1250000 / 19.0)
        self.assertIsNone(writetax.measured_ops("fillrandom", REAL_OUTPUT))

    def test_tickers(self):
        from comparison.parse import parse_tickers
        self.assertEqual(parse_tickers(REAL_OUTPUT)[writetax.STALL], 81234)


def run_record(workload, config, rnd, rate, stall, user=1.0, seconds=12.0):
    return {"workload": workload, "config": config, "round": rnd,
            "ops_per_sec": rate, "stall_micros": stall, "user_cpu_s": user,
            "seconds": seconds}


class SummaryTest(unittest.TestCase):
    def test_ratios_stall_and_table(self):
        configs = [parse_config(c) for c in writetax.CONFIGS]
        runs = []
        for rnd, (bloom, monkey, static) in enumerate(
                [(100, 90, 98), (110, 100, 112), (90, 85, 91)]):
            runs.append(run_record("fillseq", "bloomfilter:10", rnd, bloom,
                                   4000))
            runs.append(run_record("fillseq", "monkey:10", rnd, monkey,
                                   90000, seconds=9.0 if rnd == 1 else 12))
            runs.append(run_record("fillseq", "monkey:10/static", rnd,
                                   static, 5000))
        summary = writetax.summarize(runs, configs, ["fillseq"], 10)
        monkey = summary["fillseq"]["monkey:10"]
        self.assertAlmostEqual(monkey["ratio_median"], 100 / 110)
        self.assertAlmostEqual(monkey["ratio_min"], 0.9)
        self.assertAlmostEqual(monkey["ratio_max"], 85 / 90)
        self.assertEqual(monkey["ops_per_sec"]["median"], 90)
        self.assertAlmostEqual(monkey["stall_vs_baseline"], 22.5)
        self.assertEqual(monkey["short_phases"], [2])
        static = summary["fillseq"]["monkey:10/static"]
        self.assertTrue(static["ratio"].startswith(NO_DIFFERENCE))
        self.assertFalse(monkey["ratio"].startswith(NO_DIFFERENCE))
        self.assertTrue(monkey["ratio"].startswith("0.91x (0.90-0.94x over 3 rounds)"),
                        monkey["ratio"])
        text = writetax.table(summary, configs, {"fillseq": {"ops": 1000}})
        self.assertIn("fillseq: fillseq, 1 thread, fresh DB; 1,000 "
                      "operations a phase; phases 9.0-12.0 s", text)
        self.assertIn("90 (85-100)", text)          # monkey's ops/s
        self.assertIn("90 (90-90)", text)           # its stall ms
        self.assertIn("22.50x", text)
        self.assertIn("shorter than --seconds: monkey:10 round 2\n", text + "\n")
        bars = writetax.bar_lines(summary, configs)
        self.assertIn("monkey:10 vs bloomfilter:10", bars[0])
        self.assertIn("misses (fillseq ops/s 0.909x; fillseq stall 22.50x)",
                      bars[0])
        self.assertIn("monkey:10/static", bars[1])
        self.assertIn("misses (fillseq stall 1.25x)", bars[1])


class RunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.fake = os.path.join(self.dir, "bin", "db_bench")
        os.makedirs(os.path.dirname(self.fake))
        with open(self.fake, "w") as f:
            f.write(FAKE_DB_BENCH.format(python=sys.executable))
        os.chmod(self.fake, 0o755)
        self.results = os.path.join(self.dir, "results")
        self.dbs = os.path.join(self.dir, "dbs")

    def calls(self):
        with open(os.path.join(self.dir, "bin", "calls.jsonl")) as f:
            return [json.loads(line) for line in f]

    def saved(self):
        (stamp,) = os.listdir(self.results)
        self.assertTrue(stamp.endswith("-writetax"), stamp)
        out = os.path.join(self.results, stamp)
        with open(os.path.join(out, "results.json")) as f:
            return out, json.load(f)

    def test_fixed_operations(self):
        run = run_tool("--db_bench=" + self.fake, "--quick", "--ops=1000",
                       "--rounds=3", "--results=" + self.results,
                       "--db_dir=" + self.dbs)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # 4 workloads x 3 configurations x 3 rounds, 3 preloads.
        self.assertIn("[39/39] overwrite_delete, monkey:10: round 3 of 3",
                      run.stdout)
        self.assertIn("preload 50,000 keys", run.stdout)
        self.assertNotIn("calibration", run.stdout)
        calls = self.calls()
        self.assertEqual(len(calls), 39)
        uris = [next(a for a in c if a.startswith("--filter_uri="))
                .split("=", 1)[1] for c in calls[:9]]
        # The rounds rotate the order.
        self.assertEqual(uris[:6], [
            "bloomfilter:10", "monkey:10",
            "id=monkey;bits_per_key=10;shape=static", "monkey:10",
            "id=monkey;bits_per_key=10;shape=static", "bloomfilter:10"])
        self.assertTrue(all("--statistics" in c for c in calls))
        self.assertTrue(all("--write_buffer_size=131072" in c
                            for c in calls))
        out, saved = self.saved()
        self.assertEqual(len(saved["runs"]), 36)
        self.assertTrue(saved["meta"]["assertions_enabled"])
        fr = saved["summary"]["fillrandom"]
        self.assertAlmostEqual(fr["monkey:10"]["ratio_median"], 0.9)
        self.assertEqual(fr["monkey:10"]["stall_micros"]["median"], 2000)
        self.assertTrue(fr["monkey:10/static"]["ratio"]
                        .startswith(NO_DIFFERENCE))
        od = saved["summary"]["overwrite_delete"]["bloomfilter:10"]
        self.assertEqual(saved["runs"][-1]["ops"], 1000)  # 900 + 100
        self.assertEqual(od["ops_per_sec"]["median"], 10000)
        with open(os.path.join(out, "table.txt")) as f:
            table = f.read()
        self.assertIn("\n" + table.split("\n\n")[0], run.stdout)
        self.assertIn("fillrandom_4t: fillrandom, 4 threads", table)
        self.assertIn("assertions are enabled", table)
        self.assertIn("monkey:10 vs bloomfilter:10, bar median ops/s >= "
                      "0.99x and stall <= 1.2x on every workload: misses",
                      table)
        self.assertTrue(os.path.exists(os.path.join(
            out, "overwrite_delete-0-preload.log")))
        self.assertFalse(os.path.exists(os.path.join(self.dbs, "run")))

    def test_calibration(self):
        run = run_tool("--db_bench=" + self.fake, "--quick", "--rounds=1",
                       "--seconds=30", "--workloads=fillseq",
                       "--results=" + self.results, "--db_dir=" + self.dbs)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # The first probe lasts 10 s at 10,000 ops/s, under half of 30 s:
        # a second one lasts 15 s, and a phase 30 s x 1.4.
        self.assertIn("[1/5] fillseq, bloomfilter:10: calibration, 100,000 "
                      "operations", run.stdout)
        self.assertIn("calibration: 10,000 ops/s over 10.0 s, shorter than "
                      "half of 30 s: again with 150,000", run.stdout)
        self.assertIn("[2/5] fillseq, bloomfilter:10: calibration, 150,000 "
                      "operations", run.stdout)
        self.assertIn("calibration: 10,000 ops/s; 420,000 operations a "
                      "phase for 30 s", run.stdout)
        self.assertIn("[5/5] fillseq, monkey:10/static: round 1 of 1",
                      run.stdout)
        self.assertIn("--num=420000", self.calls()[-1])
        out, saved = self.saved()
        self.assertEqual(saved["workloads"]["fillseq"]["ops"], 420000)
        self.assertEqual([p["ops"] for p in
                          saved["workloads"]["fillseq"]["calibration"]],
                         [100000, 150000])
        self.assertEqual(saved["runs"][0]["seconds"], 42.0)
        self.assertTrue(os.path.exists(os.path.join(
            out, "fillseq-calibration2.log")))

        shutil.rmtree(self.results)
        run = run_tool("--db_bench=" + self.fake, "--quick", "--rounds=1",
                       "--seconds=3", "--workloads=fillrandom",
                       "--results=" + self.results, "--db_dir=" + self.dbs)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # 25,000 operations last 2.5 s, enough for 3 s: one probe.
        self.assertIn("calibration: 10,000 ops/s; 42,000 operations a "
                      "phase for 3 s", run.stdout)
        self.assertIn("[4/4] fillrandom, monkey:10/static: round 1 of 1",
                      run.stdout)

    def test_another_build_side_by_side(self):
        other = os.path.join(self.dir, "bin2", "db_bench")
        os.makedirs(os.path.dirname(other))
        shutil.copy(self.fake, other)
        run = run_tool("--db_bench=" + self.fake, "--also_db_bench=b=" + other,
                       "--config=bloomfilter:10", "--config=monkey:10",
                       "--quick", "--ops=1000", "--rounds=2",
                       "--workloads=fillseq", "--results=" + self.results,
                       "--db_dir=" + self.dbs)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        # Each configuration, then the same with the other build.
        self.assertIn("4 configurations, against bloomfilter:10: "
                      "bloomfilter:10, bloomfilter:10@b, monkey:10, "
                      "monkey:10@b", run.stdout)
        self.assertEqual(len(self.calls()), 4)
        with open(os.path.join(self.dir, "bin2", "calls.jsonl")) as f:
            others = [json.loads(line) for line in f]
        self.assertEqual(len(others), 4)
        self.assertTrue(all(c[0] == other for c in others))
        _, saved = self.saved()
        fillseq = saved["summary"]["fillseq"]
        self.assertAlmostEqual(fillseq["monkey:10@b"]["ratio_median"], 0.9)
        self.assertAlmostEqual(fillseq["bloomfilter:10@b"]["ratio_median"],
                               1.0)
        run = run_tool("--db_bench=" + self.fake, "--also_db_bench=b=/none",
                       "--ops=1000", "--results=" + self.results)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("no db_bench at /none (--also_db_bench=b=...)",
                      run.stderr)

    def test_bad_db_bench_and_preload(self):
        run = run_tool("--db_bench=" + self.fake, "--ops=1000",
                       "--workloads=overwrite_delete", "--preload_keys=0",
                       "--results=" + self.results)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--preload_keys must be positive", run.stderr)
        run = run_tool("--db_bench=" + os.path.join(self.dir, "none"))
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("no db_bench at", run.stderr)


if __name__ == "__main__":
    unittest.main()
