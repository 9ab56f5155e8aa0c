// Tests of the live plan (util/live_plan.h): settling L0, pricing runs,
// the budget band, and a simulated tree growing along many paths
// (tests/util/lsm_simulator.h) whose Sigma FPR must stay near the optimum
// for its realized shape and bytes.
#include "monkey/util/live_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "monkey/tests/util/lsm_simulator.h"
#include "monkey/util/shape_drift.h"

namespace monkey {
namespace {

using test::LsmSimulator;
using test::SimOptions;
using test::SimSnapshot;

LivePlan PlanOrDie(const std::vector<LiveLevel>& levels, double budget,
                   bool last_level_filter = true) {
  LivePlanOptions options;
  options.bits_per_key = budget;
  options.last_level_filter = last_level_filter;
  LivePlan plan;
  EXPECT_TRUE(PlanLiveTree(levels, options, &plan));
  return plan;
}

double Bits(const LivePlan& plan, int level) {
  return plan.plan.levels[level].millibits_per_key / 1000.0;
}

// A level of `entries` keys, `fluid` of them being written by a job in
// flight and the rest in files whose filters were built at `bits` per key.
LiveLevel Built(double entries, double bits, double fluid = 0) {
  LiveLevel level{entries, 1};
  level.AddBuilt(entries - fluid, bits * (entries - fluid), entries - fluid);
  level.fluid_entries = fluid;
  return level;
}

TEST(LivePlanTest, SettleL0FoldsL0IntoTheLevelItGoesTo) {
  std::vector<LevelShape> shape = {{300, 3}, {0, 0}, {1000, 0.5}, {9000, 1}};
  ASSERT_TRUE(SettleL0(&shape));
  EXPECT_EQ(shape[0].entries, 0);
  EXPECT_EQ(shape[2].entries, 1300);
  EXPECT_EQ(shape[2].runs, 1);  // what it and L0 reach, at most everything
  // L0 alone goes to a level below it.
  shape = {{300, 3}};
  ASSERT_TRUE(SettleL0(&shape));
  ASSERT_EQ(shape.size(), 2u);
  EXPECT_EQ(shape[1].entries, 300);
  // Not into a level that carries no filter: L0 then stays in the budget.
  shape = {{300, 3}, {9000, 1, false}};
  EXPECT_FALSE(SettleL0(&shape));
  EXPECT_EQ(shape[0].entries, 300);
}

// With nothing built yet, the live plan is the optimum for the settled tree
// at the budget: the same bits PlanBitsPerKey gives, to its 0.01-bit grid.
TEST(LivePlanTest, AFreshTreeGetsTheOptimum) {
  const LivePlan plan =
      PlanOrDie({{0, 0}, {0, 0}, {10000, 1}, {100000, 1}, {1000000, 1}}, 8);
  const Plan optimum =
      PlanBitsPerKey({{0, 0}, {0, 0}, {10000, 1}, {100000, 1}, {1000000, 1}}, 8,
                     FprModel::FastLocalBloom());
  for (int level = 2; level <= 4; ++level) {
    EXPECT_NEAR(Bits(plan, level), optimum.levels[level].bits_per_key, 0.02)
        << level;
  }
  EXPECT_NEAR(plan.new_file_budget, 8, 0.01);
  EXPECT_NEAR(plan.plan.bits_per_key(), 8, 0.01);
}

// Each L0 file is a run of its own: the same keys in more files are more,
// smaller runs, each worth more bits.
TEST(LivePlanTest, L0FilesArePricedAsTheRunsTheyAre) {
  const double one = Bits(PlanOrDie({{8000, 1}, {0, 0}, {100000, 1}}, 10), 0);
  const double four = Bits(PlanOrDie({{8000, 4}, {0, 0}, {100000, 1}}, 10), 0);
  EXPECT_GT(four, one + 1);
  // The budget is the settled tree's (L0 folded into L2): L0's files take
  // their premium on top while they last, and once they drain the tree
  // holds the budget.
  const LivePlan young = PlanOrDie({{40000, 4}, {0, 0}, {100000, 1}}, 10);
  EXPECT_NEAR(Bits(young, 2), 10, 0.05);
  EXPECT_NEAR(young.new_file_budget, 10, 0.05);
  EXPECT_GT(Bits(young, 0), Bits(young, 2) + 1);
}

// Under sequential keys files sit side by side, each reached by lookups in
// its own stretch: a key is worth the same wherever it is, and every level
// gets the same bits.
TEST(LivePlanTest, FilesSideBySideGetTheSameBits) {
  const LivePlan plan =
      PlanOrDie({{1000, 0.01}, {9000, 0.09}, {90000, 0.9}}, 8);
  EXPECT_NEAR(Bits(plan, 0), 8, 0.02);
  EXPECT_NEAR(Bits(plan, 1), 8, 0.02);
  EXPECT_NEAR(Bits(plan, 2), 8, 0.02);
}

// What the plan before this one got wrong (docs/design.md#live-plan): the last
// level's files were built when it was the only level, with the whole budget,
// and sit above its plan now. That overspend is the past's; the upper levels,
// rewritten most often, must not pay it back. Inside the band they get exactly
// what they get when nothing is overspent.
TEST(LivePlanTest, ALevelsOverspendIsNotTakenFromTheOthers) {
  const LivePlan fresh = PlanOrDie(
      {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {20000, 1}, {160000, 1}, {1280000, 1}},
      8.5);
  std::vector<LiveLevel> levels = {{0, 0},
                                   {0, 0},
                                   {0, 0},
                                   {0, 0},
                                   Built(20000, Bits(fresh, 4)),
                                   // A compaction writes new files into
                                   // L5: they are the fluid keys.
                                   Built(160000, Bits(fresh, 5), 20000),
                                   Built(1280000, Bits(fresh, 6) + 0.2)};
  const LivePlan overspent = PlanOrDie(levels, 8.5);
  EXPECT_EQ(Bits(overspent, 4), Bits(fresh, 4));
  EXPECT_EQ(Bits(overspent, 5), Bits(fresh, 5));
  EXPECT_EQ(Bits(overspent, 6), Bits(fresh, 6));
}

// A fast load with dynamic sizing on leaves the tree upside down: RocksDB
// merged a backed-up L0 into L4, which now holds almost four times the
// last level's keys (the 1 MiB matrix cell of docs/design.md#backlogs).
// The last level's new files are priced halfway in bits between the small
// level it is for now and the level it drains to -- over 400,000 keys once
// L4 and L5 are back within their targets: a level of the geometric mean
// of the two sizes. The levels above are planned as they are. Without the
// sizing the plan cannot tell, and plans the levels as they are.
TEST(LivePlanTest, ABacklogIsPlannedForTheLevelItDrainsTo) {
  const std::vector<LiveLevel> upside_down = {
      {0, 0}, {0, 0}, {0, 0}, {0, 0}, {360000, 1}, {30000, 1}, {100000, 1}};
  LivePlanOptions options;
  options.bits_per_key = 8;
  LivePlan as_is;
  ASSERT_TRUE(PlanLiveTree(upside_down, options, &as_is));
  options.sizing.dynamic = true;
  options.sizing.base_level_entries = 9000;
  options.sizing.multiplier = 6;
  options.sizing.num_levels = 7;
  LivePlan backlog;
  ASSERT_TRUE(PlanLiveTree(upside_down, options, &backlog));
  const std::vector<double> drained =
      DrainedEntries({0, 0, 0, 0, 360000, 30000, 100000}, options.sizing);
  EXPECT_GT(drained[6], 400000);
  // The last level gets what a level of that size gets at the price the
  // levels above are planned at.
  const FprModel bloom = ModelForLevel(FilterChoice::kBloom, 6);
  EXPECT_EQ(
      backlog.plan.levels[6].millibits_per_key,
      PlanRun(std::sqrt(100000 * drained[6]), 1, backlog.plan.lambda, bloom));
  EXPECT_LT(Bits(backlog, 6), Bits(as_is, 6) - 0.5);
  // The budget holds on the tree as it is; the levels above get more.
  EXPECT_NEAR(backlog.new_file_budget, 8, 0.01);
  EXPECT_GT(Bits(backlog, 4), Bits(as_is, 4));
  // A tree with no backlog is planned the same either way.
  const std::vector<LiveLevel> settled = {
      {0, 0}, {0, 0}, {0, 0}, {0, 0}, {8000, 1}, {50000, 1}, {300000, 1}};
  LivePlan plain, sized;
  options.sizing = LevelSizing();
  ASSERT_TRUE(PlanLiveTree(settled, options, &plain));
  options.sizing.dynamic = true;
  options.sizing.base_level_entries = 9000;
  options.sizing.multiplier = 6;
  ASSERT_TRUE(PlanLiveTree(settled, options, &sized));
  for (int level = 4; level <= 6; ++level) {
    EXPECT_EQ(Bits(sized, level), Bits(plain, level)) << "L" << level;
  }
}

// Outside the band the price moves, in the direction that brings L1 and
// below back, and by no more than 10% of the budget.
TEST(LivePlanTest, TheBudgetIsHeldOutsideTheBand) {
  const std::vector<LiveLevel> fresh = {{0, 0}, {10000, 1}, {100000, 1}};
  const LivePlan neutral = PlanOrDie(fresh, 10);
  for (double built : {7.0, 13.0}) {
    // L2's 10,000 keys being rewritten.
    const std::vector<LiveLevel> levels = {
        {0, 0}, Built(10000, built), Built(100000, built, 10000)};
    const LivePlan plan = PlanOrDie(levels, 10);
    SCOPED_TRACE(built);
    if (built < 10) {
      EXPECT_GT(Bits(plan, 2), Bits(neutral, 2));
      EXPECT_LE(plan.new_file_budget, 11.01);
    } else {
      EXPECT_LT(Bits(plan, 2), Bits(neutral, 2));
      EXPECT_GE(plan.new_file_budget, 8.99);
    }
  }
}

// Files whose filters the listener has not seen (a column family other
// than the default after a reopen) are neither sunk nor fluid: until a
// tenth of the keys are known, nothing is corrected.
TEST(LivePlanTest, UnknownFiltersAreNotCorrectedFor) {
  std::vector<LiveLevel> levels = {{0, 0}, {10000, 1}, {100000, 1}};
  levels[2].AddBuilt(5000, 5000 * 20.0, 5000);  // far over, 4.5% known
  EXPECT_EQ(Bits(PlanOrDie(levels, 10), 2),
            Bits(PlanOrDie({{0, 0}, {10000, 1}, {100000, 1}}, 10), 2));
}

TEST(LivePlanTest, NoFilterOnTheLastLevelWhenAsked) {
  const LivePlan plan = PlanOrDie({{500, 2}, {10000, 1}, {90000, 1}}, 7, false);
  EXPECT_EQ(Bits(plan, 2), 0);
  EXPECT_GT(Bits(plan, 1), 6);
  EXPECT_GT(Bits(plan, 0), Bits(plan, 1));
}

// A level between no filter and its least filter has nothing buildable in
// between: RocksDB drops a Bloom setting under 0.5 bits and builds 1 bit
// from there, and Ribbon's least filter is one column (1.045 real bits
// here). Planned 0.7 bits, a Bloom level got 1 bit, 43% over its budget;
// planned 1 bit, a Ribbon level got 1.045. Found by fuzz/live_plan_fuzzer.
TEST(LivePlanTest, NoLevelIsPlannedBetweenNoFilterAndItsLeast) {
  for (FilterChoice filter : {FilterChoice::kBloom, FilterChoice::kRibbon}) {
    for (double budget : {0.3, 0.7, 1.0, 1.02}) {
      LivePlanOptions options;
      options.bits_per_key = budget;
      options.filter = filter;
      LivePlan plan;
      ASSERT_TRUE(PlanLiveTree({{0, 0}, {1e6, 1}}, options, &plan));
      const int m = plan.plan.levels[1].millibits_per_key;
      const FprModel model = ModelForLevel(filter, 1);
      EXPECT_TRUE(m == 0 || m >= model.min_bits() * 1000 - 1e-9)
          << "budget " << budget << ", filter " << static_cast<int>(filter)
          << ": " << m << " millibits";
      EXPECT_LE(m, budget * 1000);
    }
  }
}

// A level of a fraction of a key (a count estimated from bytes) finds a
// filter worth its bits at any price the plan tries; the plan then gave it
// 14.5 bits against a budget of 0. Found by fuzz/live_plan_fuzzer.
TEST(LivePlanTest, NoPriceHighEnoughMeansNoFilter) {
  LivePlanOptions options;
  options.bits_per_key = 0;
  options.last_level_filter = false;
  LivePlan plan;
  ASSERT_TRUE(
      PlanLiveTree({{0, 0}, {2.7e-11, 1}, {0, 0}, {2.4, 1}}, options, &plan));
  for (const LevelPlan& level : plan.plan.levels) {
    EXPECT_EQ(level.millibits_per_key, 0);
  }
  EXPECT_EQ(plan.new_file_budget, 0);
}

// L0 cannot settle into a level that carries no filter (SettleL0), so with
// last_level_filter=false a young tree of L0 over the last level alone --
// dynamic sizing's base level is the last on a small DB -- has only L0 in
// its budget. Counted nowhere, it spent nothing at any price, and the plan
// gave L0's files the hull's top, 48 bits a key at a budget of 10.
TEST(LivePlanTest, AnL0OverAnUnfilteredLastLevelHoldsTheBudget) {
  const LivePlan plan = PlanOrDie(
      {{1000, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {100000, 1}}, 10,
      /*last_level_filter=*/false);
  EXPECT_NEAR(Bits(plan, 0), 10, 0.1);
  EXPECT_EQ(plan.plan.levels[6].millibits_per_key, 0);
  EXPECT_NEAR(plan.new_file_budget, 10, 0.1);
}

// The correction and its bound can sit at one price, on one hull segment,
// at different mixes (Ribbon's vertices are 1.045 bits apart): judged by
// their prices, the correction won and priced new files at 1.94 bits for
// a budget of 1. Found by fuzz/live_plan_fuzzer.
TEST(LivePlanTest, TheCorrectionStaysWithinItsBound) {
  LivePlanOptions options;
  options.bits_per_key = 1;
  options.filter = FilterChoice::kRibbon;
  options.last_level_filter = false;
  LiveLevel l4 = Built(47588, 0, /*fluid=*/23794);
  LivePlan plan;
  ASSERT_TRUE(
      PlanLiveTree({{0, 0}, {0, 0}, {0, 0}, {0, 0}, l4, {0, 0}, {66341164, 1}},
                   options, &plan));
  EXPECT_LE(plan.new_file_budget, 1.1 + 1e-9);
  EXPECT_LE(plan.plan.levels[4].millibits_per_key, 1100);
}

// A level above the last that the live shape holds no keys in is written by
// a job no listener heard of (DB::CompactFiles): it is priced as the level
// right above the next one down. L0, levels below the last and unknown
// levels get the average budget.
TEST(LivePlanTest, UnplannedLevelsArePlannedAboveTheNextLevelDown) {
  LivePlanOptions options;
  options.bits_per_key = 7.5;
  LivePlan plan;
  ASSERT_TRUE(PlanLiveTree({{0, 0}, {0, 0}, {1000, 1}}, options, &plan));
  const int l2 = plan.plan.levels[2].millibits_per_key;
  EXPECT_EQ(LiveMillibitsForLevel(plan, 2, options), l2);
  const int l1 = LiveMillibitsForLevel(plan, 1, options);
  EXPECT_EQ(l1, PlanRun(100, 1, plan.plan.lambda, FprModel::FastLocalBloom()));
  EXPECT_GT(l1, l2 + 2000);  // ln(10)/ln(2)^2 = 4.8 bits more, on the hull
  options.sizing.dynamic = true;
  options.sizing.base_level_entries = 100;
  options.sizing.multiplier = 4;
  const int l1_at_4 = LiveMillibitsForLevel(plan, 1, options);
  EXPECT_LT(l1_at_4, l1);
  EXPECT_GT(l1_at_4, l2);
  EXPECT_EQ(LiveMillibitsForLevel(plan, 0, options), 7500);
  EXPECT_EQ(LiveMillibitsForLevel(plan, 5, options), 7500);  // below it
  EXPECT_EQ(LiveMillibitsForLevel(plan, -1, options), 7500);
  EXPECT_FALSE(PlanLiveTree({}, options, &plan));
  EXPECT_FALSE(PlanLiveTree({{0, 0}, {0, 0}}, options, &plan));
}

// A flush into an empty L0 is built before the plan that projects it: it
// gets what the next flush's run is worth at the plan's price, which
// ProjectLiveShape carries in L0 (a run of the last flush's size).
TEST(LivePlanTest, AnEmptyL0IsPricedAsTheNextFlush) {
  LivePlanOptions options;
  options.bits_per_key = 10;
  std::vector<LiveLevel> tree = {{0, 0}, {10000, 1}, {100000, 1}};
  LivePlan plan;
  ASSERT_TRUE(PlanLiveTree(tree, options, &plan));
  EXPECT_EQ(LiveMillibitsForLevel(plan, 0, options), 10000);  // unknown
  tree[0].next_flush_entries = 1000;
  tree[0].next_flush_runs = 1;
  ASSERT_TRUE(PlanLiveTree(tree, options, &plan));
  const int l0 = LiveMillibitsForLevel(plan, 0, options);
  EXPECT_EQ(l0, PlanRun(1000, 1, plan.plan.lambda, FprModel::FastLocalBloom()));
  EXPECT_GT(l0, plan.plan.levels[1].millibits_per_key + 2000);
  // The same run in L0 prices it the same: the estimate changes nothing
  // once the plan sees the run itself.
  std::vector<LiveLevel> with_run = tree;
  with_run[0] = {1000, 1};
  LivePlan seen;
  ASSERT_TRUE(PlanLiveTree(with_run, options, &seen));
  EXPECT_NEAR(seen.plan.levels[0].millibits_per_key, l0, 300);
}

// objective=io: a tree of 4 L0 files over 4 levels, 200 bytes a key in
// 4 KiB data blocks, an index of 1/50 of the data in one block a file, its
// filters in 4 KiB partitions.
std::vector<LiveLevel> IoTree() {
  std::vector<LiveLevel> tree = {{80000, 4}, {200000, 1}, {2e6, 1}, {2e7, 1}};
  for (LiveLevel& level : tree) {
    level.bytes = 200 * level.entries;
    level.files = level.bytes / (2 << 20);
  }
  tree[0].files = 4;
  return tree;
}

LivePlanOptions IoOptions(double cache_bytes) {
  LivePlanOptions options;
  options.bits_per_key = 10;
  options.objective = Objective::kIo;
  options.cache.cache_bytes = cache_bytes;
  options.cache.partition_bytes = 4096;
  options.cache.per_byte.index_bytes = 1.0 / 50;
  return options;
}

// The runs of IoTree as PlanBitsForCache sees them.
std::vector<CacheRunToPlan> IoRuns(const std::vector<LiveLevel>& tree,
                                   const LivePlanOptions& options) {
  std::vector<CacheRunToPlan> runs;
  for (const LiveLevel& level : tree) {
    CacheRunToPlan r;
    r.run = CachedFiles(level.runs, level.files, level.bytes, options.cache);
    r.filter_entries = level.entries;
    r.files = level.files;
    runs.push_back(r);
  }
  return runs;
}

std::vector<double> BitsOf(const LivePlan& plan) {
  std::vector<double> bits;
  for (const LevelPlan& level : plan.plan.levels) {
    bits.push_back(level.millibits_per_key / 1000.0);
  }
  return bits;
}

// At every cache, the plan's modelled reads are its bits' (as RocksDB
// builds them), and they cost no more than the budget plan's, or uniform
// 10 bits'.
TEST(LivePlanTest, TheIoObjectiveCostsNoMoreThanTheBudgetsPlan) {
  const std::vector<LiveLevel> tree = IoTree();
  const FprModel bloom = FprModel::FastLocalBloom();
  double filter_bytes = 0;
  for (const LiveLevel& level : tree) filter_bytes += level.entries * 10 / 8;
  for (double share : {0.05, 0.2, 1.0, 2.0}) {
    const LivePlanOptions options = IoOptions(share * filter_bytes);
    const std::vector<CacheRunToPlan> runs = IoRuns(tree, options);
    const auto cost = [&](const std::vector<double>& bits) {
      return ReadsWithBits(runs, bits, bloom, options.cache)
          .Cost(options.cache.read_latency_bytes);
    };
    LivePlan io;
    ASSERT_TRUE(PlanLiveTree(tree, options, &io));
    const LivePlan budget = PlanOrDie(tree, 10);
    const double io_cost =
        io.block_reads.Cost(options.cache.read_latency_bytes);
    EXPECT_DOUBLE_EQ(io_cost, cost(BitsOf(io))) << share;
    EXPECT_LE(io_cost, cost(BitsOf(budget))) << share;
    EXPECT_LE(io_cost, cost(std::vector<double>(4, 10))) << share;
  }
}

// Under pressure every lookup reads a filter partition of each run, cached
// or not: L0's four runs, read at every lookup, are better off with small
// filters that stay cached; the last level keeps at least the budget's.
// (Under the budget's memory, single-run steps on the half-bit grid do not
// yet hand the bits L0 gives up to the last level: at 2e5 bytes it stays
// at the budget plan's 9.391.)
TEST(LivePlanTest, TheIoObjectiveMovesBitsDownUnderPressure) {
  const std::vector<LiveLevel> tree = IoTree();
  const LivePlan budget = PlanOrDie(tree, 10);
  for (double cache_bytes : {2e5, 1e6}) {
    LivePlan io;
    ASSERT_TRUE(PlanLiveTree(tree, IoOptions(cache_bytes), &io));
    EXPECT_LT(Bits(io, 0), Bits(budget, 0) - 5) << cache_bytes;
    EXPECT_GE(Bits(io, 3), Bits(budget, 3)) << cache_bytes;
  }
}

// Planned to the cache's edge, a growing tree's filters go over it: the
// plan's filter bits are never more than the budget's plan's, or
// kMostCacheShareForFilters of a cache that holds more. A cache of twice
// the budget's filters buys more bits, and fewer reads than the budget's.
TEST(LivePlanTest, TheIoObjectiveSpendsTheBudgetOrAShareOfALargerCache) {
  const std::vector<LiveLevel> tree = IoTree();
  const LivePlan budget = PlanOrDie(tree, 10);
  const FprModel bloom = FprModel::FastLocalBloom();
  double filter_bytes = 0;
  for (const LiveLevel& level : tree) filter_bytes += level.entries * 10 / 8;
  for (double share : {0.05, 0.2, 1.0, 2.0, 10.0}) {
    const LivePlanOptions options = IoOptions(share * filter_bytes);
    const std::vector<CacheRunToPlan> runs = IoRuns(tree, options);
    LivePlan io;
    ASSERT_TRUE(PlanLiveTree(tree, options, &io));
    const double io_bits = FilterBitsOf(runs, BitsOf(io));
    const double budget_bits = FilterBitsOf(runs, BitsOf(budget));
    if (kMostCacheShareForFilters * share < 1) {
      EXPECT_LE(io_bits, budget_bits) << share;
      continue;
    }
    EXPECT_LE(io_bits / 8, kMostCacheShareForFilters * share * filter_bytes)
        << share;
    EXPECT_GT(io_bits, 1.2 * budget_bits) << share;
    EXPECT_LT(io.block_reads.Cost(options.cache.read_latency_bytes),
              ReadsWithBits(runs, BitsOf(budget), bloom, options.cache)
                  .Cost(options.cache.read_latency_bytes))
        << share;
  }
}

TEST(LivePlanTest, TheIoObjectiveWithoutACacheIsTheBudgetsPlan) {
  const std::vector<LiveLevel> tree = IoTree();
  LivePlan io;
  ASSERT_TRUE(PlanLiveTree(tree, IoOptions(0), &io));
  EXPECT_EQ(BitsOf(io), BitsOf(PlanOrDie(tree, 10)));
}

// Full filters are planned for their reads' bytes too: within the
// budget's filter memory (or the share of a larger cache), and costing no
// more than its plan. Counted as reads alone, full filters took 32
// bits/key.
TEST(LivePlanTest, TheIoObjectivePlansFullFiltersWithinTheBudget) {
  const std::vector<LiveLevel> tree = IoTree();
  const LivePlan budget = PlanOrDie(tree, 10);
  for (double cache_bytes : {0.0, 2e5, 1e6, 1e8}) {
    LivePlanOptions options = IoOptions(cache_bytes);
    options.cache.partition_bytes = 0;
    EXPECT_EQ(PlansForCache(options), cache_bytes > 0);
    const std::vector<CacheRunToPlan> runs = IoRuns(tree, options);
    LivePlan io;
    ASSERT_TRUE(PlanLiveTree(tree, options, &io));
    EXPECT_LE(
        FilterBitsOf(runs, BitsOf(io)),
        MostFilterBitsFor(options.cache, FilterBitsOf(runs, BitsOf(budget))))
        << cache_bytes;
    if (cache_bytes == 0) continue;
    const FprModel bloom = FprModel::FastLocalBloom();
    EXPECT_LE(io.block_reads.Cost(options.cache.read_latency_bytes),
              ReadsWithBits(runs, BitsOf(budget), bloom, options.cache)
                  .Cost(options.cache.read_latency_bytes))
        << cache_bytes;
  }
}

TEST(LivePlanTest, TheIoObjectiveKeepsTheLastLevelUnfilteredWhenAsked) {
  const std::vector<LiveLevel> tree = IoTree();
  LivePlanOptions options = IoOptions(1e6);
  options.last_level_filter = false;
  LivePlan io;
  ASSERT_TRUE(PlanLiveTree(tree, options, &io));
  EXPECT_EQ(Bits(io, 3), 0);
  EXPECT_EQ(LiveMillibitsForLevel(io, 3, options), 0);
  EXPECT_GT(Bits(io, 2), 0);
}

// An empty L0 is planned as the next flush's run, among the others; with
// no flush known, and for a level out of the plan, the average budget.
TEST(LivePlanTest, TheIoObjectivePlansAnEmptyL0AsTheNextFlush) {
  std::vector<LiveLevel> tree = IoTree();
  tree[0] = LiveLevel();
  const LivePlanOptions options = IoOptions(1e6);
  LivePlan io;
  ASSERT_TRUE(PlanLiveTree(tree, options, &io));
  EXPECT_EQ(LiveMillibitsForLevel(io, 0, options), 10000);
  EXPECT_EQ(LiveMillibitsForLevel(io, 6, options), 10000);
  tree[0].next_flush_entries = 20000;
  tree[0].next_flush_runs = 1;
  ASSERT_TRUE(PlanLiveTree(tree, options, &io));
  std::vector<LiveLevel> with_run = tree;
  with_run[0] = {20000, 1};
  with_run[0].files = 1;
  with_run[0].bytes = 200 * 20000;
  LivePlan seen;
  ASSERT_TRUE(PlanLiveTree(with_run, options, &seen));
  EXPECT_EQ(LiveMillibitsForLevel(io, 0, options),
            seen.plan.levels[0].millibits_per_key);
}

// objective=memory: the least bits whose Sigma FPR meets the target, by
// default the Sigma FPR uniform bits_per_key gives the same tree.
TEST(LivePlanTest, TheMemoryObjectiveMeetsItsTarget) {
  const std::vector<LiveLevel> tree = {
      {0, 0}, {0, 0}, {10000, 1}, {100000, 1}, {1000000, 1}};
  LivePlanOptions options;
  options.bits_per_key = 10;
  options.objective = Objective::kMemory;
  LivePlan plan;
  ASSERT_TRUE(PlanLiveTree(tree, options, &plan));
  const double uniform =
      PlanUniform(plan.shape, 10, FprModel::FastLocalBloom()).sum_fpr;
  EXPECT_LE(plan.plan.sum_fpr, uniform);
  EXPECT_GT(plan.plan.sum_fpr, 0.99 * uniform);
  EXPECT_LT(plan.plan.bits_per_key(), 0.93 * 10);  // 3 runs: ~8.3 bits
  options.max_sum_fpr = 0.02;
  ASSERT_TRUE(PlanLiveTree(tree, options, &plan));
  EXPECT_LE(plan.plan.sum_fpr, 0.02);
  EXPECT_GT(plan.plan.sum_fpr, 0.99 * 0.02);
  // The least bits: within 0.5% of the budget at which the budget's plan
  // reaches the same Sigma FPR.
  LivePlanOptions budget;
  budget.bits_per_key = plan.plan.bits_per_key() * 0.995;
  LivePlan cheaper;
  ASSERT_TRUE(PlanLiveTree(tree, budget, &cheaper));
  EXPECT_GT(cheaper.plan.sum_fpr, 0.02);
}

// Its band holds the tree's Sigma FPR: filters built too weak for the
// target make new files stronger.
TEST(LivePlanTest, TheMemoryObjectiveHoldsItsTargetAsABudget) {
  LivePlanOptions options;
  options.objective = Objective::kMemory;
  options.max_sum_fpr = 0.02;
  LivePlan fresh;
  ASSERT_TRUE(PlanLiveTree({{0, 0}, {10000, 1}, {100000, 1}}, options, &fresh));
  const std::vector<LiveLevel> weak = {
      {0, 0}, Built(10000, 6), Built(100000, 6, 10000)};
  LivePlan plan;
  ASSERT_TRUE(PlanLiveTree(weak, options, &plan));
  EXPECT_GT(Bits(plan, 2), Bits(fresh, 2));
}

// A level's files built at different bits are counted at their own FPRs:
// half at 3 bits under the plan's and half at 3 over it fail twice as
// many lookups as all at the plan's (FPR is convex in bits), and new files
// make up for it, as far as the band's correction goes (8.59 bits to
// 9.47). Counted at their mean bits, they looked on target.
TEST(LivePlanTest, TheMemoryObjectiveCountsEachFileAtItsOwnBits) {
  LivePlanOptions options;
  options.objective = Objective::kMemory;
  options.max_sum_fpr = 0.02;
  LivePlan fresh;
  ASSERT_TRUE(PlanLiveTree({{0, 0}, {10000, 1}, {100000, 1}}, options, &fresh));
  const double bits = Bits(fresh, 2);
  const std::vector<LiveLevel> even = {
      {0, 0}, Built(10000, Bits(fresh, 1)), Built(100000, bits, 10000)};
  LiveLevel mixed{100000, 1};
  mixed.AddBuilt(45000, 45000 * (bits - 3), 45000);
  mixed.AddBuilt(45000, 45000 * (bits + 3), 45000);
  mixed.fluid_entries = 10000;
  const std::vector<LiveLevel> uneven = {
      {0, 0}, Built(10000, Bits(fresh, 1)), mixed};
  LivePlan on_plan, made_up;
  ASSERT_TRUE(PlanLiveTree(even, options, &on_plan));
  ASSERT_TRUE(PlanLiveTree(uneven, options, &made_up));
  EXPECT_EQ(Bits(on_plan, 2), Bits(fresh, 2));
  EXPECT_GT(Bits(made_up, 2), Bits(fresh, 2) + 0.5);
}

// One growth path of the simulated tree, and what it is held to.
struct Path {
  SimOptions sim;
  LivePlanOptions plan;
  int memtables = 64;
};

std::string Describe(const Path& p) {
  char buf[256];
  snprintf(buf, sizeof(buf),
           "memtable %g keys, base %gx, T=%g, dynamic %d, %s, speed %g, "
           "%d memtables, budget %g, %s, last_level_filter %d, seed %d, %s",
           p.sim.memtable_keys, p.sim.base_level_keys / p.sim.memtable_keys,
           p.sim.size_ratio, p.sim.dynamic,
           p.sim.sequential ? "sequential" : "random", p.sim.compaction_speed,
           p.memtables, p.plan.bits_per_key,
           p.plan.filter == FilterChoice::kRibbon ? "ribbon" : "bloom",
           p.plan.last_level_filter, static_cast<int>(p.sim.seed),
           p.sim.settle_snapshots ? "settled steps" : "mid-load steps");
  return buf;
}

// Random paths over the load regimes grow_tree's matrix runs on a real DB,
// and more: memtables of 200 to 5000 keys, files half to twice that, base
// levels 1-4x the memtable, dynamic sizing on and off, loads that
// compactions keep up with and loads that back L0 and the upper levels up
// (speed 3 backs L0 up to a dozen files, as a WAL-less bulk load does in
// RocksDB), sequential keys, budgets of 6 to 14 bits, Bloom and Ribbon, and
// no last-level filter (with dynamic sizing on).
std::vector<Path> Paths(int count, uint64_t seed,
                        std::initializer_list<double> size_ratios) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::initializer_list<double> values) {
    std::vector<double> v(values);
    return v[rng() % v.size()];
  };
  std::vector<Path> paths;
  for (int i = 0; i < count; ++i) {
    Path p;
    p.sim.memtable_keys = pick({200, 1000, 5000});
    p.sim.file_keys = p.sim.memtable_keys * pick({0.5, 1, 2});
    p.sim.base_level_keys = p.sim.memtable_keys * pick({1, 2, 4});
    p.sim.size_ratio = pick(size_ratios);
    p.sim.dynamic = rng() % 2;
    p.sim.sequential = rng() % 5 == 0;
    p.sim.compaction_speed = pick({3, 5, 20, 50});
    p.sim.compaction_threads = static_cast<int>(pick({1, 2}));
    p.sim.settle_snapshots = rng() % 2;
    p.sim.seed = i;
    p.memtables = static_cast<int>(pick({48, 96, 160}));
    p.plan.bits_per_key = pick({6, 8, 10, 14});
    p.plan.filter =
        rng() % 4 == 0 ? FilterChoice::kRibbon : FilterChoice::kBloom;
    // No filter on the last level only where the last level stays last:
    // with dynamic sizing off, a young tree's deepest level becomes a middle
    // level as the tree grows, and its files keep the no-filter they were
    // built with until rewritten (../shared/rocksdb-facts.md, "Growing
    // trees"; docs/design.md). No allocation can make up for that. And not
    // under sequential keys, where files move down whole: a file's filter is
    // chosen when it is flushed, before anyone knows whether it ends in the
    // last level or above it.
    p.plan.last_level_filter =
        !p.sim.dynamic || p.sim.sequential || rng() % 4 != 0;
    paths.push_back(p);
  }
  return paths;
}

// What was wrong with a path, or "" if nothing was. The bounds of grow_tree
// --matrix on a real DB (docs/design.md): Sigma FPR within 1.25x of the
// optimum for the realized shape and bytes at every step and 1.10x once
// settled; the budget within 5% at every settled step from a quarter of the
// load on, where L0 holds under a tenth of the keys the budget covers.
// L0's few files are small runs worth more bits than the rest: a young
// tree, or one whose budget covers only the levels above the last
// (last_level_filter=false), has them hold a larger share, and its budget
// moves by their premium (docs/design.md has the measurements). Mid-load,
// an L0 backlog holds the memory its filters need, so only Sigma FPR is
// held there.
// A path of 9,000-key memtables and files, the base level `base` memtables,
// re-planning on drift as the listener does.
Path SmallMemtablePath(double base, double ratio, bool dynamic, double speed) {
  Path p;
  p.sim.memtable_keys = 9000;
  p.sim.file_keys = 9000;
  p.sim.base_level_keys = base * 9000;
  p.sim.size_ratio = ratio;
  p.sim.dynamic = dynamic;
  p.sim.compaction_speed = speed;
  p.sim.refresh_drift = ShapeDrift::kDefaultTolerance;
  return p;
}

std::vector<SimSnapshot> Simulate(const Path& p) {
  const int m = p.memtables;
  return LsmSimulator(p.sim, p.plan).Run(m, {m / 4, m / 2, 3 * m / 4, m});
}

std::string Violation(const Path& p,
                      const std::vector<SimSnapshot>& snapshots) {
  char buf[256];
  for (const SimSnapshot& s : snapshots) {
    const double budget = s.bits_per_key / p.plan.bits_per_key - 1;
    const char* what = nullptr;
    if (s.ratio() > 1.25) {
      what = "Sigma FPR over 1.25x the optimum";
    } else if (s.settled && s.bits_per_key > 0 && s.l0_share < 0.1 &&
               std::fabs(budget) > 0.05) {
      what = "budget off by over 5%";
    } else if (&s == &snapshots.back() && s.ratio() > 1.10) {
      what = "Sigma FPR over 1.10x the optimum once settled";
    }
    if (what != nullptr) {
      snprintf(buf, sizeof(buf),
               "%s: %.0f keys, %s%s, ratio %.3f, budget %+.1f%%, L0 share "
               "%.2f",
               what, s.keys_written, s.levels.c_str(),
               s.settled ? " settled" : " mid-load", s.ratio(), budget * 100,
               s.l0_share);
      return std::string(buf) + " (" + Describe(p) + ")";
    }
  }
  return "";
}

std::string Violation(const Path& p) { return Violation(p, Simulate(p)); }

// Random growth paths: at most 3% may leave the bounds (1.3% of 3000 did
// in the last run of the test below). The ones that do
// are fast loads with dynamic sizing off or L0 a large share of the keys
// the budget covers (a young tree, last_level_filter=false): levels backed
// up far past their targets leave files whose bits were right for the
// level they were built in, not for the settled one, and L0's premium
// moves a small budget. The list prints, for when the plan changes.
int OutOfBounds(const std::vector<Path>& paths) {
  int out = 0;
  for (const Path& p : paths) {
    const std::string violation = Violation(p);
    if (violation.empty()) continue;
    ++out;
    printf("%s\n", violation.c_str());
  }
  printf("%d of %zu paths out of bounds\n", out, paths.size());
  return out;
}

TEST(LivePlanSimulationTest, GrowthPathsStayNearTheOptimum) {
  const std::vector<Path> paths = Paths(400, 1, {4, 6, 8, 10, 12});
  EXPECT_LE(OutOfBounds(paths), 0.03 * paths.size());
}

// The regime the plan before this one failed in, pinned: a fast bulk load
// into a small base level with
// dynamic sizing on, the upper levels backed up, settled at every step. The
// controller before this plan (a proportional one on the realized average)
// starved the upper levels here.
TEST(LivePlanSimulationTest, AFastLoadKeepsTheUpperLevelsFed) {
  for (double ratio : {6.0, 8.0, 10.0}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Path p;
      p.sim.memtable_keys = 1000;
      p.sim.file_keys = 1000;
      p.sim.base_level_keys = 2000;
      p.sim.size_ratio = ratio;
      p.sim.dynamic = true;
      p.sim.compaction_speed = 3;
      p.sim.seed = seed;
      p.sim.settle_snapshots = true;
      p.memtables = 160;
      p.plan.bits_per_key = 8.5;
      EXPECT_EQ(Violation(p), "");
    }
  }
}

