// The tiered plan (util/tiered_plan.h): new sorted runs at the price that
// spends the budget over the tree after the job, the runs that stay at
// their own bits.
#include "monkey/util/tiered_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {
namespace {

// Eight runs, newest (smallest) first, each twice the one before: a
// universal tree with size_ratio 1 and min_merge_width 2, as it sits
// between compactions.
std::vector<SortedRun> Doubling(bool building) {
  std::vector<SortedRun> runs;
  for (int i = 0; i < 8; ++i) {
    SortedRun run;
    run.level = i == 0 ? 0 : i;
    run.entries = 1e5 * std::pow(2, i);
    run.building = building;
    runs.push_back(run);
  }
  return runs;
}

double Spend(const std::vector<SortedRun>& runs,
             const std::vector<int>& millibits) {
  double bits = 0, keys = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    bits += runs[i].entries * millibits[i] / 1000.0;
    keys += runs[i].entries;
  }
  return bits / keys;
}

TEST(TieredPlanTest, EqualRunsShareTheBudgetEqually) {
  std::vector<SortedRun> runs(8);
  for (SortedRun& run : runs) {
    run.entries = 1e6;
    run.building = true;
  }
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, {}, &plan));
  for (int millibits : plan.millibits) EXPECT_EQ(millibits, plan.millibits[0]);
  EXPECT_LE(Spend(runs, plan.millibits), 10);
  EXPECT_GE(Spend(runs, plan.millibits), 9.99);
  EXPECT_NEAR(plan.bits_per_key, Spend(runs, plan.millibits), 1e-12);
}

// Every run being written (a tree rebuilt at once): the plan is Monkey's
// optimum for those runs, smaller runs at more bits, and beats uniform
// bits at the same memory.
TEST(TieredPlanTest, NewRunsAtTheOptimumForTheRuns) {
  const std::vector<SortedRun> runs = Doubling(true);
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, {}, &plan));
  std::vector<LevelShape> shape;
  for (const SortedRun& run : runs) shape.push_back({run.entries, 1, true});
  const FprModel bloom = FprModel::FastLocalBloom();
  const Plan optimum = PlanBitsPerKey(shape, 10, bloom);
  const Plan uniform = PlanUniform(shape, 10, bloom);
  EXPECT_NEAR(plan.false_positives / optimum.sum_fpr, 1, 0.005);
  EXPECT_LT(plan.false_positives, 0.8 * uniform.sum_fpr);
  EXPECT_LE(plan.bits_per_key, 10);
  for (size_t i = 1; i < runs.size(); ++i) {
    EXPECT_GT(plan.millibits[i - 1], plan.millibits[i]) << i;
  }
}

// A run a lookup reaches half the time (it covers half the key space) is
// worth fewer bits than one of its size that every lookup reaches.
TEST(TieredPlanTest, ARunReachedLessGetsFewerBits) {
  std::vector<SortedRun> runs = Doubling(true);
  runs[3].reach = 0.5;
  runs[4].entries = runs[3].entries;
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, {}, &plan));
  EXPECT_LT(plan.millibits[3], plan.millibits[4]);
}

// The runs that stay hold what the price gives them: the new run gets its
// bits at the price, as if the whole tree were being written.
TEST(TieredPlanTest, ANewRunGetsTheBitsOfItsSizeAtThePrice) {
  std::vector<SortedRun> runs = Doubling(true);
  TieredPlan all;
  ASSERT_TRUE(PlanTieredTree(runs, {}, &all));
  for (size_t i = 1; i < runs.size(); ++i) {
    runs[i].building = false;
    runs[i].filter_bits = runs[i].entries * all.millibits[i] / 1000.0;
  }
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, {}, &plan));
  EXPECT_EQ(plan.millibits[0], all.millibits[0]);
  EXPECT_NEAR(plan.false_positives, all.false_positives, 1e-9);
}

