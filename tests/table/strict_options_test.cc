// Tests of monkey::LoadOptionsFromFileStrict (table/strict_options.cc):
// RocksDB 7.8.3 turns a bad filter_policy in an OPTIONS file into no filter;
// the strict loader refuses it.
#include "monkey/strict_options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/table/shape_listener.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey {
namespace {

// The OPTIONS file of a fresh DB under "monkey:7", with its filter_policy
// line replaced by `policy` (unless empty).
std::string OptionsFile(const test::TempDir& dir, const std::string& policy) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  EXPECT_TRUE(Install("monkey:7", &options).ok());
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  EXPECT_TRUE(OpenDB(options, dir.Sub("db"), &db).ok());
  db.reset();
  std::string latest;
  EXPECT_TRUE(ROCKSDB_NAMESPACE::GetLatestOptionsFileName(
                  dir.Sub("db"), ROCKSDB_NAMESPACE::Env::Default(), &latest)
                  .ok());
  std::ifstream in(dir.Sub("db") + "/" + latest);
  std::stringstream text;
  text << in.rdbuf();
  std::string content = text.str();
  if (!policy.empty()) {
    content = std::regex_replace(content, std::regex("filter_policy=.*"),
                                 "filter_policy=" + policy);
  }
  const std::string path = dir.Sub("OPTIONS-edited");
  std::ofstream(path) << content;
  return path;
}

const ROCKSDB_NAMESPACE::FilterPolicy* DefaultPolicy(
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& cfs) {
  return cfs.at(0)
      .options.table_factory
      ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
      ->filter_policy.get();
}

TEST(StrictOptionsTest, LoadsAGoodFile) {
  test::TempDir dir;
  const std::string path = OptionsFile(dir, "");
  std::map<std::string, std::string> policies;
  ASSERT_TRUE(FilterPoliciesInOptionsFile(path, &policies).ok());
  ASSERT_EQ(policies.count("default"), 1u);
  EXPECT_NE(policies["default"].find("id=monkey"), std::string::npos);

  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(LoadOptionsFromFileStrict(path, &db_options, &cfs).ok());
  ASSERT_NE(DefaultPolicy(cfs), nullptr);
  EXPECT_STREQ(DefaultPolicy(cfs)->Name(), "monkey");
  // With the listener that feeds it, as Install adds.
  int feeding = 0;
  for (const auto& listener : db_options.listeners) {
    const auto* shape = listener->CheckedCast<ShapeListener>();
    feeding += shape != nullptr && shape->Feeds(DefaultPolicy(cfs));
  }
  EXPECT_EQ(feeding, 1);
}

// Reopened from its OPTIONS file, a DB keeps the behaviour it had: new files
// planned from the live shape, within the budget (17.5-26.1 bits against 7
// when the loader added no listener).
TEST(StrictOptionsTest, AReopenedDbHoldsItsBudget) {
  test::TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
        /*write_buffer_kib=*/256, /*target_file_kib=*/128,
        /*level_base_kib=*/512, /*dynamic_level_bytes=*/false);
    options.num_levels = 7;
    ASSERT_TRUE(Install("monkey:7", &options).ok());
    auto db = test::OpenOrDie(options, path);
  }
  std::string latest;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::GetLatestOptionsFileName(
                  path, ROCKSDB_NAMESPACE::Env::Default(), &latest)
                  .ok());
  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(
      LoadOptionsFromFileStrict(path + "/" + latest, &db_options, &cfs).ok());
  auto db = test::OpenOrDie(
      ROCKSDB_NAMESPACE::Options(db_options, cfs.at(0).options), path);
  const std::string value(48, 'v');
  for (int i = 0; i < 200000; ++i) {
    const int key = static_cast<int>((i * 7919LL) % 200000);  // a shuffle
    ASSERT_TRUE(
        db->Put(ROCKSDB_NAMESPACE::WriteOptions(), test::Key(key), value).ok());
    // Settled every 4,000 keys: a load that compactions keep up with,
    // whatever the machine's speed.
    if (i % 4000 == 3999) test::WaitForBackgroundWork(db.get());
  }
  test::WaitForCompactions(db.get());
  printf(
      "realized bits per filter entry after a reopen from OPTIONS, "
      "monkey:7: %.3f\n",
      test::RealizedBitsPerFilterEntry(db.get()));
  EXPECT_NEAR(test::RealizedBitsPerFilterEntry(db.get()), 7.0, 0.05 * 7.0);
}

TEST(StrictOptionsTest, RefusesWhatRocksDbDrops) {
  for (const std::string bad :
       {"monkey:oops", "monkeyy:7", "{id=monkey;size_ratio=0.5}"}) {
    test::TempDir dir;
    const std::string path = OptionsFile(dir, bad);
    ROCKSDB_NAMESPACE::DBOptions db_options;
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
    // What RocksDB does with it: no error, and no filter -- or, for a bad
    // option value, a policy without it.
    ROCKSDB_NAMESPACE::ConfigOptions strict;
    strict.ignore_unsupported_options = false;
    strict.ignore_unknown_options = false;
    ASSERT_TRUE(
        ROCKSDB_NAMESPACE::LoadOptionsFromFile(strict, path, &db_options, &cfs)
            .ok());
    const ROCKSDB_NAMESPACE::FilterPolicy* loaded = DefaultPolicy(cfs);
    if (loaded != nullptr) {
      const auto* monkey = loaded->CheckedCast<MonkeyFilterPolicy>();
      ASSERT_NE(monkey, nullptr) << bad;
      EXPECT_EQ(monkey->options().size_ratio, 10) << bad;
    }

    const ROCKSDB_NAMESPACE::Status s =
        LoadOptionsFromFileStrict(path, &db_options, &cfs);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(bad), std::string::npos) << s.ToString();
  }
}

TEST(StrictOptionsTest, MissingFileIsAnError) {
  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
  EXPECT_FALSE(
      LoadOptionsFromFileStrict("/nonexistent/OPTIONS", &db_options, &cfs)
          .ok());
}

}  // namespace
}  // namespace monkey
