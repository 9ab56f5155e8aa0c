// MonkeyOptions as RocksDB parses and prints them. See monkey_options.h.
#include "monkey/table/monkey_options.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <vector>

#include "monkey/table/strict_string.h"
#include "monkey/util/cache_plan.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"

namespace monkey {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::OptionType;
using ROCKSDB_NAMESPACE::OptionTypeFlags;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::OptionVerificationType;
using ROCKSDB_NAMESPACE::Status;

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
        {"io", MonkeyOptions::Objective::kIo},
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

// The public header spells the planner's default out.
static_assert(MonkeyOptions().read_latency_bytes == kReadLatencyBytes);

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
                "monkey: objective must be fpr, memory or io")},
    {"max_sum_fpr", ExactDouble(offsetof(MonkeyOptions, max_sum_fpr))},
    {"cache_bytes", ExactDouble(offsetof(MonkeyOptions, cache_bytes))},
    {"read_latency_bytes",
     ExactDouble(offsetof(MonkeyOptions, read_latency_bytes))},
};

}  // namespace

const std::unordered_map<std::string, OptionTypeInfo>* MonkeyOptionsTypeInfo() {
  return &kMonkeyOptionsInfo;
}

Status CheckMonkeyOptions(const MonkeyOptions& o, int num_levels) {
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
  if (!(o.cache_bytes >= 0 && std::isfinite(o.cache_bytes))) {
    return Status::InvalidArgument(
        "monkey: cache_bytes must be a finite number of bytes, 0 or more",
        "got " + FormatNumber(o.cache_bytes));
  }
  if (o.cache_bytes > 0 && o.objective != MonkeyOptions::Objective::kIo) {
    return Status::InvalidArgument(
        "monkey: cache_bytes applies with objective=io",
        "got cache_bytes=" + FormatNumber(o.cache_bytes));
  }
  if (!(o.read_latency_bytes > 0 && std::isfinite(o.read_latency_bytes))) {
    return Status::InvalidArgument(
        "monkey: read_latency_bytes must be a finite number of bytes above 0",
        "got " + FormatNumber(o.read_latency_bytes));
  }
  if (o.read_latency_bytes != MonkeyOptions().read_latency_bytes &&
      o.objective != MonkeyOptions::Objective::kIo) {
    return Status::InvalidArgument(
        "monkey: read_latency_bytes applies with objective=io",
        "got read_latency_bytes=" + FormatNumber(o.read_latency_bytes));
  }
  // filter, shape and objective are enums: their parser rejects anything
  // else, and C++ can only hold a named value.
  if (o.objective == MonkeyOptions::Objective::kMemory && o.max_sum_fpr > 0) {
    // A target the best filters RocksDB builds miss on its default tree.
    std::vector<LevelShape> shape;
    StaticShape(o.size_ratio, num_levels, o.last_level_filter, &shape);
    const double least =
        LeastSumFpr(shape, ModelsForLevels(o.filter, shape.size()));
    if (o.max_sum_fpr < least) {
      return Status::InvalidArgument(
          "monkey: max_sum_fpr cannot be reached",
          "got " + FormatNumber(o.max_sum_fpr) + "; the best filters give " +
              FormatNumber(least) + " on " + std::to_string(num_levels) +
              " levels");
    }
  }
  return Status::OK();
}

std::string FilterNameOf(MonkeyOptions::Filter filter) {
  for (const auto& [name, value] : kFilterNames) {
    if (value == filter) return name;
  }
  return "";
}

}  // namespace monkey
