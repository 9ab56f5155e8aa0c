// Tests for util/cache_plan.h: filter bits per run for a block cache.
#include "monkey/util/cache_plan.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace monkey {
namespace {

// A leveled tree as the cache sees it: L0's 3 files each over every key,
// then levels of 10x the keys, each reached by every lookup; 4 KiB data
// blocks of 35 keys and an index of 1/100 of the data.
std::vector<CacheRunToPlan> Tree() {
  std::vector<CacheRunToPlan> runs;
  const double keys[] = {3e5, 1e6, 1e7, 1e8};
  const double reach[] = {3, 1, 1, 1};
  const double files[] = {3, 2, 16, 150};
  for (int i = 0; i < 4; ++i) {
    CacheRunToPlan r;
    r.run.reach = reach[i];
    r.run.data_blocks = keys[i] / 35;
    r.run.data_bytes = r.run.data_blocks * 4096;
    r.run.index_bytes = r.run.data_bytes / 100;
    r.run.index_blocks = files[i];
    r.filter_entries = keys[i];
    r.files = files[i];
    runs.push_back(r);
  }
  return runs;
}

// A cache of `cache_bytes` over filters in `partition_bytes` partitions (0:
// full filters), reads priced at the default kReadLatencyBytes.
CacheLayout At(double cache_bytes, double partition_bytes) {
  CacheLayout layout;
  layout.cache_bytes = cache_bytes;
  layout.partition_bytes = partition_bytes;
  return layout;
}

// What a plan minimises.
double CostOf(const BlockReads& reads) { return reads.Cost(kReadLatencyBytes); }

TEST(CachePlanTest, NeverWorseThanAnyUniformBits) {
  const std::vector<CacheRunToPlan> runs = Tree();
  const FprModel model = FprModel::FastLocalBloom();
  const double filters_at_10 = (3e5 + 1e6 + 1e7 + 1e8) * 10 / 8;
  for (double partition : {0.0, 4096.0}) {
    for (double share : {0.05, 0.2, 0.5, 2.0}) {
      const double cache = share * filters_at_10;
      const CacheLayout at = At(cache, partition);
      const CachePlan plan = PlanBitsForCache(runs, model, at);
      ASSERT_EQ(plan.bits.size(), runs.size());
      EXPECT_DOUBLE_EQ(CostOf(plan.reads),
                       CostOf(ReadsWithBits(runs, plan.bits, model, at)));
      for (double k : {0.0, 5.0, 7.0, 10.0, 14.0}) {
        const double uniform = CostOf(ReadsWithBits(
            runs, std::vector<double>(runs.size(), k), model, at));
        EXPECT_LE(CostOf(plan.reads), uniform * (1 + 1e-12))
            << "partition " << partition << ", cache " << share << "x, uniform "
            << k;
      }
    }
  }
}

// A start off the grid (the live plan's budget plan) is one the plan is
// never worse than; a run that may not have a filter gets none.
TEST(CachePlanTest, NeverWorseThanItsStartAndNoFilterWhereNoneIsAllowed) {
  std::vector<CacheRunToPlan> runs = Tree();
  const FprModel model = FprModel::FastLocalBloom();
  const std::vector<double> start = {17.3, 12.9, 9.7, 8.1};
  for (double cache : {1e5, 1e6, 1e7}) {
    const CachePlan plan =
        PlanBitsForCache(runs, model, At(cache, 4096), 0.5, &start);
    EXPECT_LE(CostOf(plan.reads),
              CostOf(ReadsWithBits(runs, start, model, At(cache, 4096))))
        << cache;
  }
  runs.back().filterable = false;
  const CachePlan plan = PlanBitsForCache(runs, model, At(1e6, 4096));
  EXPECT_EQ(plan.bits.back(), 0);
  EXPECT_GT(plan.bits[2], 0);
}

// A cap on the filter bits holds at every cache (without a cache the plan
// would take the most bits everywhere), and the plan still reads no more
// than its start.
TEST(CachePlanTest, KeepsItsFilterBitsWithinTheCap) {
  const std::vector<CacheRunToPlan> runs = Tree();
  const FprModel model = FprModel::FastLocalBloom();
  const std::vector<double> start = {9, 9, 9, 9};
  const double cap = FilterBitsOf(runs, start);
  for (double cache : {0.0, 1e5, 1e6, 1e7, 1e9}) {
    const CachePlan plan =
        PlanBitsForCache(runs, model, At(cache, 4096), 0.5, &start, cap);
    EXPECT_LE(FilterBitsOf(runs, plan.bits), cap) << cache;
    EXPECT_LE(CostOf(plan.reads),
              CostOf(ReadsWithBits(runs, start, model, At(cache, 4096))))
        << cache;
  }
  const CachePlan free = PlanBitsForCache(runs, model, At(0, 4096));
  EXPECT_GT(FilterBitsOf(runs, free.bits), cap);
}

// Where every bit saves reads (a cache that holds the filters and index at
// any bits) and the cap falls between two steps of the grid, the plan
// spends it to within a fifth of a step: two runs of equal keys and reach,
// capped at 13.9 bits each, get 13.9 on average, where the grid of 0.5
// gives 14 and 13.5.
TEST(CachePlanTest, SpendsACapThatFallsBetweenTwoSteps) {
  std::vector<CacheRunToPlan> runs = Tree();
  runs.erase(runs.begin(), runs.begin() + 2);
  runs[0] = runs[1];
  const FprModel model = FprModel::FastLocalBloom();
  const double cap = FilterBitsOf(runs, {13.9, 13.9});
  const CacheLayout at = At(1e9, 4096);
  const CachePlan plan = PlanBitsForCache(runs, model, at, 0.5, nullptr, cap);
  EXPECT_LE(FilterBitsOf(runs, plan.bits), cap);
  EXPECT_GT(FilterBitsOf(runs, plan.bits), cap - 0.1 * runs[0].filter_entries);
  EXPECT_LT(CostOf(plan.reads),
            CostOf(ReadsWithBits(runs, {14, 13.5}, model, at)));
}

// The cap a plan gets: the budget's bits, or 0.8 of a cache that holds more.
TEST(CachePlanTest, FiltersMayFillAShareOfACacheThatHoldsMoreThanTheBudget) {
  CacheLayout cache;
  EXPECT_DOUBLE_EQ(MostFilterBitsFor(cache, 1e6), 1e6);
  cache.cache_bytes = 1e6;
  EXPECT_DOUBLE_EQ(MostFilterBitsFor(cache, 1e8), 1e8);
  EXPECT_DOUBLE_EQ(MostFilterBitsFor(cache, 1e6), 0.8 * 8e6);
}

// With nothing cached and reads counted, not their bytes, every filter
// block is read, whatever its size: each run takes the most bits, whose
// FPR saves the most index and data reads.
TEST(CachePlanTest, WithoutACacheEveryRunTakesTheMostBits) {
  const FprModel model = FprModel::FastLocalBloom();
  for (double partition : {0.0, 4096.0}) {
    CacheLayout reads_only = At(0, partition);
    reads_only.read_latency_bytes = std::numeric_limits<double>::infinity();
    const CachePlan plan = PlanBitsForCache(Tree(), model, reads_only);
    for (double bits : plan.bits) EXPECT_EQ(bits, kMostCachePlanBits);
  }
}

// A full filter's read costs its bytes: with nothing cached, a run whose
// whole filter every probe reads takes fewer bits the bigger its files'
// filters are (L3's 150 files of 670k keys: a 2.7 MB block at the most
// bits, 21 small reads), and none is at the most.
TEST(CachePlanTest, WithoutACacheFullFiltersPayForTheirBytes) {
  const CachePlan plan =
      PlanBitsForCache(Tree(), FprModel::FastLocalBloom(), At(0, 0));
  for (size_t i = 0; i < plan.bits.size(); ++i) {
    EXPECT_LT(plan.bits[i], kMostCachePlanBits) << "run " << i;
  }
  EXPECT_LT(plan.bits.back(), plan.bits.front());
}

// Where the whole tree fits at some bits, the plan keeps it all cached:
// no block read at all.
TEST(CachePlanTest, ACacheThatHoldsTheTreeIsNeverMissed) {
  const std::vector<CacheRunToPlan> runs = Tree();
  double bytes = 0;
  for (const CacheRunToPlan& r : runs) {
    bytes += r.run.index_bytes + r.run.data_bytes + r.filter_entries * 5 / 8;
  }
  const CachePlan plan =
      PlanBitsForCache(runs, FprModel::FastLocalBloom(), At(bytes, 4096));
  EXPECT_EQ(plan.reads.total(), 0);
}

TEST(CachePlanTest, TheMostBitsBuyNextToNothingMore) {
  EXPECT_LT(FprModel::FastLocalBloom().FalsePositiveRate(kMostCachePlanBits),
            1e-5);
}

}  // namespace
}  // namespace monkey
