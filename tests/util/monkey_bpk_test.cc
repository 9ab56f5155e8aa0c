// Tests of the planner (util/monkey_bpk.h): the budget holds, the optimum has
// Monkey's structure, it matches the closed form and brute force, and bad
// inputs are rejected rather than planned.
#include "monkey/util/monkey_bpk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace monkey {
namespace {

const double kLn2Squared = std::log(2.0) * std::log(2.0);

std::vector<LevelShape> Static(double size_ratio, int num_levels,
                               bool last_level_filter = true) {
  std::vector<LevelShape> shape;
  EXPECT_EQ("", StaticShape(size_ratio, num_levels, last_level_filter, &shape));
  return shape;
}

double FilteredEntries(const std::vector<LevelShape>& shape) {
  double n = 0;
  for (const LevelShape& level : shape) n += level.filtered ? level.entries : 0;
  return n;
}

double MaxEntries(const std::vector<LevelShape>& shape) {
  double n = 0;
  for (const LevelShape& level : shape) n = std::max(n, level.entries);
  return n;
}

// Every plan value is buildable: finite, on RocksDB's 1/1000-bit grid, 0 or
// inside the model's range.
void ExpectBuildable(const Plan& plan, const FprModel& model) {
  for (const LevelPlan& level : plan.levels) {
    EXPECT_TRUE(level.millibits_per_key == 0 ||
                (level.millibits_per_key >= model.min_bits() * 1000 - 1e-9 &&
                 level.millibits_per_key <= model.max_bits() * 1000 + 1e-9))
        << level.millibits_per_key;
    EXPECT_DOUBLE_EQ(level.bits_per_key, level.millibits_per_key / 1000.0);
    EXPECT_TRUE(std::isfinite(level.fpr) && level.fpr >= 0 && level.fpr <= 1);
  }
  EXPECT_TRUE(std::isfinite(plan.sum_fpr));
  EXPECT_TRUE(std::isfinite(plan.total_bits));
}

std::vector<FprModel> AllModels() {
  return {FprModel::IdealBloom(), FprModel::FastLocalBloom(),
          FprModel::Ribbon()};
}

TEST(MonkeyBpkTest, BudgetIsMetToRounding) {
  for (const FprModel& model : AllModels()) {
    for (double size_ratio : {2.0, 4.0, 10.0, 20.0}) {
      for (int num_levels = 1; num_levels <= 10; ++num_levels) {
        for (bool last_level_filter : {true, false}) {
          if (num_levels == 1 && !last_level_filter) continue;
          for (double budget : {2.0, 5.0, 7.0, 10.0, 16.0}) {
            SCOPED_TRACE(model.Name() + " T=" + std::to_string(size_ratio) +
                         " levels=" + std::to_string(num_levels) +
                         " budget=" + std::to_string(budget) +
                         (last_level_filter ? "" : " no-last"));
            const auto shape =
                Static(size_ratio, num_levels, last_level_filter);
            const Plan plan = PlanBitsPerKey(shape, budget, model);
            ExpectBuildable(plan, model);
            const double want = budget * FilteredEntries(shape);
            // Never over, and under by less than 1 millibit of one level.
            EXPECT_LE(plan.total_bits, want * (1 + 1e-9));
            EXPECT_GE(plan.total_bits,
                      want - 0.001 * MaxEntries(shape) - 1e-9 * want);
            EXPECT_NEAR(plan.bits_per_key(), budget, 0.001);
          }
        }
      }
    }
  }
}

// With the ideal model, Lagrange gives p_i proportional to n_i / w_i at every
// level with a filter below the maximum. The 0.01-bit grid bounds the error
// at exp(0.01 ln^2 2) - 1 = 0.5%.
TEST(MonkeyBpkTest, FprIsProportionalToRunSize) {
  const FprModel model = FprModel::IdealBloom();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> log_size(0, std::log(1e6));
  std::uniform_int_distribution<int> runs(1, 8);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<LevelShape> shape(2 + trial % 6);
    for (LevelShape& level : shape) {
      level.entries = std::exp(log_size(rng));
      level.runs = runs(rng);
    }
    const Plan plan = PlanBitsPerKey(shape, 12, model);
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
      const int m = plan.levels[i].millibits_per_key;
      if (m == 0 || m >= model.max_bits() * 1000) continue;
      const double ratio =
          plan.levels[i].fpr * shape[i].runs / shape[i].entries;
      lo = std::min(lo, ratio);
      hi = std::max(hi, ratio);
    }
    if (hi > 0) EXPECT_LE(hi / lo, 1.006) << "trial " << trial;
  }
}

