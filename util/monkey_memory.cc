// Monkey's dual planner. See monkey_memory.h for the math.
#include "monkey/util/monkey_memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <utility>

#include "monkey/util/fpr_hull.h"

namespace monkey {
namespace {

std::string Number(double value) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.6g", value);
  return buf;
}

// Sums of a few dozen w_i p_i round at ~1e-16 relative; this, relative to
// the whole target, is far above that and far below anything a plan can
// change. (Relative to the whole target, not to what the levels with a
// filter may add to it: that can be 0 next to an unfiltered level's 1.)
constexpr double kSlack = 1e-12;

// The last millibit of the stretch from m (up to `limit`) on which the
// model's FPR can only fall as bits rise: for FastLocalBloom, up to the next
// change in RocksDB's number of probes (where it may jump either way); the
// other models fall everywhere.
int MonotoneEnd(const FprModel& model, int m, int limit) {
  if (model.kind() != FilterKind::kFastLocalBloom) return limit;
  // The millibits after which the number of probes changes, once.
  static const std::vector<int> kBreaks = [] {
    std::vector<int> breaks;
    for (int x = 1000; x < 100000; ++x) {
      if (FastLocalBloomProbes(x) != FastLocalBloomProbes(x + 1)) {
        breaks.push_back(x);
      }
    }
    return breaks;
  }();
  const auto next = std::lower_bound(kBreaks.begin(), kBreaks.end(), m);
  return next == kBreaks.end() ? limit : std::min(*next, limit);
}

// The fewest millibits in [from, to] whose FPR is at most `goal`, by the
// exact model; to + 1 if there are none. Binary search on each stretch where
// the FPR falls monotonically, lowest stretch first.
int LeastAtMost(const FprModel& model, int from, int to, double goal) {
  auto fpr = [&](int m) { return model.FalsePositiveRate(m / 1000.0); };
  for (int start = from; start <= to;) {
    const int end = MonotoneEnd(model, start, to);
    if (fpr(end) <= goal) {
      int lo = start, hi = end;
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (fpr(mid) <= goal) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      return lo;
    }
    start = end + 1;
  }
  return to + 1;
}

// The fewest millibits a level of w runs at `m` can drop to while its
// share of the Sum FPR rises by at most `room`, and that rise. Its hull
// vertices are points of the model whose FPR falls with their bits: binary
// search finds the lowest that fits, then the millibits between it and the
// vertex below (which does not fit) are searched by the exact model.
std::pair<int, double> LowestWithin(const FprHull& hull, const FprModel& model,
                                    double w, int m, double room) {
  const double p = model.FalsePositiveRate(m / 1000.0);
  const double goal = p + room / w;
  // Vertices strictly below m: [0, below).
  const size_t below =
      std::lower_bound(hull.millibits.begin(), hull.millibits.end(), m) -
      hull.millibits.begin();
  // The first vertex in [0, below) that fits; below if none does.
  size_t lo = 0, hi = below;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (hull.fpr[mid] <= goal) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  int lowest = lo < below ? hull.millibits[lo] : m;
  if (lo > 0) {
    const int found =
        LeastAtMost(model, hull.millibits[lo - 1] + 1, lowest - 1, goal);
    if (found < lowest) lowest = found;
  }
  return {lowest, w * (model.FalsePositiveRate(lowest / 1000.0) - p)};
}

// The fill may overshoot by more than a millibit's worth: RocksDB's
// FastLocalBloom changes its number of probes at fixed settings, and its
// FPR can drop by several percent in one millibit there (26.000 -> 26.001
// bits: 11 -> 12 probes, -8%). What is left of the target then pays for
// fewer bits elsewhere: while some level in `on` can give up millibits
// (down to its min_bits) and stay within the target, the one that saves
// the most bits does, by the exact model.
void TrimToTarget(const std::vector<const FprHull*>& hulls,
                  const std::vector<FprModel>& models,
                  const std::vector<LevelShape>& shape,
                  const std::vector<size_t>& on, double target, double slack,
                  std::vector<int>* millibits) {
  double sum = 0;
  for (size_t i : on) {
    sum +=
        shape[i].runs * models[i].FalsePositiveRate((*millibits)[i] / 1000.0);
  }
  for (size_t round = 0; round < on.size(); ++round) {
    const double room = target + slack - sum;
    if (!(room > 0)) return;
    size_t best = 0;
    std::pair<int, double> best_move;
    double best_saving = 0;
    for (size_t i : on) {
      const int m = (*millibits)[i];
      const std::pair<int, double> move =
          LowestWithin(*hulls[i], models[i], shape[i].runs, m, room);
      const double saving = shape[i].entries * (m - move.first);
      if (saving > best_saving) {
        best = i;
        best_move = move;
        best_saving = saving;
      }
    }
    if (!(best_saving > 0)) return;
    (*millibits)[best] = best_move.first;
    sum += best_move.second;
  }
}

// The smallest runs get filters first (CandidatesOf), which is optimal
// where bits are continuous; but a larger run's jump from no filter to
// min_bits can leave the target room for a smaller run to have none (a
// level of 1e-284 keys beside 100 runs of 3e9). While some level in `on`
// can drop its filter and stay within the target, the one that saves the
// most bits does.
void DropSpareFilters(const std::vector<FprModel>& models,
                      const std::vector<LevelShape>& shape,
                      const std::vector<size_t>& on, double target,
                      double slack, std::vector<int>* millibits) {
  // What dropping each filter adds to the Sum FPR, computed once: the
  // exact model is costly (an inclusion-exclusion sum for FastLocalBloom),
  // and a drop changes no other level's.
  std::vector<double> rise(on.size());
  double sum = 0;
  for (size_t k = 0; k < on.size(); ++k) {
    const size_t i = on[k];
    rise[k] = shape[i].runs *
              (1 - models[i].FalsePositiveRate((*millibits)[i] / 1000.0));
    sum += shape[i].runs - rise[k];
  }
  for (size_t round = 0; round < on.size(); ++round) {
    const double room = target + slack - sum;
    size_t best = on.size();
    double best_saving = 0;
    for (size_t k = 0; k < on.size(); ++k) {
      const size_t i = on[k];
      const double saving = shape[i].entries * (*millibits)[i];
      if ((*millibits)[i] > 0 && rise[k] <= room && saving > best_saving) {
        best = k;
        best_saving = saving;
      }
    }
    if (best == on.size()) return;
    sum += rise[best];
    (*millibits)[on[best]] = 0;
  }
}

// The least bits for the levels in `on` to reach Sum w_i p_i <= target, on
// their hulls. At price lambda each level sits at HullVertexAt; the Sum FPR
// rises with lambda. Bisection on log(lambda) brackets the crossing: lo
// meets the target, hi (fewer bits) does not. From hi, the levels that move
// between the two -- the margin, where w_i |slope| = lambda n_i -- take
// whole hull steps while a whole step does not yet reach the target, then
// the fewest millibits of the next step that do, by the exact model (between
// vertices it may lie above the hull's chord). Sums are compared with
// `slack`. The caller makes sure that every level in `on` at its best
// filter meets the target.
std::vector<int> FillToTarget(const std::vector<const FprHull*>& hulls,
                              const std::vector<FprModel>& models,
                              const std::vector<LevelShape>& shape,
                              const std::vector<size_t>& on, double target,
                              double slack, double* lambda) {
  auto vertex_at = [&](size_t i, double log_lambda) {
    return HullVertexAt(*hulls[i], shape[i].entries, shape[i].runs, log_lambda);
  };
  auto sum_fpr_at = [&](double log_lambda) {
    double total = 0;
    for (size_t i : on) {
      total += shape[i].runs * hulls[i]->fpr[vertex_at(i, log_lambda)];
    }
    return total;
  };
  double lo, hi;
  LogLambdaBracket(hulls, shape, on, &lo, &hi);
  std::vector<int> millibits(shape.size(), 0);
  if (!(lo < hi) || sum_fpr_at(hi) <= target + slack) {
    lo = hi;  // the cheapest filters already meet it: no margin
  }
  for (int iter = 0; iter < 200 && lo < hi; ++iter) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (sum_fpr_at(mid) <= target + slack ? lo : hi) = mid;
  }
  double excess = -target;
  for (size_t i : on) {
    const size_t v = vertex_at(i, hi);
    millibits[i] = hulls[i]->millibits[v];
    excess += shape[i].runs * hulls[i]->fpr[v];
  }
  // What one millibit of the last margin step buys: a fill that ends
  // closer to the target than that is as close as the grid allows.
  double one_millibit = 0;
  for (size_t i : on) {
    if (excess <= slack) break;
    const FprHull& hull = *hulls[i];
    const double w = shape[i].runs;
    const size_t last = vertex_at(i, lo);
    for (size_t v = vertex_at(i, hi); v < last; ++v) {
      const double step_gain = w * (hull.fpr[v] - hull.fpr[v + 1]);
      if (step_gain < excess - slack) {
        millibits[i] = hull.millibits[v + 1];
        excess -= step_gain;
        continue;
      }
      // At hull.millibits[v + 1] the gain is step_gain, which is enough;
      // the exact model may reach it sooner.
      const int m =
          LeastAtMost(models[i], hull.millibits[v] + 1, hull.millibits[v + 1],
                      hull.fpr[v] - (excess - slack) / w);
      millibits[i] = std::min(m, hull.millibits[v + 1]);
      excess -= w * (hull.fpr[v] -
                     models[i].FalsePositiveRate(millibits[i] / 1000.0));
      one_millibit = -w * hull.slope[v];
      break;
    }
  }
  if (-excess > one_millibit + slack) {
    TrimToTarget(hulls, models, shape, on, target, slack, &millibits);
  }
  DropSpareFilters(models, shape, on, target, slack, &millibits);
  *lambda = std::isfinite(hi) ? std::exp(hi) : 0;
  return millibits;
}

