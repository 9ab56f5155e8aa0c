// Monkey's bits-per-key planner. See monkey_bpk.h for the math.
#include "monkey/util/monkey_bpk.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

#include "monkey/util/fpr_hull.h"

namespace monkey {
namespace {

// RocksDB clamps bits per key to 100 (BloomLikeFilterPolicy); a budget above
// that cannot be built by anyone, so it is an input error, not a plan.
constexpr double kMaxBudgetBitsPerKey = 100.0;
constexpr size_t kMaxLevels = 64;
// Far beyond any real tree, and small enough that a budget in
// millibit-entries (up to 1e5 * 64 * 1e18) stays finite.
constexpr double kMaxEntries = 1e18;
constexpr double kMaxRuns = 1e6;

// Water-filling over the levels in `on`, each between min_bits and
// max_bits, with `budget` millibit-entries. At multiplier lambda a level with
// n entries in w runs sits at the first hull vertex whose next step gains
// less than lambda per millibit-entry: w |slope| < lambda n. Bisection on
// log(lambda) finds where the spend crosses the budget; the levels that move
// there are the margin, and take what is left, 1 millibit at a time.
std::vector<int> WaterFill(const std::vector<const FprHull*>& hulls,
                           const std::vector<LevelShape>& shape,
                           const std::vector<size_t>& on, double budget,
                           double* lambda) {
  auto vertex_at = [&](size_t i, double log_lambda) {
    return HullVertexAt(*hulls[i], shape[i].entries, shape[i].runs, log_lambda);
  };
  auto spend = [&](double log_lambda) {
    double total = 0;
    for (size_t i : on) {
      total += shape[i].entries * hulls[i]->millibits[vertex_at(i, log_lambda)];
    }
    return total;
  };
  // Slack for rounding in sums of n_i * millibits, relative to the budget:
  // StaticShape's entries sum to about 1, so a budget can be far below one
  // millibit-entry, and a floor of one let "monkey:.00000001" spend 1e-4
  // over it (fuzz finding_tiny_budget).
  const double slack = 1e-9 * budget;
  // Bracket log(lambda): at hi every level sits at min_bits, at lo every
  // level at its best filter.
  double lo, hi;
  LogLambdaBracket(hulls, shape, on, &lo, &hi);
  std::vector<int> millibits(shape.size(), 0);
  if (!(lo < hi) || spend(lo) <= budget + slack) {
    lo = hi = -std::numeric_limits<double>::infinity();  // lambda = 0
  }
  for (int iter = 0; iter < 200 && lo < hi; ++iter) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (spend(mid) <= budget + slack ? hi : lo) = mid;
  }
  double remaining = budget;
  for (size_t i : on) {
    millibits[i] = hulls[i]->millibits[vertex_at(i, hi)];
    remaining -= shape[i].entries * millibits[i];
  }
  for (size_t i : on) {
    const FprHull& hull = *hulls[i];
    const size_t target = vertex_at(i, lo);
    const double n = shape[i].entries;
    for (size_t v = vertex_at(i, hi); v < target; ++v) {
      const double step = hull.millibits[v + 1] - hull.millibits[v];
      const double extra = std::min(step, std::floor((remaining + slack) / n));
      if (extra <= 0) break;
      millibits[i] += static_cast<int>(extra);
      remaining -= n * extra;
      if (extra < step) break;
    }
  }
  *lambda = std::exp(hi);
  return millibits;
}

}  // namespace

void EvaluatePlan(const std::vector<LevelShape>& shape,
                  const std::vector<FprModel>& models, Plan* plan) {
  plan->sum_fpr = 0;
  plan->total_bits = 0;
  plan->filtered_entries = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    LevelPlan& level = plan->levels[i];
    level.bits_per_key = level.millibits_per_key / 1000.0;
    level.fpr = models[i].FalsePositiveRate(level.bits_per_key);
    if (!shape[i].filtered) continue;
    plan->sum_fpr += shape[i].runs * level.fpr;
    plan->total_bits += shape[i].entries * level.bits_per_key;
    plan->filtered_entries += shape[i].entries;
  }
}