// b_d = b - ln T / ((T - 1) ln^2 2) + d ln T / ln^2 2 at depth d from the
// bottom, for a deep geometric tree and the ideal model.
TEST(MonkeyBpkTest, MatchesClosedFormForDeepTrees) {
  for (double size_ratio : {4.0, 10.0}) {
    for (double budget : {8.0, 10.0}) {
      const int num_levels = 12;
      const auto shape = Static(size_ratio, num_levels);
      const Plan plan = PlanBitsPerKey(shape, budget, FprModel::IdealBloom());
      const double log_t = std::log(size_ratio);
      for (int level = 0; level < num_levels; ++level) {
        const int depth = num_levels - 1 - level;
        const double want = budget - log_t / ((size_ratio - 1) * kLn2Squared) +
                            depth * log_t / kLn2Squared;
        if (want > 100) continue;  // RocksDB's maximum
        EXPECT_NEAR(plan.levels[level].bits_per_key, want, 0.011)
            << "T=" << size_ratio << " budget=" << budget << " L" << level;
      }
    }
  }
}

TEST(MonkeyBpkTest, NeverWorseThanUniform) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_size(0, std::log(1e9));
  std::uniform_real_distribution<double> budget(1, 30);
  std::uniform_int_distribution<int> runs(1, 12);
  for (const FprModel& model : AllModels()) {
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<LevelShape> shape(1 + trial % 9);
      for (LevelShape& level : shape) {
        level.entries = std::exp(log_size(rng));
        level.runs = runs(rng);
        level.filtered = trial % 5 != 0 || &level != &shape.back();
      }
      if (FilteredEntries(shape) == 0) continue;
      const double b = std::round(budget(rng) * 1000) / 1000;
      const Plan plan = PlanBitsPerKey(shape, b, model);
      const Plan uniform = PlanUniform(shape, b, model);
      ExpectBuildable(plan, model);
      EXPECT_LE(plan.sum_fpr, uniform.sum_fpr * (1 + 1e-9))
          << model.Name() << " trial " << trial << " budget " << b;
    }
  }
}

// Exhaustive search over {0} and [min, max] on a 0.05-bit grid for three
// levels, with the budget spent in full by the last one.
struct BruteForce {
  double sum_fpr = std::numeric_limits<double>::infinity();
  std::vector<int> millibits;
};

BruteForce Search(const std::vector<LevelShape>& shape, double budget,
                  const FprModel& model) {
  std::vector<int> grid = {0};
  for (int m = static_cast<int>(model.min_bits() * 1000 + 0.999);
       m <= model.max_bits() * 1000; m += 50) {
    grid.push_back(m);
  }
  std::vector<double> fpr;
  for (int m : grid) fpr.push_back(model.FalsePositiveRate(m / 1000.0));
  const double total = budget * 1000 * FilteredEntries(shape);
  BruteForce best;
  for (size_t a = 0; a < grid.size(); ++a) {
    for (size_t b = 0; b < grid.size(); ++b) {
      const double left =
          total - shape[0].entries * grid[a] - shape[1].entries * grid[b];
      if (left < 0) break;
      // The last level takes the largest grid value that fits.
      size_t c = std::upper_bound(grid.begin(), grid.end(),
                                  left / shape[2].entries + 1e-9) -
                 grid.begin() - 1;
      const double sum = shape[0].runs * fpr[a] + shape[1].runs * fpr[b] +
                         shape[2].runs * fpr[c];
      if (sum < best.sum_fpr) best = {sum, {grid[a], grid[b], grid[c]}};
    }
  }
  return best;
}

