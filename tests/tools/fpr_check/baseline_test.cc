// Tests of fpr_check's baselines and comparison (tools/fpr_check/baseline.cc).
#include "monkey/tools/fpr_check/baseline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "monkey/tests/test_util.h"
#include "nlohmann/json.hpp"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"

namespace monkey::fpr_check {
namespace {

LevelResult Level(int level, uint64_t fp, uint64_t trials, uint64_t bytes) {
  LevelResult l;
  l.level = level;
  l.files = 1;
  l.entries = 1000;
  l.filter_entries = 1000;
  l.filter_bytes = bytes;
  l.bits_per_key = 8.0 * bytes / 1000;
  l.false_positives = fp;
  l.useful = trials - fp;
  l.probes = trials;
  return l;
}

Result Sample() {
  Result r;
  r.filter_uri = "monkey:7";
  r.rocksdb_version = "7.8.3";
  r.levels = {Level(0, 0, 400000, 800), Level(1, 13, 200000, 3000),
              Level(2, 9500, 200000, 800000)};
  return r;
}

TEST(FprCheckBaselineTest, JsonRoundTrips) {
  const Result r = Sample();
  Result back;
  ASSERT_TRUE(FromJson(ToJson(r), &back).ok());
  EXPECT_EQ(back.filter_uri, "monkey:7");
  EXPECT_EQ(back.rocksdb_version, "7.8.3");
  EXPECT_EQ(back.tree.num, r.tree.num);
  EXPECT_EQ(back.tree.seed, r.tree.seed);
  ASSERT_EQ(back.levels.size(), 3u);
  EXPECT_EQ(back.levels[2].false_positives, 9500u);
  EXPECT_EQ(back.levels[2].filter_bytes, 800000u);
  EXPECT_EQ(back.filter_bytes_total(), r.filter_bytes_total());
  EXPECT_TRUE(Compare(r, back, Tolerance()).ok());
}

TEST(FprCheckBaselineTest, MalformedBaselinesAreInvalidArgument) {
  Result r;
  EXPECT_TRUE(FromJson("not json", &r).IsInvalidArgument());
  EXPECT_TRUE(FromJson("{}", &r).IsInvalidArgument());
  EXPECT_TRUE(FromJson(R"({"fpr_check_format": 99})", &r).IsInvalidArgument());
  std::string json = ToJson(Sample());
  json.replace(json.find("\"useful\""), 8, "\"usefull\"");
  const ROCKSDB_NAMESPACE::Status s = FromJson(json, &r);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("useful"), std::string::npos) << s.ToString();
  EXPECT_TRUE(ReadBaseline("/nonexistent/baseline.json", &r).IsIOError());
}

// Moves a level's false positives by `sigmas` standard deviations of the
// two-proportion test and checks where the 4-sigma line falls.
TEST(FprCheckBaselineTest, FprWithinFourSigmaPassesBeyondFails) {
  const Result base = Sample();
  const double p = 9500.0 / 200000;
  const double sigma = std::sqrt(p * (1 - p) * 2 / 200000);  // approx.
  for (double moved : {-4.5, -3.5, 3.5, 4.5}) {
    Result run = base;
    run.levels[2].false_positives =
        9500 + static_cast<uint64_t>(std::llround(moved * sigma * 200000));
    run.levels[2].useful = 200000 - run.levels[2].false_positives;
    const Comparison cmp = Compare(base, run, Tolerance());
    const Check& l2 = cmp.checks[2];
    EXPECT_EQ(l2.what, "L2");
    EXPECT_NEAR(l2.z, moved, 0.1);
    EXPECT_EQ(l2.fpr_ok, std::fabs(moved) < 4) << moved;
    EXPECT_EQ(cmp.ok(), std::fabs(moved) < 4) << moved;
  }
}

TEST(FprCheckBaselineTest, FilterBytesWithinOnePercent) {
  const Result base = Sample();
  for (double change : {-0.015, -0.009, 0.009, 0.015}) {
    Result run = base;
    run.levels[2].filter_bytes =
        static_cast<uint64_t>(800000 * (1 + change) + 0.5);
    const Comparison cmp = Compare(base, run, Tolerance());
    EXPECT_EQ(cmp.checks[2].bytes_ok, std::fabs(change) < 0.01) << change;
    EXPECT_TRUE(cmp.checks[2].fpr_ok);
    EXPECT_EQ(cmp.ok(), std::fabs(change) < 0.01) << change;
  }
}

TEST(FprCheckBaselineTest, ZeroFalsePositivesOnBothSidesPass) {
  const Result base = Sample();
  const Comparison cmp = Compare(base, base, Tolerance());
  EXPECT_TRUE(cmp.checks[0].ok());
  EXPECT_EQ(cmp.checks[0].z, 0);
  // A filter that lets a few through where there were none is still within
  // the noise of 400000 probes.
  Result run = base;
  run.levels[0].false_positives = 2;
  EXPECT_TRUE(Compare(base, run, Tolerance()).checks[0].fpr_ok);
  run.levels[0].false_positives = 40;
  EXPECT_FALSE(Compare(base, run, Tolerance()).checks[0].fpr_ok);
}

TEST(FprCheckBaselineTest, AMissingLevelFails) {
  const Result base = Sample();
  Result run = base;
  run.levels.pop_back();
  const Comparison cmp = Compare(base, run, Tolerance());
  EXPECT_FALSE(cmp.ok());
  EXPECT_NE(cmp.ToTable().find("level missing from this run"),
            std::string::npos)
      << cmp.ToTable();
}

TEST(FprCheckBaselineTest, TableShowsEachLevelAndTheTotal) {
  const Result base = Sample();
  Result run = base;
  run.levels[1].false_positives = 2000;
  const std::string table = Compare(base, run, Tolerance()).ToTable();
  EXPECT_NE(table.find("L0 "), std::string::npos) << table;
  EXPECT_NE(table.find("L1 "), std::string::npos) << table;
  EXPECT_NE(table.find("FAIL: FPR"), std::string::npos) << table;
  EXPECT_NE(table.find("total"), std::string::npos) << table;
  EXPECT_NE(table.find("4.0 sigma"), std::string::npos) << table;
}

// A universal tree: two L0 runs (L0's counts cover both) and L2.
Result UniversalSample() {
  Result r = Sample();
  r.tree.compaction_style = "universal";
  r.tree.flushes = 12;
  r.tree.compaction_trigger = 6;
  r.tree.universal_size_ratio = 5;
  r.tree.min_merge_width = 3;
  r.levels = {Level(0, 0, 400000, 800), Level(2, 9500, 200000, 800000)};
  r.levels[0].entries = 2000;
  RunResult newest;
  newest.level = 0;
  newest.entries = 1000;
  newest.filter_bytes = 500;
  newest.bits_per_key = 4;
  newest.model_fpr = 0.1;
  RunResult older = newest;
  older.filter_bytes = 300;
  older.bits_per_key = 2.4;
  RunResult last;
  last.level = 2;
  last.entries = 1000;
  last.filter_bytes = 800000;
  last.bits_per_key = 6400;
  r.runs = {newest, older, last};
  return r;
}

// A leveled baseline's tree has the keys it always had, and no runs.
TEST(FprCheckBaselineTest, LeveledJsonKeepsItsKeys) {
  const nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(ToJson(Sample()));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j["tree"].items()) keys.push_back(key);
  const std::vector<std::string> leveled = {
      "seed",     "num",        "levels", "size_ratio",
      "l0_files", "value_size", "probes"};
  EXPECT_EQ(keys, leveled);
  EXPECT_FALSE(j.contains("sorted_runs"));
  // Without compaction_style, a baseline is leveled.
  Result back;
  ASSERT_TRUE(FromJson(ToJson(Sample()), &back).ok());
  EXPECT_EQ(back.tree.compaction_style, "level");
  EXPECT_TRUE(back.runs.empty());
}