std::string ValidatePlanInputs(const std::vector<LevelShape>& shape,
                               double bits_per_key) {
  if (!(bits_per_key >= 0 && bits_per_key <= kMaxBudgetBitsPerKey)) {
    return "bits_per_key must be in [0, 100], got " +
           std::to_string(bits_per_key);
  }
  if (shape.empty() || shape.size() > kMaxLevels) {
    return "the tree must have 1 to 64 levels, got " +
           std::to_string(shape.size());
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const LevelShape& level = shape[i];
    if (!(level.entries >= 0 && level.entries <= kMaxEntries) ||
        !(level.runs >= 0 && level.runs <= kMaxRuns)) {
      return "level " + std::to_string(i) + " needs entries in [0, 1e18] " +
             "and runs in [0, 1e6], got entries=" +
             std::to_string(level.entries) +
             " runs=" + std::to_string(level.runs);
    }
  }
  return "";
}

Plan PlanBitsPerKey(const std::vector<LevelShape>& shape, double bits_per_key,
                    const FprModel& model) {
  return PlanBitsPerKey(shape, bits_per_key,
                        std::vector<FprModel>(shape.size(), model));
}

Plan PlanBitsPerKey(const std::vector<LevelShape>& shape, double bits_per_key,
                    const std::vector<FprModel>& models) {
  std::vector<std::shared_ptr<const FprHull>> owned;
  const std::vector<const FprHull*> hulls = HullsFor(models, &owned);
  double entries = 0;
  for (const LevelShape& level : shape) {
    if (level.filtered) entries += level.entries;
  }
  const double budget = bits_per_key * 1000.0 * entries;  // millibit-entries

  // Each k of the candidates, smallest runs first, is a convex problem; the
  // best of them is the optimum, zero-bit levels and all.
  const PlanCandidates chosen = CandidatesOf(shape, hulls);
  const std::vector<int>& fixed = chosen.fixed;
  const std::vector<size_t>& candidates = chosen.by_run_size;
  // The candidates' Sigma FPR by the exact model, each level's FPR at a
  // setting computed once per call: the model is costly (FastLocalBloom's
  // is an inclusion-exclusion sum), and the candidates share most levels'
  // bits. Evaluated plan by plan, 64 levels took 4,000 evaluations.
  std::vector<std::unordered_map<int, double>> fpr_at(shape.size());
  auto sum_fpr = [&](const std::vector<int>& millibits) {
    double sum = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (!shape[i].filtered) continue;
      auto [it, inserted] = fpr_at[i].try_emplace(millibits[i], 0.0);
      if (inserted) {
        it->second = models[i].FalsePositiveRate(millibits[i] / 1000.0);
      }
      sum += shape[i].runs * it->second;
    }
    return sum;
  };
  Plan best;
  double best_sum = std::numeric_limits<double>::infinity();
  double min_cost = 0;
  for (size_t k = 0; k <= candidates.size(); ++k) {
    if (k > 0) {
      const size_t i = candidates[k - 1];
      min_cost += shape[i].entries * hulls[i]->millibits[0];
    }
    if (min_cost > budget * (1 + 1e-12)) break;
    const std::vector<size_t> on(candidates.begin(), candidates.begin() + k);
    double lambda = 0;
    std::vector<int> millibits = WaterFill(hulls, shape, on, budget, &lambda);
    for (size_t i = 0; i < shape.size(); ++i) {
      millibits[i] = std::max(millibits[i], fixed[i]);
    }
    const double sum = sum_fpr(millibits);
    if (sum < best_sum) {
      best_sum = sum;
      best.lambda = lambda;
      best.levels.assign(shape.size(), LevelPlan());
      for (size_t i = 0; i < shape.size(); ++i) {
        best.levels[i].millibits_per_key = millibits[i];
      }
    }
  }
  EvaluatePlan(shape, models, &best);
  return best;
}

