// Tests of the advisor's math (util/advisor.h) without a database: the shape
// it plans, the Sum FPR now, the two suggestions against the planners, the
// options strings, and facts it must refuse.
#include "util/advisor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/monkey_memory.h"

namespace monkey {
namespace {

// A level whose `entries` keys all sit in `filter` filters of `bits` real
// bits per key, with the model's FPR.
AdvisorLevel Filtered(int level, double files, double entries, double bits,
                      const std::string& filter = "bloom") {
  AdvisorLevel l;
  l.level = level;
  l.files = files;
  l.entries = entries;
  l.filter_entries = entries;
  l.filter_bytes = entries * bits / 8;
  l.filter = filter;
  const FprModel model =
      filter == "ribbon" ? FprModel::Ribbon() : FprModel::FastLocalBloom();
  l.model_fpr = model.FalsePositiveRate(bits);
  return l;
}

AdvisorLevel Unfiltered(int level, double files, double entries) {
  AdvisorLevel l;
  l.level = level;
  l.files = files;
  l.entries = entries;
  l.unfiltered_entries = entries;
  return l;
}

// A bloomfilter:10 tree as db_bench leaves it: 3 L0 files, L1..L4 growing
// by 10 (dynamic level sizing keeps L5, L6 for later: empty here).
std::vector<AdvisorLevel> UniformTree(double bits = 10) {
  return {Filtered(0, 3, 3e5, bits), Filtered(1, 2, 1e6, bits),
          Filtered(2, 8, 1e7, bits), Filtered(3, 60, 1e8, bits)};
}

TEST(AdvisorTest, PlansTheDatabasesOwnShape) {
  Advice a;
  ASSERT_EQ("", Advise(UniformTree(), &a));
  ASSERT_EQ(a.shape.size(), 4u);
  EXPECT_EQ(a.shape[0].runs, 3);  // one run per L0 file
  EXPECT_EQ(a.shape[1].runs, 1);
  EXPECT_EQ(a.shape[3].entries, 1e8);
  EXPECT_TRUE(a.last_level_filter);
  EXPECT_EQ(a.filter, "bloom");
  const double p = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.sum_fpr_now, 6 * p, 1e-15);  // 3 L0 runs + 3 levels
  EXPECT_NEAR(a.bits_per_key_now, 10, 1e-12);
  EXPECT_NEAR(a.filter_bytes_now, (3e5 + 1e6 + 1e7 + 1e8) * 10 / 8, 1e-3);
}

// The same tree without L0 files: the policy's live plan is then
// PlanBitsPerKey on the shape itself.
std::vector<AdvisorLevel> SettledTree(double bits = 10) {
  std::vector<AdvisorLevel> levels = UniformTree(bits);
  levels.erase(levels.begin());
  return levels;
}

double Entries(const std::vector<AdvisorLevel>& levels) {
  double n = 0;
  for (const AdvisorLevel& l : levels) n += l.filter_entries;
  return n;
}

TEST(AdvisorTest, SameBytesIsTheMostBitsThatFitTodaysBytes) {
  for (const auto& levels : {UniformTree(9.8765), SettledTree(9.8765)}) {
    Advice a;
    ASSERT_EQ("", Advise(levels, &a));
    ASSERT_EQ("", a.same_bytes.error);
    const double b = a.same_bytes.bits_per_key;
    EXPECT_EQ(b, std::round(b * 1000) / 1000);  // RocksDB's resolution
    const Plan plan = PolicyPlan(a.shape, b, true, "bloom");
    EXPECT_DOUBLE_EQ(a.same_bytes.plan.total_bits, plan.total_bits);
    EXPECT_DOUBLE_EQ(a.same_bytes.filter_bytes, plan.total_bits / 8);
    EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
    EXPECT_GT(PolicyPlan(a.shape, b + 0.001, true, "bloom").total_bits / 8,
              a.filter_bytes_now);
    EXPECT_LT(a.same_bytes.plan.sum_fpr, a.sum_fpr_now / 2);
    EXPECT_EQ(a.same_bytes.options, MonkeyOptionsString(b, true, "bloom"));
  }
  // Without L0, the policy plans the shape as it is: PlanBitsPerKey at the
  // realized bits per key (to the millibit: its plan may leave part of a
  // millibit unspent, which the next millibit up then fits in).
  Advice a;
  ASSERT_EQ("", Advise(SettledTree(9.8765), &a));
  EXPECT_NEAR(a.same_bytes.bits_per_key, 9.8765, 0.001);
  const Plan want =
      PlanBitsPerKey(a.shape, a.same_bytes.bits_per_key,
                     std::vector<FprModel>(4, FprModel::FastLocalBloom()));
  for (size_t i = 0; i < a.shape.size(); ++i) {
    EXPECT_EQ(a.same_bytes.plan.levels[i].millibits_per_key,
              want.levels[i].millibits_per_key);
  }
}

TEST(AdvisorTest, SameFprIsTheFewestBitsThatKeepTodaysSumFpr) {
  for (const auto& levels : {UniformTree(), SettledTree()}) {
    Advice a;
    ASSERT_EQ("", Advise(levels, &a));
    ASSERT_EQ("", a.same_fpr.error);
    const double b = a.same_fpr.bits_per_key;
    EXPECT_LE(a.same_fpr.plan.sum_fpr, a.sum_fpr_now * (1 + 1e-12));
    EXPECT_GT(PolicyPlan(a.shape, b - 0.001, true, "bloom").sum_fpr,
              a.sum_fpr_now);
    EXPECT_DOUBLE_EQ(a.same_fpr.filter_bytes, a.same_fpr.plan.total_bits / 8);
    EXPECT_NEAR(a.saving, 1 - a.same_fpr.filter_bytes / a.filter_bytes_now,
                1e-12);
    // The frozen tree's optimum is a bound: the policy, which keeps L0 out
    // of the budget, needs at least as much.
    EXPECT_GT(a.frozen_filter_bytes, 0);
    EXPECT_LE(a.frozen_filter_bytes, a.same_fpr.filter_bytes * (1 + 1e-3));
    EXPECT_EQ(a.same_fpr.options, MonkeyOptionsString(b, true, "bloom"));
  }
  // Three levels at T = 10, uniform 10 bits: 8.322 bits/key keep the Sum
  // FPR, 16.8% less (docs/math.md, from monkey_plan --objective=memory).
  Advice settled, with_l0;
  ASSERT_EQ("", Advise(SettledTree(), &settled));
  EXPECT_NEAR(settled.same_fpr.bits_per_key, 8.322, 0.002);
  EXPECT_NEAR(settled.saving, 0.168, 0.001);
  // Three L0 runs on top: more runs, more to save.
  ASSERT_EQ("", Advise(UniformTree(), &with_l0));
  EXPECT_GT(with_l0.saving, settled.saving);
  // Without L0 the policy's plan is the frozen one: the dual's bits.
  Advice a;
  ASSERT_EQ("", Advise(SettledTree(), &a));
  Plan dual;
  ASSERT_EQ("",
            PlanLeastBits(a.shape, a.sum_fpr_now,
                          std::vector<FprModel>(4, FprModel::FastLocalBloom()),
                          &dual));
  EXPECT_NEAR(a.same_fpr.filter_bytes, dual.total_bits / 8,
              0.005 * dual.total_bits / 8);
  EXPECT_NEAR(a.same_fpr.bits_per_key, dual.bits_per_key(), 0.002);
  EXPECT_NEAR(a.frozen_filter_bytes, dual.total_bits / 8, 1e-6);
}

// A database the policy built: its own plan at 7 bits per key. The advisor
// finds 7 bits at the same bytes, and nothing to save at the same FPR.
TEST(AdvisorTest, APolicyBuiltDatabaseHasNothingToSave) {
  std::vector<LevelShape> shape = {{2e5, 2}, {1e6, 1}, {1e7, 1}, {1e8, 1}};
  const Plan plan = PolicyPlan(shape, 7, true, "bloom");
  std::vector<AdvisorLevel> levels;
  for (int i = 0; i < 4; ++i) {
    levels.push_back(Filtered(i, shape[i].runs, shape[i].entries,
                              plan.levels[i].bits_per_key));
  }
  Advice a;
  ASSERT_EQ("", Advise(levels, &a));
  EXPECT_NEAR(a.sum_fpr_now, plan.sum_fpr, 1e-12);
  EXPECT_NEAR(a.same_bytes.bits_per_key, 7, 0.0015);
  EXPECT_NEAR(a.same_fpr.bits_per_key, 7, 0.0015);
  EXPECT_NEAR(a.saving, 0, 0.001);
  // L0's runs are priced on top of the budget: the realized average over
  // all filtered keys is above 7.
  EXPECT_GT(a.bits_per_key_now, 7.01);
}

TEST(AdvisorTest, ALastLevelWithoutFiltersStaysWithout) {
  std::vector<AdvisorLevel> levels = UniformTree();
  levels.push_back(Unfiltered(4, 400, 1e9));
  Advice a;
  ASSERT_EQ("", Advise(levels, &a));
  EXPECT_FALSE(a.last_level_filter);
  EXPECT_FALSE(a.shape[4].filtered);
  EXPECT_EQ(a.shape[4].entries, 1e9);
  // Neither its keys nor its FPR of 1 are in the sums.
  const double p = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.sum_fpr_now, 6 * p, 1e-15);
  EXPECT_NEAR(a.bits_per_key_now, 10, 1e-12);
  EXPECT_EQ(a.same_bytes.plan.levels[4].millibits_per_key, 0);
  EXPECT_EQ(a.same_fpr.plan.levels[4].millibits_per_key, 0);
  EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
  EXPECT_EQ(a.same_bytes.options,
            MonkeyOptionsString(a.same_bytes.bits_per_key, false, "bloom"));
  EXPECT_NE(a.same_fpr.options.find(";last_level_filter=false;"),
            std::string::npos);
}