TEST(FprCheckBaselineTest, UniversalJsonRoundTrips) {
  const Result r = UniversalSample();
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(ToJson(r));
  EXPECT_EQ(j["tree"]["compaction_style"], "universal");
  EXPECT_FALSE(j["tree"].contains("size_ratio"));
  EXPECT_FALSE(j["tree"].contains("l0_files"));
  Result back;
  ASSERT_TRUE(FromJson(ToJson(r), &back).ok());
  EXPECT_TRUE(back.tree.universal());
  EXPECT_EQ(back.tree.flushes, 12);
  EXPECT_EQ(back.tree.compaction_trigger, 6);
  EXPECT_EQ(back.tree.universal_size_ratio, 5);
  EXPECT_EQ(back.tree.min_merge_width, 3);
  ASSERT_EQ(back.runs.size(), 3u);
  EXPECT_EQ(back.runs[1].filter_bytes, 300u);
  EXPECT_EQ(back.runs[2].level, 2);
  EXPECT_DOUBLE_EQ(back.runs[0].model_fpr, 0.1);
  const Comparison cmp = Compare(r, back, Tolerance());
  EXPECT_TRUE(cmp.ok()) << cmp.ToTable();
  EXPECT_EQ(cmp.checks.back().what, "runs");
  EXPECT_NE(cmp.ToTable().find("ok (3 sorted runs, as in the baseline)"),
            std::string::npos)
      << cmp.ToTable();
}

