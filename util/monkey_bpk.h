// Monkey's bits-per-key planner (Dayan, Athanassoulis, Idreos, SIGMOD 2017):
// given the runs of an LSM-tree and an average filter budget in bits per key,
// choose each level's bits per key so that the expected number of false
// positives of a lookup for an absent key, sum_i w_i p_i, is as small as the
// memory allows. Pure math: no RocksDB in here; table/ holds the glue.
//
// The optimum. With n_i entries in w_i equal runs at level i, minimise
//   sum_i w_i p(b_i)   subject to   sum_i n_i b_i <= budget * sum_i n_i,
// where p is the FPR model of the filter actually built (filter_fpr_model.h).
// Lagrange: w_i |p'(b_i)| = lambda n_i at every filtered level. For the ideal
// Bloom p = exp(-b ln^2 2) that is p_i = lambda' n_i / w_i: a level's FPR is
// proportional to the size of its runs. The largest levels reach p = 1 first
// and then get no filter; their memory goes to the others. In a geometric
// tree with ratio T and many levels this gives, at depth d from the bottom,
//   b_d = budget - ln T / ((T - 1) ln^2 2) + d ln T / ln^2 2.
//
// How it is solved. RocksDB builds filters in [min_bits, max_bits] or none,
// in steps of 1/1000 bit, and FastLocalBloom's p has small upward steps where
// RocksDB changes the number of probes. So the planner takes the lower convex
// hull of p over {0} and that range on a 0.01-bit grid, finds by bisection the
// multiplier lambda at which each level's best hull point just fits the
// budget, and fills what is left, 0.001 bit at a time, on the levels at the
// margin. That is the exact optimum of the convexified problem on the grid,
// for any number of levels and any sizes. The hull and its price arithmetic
// are in fpr_hull.h; the dual problem (least bits for a Sum FPR target) is
// in monkey_memory.h.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"

namespace monkey {

struct FprHull;  // fpr_hull.h

// What one level of the tree holds.
struct LevelShape {
  double entries = 0;    // keys in the level (all its runs together)
  double runs = 1;       // runs a lookup probes here: L0 files, or 1
  bool filtered = true;  // false: the level may not carry a filter, and
                         // its keys do not count in the budget
};

struct LevelPlan {
  int millibits_per_key = 0;  // RocksDB's resolution; 0 means no filter
  double bits_per_key = 0;    // millibits_per_key / 1000
  double fpr = 1;             // predicted FPR of one of its runs' filters
};

struct Plan {
  std::vector<LevelPlan> levels;  // indexed like the shape
  double sum_fpr = 0;     // sum_i w_i p_i over levels that may be filtered
  double total_bits = 0;  // sum_i n_i b_i
  double filtered_entries = 0;
  // The price of a bit at the optimum: expected false positives saved per
  // extra millibit-entry at the margin (the Lagrange multiplier). 0 when
  // every level already has the best filter there is.
  double lambda = 0;
  double bits_per_key() const {
    return filtered_entries > 0 ? total_bits / filtered_entries : 0;
  }
};

// Returns "" if the planner accepts these inputs, else what is wrong with
// them: NaN or negative sizes, runs or budget; more than 1e18 entries or 1e6
// runs in a level; a budget above what RocksDB can build (100 bits/key).
std::string ValidatePlanInputs(const std::vector<LevelShape>& shape,
                               double bits_per_key);

// The optimal plan. Inputs must pass ValidatePlanInputs.
Plan PlanBitsPerKey(const std::vector<LevelShape>& shape, double bits_per_key,
                    const FprModel& model);

// The same, with each level's own filter (e.g. Bloom for L0, Ribbon below);
// models.size() == shape.size(). Budget and plan are in real bits per key.
Plan PlanBitsPerKey(const std::vector<LevelShape>& shape, double bits_per_key,
                    const std::vector<FprModel>& models);

// Fills in each level's bits_per_key and predicted FPR, and the plan's
// totals, from its millibits_per_key, for `shape`.
void EvaluatePlan(const std::vector<LevelShape>& shape,
                  const std::vector<FprModel>& models, Plan* plan);

// What RocksDB builds for `bits_per_key`, in millibits: its rounding (below
// 0.5 bit no filter, 0.5..1 one bit), within the model's range.
int BuildableMillibits(double bits_per_key, const FprModel& model);

// The most millibits RocksDB builds without spending more than
// `bits_per_key`: what a file the plan cannot place gets (a flush before any
// shape, an unknown level). Below the model's least filter, none: RocksDB
// builds a 0.9-bit setting as 1 bit, 11% over a budget of 0.9.
int BudgetMillibits(double bits_per_key, const FprModel& model);

// The same budget given to every filtered level, for comparison.
Plan PlanUniform(const std::vector<LevelShape>& shape, double bits_per_key,
                 const FprModel& model);

// The same, with each level's own filter (models.size() == shape.size()):
// bits_per_key as RocksDB rounds it, clamped to what each level's filter can
// build. Its sum_fpr is objective=memory's default target (monkey_memory.h).
Plan PlanUniform(const std::vector<LevelShape>& shape, double bits_per_key,
                 const std::vector<FprModel>& models);

// The shape assumed when the live one is unknown: num_levels levels, each
// size_ratio times the one above, the last one full, and L0 one more step up
// (a single run of L1 / size_ratio). With last_level_filter false, the last
// level is not filtered. Returns "" or what is wrong with the arguments.
std::string StaticShape(double size_ratio, int num_levels,
                        bool last_level_filter, std::vector<LevelShape>* shape);

// Millibits per key for `runs` runs holding `entries` keys in all that are
// not in the plan, at the plan's price: what the optimum would give them had
// they been in it. 0 when no filter is worth its memory at that price.
int PlanRun(double entries, double runs, double lambda, const FprModel& model);
// The same with the model's hull (HullFor) already in hand: a planner that
// prices its levels at many lambdas looks each hull up once, not once per
// price (HullFor takes a lock and builds the model's name as a key).
int PlanRun(double entries, double runs, double lambda, const FprHull& hull);

// The shape of a live tree from its levels' entries and runs (L0: one run
// per file). The deepest non-empty level is the last level: with
// last_level_filter false it is not filtered. Levels below it are dropped.
std::vector<LevelShape> LiveShape(std::vector<LevelShape> levels,
                                  bool last_level_filter);

}  // namespace monkey