// An upper level without filters (a Monkey plan that gave it none) counts
// with FPR 1 per run; files without filters in a level with filters let
// their share of lookups through.
TEST(AdvisorTest, LevelsAndFilesWithoutFiltersCountAsFpr1) {
  std::vector<AdvisorLevel> levels = UniformTree();
  levels[1] = Unfiltered(1, 2, 1e6);
  levels[2].unfiltered_entries = 2.5e6;  // a quarter of L2's keys
  levels[2].filter_entries = 7.5e6;
  Advice a;
  ASSERT_EQ("", Advise(levels, &a));
  const double p = levels[0].model_fpr;
  EXPECT_NEAR(a.fpr_now[1], 1, 0);
  EXPECT_NEAR(a.fpr_now[2], 0.75 * p + 0.25, 1e-15);
  EXPECT_NEAR(a.sum_fpr_now, 3 * p + 1 + (0.75 * p + 0.25) + p, 1e-12);
  EXPECT_TRUE(a.shape[1].filtered);
  EXPECT_EQ(a.shape[1].entries, 1e6);
  EXPECT_EQ(a.shape[2].entries, 1e7);
}

TEST(AdvisorTest, SuggestsTheFilterKindsTheDatabaseHas) {
  EXPECT_EQ(SuggestedFilter(UniformTree()), "bloom");
  std::vector<AdvisorLevel> ribbon = {Filtered(0, 1, 1e5, 7, "ribbon"),
                                      Filtered(1, 1, 1e6, 7, "ribbon")};
  EXPECT_EQ(SuggestedFilter(ribbon), "ribbon");
  ribbon[0] = Filtered(0, 1, 1e5, 10, "bloom");
  EXPECT_EQ(SuggestedFilter(ribbon), "auto");
  // No L0 files: Ribbon below.
  EXPECT_EQ(SuggestedFilter({Filtered(1, 1, 1e6, 7, "ribbon")}), "ribbon");
  // Mostly Bloom below L0.
  EXPECT_EQ(SuggestedFilter({Filtered(1, 1, 1e5, 7, "ribbon"),
                             Filtered(2, 1, 1e6, 10, "bloom")}),
            "bloom");
  // Only L0 has filters.
  EXPECT_EQ(SuggestedFilter(
                {Filtered(0, 1, 1e5, 7, "ribbon"), Unfiltered(1, 1, 1e6)}),
            "ribbon");
  Advice a;
  ASSERT_EQ("", Advise(ribbon, &a));
  EXPECT_EQ(a.filter, "auto");
  EXPECT_NE(a.same_fpr.options.find(";filter=auto"), std::string::npos);
}

