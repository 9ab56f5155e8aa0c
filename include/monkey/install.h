// One call that puts a filter policy, given as a string, into
// ROCKSDB_NAMESPACE::Options: what db_bench, the tools and an engine's own code
// use to turn Monkey on.
#pragma once

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
// shape. Any string that does not name a filter policy is InvalidArgument
// and leaves *options as they were: an unknown id, a bad value, an option
// given twice, and "" or "nullptr" (which RocksDB reads as no filter). To
// build no filter, leave BlockBasedTableOptions::filter_policy unset.
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

}  // namespace monkey
