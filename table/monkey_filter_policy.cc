// MonkeyFilterPolicy: the thin glue between RocksDB's table builder and the
// planner in util/monkey_bpk.h. See include/monkey/monkey_filter_policy.h.
#include "monkey/monkey_filter_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>

#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/options_type.h"
#include "util/filter_fpr_model.h"
#include "util/monkey_bpk.h"
#include "util/plan_format.h"

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

// RocksDB parses doubles with std::stod, which reads "7abc" as 7. Options
// that size memory must not be guessed at, so parse the whole string.
Status ParseStrictDouble(const ConfigOptions&, const std::string& name,
                         const std::string& value, void* addr) {
  const char* begin = value.c_str();
  char* end = nullptr;
  const double parsed = std::strtod(begin, &end);
  if (value.empty() || end != begin + value.size()) {
    return Status::InvalidArgument("monkey: " + name + " is not a number",
                                   "'" + value + "'");
  }
  *static_cast<double*>(addr) = parsed;
  return Status::OK();
}

const std::unordered_map<std::string, OptionTypeInfo> kMonkeyOptionsInfo = {
    {"bits_per_key",
     {offsetof(MonkeyOptions, bits_per_key), OptionType::kDouble,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone,
      ParseStrictDouble}},
    {"size_ratio",
     {offsetof(MonkeyOptions, size_ratio), OptionType::kDouble,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone,
      ParseStrictDouble}},
    {"last_level_filter",
     {offsetof(MonkeyOptions, last_level_filter), OptionType::kBoolean,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"filter",
     {offsetof(MonkeyOptions, filter), OptionType::kString,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
};

FprModel ModelFor(const MonkeyOptions& options) {
  return options.filter == "ribbon" ? FprModel::Ribbon()
                                    : FprModel::FastLocalBloom();
}

// The average budget, for files whose level is unknown. RocksDB's rounding:
// below 0.5 bit no filter, 0.5..1 builds 1 bit.
int AverageMillibits(const MonkeyOptions& options) {
  const int millibits =
      static_cast<int>(options.bits_per_key * 1000.0 + 0.500001);
  if (millibits < 500) return 0;
  const FprModel model = ModelFor(options);
  return std::clamp(millibits,
                    static_cast<int>(std::ceil(model.min_bits() * 1000)),
                    static_cast<int>(model.max_bits() * 1000));
}

}  // namespace

struct MonkeyFilterPolicy::StaticPlan {
  std::vector<LevelShape> shape;
  Plan plan;
};

MonkeyFilterPolicy::MonkeyFilterPolicy(const MonkeyOptions& options)
    : options_(options), reader_(ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10)) {
  RegisterOptions(&options_, &kMonkeyOptionsInfo);
  Status s = Replan();
  if (!s.ok()) {
    // A constructor cannot fail; bad C++ options fall back to the defaults
    // rather than to no filter. Create() reports them instead.
    options_ = MonkeyOptions();
    s = Replan();
    assert(s.ok());
  }
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
  Status s = FilterPolicy::ConfigureOptions(config_options, opts_map, unused);
  return s.ok() ? Replan() : s;
}

Status MonkeyFilterPolicy::Replan() {
  const MonkeyOptions& o = options_;
  if (!(o.bits_per_key >= 0 && o.bits_per_key <= 100)) {
    return Status::InvalidArgument("monkey: bits_per_key must be in [0, 100]",
                                   "got " + std::to_string(o.bits_per_key));
  }
  if (!(o.size_ratio > 1 && std::isfinite(o.size_ratio))) {
    return Status::InvalidArgument(
        "monkey: size_ratio must be a finite number above 1",
        "got " + std::to_string(o.size_ratio));
  }
  if (o.filter != "bloom" && o.filter != "ribbon") {
    return Status::InvalidArgument("monkey: filter must be bloom or ribbon",
                                   "got '" + o.filter + "'");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    plans_.clear();
  }
  // Plan RocksDB's default tree and create its built-in policies up front, so
  // the common case never plans while a flush waits.
  PlanForLevels(kDefaultNumLevels);
  for (int level = -1; level < kDefaultNumLevels; ++level) {
    BuiltinFor(MillibitsForLevel(level, kDefaultNumLevels));
  }
  return Status::OK();
}

const MonkeyFilterPolicy::StaticPlan& MonkeyFilterPolicy::PlanForLevels(
    int num_levels) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<StaticPlan>& entry = plans_[num_levels];
  if (!entry) {
    entry = std::make_unique<StaticPlan>();
    const std::string error =
        StaticShape(options_.size_ratio, num_levels, options_.last_level_filter,
                    &entry->shape);
    assert(error.empty());
    (void)error;
    entry->plan =
        PlanBitsPerKey(entry->shape, options_.bits_per_key, ModelFor(options_));
  }
  return *entry;
}

int MonkeyFilterPolicy::MillibitsForLevel(int level, int num_levels) const {
  if (num_levels < 1) num_levels = kDefaultNumLevels;
  if (level < 0 || level >= num_levels) return AverageMillibits(options_);
  return PlanForLevels(num_levels).plan.levels[level].millibits_per_key;
}

const FilterPolicy* MonkeyFilterPolicy::BuiltinFor(int millibits) const {
  if (millibits == 0) return nullptr;
  const bool ribbon = options_.filter == "ribbon";
  // Ribbon plans are in real bits; RocksDB's Ribbon setting is the Bloom
  // bits per key of equal target FPR, so map real bits -> FPR -> setting.
  const int setting =
      ribbon ? RibbonSettingMillibitsForFpr(
                   FprModel::Ribbon().FalsePositiveRate(millibits / 1000.0))
             : millibits;
  std::lock_guard<std::mutex> lock(mu_);
  auto& policy = builtins_[ribbon ? -setting : setting];
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
  // The static plan models leveled trees; others get the average budget.
  if (context.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
    level = -1;
  }
  const int millibits = MillibitsForLevel(level, context.num_levels);
  ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::DEBUG_LEVEL,
                         context.info_log,
                         "[%s] monkey: SST at level %d of %d gets %.3f "
                         "bits/key",
                         context.column_family_name.c_str(), level,
                         context.num_levels, millibits / 1000.0);
  const FilterPolicy* builtin = BuiltinFor(millibits);
  return builtin == nullptr ? nullptr : builtin->GetBuilderWithContext(context);
}

ROCKSDB_NAMESPACE::FilterBitsReader* MonkeyFilterPolicy::GetFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) const {
  return reader_->GetFilterBitsReader(contents);
}

std::string MonkeyFilterPolicy::PlanToString(int num_levels) const {
  if (num_levels < 1) num_levels = kDefaultNumLevels;
  const StaticPlan& entry = PlanForLevels(num_levels);
  return "monkey plan: " + std::to_string(options_.bits_per_key) +
         " bits/key (" + options_.filter + "), size_ratio " +
         std::to_string(options_.size_ratio) + ", " +
         std::to_string(num_levels) + " levels\n" +
         FormatPlanTable(entry.shape, entry.plan);
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
          .AddSeparator(":"),
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
            *errmsg = s.ToString();
            return nullptr;
          }
        }
        guard->reset(policy.release());
        return guard->get();
      });
  size_t num_types;
  return static_cast<int>(library.GetFactoryCount(&num_types));
}