// The millibit-entries plan `a` spends beyond plan `b`,
// sum_i n_i (a_i - b_i) over the filtered levels. Summed level by level, so
// that levels whose bits round away in a plan's total (1e-284 keys beside
// 3e11) still tell two plans apart.
double ExtraMillibits(const std::vector<LevelShape>& shape, const Plan& a,
                      const Plan& b) {
  double extra = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int diff =
        a.levels[i].millibits_per_key - b.levels[i].millibits_per_key;
    if (shape[i].filtered && diff != 0) extra += shape[i].entries * diff;
  }
  return extra;
}

}  // namespace

std::string ValidateTargetInputs(const std::vector<LevelShape>& shape,
                                 double max_sum_fpr) {
  if (!(max_sum_fpr > 0) || !std::isfinite(max_sum_fpr)) {
    return "max_sum_fpr must be a finite number above 0, got " +
           Number(max_sum_fpr);
  }
  return ValidatePlanInputs(shape, 0);
}

double LeastSumFpr(const std::vector<LevelShape>& shape,
                   const std::vector<FprModel>& models) {
  double sum = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].filtered || !(shape[i].runs > 0)) continue;
    sum += shape[i].runs * HullFor(models[i])->fpr.back();
  }
  return sum;
}

std::string PlanLeastBits(const std::vector<LevelShape>& shape,
                          double max_sum_fpr, const FprModel& model,
                          Plan* plan) {
  return PlanLeastBits(shape, max_sum_fpr,
                       std::vector<FprModel>(shape.size(), model), plan);
}

