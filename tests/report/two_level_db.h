// A small real DB for the filter report tests: even keys compacted into L6,
// every tenth odd key flushed into L0, so that each absent key probed between
// them meets exactly one filter on each of the two levels.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"

namespace monkey::test {

struct TwoLevelDb {
  TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  uint64_t num_keys = 0;  // keys in L6; L0 holds a tenth as many

  // An absent key inside both levels' key ranges, for i in [0, absent_keys).
  std::string Absent(uint64_t i) const { return AbsentKey(2 * (i + 1), 0); }
  uint64_t absent_keys() const { return num_keys - 10; }
};

inline std::unique_ptr<TwoLevelDb> MakeTwoLevelDb(const std::string& filter_uri,
                                                  uint64_t num_keys = 100000,
                                                  bool cache_filters = false) {
  auto t = std::make_unique<TwoLevelDb>();
  t->num_keys = num_keys;
  ROCKSDB_NAMESPACE::Options& options = t->options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  // A manual compaction of L0 then writes straight into the last level, L6.
  options.level_compaction_dynamic_level_bytes = true;
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
  // No stats dump at open: it would scan the block cache before the test
  // fills it, and RocksDB then reuses that scan for 10 s.
  options.stats_dump_period_sec = 0;
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.cache_index_and_filter_blocks = cache_filters;
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  if (!filter_uri.empty()) {
    const ROCKSDB_NAMESPACE::Status s = Install(filter_uri, &options);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ROCKSDB_NAMESPACE::Status s = OpenDB(options, t->dir.Sub("db"), &t->db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  const ROCKSDB_NAMESPACE::WriteOptions write;
  // Two overlapping flushes, so that the compaction rewrites them (a single
  // L0 file would be moved, keeping its L0 filter and its reader's level).
  for (uint64_t parity = 0; parity < 2; ++parity) {
    for (uint64_t i = parity; i < num_keys; i += 2) {
      EXPECT_TRUE(t->db->Put(write, Key(2 * i), "value").ok());
    }
    EXPECT_TRUE(t->db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  }
  EXPECT_TRUE(t->db
                  ->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(),
                                 nullptr, nullptr)
                  .ok());
  for (uint64_t i = 0; i < num_keys / 10; ++i) {
    EXPECT_TRUE(t->db->Put(write, Key(20 * i + 1), "value").ok());
  }
  EXPECT_TRUE(t->db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  return t;
}

}  // namespace monkey::test
