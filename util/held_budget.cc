// The least Sigma FPR with the levels below L0 as built. See held_budget.h.
#include "monkey/util/held_budget.h"

#include <algorithm>

namespace monkey {

HeldBudget HoldBudgetWithL0(const std::vector<LevelShape>& shape,
                            const std::vector<double>& level_bits,
                            double max_bits_per_key,
                            const std::vector<FprModel>& models) {
  HeldBudget held;
  double keys = 0, below_bits = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].filtered) continue;
    keys += shape[i].entries;
    if (i > 0) below_bits += shape[i].entries * level_bits[i];
  }
  if (!shape.empty() && shape[0].filtered && shape[0].entries > 0) {
    held.l0_bits_per_key = std::max(
        0.0, (max_bits_per_key * keys - below_bits) / shape[0].entries);
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!(shape[i].entries > 0) || !(shape[i].runs > 0)) continue;
    const double bits = i == 0 ? held.l0_bits_per_key : level_bits[i];
    held.sum_fpr +=
        shape[i].runs *
        (shape[i].filtered ? models[i].FalsePositiveRate(bits) : 1.0);
  }
  return held;
}

}  // namespace monkey