// Fast bulk loads into a tree with dynamic sizing on, the compactions one
// memtable's keys per memtable written behind (speed 1) or two: RocksDB
// 7.x merges the backed-up L0 into the base level whole, the tree turns
// upside down, and then drains into the last level. The sizes are the
// 1 MiB row of grow_tree's matrix (9,000 keys of 116 bytes per memtable,
// base level 1-4x the memtable, T = 6, 8, 10, 64 memtables, 8 bits/key).
// Once settled every path is within 1.10x of the optimum for its shape and
// bytes, and within 5% of the budget. Planned without the sizing (the
// levels as they are), the last level's files were priced as the small
// level it was mid-load, and two paths settled at 1.126x and 1.128x (the
// real DB's cell: 1.10-1.16x). Planning the last level for what drains
// into it costs the upside-down tree mid-load; docs/design.md has the
// figures.
TEST(LivePlanSimulationTest, AFastLoadSettlesNearTheOptimum) {
  int paths = 0;
  double worst = 0;
  for (double speed : {1.0, 2.0}) {
    for (double ratio : {6.0, 8.0, 10.0}) {
      for (double base : {1.0, 2.0, 4.0}) {
        Path p = SmallMemtablePath(base, ratio, /*dynamic=*/true, speed);
        p.memtables = 64;
        p.plan.bits_per_key = 8;
        const SimSnapshot end = Simulate(p).back();
        ASSERT_TRUE(end.settled);
        EXPECT_LE(end.ratio(), 1.10) << Describe(p);
        EXPECT_LE(std::fabs(end.bits_per_key / 8 - 1), 0.05) << Describe(p);
        worst = std::max(worst, end.ratio());
        ++paths;
      }
    }
  }
  printf("%d fast loads, worst settled ratio %.3f\n", paths, worst);
}

