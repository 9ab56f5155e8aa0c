// monkey::LoadOptionsFromFileStrict: an OPTIONS file whose filter policies
// must load as written. See strict_options.h.
#include "monkey/strict_options.h"

#include <fstream>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/table/key_range_collector.h"
#include "monkey/table/status_message.h"
#include "monkey/table/strict_string.h"
#include "rocksdb/convenience.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey {
namespace {

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

}  // namespace

ROCKSDB_NAMESPACE::Status FilterPoliciesInOptionsFile(
    const std::string& path, std::map<std::string, std::string>* policies) {
  std::ifstream in(path);
  if (!in) {
    return ROCKSDB_NAMESPACE::Status::IOError("cannot read options file", path);
  }
  policies->clear();
  // Sections look like [TableOptions/BlockBasedTable "<column family>"].
  const std::string table_section = "[TableOptions/BlockBasedTable \"";
  std::string column_family;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      in_table = line.rfind(table_section, 0) == 0 && line.size() > 2 &&
                 line.substr(line.size() - 2) == "\"]";
      if (in_table) {
        column_family = line.substr(table_section.size(),
                                    line.size() - table_section.size() - 2);
      }
      continue;
    }
    const std::string key = "filter_policy=";
    if (in_table && line.rfind(key, 0) == 0) {
      const std::string value = Trim(line.substr(key.size()));
      if (value != "nullptr") (*policies)[column_family] = value;
    }
  }
  return ROCKSDB_NAMESPACE::Status::OK();
}

ROCKSDB_NAMESPACE::Status LoadOptionsFromFileStrict(
    const std::string& path, ROCKSDB_NAMESPACE::DBOptions* db_options,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>* column_families) {
  using ROCKSDB_NAMESPACE::Status;
  RegisterOnce();
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  Status s = ROCKSDB_NAMESPACE::LoadOptionsFromFile(config, path, db_options,
                                                    column_families);
  if (!s.ok()) return s;
  std::map<std::string, std::string> policies;
  s = FilterPoliciesInOptionsFile(path, &policies);
  if (!s.ok()) return s;
  for (const auto& [column_family, value] : policies) {
    const std::string named = "filter_policy " + Quoted(value) +
                              " of column family '" + column_family + "' in " +
                              path;
    const std::string twice = DuplicateOption(value);
    if (!twice.empty()) {
      return Status::InvalidArgument(named, "gives " + twice + " twice");
    }
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
    s = ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, value,
                                                          &policy);
    if (!s.ok()) {
      return Status::InvalidArgument(named, Elided(StatusMessage(s), value));
    }
  }
  // The same behaviour as the DB that wrote the file: its Monkey policies
  // fed their live shapes, from each new file's key range (an OPTIONS file
  // keeps no table properties collectors).
  for (auto& cf : *column_families) {
    const auto* table =
        cf.options.table_factory == nullptr
            ? nullptr
            : cf.options.table_factory
                  ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
    const auto* monkey =
        table == nullptr || table->filter_policy == nullptr
            ? nullptr
            : table->filter_policy->CheckedCast<MonkeyFilterPolicy>();
    if (monkey != nullptr &&
        monkey->options().shape == MonkeyOptions::Shape::kLive) {
      AddKeyRangeCollector(&cf.options.table_properties_collector_factories);
    }
  }
  return InstallForColumnFamilies(db_options, *column_families);
}

}  // namespace monkey
