// Tests of include/monkey/rocksdb_compat.h: OpenDB and OpenDBForReadOnly work
// on the RocksDB we build against, and the overload choice takes a
// std::unique_ptr<DB>* where RocksDB has one and a DB** where it does not.
#include "monkey/rocksdb_compat.h"

#include <gtest/gtest.h>

#include "monkey/tests/test_util.h"

namespace monkey {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Status;

TEST(RocksDBCompatTest, TakesTheUniquePtrOverloadWhenThereIsOne) {
  std::unique_ptr<DB> db;
  std::unique_ptr<DB>* seen = nullptr;
  const Status s = compat_internal::Open(
      [&](std::unique_ptr<DB>* out) {
        seen = out;
        return Status::Busy("unique_ptr");
      },
      &db);
  EXPECT_EQ(seen, &db);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
}

TEST(RocksDBCompatTest, FallsBackToDBPointerPointer) {
  // A stand-in DB made by the fallback, through a DB** as before 11.0.
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> made;
  ASSERT_TRUE(OpenDB(options, dir.Sub("db"), &made).ok());
  DB* const raw = made.release();
  std::unique_ptr<DB> db;
  int calls = 0;
  const Status s = compat_internal::Open(
      [&](DB** out) {
        ++calls;
        *out = raw;
        return Status::OK();
      },
      &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(db.get(), raw);  // owned now, deleted with db
}

// Set where the option exists, and nothing (but it compiles) where not.
TEST(RocksDBCompatTest, SkipCheckingSstFileSizesWhereTheOptionExists) {
  struct Before11 {
    bool skip_checking_sst_file_sizes_on_db_open = false;
  } before;
  SkipCheckingSstFileSizesOnOpen(&before);
  EXPECT_TRUE(before.skip_checking_sst_file_sizes_on_db_open);
  struct From11 {
    int max_open_files = -1;
  } from;
  SkipCheckingSstFileSizesOnOpen(&from);
  EXPECT_EQ(from.max_open_files, -1);
  ROCKSDB_NAMESPACE::DBOptions options;
  SkipCheckingSstFileSizesOnOpen(&options);  // this RocksDB's, either way
}

TEST(RocksDBCompatTest, OpensWritesAndReopensReadOnly) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  {
    std::unique_ptr<DB> db;
    ASSERT_TRUE(OpenDB(options, dir.Sub("db"), &db).ok());
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), "k", "v").ok());
    ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  }
  // A second writer is refused while one holds the LOCK.
  std::unique_ptr<DB> writer;
  ASSERT_TRUE(OpenDB(options, dir.Sub("db"), &writer).ok());
  std::unique_ptr<DB> second;
  EXPECT_FALSE(OpenDB(options, dir.Sub("db"), &second).ok());
  EXPECT_EQ(second, nullptr);
  writer.reset();

  std::unique_ptr<DB> db;
  ASSERT_TRUE(OpenDBForReadOnly(options, dir.Sub("db"), &db).ok());
  std::string value;
  EXPECT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(), "k", &value).ok());
  EXPECT_EQ(value, "v");
  EXPECT_TRUE(
      db->Put(ROCKSDB_NAMESPACE::WriteOptions(), "k", "w").IsNotSupported());
}

TEST(RocksDBCompatTest, ColumnFamilies) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> families = {
      {ROCKSDB_NAMESPACE::kDefaultColumnFamilyName, options},
      {"users", options}};
  {
    std::unique_ptr<DB> db;
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
    ASSERT_TRUE(OpenDB(options, dir.Sub("db"), families, &handles, &db).ok());
    ASSERT_EQ(handles.size(), 2u);
    EXPECT_EQ(handles[1]->GetName(), "users");
    ASSERT_TRUE(
        db->Put(ROCKSDB_NAMESPACE::WriteOptions(), handles[1], "k", "u").ok());
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  }
  std::unique_ptr<DB> db;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
  ASSERT_TRUE(
      OpenDBForReadOnly(options, dir.Sub("db"), families, &handles, &db).ok());
  ASSERT_EQ(handles.size(), 2u);
  std::string value;
  EXPECT_TRUE(
      db->Get(ROCKSDB_NAMESPACE::ReadOptions(), handles[1], "k", &value).ok());
  EXPECT_EQ(value, "u");
  EXPECT_TRUE(
      db->Get(ROCKSDB_NAMESPACE::ReadOptions(), "k", &value).IsNotFound());
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
}

}  // namespace
}  // namespace monkey
