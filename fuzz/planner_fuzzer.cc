// libFuzzer target: the planners' inputs (util/monkey_bpk.h and, for the
// least bits at a Sum FPR target, util/monkey_memory.h). Shapes, budgets,
// targets and size ratios come from the input, including NaN, +-inf,
// negatives, zero, denormals and huge values. Allowed outcomes: a validation
// error, or a finite plan within RocksDB's range that keeps the budget; for
// the dual, "cannot be reached" below the least Sum FPR, or a plan within
// the target, within 1% of it unless no level has a millibit to spare, and
// within 0.5% of the least bits the budget planner needs to reach it.
#include <fuzzer/FuzzedDataProvider.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSpecial[] = {
    std::numeric_limits<double>::quiet_NaN(),
    kInf,
    -kInf,
    0.0,
    -0.0,
    -1.0,
    1.0,
    1.0 + 1e-15,
    10.0,
    0.5,
    std::numeric_limits<double>::denorm_min(),
    DBL_MIN,
    DBL_MAX,
    -DBL_MAX,
    1e300,
    1e-300,
    100.0,
    100.0000001,
};

// Either one of the special values, a plain number in a usual range, or any
// 64-bit pattern at all.
double Number(FuzzedDataProvider& in, double usual_max) {
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      return in.PickValueInArray(kSpecial);
    case 1:
      return in.ConsumeFloatingPointInRange<double>(-1.0, usual_max);
    default: {
      const uint64_t bits = in.ConsumeIntegral<uint64_t>();
      double d;
      static_assert(sizeof(d) == sizeof(bits));
      __builtin_memcpy(&d, &bits, sizeof(d));
      return d;
    }
  }
}

void Fail(const std::string& what, const std::vector<monkey::LevelShape>& shape,
          double bits_per_key, const char* name = "bits_per_key") {
  fprintf(stderr, "planner_fuzzer: %s\n%s=%.17g, %zu levels:\n", what.c_str(),
          name, bits_per_key, shape.size());
  for (const auto& l : shape) {
    fprintf(stderr, "  entries=%.17g runs=%.17g filtered=%d\n", l.entries,
            l.runs, l.filtered);
  }
  abort();
}

void CheckPlan(const char* which, const monkey::Plan& plan,
               const std::vector<monkey::LevelShape>& shape,
               double bits_per_key, const monkey::FprModel& model,
               bool keeps_budget) {
  if (plan.levels.size() != shape.size())
    Fail("plan size", shape, bits_per_key);
  const int lo = static_cast<int>(std::ceil(model.min_bits() * 1000 - 1e-9));
  const int hi = static_cast<int>(std::floor(model.max_bits() * 1000 + 1e-9));
  for (size_t i = 0; i < shape.size(); ++i) {
    const monkey::LevelPlan& l = plan.levels[i];
    if (l.millibits_per_key != 0 &&
        (l.millibits_per_key < lo || l.millibits_per_key > hi)) {
      Fail(std::string(which) + ": level " + std::to_string(i) + " gets " +
               std::to_string(l.millibits_per_key) + " millibits",
           shape, bits_per_key);
    }
    if (!shape[i].filtered && l.millibits_per_key != 0) {
      Fail(std::string(which) + ": an unfiltered level got a filter", shape,
           bits_per_key);
    }
    if (!std::isfinite(l.bits_per_key) || !(l.fpr >= 0 && l.fpr <= 1)) {
      Fail(std::string(which) + ": non-finite level " + std::to_string(i),
           shape, bits_per_key);
    }
  }
  if (!std::isfinite(plan.sum_fpr) || !std::isfinite(plan.total_bits) ||
      !std::isfinite(plan.filtered_entries) || plan.sum_fpr < 0) {
    Fail(std::string(which) + ": non-finite totals", shape, bits_per_key);
  }
  // The budget holds, up to the rounding of sums of n_i * b_i.
  const double budget = bits_per_key * plan.filtered_entries;
  if (keeps_budget && plan.total_bits > budget * (1 + 1e-9) + 1e-9) {
    Fail(std::string(which) + ": spends " + std::to_string(plan.total_bits) +
             " bits of a budget of " + std::to_string(budget),
         shape, bits_per_key);
  }
}

void PlanAndCheck(const std::vector<monkey::LevelShape>& shape,
                  double bits_per_key, const monkey::FprModel& model) {
  if (!monkey::ValidatePlanInputs(shape, bits_per_key).empty()) return;
  CheckPlan("PlanBitsPerKey",
            monkey::PlanBitsPerKey(shape, bits_per_key, model), shape,
            bits_per_key, model, /*keeps_budget=*/true);
  // Uniform bits round to RocksDB's setting, which may exceed the budget.
  CheckPlan("PlanUniform", monkey::PlanUniform(shape, bits_per_key, model),
            shape, bits_per_key, model, /*keeps_budget=*/false);
}

