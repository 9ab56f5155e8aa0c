// libFuzzer target: the planner's inputs (util/monkey_bpk.h). Shapes, budgets
// and size ratios come from the input, including NaN, +-inf, negatives,
// zero, denormals and huge values. Allowed outcomes: a validation error, or
// a finite plan within RocksDB's range that keeps the budget.
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
          double bits_per_key) {
  fprintf(stderr, "planner_fuzzer: %s\nbits_per_key=%.17g, %zu levels:\n",
          what.c_str(), bits_per_key, shape.size());
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
  return 0;
}
