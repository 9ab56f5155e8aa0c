// The live plan for new files. See live_plan.h.
#include "monkey/util/live_plan.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <unordered_map>

#include "monkey/util/fpr_hull.h"
#include "monkey/util/price_search.h"

namespace monkey {
namespace {

// The band and the correction's bound (kOverBand, kUnderBand,
// kMaxCorrection) are util/price_search.h's.
//
// Objective::kMemory's band is as wide, under its target: the target is a
// ceiling ("never worse than uniform filters"), and a band around it held
// the tree 3% over on average. The target also drops as the tree settles
// (upper levels reach fewer lookups, docs/design.md#dual), so
// settled trees sat over it more often than under. In the simulator, over
// 72 growth paths (memtables of 9,000 and 36,000 keys, base level 1-4x,
// T = 6-10, sizing on and off, compactions 3 and 20 memtables behind), 344
// settled snapshots: Sigma FPR 1.028x the target on average and 82 over
// 1.05x with the band around it; 1.002x and 36 with the band under it, for
// 0.6% more bits (9.444 per key on average, against 9.384).
constexpr double kTargetOverBand = 0;
constexpr double kTargetUnderBand = kOverBand + kUnderBand;
// A last level whose files reach this share of lookups spans the key space,
// as under random keys. Under sequential keys files hold stretches side by
// side and move down whole: there is no backlog to plan for, only levels
// of the same worth per key.
constexpr double kSpansTheKeys = 0.99;

// The size the last level of `settled` (L0 folded in) is planned at: the
// geometric mean of its keys now and once the backlog of `shape` has
// drained into it. A file built there now is read in two trees: the one
// draining now, in which its level is small, and the drained one, in which
// it holds most of the keys; its best bits differ between them by
// log(drained / now) / ln(2)^2. Planned for either alone it loses in the
// other, and halfway in bits -- a level of the geometric mean of the two
// sizes -- measured best in both (docs/design.md#backlogs). Only where
// the backlog ends in this level: under dynamic sizing always; without it,
// not where the deepest level is itself past its target and a young tree's
// next level is coming (its files are about to be rewritten too). And only
// where it spans the key space: under sequential keys files move down
// whole, side by side, and a key is worth the same everywhere.
double PlannedLastLevelEntries(const std::vector<LevelShape>& shape,
                               const std::vector<LevelShape>& settled,
                               size_t last, const LevelSizing& sizing) {
  const double now = settled[last].entries;
  if (!sizing.known() || settled[last].runs < kSpansTheKeys) return now;
  std::vector<double> entries;
  for (const LevelShape& level : shape) entries.push_back(level.entries);
  const std::vector<double> drained = DrainedEntries(entries, sizing);
  for (size_t i = last + 1; i < drained.size(); ++i) {
    if (drained[i] > 0) return now;
  }
  return std::sqrt(now * std::max(now, drained[last]));
}

}  // namespace

bool SettleL0(std::vector<LevelShape>* shape) {
  if (shape->empty() || !((*shape)[0].entries > 0)) return false;
  size_t to = 1;
  while (to < shape->size() && !((*shape)[to].entries > 0)) ++to;
  if (to == shape->size()) shape->push_back({0, 0, true});
  if (!(*shape)[0].filtered || !(*shape)[to].filtered) return false;
  // Its reach: what it covers and what L0 covers (under random keys both
  // cover the key space; under sequential keys, stretches side by side).
  (*shape)[to].entries += (*shape)[0].entries;
  (*shape)[to].runs = std::min(1.0, (*shape)[to].runs + (*shape)[0].runs);
  (*shape)[0] = {0, 0, true};
  return true;
}

namespace {

using Measure = PlanMeasure;
using Solution = PricedMillibits;

// One plan of a live tree: the shapes it is made for, the measures a price
// is judged by, and the steps PlanLiveTree takes with them.
class LivePlanner {
 public:
  LivePlanner(const std::vector<LiveLevel>& levels,
              const LivePlanOptions& options);

  // False where the tree holds no filtered keys or its shape is invalid.
  bool Plannable() const { return plannable_; }
  // The plan for the options' objective, evaluated on the live shape.
  LivePlan Plan();

 private:
  std::vector<int> BitsAt(double log_lambda) const;
  double Spend(const std::vector<int>& millibits) const;
  double Projected(const std::vector<int>& millibits) const;
  Solution Solve(const Measure& measure, double target, Meet meet) const;
  Solution ForBudget() const;
  Solution ForTarget() const;
  Solution ForCache();

