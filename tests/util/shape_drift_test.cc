// Tests of ShapeDrift (util/shape_drift.h): when jobs since the last refresh
// have moved a tree too far from its published shape.
#include "monkey/util/shape_drift.h"

#include <gtest/gtest.h>

#include <cmath>

namespace monkey {
namespace {

// A tree of L4, L5 and L6 with 1%, 10% and 89% of its keys.
std::vector<LiveLevel> Tree() {
  std::vector<LiveLevel> levels(7);
  levels[4].entries = 10000;
  levels[5].entries = 100000;
  levels[6].entries = 890000;
  return levels;
}

TEST(ShapeDriftTest, StaleUntilPublished) {
  ShapeDrift drift;
  EXPECT_TRUE(drift.Stale());
  drift.Published(Tree());
  EXPECT_FALSE(drift.Stale());
}

// drift^2 = sum_i m_i^2 / (n_i N): the last level may move sqrt(0.89) x
// 0.1 of its keys, a level of 1% of them all of its keys.
TEST(ShapeDriftTest, EachLevelDriftsByItsShareOfTheKeys) {
  const double tolerance = ShapeDrift::kDefaultTolerance;
  const double n6 = 890000, n4 = 10000, total = 1000000;
  const double last_level_limit = tolerance * std::sqrt(n6 * total);
  ShapeDrift drift;
  drift.Published(Tree());
  drift.Move(6, 0.99 * last_level_limit);
  EXPECT_FALSE(drift.Stale());
  drift.Move(6, 0.02 * last_level_limit);
  EXPECT_TRUE(drift.Stale());

  drift.Published(Tree());
  drift.Move(4, 0.99 * tolerance * std::sqrt(n4 * total));  // 99% of L4
  EXPECT_FALSE(drift.Stale());
  drift.Move(6, 0.2 * last_level_limit);  // adds 0.2^2 of the tolerance^2
  EXPECT_TRUE(drift.Stale());
}

TEST(ShapeDriftTest, PublishingStartsAfresh) {
  ShapeDrift drift;
  drift.Published(Tree());
  drift.Move(5, 50000);
  EXPECT_TRUE(drift.Stale());
  drift.Published(Tree());
  EXPECT_FALSE(drift.Stale());
}

TEST(ShapeDriftTest, KeysIntoALevelThePlanNeverSawAreStale) {
  ShapeDrift drift;
  drift.Published(Tree());
  drift.Move(3, 1);
  EXPECT_TRUE(drift.Stale());
  drift.Published(Tree());
  drift.Move(9, 1);  // below the published shape
  EXPECT_TRUE(drift.Stale());
  // L0 is the exception where the plan priced the next flush's run: a run
  // of about that size is what it planned for, one far off is not.
  std::vector<LiveLevel> priced = Tree();
  priced[0].next_flush_entries = 1000;
  drift.Published(priced);
  drift.Move(0, 1100);
  EXPECT_FALSE(drift.Stale());
  drift.Published(priced);
  drift.Move(0, 1000000);
  EXPECT_TRUE(drift.Stale());
}

TEST(ShapeDriftTest, UnknownKeysAreStale) {
  ShapeDrift drift;
  drift.Published(Tree());
  drift.Move(5, -1);
  EXPECT_TRUE(drift.Stale());
  drift.Published(Tree());
  drift.Move(5, std::nan(""));
  EXPECT_TRUE(drift.Stale());
  drift.Published(Tree());
  drift.Move(-1, 10);
  EXPECT_TRUE(drift.Stale());
}

// Without a last-level filter L6 neither drifts nor weighs: N is L4 + L5.
TEST(ShapeDriftTest, AnUnfilteredLastLevelDoesNotCount) {
  ShapeDrift drift;
  drift.Published(Tree(), /*last_level_filter=*/false);
  drift.Move(6, 890000);
  EXPECT_FALSE(drift.Stale());
  const double l5_limit = 0.1 * std::sqrt(100000.0 * 110000.0);
  drift.Move(5, 0.99 * l5_limit);
  EXPECT_FALSE(drift.Stale());
  drift.Move(5, 0.02 * l5_limit);
  EXPECT_TRUE(drift.Stale());
}

// A plan is made from a snapshot while jobs go on: the moves made after the
// snapshot are not in the shape it publishes, and still count.
TEST(ShapeDriftTest, MovesAfterTheSnapshotStillCount) {
  const double limit =
      ShapeDrift::kDefaultTolerance * std::sqrt(890000.0 * 1000000.0);
  ShapeDrift drift;
  drift.Published(Tree());
  drift.Move(6, 0.6 * limit);
  const ShapeDrift snapshot = drift;  // the planner takes the tree here
  drift.Move(6, 0.6 * limit);         // a job begins while it plans
  ShapeDrift plain = drift;
  plain.Published(Tree());
  drift.PublishedSince(Tree(), true, snapshot);
  drift.Move(6, 0.5 * limit);
  plain.Move(6, 0.5 * limit);
  EXPECT_TRUE(drift.Stale());  // 0.6 + 0.5 of the limit since the snapshot
  EXPECT_FALSE(plain.Stale());
  // Keys unknown after the snapshot still make it stale.
  ShapeDrift unknown;
  unknown.Published(Tree());
  const ShapeDrift before = unknown;
  unknown.Move(-1, 10);
  unknown.PublishedSince(Tree(), true, before);
  EXPECT_TRUE(unknown.Stale());
}

}  // namespace
}  // namespace monkey
