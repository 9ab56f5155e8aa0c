// Tests for util/cache_plan.h: filter bits per run for a block cache.
#include "monkey/util/cache_plan.h"

#include <gtest/gtest.h>

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

TEST(CachePlanTest, NeverWorseThanAnyUniformBits) {
  const std::vector<CacheRunToPlan> runs = Tree();
  const FprModel model = FprModel::FastLocalBloom();
  const double filters_at_10 = (3e5 + 1e6 + 1e7 + 1e8) * 10 / 8;
  for (double partition : {0.0, 4096.0}) {
    for (double share : {0.05, 0.2, 0.5, 2.0}) {
      const double cache = share * filters_at_10;
      const CachePlan plan = PlanBitsForCache(runs, model, cache, partition);
      ASSERT_EQ(plan.bits.size(), runs.size());
      EXPECT_DOUBLE_EQ(
          plan.reads.total(),
          ReadsWithBits(runs, plan.bits, model, cache, partition).total());
      for (double k : {0.0, 5.0, 7.0, 10.0, 14.0}) {
        const double uniform =
            ReadsWithBits(runs, std::vector<double>(runs.size(), k), model,
                          cache, partition)
                .total();
        EXPECT_LE(plan.reads.total(), uniform * (1 + 1e-12))
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
        PlanBitsForCache(runs, model, cache, 4096, 0.5, &start);
    EXPECT_LE(plan.reads.total(),
              ReadsWithBits(runs, start, model, cache, 4096).total())
        << cache;
  }
  runs.back().filterable = false;
  const CachePlan plan = PlanBitsForCache(runs, model, 1e6, 4096);
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
        PlanBitsForCache(runs, model, cache, 4096, 0.5, &start, cap);
    EXPECT_LE(FilterBitsOf(runs, plan.bits), cap) << cache;
    EXPECT_LE(plan.reads.total(),
              ReadsWithBits(runs, start, model, cache, 4096).total())
        << cache;
  }
  const CachePlan free = PlanBitsForCache(runs, model, 0, 4096);
  EXPECT_GT(FilterBitsOf(runs, free.bits), cap);
}

// With nothing cached every filter block is read, whatever its size: each
// run takes the most bits, whose FPR saves the most index and data reads.
TEST(CachePlanTest, WithoutACacheEveryRunTakesTheMostBits) {
  const CachePlan plan =
      PlanBitsForCache(Tree(), FprModel::FastLocalBloom(), 0, 0);
  for (double bits : plan.bits) EXPECT_EQ(bits, kMostCachePlanBits);
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
      PlanBitsForCache(runs, FprModel::FastLocalBloom(), bytes, 4096);
  EXPECT_EQ(plan.reads.total(), 0);
}

TEST(CachePlanTest, TheMostBitsBuyNextToNothingMore) {
  EXPECT_LT(FprModel::FastLocalBloom().FalsePositiveRate(kMostCachePlanBits),
            1e-5);
}

}  // namespace
}  // namespace monkey
