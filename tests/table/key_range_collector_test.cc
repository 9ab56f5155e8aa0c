// Tests of KeyRangeCollector (table/key_range_collector.h): each SST Install
// builds names its key range in its table properties, and the OPTIONS file
// that lists the collector loads again.
#include "monkey/table/key_range_collector.h"

#include <gtest/gtest.h>

#include "monkey/install.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey {
namespace {

// How many of `factories` are KeyRangeCollector's.
int KeyRangeCollectors(
    const std::vector<
        std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>>&
        factories) {
  int n = 0;
  for (const auto& f : factories) {
    n += f != nullptr &&
         std::string(f->Name()) == KeyRangeCollectorFactory::kClassName();
  }
  return n;
}

TEST(KeyRangeCollectorTest, EachFileNamesItsKeyRange) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  ASSERT_TRUE(Install("monkey:10", &options).ok());
  ASSERT_TRUE(Install("monkey:10", &options).ok());  // installed again
  EXPECT_EQ(KeyRangeCollectors(options.table_properties_collector_factories),
            1);
  test::TempDir dir;
  auto db = test::OpenOrDie(options, dir.path());
  for (int i = 100; i < 400; i += 3) {
    ASSERT_TRUE(
        db->Put(ROCKSDB_NAMESPACE::WriteOptions(), test::Key(i), "v").ok());
  }
  ASSERT_TRUE(
      db->Delete(ROCKSDB_NAMESPACE::WriteOptions(), test::Key(500)).ok());
  ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  ASSERT_EQ(props.size(), 1u);
  std::string smallest, largest;
  ASSERT_TRUE(KeyRangeOf(*props.begin()->second, &smallest, &largest));
  EXPECT_EQ(smallest, test::Key(100));
  EXPECT_EQ(largest, test::Key(500));  // a tombstone is a key of the file
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(smallest, files[0].smallestkey);
  EXPECT_EQ(largest, files[0].largestkey);
}

// The OPTIONS file lists the collector by name: RocksDB's own loader finds
// it once "monkey" is registered.
TEST(KeyRangeCollectorTest, TheOptionsFileLoadsAgain) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  ASSERT_TRUE(Install("monkey:10", &options).ok());
  test::TempDir dir;
  test::OpenOrDie(options, dir.path()).reset();
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unknown_options = false;
  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::LoadLatestOptions(config, dir.path(),
                                                   &db_options, &cfs)
                  .ok());
  ASSERT_EQ(cfs.size(), 1u);
  EXPECT_EQ(
      KeyRangeCollectors(cfs[0].options.table_properties_collector_factories),
      1);
}

TEST(KeyRangeCollectorTest, AFileWithoutTheCollectorHasNoRange) {
  ROCKSDB_NAMESPACE::TableProperties props;
  std::string smallest, largest;
  EXPECT_FALSE(KeyRangeOf(props, &smallest, &largest));
}

}  // namespace
}  // namespace monkey
