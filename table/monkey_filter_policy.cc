// MonkeyFilterPolicy: the thin glue between RocksDB's table builder and the
// planner (util/). Here, a builder gets its level's bits from the plan
// published last (table/monkey_plans.cc), and a policy that no listener
// feeds learns its tree's depth from what it builds. Options:
// table/monkey_options.h; registration: table/monkey_registry.cc. See
// include/monkey/monkey_filter_policy.h.
#include "monkey/monkey_filter_policy.h"

#include <algorithm>
#include <cassert>

#include "monkey/table/level_plans.h"
#include "monkey/table/monkey_options.h"
#include "monkey/table/shape_listener.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/live_plan.h"
#include "rocksdb/env.h"

namespace monkey {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::TableFileCreationReason;

}  // namespace

MonkeyFilterPolicy::MonkeyFilterPolicy()
    : reader_(ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10)) {
  RegisterOptions(&options_, MonkeyOptionsTypeInfo());
  const Status s = Replan();  // the defaults are valid
  assert(s.ok());
  (void)s;
}

MonkeyFilterPolicy::~MonkeyFilterPolicy() = default;

Status MonkeyFilterPolicy::Create(
    const MonkeyOptions& options,
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy) {
  auto monkey = std::make_shared<MonkeyFilterPolicy>();
  monkey->options_ = options;
  Status s = monkey->Replan();
  if (s.ok()) *policy = std::move(monkey);
  return s;
}

const char* MonkeyFilterPolicy::CompatibilityName() const {
  return reader_->CompatibilityName();
}

Status MonkeyFilterPolicy::ConfigureOptions(
    const ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  // All or nothing: a bad value leaves the policy as it was, and every
  // error is InvalidArgument (RocksDB says NotFound for an unknown option).
  const MonkeyOptions before = options_;
  Status s = FilterPolicy::ConfigureOptions(config_options, opts_map, unused);
  if (s.ok()) s = Replan();
  if (!s.ok()) {
    options_ = before;
    Replan().PermitUncheckedError();
    if (!s.IsInvalidArgument()) {
      s = Status::InvalidArgument("monkey: " + s.ToString());
    }
  }
  return s;
}

Status MonkeyFilterPolicy::Replan() {
  Status s = CheckMonkeyOptions(options_, kDefaultNumLevels);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    static_plans_.clear();
    live_plans_.clear();
  }
  // Plan RocksDB's default tree and create its built-in policies up front, so
  // the common case never plans while a flush waits.
  for (int level = -1; level < kDefaultNumLevels; ++level) {
    BuiltinFor(level, MillibitsForLevel(level, kDefaultNumLevels));
  }
  return Status::OK();
}

int MonkeyFilterPolicy::MillibitsForLevel(
    int level, int num_levels, const std::string& column_family) const {
  if (level < 0) return AverageMillibits(options_, level);
  std::shared_ptr<const LevelPlans> plans = LivePlansOf(column_family);
  // shape=live with no live plan yet: no listener, none has fed this
  // column family, or the planner has not planned a tree with keys yet
  // (NoteUnfedBuild). The static plan is then planned for a tree as deep as the
  // compactions so far show (UnfedTreeOf), not num_levels deep: a young
  // tree's deepest level, L2 with dynamic sizing off, got upper-level bits
  // and the tree 3.2-4.3x the budget. L0 is planned as the level above the
  // one it drains into (the base level under dynamic sizing), not above
  // L1. A flush before any compaction -- or before the listener's first
  // shape (the WAL DB::Open replays, which no listener hears of) -- gets
  // the budget: the static plan's L0 is a run far smaller than any real
  // memtable (48 bits/key at monkey:10), and the file keeps those bits all
  // the way down.
  int planned_as = level;
  if (plans == nullptr && options_.shape == MonkeyOptions::Shape::kLive) {
    const UnfedTree tree = UnfedTreeOf(column_family);
    if (level == 0 && (has_listener_ || tree.levels == 0)) {
      return AverageMillibits(options_, level);
    }
    if (tree.levels > level) {
      num_levels = tree.levels;
      if (level == 0) planned_as = std::max(0, tree.base - 1);
    }
  }
  if (plans == nullptr) {
    if (num_levels < 1) num_levels = kDefaultNumLevels;
    if (level >= num_levels) return AverageMillibits(options_, level);
    plans = StaticPlan(num_levels);
  }
  return PlannedMillibits(
      plans->shape, plans->plan, planned_as,
      LivePlanOptionsOf(options_, plans->sizing, plans->cache),
      plans->next_flush);
}

