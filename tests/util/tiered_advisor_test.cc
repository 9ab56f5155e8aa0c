// Tests of the advisor's math for tiered trees (util/tiered_advisor.h)
// without a database: the sorted runs it sees, the false positives now, the
// two suggestions against today's filters, and facts it must refuse.
#include "monkey/util/tiered_advisor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"

namespace monkey {
namespace {

// 8-byte big-endian keys, as db_bench writes them.
std::string Key(uint64_t id) {
  std::string key;
  for (int shift = 56; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>((id >> shift) & 0xff));
  }
  return key;
}

constexpr uint64_t kKeySpace = 1000000;

// A file of `entries` random keys over the whole key space, its filter's
// body at `bits` bits per key (0: none), with RocksDB's metadata on top.
LiveFile File(uint64_t number, int level, double entries, double bits,
              uint64_t seqno) {
  LiveFile f;
  f.number = number;
  f.level = level;
  f.entries = entries;
  f.bytes = entries * 100;
  f.smallest = Key(0);
  f.largest = Key(kKeySpace - 1);
  f.largest_seqno = seqno;
  f.filter_known = true;
  f.filter_entries = bits > 0 ? entries : 0;
  f.filter_bits =
      bits > 0 ? bits * f.filter_entries + 8.0 * kFilterMetadataBytes : 0;
  return f;
}

AdvisorLevel Level(int level, const std::vector<LiveFile>& files,
                   const std::string& filter = "bloom") {
  AdvisorLevel l;
  l.level = level;
  for (const LiveFile& f : files) {
    if (f.level != level) continue;
    ++l.files;
    l.entries += f.entries;
    l.filter_entries += f.filter_entries;
    l.filter_bytes += f.filter_bits / 8;
  }
  l.filter = l.filter_bytes > 0 ? filter : "none";
  return l;
}

// A universal tree at rest: three flushes in L0 and two runs below, each
// over the whole key space, every filter at 10 bits per key (stock
// bloomfilter:10).
std::vector<LiveFile> UniformTree(double oldest_bits = 10) {
  return {File(9, 0, 20000, 10, 900), File(8, 0, 20000, 10, 800),
          File(7, 0, 20000, 10, 700), File(5, 4, 60000, 10, 500),
          File(6, 4, 60000, 10, 510), File(2, 6, 800000, oldest_bits, 100)};
}

std::vector<AdvisorLevel> LevelsOf(const std::vector<LiveFile>& files) {
  return {Level(0, files), Level(4, files), Level(6, files)};
}

TEST(TieredAdvisorTest, SeesEachL0FileAndEachLevelAsARunNewestFirst) {
  const std::vector<LiveFile> files = UniformTree();
  TieredAdvice a;
  ASSERT_EQ(AdviseTiered(LevelsOf(files), files, &a), "");
  ASSERT_EQ(a.runs.runs.size(), 5u);
  const std::vector<int> levels = {0, 0, 0, 4, 6};
  const std::vector<double> entries = {20000, 20000, 20000, 120000, 800000};
  const std::vector<int> files_in = {1, 1, 1, 2, 1};
  // Realized bits per filter entry count each file's metadata; the FPR is
  // the body's, at 10 bits.
  const double metadata = 8.0 * kFilterMetadataBytes;
  double all_entries = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    all_entries += entries[i];
    EXPECT_EQ(a.runs.runs[i].level, levels[i]) << i;
    EXPECT_DOUBLE_EQ(a.runs.runs[i].entries, entries[i]) << i;
    // Every run spans the key space: every lookup probes it.
    EXPECT_NEAR(a.probes[i], 1.0, 1e-9) << i;
    EXPECT_NEAR(a.bits_per_key_now[i], 10 + files_in[i] * metadata / entries[i],
                1e-9)
        << i;
  }
  const double fpr10 = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.false_positives_now, 5 * fpr10, 1e-12);
  EXPECT_NEAR(a.bits_per_key_now_total, 10 + 6 * metadata / all_entries, 1e-9);
  EXPECT_TRUE(a.last_level_filter);
  EXPECT_EQ(a.filter, "bloom");
}