TEST(AdvisorTest, OptionsStringsKeepRocksDbsResolution) {
  EXPECT_EQ(MonkeyOptionsString(7.12, true, "bloom"),
            "id=monkey;bits_per_key=7.12;filter=bloom");
  EXPECT_EQ(MonkeyOptionsString(7.12, false, "bloom"),
            "id=monkey;bits_per_key=7.12;last_level_filter=false;filter=bloom");
  EXPECT_EQ(MonkeyOptionsString(10, true, "ribbon"),
            "id=monkey;bits_per_key=10;filter=ribbon");
  EXPECT_EQ(MonkeyOptionsString(6.9004, true, "auto"),
            "id=monkey;bits_per_key=6.9;filter=auto");
  EXPECT_EQ(MonkeyOptionsString(6.123, true, "bloom"),
            "id=monkey;bits_per_key=6.123;filter=bloom");
}

TEST(AdvisorTest, RefusesWhatItCannotAdviseOn) {
  Advice a;
  EXPECT_EQ(Advise({}, &a), "no SST files");
  EXPECT_EQ(Advise({Unfiltered(0, 0, 0)}, &a), "no SST files");
  EXPECT_EQ(Advise({Unfiltered(0, 2, 100), Unfiltered(1, 1, 1000)}, &a),
            "no filters");
  EXPECT_FALSE(HasFilters({Unfiltered(0, 2, 100)}));
  EXPECT_TRUE(HasFilters(UniformTree()));
  std::vector<AdvisorLevel> bad = UniformTree();
  bad[1].filter_bytes = std::nan("");
  EXPECT_NE(Advise(bad, &a).find("level 1"), std::string::npos);
  bad = UniformTree();
  bad[2].model_fpr = 1.5;
  EXPECT_NE(Advise(bad, &a).find("level 2"), std::string::npos);
  bad = UniformTree();
  bad[3].entries = -1;
  EXPECT_NE(Advise(bad, &a).find("level 3"), std::string::npos);
  bad = UniformTree();
  bad.push_back(bad[1]);
  EXPECT_NE(Advise(bad, &a).find("twice"), std::string::npos);
  bad = UniformTree();
  bad[0].level = 64;
  EXPECT_NE(Advise(bad, &a).find("outside"), std::string::npos);
}