bool MonkeyFilterPolicy::BuildsRibbon(int level) const {
  return monkey::BuildsRibbon(options_.filter, level);
}

const FilterPolicy* MonkeyFilterPolicy::BuiltinFor(int level,
                                                   int millibits) const {
  if (millibits == 0) return nullptr;
  const bool ribbon = BuildsRibbon(level);
  // Ribbon plans are in real bits; RocksDB's Ribbon setting is the Bloom
  // bits per key of equal target FPR, so map real bits -> FPR -> setting.
  const int setting =
      ribbon ? RibbonSettingMillibitsForFpr(
                   FprModel::Ribbon().FalsePositiveRate(millibits / 1000.0))
             : millibits;
  std::lock_guard<std::mutex> lock(mu_);
  auto& policy = builtins_[{ribbon, setting}];
  if (!policy) {
    policy.reset(
        ribbon ? ROCKSDB_NAMESPACE::NewRibbonFilterPolicy(
                     setting / 1000.0, /*bloom_before_level=*/-1)
               : ROCKSDB_NAMESPACE::NewBloomFilterPolicy(setting / 1000.0));
  }
  return policy.get();
}

ROCKSDB_NAMESPACE::FilterBitsBuilder* MonkeyFilterPolicy::GetBuilderWithContext(
    const FilterBuildingContext& context) const {
  int level = context.level_at_creation;
  if (context.reason == TableFileCreationReason::kFlush) level = 0;
  // Universal compaction: the bits of the sorted run the file belongs to.
  // FIFO: the average budget, Monkey's plan for runs of one size that
  // every lookup probes (docs/design.md#tiered-trees).
  if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
    NoteTiered(context.column_family_name, context.compaction_style);
    if (context.compaction_style ==
        ROCKSDB_NAMESPACE::kCompactionStyleUniversal) {
      const int millibits = TieredMillibits(context, level);
      ROCKSDB_NAMESPACE::Log(
          ROCKSDB_NAMESPACE::InfoLogLevel::DEBUG_LEVEL, context.info_log,
          "[%s] monkey: SST of a sorted run at level %d "
          "gets %.3f bits/key",
          context.column_family_name.c_str(), level, millibits / 1000.0);
      const FilterPolicy* builtin = BuiltinFor(level, millibits);
      return builtin == nullptr ? nullptr
                                : builtin->GetBuilderWithContext(context);
    }
    level = -1;
  }
  if (level >= 0 && context.reason != TableFileCreationReason::kMisc &&
      context.reason != TableFileCreationReason::kRecovery) {
    NoteUnfedBuild(context, level);
  }
  const int millibits =
      MillibitsForLevel(level, context.num_levels, context.column_family_name);
  ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::DEBUG_LEVEL,
                         context.info_log,
                         "[%s] monkey: SST at level %d of %d gets %.3f "
                         "bits/key",
                         context.column_family_name.c_str(), level,
                         context.num_levels, millibits / 1000.0);
  const FilterPolicy* builtin = BuiltinFor(level, millibits);
  return builtin == nullptr ? nullptr : builtin->GetBuilderWithContext(context);
}

bool MonkeyFilterPolicy::NeverFed(const std::string& column_family) const {
  if (options_.shape != MonkeyOptions::Shape::kLive) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return fed_.count(column_family) == 0;
}

void MonkeyFilterPolicy::NoteUnfedBuild(const FilterBuildingContext& context,
                                        int level) const {
  if (options_.shape != MonkeyOptions::Shape::kLive) return;
  {
    // One lock for all of it: this runs for every SST built.
    std::lock_guard<std::mutex> lock(mu_);
    const std::string& cf = context.column_family_name;
    // Until the column family has a live plan, whether or not a listener
    // fed it yet: a listener's first shape may be an empty tree, and its
    // planner may run late on a busy machine (nice 19). Builds in between
    // were planned for a num_levels-deep tree: the first compaction into
    // L1 got 35.5 bits/key at monkey:10, and the last level a filter under
    // last_level_filter=false.
    if (live_plans_.count(cf) > 0) return;
    // A flush's context never says bottommost; a compaction's output with
    // nothing below its key range is the deepest level there, and one with
    // something below has a level under it.
    if (level > 0) {
      UnfedTree& tree = unfed_trees_[cf];
      tree.levels =
          std::max(tree.levels, context.is_bottommost ? level + 1 : level + 2);
      tree.base = tree.base == 0 ? level : std::min(tree.base, level);
    }
    if (fed_.count(cf) > 0 || !warned_.insert(cf).second) return;
  }
  ROCKSDB_NAMESPACE::Log(
      ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, context.info_log,
      "[%s] monkey: no shape listener feeds this policy the column family's "
      "live shape, so it plans from a geometric shape as deep as its "
      "compactions show, which overspends the budget on a young tree. Add "
      "the listener: monkey::Install, or monkey::InstallForColumnFamilies "
      "for DB::Open with column families (include/monkey/install.h)",
      context.column_family_name.c_str());
}

