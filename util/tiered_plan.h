// Monkey for tiered trees (universal compaction): the bits each sorted run
// a flush or compaction is writing gets. Pure: no RocksDB in here.
//
// A tiered tree is a list of sorted runs: under universal compaction each
// L0 file is one, and each non-empty level below another. An absent-key
// lookup probes run i with probability reach_i (1 where the run spans the
// key space) and pays Sum_i reach_i x FPR_i false positives; the filters
// hold Sum_i entries_i x b_i bits. At the optimum a bit saves as many false
// positives in one run as in any other: at one price lambda each run gets
// PlanRun(entries_i, reach_i, lambda) (monkey_bpk.h), so its FPR grows with
// its keys per reach (docs/math.md#tiered-trees).
//
// A run's filter is built once, by the job that writes the run, and kept
// until a compaction merges the run away. So the plan is made for the tree
// as it will be once the job is done -- the runs that stay, whose bits are
// spent, and the runs the job writes -- at the price at which every run of
// that tree, built at its bits at that price, spends the budget: what the
// tree would hold were it all rewritten now. A new run then neither hoards
// the budget nor makes up for what older runs hold, which would spread
// bits unevenly (the FPR is convex in the bits). Only where the tree with
// the new runs at that price strays past the band (price_search.h) does
// the price move, by at most kTieredMaxCorrection (tiered_plan.cc says why
// it is wider than the leveled plan's), to bring it back to the edge.
#pragma once

#include <vector>

#include "monkey/plan_choices.h"

namespace monkey {

struct SortedRun {
  int level = 0;       // RocksDB's level the run lives at (0: an L0 file)
  double entries = 0;  // keys in the run
  double reach = 1;    // its probes per absent-key lookup
  // Being written by the job planned for: planned. Otherwise built, with
  // `filter_bits` in its filters (0: none).
  bool building = false;
  double filter_bits = 0;
};

struct TieredPlanOptions {
  double bits_per_key = 10;  // the average budget, in real bits per key
  FilterChoice filter = FilterChoice::kBloom;  // "auto": Bloom at L0 only
  // false: the oldest run (RocksDB's bottommost) carries no filter, and its
  // keys stay out of the budget, as optimize_filters_for_hits has it.
  bool last_level_filter = true;
  // kSumFpr: the least false positives for the budget. kMemory: the least
  // bits whose false positives, every run built at the plan, are at most
  // max_sum_fpr (0: what uniform bits_per_key gives the same runs). kIo
  // plans as kSumFpr.
  Objective objective = Objective::kSumFpr;
  double max_sum_fpr = 0;
};

struct TieredPlan {
  // Per run, as given: the millibits it is built with (a run being
  // written), or would get at the plan's price (a run built already).
  std::vector<int> millibits;
  double lambda = 0;  // the price: false positives saved per bit and key
  // Expected false positives per absent-key lookup once the job is done:
  // built runs at their own bits, runs being written at the plan's.
  double false_positives = 0;
  // The tree's filter bits per filtered key then.
  double bits_per_key = 0;
};

// The plan for `runs`, newest first (the last is the oldest: the
// bottommost). False, and *out untouched, where no run holds filtered keys
// or the runs are not finite and >= 0.
bool PlanTieredTree(const std::vector<SortedRun>& runs,
                    const TieredPlanOptions& options, TieredPlan* out);

}  // namespace monkey