// L0's counts and bytes cover both its runs: a budget moved from one L0
// file to the other shows only in the runs' own bytes.
TEST(FprCheckBaselineTest, UniversalRunsAreCheckedOneByOne) {
  const Result base = UniversalSample();
  Result run = base;
  run.runs[0].filter_bytes = 300;
  run.runs[1].filter_bytes = 500;
  Comparison cmp = Compare(base, run, Tolerance());
  EXPECT_FALSE(cmp.ok());
  EXPECT_TRUE(cmp.checks[0].ok());  // L0
  EXPECT_FALSE(cmp.checks.back().bytes_ok);
  EXPECT_NE(cmp.ToTable().find("FAIL: bytes (run 1 (L0)'s filter bytes)"),
            std::string::npos)
      << cmp.ToTable();
  // Another shape: a run fewer, or a run's keys elsewhere.
  run = base;
  run.runs.pop_back();
  cmp = Compare(base, run, Tolerance());
  EXPECT_FALSE(cmp.checks.back().shape_ok);
  EXPECT_NE(cmp.ToTable().find("shape (2 sorted runs, the baseline 3)"),
            std::string::npos)
      << cmp.ToTable();
  run = base;
  run.runs[1].entries = 900;
  run.levels[0].entries = 1900;
  cmp = Compare(base, run, Tolerance());
  EXPECT_FALSE(cmp.checks[0].shape_ok);
  EXPECT_FALSE(cmp.checks.back().shape_ok);
  EXPECT_NE(cmp.ToTable().find("run 2 (L0): 900 keys, the baseline's L0 1000"),
            std::string::npos)
      << cmp.ToTable();
}

// A leveled tree's levels are compared as they always were: FPR and bytes,
// not keys (its spec fixes them), and no runs line.
TEST(FprCheckBaselineTest, LeveledComparisonChecksNoShape) {
  const Result base = Sample();
  Result run = base;
  run.levels[1].entries = 1100;
  const Comparison cmp = Compare(base, run, Tolerance());
  EXPECT_TRUE(cmp.ok()) << cmp.ToTable();
  EXPECT_EQ(cmp.checks.back().what, "total");
  EXPECT_EQ(cmp.ToTable().find("shape"), std::string::npos) << cmp.ToTable();
  // A universal tree's levels with other keys fail as another shape.
  const Result universal = UniversalSample();
  run = universal;
  run.levels[1].entries = 1100;
  const Comparison other = Compare(universal, run, Tolerance());
  EXPECT_FALSE(other.checks[1].shape_ok);
  EXPECT_FALSE(other.ok());
}

// Prefix filters (NewFixedPrefixTransform(3), whole_key_filtering=false:
// fpr_check's keys are 16 random hex digits, so 3 of them make 4,096
// prefixes for 22,000 keys): the levels and the totals count filter
// entries, the totals' bits are per filter entry.
TEST(FprCheckBaselineTest, PrefixFiltersCountFilterEntries) {
  test::TempDir dir;
  TreeSpec spec;
  spec.num = 20000;
  spec.levels = 3;
  spec.probes = 1000;
  ROCKSDB_NAMESPACE::Options options;
  ASSERT_TRUE(Install("bloomfilter:10", &options).ok());
  options.prefix_extractor.reset(ROCKSDB_NAMESPACE::NewFixedPrefixTransform(3));
  auto* table = options.table_factory
                    ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  table->whole_key_filtering = false;
  MakeDeterministic(spec, &options);
  const std::string path = dir.Sub("db");
  ASSERT_TRUE(BuildTree(spec, options, path, [](const std::string&) {}).ok());
  options.create_if_missing = false;
  options.error_if_exists = false;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, path, &db).ok());
  FilterStatsCollector collector;
  ASSERT_TRUE(ProbeAbsent(spec, db.get(), &collector).ok());
  FilterReport report;
  ASSERT_TRUE(BuildFilterReport(db.get(), collector, "test", &report).ok());
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  uint64_t keys = 0, filter_entries = 0, filter_bytes = 0;
  for (const auto& [name, p] : props) {
    keys += p->num_entries;
    filter_entries += p->num_filter_entries;
    filter_bytes += p->filter_size;
  }
  EXPECT_LT(filter_entries, keys / 2);  // prefixes, not keys

  const Result r = FromReport(report, "bloomfilter:10", spec);
  uint64_t level_keys = 0;
  for (const LevelResult& l : r.levels) {
    level_keys += l.entries;
    EXPECT_DOUBLE_EQ(l.bits_per_key, 8.0 * l.filter_bytes / l.filter_entries)
        << "L" << l.level;
  }
  EXPECT_EQ(level_keys, keys);
  EXPECT_EQ(r.filter_entries_total(), filter_entries);
  const nlohmann::ordered_json total =
      nlohmann::ordered_json::parse(ToJson(r))["total"];
  EXPECT_EQ(total.at("filter_entries"), filter_entries);
  EXPECT_EQ(total["filter_bytes"], filter_bytes);
  EXPECT_DOUBLE_EQ(total["bits_per_key"].get<double>(),
                   8.0 * filter_bytes / filter_entries);
}

}  // namespace
}  // namespace monkey::fpr_check
