// Tests of monkey::Install (table/install.cc).
#include "monkey/install.h"

#include <gtest/gtest.h>

#include "monkey/monkey_filter_policy.h"
#include "monkey/table/shape_listener.h"
#include "rocksdb/convenience.h"
#include "rocksdb/table.h"

namespace monkey {
namespace {

const ROCKSDB_NAMESPACE::BlockBasedTableOptions& Table(
    const ROCKSDB_NAMESPACE::Options& options) {
  return *options.table_factory
              ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
}

TEST(InstallTest, SetsThePolicyAndKeepsOtherTableOptions) {
  ROCKSDB_NAMESPACE::Options options;
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.block_size = 16 << 10;
  table.cache_index_and_filter_blocks = true;
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));

  ASSERT_TRUE(Install("id=monkey;bits_per_key=7", &options).ok());
  EXPECT_EQ(Table(options).block_size, 16u << 10);
  EXPECT_TRUE(Table(options).cache_index_and_filter_blocks);
  const auto* monkey =
      Table(options).filter_policy->CheckedCast<MonkeyFilterPolicy>();
  ASSERT_NE(monkey, nullptr);
  EXPECT_EQ(monkey->options().bits_per_key, 7);

  ASSERT_TRUE(Install("bloomfilter:10", &options).ok());
  EXPECT_STREQ(Table(options).filter_policy->Name(), "bloomfilter");
  EXPECT_EQ(Table(options).block_size, 16u << 10);
}

// db_bench installs again on the same Options for each fresh DB: the
// listener of the policy replaced must go, or it keeps reading the tree for
// a policy no table uses. Another policy's listener stays.
TEST(InstallTest, InstallingAgainReplacesTheListener) {
  RegisterOnce();
  ROCKSDB_NAMESPACE::Options options;
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> other;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(
                  ROCKSDB_NAMESPACE::ConfigOptions(), "monkey:5", &other)
                  .ok());
  ASSERT_NE(other, nullptr);
  options.listeners.push_back(NewShapeListener(other));
  ASSERT_TRUE(Install("monkey:7", &options).ok());
  ASSERT_TRUE(Install("monkey:10", &options).ok());
  std::vector<const MonkeyFilterPolicy*> fed;
  for (const auto& listener : options.listeners) {
    const auto* shape = listener->CheckedCast<ShapeListener>();
    ASSERT_NE(shape, nullptr);
    fed.push_back(shape->policy());
  }
  ASSERT_EQ(fed.size(), 2u);
  EXPECT_EQ(fed[0], other->CheckedCast<MonkeyFilterPolicy>());
  EXPECT_EQ(fed[1],
            Table(options).filter_policy->CheckedCast<MonkeyFilterPolicy>());
  EXPECT_EQ(fed[1]->options().bits_per_key, 10);
  // A policy without a listener removes the one it replaces.
  ASSERT_TRUE(Install("bloomfilter:10", &options).ok());
  EXPECT_EQ(options.listeners.size(), 1u);
}

TEST(InstallTest, BadUriIsInvalidArgumentNamingIt) {
  ROCKSDB_NAMESPACE::Options options;
  for (const std::string uri :
       {"monkey:oops", "nosuchfilter:10", "id=monkey;size_ratio=1"}) {
    const ROCKSDB_NAMESPACE::Status s = Install(uri, &options);
    EXPECT_TRUE(s.IsInvalidArgument()) << uri << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(uri), std::string::npos) << s.ToString();
    // Each layer adds context, not another "Invalid argument: ".
    const std::string text = s.ToString();
    EXPECT_EQ(text.find("Invalid argument", 1), std::string::npos) << text;
  }
}

