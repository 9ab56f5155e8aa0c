// The least Sigma FPR with the levels below L0 as built. See held_budget.h.
#include "monkey/util/held_budget.h"

#include <algorithm>
#include <cmath>

namespace monkey {

Plan HoldBudgetWithL0(const std::vector<LevelShape>& shape,
                      const std::vector<double>& level_bits,
                      double max_bits_per_key,
                      const std::vector<FprModel>& models) {
  Plan plan;
  plan.levels.resize(shape.size());
  double keys = 0, below_bits = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) {
      plan.levels[i].millibits_per_key =
          static_cast<int>(std::lround(1000 * level_bits[i]));
    }
    if (!shape[i].filtered) continue;
    keys += shape[i].entries;
    if (i > 0) below_bits += shape[i].entries * level_bits[i];
  }
  if (!shape.empty() && shape[0].filtered && shape[0].entries > 0) {
    // Rounded down: the budget's bound is not to be exceeded.
    plan.levels[0].millibits_per_key = static_cast<int>(
        std::floor(std::max(0.0, 1000 * (max_bits_per_key * keys - below_bits) /
                                     shape[0].entries)));
  }
  EvaluatePlan(shape, models, &plan);
  return plan;
}

}  // namespace monkey