// A Sum FPR that the suggested filters cannot reach: no same_fpr
// suggestion, and why.
TEST(AdvisorTest, AnUnreachableSumFprIsReportedNotPlanned) {
  std::vector<AdvisorLevel> levels = {Filtered(0, 1, 1e5, 40, "ribbon"),
                                      Filtered(1, 1, 1e6, 40, "ribbon"),
                                      Filtered(2, 1, 1e7, 40, "ribbon")};
  // Labelled Bloom, with Ribbon's FPR at 40 bits (2^-38): below what
  // Bloom's best filter (48 bits) reaches.
  for (AdvisorLevel& l : levels) l.filter = "bloom";
  Advice a;
  ASSERT_EQ("", Advise(levels, &a));
  EXPECT_EQ(a.filter, "bloom");
  EXPECT_EQ(a.same_fpr.options, "");
  EXPECT_NE(a.same_fpr.error.find("keeps today's Sum FPR"), std::string::npos)
      << a.same_fpr.error;
  EXPECT_EQ(a.frozen_filter_bytes, 0);
  EXPECT_EQ(a.same_bytes.error, "");
}

}  // namespace
}  // namespace monkey

namespace monkey {
namespace {

// A level whose files cover a fifth of the key space is probed by a fifth of
// the lookups: its FPR counts a fifth in every Sum FPR. The policy's plan
// does not change (it plans runs), only what it is worth.
TEST(AdvisorTest, SumsCountProbesPerLookup) {
  std::vector<AdvisorLevel> levels = UniformTree();
  Advice full;
  ASSERT_EQ("", Advise(levels, &full));
  levels[1].probes = 0.2;
  levels[0].probes = 2.5;  // three L0 files, one of them over half the range
  Advice partial;
  ASSERT_EQ("", Advise(levels, &partial));
  const double p = levels[0].model_fpr;
  EXPECT_NEAR(partial.sum_fpr_now, (2.5 + 0.2 + 1 + 1) * p, 1e-15);
  EXPECT_EQ(partial.probes[1], 0.2);
  EXPECT_EQ(partial.shape[1].runs, 1);
  const Plan plan =
      PolicyPlan(partial.shape, partial.same_bytes.bits_per_key, true, "bloom");
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(partial.same_bytes.plan.levels[i].millibits_per_key,
              plan.levels[i].millibits_per_key);
    sum += partial.probes[i] * plan.levels[i].fpr;
  }
  EXPECT_NEAR(partial.same_bytes.plan.sum_fpr, sum, 1e-15);
  // A lower Sum FPR now takes more bits to keep.
  EXPECT_GT(partial.same_fpr.bits_per_key, full.same_fpr.bits_per_key);
  // Unknown probes are runs.
  levels[1].probes = -1;
  Advice unknown;
  ASSERT_EQ("", Advise(levels, &unknown));
  EXPECT_EQ(unknown.probes[1], 1);
}

}  // namespace
}  // namespace monkey