TEST(MonkeyBpkTest, ZeroBitLevelsExactlyWhenOptimal) {
  struct Case {
    std::vector<LevelShape> shape;
    double budget;
  };
  // Small budgets over a large last level, with and without L0 runs; the
  // optimum sometimes leaves the last level, or more, without a filter.
  const std::vector<Case> cases = {
      {{{1, 1}, {10, 1}, {100, 1}}, 0.5}, {{{1, 1}, {10, 1}, {100, 1}}, 1.2},
      {{{1, 1}, {10, 1}, {100, 1}}, 3.0}, {{{1, 4}, {20, 1}, {400, 1}}, 0.3},
      {{{1, 4}, {20, 1}, {400, 1}}, 1.0}, {{{5, 8}, {5, 1}, {1000, 1}}, 0.08},
      {{{5, 8}, {5, 1}, {1000, 1}}, 0.8}, {{{1, 1}, {1.5, 1}, {2, 1}}, 0.4},
      {{{1, 1}, {2, 1}, {3, 1}}, 10.0},
  };
  for (const FprModel& model :
       {FprModel::IdealBloom(), FprModel::FastLocalBloom()}) {
    int cases_with_zeros = 0;
    for (const Case& c : cases) {
      SCOPED_TRACE(model.Name() + " budget " + std::to_string(c.budget));
      const Plan plan = PlanBitsPerKey(c.shape, c.budget, model);
      const BruteForce best = Search(c.shape, c.budget, model);
      // Brute force is on a coarser grid, so the planner must do as well.
      EXPECT_LE(plan.sum_fpr, best.sum_fpr * (1 + 1e-3) + 1e-12);
      bool any_zero = false;
      for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(plan.levels[i].millibits_per_key == 0, best.millibits[i] == 0)
            << "L" << i << ": planner " << plan.levels[i].millibits_per_key
            << " brute force " << best.millibits[i];
        any_zero |= best.millibits[i] == 0;
      }
      cases_with_zeros += any_zero;
    }
    EXPECT_GE(cases_with_zeros, 3) << "the cases must exercise zero levels";
  }
}

TEST(MonkeyBpkTest, LevelsWithoutFilterAreLeftOutOfTheBudget) {
  const auto shape = Static(10, 5, /*last_level_filter=*/false);
  EXPECT_FALSE(shape.back().filtered);
  const Plan plan = PlanBitsPerKey(shape, 7, FprModel::FastLocalBloom());
  EXPECT_EQ(plan.levels.back().millibits_per_key, 0);
  EXPECT_NEAR(plan.total_bits / FilteredEntries(shape), 7, 0.001);
  // The last level's keys are not in filtered_entries, nor its FPR in sum.
  EXPECT_NEAR(plan.filtered_entries, FilteredEntries(shape), 1e-12);
  EXPECT_LT(plan.sum_fpr, 1.0);
}

TEST(MonkeyBpkTest, StaticShapeIsGeometricWithL0OneStepUp) {
  const auto shape = Static(10, 5);
  ASSERT_EQ(shape.size(), 5u);
  EXPECT_DOUBLE_EQ(shape[4].entries, 1.0);
  for (int level = 1; level < 4; ++level) {
    EXPECT_NEAR(shape[level + 1].entries / shape[level].entries, 10, 1e-9);
  }
  EXPECT_NEAR(shape[1].entries / shape[0].entries, 10, 1e-9);
  for (const LevelShape& level : shape) EXPECT_EQ(level.runs, 1);

  std::vector<LevelShape> out;
  EXPECT_NE("", StaticShape(1.0, 5, true, &out));
  EXPECT_NE("", StaticShape(0.5, 5, true, &out));
  EXPECT_NE("", StaticShape(std::nan(""), 5, true, &out));
  EXPECT_NE(
      "", StaticShape(std::numeric_limits<double>::infinity(), 5, true, &out));
  EXPECT_NE("", StaticShape(10, 0, true, &out));
  EXPECT_NE("", StaticShape(10, 65, true, &out));
}

