// The plan a MonkeyFilterPolicy builds files to, and what the policy's
// parts (table/monkey_plans.cc makes and caches plans, and
// table/monkey_filter_policy.cc gives builders their bits) share about it.
#pragma once

#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/util/cache_cost.h"
#include "monkey/util/cache_plan.h"
#include "monkey/util/level_sizing.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/tiered_plan.h"

namespace monkey {

// The shape assumed when FilterBuildingContext has no num_levels: RocksDB's
// default (ColumnFamilyOptions::num_levels).
constexpr int kDefaultNumLevels = 7;

// A plan and the shape it was made for; immutable once published.
struct MonkeyFilterPolicy::LevelPlans {
  bool live = false;
  std::vector<LiveLevel> reported;  // live: the shape as the listener gave it
  LevelSizing sizing;               // live: how the listener said it is sized
  double bits_per_key = 0;          // the budget this plan spends
  std::vector<LevelShape> shape;
  Plan plan;
  LevelShape next_flush{0, 0, true};  // live: the next flush's run
  CacheLayout cache;                  // live: the cache objective=io saw
  BlockReads block_reads;             // live, objective=io: modelled reads
};

// The average budget, for files whose level is unknown or outside the plan.
int AverageMillibits(const MonkeyOptions& options, int level);

// The live planner's options from the policy's, the level sizing and the
// block cache.
LivePlanOptions LivePlanOptionsOf(const MonkeyOptions& options,
                                  const LevelSizing& sizing,
                                  const CacheLayout& cache = CacheLayout());

// The tiered planner's options from the policy's (objective=io plans a
// tiered tree as objective=fpr: the cache model is per level).
TieredPlanOptions TieredPlanOptionsOf(const MonkeyOptions& options);

}  // namespace monkey
