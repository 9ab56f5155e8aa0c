// Tests of level targets and the drained tree (util/level_sizing.h), against
// RocksDB's CalculateBaseBytes worked by hand.
#include "monkey/util/level_sizing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace monkey {
namespace {

LevelSizing Sizing(bool dynamic, double base, double multiplier = 10) {
  LevelSizing sizing;
  sizing.dynamic = dynamic;
  sizing.base_level_entries = base;
  sizing.multiplier = multiplier;
  sizing.num_levels = 7;
  return sizing;
}

double Sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(LevelSizingTest, StaticTargetsGrowByTheMultiplierFromL1) {
  const std::vector<double> t = LevelTargets({0, 5}, Sizing(false, 100));
  ASSERT_EQ(t.size(), 7u);
  EXPECT_TRUE(std::isinf(t[0]));
  EXPECT_DOUBLE_EQ(t[1], 100);
  EXPECT_DOUBLE_EQ(t[2], 1000);
  EXPECT_DOUBLE_EQ(t[6], 1e7);
}

// Dynamic sizing: the largest level sets the last level's target, the base
// level is the first whose target fits within max_bytes_for_level_base, and
// no target is below it. 50,000 keys in L6 with base 100 and T = 10: L5
// would be 5,000, L4 500, L3 50, the first within 100, so L3 is the base
// level; its target is floored at 100. L6, the last, has none.
TEST(LevelSizingTest, DynamicTargetsFollowTheLargestLevel) {
  std::vector<double> entries(7, 0);
  entries[6] = 50000;
  const std::vector<double> t = LevelTargets(entries, Sizing(true, 100));
  EXPECT_TRUE(std::isinf(t[1]));
  EXPECT_TRUE(std::isinf(t[2]));
  EXPECT_DOUBLE_EQ(t[3], 100);
  EXPECT_DOUBLE_EQ(t[4], 500);
  EXPECT_DOUBLE_EQ(t[5], 5000);
  EXPECT_TRUE(std::isinf(t[6]));
  // A backed-up level above the last sets the targets while it is the
  // largest: L4 at 300,000 makes the last level's target 300,000.
  entries[4] = 300000;
  const std::vector<double> upside_down =
      LevelTargets(entries, Sizing(true, 100));
  EXPECT_DOUBLE_EQ(upside_down[5], 30000);
  EXPECT_DOUBLE_EQ(upside_down[4], 3000);
}

TEST(LevelSizingTest, NothingMovesWithoutTheSizing) {
  const std::vector<double> entries = {300, 0, 0, 0, 4000, 1000, 2000};
  EXPECT_EQ(DrainedEntries(entries, LevelSizing()), entries);
  EXPECT_TRUE(std::isinf(LevelTargets(entries, LevelSizing())[4]));
}

// An upside-down tree after a fast load, dynamic sizing on: L0 and the
// backlog in L4 and L5 drain into L6, the levels above left at most at
// their targets, and no key is lost.
TEST(LevelSizingTest, ABacklogDrainsIntoTheLastLevel) {
  const std::vector<double> entries = {30000, 0, 0, 0, 200000, 60000, 50000};
  const std::vector<double> drained =
      DrainedEntries(entries, Sizing(true, 10000, 6));
  EXPECT_NEAR(Sum(drained), Sum(entries), 1e-6);
  EXPECT_EQ(drained[0], 0);
  const std::vector<double> t = LevelTargets(drained, Sizing(true, 10000, 6));
  for (int l = 1; l < 6; ++l) EXPECT_LE(drained[l], t[l]) << "L" << l;
  // The last level is the largest, T times L5's target or more.
  EXPECT_GT(drained[6], 280000);
  EXPECT_GE(drained[6], 6 * t[5] - 1e-6);
}

// Without dynamic sizing a young tree's deepest level has a target too:
// past it, keys drain into a level that does not exist yet.
TEST(LevelSizingTest, AStaticTreeDrainsBelowItsDeepestLevel) {
  const std::vector<double> entries = {500, 300, 2500};
  const std::vector<double> drained =
      DrainedEntries(entries, Sizing(false, 1000));
  ASSERT_EQ(drained.size(), 7u);
  EXPECT_DOUBLE_EQ(drained[1], 800);
  EXPECT_DOUBLE_EQ(drained[2], 2500);
  EXPECT_DOUBLE_EQ(drained[3], 0);
  const std::vector<double> over =
      DrainedEntries({2000, 300, 9500}, Sizing(false, 1000));
  EXPECT_DOUBLE_EQ(over[1], 1000);
  EXPECT_DOUBLE_EQ(over[2], 10000);
  EXPECT_DOUBLE_EQ(over[3], 800);
}

TEST(LevelSizingTest, SizingInEntriesConvertsBytesByTheTreesKeySize) {
  const LevelSizing sizing = SizingInEntries(true, 1 << 20, 8, 7, 116e6, 1e6);
  EXPECT_TRUE(sizing.known());
  EXPECT_NEAR(sizing.base_level_entries, 1048576 / 116.0, 1e-6);
  EXPECT_FALSE(SizingInEntries(true, 1 << 20, 8, 7, 0, 0).known());
}

}  // namespace
}  // namespace monkey
