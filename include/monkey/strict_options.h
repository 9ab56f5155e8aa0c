// Loading an OPTIONS file so that its filter policies load as written, or
// fail naming the value: RocksDB's own loader turns a filter_policy it
// cannot create into no filter, silently.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace monkey {

// RocksDB reads an OPTIONS file's filter_policy leniently: a value it cannot
// create -- a typo, "monkey:oops", "monkey" before it is registered --
// becomes no filter at all, even with ignore_unsupported_options=false
// (BlockBasedTableFactory::ParseOption drops the error). Checked in the
// source of 7.8.3, 9.10.0 and upstream main (11.9). This loads `path`
// like ROCKSDB_NAMESPACE::LoadOptionsFromFile with strict ConfigOptions, then
// creates every column family's filter_policy from the file strictly, and
// returns InvalidArgument naming the value that fails. On success it adds
// the listener that feeds each column family's Monkey policy its live
// shape (InstallForColumnFamilies), as Install does.
ROCKSDB_NAMESPACE::Status LoadOptionsFromFileStrict(
    const std::string& path, ROCKSDB_NAMESPACE::DBOptions* db_options,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>* column_families);

// The filter_policy value of each column family's block-based table options
// in an OPTIONS file, as written; column families without one are absent.
ROCKSDB_NAMESPACE::Status FilterPoliciesInOptionsFile(
    const std::string& path, std::map<std::string, std::string>* policies);

}  // namespace monkey