// The least budget at which the budget planner reaches `target`, by
// bisection on its logarithm.
monkey::Plan LeastBudgetPlan(const std::vector<monkey::LevelShape>& shape,
                             double target,
                             const std::vector<monkey::FprModel>& models) {
  auto reaches = [&](double budget) {
    return monkey::PlanBitsPerKey(shape, budget, models).sum_fpr <=
           target * (1 + 1e-12);
  };
  if (reaches(0)) return monkey::PlanBitsPerKey(shape, 0, models);
  double lo = std::log(1e-300), hi = std::log(100);
  for (int iter = 0; iter < 40; ++iter) {
    const double mid = (lo + hi) / 2;
    (reaches(std::exp(mid)) ? hi : lo) = mid;
  }
  return monkey::PlanBitsPerKey(shape, std::exp(hi), models);
}

void DualAndCheck(const std::vector<monkey::LevelShape>& shape, double target,
                  const monkey::FprModel& model) {
  if (!monkey::ValidateTargetInputs(shape, target).empty()) return;
  const std::vector<monkey::FprModel> models(shape.size(), model);
  monkey::Plan plan;
  const std::string error = monkey::PlanLeastBits(shape, target, model, &plan);
  if (!error.empty()) {
    if (error.find("cannot be reached") == std::string::npos ||
        !(monkey::LeastSumFpr(shape, models) > target)) {
      Fail("PlanLeastBits(" + std::to_string(target) + "): " + error, shape,
           target, "max_sum_fpr");
    }
    return;
  }
  CheckPlan("PlanLeastBits", plan, shape, 0, model, /*keeps_budget=*/false);
  if (plan.sum_fpr > target * (1 + 1e-9)) {
    Fail("PlanLeastBits: Sum FPR " + std::to_string(plan.sum_fpr) +
             " above the target " + std::to_string(target),
         shape, target, "max_sum_fpr");
  }
  if (plan.sum_fpr < 0.99 * target) {
    // Only where RocksDB has no setting in between: no level can give up a
    // millibit (or, at min_bits, its filter) and stay within the target.
    for (size_t i = 0; i < shape.size(); ++i) {
      const int m = plan.levels[i].millibits_per_key;
      if (!shape[i].filtered || m == 0 || !(shape[i].entries > 0)) continue;
      const int down = m - 1 < model.min_bits() * 1000 - 1e-9 ? 0 : m - 1;
      const double rise = shape[i].runs * (model.FalsePositiveRate(down / 1e3) -
                                           plan.levels[i].fpr);
      if (plan.sum_fpr + rise <= target) {
        Fail(
            "PlanLeastBits: Sum FPR more than 1% below the target, and "
            "level " +
                std::to_string(i) + " has a millibit to spare",
            shape, target, "max_sum_fpr");
      }
    }
  }
  // The budget planner rounds budgets to 1e-9 millibit-entries: no
  // reference below 1e-3.
  if (plan.total_bits * 1000 < 1e-3) return;
  const monkey::Plan reference = LeastBudgetPlan(shape, target, models);
  if (plan.total_bits > reference.total_bits * 1.005) {
    Fail("PlanLeastBits: " + std::to_string(plan.total_bits) +
             " bits, the budget planner reaches the target with " +
             std::to_string(reference.total_bits),
         shape, target, "max_sum_fpr");
  }
  if (monkey::PlanBitsPerKey(shape, plan.bits_per_key() * 0.995, models)
          .sum_fpr <= target) {
    Fail("PlanLeastBits: 0.5% fewer bits reach the target", shape, target,
         "max_sum_fpr");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const monkey::FprModel kModels[] = {monkey::FprModel::IdealBloom(),
                                             monkey::FprModel::FastLocalBloom(),
                                             monkey::FprModel::Ribbon()};
  FuzzedDataProvider in(data, size);
  const monkey::FprModel& model = in.PickValueInArray(kModels);
  const double bits_per_key = Number(in, 110.0);

  if (in.ConsumeBool()) {
    // StaticShape's arguments, then the policy's path: shape -> plan.
    const double size_ratio = Number(in, 100.0);
    const int num_levels = in.ConsumeIntegralInRange<int>(-2, 70);
    const bool last_level_filter = in.ConsumeBool();
    std::vector<monkey::LevelShape> shape;
    const std::string error =
        monkey::StaticShape(size_ratio, num_levels, last_level_filter, &shape);
    if (!error.empty()) return 0;
    if (!monkey::ValidatePlanInputs(shape, 10).empty()) {
      Fail("StaticShape(" + std::to_string(size_ratio) + ", " +
               std::to_string(num_levels) + ") made an invalid shape",
           shape, 10);
    }
    PlanAndCheck(shape, bits_per_key, model);
    DualAndCheck(shape, Number(in, 2.0), model);
    return 0;
  }
  // Any shape, empty included.
  std::vector<monkey::LevelShape> shape(in.ConsumeIntegralInRange<int>(0, 70));
  for (auto& level : shape) {
    level.entries = Number(in, 1e12);
    level.runs = in.ConsumeBool() ? 1.0 : Number(in, 64.0);
    level.filtered = in.ConsumeBool();
  }
  PlanAndCheck(shape, bits_per_key, model);
  DualAndCheck(shape, Number(in, 2.0), model);
  return 0;
}