// objective=memory holds its target as a ceiling: over 36 growth paths to
// 2M keys, measured at settled steps with L0 drained, the tree's Sigma FPR
// is near the target of its shape on average, not over it. With the band
// around the target: 1.035x on average, 52 of 169 steps over 1.05x; with
// the band under it: 1.008x and 24, for 0.6% more bits (9.328 per key
// on average, against 9.271).
TEST(LivePlanSimulationTest, TheMemoryObjectiveHoldsItsTargetAsACeiling) {
  double sum = 0, bits = 0;
  int steps = 0, over = 0;
  for (double speed : {3.0, 20.0}) {
    for (double ratio : {6.0, 8.0, 10.0}) {
      for (double base : {1.0, 2.0, 4.0}) {
        for (bool dynamic : {true, false}) {
          Path p = SmallMemtablePath(base, ratio, dynamic, speed);
          p.sim.settle_snapshots = true;
          p.memtables = 224;
          p.plan.bits_per_key = 10;
          p.plan.objective = Objective::kMemory;
          for (const SimSnapshot& s : Simulate(p)) {
            if (s.shape[0].entries > 0) continue;  // L0's files count
            const double target =
                PlanUniform(
                    s.shape, 10,
                    ModelsForLevels(FilterChoice::kBloom, s.shape.size()))
                    .sum_fpr;
            sum += s.sum_fpr / target;
            over += s.sum_fpr / target > 1.05;
            bits += s.bits_per_key;
            ++steps;
          }
        }
      }
    }
  }
  printf(
      "%d settled steps: Sigma FPR %.3fx the target on average, %d over "
      "1.05x, %.3f bits per key\n",
      steps, sum / steps, over, bits / steps);
  EXPECT_LE(sum / steps, 1.015);
  EXPECT_LE(over, steps / 5);
}

