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

}  // namespace
}  // namespace monkey
