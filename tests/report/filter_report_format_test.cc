// Tests of FilterReport::ToTable and ToJsonLine
// (report/filter_report_format.cc): the JSON line's keys and nulls, and the
// table's rows.
#include <gtest/gtest.h>

#include "monkey/filter_report.h"
#include "nlohmann/json.hpp"

namespace monkey {
namespace {

FilterReport Sample() {
  FilterReport r;
  r.benchmark = "readmissing";
  r.threads = 2;
  LevelFilterReport l0;
  l0.level = 0;
  l0.files = 3;
  l0.filter = "none";
  LevelFilterReport l6;
  l6.level = 6;
  l6.files = 40;
  l6.entries = 1000000;
  l6.filter_bytes = 1250000;
  l6.filter_entries = 1000000;
  l6.bits_per_key = 10;
  l6.filter = "bloom";
  l6.probes = 200000;
  l6.useful = 198060;
  l6.false_positives = 1940;
  l6.fpr = 1940.0 / 200000;
  l6.model_fpr = 0.00966;
  l6.fpr_sigma = 0.00022;
  l6.model_agrees = true;
  r.levels = {l0, l6};
  r.sum_fpr = l6.fpr;
  r.model_sum_fpr = l6.model_fpr;
  r.filter_bytes_total = 1250000;
  r.filter_cache_bytes = 1250000;
  r.filter_cache_source = "table_readers";
  r.lookups = 200000;
  r.absent_lookups = 200000;
  r.fp_per_absent_lookup = 0.0097;
  return r;
}

nlohmann::json Parse(const std::string& line) {
  const std::string prefix = kFilterReportJsonPrefix;
  EXPECT_EQ(line.compare(0, prefix.size(), prefix), 0) << line;
  return nlohmann::json::parse(line.substr(prefix.size()));
}

TEST(FilterReportFormatTest, JsonLineHasTheContractKeys) {
  const std::string line = Sample().ToJsonLine();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const nlohmann::json j = Parse(line);
  for (const char* key : {"benchmark", "levels", "sum_fpr",
                          "filter_bytes_total", "filter_cache_bytes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["benchmark"], "readmissing");
  ASSERT_EQ(j["levels"].size(), 2u);
  for (const auto& level : j["levels"]) {
    for (const char* key :
         {"level", "files", "entries", "filter_bytes", "bits_per_key", "probes",
          "useful", "false_positives", "fpr", "model_fpr"}) {
      EXPECT_TRUE(level.contains(key)) << key;
    }
  }
  EXPECT_TRUE(j["levels"][0]["fpr"].is_null());
  EXPECT_EQ(j["levels"][1]["level"], 6);
  EXPECT_EQ(j["levels"][1]["false_positives"], 1940);
  EXPECT_DOUBLE_EQ(j["levels"][1]["fpr"].get<double>(), 0.0097);
  EXPECT_DOUBLE_EQ(j["sum_fpr"].get<double>(), 0.0097);
  EXPECT_EQ(j["filter_bytes_total"], 1250000);
  EXPECT_EQ(j["filter_cache_source"], "table_readers");
  EXPECT_TRUE(j["block_cache_filter_miss"].is_null());
  EXPECT_EQ(j["model_agrees"], true);
}

TEST(FilterReportFormatTest, UnsetTotalsAreNull) {
  FilterReport r;
  r.benchmark = "readrandom";
  r.tickers = FilterTickers{};
  r.tickers->filter_miss = 7;
  const nlohmann::json j = Parse(r.ToJsonLine());
  EXPECT_TRUE(j["sum_fpr"].is_null());
  EXPECT_TRUE(j["fp_per_absent_lookup"].is_null());
  EXPECT_TRUE(j["lookups"].is_null());
  EXPECT_EQ(j["block_cache_filter_miss"], 7);
  EXPECT_TRUE(j["levels"].empty());
}

TEST(FilterReportFormatTest, TableShowsLevelsAndDisagreement) {
  FilterReport r = Sample();
  r.levels[1].model_agrees = false;
  r.notes.push_back("MultiGet does not count true positives");
  const std::string table = r.ToTable();
  EXPECT_NE(table.find("Filter report: readmissing (2 threads)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\nL6 "), std::string::npos) << table;
  EXPECT_NE(table.find("0.9700%"), std::string::npos) << table;
  EXPECT_NE(table.find("NO"), std::string::npos) << table;
  EXPECT_NE(table.find("Note: MultiGet"), std::string::npos) << table;
  EXPECT_FALSE(r.ModelAgrees());
}

TEST(FilterReportFormatTest, LeveledJsonHasNoSortedRuns) {
  const nlohmann::json j = Parse(Sample().ToJsonLine());
  EXPECT_EQ(j["compaction_style"], "level");
  ASSERT_TRUE(j["sorted_runs"].is_array());
  EXPECT_TRUE(j["sorted_runs"].empty());
  EXPECT_TRUE(j["model_fp_per_absent_lookup"].is_null());
  EXPECT_EQ(Sample().ToTable().find("Sorted runs"), std::string::npos);
}

// Two L0 files, unmeasured each, and L6, measured as its level.
FilterReport TieredSample() {
  FilterReport r = Sample();
  r.compaction_style = "universal";
  SortedRunReport newest;
  newest.level = 0;
  newest.file_number = 31;
  newest.files = 1;
  newest.entries = 500;
  newest.filter = "bloom";
  newest.model_fpr = 0.004;
  newest.reach = 0.5;
  SortedRunReport unfiltered = newest;
  unfiltered.file_number = 30;
  unfiltered.filter = "none";
  unfiltered.model_fpr.reset();
  unfiltered.reach = 0.01;
  SortedRunReport last;
  last.level = 6;
  last.files = 40;
  last.entries = 1000000;
  last.filter = "bloom";
  last.model_fpr = 0.00966;
  last.probes = 200000;
  last.false_positives = 1940;
  last.fpr = 0.0097;
  last.probes_per_lookup = 1;
  r.sorted_runs = {newest, unfiltered, last};
  r.model_fp_per_absent_lookup = 0.5 * 0.004 + 0.01 * 1 + 1 * 0.00966;
  return r;
}

TEST(FilterReportFormatTest, TieredJsonListsTheRuns) {
  const nlohmann::json j = Parse(TieredSample().ToJsonLine());
  EXPECT_EQ(j["compaction_style"], "universal");
  ASSERT_EQ(j["sorted_runs"].size(), 3u);
  for (const auto& run : j["sorted_runs"]) {
    for (const char* key :
         {"level", "file_number", "files", "entries", "filter_bytes",
          "filter_entries", "bits_per_key", "filter", "model_fpr", "reach",
          "probes", "false_positives", "fpr", "probes_per_lookup"}) {
      EXPECT_TRUE(run.contains(key)) << key;
    }
  }
  EXPECT_EQ(j["sorted_runs"][0]["file_number"], 31);
  EXPECT_TRUE(j["sorted_runs"][0]["fpr"].is_null());
  EXPECT_TRUE(j["sorted_runs"][0]["probes"].is_null());
  EXPECT_TRUE(j["sorted_runs"][1]["model_fpr"].is_null());
  EXPECT_TRUE(j["sorted_runs"][2]["file_number"].is_null());
  EXPECT_EQ(j["sorted_runs"][2]["false_positives"], 1940);
  EXPECT_DOUBLE_EQ(j["model_fp_per_absent_lookup"].get<double>(), 0.02166);
  // The levels stay as they were.
  EXPECT_EQ(j["levels"].size(), 2u);
}

TEST(FilterReportFormatTest, TieredTableShowsRunsAndTheirTotal) {
  const std::string table = TieredSample().ToTable();
  EXPECT_NE(table.find("\nL6 "), std::string::npos) << table;
  EXPECT_NE(table.find("Sorted runs (universal compaction), newest first:"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\n1    L0         #31 "), std::string::npos) << table;
  // A run without a filter costs its reach: every lookup that reaches it
  // reads a block.
  EXPECT_NE(table.find("none    0.0100          -    1.0000%"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("sum over 3 runs of reach x model FPR: 0.02166 "
                       "(measured 0.00970)"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace monkey
