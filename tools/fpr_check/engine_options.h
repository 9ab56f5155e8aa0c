// The options fpr_check builds its tree with: RocksDB's defaults, or an
// engine's own (its OPTIONS file and/or an options string), with the filter
// policy from --filter_uri or from those options. Every filter policy is
// parsed strictly: RocksDB 7.8.3 drops errors of by-name table options when
// it reads an OPTIONS file or an options string with escaped input
// (BlockBasedTableFactory::ParseOption), so an unknown or malformed policy
// would otherwise silently mean no filter.
#pragma once

#include <string>

#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace monkey::fpr_check {

struct EngineOptionsSpec {
  std::string options_file;         // a RocksDB OPTIONS file; its default CF
  std::string options_string;       // DB and CF options, applied on top
  std::string filter_uri;           // overrides any policy in the two above
  std::string fallback_filter_uri;  // when none of the above has a policy
};

// Fills *options and sets *filter_uri to the policy used, as a string: the
// --filter_uri, or the filter_policy value of the options. num_levels is 0
// unless the options set it.
ROCKSDB_NAMESPACE::Status LoadEngineOptions(const EngineOptionsSpec& spec,
                                            ROCKSDB_NAMESPACE::Options* options,
                                            std::string* filter_uri);

// The filter_policy value of the default column family's table options in
// an OPTIONS file, or "" if it has none.
ROCKSDB_NAMESPACE::Status FilterPolicyInOptionsFile(const std::string& path,
                                                    std::string* value);

}  // namespace monkey::fpr_check