int BuildableMillibits(double bits_per_key, const FprModel& model) {
  const int millibits = ToMillibits(bits_per_key);
  if (millibits < 500) return 0;
  return std::clamp(
      millibits, static_cast<int>(std::ceil(model.min_bits() * 1000 - 1e-9)),
      static_cast<int>(std::floor(model.max_bits() * 1000 + 1e-9)));
}

int BudgetMillibits(double bits_per_key, const FprModel& model) {
  if (!(bits_per_key > 0)) return 0;
  // Down to the millibit (the 1e-6 absorbs 7.0 read as 6.9999999...).
  const double millibits = std::floor(bits_per_key * 1000 + 1e-6);
  const int least = static_cast<int>(std::ceil(model.min_bits() * 1000 - 1e-9));
  if (millibits < least) return 0;
  return static_cast<int>(
      std::min(millibits, std::floor(model.max_bits() * 1000 + 1e-9)));
}

Plan PlanUniform(const std::vector<LevelShape>& shape, double bits_per_key,
                 const FprModel& model) {
  return PlanUniform(shape, bits_per_key,
                     std::vector<FprModel>(shape.size(), model));
}

Plan PlanUniform(const std::vector<LevelShape>& shape, double bits_per_key,
                 const std::vector<FprModel>& models) {
  Plan plan;
  plan.levels.resize(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    plan.levels[i].millibits_per_key =
        shape[i].filtered ? BuildableMillibits(bits_per_key, models[i]) : 0;
  }
  EvaluatePlan(shape, models, &plan);
  return plan;
}

std::string StaticShape(double size_ratio, int num_levels,
                        bool last_level_filter,
                        std::vector<LevelShape>* shape) {
  if (!(size_ratio > 1.0) || !std::isfinite(size_ratio)) {
    return "size_ratio must be a finite number above 1, got " +
           std::to_string(size_ratio);
  }
  if (num_levels < 1 || num_levels > static_cast<int>(kMaxLevels)) {
    return "num_levels must be in [1, 64], got " + std::to_string(num_levels);
  }
  shape->assign(num_levels, LevelShape());
  const int last = num_levels - 1;
  const double log_ratio = std::log(size_ratio);
  for (int level = 1; level <= last; ++level) {
    (*shape)[level].entries = std::exp(log_ratio * (level - last));
  }
  // L0 is one more step up: a single run of L1 / size_ratio. With one level
  // in all, L0 is the last level.
  (*shape)[0].entries =
      num_levels == 1 ? 1.0 : std::exp(log_ratio * (0 - last));
  if (!last_level_filter) (*shape)[last].filtered = false;
  return "";
}

int PlanRun(double entries, double runs, double lambda, const FprModel& model) {
  if (!(runs > 0)) return 0;
  return PlanRun(entries, runs, lambda, *HullFor(model));
}

int PlanRun(double entries, double runs, double lambda, const FprHull& hull) {
  if (!(runs > 0)) return 0;
  if (!(entries > 0)) return hull.millibits.back();
  const size_t v = HullVertexAt(hull, entries, runs, std::log(lambda));
  // No filter at all is the other choice: worth it if the cheapest filter
  // saves less than it costs at this price.
  const double with = runs * hull.fpr[v] + lambda * entries * hull.millibits[v];
  return with < runs ? hull.millibits[v] : 0;
}

std::vector<LevelShape> LiveShape(std::vector<LevelShape> levels,
                                  bool last_level_filter) {
  while (!levels.empty() && !(levels.back().entries > 0)) levels.pop_back();
  for (LevelShape& level : levels) level.filtered = true;
  if (!levels.empty() && !last_level_filter) levels.back().filtered = false;
  return levels;
}

}  // namespace monkey
