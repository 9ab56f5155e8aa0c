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
#include "rocksdb/table_properties.h"

namespace monkey {

// Registers "monkey" with RocksDB's default ObjectLibrary, once per process.
void RegisterOnce();

// Parses filter_uri (e.g. "monkey:7" or "id=monkey;bits_per_key=7;shape=live")
// with ignore_unsupported_options=false, sets it as the block-based table's
// filter_policy in *options, and adds the listener that feeds it the live
// shape, with the table properties collector that gives it each new file's
// key range (monkey.smallest_key, monkey.largest_key). Any string that does
// not name a filter policy is InvalidArgument
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

// The table properties collector Install adds: it names each new SST's key
// range, from which the listener keeps the live shape without reading the
// tree. With NewShapeListener, add it to each column family's
// table_properties_collector_factories; without it, each new file makes
// the listener read the whole tree (GetLiveFilesMetaData) at its next
// event, on a job's thread.
std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>
NewKeyRangeCollectorFactory();

// For DB::Open with column families, which takes its listeners from
// DBOptions alone: the listener Install put in one column family's Options
// feeds only that policy, and every other column family's Monkey policy
// would plan from the static shape (3.3x its budget on a young tree). Call
// it after Install on each column family's Options and before DB::Open:
// it removes Install's listeners from *db_options and adds one that feeds
// each column family's Monkey policy (shape=live) that column family's live
// shape. LoadOptionsFromFileStrict calls it. A column family created later
// (DB::CreateColumnFamily) is not in it: its policy says so in the info LOG
// and plans from the static shape.
ROCKSDB_NAMESPACE::Status InstallForColumnFamilies(
    ROCKSDB_NAMESPACE::DBOptions* db_options,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>&
        column_families);

// Publishes db's live shape now, rather than at its first flush or
// compaction (RocksDB has no "opened" callback). Call after DB::Open.
void RefreshShape(ROCKSDB_NAMESPACE::DB* db);

// Waits until the plans for the jobs begun so far are published. The
// listener plans on a thread of its own while a job runs, so a job's first
// files may be built to the plan before it.
void WaitForPlans(ROCKSDB_NAMESPACE::DB* db);

// A listener that calls WaitForPlans as each flush and compaction begins:
// every job's files are then built to the plan made for that job, whatever
// the timing, at the cost of delaying the job by a plan (about a
// millisecond on a 1,000-file tree). For tools that must build the same
// tree twice (fpr_check) and for tests; add it after Install's listener
// (RocksDB calls listeners in order).
std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewPlanBarrier();

}  // namespace monkey
