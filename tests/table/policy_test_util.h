// Helpers of the policy's tests in a real RocksDB
// (monkey_filter_policy_test.cc, monkey_filter_policy_live_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "monkey/monkey_filter_policy.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"

namespace monkey::test {

// Keys the big trees of these tests hold.
inline constexpr int kTreeKeys = 400000;

inline const MonkeyFilterPolicy& AsMonkey(
    const ROCKSDB_NAMESPACE::FilterPolicy& policy) {
  const auto* monkey = policy.CheckedCast<MonkeyFilterPolicy>();
  EXPECT_NE(monkey, nullptr) << policy.Name();
  return *monkey;
}

// A small tree (256 KiB memtables, 64 KiB files, 128 KiB base level, dynamic
// level sizing) with statistics and `filter_uri` as its filter policy.
inline ROCKSDB_NAMESPACE::Options TreeOptions(const std::string& filter_uri) {
  ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
      /*write_buffer_kib=*/256, /*target_file_kib=*/64, /*level_base_kib=*/128,
      /*dynamic_level_bytes=*/true);
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  if (!filter_uri.empty()) table.filter_policy = PolicyOrDie(filter_uri);
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  return options;
}

inline void ExpectAllKeysFound(ROCKSDB_NAMESPACE::DB* db,
                               int keys = kTreeKeys) {
  std::string value;
  int missing = 0;
  for (int i = 0; i < keys; ++i) {
    missing += !db->Get(ROCKSDB_NAMESPACE::ReadOptions(), Key(i), &value).ok();
  }
  EXPECT_EQ(missing, 0);
}

}  // namespace monkey::test
