// Monkey's dual planner (objective=memory): the least filter memory whose
// expected false positives per absent-key lookup, sum_i w_i p_i, stay within
// a target. What an operator wants when lookups are fast enough today and
// memory is the cost: "the Sum FPR I have now, with the least filter bits".
// Pure math: no RocksDB in here.
//
// The problem. With n_i entries in w_i equal runs at level i,
//   minimise sum_i n_i b_i   subject to   sum_i w_i p(b_i) <= F,
// b_i in {0} u [min_bits, max_bits] on RocksDB's 1/1000-bit grid. KKT gives
// the budget problem's condition, w_i |p'(b_i)| = lambda n_i at every
// filtered level; only lambda is now chosen so that the Sum FPR meets F
// rather than so that the bits meet a budget. Both trace the same curve of
// (bits, Sum FPR) optima, so the least bits for F are exactly the budget at
// which PlanBitsPerKey reaches F (docs/math.md derives it).
//
// How it is solved: as PlanBitsPerKey, on the same hull (fpr_hull.h). For
// each k, the k smallest runs get filters; bisection on log(lambda) finds
// where the Sum FPR crosses F; the levels at the margin then take millibits,
// one at a time and judged by the exact model, until the Sum FPR is <= F.
// The k with the fewest bits wins, so levels better off without a filter
// get none.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {

// Returns "" if PlanLeastBits accepts these inputs, else what is wrong: the
// shape fails ValidatePlanInputs, or max_sum_fpr is not a finite number
// above 0.
std::string ValidateTargetInputs(const std::vector<LevelShape>& shape,
                                 double max_sum_fpr);

// The least Sum FPR that RocksDB's filters reach on `shape`: every filtered
// level with runs at its best filter (models.size() == shape.size()).
double LeastSumFpr(const std::vector<LevelShape>& shape,
                   const std::vector<FprModel>& models);

// The plan with the least total filter bits (sum_i n_i b_i over filtered
// levels) whose sum_fpr is at most max_sum_fpr (to 1e-12 relative rounding).
// Returns "" and sets *plan, or returns what is wrong, *plan untouched:
// inputs ValidateTargetInputs rejects, or a target below LeastSumFpr.
// models.size() == shape.size(); bits are real bits per key.
std::string PlanLeastBits(const std::vector<LevelShape>& shape,
                          double max_sum_fpr,
                          const std::vector<FprModel>& models, Plan* plan);

// The same, with one filter model for every level.
std::string PlanLeastBits(const std::vector<LevelShape>& shape,
                          double max_sum_fpr, const FprModel& model,
                          Plan* plan);

// objective=memory's default target: the Sum FPR that uniform bits_per_key
// (as RocksDB rounds it) gives on `shape` with the same filters,
// PlanUniform(shape, bits_per_key, models).sum_fpr.
double UniformSumFpr(const std::vector<LevelShape>& shape, double bits_per_key,
                     const std::vector<FprModel>& models);

}  // namespace monkey
