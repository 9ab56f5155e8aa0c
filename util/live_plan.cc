// The live plan for new files. See live_plan.h.
#include "util/live_plan.h"

#include <algorithm>

namespace monkey {
namespace {

// The budget for new files that brings the realized average of the settled
// levels (L1 and below) back to `budget`. Files keep the bits they were
// built with while the plan moves on -- an overfull level, a tree that grows
// a level, a trivial move -- so a growing tree drifts below budget. New
// files get budget + kGain * (budget - realized), where realized counts the
// filters that in-flight jobs will not replace: a proportional controller
// that leaves 1/(1 + kGain) of the drift, stable while a job rebuilds less
// than 2/(1 + kGain) of the tree (a compaction of all of it replaces every
// filter, so it sees nothing to correct). Until a tenth of the filtered keys
// have filters the listener has seen, the budget as it is.
constexpr double kGain = 2;

double SteeredBudget(double budget, const std::vector<LevelShape>& settled,
                     const std::vector<LiveLevel>& levels) {
  double filtered = 0, seen_bits = 0, seen_entries = 0;
  for (size_t i = 1; i < settled.size() && i < levels.size(); ++i) {
    if (!settled[i].filtered) continue;
    filtered += settled[i].entries;
    seen_bits += levels[i].filter_bits;
    seen_entries += levels[i].filter_entries;
  }
  if (!(seen_entries > 0.1 * filtered)) return budget;
  const double realized = seen_bits / seen_entries;
  return std::clamp(budget + kGain * (budget - realized), 0.5 * budget,
                    std::min(2 * budget, 100.0));
}

}  // namespace

bool SettleL0(std::vector<LevelShape>* shape) {
  if (shape->empty() || !((*shape)[0].entries > 0)) return false;
  size_t to = 1;
  while (to < shape->size() && !((*shape)[to].entries > 0)) ++to;
  if (to == shape->size()) shape->push_back({0, 1, true});
  if (!(*shape)[0].filtered || !(*shape)[to].filtered) return false;
  (*shape)[to].entries += (*shape)[0].entries;
  (*shape)[to].runs = 1;
  (*shape)[0] = {0, 0, true};
  return true;
}

bool PlanLiveTree(const std::vector<LiveLevel>& levels, double l0_moved_share,
                  const LivePlanOptions& options, LivePlan* out) {
  std::vector<LevelShape> shape;
  for (const LiveLevel& level : levels) {
    shape.push_back({level.entries, level.runs, true});
  }
  LivePlan live;
  live.shape = LiveShape(std::move(shape), options.last_level_filter);
  // L0 is transient: budget the tree its keys are going to make, and give
  // its runs what that plan's price buys. Budgeting L0 as a level of its own
  // would let its generous filters take a share from the long-lived levels
  // and then vanish with it: a growing tree would settle under budget.
  std::vector<LevelShape> settled = live.shape;
  const bool settled_l0 = SettleL0(&settled);
  double filtered = 0;
  for (const LevelShape& level : settled) {
    if (level.filtered) filtered += level.entries;
  }
  live.new_file_budget = SteeredBudget(options.bits_per_key, settled, levels);
  if (!(filtered > 0) ||
      !ValidatePlanInputs(settled, live.new_file_budget).empty()) {
    return false;
  }
  const std::vector<FprModel> models =
      ModelsForLevels(options.filter, settled.size());
  live.plan = PlanBitsPerKey(settled, live.new_file_budget, models);
  // The last level's bits, before the plan shrinks back to the live shape
  // (settling L0 adds a level to a tree of L0 alone).
  const int last = live.plan.levels.back().millibits_per_key;
  live.plan.levels.resize(live.shape.size());
  if (settled_l0) {
    const int priced = PlanRun(live.shape[0].entries, live.shape[0].runs,
                               live.plan.lambda, models[0]);
    // Under sequential keys L0 files are moved, not merged, down to the
    // last level and keep their filters there: plan them as that level in
    // the measure that recent L0 files went that way.
    const double moved = std::clamp(l0_moved_share, 0.0, 1.0);
    live.plan.levels[0].millibits_per_key =
        static_cast<int>(moved * last + (1 - moved) * priced + 0.5);
  }
  EvaluatePlan(live.shape, ModelsForLevels(options.filter, live.shape.size()),
               &live.plan);
  *out = std::move(live);
  return true;
}

}  // namespace monkey
