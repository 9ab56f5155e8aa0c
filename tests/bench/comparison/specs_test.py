#!/usr/bin/python3
# Tests of bench/comparison/specs.py: configuration specs, --also_db_bench
# builds, the phases of each preset and the order of the runs.

import os
import unittest

import testing  # noqa: F401  (the import path)
from comparison import specs


class SpecsTest(unittest.TestCase):
    def test_parse_config(self):
        c = specs.parse_config("monkey:7")
        self.assertEqual((c["label"], c["filter_uri"], c["flags"]),
                         ("monkey:7", "monkey:7", []))
        c = specs.parse_config(
            "bloomfilter:10+hits=bloomfilter:10 --optimize_filters_for_hits=1")
        self.assertEqual(c["label"], "bloomfilter:10+hits")
        self.assertEqual(c["filter_uri"], "bloomfilter:10")
        self.assertEqual(c["flags"], ["--optimize_filters_for_hits=1"])
        c = specs.parse_config("id=monkey;bits_per_key=8")
        self.assertEqual((c["label"], c["filter_uri"]),
                         ("id=monkey;bits_per_key=8",) * 2)
        c = specs.parse_config("m8=id=monkey;bits_per_key=8")
        self.assertEqual((c["label"], c["filter_uri"]),
                         ("m8", "id=monkey;bits_per_key=8"))
        c = specs.parse_config("none")
        self.assertEqual((c["label"], c["filter_uri"]), ("none", ""))

    def test_every_preset_config_parses_to_a_distinct_label(self):
        for name, preset in specs.PRESETS.items():
            labels = [specs.parse_config(c)["label"]
                      for c in preset["configs"]]
            self.assertEqual(len(labels), len(set(labels)), name)

    def test_builds_are_crossed(self):
        configs = specs.with_builds(
            [specs.parse_config("none"), specs.parse_config("monkey:7")],
            ["release=/fork/db_bench"])
        self.assertEqual([c["label"] for c in configs],
                         ["none", "none@release", "monkey:7",
                          "monkey:7@release"])
        self.assertEqual(configs[3]["db_bench"], "/fork/db_bench")
        self.assertEqual(configs[3]["filter_uri"], "monkey:7")
        self.assertEqual(configs[3]["base_label"], "monkey:7")
        self.assertNotIn("db_bench", configs[2])
        with self.assertRaises(SystemExit):
            specs.with_builds(configs, ["no-path"])

    def test_phases_load_then_measure(self):
        phases = specs.workload_phases("default", 1000, 400, 2, 1 << 20)
        self.assertEqual([(p, ops) for p, _, ops in phases],
                         [("load", 1000), ("measure", 400)])
        load, measure = phases[0][1], phases[1][1]
        self.assertIn(f"--benchmarks=fillrandom,{specs.SETTLE}", load)
        self.assertIn("--reads=200", measure)  # per thread
        self.assertIn("--use_existing_db=1", measure)
        tdstore = specs.workload_phases("tdstore", 1000, 400, 1, 12345)
        self.assertIn("--benchmarks=insertunique", tdstore[1][1])
        self.assertIn("--cache_size=12345", tdstore[1][1])

    def test_deep_adds_its_l0_files_before_the_measurement(self):
        phases = specs.workload_phases("deep", 2500, 400, 1, 1 << 20)
        self.assertEqual([p for p, _, _ in phases],
                         ["load", "runs", "measure"])
        runs = phases[1][1]
        benchmarks = next(a for a in runs if a.startswith("--benchmarks="))
        self.assertEqual(benchmarks.count("overwrite,flush"),
                         specs.DEEP_L0_FILES)
        self.assertTrue(benchmarks.endswith(",levelstats"))
        self.assertIn(f"--writes={specs.DEEP_L0_FILE_KEYS}", runs)
        self.assertIn("--use_existing_db=1", runs)
        self.assertIn("--benchmarks=readmissing,levelstats", phases[2][1])
        # Fewer L0 files than the tree's compaction trigger: none compacted
        # before the measurement.
        trigger = next(int(f.split("=")[1]) for f in specs.DEEP_TREE_FLAGS
                       if f.startswith("--level0_file_num_compaction_trigger="))
        self.assertLess(specs.DEEP_L0_FILES, trigger)

    def test_memlimit_caches_filters_without_direct_reads(self):
        phases = specs.workload_phases("memlimit", 1000, 400, 4, 4096)
        measure = phases[1][1]
        self.assertIn("--benchmarks=insertunique", measure)
        self.assertIn("--threads=4", measure)
        self.assertIn("--num=100", measure)  # per thread
        self.assertIn("--cache_size=4096", measure)
        self.assertIn("--cache_index_and_filter_blocks=true", measure)
        # The page cache serves the reads, as in TDStore's test.
        self.assertNotIn("--use_direct_reads=true", measure)
        self.assertIn("--use_direct_reads=true",
                      specs.workload_phases("tdstore", 1000, 400, 1, 1)[1][1])
        self.assertIn("--target_file_size_base=33554432",
                      specs.tree_flags("memlimit"))

    def test_partitioned_configurations(self):
        configs = specs.partitioned(
            [specs.parse_config(c) for c in specs.MEMLIMIT_PARTITIONED_CONFIGS])
        self.assertEqual([c["label"] for c in configs],
                         ["fixed10", "monkey10", "monkey7", "bloomfilter:10"])
        for c in configs:
            self.assertTrue(specs.is_partitioned(c))
            self.assertEqual(c["flags"][-3:], specs.PARTITIONED_FLAGS)
        # fixed10 keeps its own flag.
        self.assertIn("--optimize_filters_for_hits=true", configs[0]["flags"])
        self.assertFalse(specs.is_partitioned(specs.parse_config("monkey:7")))

    def test_db_dir_for_a_preset(self):
        self.assertEqual(specs.db_dir_for("default", "x", "/out"), "/out")
        shm = specs.PRESETS["deep"]["db_dir"]
        path = specs.db_dir_for("deep", f"specs-test-{os.getpid()}", "/out")
        if os.access(shm, os.W_OK):
            self.addCleanup(os.rmdir, path)
            self.assertEqual(os.path.dirname(path), shm)
            self.assertTrue(os.path.isdir(path))
        else:
            self.assertEqual(path, "/out")

    def test_tree_flags_by_preset(self):
        self.assertIs(specs.tree_flags("default"), specs.TREE_FLAGS)
        deep = specs.tree_flags("deep")
        self.assertIn("--max_bytes_for_level_multiplier=10", deep)
        self.assertIn("--level_compaction_dynamic_level_bytes=true", deep)
        labels = [specs.parse_config(c)["label"]
                  for c in specs.PRESETS["deep"]["configs"]]
        self.assertEqual(labels, ["fixed10", "monkey10", "monkey7",
                                  "bloomfilter:10", "monkey:10"])

    def test_universal_runs_universal_compaction_on_the_issues_configs(self):
        flags = specs.tree_flags("universal")
        self.assertIn("--compaction_style=1", flags)
        self.assertNotIn("--level_compaction_dynamic_level_bytes=true", flags)
        self.assertEqual([specs.parse_config(c)["label"]
                          for c in specs.PRESETS["universal"]["configs"]],
                         ["bloomfilter:10", "monkey:10", "monkey:7"])

        def flag(name):
            return int(next(f.split("=")[1] for f in flags
                            if f.startswith(f"--{name}=")))
        # A tree at rest holds fewer runs than the trigger (the picker
        # merges at the trigger), and the top-up stops one short of it.
        self.assertEqual(specs.UNIVERSAL_RUNS_AT_REST,
                         flag("level0_file_num_compaction_trigger") - 1)
        self.assertGreaterEqual(specs.UNIVERSAL_RUNS_AT_REST,
                                specs.UNIVERSAL_MIN_RUNS)
        self.assertEqual(specs.UNIVERSAL_MIN_RUNS, 8)
        # An added L0 file's keys fit in one memtable, with room to spare
        # for the memtable's own overhead: one flush, one file.
        self.assertLess(2 * specs.UNIVERSAL_L0_FILE_KEYS
                        * (flag("key_size") + flag("value_size")),
                        flag("write_buffer_size"))

    def test_universal_tops_the_load_up_to_its_runs_at_rest(self):
        phases = specs.workload_phases("universal", 5000, 400, 2, 1 << 20)
        self.assertEqual([(p, ops) for p, _, ops in phases],
                         [("load", 5000), ("runs", None), ("measure", 400)])
        load, top_up, measure = (f for _, f, _ in phases)
        # compact0 would merge the L0 runs.
        self.assertIn("--benchmarks=fillrandom,flush,waitforcompaction,"
                      "levelstats", load)
        self.assertIn("--benchmarks=readmissing,levelstats", measure)
        self.assertIn("--reads=200", measure)  # per thread
        # The load left 4 L0 files over L3 and L6: 6 runs, 5 to add.
        tree = [{"level": 0, "files": 4, "mb": 6},
                {"level": 3, "files": 1, "mb": 14},
                {"level": 6, "files": 2, "mb": 60}]
        flags = top_up({"load": tree})
        self.assertIn("--benchmarks=" + ",".join(["overwrite,flush"] * 5)
                      + ",levelstats", flags)
        self.assertIn(f"--writes={specs.UNIVERSAL_L0_FILE_KEYS}", flags)
        self.assertIn("--use_existing_db=1", flags)
        self.assertIn("--num=5000", flags)
        # A tree at its runs at rest gets none, only its levelstats.
        full = [{"level": 0, "files": specs.UNIVERSAL_RUNS_AT_REST - 1,
                 "mb": 9}, {"level": 6, "files": 1, "mb": 60}]
        self.assertIn("--benchmarks=levelstats", top_up({"load": full}))
        with self.assertRaises(SystemExit):
            top_up({})

    def test_schedule_runs_each_load_once_and_each_measure_per_round(self):
        phases = [("load", ["a"], 1), ("measure", ["b"], 2)]
        self.assertEqual(specs.schedule(phases, 3),
                         [(0, "load", ["a"], 1), (0, "measure", ["b"], 2),
                          (1, "measure", ["b"], 2), (2, "measure", ["b"], 2)])
        # By name, not by position.
        two = [("load", ["a"], 1), ("load", ["c"], 1), ("measure", ["b"], 2)]
        self.assertEqual([p for _, p, _, _ in specs.schedule(two, 2)],
                         ["load", "load", "measure", "measure"])


if __name__ == "__main__":
    unittest.main()