// RocksDB reads "" and "nullptr" as no filter policy, and OK; a policy
// string that names no filter must not turn filters off silently, nor drop
// the listener of the Monkey policy it replaces. An option given twice
// would keep only the last value.
TEST(InstallTest, StringsThatNameNoFilterOrAnOptionTwiceAreRefused) {
  ROCKSDB_NAMESPACE::Options options;
  ASSERT_TRUE(Install("monkey:7", &options).ok());
  const auto before = Table(options).filter_policy;
  for (const std::string uri :
       {"", "nullptr", "id=monkey;bits_per_key=7;bits_per_key=9",
        "{id=monkey;shape=live;shape=static}"}) {
    const ROCKSDB_NAMESPACE::Status s = Install(uri, &options);
    EXPECT_TRUE(s.IsInvalidArgument()) << "'" << uri << "': " << s.ToString();
    EXPECT_EQ(Table(options).filter_policy, before) << uri;
    EXPECT_EQ(options.listeners.size(), 1u) << uri;
  }
  // A 100 kB string makes a short message.
  const ROCKSDB_NAMESPACE::Status s =
      Install("monkey:" + std::string(100000, '7'), &options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_LT(s.ToString().size(), 400u) << s.ToString().size();
}

// A filter string is the whole policy: options it leaves out take their
// defaults, not those of the policy it replaces. RocksDB's CreateFromString
// starts from the current object's options when the id is the same
// (Customizable::GetOptionsMap), and Install handed it the current policy:
// db_bench installing each configuration on the same Options kept
// last_level_filter=false from the one before.
TEST(InstallTest, AFilterStringKeepsNothingOfThePolicyItReplaces) {
  ROCKSDB_NAMESPACE::Options options;
  ASSERT_TRUE(
      Install("id=monkey;bits_per_key=7;last_level_filter=false;filter=ribbon",
              &options)
          .ok());
  ASSERT_TRUE(Install("id=monkey;bits_per_key=10", &options).ok());
  const auto* monkey =
      Table(options).filter_policy->CheckedCast<MonkeyFilterPolicy>();
  ASSERT_NE(monkey, nullptr);
  EXPECT_EQ(monkey->options().bits_per_key, 10);
  EXPECT_TRUE(monkey->options().last_level_filter);
  EXPECT_EQ(monkey->options().filter, MonkeyOptions::Filter::kBloom);
}

// objective=io plans filters read through the block cache: with
// cache_index_and_filter_blocks off they live outside it, and without a
// cache there is no capacity to plan for. Full and partitioned filters are
// both planned (a read is priced by its bytes). cache_bytes is its alone.
TEST(InstallTest, TheIoObjectiveNeedsFiltersInABlockCache) {
  ROCKSDB_NAMESPACE::Options options;
  ROCKSDB_NAMESPACE::Status s =
      Install("id=monkey;bits_per_key=10;objective=io", &options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("cache_index_and_filter_blocks=true"),
            std::string::npos)
      << s.ToString();
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.cache_index_and_filter_blocks = true;
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  EXPECT_TRUE(Install("id=monkey;bits_per_key=10;objective=io", &options).ok());
  table.partition_filters = true;
  table.index_type =
      ROCKSDB_NAMESPACE::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.no_block_cache = true;
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  s = Install("id=monkey;bits_per_key=10;objective=io", &options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("needs a block cache"), std::string::npos)
      << s.ToString();
  EXPECT_TRUE(
      Install("id=monkey;bits_per_key=10;objective=io;cache_bytes=1048576",
              &options)
          .ok());
  table.no_block_cache = false;
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  EXPECT_TRUE(Install("id=monkey;bits_per_key=10;objective=io", &options).ok());
  s = Install("id=monkey;bits_per_key=10;cache_bytes=1048576", &options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("cache_bytes applies with objective=io"),
            std::string::npos)
      << s.ToString();
}

TEST(InstallTest, NeedsABlockBasedTable) {
  ROCKSDB_NAMESPACE::Options options;
  options.table_factory.reset(ROCKSDB_NAMESPACE::NewPlainTableFactory());
  EXPECT_TRUE(Install("monkey:7", &options).IsInvalidArgument());
}

}  // namespace
}  // namespace monkey
