// Tests of fpr_check's deterministic tree (tools/fpr_check/tree.cc).
#include "monkey/tools/fpr_check/tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <thread>
#include <tuple>
#include <vector>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/test_util.h"
#include "monkey/tools/fpr_check/baseline.h"
#include "rocksdb/table.h"

namespace monkey::fpr_check {
namespace {

TreeSpec Small() {
  TreeSpec spec;
  spec.num = 20000;
  spec.levels = 4;
  spec.probes = 20000;
  return spec;
}

// 20,000 keys in 24 flushes under universal compaction, 4 levels.
TreeSpec UniversalSmall() {
  TreeSpec spec = Small();
  spec.compaction_style = "universal";
  return spec;
}

void Quiet(const std::string&) {}

struct Built {
  Result result;
  // (level, entries, filter bytes) of every file.
  std::vector<std::tuple<int, uint64_t, uint64_t>> files;
};

// A listener ahead of Monkey's that lets DB::Flush() return before Monkey's
// OnFlushCompleted has run, as RocksDB may: it calls the callbacks after
// committing the flush, and Flush(), unless FlushOptions::listener_wait
// (11.8+), returns as soon as anything wakes its wait after the commit. Here
// that is EnableFileDeletions(), which signals it; then the callback is held
// up.
class LateFlushListener : public ROCKSDB_NAMESPACE::EventListener {
 public:
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB* db,
                        const ROCKSDB_NAMESPACE::FlushJobInfo&) override {
    EXPECT_TRUE(db->DisableFileDeletions().ok());
    EXPECT_TRUE(db->EnableFileDeletions().ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
};

Built BuildAndMeasure(const TreeSpec& spec, const std::string& uri,
                      const std::string& path,
                      bool late_flush_callbacks = false) {
  ROCKSDB_NAMESPACE::Options options;
  Install(uri, &options);
  if (late_flush_callbacks) {
    options.listeners.insert(options.listeners.begin(),
                             std::make_shared<LateFlushListener>());
  }
  MakeDeterministic(spec, &options);
  options.max_background_jobs = 4;  // background threads must not matter
  Built built;
  ROCKSDB_NAMESPACE::Status s = BuildTree(spec, options, path, Quiet);
  EXPECT_TRUE(s.ok()) << s.ToString();
  options.create_if_missing = false;
  options.error_if_exists = false;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  s = OpenDB(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return built;
  FilterStatsCollector collector;
  EXPECT_TRUE(ProbeAbsent(spec, db.get(), &collector).ok());
  FilterReport report;
  EXPECT_TRUE(BuildFilterReport(db.get(), collector, "test", &report).ok());
  built.result = FromReport(report, uri, spec);
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  for (const auto& f : files) {
    built.files.emplace_back(f.level, f.num_entries,
                             props.at(f.db_path + f.name)->filter_size);
  }
  std::sort(built.files.begin(), built.files.end());
  return built;
}

TEST(FprCheckTreeTest, LevelsHoldTheirShare) {
  const TreeSpec spec = Small();
  EXPECT_EQ(spec.KeysAt(3), 20000u);
  EXPECT_EQ(spec.KeysAt(2), 2000u);
  EXPECT_EQ(spec.KeysAt(1), 200u);
  EXPECT_EQ(spec.KeysAt(0), 20u);  // per L0 file

  test::TempDir dir;
  const Built built = BuildAndMeasure(spec, "bloomfilter:10", dir.Sub("db"));
  std::map<int, uint64_t> entries, files;
  for (const auto& [level, n, bytes] : built.files) {
    entries[level] += n;
    files[level] += 1;
  }
  EXPECT_EQ(entries[3], 20000u);
  EXPECT_EQ(entries[2], 2000u);
  EXPECT_EQ(entries[1], 200u);
  EXPECT_EQ(entries[0], 40u);
  EXPECT_EQ(files[0], 2u);
  // An absent probe reaches a file's filter when it falls inside the file's
  // key range: with n random keys, (n - 1) / (n + 1) of the key space.
  for (const LevelResult& l : built.result.levels) {
    const double n = l.level == 0 ? spec.KeysAt(0) : spec.KeysAt(l.level);
    const double files = l.level == 0 ? spec.l0_files : 1;
    const double expected = files * spec.probes * (n - 1) / (n + 1);
    EXPECT_NEAR(l.probes, expected, 0.02 * expected) << "L" << l.level;
  }
}

// The same files on the same levels, the same filters and the same false
// positives in every run.
TEST(FprCheckTreeTest, TwoRunsAreIdentical) {
  for (const char* uri : {"monkey:7", "id=monkey;bits_per_key=7;shape=static",
                          "ribbonfilter:10"}) {
    SCOPED_TRACE(uri);
    test::TempDir a, b;
    const Built first = BuildAndMeasure(Small(), uri, a.Sub("db"));
    const Built second = BuildAndMeasure(Small(), uri, b.Sub("db"));
    EXPECT_EQ(first.files, second.files);
    ASSERT_EQ(first.result.levels.size(), second.result.levels.size());
    for (size_t i = 0; i < first.result.levels.size(); ++i) {
      EXPECT_EQ(first.result.levels[i].false_positives,
                second.result.levels[i].false_positives);
      EXPECT_EQ(first.result.levels[i].trials(),
                second.result.levels[i].trials());
    }
  }
}

// The tree does not depend on when the flush callbacks run: the same files
// and filters when Monkey's OnFlushCompleted comes after DB::Flush() has
// returned. Until the listener dropped committed flushes itself, it kept
// counting such a flush as one more L0 run to come, and L1's and L3's filters
// here came out smaller (monkey:7: 389 and 16005 bytes instead of 453 and
// 16133): how TwoRunsAreIdentical can fail, as it once did on RocksDB 11.9,
// when something wakes Flush()'s wait before the callbacks have run.
TEST(FprCheckTreeTest, LateFlushCallbacksChangeNothing) {
  for (const char* uri : {"monkey:7", "ribbonfilter:10"}) {
    SCOPED_TRACE(uri);
    test::TempDir a, b;
    const Built prompt = BuildAndMeasure(Small(), uri, a.Sub("db"));
    const Built late = BuildAndMeasure(Small(), uri, b.Sub("db"), true);
    EXPECT_EQ(prompt.files, late.files);
    ASSERT_EQ(prompt.result.levels.size(), late.result.levels.size());
    for (size_t i = 0; i < prompt.result.levels.size(); ++i) {
      EXPECT_EQ(prompt.result.levels[i].false_positives,
                late.result.levels[i].false_positives);
    }
  }
}

TEST(FprCheckTreeTest, ADifferentSeedGivesDifferentKeys) {
  TreeSpec other = Small();
  other.seed = 302;
  test::TempDir a, b;
  const Built first = BuildAndMeasure(Small(), "bloomfilter:10", a.Sub("db"));
  const Built second = BuildAndMeasure(other, "bloomfilter:10", b.Sub("db"));
  uint64_t fp_first = 0, fp_second = 0;
  for (const auto& l : first.result.levels) fp_first += l.false_positives;
  for (const auto& l : second.result.levels) fp_second += l.false_positives;
  EXPECT_NE(fp_first, fp_second);
}

TEST(FprCheckTreeTest, DeterministicOptionsOverrideTheEngines) {
  ROCKSDB_NAMESPACE::Options options;
  options.num_levels = 0;
  options.disable_auto_compactions = false;
  options.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
  options.wal_dir = "/somewhere/else";
  MakeDeterministic(Small(), &options);
  EXPECT_EQ(options.num_levels, 4);
  EXPECT_TRUE(options.disable_auto_compactions);
  EXPECT_EQ(options.compaction_style, ROCKSDB_NAMESPACE::kCompactionStyleLevel);
  EXPECT_TRUE(options.wal_dir.empty());
  options.num_levels = 7;  // an engine's own setting is kept
  MakeDeterministic(Small(), &options);
  EXPECT_EQ(options.num_levels, 7);
}

// A universal tree takes its compaction options from the spec, num_levels
// too: they make its shape.
TEST(FprCheckTreeTest, UniversalOptionsAreTheSpecs) {
  ROCKSDB_NAMESPACE::Options options;
  options.num_levels = 7;
  options.disable_auto_compactions = false;
  options.level0_file_num_compaction_trigger = 2;
  options.compaction_options_universal.size_ratio = 50;
  options.compaction_options_universal.max_size_amplification_percent = 25;
  options.max_background_jobs = 8;
  TreeSpec spec = UniversalSmall();
  spec.compaction_trigger = 6;
  spec.universal_size_ratio = 3;
  spec.min_merge_width = 4;
  MakeDeterministic(spec, &options);
  EXPECT_EQ(options.compaction_style,
            ROCKSDB_NAMESPACE::kCompactionStyleUniversal);
  EXPECT_EQ(options.num_levels, 4);
  EXPECT_TRUE(options.disable_auto_compactions);  // BuildTree turns them on
  EXPECT_EQ(options.level0_file_num_compaction_trigger, 6);
  EXPECT_EQ(options.compaction_options_universal.size_ratio, 3u);
  EXPECT_EQ(options.compaction_options_universal.min_merge_width, 4u);
  // The others at RocksDB's defaults.
  EXPECT_EQ(options.compaction_options_universal.max_size_amplification_percent,
            ROCKSDB_NAMESPACE::CompactionOptionsUniversal()
                .max_size_amplification_percent);
  EXPECT_EQ(options.max_background_compactions, 1);
  EXPECT_EQ(options.max_subcompactions, 1u);
}

TEST(FprCheckTreeTest, SpecProblemsAreNamed) {
  EXPECT_EQ(Small().Problems(), "");
  EXPECT_EQ(UniversalSmall().Problems(), "");
  TreeSpec spec = Small();
  spec.levels = 1;
  EXPECT_NE(spec.Problems().find("2..20 levels"), std::string::npos);
  spec = UniversalSmall();
  spec.levels = 1;  // every run in L0
  EXPECT_EQ(spec.Problems(), "");
  spec.min_merge_width = 1;
  EXPECT_NE(spec.Problems().find("min_merge_width >= 2"), std::string::npos);
  spec = UniversalSmall();
  spec.compaction_style = "fifo";
  EXPECT_NE(spec.Problems().find("not 'fifo'"), std::string::npos);
}

TEST(FprCheckTreeTest, UniversalFlushesSplitTheKeys) {
  TreeSpec spec = UniversalSmall();
  uint64_t sum = 0;
  for (int f = 0; f < spec.flushes; ++f) {
    EXPECT_GE(spec.KeysOfFlush(f), 833u);
    EXPECT_LE(spec.KeysOfFlush(f), 834u);
    sum += spec.KeysOfFlush(f);
  }
  EXPECT_EQ(sum, spec.num);
}

// Universal compaction makes the tree: sorted runs in L0 and in levels,
// every key in one of them, and the report lists them. Which runs the
// picker leaves follows from the files' sizes (compression, filters) and
// RocksDB's version; what any picker leaves is checked: compacted until no
// more than the trigger's runs are left, the oldest run in the last level
// (a compaction that takes in the oldest run writes there), the runs
// newest first, the same as the files.
TEST(FprCheckTreeTest, UniversalTreeIsUniversalCompactions) {
  const TreeSpec spec = UniversalSmall();
  test::TempDir dir;
  const Built built = BuildAndMeasure(spec, "bloomfilter:10", dir.Sub("db"));
  std::map<int, uint64_t> entries, files;
  std::vector<uint64_t> l0_entries;
  uint64_t total = 0;
  for (const auto& [level, n, bytes] : built.files) {
    entries[level] += n;
    files[level] += 1;
    total += n;
    if (level == 0) l0_entries.push_back(n);
  }
  EXPECT_EQ(total, spec.num);
  EXPECT_GT(entries[spec.levels - 1], 0u);  // compactions ran
  const std::vector<RunResult>& runs = built.result.runs;
  ASSERT_EQ(runs.size(), files.size() - (files.count(0) ? 1 : 0) + files[0]);
  EXPECT_LE(runs.size(), static_cast<size_t>(spec.compaction_trigger));
  EXPECT_GE(runs.size(), 2u);
  EXPECT_EQ(runs.back().level, spec.levels - 1);
  uint64_t in_runs = 0;
  std::vector<uint64_t> l0_runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE("run " + std::to_string(i + 1));
    const RunResult& run = runs[i];
    if (i > 0) EXPECT_GE(run.level, runs[i - 1].level);
    if (run.level == 0) {
      l0_runs.push_back(run.entries);
    } else {
      EXPECT_EQ(run.entries, entries[run.level]);
    }
    in_runs += run.entries;
    EXPECT_NEAR(run.reach, 1, 0.01);  // random keys: every run spans them
    EXPECT_NEAR(run.bits_per_key, 10, 0.7);
    EXPECT_GT(run.model_fpr, 0.005);
    EXPECT_LT(run.model_fpr, 0.015);
  }
  std::sort(l0_runs.begin(), l0_runs.end());
  EXPECT_EQ(l0_runs, l0_entries);  // built.files is sorted
  EXPECT_EQ(in_runs, spec.num);
}

// The universal tree is the same in every run, as the leveled one, whatever
// the background threads and the plan's timing.
TEST(FprCheckTreeTest, TwoUniversalRunsAreIdentical) {
  for (const char* uri : {"monkey:7", "bloomfilter:10"}) {
    SCOPED_TRACE(uri);
    test::TempDir a, b;
    const Built first = BuildAndMeasure(UniversalSmall(), uri, a.Sub("db"));
    const Built second =
        BuildAndMeasure(UniversalSmall(), uri, b.Sub("db"), true);
    EXPECT_EQ(first.files, second.files);
    ASSERT_EQ(first.result.levels.size(), second.result.levels.size());
    for (size_t i = 0; i < first.result.levels.size(); ++i) {
      EXPECT_EQ(first.result.levels[i].false_positives,
                second.result.levels[i].false_positives);
    }
    // The first as a baseline, through its file's JSON: the second matches
    // it, runs and all, with no tolerance on the bytes.
    Result baseline;
    ASSERT_TRUE(FromJson(ToJson(first.result), &baseline).ok());
    ASSERT_TRUE(baseline.tree.universal());
    ASSERT_FALSE(baseline.runs.empty());
    Tolerance exact;
    exact.bytes_fraction = 0;
    const Comparison cmp = Compare(baseline, second.result, exact);
    EXPECT_TRUE(cmp.ok()) << cmp.ToTable();
    EXPECT_EQ(cmp.checks.back().what, "runs");
  }
}

}  // namespace
}  // namespace monkey::fpr_check
