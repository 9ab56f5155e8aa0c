// The search for a plan's price (util/price_search.h).
#include "monkey/util/price_search.h"

#include <gtest/gtest.h>

#include <cmath>

#include "monkey/util/monkey_bpk.h"

namespace monkey {
namespace {

// Two runs of 1e5 and 1e6 keys, as PlanRun prices them.
std::vector<int> TwoRuns(double log_lambda, const FprModel& model) {
  return {PlanRun(1e5, 1, std::exp(log_lambda), model),
          PlanRun(1e6, 1, std::exp(log_lambda), model)};
}

double Spend(const std::vector<int>& m) {
  return (1e5 * m[0] + 1e6 * m[1]) / 1000.0 / 1.1e6;
}

TEST(PriceSearchTest, ABudgetIsSpentAndNeverExceeded) {
  for (const FprModel& model :
       {FprModel::FastLocalBloom(), FprModel::Ribbon()}) {
    SCOPED_TRACE(model.Name());
    for (double budget : {2.0, 7.3, 10.0, 16.0}) {
      const PricedMillibits p =
          SolveForPrice([&](double l) { return TwoRuns(l, model); }, Spend,
                        budget, Meet::kWithin, {model, model});
      EXPECT_LE(Spend(p.millibits), budget) << budget;
      // The mix between hull vertices spends it to within a millibit.
      EXPECT_GE(Spend(p.millibits), budget - 0.002) << budget;
      EXPECT_GE(p.millibits[0], p.millibits[1]) << budget;
    }
  }
}

TEST(PriceSearchTest, ATargetIsMet) {
  const FprModel model = FprModel::FastLocalBloom();
  auto fp = [&](const std::vector<int>& m) {
    return model.FalsePositiveRate(m[0] / 1000.0) +
           model.FalsePositiveRate(m[1] / 1000.0);
  };
  const PricedMillibits p =
      SolveForPrice([&](double l) { return TwoRuns(l, model); },
                    [&](const std::vector<int>& m) { return -fp(m); }, -0.01,
                    Meet::kReach, {model, model});
  EXPECT_LE(fp(p.millibits), 0.01);
  EXPECT_GT(fp(p.millibits), 0.0099);
}

TEST(PriceSearchTest, NoPriceHighEnoughMeansNoFilters) {
  const FprModel model = FprModel::FastLocalBloom();
  // Runs of a hundredth of a key: a filter is worth its bits at any price.
  const PricedMillibits p = SolveForPrice(
      [&](double l) {
        return std::vector<int>{PlanRun(0.01, 1, std::exp(l), model)};
      },
      [](const std::vector<int>& m) { return m[0] / 1000.0; }, 0.5,
      Meet::kWithin, {model});
  EXPECT_EQ(p.millibits, std::vector<int>{0});
}

}  // namespace
}  // namespace monkey
