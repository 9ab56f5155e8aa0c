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
