// The live plan: the bits per key each level's new files get, given the live
// shape of a column family (live_shape.h) and the filters already built in
// it. Pure: no RocksDB in here; the policy (table/) calls it whenever the
// listener publishes a shape.
#pragma once

#include <vector>

#include "monkey/util/cache_plan.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/level_sizing.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {

struct LivePlanOptions {
  double bits_per_key = 10;  // the average budget, in real bits per key
  bool last_level_filter = true;
  FilterChoice filter = FilterChoice::kBloom;
  Objective objective = Objective::kSumFpr;
  // Objective::kMemory's target; 0: the Sigma FPR that uniform bits_per_key
  // gives the same live tree with the same filters.
  double max_sum_fpr = 0;
  // How RocksDB sizes this column family's levels. Known, the last level's
  // new files are planned between its keys now and its keys once a backlog
  // has drained into it: after a fast load a level far past its target
  // drains there, and the last level's files stay. Unknown, every level is
  // planned as it is.
  LevelSizing sizing;
  // Objective::kIo: the block cache the plan is for. Without a capacity,
  // the plan is the budget's, as for Objective::kSumFpr (PlansForCache).
  CacheLayout cache;
};

// Whether the plan is for the cheapest block reads through `options.cache`:
// Objective::kIo and a capacity known.
bool PlansForCache(const LivePlanOptions& options);

struct LivePlan {
  std::vector<LevelShape> shape;  // the live shape planned for
  // Per level of `shape`: the millibits new files get, and what they would
  // cost and buy were the whole level built that way.
  Plan plan;
  // The budget the settled levels were planned at: bits_per_key, or what
  // the controller chose to bring the realized average back to it.
  double new_file_budget = 0;
  // The run the next flush would add to L0 (LiveLevel::next_flush_entries).
  LevelShape next_flush{0, 0, true};
  // Objective::kIo: the modelled block reads per lookup at the plan's bits,
  // every level built at them (util/cache_cost.h).
  BlockReads block_reads;
};

// The tree L0's keys are on their way to: L0 folded into the first
// non-empty level below it (the base level under dynamic sizing; L1 in a
// tree of L0 alone). Returns false, and leaves `shape` alone, where that
// level carries no filter (last_level_filter=false), so L0 stays in the
// budget.
bool SettleL0(std::vector<LevelShape>* shape);

// The millibits a file built at `level` gets under a plan made for `shape`
// (indexed by level): its level's, where the shape holds keys (under
// Objective::kIo, every level of the shape: the plan priced them all). A level
// above the last that holds none is being written by a job no listener heard of
// (DB::CompactFiles): it is priced as the level right above the next one
// down, 1/multiplier its keys (sizing's, else 10), at the plan's price. The
// average budget there put a small level -- later moved down whole, filter
// and all -- under the last level's bits (db_stress, RocksDB 9.10.0). L0,
// levels below the last and unknown levels (-1) get the average budget. An
// L0 without keys gets what `next_flush`'s run is worth at the plan's
// price: a flush that begins after a compaction took every L0 file is
// built before the plan that projects it is published, and the average
// budget there gave it several bits less than its run is worth (2.9 at
// monkey:10 in a 4-level tree). Without it, the average budget.
int PlannedMillibits(const std::vector<LevelShape>& shape, const Plan& plan,
                     int level, const LivePlanOptions& options,
                     const LevelShape& next_flush = LevelShape{0, 0, true});

// PlannedMillibits for a live plan.
int LiveMillibitsForLevel(const LivePlan& plan, int level,
                          const LivePlanOptions& options);

// The plan for new files of a live tree; false when the tree has no keys a
// filter could be planned for (then the static plan applies). With
// PlansForCache (objective io, a capacity), each level's bits (or none)
// that give the cheapest block reads per lookup through that cache, every level
// built at them (PlanBitsForCache): L0 as a group of its files (the next
// flush's run while it is empty), each level below at its reach. With
// Objective::kMemory the price is the one at which the live tree's Sigma FPR
// meets the target, and the band holds the tree's Sigma FPR -- its sunk filters
// at their bits, the files being built at the plan's -- as it holds a budget.
bool PlanLiveTree(const std::vector<LiveLevel>& levels,
                  const LivePlanOptions& options, LivePlan* out);

}  // namespace monkey
