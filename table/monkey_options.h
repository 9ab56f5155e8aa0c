// MonkeyOptions as RocksDB parses and prints them: the option type map a
// MonkeyFilterPolicy registers (strict numbers and enums, doubles written
// so that they read back exact), and the checks a plan needs its options
// to pass.
#pragma once

#include <string>
#include <unordered_map>

#include "monkey/monkey_filter_policy.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/options_type.h"

namespace monkey {

// The options RocksDB's Configurable reads into MonkeyOptions by name.
const std::unordered_map<std::string, ROCKSDB_NAMESPACE::OptionTypeInfo>*
MonkeyOptionsTypeInfo();

// InvalidArgument naming the option and its value, or OK: bits_per_key in
// [0, 100], size_ratio above 1, max_sum_fpr a fraction only with
// objective=memory and reachable on `num_levels` levels of the default tree,
// cache_bytes 0 or more, and more only with objective=io.
ROCKSDB_NAMESPACE::Status CheckMonkeyOptions(const MonkeyOptions& options,
                                             int num_levels);

// "bloom", "ribbon" or "auto", as the filter option spells it.
std::string FilterNameOf(MonkeyOptions::Filter filter);

}  // namespace monkey
