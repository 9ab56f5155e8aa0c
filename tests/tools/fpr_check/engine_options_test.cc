// Tests of fpr_check's engine options (tools/fpr_check/engine_options.cc).
#include "monkey/tools/fpr_check/engine_options.h"

#include <gtest/gtest.h>

#include <fstream>

#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey::fpr_check {
namespace {

const ROCKSDB_NAMESPACE::BlockBasedTableOptions& Table(
    const ROCKSDB_NAMESPACE::Options& options) {
  return *options.table_factory
              ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
}

// An engine's DB: its OPTIONS file, with a filter policy and a block size.
std::string EngineOptionsFile(const test::TempDir& dir,
                              const std::string& filter_policy) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.num_levels = 6;
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  config.input_strings_escaped = false;
  EXPECT_TRUE(ROCKSDB_NAMESPACE::GetOptionsFromString(
                  config, options,
                  "block_based_table_factory={block_size=8192;filter_policy=" +
                      filter_policy + "}",
                  &options)
                  .ok());
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  EXPECT_TRUE(OpenDB(options, dir.Sub("engine"), &db).ok());
  db.reset();
  std::string file;
  EXPECT_TRUE(ROCKSDB_NAMESPACE::GetLatestOptionsFileName(
                  dir.Sub("engine"), ROCKSDB_NAMESPACE::Env::Default(), &file)
                  .ok());
  return dir.Sub("engine") + "/" + file;
}

TEST(FprCheckEngineOptionsTest, FilterUriAlone) {
  EngineOptionsSpec spec;
  spec.filter_uri = "monkey:7";
  ROCKSDB_NAMESPACE::Options options;
  std::string uri;
  ASSERT_TRUE(LoadEngineOptions(spec, &options, &uri).ok());
  EXPECT_EQ(uri, "monkey:7");
  EXPECT_STREQ(Table(options).filter_policy->Name(), "monkey");
  EXPECT_EQ(options.num_levels, 0);         // the tree decides
  EXPECT_FALSE(options.listeners.empty());  // live shape: the listener
}

TEST(FprCheckEngineOptionsTest, AnEnginesOptionsFileAndItsPolicy) {
  test::TempDir dir;
  RegisterOnce();
  const std::string file =
      EngineOptionsFile(dir, "{id=monkey;bits_per_key=7;shape=static}");
  std::string value;
  ASSERT_TRUE(FilterPolicyInOptionsFile(file, &value).ok());
  EXPECT_NE(value.find("id=monkey"), std::string::npos) << value;

  EngineOptionsSpec spec;
  spec.options_file = file;
  ROCKSDB_NAMESPACE::Options options;
  std::string uri;
  ASSERT_TRUE(LoadEngineOptions(spec, &options, &uri).ok());
  EXPECT_EQ(uri, value);
  EXPECT_EQ(Table(options).block_size, 8192u);
  EXPECT_EQ(options.num_levels, 6);
  const auto* monkey =
      Table(options).filter_policy->CheckedCast<MonkeyFilterPolicy>();
  ASSERT_NE(monkey, nullptr);
  EXPECT_EQ(monkey->options().bits_per_key, 7);

  // --filter_uri replaces the file's policy and keeps its other options.
  spec.filter_uri = "bloomfilter:10";
  ASSERT_TRUE(LoadEngineOptions(spec, &options, &uri).ok());
  EXPECT_EQ(uri, "bloomfilter:10");
  EXPECT_STREQ(Table(options).filter_policy->Name(), "bloomfilter");
  EXPECT_EQ(Table(options).block_size, 8192u);
}

// RocksDB reads an OPTIONS file whose policy it cannot create as "no
// filter"; fpr_check must say so instead of measuring no filter.
TEST(FprCheckEngineOptionsTest, AnUnknownPolicyInTheFileIsAnError) {
  test::TempDir dir;
  const std::string file = EngineOptionsFile(dir, "bloomfilter:10");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  const size_t at = text.find("bloomfilter:10");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 14, "bloomfilterr:10");
  const std::string typo = dir.Sub("OPTIONS-typo");
  std::ofstream(typo) << text;

  EngineOptionsSpec spec;
  spec.options_file = typo;
  ROCKSDB_NAMESPACE::Options options;
  std::string uri;
  const ROCKSDB_NAMESPACE::Status s = LoadEngineOptions(spec, &options, &uri);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("bloomfilterr"), std::string::npos)
      << s.ToString();
}

TEST(FprCheckEngineOptionsTest, BadInputsAreErrors) {
  ROCKSDB_NAMESPACE::Options options;
  std::string uri;
  EngineOptionsSpec spec;
  EXPECT_TRUE(LoadEngineOptions(spec, &options, &uri).IsInvalidArgument());
  spec.filter_uri = "monkey:oops";
  EXPECT_TRUE(LoadEngineOptions(spec, &options, &uri).IsInvalidArgument());
  spec.filter_uri = "nosuchfilter:10";
  EXPECT_TRUE(LoadEngineOptions(spec, &options, &uri).IsInvalidArgument());
  spec = EngineOptionsSpec();
  spec.options_string = "block_based_table_factory={filter_policy=monkey:oops}";
  EXPECT_FALSE(LoadEngineOptions(spec, &options, &uri).ok());
  spec = EngineOptionsSpec();
  spec.filter_uri = "bloomfilter:10";
  spec.options_file = "/nonexistent/OPTIONS-000001";
  EXPECT_FALSE(LoadEngineOptions(spec, &options, &uri).ok());
  spec.options_file.clear();
  spec.options_string = "no_such_option=1";
  EXPECT_FALSE(LoadEngineOptions(spec, &options, &uri).ok());
}

TEST(FprCheckEngineOptionsTest, BaselineFilterIsTheFallback) {
  EngineOptionsSpec spec;
  spec.options_string = "num_levels=6";
  spec.fallback_filter_uri = "ribbonfilter:10";
  ROCKSDB_NAMESPACE::Options options;
  std::string uri;
  ASSERT_TRUE(LoadEngineOptions(spec, &options, &uri).ok());
  EXPECT_EQ(uri, "ribbonfilter:10");
  EXPECT_EQ(options.num_levels, 6);
}

}  // namespace
}  // namespace monkey::fpr_check
