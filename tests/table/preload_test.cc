// Tests of the LD_PRELOAD drop-in (table/preload.cc): Debian's stock db_bench,
// unmodified, run with LD_PRELOAD=libmonkeyfilter_preload.so and an OPTIONS
// file that names a Monkey policy, builds per-level filters that follow
// Monkey's plan; without the preload, the same OPTIONS file silently gets no
// filter. The policy says shape=static, whose plan is known in advance: no
// listener feeds a stock program, and a default (shape=live) policy then
// plans for the depth its compactions show (ShapeListenerTest's
// AnUnfedPolicyPlansForTheDepthItSees).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/version.h"

namespace monkey {
namespace {

constexpr int kNumLevels = 7;

// A small tree over several levels, as RocksDB recommends it
// (dynamic level sizes), from an OPTIONS file alone.
std::string WriteOptionsFile(const test::TempDir& dir) {
  const std::string path = dir.Sub("OPTIONS");
  std::ofstream out(path);
  out << "[Version]\n"
      << "  rocksdb_version=" << ROCKSDB_MAJOR << "." << ROCKSDB_MINOR << "."
      << ROCKSDB_PATCH << "\n"
      << "  options_file_version=1.1\n"
      << "[DBOptions]\n"
      << "  create_if_missing=true\n"
      << "  max_background_jobs=2\n"
      << "[CFOptions \"default\"]\n"
      << "  write_buffer_size=262144\n"
      << "  target_file_size_base=262144\n"
      << "  max_bytes_for_level_base=65536\n"
      << "  level_compaction_dynamic_level_bytes=true\n"
      << "  compression=kNoCompression\n"
      << "  num_levels=" << kNumLevels << "\n"
      << "[TableOptions/BlockBasedTable \"default\"]\n"
      << "  filter_policy={id=monkey;bits_per_key=7;shape=static}\n";
  return path;
}

// Runs the stock db_bench (fillrandom) on a new DB, with `preload` in
// LD_PRELOAD when not empty; returns its exit status, output in `log`.
int RunStockDbBench(const std::string& preload, const std::string& options,
                    const std::string& db, const std::string& log) {
  std::ostringstream cmd;
#ifdef MONKEY_SANITIZER_RUNTIME
  // The sanitizer's runtime must come first. ASan's leak checking stays off
  // in db_bench: uninstrumented RocksDB keeps process-lifetime caches it
  // never frees, and our own code is leak-checked by every other test of
  // this build.
  if (!preload.empty()) {
    cmd << "ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD='"
        << MONKEY_SANITIZER_RUNTIME << " " << preload << "' ";
  }
#else
  if (!preload.empty()) cmd << "LD_PRELOAD='" << preload << "' ";
#endif
  cmd << "'" << MONKEY_STOCK_DB_BENCH << "' --benchmarks=fillrandom"
      << " --num=200000 --key_size=16 --value_size=100 --seed=1"
      << " --options_file='" << options << "' --db='" << db << "' >'" << log
      << "' 2>&1";
  return std::system(cmd.str().c_str());
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SstFilter {
  int level;  // where the file is now
  uint64_t entries;
  uint64_t filter_bytes;
};

std::vector<SstFilter> ReadFilters(const std::string& db_path) {
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  {
    const ROCKSDB_NAMESPACE::Status s =
        OpenDBForReadOnly(ROCKSDB_NAMESPACE::Options(), db_path, &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  std::vector<SstFilter> out;
  if (db == nullptr) return out;
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  for (const auto& file : files) {
    const auto& p = props.at(file.db_path + file.name);
    out.push_back({file.level, p->num_entries, p->filter_size});
  }
  return out;
}

// The plan's bits per key nearest to `bits` among levels 0..max_level:
// a file keeps the filter of the level it was made at, and a trivial move
// only ever takes it deeper.
int NearestPlannedLevel(const MonkeyFilterPolicy& plan, double bits,
                        int max_level) {
  int best = 0;
  for (int level = 1; level <= max_level; ++level) {
    if (std::abs(plan.MillibitsForLevel(level, kNumLevels) / 1000.0 - bits) <
        std::abs(plan.MillibitsForLevel(best, kNumLevels) / 1000.0 - bits)) {
      best = level;
    }
  }
  return best;
}

TEST(PreloadTest, StockDbBenchBuildsMonkeysPerLevelFilters) {
  test::TempDir dir;
  const std::string options = WriteOptionsFile(dir);
  const std::string log = dir.Sub("db_bench.log");
  ASSERT_EQ(
      RunStockDbBench(MONKEY_PRELOAD_LIBRARY, options, dir.Sub("db"), log), 0)
      << Slurp(log);

  RegisterOnce();
  const auto policy =
      test::PolicyOrDie("id=monkey;bits_per_key=7;shape=static");
  ASSERT_NE(policy, nullptr);
  const auto& plan = *policy->CheckedCast<MonkeyFilterPolicy>();

  std::set<int> levels, planned_levels_seen;
  std::map<int, uint64_t> entries, filter_bytes;
  for (const SstFilter& f : ReadFilters(dir.Sub("db"))) {
    levels.insert(f.level);
    entries[f.level] += f.entries;
    filter_bytes[f.level] += f.filter_bytes;
    ASSERT_GT(f.filter_bytes, 0u) << "a file at L" << f.level << " of "
                                  << f.entries << " keys has no filter";
    const double bits = 8.0 * f.filter_bytes / f.entries;
    const int made_at = NearestPlannedLevel(plan, bits, f.level);
    // FastLocalBloom rounds up to whole 64-byte cache lines and adds 5 bytes.
    const double rounding = 8.0 * (64 + 5) / f.entries + 0.001;
    EXPECT_NEAR(bits, plan.MillibitsForLevel(made_at, kNumLevels) / 1000.0,
                rounding)
        << "a file at L" << f.level << " has " << bits
        << " bits/key, not the plan of any level at or above it";
    if (made_at == f.level) planned_levels_seen.insert(f.level);
  }
  EXPECT_GE(levels.size(), 3u) << "the tree must span 3 levels or more";
  // Every level holds files whose filters were built with its own plan...
  EXPECT_EQ(planned_levels_seen, levels);
  // ... and the plan gives the levels different bits per key.
  std::set<int> planned_millibits;
  for (int level : levels) {
    planned_millibits.insert(plan.MillibitsForLevel(level, kNumLevels));
    printf("L%d: %8llu keys, %.3f bits/key (plan %.3f)\n", level,
           static_cast<unsigned long long>(entries[level]),
           8.0 * filter_bytes[level] / entries[level],
           plan.MillibitsForLevel(level, kNumLevels) / 1000.0);
  }
  EXPECT_EQ(planned_millibits.size(), levels.size());

  // RocksDB recorded the Monkey policy in the DB's own OPTIONS file.
  std::string recorded;
  for (const auto& entry : std::filesystem::directory_iterator(dir.Sub("db"))) {
    if (entry.path().filename().string().rfind("OPTIONS-", 0) == 0) {
      recorded = Slurp(entry.path().string());
    }
  }
  EXPECT_NE(recorded.find("id=monkey"), std::string::npos) << recorded;
}

TEST(PreloadTest, WithoutThePreloadTheSameOptionsGetNoFilter) {
  // Why the drop-in matters: db_bench loads OPTIONS files with
  // ignore_unsupported_options=true, so an unknown id means no filter.
  test::TempDir dir;
  const std::string options = WriteOptionsFile(dir);
  const std::string log = dir.Sub("db_bench.log");
  ASSERT_EQ(RunStockDbBench("", options, dir.Sub("db"), log), 0) << Slurp(log);
  const std::vector<SstFilter> files = ReadFilters(dir.Sub("db"));
  ASSERT_FALSE(files.empty());
  for (const SstFilter& f : files) EXPECT_EQ(f.filter_bytes, 0u);
}

}  // namespace
}  // namespace monkey
