// What an L0 backlog leaves to choose: the least Sigma FPR a tree reaches
// with the filters below L0 as they were built and L0's files at the bits
// that keep the whole tree within a budget. Files keep the bits they were
// built with, so at a moment when L0's premium takes the tree over its
// budget, L0's bits are what a plan could still move. grow_tree --matrix
// uses it to tell a mid-load step that no choice of L0's bits could have
// held both the budget and Sigma FPR near the optimum
// (docs/decisions/003-no-cap-on-l0-premium-mid-load.md).
#pragma once

#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {

// `shape` and `level_bits` are indexed by level, L0 first; level_bits[i]
// is the average bits per key of level i's filters as built (0: no
// filter), taken at RocksDB's millibit. L0's files get the most millibits
// per key that keep the filtered levels' average within
// `max_bits_per_key` (none if the levels below spend it already). With
// several L0 files of the same size and reach, the same bits for each is
// the least Sigma FPR L0 can have for its bits (the FPR is convex in the
// bits). The plan is evaluated as EvaluatePlan does: its sum_fpr counts
// the filtered levels, as the optimum's does. models.size() ==
// shape.size().
Plan HoldBudgetWithL0(const std::vector<LevelShape>& shape,
                      const std::vector<double>& level_bits,
                      double max_bits_per_key,
                      const std::vector<FprModel>& models);

}  // namespace monkey