// At today's bytes Monkey moves bits from the big oldest run to the small
// runs that every lookup also probes: fewer false positives, each small
// run more bits than the oldest. At today's false positives it needs
// fewer bytes.
TEST(TieredAdvisorTest, BothSuggestionsBeatUniformBits) {
  const std::vector<LiveFile> files = UniformTree();
  TieredAdvice a;
  ASSERT_EQ(AdviseTiered(LevelsOf(files), files, &a), "");
  ASSERT_EQ(a.same_bytes.error, "");
  EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
  EXPECT_GT(a.same_bytes.filter_bytes, 0.99 * a.filter_bytes_now);
  EXPECT_LT(a.same_bytes.false_positives, 0.85 * a.false_positives_now);
  ASSERT_EQ(a.same_bytes.millibits.size(), 5u);
  EXPECT_LT(a.same_bytes.millibits[4], 10000);
  for (int i = 0; i < 4; ++i) {
    EXPECT_GT(a.same_bytes.millibits[i], a.same_bytes.millibits[4]) << i;
  }
  // Equal runs, equal bits; the larger run below L0 fewer.
  EXPECT_EQ(a.same_bytes.millibits[0], a.same_bytes.millibits[2]);
  EXPECT_LT(a.same_bytes.millibits[3], a.same_bytes.millibits[0]);
  EXPECT_EQ(a.same_bytes.options.rfind("id=monkey;bits_per_key=", 0), 0u);

  ASSERT_EQ(a.same_fpr.error, "");
  EXPECT_LE(a.same_fpr.false_positives, a.false_positives_now * (1 + 1e-12));
  EXPECT_GT(a.saving, 0.02);
  EXPECT_NEAR(a.saving, 1 - a.same_fpr.filter_bytes / a.filter_bytes_now,
              1e-12);
  EXPECT_LT(a.same_fpr.bits_per_key, a.same_bytes.bits_per_key);
}

// An oldest run without filters (optimize_filters_for_hits) keeps none:
// the suggestions say last_level_filter=false, and its keys and its FPR of
// 1 stay out of the sums.
TEST(TieredAdvisorTest, AnUnfilteredOldestRunStaysUnfiltered) {
  const std::vector<LiveFile> files = UniformTree(/*oldest_bits=*/0);
  TieredAdvice a;
  ASSERT_EQ(AdviseTiered(LevelsOf(files), files, &a), "");
  EXPECT_FALSE(a.last_level_filter);
  const double fpr10 = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.false_positives_now, 4 * fpr10, 1e-12);
  EXPECT_DOUBLE_EQ(a.filtered_entries, 180000);
  EXPECT_EQ(a.fpr_now[4], 1.0);
  ASSERT_EQ(a.same_bytes.error, "");
  EXPECT_EQ(a.same_bytes.millibits[4], 0);
  EXPECT_NE(a.same_bytes.options.find("last_level_filter=false"),
            std::string::npos);
  EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
}

// A run over a tenth of the key space is probed by a tenth of the lookups,
// by key position (the plan keeps the policy's reach, util/live_shape.h).
TEST(TieredAdvisorTest, ARunOverPartOfTheKeysIsProbedByThatShare) {
  std::vector<LiveFile> files = UniformTree();
  files[0].smallest = Key(0);
  files[0].largest = Key(kKeySpace / 10 - 1);
  TieredAdvice a;
  ASSERT_EQ(AdviseTiered(LevelsOf(files), files, &a), "");
  EXPECT_NEAR(a.probes[0], 0.1, 1e-3);
  EXPECT_NEAR(a.probes[1], 1.0, 1e-9);
  // The false positives now count the probes: a tenth of that run's.
  const double fpr10 = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.false_positives_now, 4.1 * fpr10, 1e-5 * fpr10);
}

TEST(TieredAdvisorTest, RefusesTreesItCannotAdviseOn) {
  TieredAdvice a;
  EXPECT_EQ(AdviseTiered({}, {}, &a), "no SST files");
  std::vector<LiveFile> none = {File(1, 0, 1000, 0, 1)};
  EXPECT_EQ(AdviseTiered({Level(0, none)}, none, &a), "no filters");
  std::vector<LiveFile> bad = UniformTree();
  bad[1].entries = -1;
  EXPECT_EQ(AdviseTiered(LevelsOf(bad), bad, &a),
            "file facts must be finite and >= 0");
}

}  // namespace
}  // namespace monkey
