// Tests of the least Sigma FPR with the levels below L0 as built
// (util/held_budget.h), worked by hand.
#include "monkey/util/held_budget.h"

#include <gtest/gtest.h>

namespace monkey {
namespace {

std::vector<FprModel> Bloom(size_t levels) {
  return ModelsForLevels(FilterChoice::kBloom, levels);
}

TEST(HeldBudgetTest, L0GetsWhatTheLevelsBelowLeave) {
  // 10,000 keys at 8.4 bits: 84,000 bits, of which L1's 9,000 keys hold
  // 72,000; L0's 1,000 keys get the other 12,000.
  const std::vector<LevelShape> shape = {{1000, 2}, {9000, 1}};
  const auto models = Bloom(2);
  const Plan held = HoldBudgetWithL0(shape, {0, 8}, 8.4, models);
  EXPECT_DOUBLE_EQ(held.levels[0].bits_per_key, 12);
  EXPECT_DOUBLE_EQ(held.sum_fpr, 2 * models[0].FalsePositiveRate(12) +
                                     models[1].FalsePositiveRate(8));
}

TEST(HeldBudgetTest, LevelsOverTheBudgetLeaveL0NoFilter) {
  const std::vector<LevelShape> shape = {{1000, 3}, {9000, 1}};
  const auto models = Bloom(2);
  const Plan held = HoldBudgetWithL0(shape, {0, 9}, 8, models);
  EXPECT_EQ(held.levels[0].bits_per_key, 0);
  EXPECT_DOUBLE_EQ(held.sum_fpr, 3 + models[1].FalsePositiveRate(9));
}

// A last level without a filter holds no part of the budget and, as in
// every plan's sum_fpr, no part of Sigma FPR.
TEST(HeldBudgetTest, AnUnfilteredLevelIsOutsideTheBudget) {
  const std::vector<LevelShape> shape = {
      {1000, 1}, {4000, 1}, {50000, 1, false}};
  const auto models = Bloom(3);
  const Plan held = HoldBudgetWithL0(shape, {0, 10, 0}, 10, models);
  EXPECT_DOUBLE_EQ(held.levels[0].bits_per_key, 10);
  EXPECT_DOUBLE_EQ(held.sum_fpr, models[0].FalsePositiveRate(10) +
                                     models[1].FalsePositiveRate(10));
}

}  // namespace
}  // namespace monkey
