// One call that puts a filter policy, given as a string, into
// ROCKSDB_NAMESPACE::Options: what db_bench, the tools and an engine's own code
// use to turn Monkey on.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace monkey {

// Registers "monkey" with RocksDB's default ObjectLibrary, once per process.
void RegisterOnce();

// Parses filter_uri (e.g. "monkey:7" or "id=monkey;bits_per_key=7;shape=live")
// with ignore_unsupported_options=false, sets it as the block-based table's
// filter_policy in *options, and adds the listener that feeds it the live
// shape.
ROCKSDB_NAMESPACE::Status Install(const std::string& filter_uri,
                                  ROCKSDB_NAMESPACE::Options* options);

// The listener Install adds, for code that sets up its own options (e.g. one
// policy shared by several column families' table factories). nullptr unless
// `policy` is a Monkey policy with shape=live.
std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewShapeListener(
    const std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>& policy);

// Publishes db's live shape now, rather than at its first flush or
// compaction (RocksDB has no "opened" callback). Call after DB::Open.
void RefreshShape(ROCKSDB_NAMESPACE::DB* db);

// RocksDB 7.8.3 reads an OPTIONS file's filter_policy leniently: a value it
// cannot create -- a typo, "monkey:oops", "monkey" before it is registered --
// becomes no filter at all, even with ignore_unsupported_options=false
// (BlockBasedTableFactory::ParseOption drops the error). This loads `path`
// like ROCKSDB_NAMESPACE::LoadOptionsFromFile with strict ConfigOptions, then
// creates every column family's filter_policy from the file strictly, and
// returns InvalidArgument naming the value that fails.
ROCKSDB_NAMESPACE::Status LoadOptionsFromFileStrict(
    const std::string& path, ROCKSDB_NAMESPACE::DBOptions* db_options,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>* column_families);

// The filter_policy value of each column family's block-based table options
// in an OPTIONS file, as written; column families without one are absent.
ROCKSDB_NAMESPACE::Status FilterPoliciesInOptionsFile(
    const std::string& path, std::map<std::string, std::string>* policies);

}  // namespace monkey
