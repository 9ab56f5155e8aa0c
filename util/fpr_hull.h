// The lower convex hull of a filter's FPR model on RocksDB's millibit grid,
// and the Lagrange price arithmetic on it that both Monkey planners share:
// the least Sum FPR for a budget (monkey_bpk.h) and the least bits for a
// Sum FPR target (monkey_memory.h).
//
// Why a hull. RocksDB builds filters in [min_bits, max_bits] or none, in
// steps of 1/1000 bit, and FastLocalBloom's FPR has small upward steps where
// RocksDB changes the number of probes. On the hull, each extra millibit buys
// less than the one before, so "each level at the first vertex whose next
// step gains less than lambda per millibit-entry" is the exact optimum of
// the convexified problem at price lambda. Pure math: no RocksDB in here.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {

// Lower convex hull of (millibits, FPR) over [min_bits, max_bits], on a
// 0.01-bit grid plus both ends. slope[v] joins vertex v to v + 1 and rises
// with v: each step up buys less. Vertices are points of the model itself.
struct FprHull {
  std::vector<int> millibits;
  std::vector<double> fpr;
  std::vector<double> slope;  // FPR per millibit, negative, increasing
};

// The hull of `model`, built once per model and kept (FastLocalBloom's costs
// ~40 ms to build). Thread-safe.
std::shared_ptr<const FprHull> HullFor(const FprModel& model);

// The hull vertex a level of `entries` keys in `runs` runs takes at price
// lambda = exp(log_lambda): the first whose next step gains less than lambda
// per millibit-entry, runs |slope| < lambda entries. In logs, so that run
// sizes 1e300 apart still work. Higher prices give lower vertices.
size_t HullVertexAt(const FprHull& hull, double entries, double runs,
                    double log_lambda);

// The hulls of `models`, one per level, kept alive by `owned`.
std::vector<const FprHull*> HullsFor(
    const std::vector<FprModel>& models,
    std::vector<std::shared_ptr<const FprHull>>* owned);

// The levels a planner chooses bits for, and the bits of the rest: a level
// with runs and no keys costs nothing and gets its best filter; a level
// nobody probes, or one that may not carry a filter, gets none. The
// candidates come smallest run first: swapping two runs' bits shows that a
// smaller run never gets fewer bits at the optimum, so the levels with a
// filter are the first k of them for some k, each k a convex problem.
struct PlanCandidates {
  std::vector<int> fixed;  // millibits of the levels that are not candidates
  std::vector<size_t> by_run_size;
};
PlanCandidates CandidatesOf(const std::vector<LevelShape>& shape,
                            const std::vector<const FprHull*>& hulls);

// A bracket [*lo, *hi] of log(lambda) for the levels in `on`: at *hi every
// one sits at its first vertex (min_bits), at *lo every one at its last
// (its best filter). Both are -inf, +inf reversed when no level in `on`
// has a hull with more than one vertex (then *lo >= *hi).
void LogLambdaBracket(const std::vector<const FprHull*>& hulls,
                      const std::vector<LevelShape>& shape,
                      const std::vector<size_t>& on, double* lo, double* hi);

}  // namespace monkey
