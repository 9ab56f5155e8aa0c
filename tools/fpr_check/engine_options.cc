// Loading an engine's options for fpr_check. See engine_options.h.
#include "monkey/tools/fpr_check/engine_options.h"

#include "monkey/install.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey::fpr_check {
namespace {

using ROCKSDB_NAMESPACE::Status;

ROCKSDB_NAMESPACE::ConfigOptions Strict() {
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return config;
}

const ROCKSDB_NAMESPACE::BlockBasedTableOptions* TableOptions(
    const ROCKSDB_NAMESPACE::Options& options) {
  return options.table_factory == nullptr
             ? nullptr
             : options.table_factory
                   ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
}

}  // namespace

Status FilterPolicyInOptionsFile(const std::string& path, std::string* value) {
  std::map<std::string, std::string> policies;
  const Status s = FilterPoliciesInOptionsFile(path, &policies);
  if (!s.ok()) return s;
  auto it = policies.find(ROCKSDB_NAMESPACE::kDefaultColumnFamilyName);
  *value = it == policies.end() ? "" : it->second;
  return Status::OK();
}

Status LoadEngineOptions(const EngineOptionsSpec& spec,
                         ROCKSDB_NAMESPACE::Options* options,
                         std::string* filter_uri) {
  RegisterOnce();
  ROCKSDB_NAMESPACE::Options loaded;
  loaded.compression =
      ROCKSDB_NAMESPACE::kNoCompression;  // our default, for speed
  loaded.num_levels = 0;                  // not set: the tree's levels
  std::string policy_text;
  if (!spec.options_file.empty()) {
    ROCKSDB_NAMESPACE::DBOptions db_options;
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
    Status s = ROCKSDB_NAMESPACE::LoadOptionsFromFile(
        Strict(), spec.options_file, &db_options, &cfs);
    if (!s.ok()) {
      return Status::InvalidArgument("options file " + spec.options_file,
                                     s.ToString());
    }
    for (const auto& cf : cfs) {
      if (cf.name == ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) {
        loaded = ROCKSDB_NAMESPACE::Options(db_options, cf.options);
      }
    }
    s = FilterPolicyInOptionsFile(spec.options_file, &policy_text);
    if (!s.ok()) return s;
  }
  if (!spec.options_string.empty()) {
    ROCKSDB_NAMESPACE::ConfigOptions config = Strict();
    // Unescaped input: RocksDB then reports a bad filter_policy instead of
    // dropping it.
    config.input_strings_escaped = false;
    const Status s = ROCKSDB_NAMESPACE::GetOptionsFromString(
        config, loaded, spec.options_string, &loaded);
    if (!s.ok()) {
      return Status::InvalidArgument("options '" + spec.options_string + "'",
                                     s.ToString());
    }
  }
  const ROCKSDB_NAMESPACE::BlockBasedTableOptions* table = TableOptions(loaded);
  if (table == nullptr) {
    return Status::InvalidArgument(
        "fpr_check needs a block-based table factory");
  }

  std::string uri = spec.filter_uri;
  if (uri.empty() && !policy_text.empty()) {
    // Re-parse the file's value strictly: if it was dropped or changed on
    // the way in, say so rather than measure the wrong filter.
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> strict;
    const Status s = ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(
        Strict(), policy_text, &strict);
    if (!s.ok()) {
      return Status::InvalidArgument(
          "filter_policy '" + policy_text + "' in " + spec.options_file,
          s.ToString());
    }
    uri = policy_text;
  }
  if (uri.empty() && table->filter_policy != nullptr) {
    uri = table->filter_policy->ToString(ROCKSDB_NAMESPACE::ConfigOptions());
  }
  if (uri.empty()) uri = spec.fallback_filter_uri;
  if (uri.empty()) {
    return Status::InvalidArgument(
        "no filter to check: give --filter_uri, or options with a "
        "filter_policy");
  }
  // Install parses strictly, keeps the other table options, and adds the
  // listener a live-shape Monkey policy needs.
  const Status s = Install(uri, &loaded);
  if (!s.ok()) return s;
  *options = loaded;
  *filter_uri = uri;
  return Status::OK();
}

}  // namespace monkey::fpr_check
