// MonkeyFilterPolicy: the thin glue between RocksDB's table builder and the
// planner in util/monkey_bpk.h. See include/monkey/monkey_filter_policy.h.
#include "monkey/monkey_filter_policy.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "monkey/table/key_range_collector.h"
#include "monkey/table/status_message.h"
#include "monkey/table/strict_string.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"
#include "monkey/util/plan_format.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/options_type.h"

namespace monkey {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::OptionType;
using ROCKSDB_NAMESPACE::OptionTypeFlags;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::OptionVerificationType;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::TableFileCreationReason;

// The shape assumed when FilterBuildingContext has no num_levels: RocksDB's
// default (ColumnFamilyOptions::num_levels).
constexpr int kDefaultNumLevels = 7;

// PlanToString says the live plan spends other than the budget on new files
// when it does by more than this: the plan's price moves in steps, so it
// never spends the budget to the bit.
constexpr double kShownBudgetChange = 0.005;

// RocksDB parses doubles with std::stod, which reads "7abc" as 7, " 7" and
// "0x10" as numbers, and "1e-400" as 0. Options that size memory must not
// be guessed at (strict_string.h).
Status ParseStrictDouble(const ConfigOptions&, const std::string& name,
                         const std::string& value, void* addr) {
  const std::string error = ParseDecimal(value, static_cast<double*>(addr));
  if (!error.empty()) return Status::InvalidArgument("monkey: " + name, error);
  return Status::OK();
}

// RocksDB writes doubles with 6 decimals, so size_ratio=1.0000001 would come
// back from the OPTIONS file as 1 -- an error, which RocksDB 7.8.3's loader
// drops for table options. Write the shortest string that reads back exact.
Status SerializeExactDouble(const ConfigOptions&, const std::string&,
                            const void* addr, std::string* value) {
  char buf[32];
  const auto result =
      std::to_chars(buf, buf + sizeof(buf), *static_cast<const double*>(addr));
  value->assign(buf, result.ptr);
  return Status::OK();
}

OptionTypeInfo ExactDouble(size_t offset) {
  return OptionTypeInfo(static_cast<int>(offset), OptionType::kDouble,
                        OptionVerificationType::kNormal, OptionTypeFlags::kNone,
                        ParseStrictDouble, SerializeExactDouble, nullptr);
}

const std::unordered_map<std::string, MonkeyOptions::Filter> kFilterNames = {
    {"bloom", MonkeyOptions::Filter::kBloom},
    {"ribbon", MonkeyOptions::Filter::kRibbon},
    {"auto", MonkeyOptions::Filter::kAuto},
};
const std::unordered_map<std::string, MonkeyOptions::Objective>
    kObjectiveNames = {
        {"fpr", MonkeyOptions::Objective::kSumFpr},
        {"memory", MonkeyOptions::Objective::kMemory},
};
const std::unordered_map<std::string, MonkeyOptions::Shape> kShapeNames = {
    {"live", MonkeyOptions::Shape::kLive},
    {"static", MonkeyOptions::Shape::kStatic},
};

// An enum option whose bad value is InvalidArgument with our message (the
// Enum type's own parser says only "Invalid value"), naming the value.
template <typename E>
OptionTypeInfo StrictEnum(size_t offset,
                          const std::unordered_map<std::string, E>* names,
                          const char* message) {
  return OptionTypeInfo::Enum<E>(static_cast<int>(offset), names)
      .SetParseFunc([names, message](const ConfigOptions&, const std::string&,
                                     const std::string& value, void* addr) {
        auto it = names->find(value);
        if (it == names->end()) {
          return Status::InvalidArgument(message, "got " + Quoted(value));
        }
        *static_cast<E*>(addr) = it->second;
        return Status::OK();
      });
}

const std::unordered_map<std::string, OptionTypeInfo> kMonkeyOptionsInfo = {
    {"bits_per_key", ExactDouble(offsetof(MonkeyOptions, bits_per_key))},
    {"size_ratio", ExactDouble(offsetof(MonkeyOptions, size_ratio))},
    {"last_level_filter",
     {offsetof(MonkeyOptions, last_level_filter), OptionType::kBoolean,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"filter", StrictEnum(offsetof(MonkeyOptions, filter), &kFilterNames,
                          "monkey: filter must be bloom, ribbon or auto")},
    {"shape", StrictEnum(offsetof(MonkeyOptions, shape), &kShapeNames,
                         "monkey: shape must be live or static")},
    {"objective",
     StrictEnum(offsetof(MonkeyOptions, objective), &kObjectiveNames,
                "monkey: objective must be fpr or memory")},
    {"max_sum_fpr", ExactDouble(offsetof(MonkeyOptions, max_sum_fpr))},
};

// The average budget, for files whose level is unknown or outside the plan.
int AverageMillibits(const MonkeyOptions& options, int level) {
  return BuildableMillibits(options.bits_per_key,
                            ModelForLevel(options.filter, level));
}

LivePlanOptions LivePlanOptionsOf(const MonkeyOptions& options,
                                  const LevelSizing& sizing) {
  LivePlanOptions live;
  live.bits_per_key = options.bits_per_key;
  live.last_level_filter = options.last_level_filter;
  live.filter = options.filter;
  live.objective = options.objective;
  live.max_sum_fpr = options.max_sum_fpr;
  live.sizing = sizing;
  return live;
}

}  // namespace

// A plan and the shape it was made for; immutable once published.
struct MonkeyFilterPolicy::LevelPlans {
  bool live = false;
  std::vector<LiveLevel> reported;  // live: the shape as the listener gave it
  LevelSizing sizing;               // live: how the listener said it is sized
  double bits_per_key = 0;          // the budget this plan spends
  std::vector<LevelShape> shape;
  Plan plan;
  LevelShape next_flush{0, 0, true};  // live: the next flush's run
};

MonkeyFilterPolicy::MonkeyFilterPolicy()
    : reader_(ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10)) {
  RegisterOptions(&options_, &kMonkeyOptionsInfo);
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
  const MonkeyOptions& o = options_;
  if (!(o.bits_per_key >= 0 && o.bits_per_key <= 100)) {
    return Status::InvalidArgument("monkey: bits_per_key must be in [0, 100]",
                                   "got " + FormatNumber(o.bits_per_key));
  }
  if (!(o.size_ratio > 1 && std::isfinite(o.size_ratio))) {
    return Status::InvalidArgument(
        "monkey: size_ratio must be a finite number above 1",
        "got " + FormatNumber(o.size_ratio));
  }
  if (!(o.max_sum_fpr >= 0 && std::isfinite(o.max_sum_fpr))) {
    return Status::InvalidArgument(
        "monkey: max_sum_fpr must be a finite fraction above 0",
        "got " + FormatNumber(o.max_sum_fpr));
  }
  if (o.max_sum_fpr > 0 && o.objective != MonkeyOptions::Objective::kMemory) {
    return Status::InvalidArgument(
        "monkey: max_sum_fpr applies with objective=memory",
        "got max_sum_fpr=" + FormatNumber(o.max_sum_fpr));
  }
  // filter, shape and objective are enums: their parser rejects anything
  // else, and C++ can only hold a named value.
  if (o.objective == MonkeyOptions::Objective::kMemory && o.max_sum_fpr > 0) {
    // A target the best filters RocksDB builds miss on its default tree.
    std::vector<LevelShape> shape;
    StaticShape(o.size_ratio, kDefaultNumLevels, o.last_level_filter, &shape);
    const double least =
        LeastSumFpr(shape, ModelsForLevels(o.filter, shape.size()));
    if (o.max_sum_fpr < least) {
      return Status::InvalidArgument(
          "monkey: max_sum_fpr cannot be reached",
          "got " + FormatNumber(o.max_sum_fpr) + "; the best filters give " +
              FormatNumber(least) + " on " + std::to_string(kDefaultNumLevels) +
              " levels");
    }
  }
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
  if (options_.shape != MonkeyOptions::Shape::kLive) return;
  ++live_updates_;
  LivePlan live;
  const bool usable =
      PlanLiveTree(levels, LivePlanOptionsOf(options_, sizing), &live);
  auto plans = std::make_shared<LevelPlans>();
  plans->live = true;
  plans->reported = levels;
  plans->sizing = sizing;
  plans->bits_per_key = live.new_file_budget;
  plans->shape = std::move(live.shape);
  plans->plan = std::move(live.plan);
  plans->next_flush = live.next_flush;
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

int MonkeyFilterPolicy::MillibitsForLevel(
    int level, int num_levels, const std::string& column_family) const {
  if (level < 0) return AverageMillibits(options_, level);
  std::shared_ptr<const LevelPlans> plans = LivePlansOf(column_family);
  // shape=live with no shape yet: no listener, or none has fed this column
  // family. The static plan is then planned for a tree as deep as the
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
  return PlannedMillibits(plans->shape, plans->plan, planned_as,
                          LivePlanOptionsOf(options_, plans->sizing),
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
  // The plans model leveled trees; other styles get the average budget,
  // and under universal compaction last_level_filter=false leaves the
  // bottommost sorted run unfiltered, as optimize_filters_for_hits does.
  if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
    NoteTiered(context.column_family_name, context.compaction_style);
    if (!options_.last_level_filter && context.is_bottommost &&
        context.compaction_style ==
            ROCKSDB_NAMESPACE::kCompactionStyleUniversal) {
      return nullptr;
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
    if (fed_.count(cf) > 0) return;
    // A flush's context never says bottommost; a compaction's output with
    // nothing below its key range is the deepest level there, and one with
    // something below has a level under it.
    if (level > 0) {
      UnfedTree& tree = unfed_trees_[cf];
      tree.levels =
          std::max(tree.levels, context.is_bottommost ? level + 1 : level + 2);
      tree.base = tree.base == 0 ? level : std::min(tree.base, level);
    }
    if (!warned_.insert(cf).second) return;
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

void MonkeyFilterPolicy::NoteTiered(
    const std::string& column_family,
    ROCKSDB_NAMESPACE::CompactionStyle style) const {
  std::lock_guard<std::mutex> lock(mu_);
  tiered_[column_family] = style;
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
      char line[256];
      snprintf(line, sizeof(line),
               "monkey plan (%s compaction, as column family '%s' last "
               "built a file): every file gets the average budget, %.3f "
               "bits/key%s; the per-level plan is for leveled trees\n",
               universal ? "universal" : "FIFO", column_family.c_str(),
               AverageMillibits(options_, -1) / 1000.0,
               universal && !options_.last_level_filter
                   ? ", and the bottommost sorted run no filter "
                     "(last_level_filter=false)"
                   : "");
      return line;
    }
  }
  std::shared_ptr<const LevelPlans> plans = LivePlansOf(column_family);
  const bool never_fed = NeverFed(column_family);
  if (plans == nullptr) {
    const int learned = never_fed ? UnfedTreeOf(column_family).levels : 0;
    plans = StaticPlan(learned > 0 ? learned : num_levels);
  }
  char budget[96];
  std::string header = "monkey plan (" +
                       std::string(plans->live ? "live" : "static") +
                       " shape): ";
  if (options_.objective == MonkeyOptions::Objective::kMemory) {
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
  std::string filter;
  for (const auto& [name, value] : kFilterNames) {
    if (value == options_.filter) filter = name;
  }
  header += ", filter " + filter + ", " + std::to_string(plans->shape.size()) +
            " levels";
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

extern "C" int RegisterMonkeyFilterPolicy(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& /*arg*/) {
  using ROCKSDB_NAMESPACE::FilterPolicy;
  // "monkey" alone, or "monkey:<bits_per_key>"; the factory rejects a bad
  // number with a message that names it, instead of "no such policy".
  library.AddFactory<const FilterPolicy>(
      ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry(
          monkey::MonkeyFilterPolicy::kClassName(), true)
          .AddSeparator(":", /*at_least_one=*/false),
      [](const std::string& uri, std::unique_ptr<const FilterPolicy>* guard,
         std::string* errmsg) -> const FilterPolicy* {
        auto policy = std::make_unique<monkey::MonkeyFilterPolicy>();
        const size_t colon = uri.find(':');
        if (colon != std::string::npos) {
          ROCKSDB_NAMESPACE::ConfigOptions config;
          config.ignore_unknown_options = false;
          ROCKSDB_NAMESPACE::Status s = policy->ConfigureFromMap(
              config, {{"bits_per_key", uri.substr(colon + 1)}});
          if (!s.ok()) {
            *errmsg = monkey::StatusMessage(s);  // RocksDB adds the code
            return nullptr;
          }
        }
        guard->reset(policy.release());
        return guard->get();
      });
  // "id=monkey;..." only reaches a factory whole when RocksDB could not split
  // it into options (an option without '=', say); without this entry that
  // is "Could not load FilterPolicy", NotSupported, which the default
  // ConfigOptions turn into no filter.
  library.AddFactory<const FilterPolicy>(
      ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry("id=monkey", false)
          .AnotherName("{id=monkey")
          .AddSeparator(";", /*at_least_one=*/false),
      [](const std::string& uri, std::unique_ptr<const FilterPolicy>*,
         std::string* errmsg) -> const FilterPolicy* {
        *errmsg = "monkey: malformed options string " + monkey::Quoted(uri) +
                  " (each option is name=value, separated by ';')";
        return nullptr;
      });
  // Install's key range collector, by name, so that a DB's OPTIONS file --
  // which lists it -- loads again (LoadOptionsFromFile, ldb).
  library.AddFactory<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>(
      monkey::KeyRangeCollectorFactory::kClassName(),
      [](const std::string&,
         std::unique_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>*
             guard,
         std::string*) {
        guard->reset(new monkey::KeyRangeCollectorFactory());
        return guard->get();
      });
  size_t num_types;
  return static_cast<int>(library.GetFactoryCount(&num_types));
}