std::string PlanLeastBits(const std::vector<LevelShape>& shape,
                          double max_sum_fpr,
                          const std::vector<FprModel>& models, Plan* plan) {
  std::string error = ValidateTargetInputs(shape, max_sum_fpr);
  if (!error.empty()) return error;
  if (models.size() != shape.size()) {
    return "need one filter model per level: " + std::to_string(models.size()) +
           " models for " + std::to_string(shape.size()) + " levels";
  }
  const double least = LeastSumFpr(shape, models);
  if (least > max_sum_fpr * (1 + kSlack)) {
    return "max_sum_fpr=" + Number(max_sum_fpr) +
           " cannot be reached: the best filters RocksDB builds give " +
           Number(least) + " on this shape";
  }
  std::vector<std::shared_ptr<const FprHull>> owned;
  const std::vector<const FprHull*> hulls = HullsFor(models, &owned);
  // As in PlanBitsPerKey: the candidates smallest runs first, each k of
  // them a convex problem; the cheapest of those that reach the target is
  // the optimum.
  const PlanCandidates chosen = CandidatesOf(shape, hulls);
  const std::vector<int>& fixed = chosen.fixed;
  const std::vector<size_t>& candidates = chosen.by_run_size;
  double fixed_fpr = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (fixed[i] > 0) fixed_fpr += shape[i].runs * hulls[i]->fpr.back();
  }
  double unfiltered_fpr = 0;  // candidates without a filter: p = 1
  for (size_t i : candidates) unfiltered_fpr += shape[i].runs;
  double filtered_floor = 0;  // the first k at their best filters
  Plan best;
  bool found = false;
  for (size_t k = 0; k <= candidates.size(); ++k) {
    if (k > 0) {
      const size_t i = candidates[k - 1];
      unfiltered_fpr -= shape[i].runs;
      filtered_floor += shape[i].runs * hulls[i]->fpr.back();
    }
    const double rest = max_sum_fpr - fixed_fpr - unfiltered_fpr;
    if (filtered_floor > rest + kSlack * max_sum_fpr) continue;
    const std::vector<size_t> on(candidates.begin(), candidates.begin() + k);
    Plan plan;
    const std::vector<int> millibits = FillToTarget(
        hulls, models, shape, on, rest, kSlack * max_sum_fpr, &plan.lambda);
    plan.levels.resize(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) {
      plan.levels[i].millibits_per_key = std::max(millibits[i], fixed[i]);
    }
    EvaluatePlan(shape, models, &plan);
    if (plan.sum_fpr > max_sum_fpr * (1 + 2 * kSlack)) continue;
    const double extra = found ? ExtraMillibits(shape, plan, best) : 0;
    if (!found || extra < 0 || (extra == 0 && plan.sum_fpr < best.sum_fpr)) {
      best = std::move(plan);
      found = true;
    }
  }
  if (!found) {
    // Only rounding in the last digits could get here: LeastSumFpr meets it.
    return "max_sum_fpr=" + Number(max_sum_fpr) +
           " is within rounding of the least Sum FPR RocksDB's filters "
           "reach on this shape, " +
           Number(least);
  }
  *plan = std::move(best);
  return "";
}

double UniformSumFpr(const std::vector<LevelShape>& shape, double bits_per_key,
                     const std::vector<FprModel>& models) {
  return PlanUniform(shape, bits_per_key, models).sum_fpr;
}

}  // namespace monkey
