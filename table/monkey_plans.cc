// MonkeyFilterPolicy's plans: the static plan for each depth, the live plan
// each column family's listener publishes, and PlanToString. Plans are
// immutable once made; a new one replaces the old under the policy's mutex,
// so a builder reads whichever was published last
// (include/monkey/monkey_filter_policy.h).
#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/table/level_plans.h"
#include "monkey/table/monkey_options.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"
#include "monkey/util/plan_format.h"
#include "monkey/util/tiered_job.h"

namespace monkey {
namespace {

// PlanToString says the live plan spends other than the budget on new files
// when it does by more than this: the plan's price moves in steps, so it
// never spends the budget to the bit.
constexpr double kShownBudgetChange = 0.005;

}  // namespace

// The average budget, for files whose level is unknown or outside the plan.
int AverageMillibits(const MonkeyOptions& options, int level) {
  return BudgetMillibits(options.bits_per_key,
                         ModelForLevel(options.filter, level));
}

LivePlanOptions LivePlanOptionsOf(const MonkeyOptions& options,
                                  const LevelSizing& sizing,
                                  const CacheLayout& cache) {
  LivePlanOptions live;
  live.bits_per_key = options.bits_per_key;
  live.last_level_filter = options.last_level_filter;
  live.filter = options.filter;
  live.objective = options.objective;
  live.max_sum_fpr = options.max_sum_fpr;
  live.sizing = sizing;
  live.cache = cache;
  if (options.cache_bytes > 0) live.cache.cache_bytes = options.cache_bytes;
  live.cache.read_latency_bytes = options.read_latency_bytes;
  return live;
}

TieredPlanOptions TieredPlanOptionsOf(const MonkeyOptions& options) {
  TieredPlanOptions tiered;
  tiered.bits_per_key = options.bits_per_key;
  tiered.filter = options.filter;
  tiered.last_level_filter = options.last_level_filter;
  tiered.objective = options.objective;
  tiered.max_sum_fpr = options.max_sum_fpr;
  return tiered;
}

std::shared_ptr<const MonkeyFilterPolicy::LevelPlans>
MonkeyFilterPolicy::StaticPlan(int num_levels) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = static_plans_.find(num_levels);
    if (it != static_plans_.end()) return it->second;
  }
  auto plans = std::make_shared<LevelPlans>();
  plans->bits_per_key = options_.bits_per_key;
  const std::string error =
      StaticShape(options_.size_ratio, num_levels, options_.last_level_filter,
                  &plans->shape);
  assert(error.empty());
  (void)error;
  const std::vector<FprModel> models =
      ModelsForLevels(options_.filter, plans->shape.size());
  if (options_.objective == MonkeyOptions::Objective::kMemory) {
    const double target =
        options_.max_sum_fpr > 0
            ? options_.max_sum_fpr
            : UniformSumFpr(plans->shape, options_.bits_per_key, models);
    // At a depth where the target is out of reach, the best filters.
    if (!PlanLeastBits(plans->shape, target, models, &plans->plan).empty()) {
      PlanLeastBits(plans->shape, LeastSumFpr(plans->shape, models) * 1.000001,
                    models, &plans->plan);
    }
    plans->bits_per_key = plans->plan.bits_per_key();
  } else {
    plans->plan = PlanBitsPerKey(plans->shape, options_.bits_per_key, models);
  }
  std::lock_guard<std::mutex> lock(mu_);
  return static_plans_.emplace(num_levels, std::move(plans)).first->second;
}

std::shared_ptr<const MonkeyFilterPolicy::LevelPlans>
MonkeyFilterPolicy::LivePlansOf(const std::string& column_family) const {
  if (options_.shape != MonkeyOptions::Shape::kLive) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_plans_.find(column_family);
  return it == live_plans_.end() ? nullptr : it->second;
}

void MonkeyFilterPolicy::UpdateLiveShape(
    const std::string& column_family,
    const std::vector<LiveLevel>& levels) const {
  UpdateLiveShape(column_family, levels, LevelSizing());
}

void MonkeyFilterPolicy::UpdateLiveShape(const std::string& column_family,
                                         const std::vector<LiveLevel>& levels,
                                         const LevelSizing& sizing) const {
  UpdateLiveShape(column_family, levels, sizing, CacheLayout());
}

void MonkeyFilterPolicy::UpdateLiveShape(const std::string& column_family,
                                         const std::vector<LiveLevel>& levels,
                                         const LevelSizing& sizing,
                                         const CacheLayout& cache) const {
  if (options_.shape != MonkeyOptions::Shape::kLive) return;
  ++live_updates_;
  LivePlan live;
  const LivePlanOptions options = LivePlanOptionsOf(options_, sizing, cache);
  const bool usable = PlanLiveTree(levels, options, &live);
  auto plans = std::make_shared<LevelPlans>();
  plans->live = true;
  plans->reported = levels;
  plans->sizing = sizing;
  plans->bits_per_key = live.new_file_budget;
  plans->shape = std::move(live.shape);
  plans->plan = std::move(live.plan);
  plans->next_flush = live.next_flush;
  plans->cache = options.cache;
  plans->block_reads = live.block_reads;
  std::lock_guard<std::mutex> lock(mu_);
  fed_.insert(column_family);
  if (usable) {
    live_plans_[column_family] = std::move(plans);
  } else {
    live_plans_.erase(column_family);
  }
}

