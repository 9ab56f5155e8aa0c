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

TEST(InstallTest, NeedsABlockBasedTable) {
  ROCKSDB_NAMESPACE::Options options;
  options.table_factory.reset(ROCKSDB_NAMESPACE::NewPlainTableFactory());
  EXPECT_TRUE(Install("monkey:7", &options).IsInvalidArgument());
}

}  // namespace
}  // namespace monkey