  const std::vector<LiveLevel>& levels_;
  const LivePlanOptions& options_;
  LivePlan live_;
  size_t n_ = 0;
  std::vector<LevelShape> settled_;
  double settled_keys_ = 0;
  std::vector<FprModel> models_;       // per level of settled_
  std::vector<FprModel> live_models_;  // per level of the live shape
  std::vector<std::shared_ptr<const FprHull>> owned_hulls_;
  std::vector<const FprHull*> hulls_;
  size_t last_ = 0;
  double last_entries_ = 0;
  double sunk_bits_ = 0, known_ = 0;
  bool plannable_ = false;
  bool steerable_ = false;
};

LivePlanner::LivePlanner(const std::vector<LiveLevel>& levels,
                         const LivePlanOptions& options)
    : levels_(levels), options_(options) {
  std::vector<LevelShape> shape;
  for (const LiveLevel& level : levels) {
    shape.push_back({level.entries, level.runs, true});
  }
  live_.shape = LiveShape(std::move(shape), options.last_level_filter);
  if (!levels.empty()) {
    live_.next_flush = {levels[0].next_flush_entries, levels[0].next_flush_runs,
                        true};
  }
  n_ = live_.shape.size();
  // L1 and below are planned for the tree they will live in: L0 folded into
  // the level its compactions go to.
  settled_ = live_.shape;
  SettleL0(&settled_);
  for (const LevelShape& level : settled_) {
    if (level.filtered) settled_keys_ += level.entries;
  }
  plannable_ = settled_keys_ > 0 &&
               ValidatePlanInputs(settled_, options.bits_per_key).empty();
  if (!plannable_) return;
  models_ = ModelsForLevels(options.filter, settled_.size());
  live_models_ = ModelsForLevels(options.filter, n_);
  hulls_ = HullsFor(models_, &owned_hulls_);
  // The last level is priced for the keys on their way into it. A fast
  // load leaves levels far past their targets, and RocksDB (7.x on) merges
  // a backed-up L0 into the base level whole: for a while the tree is
  // upside down, the last level a fraction of the levels above it. Planned
  // as it is, the last level's new files get a small level's bits, and
  // they stay: once the backlog has drained, the last level holds most of
  // the keys at too many bits, and the levels above, rewritten since, make
  // up for it with too few. Fast bulk loads with dynamic sizing on settled
  // at up to 1.16x the optimum's Sigma FPR that way (docs/design.md#backlogs).
  // So the last level is priced between the level it is and the level it drains
  // to (PlannedLastLevelEntries), at the same price as the others; the levels
  // above are planned as they are, for the short while their files live there.
  for (size_t i = 1; i < n_; ++i) {
    if (settled_[i].entries > 0) last_ = i;
  }
  last_entries_ = last_ > 0 ? PlannedLastLevelEntries(live_.shape, settled_,
                                                      last_, options.sizing)
                            : 0;
  // The tree once the jobs in flight are done: the filters already built
  // (sunk: they keep their bits until rewritten) and the keys the jobs are
  // writing below L0 (fluid: they get the plan's bits); keys in files whose
  // filters are unknown stay out. L0's files count as built, so that their
  // premium is paid for by the levels below when it takes the tree out of
  // the band; a flush in flight is neither.
  for (size_t i = 0; i < n_ && i < levels.size(); ++i) {
    if (!live_.shape[i].filtered) continue;
    sunk_bits_ += levels[i].filter_bits;
    known_ += levels[i].built_entries + (i > 0 ? levels[i].fluid_entries : 0);
  }
  // Only the keys being written below L0 can be steered: with none, there
  // is nothing to correct now (and the projection does not move with the
  // price).
  double fluid = 0;
  for (size_t i = 1; i < n_ && i < levels.size(); ++i) {
    if (live_.shape[i].filtered) fluid += levels[i].fluid_entries;
  }
  steerable_ = fluid > 0 && known_ > 0.1 * settled_keys_;
}

// Millibits per level at price lambda (expected false positives saved per
// bit and key at the margin): L1 and below at the bits the optimum gives a
// run of the settled level's size and reach (the last level's size as
// PlannedLastLevelEntries has it); each L0 file at what a run of its own
// size and reach is worth. Indexed like the live shape.
std::vector<int> LivePlanner::BitsAt(double log_lambda) const {
  const double lambda = std::exp(log_lambda);
  std::vector<int> millibits(n_, 0);
  for (size_t i = 0; i < n_; ++i) {
    const LevelShape& level = i == 0 ? live_.shape[0] : settled_[i];
    if (level.filtered && level.runs > 0) {
      const double entries =
          i == last_ && last_ > 0 ? last_entries_ : level.entries;
      millibits[i] = PlanRun(entries, level.runs, lambda, *hulls_[i]);
    }
  }
  return millibits;
}

// What the settled tree spends at `millibits`: L1 and below, L0's keys at
// the bits of the level they settle into. The plan spends the budget
// there; L0's files, small runs, take their premium on top while they
// last, so that once L0 drains the tree holds the budget rather than
// sitting under it by that premium (2.7% at monkey:10 in compare.sh's
// default preset, costing 7% of its Sigma FPR, when L0 was in). L0 that
// did not settle spends at its own bits: a tree of L0 alone (folded into a
// level SettleL0 adds past the live shape), or L0 over a level that carries
// no filter, where it stays in the budget. Left out there, it spent nothing
// at any price and took the hull's top, 48 bits a key.
double LivePlanner::Spend(const std::vector<int>& millibits) const {
  double bits = 0, keys = 0;
  if (settled_.size() > n_ ||
      (settled_[0].entries > 0 && settled_[0].filtered)) {
    bits = live_.shape[0].entries * millibits[0] / 1000.0;
    keys = live_.shape[0].entries;
  }
  for (size_t i = 1; i < n_; ++i) {
    if (!settled_[i].filtered) continue;
    bits += settled_[i].entries * millibits[i] / 1000.0;
    keys += settled_[i].entries;
  }
  return keys > 0 ? bits / keys : 0.0;
}

// The tree's average once the jobs in flight are done, at `millibits` for
// the keys being written below L0.
double LivePlanner::Projected(const std::vector<int>& millibits) const {
  double bits = sunk_bits_;
  for (size_t i = 1; i < n_ && i < levels_.size(); ++i) {
    if (live_.shape[i].filtered) {
      bits += levels_[i].fluid_entries * millibits[i] / 1000.0;
    }
  }
  return bits / known_;
}

// SolveForPrice (price_search.h) over the levels' bits at each price.
Solution LivePlanner::Solve(const Measure& measure, double target,
                            Meet meet) const {
  return SolveForPrice([this](double log_lambda) { return BitsAt(log_lambda); },
                       measure, target, meet, models_);
}

// Objective::kSumFpr: the price at which the settled tree, built at the
// plan, spends the budget (L0's premium on top, see Spend).
Solution LivePlanner::ForBudget() const {
  auto spend = [this](const std::vector<int>& m) { return Spend(m); };
  auto projected = [this](const std::vector<int>& m) { return Projected(m); };
  const double budget = options_.bits_per_key;
  Solution plan = Solve(spend, budget, Meet::kWithin);
  if (!steerable_) return plan;
  // The tree strays from the budget by more than the band: the price that
  // brings it to the band's edge, within kMaxCorrection of the budget.
  const double now = Projected(plan.millibits);
  if (!(now / budget - 1 > kOverBand || 1 - now / budget > kUnderBand)) {
    return plan;
  }
  const double sign = now > budget ? 1 : -1;
  Solution corrected =
      Solve(projected, budget * (sign > 0 ? 1 + kOverBand : 1 - kUnderBand),
            Meet::kWithin);
  Solution bound =
      Solve(spend, budget * (1 - sign * kMaxCorrection), Meet::kWithin);
  // Judged by what each spends, not by its price: both can sit on one hull
  // segment, at different mixes (Ribbon's vertices are 1.045 bits apart),
  // and the correction then went to 1.94x the budget.
  const double over = Spend(corrected.millibits) - Spend(bound.millibits);
  const bool bounded = sign > 0 ? over < 0 : over > 0;
  return bounded ? bound : corrected;
}

// Objective::kMemory: the least bits whose Sigma FPR meets the target.
Solution LivePlanner::ForTarget() const {
  auto spend = [this](const std::vector<int>& m) { return Spend(m); };
  const double budget = options_.bits_per_key;
  // The tree the target is for: the settled one, as for a budget (L0's
  // files take their premium on top while they last).
  std::vector<LevelShape> steady = settled_;
  if (settled_.size() > n_) {
    steady = live_.shape;
  } else {
    steady.resize(n_);
  }
  // The FPR of level i's filters at `millibits`, each computed once per
  // plan: the model is exact and costly (FastLocalBloomFpr, an
  // inclusion-exclusion sum in long double), and the bisections below ask
  // for the same few millibits again and again. Unmemoized, a plan for
  // this objective took 6.3 ms against the budget's 0.37 ms on a 5-level
  // tree, and the listener re-plans from flush and compaction callbacks:
  // a deep tree's fillrandom ran at 0.59x bloomfilter:10's ops/s.
  std::vector<std::unordered_map<int, double>> fpr_at(n_);
  auto fpr_of = [&](size_t i, int millibits) {
    auto [it, inserted] = fpr_at[i].try_emplace(millibits, 0.0);
    if (inserted) {
      it->second = live_models_[i].FalsePositiveRate(millibits / 1000.0);
    }
    return it->second;
  };
  // Its Sigma FPR built at `millibits`: each run by its reach.
  auto sum_fpr = [&](const std::vector<int>& millibits) {
    double fpr = 0;
    for (size_t i = 0; i < n_; ++i) {
      if (steady[i].filtered && steady[i].runs > 0) {
        fpr += steady[i].runs * fpr_of(i, millibits[i]);
      }
    }
    return fpr;
  };
  // Each level's sunk files: the mean of their FPRs by their keys (not the
  // FPR at their mean bits, which is lower: see LiveLevel).
  std::vector<double> sunk_fpr(n_, 1.0);
  for (size_t i = 1; i < n_ && i < levels_.size(); ++i) {
    double fpr = 0, keys = 0;
    for (const auto& [millibits, entries] :
         levels_[i].built_entries_by_millibits) {
      fpr += entries * fpr_of(i, millibits);
      keys += entries;
    }
    if (keys > 0) sunk_fpr[i] = fpr / keys;
  }
  // The same once the jobs in flight are done: each level's sunk files at
  // their bits, the keys being written at the plan's.
  auto projected_fpr = [&](const std::vector<int>& millibits) {
    double fpr = 0;
    for (size_t i = 0; i < n_; ++i) {
      if (!steady[i].filtered || !(steady[i].runs > 0)) continue;
      const double planned = fpr_of(i, millibits[i]);
      double level = planned;
      if (i > 0 && i < levels_.size()) {
        const LiveLevel& l = levels_[i];
        if (l.built_entries + l.fluid_entries > 0) {
          level = (l.built_entries * sunk_fpr[i] + l.fluid_entries * planned) /
                  (l.built_entries + l.fluid_entries);
        }
      }
      fpr += steady[i].runs * level;
    }
    return fpr;
  };
  auto less_fpr = [&](const std::vector<int>& m) { return -sum_fpr(m); };
  auto less_projected = [&](const std::vector<int>& m) {
    return -projected_fpr(m);
  };
  const double target = options_.max_sum_fpr > 0
                            ? options_.max_sum_fpr
                            : PlanUniform(steady, budget, live_models_).sum_fpr;
  Solution plan = Solve(less_fpr, -target, Meet::kReach);
  if (steerable_) {
    const double now = projected_fpr(plan.millibits);
    if (now / target - 1 > kTargetOverBand ||
        1 - now / target > kTargetUnderBand) {
      // Over the target: more bits (a lower price), at most kMaxCorrection
      // more than the plan spends; under the band, the other way.
      const double sign = now > target ? 1 : -1;
      const double nominal = Spend(plan.millibits);
      Solution corrected = Solve(
          less_projected,
          -target * (sign > 0 ? 1 + kTargetOverBand : 1 - kTargetUnderBand),
          Meet::kReach);
      Solution bound =
          Solve(spend, nominal * (1 + sign * kMaxCorrection), Meet::kWithin);
      const double over = Spend(corrected.millibits) - Spend(bound.millibits);
      const bool bounded = sign > 0 ? over > 0 : over < 0;
      plan = std::move(bounded ? bound : corrected);
    }
  }
  return plan;
}

// Objective::kIo: the live shape's runs through the cache, each level at
// the bits PlanBitsForCache finds. A level that holds no keys (one between
// runs that a job no listener heard of writes; L0 with no flush known)
// gets the average budget.
Solution LivePlanner::ForCache() {
  const CacheLayout& cache = options_.cache;
  double bytes = 0, entries = 0;
  for (const LiveLevel& level : levels_) {
    if (level.bytes > 0) {
      bytes += level.bytes;
      entries += level.entries;
    }
  }
  const double bytes_per_entry = entries > 0 ? bytes / entries : 0;
  std::vector<CacheRunToPlan> runs;
  std::vector<size_t> level_of;
  for (size_t i = 0; i < n_ && i < levels_.size(); ++i) {
    LevelShape run = live_.shape[i];
    double files = levels_[i].files, run_bytes = levels_[i].bytes;
    if (i == 0 && !(run.entries > 0)) {
      run = live_.next_flush;
      files = 1;
      run_bytes = run.entries * bytes_per_entry;
    }
    if (!(run.entries > 0) || !(run.runs > 0)) continue;
    CacheRunToPlan r;
    r.run = CachedFiles(run.runs, files, run_bytes, cache);
    r.filter_entries = run.entries;
    r.files = std::max(1.0, files);
    r.model = &live_models_[i];
    r.filterable = live_.shape[i].filtered;
    runs.push_back(r);
    level_of.push_back(i);
  }
  Solution solution{std::nan(""), std::vector<int>(n_, 0)};
  for (size_t i = 0; i < n_; ++i) {
    if (live_.shape[i].filtered) {
      solution.millibits[i] =
          BudgetMillibits(options_.bits_per_key, live_models_[i]);
    }
  }
  // From the budget's plan too: never more reads than objective=fpr's.
  // Filter memory: the budget's, or a share of a cache that holds more
  // (MostFilterBitsFor). Planned to the cache's edge, a growing tree's
  // filters went over it: on the grid's 2M-key load with a cache of twice
  // bloomfilter:10's filter bytes, 6.8 MiB of filters in a 4.9 MiB cache,
  // and lookups read 0.33 blocks where bloomfilter:14's read 0.0074
  // (docs/design.md#objective-io).
  const Solution budget = ForBudget();
  std::vector<double> from;
  for (size_t r = 0; r < runs.size(); ++r) {
    from.push_back(runs[r].filterable ? budget.millibits[level_of[r]] / 1000.0
                                      : 0.0);
  }
  const CachePlan plan =
      PlanBitsForCache(runs, live_models_.back(), cache, 0.5, &from,
                       MostFilterBitsFor(cache, FilterBitsOf(runs, from)));
  std::vector<double> built(runs.size(), 0);
  for (size_t r = 0; r < runs.size(); ++r) {
    const size_t i = level_of[r];
    const int millibits =
        plan.bits[r] > 0 ? BuildableMillibits(plan.bits[r], live_models_[i])
                         : 0;
    solution.millibits[i] = millibits;
    built[r] = millibits / 1000.0;
  }
  live_.block_reads = ReadsWithBits(runs, built, live_models_.back(), cache);
  return solution;
}

LivePlan LivePlanner::Plan() {
  const Solution plan = PlansForCache(options_) ? ForCache()
                        : options_.objective == Objective::kMemory
                            ? ForTarget()
                            : ForBudget();
  live_.new_file_budget = Spend(plan.millibits);
  live_.plan.lambda = std::exp(plan.log_lambda);
  live_.plan.levels.resize(n_);
  for (size_t i = 0; i < n_; ++i) {
    live_.plan.levels[i].millibits_per_key = plan.millibits[i];
  }
  EvaluatePlan(live_.shape, live_models_, &live_.plan);
  return std::move(live_);
}

}  // namespace

bool PlanLiveTree(const std::vector<LiveLevel>& levels,
                  const LivePlanOptions& options, LivePlan* out) {
  LivePlanner planner(levels, options);
  if (!planner.Plannable()) return false;
  *out = planner.Plan();
  return true;
}

bool PlansForCache(const LivePlanOptions& options) {
  return options.objective == Objective::kIo && options.cache.cache_bytes > 0;
}

int PlannedMillibits(const std::vector<LevelShape>& shape, const Plan& plan,
                     int level, const LivePlanOptions& options,
                     const LevelShape& next_flush) {
  const FprModel& model = ModelForLevel(options.filter, level);
  const int average = BudgetMillibits(options.bits_per_key, model);
  if (level < 0 || static_cast<size_t>(level) >= shape.size()) return average;
  if (shape[level].entries > 0 ||
      (PlansForCache(options) &&
       level < static_cast<int>(plan.levels.size()))) {
    return plan.levels[level].millibits_per_key;
  }
  const bool priced = plan.lambda >= 0 && std::isfinite(plan.lambda);
  if (level == 0) {
    return priced && shape[0].filtered && next_flush.entries > 0 &&
                   next_flush.runs > 0
               ? PlanRun(next_flush.entries, next_flush.runs, plan.lambda,
                         model)
               : average;
  }
  size_t below = level + 1;
  while (below < shape.size() && !(shape[below].entries > 0)) ++below;
  if (below == shape.size() || !priced) return average;
  const double multiplier =
      options.sizing.known() ? options.sizing.multiplier : 10;
  return PlanRun(shape[below].entries / multiplier, 1, plan.lambda, model);
}

int LiveMillibitsForLevel(const LivePlan& plan, int level,
                          const LivePlanOptions& options) {
  return PlannedMillibits(plan.shape, plan.plan, level, options,
                          plan.next_flush);
}

}  // namespace monkey