// The listener re-plans only when the tree has drifted (util/shape_drift.h),
// not at every flush and compaction event. On the same growth paths that
// costs at most 5% of Sigma FPR at any step (3.1% in the last run; a
// tolerance of 0.3 cost 7.1%, of 1 15.7%), moves the bits per key by at
// most 2.5% (1.0%; 3.5% and 7.6%), and leaves no more paths out of bounds
// (2 of 400, against 3 re-planning at every event; 7 and 44). The figures
// for tolerances 0.3 and 1 are from before trivial moves waited too.
TEST(LivePlanSimulationTest, RefreshingOnDriftCostsLittle) {
  int out_every = 0, out_drift = 0;
  double worst_cost = 0, worst_bits = 0;
  for (Path p : Paths(400, 1, {4, 6, 8, 10, 12})) {
    const std::vector<SimSnapshot> every = Simulate(p);
    out_every += !Violation(p, every).empty();
    p.sim.refresh_drift = ShapeDrift::kDefaultTolerance;
    const std::vector<SimSnapshot> drift = Simulate(p);
    const std::string violation = Violation(p, drift);
    if (!violation.empty()) printf("%s\n", violation.c_str());
    out_drift += !violation.empty();
    ASSERT_EQ(every.size(), drift.size());
    for (size_t i = 0; i < every.size(); ++i) {
      if (!(every[i].ratio() > 0) || !(drift[i].ratio() > 0)) continue;
      worst_cost = std::max(worst_cost, drift[i].ratio() / every[i].ratio());
      worst_bits = std::max(
          worst_bits,
          std::fabs(drift[i].bits_per_key / every[i].bits_per_key - 1));
    }
  }
  printf(
      "worst Sigma FPR cost %.4f, worst bits %.4f, out of bounds %d "
      "(every event: %d)\n",
      worst_cost, worst_bits, out_drift, out_every);
  EXPECT_LE(worst_cost, 1.05);
  EXPECT_LE(worst_bits, 0.025);
  EXPECT_LE(out_drift, out_every);
}

// Thousands of paths, for when the plan changes (docs/design.md quotes the
// last run):
//   build/tests/live_plan_test --gtest_also_run_disabled_tests \
//     --gtest_filter='*ThousandsOfPaths*'
TEST(LivePlanSimulationTest, DISABLED_ThousandsOfPaths) {
  const std::vector<Path> paths = Paths(3000, 2, {4, 6, 8, 10, 12});
  EXPECT_LE(OutOfBounds(paths), 0.03 * paths.size());
}

}  // namespace
}  // namespace monkey