TEST(MonkeyBpkTest, RejectsBadInputsWithReasons) {
  const auto shape = Static(10, 4);
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (double budget : {nan, inf, -1.0, 100.5, 1e9}) {
    const std::string error = ValidatePlanInputs(shape, budget);
    EXPECT_NE(error.find("bits_per_key"), std::string::npos) << budget;
  }
  for (double bad : {nan, inf, -1.0}) {
    auto entries = shape;
    entries[2].entries = bad;
    EXPECT_NE(ValidatePlanInputs(entries, 10).find("level 2"),
              std::string::npos);
    auto runs = shape;
    runs[1].runs = bad;
    EXPECT_NE(ValidatePlanInputs(runs, 10).find("level 1"), std::string::npos);
  }
  EXPECT_NE("", ValidatePlanInputs({}, 10));
  EXPECT_NE("", ValidatePlanInputs(std::vector<LevelShape>(65), 10));
  EXPECT_EQ("", ValidatePlanInputs(shape, 0));
  EXPECT_EQ("", ValidatePlanInputs(shape, 100));
}

TEST(MonkeyBpkTest, ZeroBudgetBuildsNoFilters) {
  const auto shape = Static(10, 5);
  const Plan plan = PlanBitsPerKey(shape, 0, FprModel::FastLocalBloom());
  for (const LevelPlan& level : plan.levels) {
    EXPECT_EQ(level.millibits_per_key, 0);
    EXPECT_EQ(level.fpr, 1.0);
  }
  EXPECT_DOUBLE_EQ(plan.sum_fpr, 5.0);
}

// Levels with no entries cost nothing, so they get the best filter there is;
// the others share the whole budget.
TEST(MonkeyBpkTest, EmptyLevelsDoNotTakeBudget) {
  std::vector<LevelShape> shape = {{0, 1}, {0, 1}, {100, 1}, {1000, 1}};
  const FprModel model = FprModel::FastLocalBloom();
  const Plan plan = PlanBitsPerKey(shape, 10, model);
  EXPECT_EQ(plan.levels[0].millibits_per_key, model.max_bits() * 1000);
  EXPECT_NEAR(plan.bits_per_key(), 10, 0.001);
}

}  // namespace
}  // namespace monkey

namespace monkey {
namespace {

// A run priced at the plan's lambda gets what the plan would have given it:
// the plan's own levels price back to their bits (to the 0.01-bit grid, but
// for the one level at the margin), smaller runs to more bits.
TEST(MonkeyBpkTest, PlanRunPricesRunsLikeThePlan) {
  const FprModel model = FprModel::FastLocalBloom();
  const auto shape = Static(10, 6);
  const Plan plan = PlanBitsPerKey(shape, 10, model);
  ASSERT_GT(plan.lambda, 0);
  int matching = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int priced =
        PlanRun(shape[i].entries, shape[i].runs, plan.lambda, model);
    EXPECT_LE(std::abs(priced - plan.levels[i].millibits_per_key), 20) << i;
    matching += priced == plan.levels[i].millibits_per_key;
  }
  EXPECT_GE(matching, static_cast<int>(shape.size()) - 1);
  const double last = shape.back().entries;
  EXPECT_GT(PlanRun(last / 4, 1, plan.lambda, model),
            PlanRun(last, 1, plan.lambda, model));
  // Four runs of a quarter each: each is a quarter-size run.
  EXPECT_EQ(PlanRun(last, 4, plan.lambda, model),
            PlanRun(last / 4, 1, plan.lambda, model));
  // At a price no filter pays back, none.
  EXPECT_EQ(PlanRun(last, 1, 1e9, model), 0);
  // Free runs get the best there is; runs nobody probes get nothing.
  EXPECT_EQ(PlanRun(0, 1, plan.lambda, model), model.max_bits() * 1000);
  EXPECT_EQ(PlanRun(last, 0, plan.lambda, model), 0);
}

}  // namespace
}  // namespace monkey