std::vector<LiveLevel> MonkeyFilterPolicy::LiveShapeOf(
    const std::string& column_family) const {
  std::shared_ptr<const LevelPlans> plans = LivePlansOf(column_family);
  return plans == nullptr ? std::vector<LiveLevel>() : plans->reported;
}

LevelSizing MonkeyFilterPolicy::LiveSizingOf(
    const std::string& column_family) const {
  std::shared_ptr<const LevelPlans> plans = LivePlansOf(column_family);
  return plans == nullptr ? LevelSizing() : plans->sizing;
}

std::string MonkeyFilterPolicy::PlanToString(
    int num_levels, const std::string& column_family) const {
  if (num_levels < 1) num_levels = kDefaultNumLevels;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto tiered = tiered_.find(column_family);
    if (tiered != tiered_.end()) {
      // What GetBuilderWithContext builds there, not a leveled plan.
      const bool universal =
          tiered->second == ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
      auto plan = tiered_plans_.find(column_family);
      char line[320];
      if (universal && plan != tiered_plans_.end()) {
        snprintf(line, sizeof(line),
                 "monkey plan (universal compaction, the sorted runs of "
                 "column family '%s' as its last planned job leaves them): "
                 "%g bits/key, filter %s, %zu runs; %llu files so far at "
                 "the average budget, their run unknown\n",
                 column_family.c_str(), options_.bits_per_key,
                 FilterNameOf(options_.filter).c_str(),
                 plan->second->runs.runs.size(),
                 static_cast<unsigned long long>(tiered_fallbacks_.load()));
        return line + FormatTieredJobPlan(*plan->second);
      }
      snprintf(line, sizeof(line),
               "monkey plan (%s compaction, as column family '%s' last "
               "built a file): every file gets the average budget, %.3f "
               "bits/key%s%s\n",
               universal ? "universal" : "FIFO", column_family.c_str(),
               AverageMillibits(options_, -1) / 1000.0,
               universal && !options_.last_level_filter
                   ? ", and the bottommost sorted run no filter "
                     "(last_level_filter=false)"
                   : "",
               universal ? ", until a shape listener plans a job's sorted run"
                         : "; FIFO's runs are alike and every lookup probes "
                           "them all, which is where uniform bits are "
                           "Monkey's optimum");
      return line;
    }
  }
  std::shared_ptr<const LevelPlans> plans = LivePlansOf(column_family);
  const bool never_fed = NeverFed(column_family);
  if (plans == nullptr) {
    const int learned = UnfedTreeOf(column_family).levels;
    plans = StaticPlan(learned > 0 ? learned : num_levels);
  }
  char budget[96];
  std::string header = "monkey plan (" +
                       std::string(plans->live ? "live" : "static") +
                       " shape): ";
  const bool io = options_.objective == MonkeyOptions::Objective::kIo;
  if (io &&
      PlansForCache(LivePlanOptionsOf(options_, plans->sizing, plans->cache))) {
    // The fewest block reads through the cache: say which cache, and the
    // reads the model expects.
    char io[224];
    snprintf(io, sizeof(io),
             "objective io, %.0f-byte block cache, %s; modelled block reads "
             "per lookup %.4g (filter %.4g, index %.4g, data %.4g); new "
             "files %.3f bits/key",
             plans->cache.cache_bytes,
             plans->cache.partition_bytes > 0 ? "partitioned filters"
                                              : "full filters",
             plans->block_reads.total(), plans->block_reads.filter,
             plans->block_reads.index, plans->block_reads.data,
             plans->bits_per_key);
    header += io;
  } else if (io) {
    // No cache to plan for yet (a static plan, or no capacity): the budget.
    snprintf(budget, sizeof(budget),
             "objective io with no block cache known: %g bits/key",
             options_.bits_per_key);
    header += budget;
  } else if (options_.objective == MonkeyOptions::Objective::kMemory) {
    // The least memory for a Sigma FPR target: say what it costs.
    if (options_.max_sum_fpr > 0) {
      snprintf(budget, sizeof(budget), "objective memory, Sigma FPR <= %g",
               options_.max_sum_fpr);
    } else {
      snprintf(budget, sizeof(budget),
               "objective memory, Sigma FPR <= uniform %g bits/key's",
               options_.bits_per_key);
    }
    header += budget;
    snprintf(budget, sizeof(budget), " (new files %.3f bits/key)",
             plans->bits_per_key);
    header += budget;
  } else {
    snprintf(budget, sizeof(budget), "%g bits/key", options_.bits_per_key);
    header += budget;
    // The live plan moves its price when the filters already built stray
    // from the budget (util/live_plan.h); say so when it does.
    if (std::fabs(plans->bits_per_key / options_.bits_per_key - 1) >
        kShownBudgetChange) {
      snprintf(budget, sizeof(budget), " (new files %.3f, to hold it)",
               plans->bits_per_key);
      header += budget;
    }
  }
  header += ", filter " + FilterNameOf(options_.filter) + ", " +
            std::to_string(plans->shape.size()) + " levels";
  if (!plans->live) {
    snprintf(budget, sizeof(budget), ", size_ratio %g", options_.size_ratio);
    header += budget;
  }
  header += "\n";
  if (never_fed) {
    header += "  (no shape listener has fed column family '" + column_family +
              "': the static shape is planned for, as deep as its "
              "compactions show; see monkey::Install and "
              "monkey::InstallForColumnFamilies)\n";
  }
  return header + FormatPlanTable(plans->shape, plans->plan);
}

}  // namespace monkey
