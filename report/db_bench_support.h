// What RocksDB's db_bench needs from us: the code behind --filter_uri, the
// per-level filter report after point-lookup benchmarks, and the insertunique
// benchmark. The db_bench patches (db_bench_patches/) add only flags,
// registrations and calls into this file; the logic lives here, compiled
// once with the library (and, in a fork build, into librocksdb) and tested by
// tests/report/db_bench_support_test.cc. What stays in the patches is what
// differs between db_bench versions: how a worker stops on an error, its
// Duration, its key format (GenerateKeyFromInt) and its statistics.
//
// Output goes where db_bench's own goes: the run header and reports to
// stdout, errors to stderr (the FILE* arguments, for tests).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "monkey/filter_report.h"
#include "monkey/install.h"  // RegisterOnce, RefreshShape: the patches call them
#include "monkey/util/key_permutation.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/statistics.h"

namespace monkey {

// --filter_uri: installs `filter_uri` into options with monkey::Install
// (unknown ids and bad values are errors, not "no filter"). Nothing to do
// when it is empty. Returns false after printing why to `err`:
//   "--filter_uri and --bloom_bits exclude each other" (bloom_bits >= 0), or
//   "--filter_uri: <Install's status>".
bool DbBenchInstallFilter(const std::string& filter_uri, int bloom_bits,
                          ROCKSDB_NAMESPACE::Options* options,
                          FILE* err = stderr);

// The run header's lines on the block-based table's filter policy:
// "Filter policy: none", or "Filter policy: <id> <options>" (just the id
// when its options say nothing more); for Monkey, then its plan for
// options.num_levels, the live one once the policy has seen the default
// column family's tree.
void DbBenchPrintFilterPolicy(const ROCKSDB_NAMESPACE::Options& options,
                              FILE* out = stdout);

// The per-level filter report after each benchmark that makes point lookups
// (include/monkey/filter_report.h): every thread of the benchmark counts
// into one collector, and the report is printed once all have ended.
class DbBenchFilterReport {
 public:
  // The db_bench benchmarks that make point lookups (a name a db_bench
  // version does not have never comes up there, so one list serves all).
  static bool Wanted(const std::string& benchmark);

  // Before the benchmark's threads start: begins a measurement when
  // `enabled` (--filter_report) and Wanted(benchmark). `statistics` may be
  // null; `db` is db_bench's single DB, or null with several.
  void Start(bool enabled, const std::string& benchmark,
             std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics,
             ROCKSDB_NAMESPACE::DB* db);

  // On each benchmark thread, before its work: null when no measurement
  // runs. Resetting it, after the work, merges the thread's counts; do that
  // before the thread reports itself done, since Finish may run right then.
  std::unique_ptr<FilterStatsCollector::ThreadScope> NewThreadScope();

  // From a benchmark thread (inside its ThreadScope): how many point lookups
  // it made and how many found their key, for false positives per absent
  // lookup. A no-op outside a ThreadScope.
  static void CountLookups(int64_t lookups, int64_t found);

  // After all threads ended: prints the report, a table and the
  // filter_report_json line, to `out` and flushes it ("Filter report: only
  // for a single DB" without one DB); a report that cannot be built says
  // why on `err`. Ends the measurement; nothing when none runs.
  void Finish(ROCKSDB_NAMESPACE::DB* db, FILE* out = stdout,
              FILE* err = stderr);

 private:
  FilterStatsCollector collector_;
  std::string benchmark_;
  bool active_ = false;  // set before the threads start, read by them
};

// insertunique: the unique-key insert of a SQL engine on RocksDB (TDStore,
// MySQL): a Get that checks the key is new, then the Put. Keys are the
// values of a full-period permutation of the 64-bit integers
// (KeyPermutation), so they never repeat and spread over the whole key
// space; thread t takes positions [first + t * n, first + (t + 1) * n) for n
// keys per thread. A marker key above all of them records the next free
// position, so that a later run on the same DB continues after them.
class DbBenchInsertUnique {
 public:
  // On db_bench's main thread, before the threads start: reserves `threads`
  // * `keys_per_thread` positions from `offset` (--insertunique_offset), or
  // from the marker's position when offset < 0 (0 in a new DB), moves the
  // marker past them (never back), and prints
  //   "insertunique: key permutation positions [first, next)".
  // Returns false after printing why to `err` when db is null (several DBs),
  // key_size < 8, `plain_keys` is false (db_bench's key prefixes,
  // timestamps or --use_existing_keys), or the marker cannot be read or
  // written.
  bool Reserve(ROCKSDB_NAMESPACE::DB* db, int key_size, bool plain_keys,
               int64_t offset, int threads, int64_t keys_per_thread,
               FILE* out = stdout, FILE* err = stderr);

  // One benchmark thread's keys and counts.
  class Thread {
   public:
    // Every key of the thread was checked.
    bool Done() const { return checked_ >= keys_; }
    // The next key, as the integer db_bench makes its key from
    // (GenerateKeyFromInt).
    uint64_t NextKey() { return cursor_.Next(); }
    // The existence check (Get), then, if the key is absent, the Put of
    // value(); value() is called only then. On a failed Get or Put, its
    // status, with db_bench's message in *error ("insertunique: Get:
    // <status>" or "insertunique: Put: <status>").
    ROCKSDB_NAMESPACE::Status Insert(
        ROCKSDB_NAMESPACE::DB* db,
        const ROCKSDB_NAMESPACE::ReadOptions& read_options,
        const ROCKSDB_NAMESPACE::WriteOptions& write_options,
        const ROCKSDB_NAMESPACE::Slice& key,
        const std::function<ROCKSDB_NAMESPACE::Slice()>& value,
        std::string* error);

    int64_t checked() const { return checked_; }
    // Keys that were there already: those of an overlapping
    // --insertunique_offset, or of other benchmarks (position 0 is the
    // integer 0, which fill benchmarks write).
    int64_t found() const { return found_; }
    int64_t bytes() const { return bytes_; }  // keys and values put
    // For the thread's stats: "(<inserted> inserted, <found> of <checked>
    // existed)".
    std::string Message() const;

   private:
    friend class DbBenchInsertUnique;
    Thread(KeyPermutation::Cursor cursor, int64_t keys)
        : cursor_(cursor), keys_(keys) {}

    KeyPermutation::Cursor cursor_;
    int64_t keys_;
    int64_t checked_ = 0;
    int64_t found_ = 0;
    int64_t bytes_ = 0;
    ROCKSDB_NAMESPACE::PinnableSlice existing_;
  };

  // Thread `tid`'s share of the positions Reserve took.
  Thread ForThread(int tid) const;

  // The marker: 8 bytes 0xff, "~insertunique_next", padded with '~' or cut
  // to max(key_size, 8) bytes. db_bench's keys start with the 8 big-endian
  // bytes of their integer and pad with '0', so it sorts after all of them
  // (at key_size 8 it equals the key of 2^64 - 1, one position in 2^64).
  static std::string MarkerKey(int key_size);

 private:
  uint64_t first_ = 0;
  int64_t keys_per_thread_ = 0;
};

}  // namespace monkey