// Runs that stay over the budget by 30% (built under an earlier plan): the
// new run is built at fewer bits to bring the tree back -- fewer than a
// tree at 10% under the budget would give it, the leveled plan's bound,
// which left universal trees 6.5-8.3% over the budget -- but no fewer than
// a tree at 50% under it would (kTieredMaxCorrection).
TEST(TieredPlanTest, RunsOverTheBudgetLowerTheNewRunsBitsWithinABound) {
  std::vector<SortedRun> runs = Doubling(false);
  runs[0].building = true;
  for (size_t i = 1; i < runs.size(); ++i) {
    runs[i].filter_bits = 13 * runs[i].entries;
  }
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, {}, &plan));
  TieredPlan unbound;
  ASSERT_TRUE(PlanTieredTree(Doubling(true), {}, &unbound));
  TieredPlanOptions leveled_bound;
  leveled_bound.bits_per_key = 9;
  TieredPlan ten_percent;
  ASSERT_TRUE(PlanTieredTree(Doubling(true), leveled_bound, &ten_percent));
  TieredPlanOptions tight;
  tight.bits_per_key = 5;
  TieredPlan bound;
  ASSERT_TRUE(PlanTieredTree(Doubling(true), tight, &bound));
  EXPECT_LT(plan.millibits[0], unbound.millibits[0]);
  EXPECT_LT(plan.millibits[0], ten_percent.millibits[0]);
  EXPECT_GE(plan.millibits[0], bound.millibits[0]);
  EXPECT_GT(plan.bits_per_key, 10);  // the sunk runs' bits stay spent
}

// last_level_filter=false: the oldest run gets no filter and its keys stay
// out of the budget, which the others spend.
TEST(TieredPlanTest, TheOldestRunWithoutLastLevelFilter) {
  std::vector<SortedRun> runs = Doubling(true);
  TieredPlanOptions options;
  options.last_level_filter = false;
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, options, &plan));
  EXPECT_EQ(plan.millibits.back(), 0);
  std::vector<SortedRun> rest(runs.begin(), runs.end() - 1);
  std::vector<int> rest_bits(plan.millibits.begin(), plan.millibits.end() - 1);
  EXPECT_LE(Spend(rest, rest_bits), 10);
  EXPECT_GE(Spend(rest, rest_bits), 9.99);
  EXPECT_NEAR(plan.bits_per_key, Spend(rest, rest_bits), 1e-12);
}

// objective=memory: no more false positives than uniform bits_per_key, in
// fewer bits.
TEST(TieredPlanTest, MemoryObjectiveMeetsUniformInFewerBits) {
  const std::vector<SortedRun> runs = Doubling(true);
  TieredPlanOptions options;
  options.objective = Objective::kMemory;
  TieredPlan plan;
  ASSERT_TRUE(PlanTieredTree(runs, options, &plan));
  std::vector<LevelShape> shape;
  for (const SortedRun& run : runs) shape.push_back({run.entries, 1, true});
  const Plan uniform = PlanUniform(shape, 10, FprModel::FastLocalBloom());
  EXPECT_LE(plan.false_positives, uniform.sum_fpr * (1 + 1e-9));
  EXPECT_LT(plan.bits_per_key, 9.5);
}

TEST(TieredPlanTest, RejectsRunsItCannotPlan) {
  TieredPlan plan;
  plan.lambda = 42;
  EXPECT_FALSE(PlanTieredTree({}, {}, &plan));
  std::vector<SortedRun> runs = Doubling(true);
  runs[2].entries = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(PlanTieredTree(runs, {}, &plan));
  runs = Doubling(true);
  runs[2].filter_bits = -1;
  EXPECT_FALSE(PlanTieredTree(runs, {}, &plan));
  runs = Doubling(true);
  for (SortedRun& run : runs) run.entries = 0;
  EXPECT_FALSE(PlanTieredTree(runs, {}, &plan));
  EXPECT_EQ(plan.lambda, 42);
}

}  // namespace
}  // namespace monkey