MonkeyFilterPolicy::UnfedTree MonkeyFilterPolicy::UnfedTreeOf(
    const std::string& column_family) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = unfed_trees_.find(column_family);
  return it == unfed_trees_.end() ? UnfedTree() : it->second;
}

ROCKSDB_NAMESPACE::FilterBitsReader* MonkeyFilterPolicy::GetFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) const {
  return reader_->GetFilterBitsReader(contents);
}

int MonkeyFilterPolicy::TieredMillibits(const FilterBuildingContext& context,
                                        int level) const {
  const std::string& cf = context.column_family_name;
  // last_level_filter=false: the bottommost run has no filter, as
  // optimize_filters_for_hits has it, whatever else is known.
  const bool unfiltered = !options_.last_level_filter && context.is_bottommost;
  const bool live = options_.shape == MonkeyOptions::Shape::kLive;
  std::shared_ptr<const TieredJobPlan> plan;
  if (live && (context.reason == TableFileCreationReason::kFlush ||
               context.reason == TableFileCreationReason::kCompaction)) {
    const BuildingFile& file = BuildingFileOnThisThread();
    if (file.listener != nullptr && file.column_family == cf &&
        file.reason == context.reason && FedBy(file.listener)) {
      plan = file.listener->TieredPlanFor(cf, file.job_id);
    }
  }
  // The plan's oldest run is RocksDB's bottommost, except a run alone (a
  // flush is never bottommost): where they disagree the plan spent the
  // budget on a tree other than the one RocksDB builds.
  if (plan != nullptr && !options_.last_level_filter &&
      plan->oldest != context.is_bottommost && plan->runs.runs.size() > 1) {
    plan = nullptr;
  }
  if (plan != nullptr) return unfiltered ? 0 : plan->millibits;
  if (live) {
    ++tiered_fallbacks_;
    bool first;
    {
      std::lock_guard<std::mutex> lock(mu_);
      first = tiered_warned_.insert(cf).second;
    }
    if (first) {
      ROCKSDB_NAMESPACE::Log(
          ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, context.info_log,
          "[%s] monkey: a file under universal compaction gets the average "
          "budget, %.3f bits/key, because the sorted run it builds is "
          "unknown (%s); said once, counted in tiered_fallbacks()",
          cf.c_str(), AverageMillibits(options_, level) / 1000.0,
          !has_listener_ ? "no shape listener feeds the policy: see "
                           "monkey::Install"
          : context.reason != TableFileCreationReason::kFlush &&
                  context.reason != TableFileCreationReason::kCompaction
              ? "built outside a flush or compaction: WAL recovery, "
                "SstFileWriter"
              : "the listener heard of no such job, or its run is not "
                "RocksDB's bottommost");
    }
  }
  return unfiltered ? 0 : AverageMillibits(options_, level);
}

void MonkeyFilterPolicy::AddListener(ShapeListener* listener) const {
  has_listener_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.insert(listener);
}

void MonkeyFilterPolicy::RemoveListener(ShapeListener* listener) const {
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.erase(listener);
}

bool MonkeyFilterPolicy::FedBy(ShapeListener* listener) const {
  std::lock_guard<std::mutex> lock(mu_);
  return listeners_.count(listener) > 0;
}

void MonkeyFilterPolicy::NoteTieredPlan(
    const std::string& column_family,
    std::shared_ptr<const TieredJobPlan> plan) const {
  std::lock_guard<std::mutex> lock(mu_);
  tiered_plans_[column_family] = std::move(plan);
}

void MonkeyFilterPolicy::NoteTiered(
    const std::string& column_family,
    ROCKSDB_NAMESPACE::CompactionStyle style) const {
  std::lock_guard<std::mutex> lock(mu_);
  tiered_[column_family] = style;
}

}  // namespace monkey
