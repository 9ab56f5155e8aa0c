// Tests of monkey::LoadOptionsFromFileStrict (table/strict_options.cc):
// RocksDB 7.8.3 turns a bad filter_policy in an OPTIONS file into no filter;
// the strict loader refuses it.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "tests/test_util.h"

namespace monkey {
namespace {

// The OPTIONS file of a fresh DB under "monkey:7", with its filter_policy
// line replaced by `policy` (unless empty).
std::string OptionsFile(const test::TempDir& dir, const std::string& policy) {
  rocksdb::Options options;
  options.create_if_missing = true;
  EXPECT_TRUE(Install("monkey:7", &options).ok());
  rocksdb::DB* db = nullptr;
  EXPECT_TRUE(rocksdb::DB::Open(options, dir.Sub("db"), &db).ok());
  delete db;
  std::string latest;
  EXPECT_TRUE(rocksdb::GetLatestOptionsFileName(
                  dir.Sub("db"), rocksdb::Env::Default(), &latest)
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

const rocksdb::FilterPolicy* DefaultPolicy(
    const std::vector<rocksdb::ColumnFamilyDescriptor>& cfs) {
  return cfs.at(0)
      .options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()
      ->filter_policy.get();
}

TEST(StrictOptionsTest, LoadsAGoodFile) {
  test::TempDir dir;
  const std::string path = OptionsFile(dir, "");
  std::map<std::string, std::string> policies;
  ASSERT_TRUE(FilterPoliciesInOptionsFile(path, &policies).ok());
  ASSERT_EQ(policies.count("default"), 1u);
  EXPECT_NE(policies["default"].find("id=monkey"), std::string::npos);

  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(LoadOptionsFromFileStrict(path, &db_options, &cfs).ok());
  ASSERT_NE(DefaultPolicy(cfs), nullptr);
  EXPECT_STREQ(DefaultPolicy(cfs)->Name(), "monkey");
}

TEST(StrictOptionsTest, RefusesWhatRocksDbDrops) {
  for (const std::string bad :
       {"monkey:oops", "monkeyy:7", "{id=monkey;size_ratio=0.5}"}) {
    test::TempDir dir;
    const std::string path = OptionsFile(dir, bad);
    rocksdb::DBOptions db_options;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    // What RocksDB does with it: no error, and no filter -- or, for a bad
    // option value, a policy without it.
    rocksdb::ConfigOptions strict;
    strict.ignore_unsupported_options = false;
    strict.ignore_unknown_options = false;
    ASSERT_TRUE(
        rocksdb::LoadOptionsFromFile(strict, path, &db_options, &cfs).ok());
    const rocksdb::FilterPolicy* loaded = DefaultPolicy(cfs);
    if (loaded != nullptr) {
      const auto* monkey = loaded->CheckedCast<MonkeyFilterPolicy>();
      ASSERT_NE(monkey, nullptr) << bad;
      EXPECT_EQ(monkey->options().size_ratio, 10) << bad;
    }

    const rocksdb::Status s =
        LoadOptionsFromFileStrict(path, &db_options, &cfs);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(bad), std::string::npos) << s.ToString();
  }
}

TEST(StrictOptionsTest, MissingFileIsAnError) {
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  EXPECT_FALSE(
      LoadOptionsFromFileStrict("/nonexistent/OPTIONS", &db_options, &cfs)
          .ok());
}

}  // namespace
}  // namespace monkey
