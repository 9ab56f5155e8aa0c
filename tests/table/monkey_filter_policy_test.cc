// Tests of MonkeyFilterPolicy (table/monkey_filter_policy.cc) in a real
// RocksDB: options strings, per-level filters in a multi-level tree, flushes,
// SstFileWriter, compatibility with stock policies, and the OPTIONS file.
#include "monkey/monkey_filter_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "monkey/install.h"
#include "monkey/tests/reliability/creation_level.h"
#include "monkey/tests/table/policy_test_util.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"

namespace monkey {
namespace {

using test::AsMonkey;
using test::BloomFilterBytes;
using test::ExpectAllKeysFound;
using test::Key;
using test::PolicyOrDie;
using test::TreeOptions;
using test::WaitForCompactions;

// Parses into a fresh pointer: CreateFromString given a policy of the same id
// starts from that policy's options.
ROCKSDB_NAMESPACE::Status Parse(
    const std::string& uri,
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy) {
  RegisterOnce();
  policy->reset();
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  return ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, uri, policy);
}

TEST(MonkeyFilterPolicyTest, ParsesShortAndLongForms) {
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  ASSERT_TRUE(Parse("monkey:7", &policy).ok());
  EXPECT_EQ(AsMonkey(*policy).options().bits_per_key, 7);
  EXPECT_EQ(AsMonkey(*policy).options().size_ratio, 10);
  EXPECT_TRUE(AsMonkey(*policy).options().last_level_filter);
  EXPECT_EQ(AsMonkey(*policy).options().filter, MonkeyOptions::Filter::kBloom);

  ASSERT_TRUE(Parse("id=monkey;bits_per_key=7.5;size_ratio=8;"
                    "last_level_filter=false;filter=ribbon",
                    &policy)
                  .ok());
  const MonkeyOptions& o = AsMonkey(*policy).options();
  EXPECT_EQ(o.bits_per_key, 7.5);
  EXPECT_EQ(o.size_ratio, 8);
  EXPECT_FALSE(o.last_level_filter);
  EXPECT_EQ(o.filter, MonkeyOptions::Filter::kRibbon);

  ASSERT_TRUE(Parse("monkey", &policy).ok());
  EXPECT_EQ(AsMonkey(*policy).options().bits_per_key, 10);
  EXPECT_EQ(policy->GetId(), "monkey");
  EXPECT_STREQ(policy->CompatibilityName(),
               PolicyOrDie("bloomfilter:10")->CompatibilityName());
}

TEST(MonkeyFilterPolicyTest, SerializedFormRoundTrips) {
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy, again;
  ASSERT_TRUE(
      Parse("id=monkey;bits_per_key=7.25;last_level_filter=false", &policy)
          .ok());
  ROCKSDB_NAMESPACE::ConfigOptions config;
  const std::string serialized = policy->ToString(config);
  EXPECT_NE(serialized.find("bits_per_key=7.25"), std::string::npos)
      << serialized;
  ASSERT_TRUE(Parse(serialized, &again).ok()) << serialized;
  EXPECT_EQ(AsMonkey(*again).options().bits_per_key, 7.25);
  EXPECT_FALSE(AsMonkey(*again).options().last_level_filter);
  std::string mismatch;
  EXPECT_TRUE(policy->AreEquivalent(config, again.get(), &mismatch))
      << mismatch;
}

// objective=memory: the least memory for a Sigma FPR target, by default
// the one uniform bits_per_key gives; it round-trips like the rest.
TEST(MonkeyFilterPolicyTest, TheMemoryObjectiveSavesMemoryAtTheSameSigmaFpr) {
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  ASSERT_TRUE(
      Parse("id=monkey;bits_per_key=10;objective=memory", &policy).ok());
  const MonkeyFilterPolicy& memory = AsMonkey(*policy);
  EXPECT_EQ(memory.options().objective, MonkeyOptions::Objective::kMemory);
  EXPECT_NE(memory.PlanToString(7).find("objective memory"), std::string::npos);
  // Seven levels: far fewer bits than 10 where most keys are.
  EXPECT_LT(memory.MillibitsForLevel(6, 7), 8000);
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> again;
  ASSERT_TRUE(
      Parse(policy->ToString(ROCKSDB_NAMESPACE::ConfigOptions()), &again).ok())
      << policy->ToString(ROCKSDB_NAMESPACE::ConfigOptions());
  EXPECT_EQ(AsMonkey(*again).options().objective,
            MonkeyOptions::Objective::kMemory);

  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> loose;
  ASSERT_TRUE(Parse("id=monkey;objective=memory;max_sum_fpr=0.2", &loose).ok());
  EXPECT_EQ(AsMonkey(*loose).options().max_sum_fpr, 0.2);
  // A looser target (uniform 10 bits gives 6.8% on 7 levels), fewer bits.
  EXPECT_LT(AsMonkey(*loose).MillibitsForLevel(6, 7),
            memory.MillibitsForLevel(6, 7));
}

TEST(MonkeyFilterPolicyTest, BadInputIsAnErrorThatNamesIt) {
  struct Case {
    std::string uri;
    std::string named;  // must appear in the message
  };
  const std::vector<Case> cases = {
      {"monkey:oops", "oops"},
      {"monkey:nan", "nan"},
      {"monkey:-1", "-1"},
      {"monkey:1000", "1000"},
      {"monkey:inf", "inf"},
      {"monkey:7:3", "7:3"},
      {"id=monkey;bits_per_key=7abc", "7abc"},
      {"id=monkey;bits_per_key=", "bits_per_key"},
      {"id=monkey;size_ratio=1", "size_ratio"},
      {"id=monkey;size_ratio=0.5", "0.5"},
      {"id=monkey;size_ratio=-10", "-10"},
      {"id=monkey;filter=cuckoo", "cuckoo"},
      {"id=monkey;last_level_filter=maybe", "last_level_filter"},
      {"id=monkey;bogus_option=1", "bogus_option"},
      {"id=monkey;bits_per_key", "bits_per_key"},
      {"id=monkey;objective=speed", "speed"},
      {"id=monkey;objective=memory;max_sum_fpr=-0.1", "max_sum_fpr"},
      {"id=monkey;objective=memory;max_sum_fpr=nan", "max_sum_fpr"},
      {"id=monkey;objective=memory;max_sum_fpr=2%", "2%"},
      {"id=monkey;max_sum_fpr=0.02", "objective=memory"},
      {"id=monkey;objective=io;read_latency_bytes=0", "read_latency_bytes"},
      {"id=monkey;objective=io;read_latency_bytes=inf", "read_latency_bytes"},
      {"id=monkey;read_latency_bytes=65536", "objective=io"},
      // Below what the best filters reach on RocksDB's default tree.
      {"id=monkey;objective=memory;max_sum_fpr=1e-12", "cannot be reached"},
      // std::stod would read these as 16, 7 and 0. (RocksDB trims the
      // values of "name=value" strings before we see them.)
      {"monkey:0x10", "0x10"},
      {"monkey: 7", " 7"},
      {"monkey:1e-400", "1e-400"},
      // A small value reads as itself, not 0.000000.
      {"id=monkey;objective=memory;max_sum_fpr=1e-30", "1e-30"},
  };
  for (const Case& c : cases) {
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
    const ROCKSDB_NAMESPACE::Status s = Parse(c.uri, &policy);
    EXPECT_FALSE(s.ok()) << c.uri;
    EXPECT_NE(s.ToString().find(c.named), std::string::npos)
        << c.uri << " -> " << s.ToString();
  }
  // RocksDB's default ConfigOptions would silently turn an unknown id into
  // "no filter"; a bad monkey value fails even there.
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  EXPECT_FALSE(ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(
                   ROCKSDB_NAMESPACE::ConfigOptions(), "monkey:oops", &policy)
                   .ok());

  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> created;
  MonkeyOptions bad;
  bad.bits_per_key = std::nan("");
  EXPECT_TRUE(MonkeyFilterPolicy::Create(bad, &created).IsInvalidArgument());
  bad = MonkeyOptions();
  bad.size_ratio = 1;
  EXPECT_TRUE(MonkeyFilterPolicy::Create(bad, &created).IsInvalidArgument());
  EXPECT_EQ(created, nullptr);
}

TEST(MonkeyFilterPolicyTest, LevelsFollowTheStaticPlan) {
  const MonkeyFilterPolicy policy;  // 10 bits/key, T = 10
  // Depth from the bottom decides: the last level of a 5-level tree plans
  // like the last level of a 7-level one.
  EXPECT_EQ(policy.MillibitsForLevel(4, 5), policy.MillibitsForLevel(6, 7));
  EXPECT_GT(policy.MillibitsForLevel(3, 5), policy.MillibitsForLevel(4, 5));
  EXPECT_LT(policy.MillibitsForLevel(6, 7), 10000);
  EXPECT_EQ(policy.MillibitsForLevel(-1, 7), 10000);  // unknown: average
  EXPECT_EQ(policy.MillibitsForLevel(9, 7), 10000);   // out of range

  MonkeyOptions no_last;
  no_last.bits_per_key = 7;
  no_last.last_level_filter = false;
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> created;
  ASSERT_TRUE(MonkeyFilterPolicy::Create(no_last, &created).ok());
  const MonkeyFilterPolicy& skip = AsMonkey(*created);
  EXPECT_EQ(skip.MillibitsForLevel(6, 7), 0);
  EXPECT_GT(skip.MillibitsForLevel(5, 7), 0);
  EXPECT_NE(skip.PlanToString(7).find("none"), std::string::npos);
}

constexpr int kTreeKeys = test::kTreeKeys;

// Writes keys [from, to) in random order, so that compactions rewrite files.
void LoadTree(ROCKSDB_NAMESPACE::DB* db, int from = 0, int to = kTreeKeys) {
  std::vector<int> order(to - from);
  std::iota(order.begin(), order.end(), from);
  std::shuffle(order.begin(), order.end(), std::mt19937(from + 1));
  const std::string value(48, 'v');
  for (int i : order) {
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), value).ok());
  }
  WaitForCompactions(db);
}

// Absent lookups must all come back NotFound, and count how often filters
// answered them.
uint64_t ProbeAbsent(ROCKSDB_NAMESPACE::DB* db,
                     ROCKSDB_NAMESPACE::Statistics* stats) {
  stats->Reset();
  std::string value;
  for (int i = 0; i < 20000; ++i) {
    EXPECT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                        test::AbsentKey(i * 13, 0), &value)
                    .IsNotFound());
  }
  return test::CountsFrom(*stats).useful;
}

TEST(MonkeyFilterPolicyTest, EachSstGetsItsLevelsPlan) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = TreeOptions("monkey:10");
  // Each SST records the level it was built for; a trivially moved file
  // keeps its filter, and that level, under a new one.
  options.table_properties_collector_factories.push_back(
      std::make_shared<test::CreationLevelCollectorFactory>());
  auto db = test::OpenOrDie(options, dir.path());
  // Which levels hold files when compactions stop depends on timing; grow
  // the tree until at least three do.
  int loaded = kTreeKeys;
  LoadTree(db.get());
  for (;;) {
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    std::set<int> levels_with_files;
    for (const auto& f : files) levels_with_files.insert(f.level);
    if (levels_with_files.size() >= 3 || loaded >= 2 * kTreeKeys) break;
    LoadTree(db.get(), loaded, loaded + kTreeKeys / 4);
    loaded += kTreeKeys / 4;
  }

  const auto& policy =
      AsMonkey(*options.table_factory
                    ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                    ->filter_policy);
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());

  std::set<int> live_levels, checked_levels;
  for (const auto& file : files) {
    live_levels.insert(file.level);
    const std::string path = file.db_path + file.name;
    const auto& p = props.at(path);
    const int created = test::CreationLevel(*p);
    ASSERT_GE(created, 0) << path << " has no recorded creation level";
    const int millibits = policy.MillibitsForLevel(created, options.num_levels);
    EXPECT_EQ(p->filter_size, BloomFilterBytes(p->num_entries, millibits))
        << path << " built for L" << created << " with " << p->num_entries
        << " keys";
    checked_levels.insert(created);
  }
  EXPECT_GE(live_levels.size(), 3u) << "the tree must have 3 levels or more";
  EXPECT_GE(checked_levels.size(), 3u);
  // Different levels really got different bits per key.
  EXPECT_NE(policy.MillibitsForLevel(*checked_levels.begin(), 5),
            policy.MillibitsForLevel(*checked_levels.rbegin(), 5));
  ExpectAllKeysFound(db.get(), loaded);
  EXPECT_GT(ProbeAbsent(db.get(), options.statistics.get()), 0u);
}

// The static plan's L0 (shape=static; a default policy no listener feeds
// gives a flush before any compaction the budget).
TEST(MonkeyFilterPolicyTest, FlushFilesGetTheL0Plan) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options =
      TreeOptions("id=monkey;bits_per_key=7;shape=static");
  options.disable_auto_compactions = true;
  auto db = test::OpenOrDie(options, dir.path());
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), "v").ok());
  }
  ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  const auto& policy =
      AsMonkey(*options.table_factory
                    ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                    ->filter_policy);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  ASSERT_FALSE(props.empty());
  for (const auto& [path, p] : props) {
    EXPECT_EQ(p->filter_size,
              BloomFilterBytes(p->num_entries, policy.MillibitsForLevel(0, 5)))
        << path;
  }
  EXPECT_GT(policy.MillibitsForLevel(0, 5), 7000);
}

// Universal compaction: every file gets the average budget, except the
// bottommost sorted run with last_level_filter=false (the option was
// ignored there), and PlanToString says so rather than print a leveled
// plan that is not in use.
TEST(MonkeyFilterPolicyTest, UniversalCompactionGetsTheAverageBudget) {
  for (const bool last_level_filter : {true, false}) {
    SCOPED_TRACE(last_level_filter ? "last_level_filter=true"
                                   : "last_level_filter=false");
    test::TempDir dir;
    ROCKSDB_NAMESPACE::Options options =
        TreeOptions(std::string("id=monkey;bits_per_key=7;last_level_filter=") +
                    (last_level_filter ? "true" : "false"));
    options.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
    options.num_levels = 1;
    options.disable_auto_compactions = true;
    auto db = test::OpenOrDie(options, dir.path());
    for (int round = 0; round < 2; ++round) {
      for (int i = round; i < 20000; i += 2) {
        ASSERT_TRUE(db->Put({}, Key(i), "v").ok());
      }
      ASSERT_TRUE(db->Flush({}).ok());
    }
    ROCKSDB_NAMESPACE::TablePropertiesCollection props;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    ASSERT_GE(props.size(), 2u);
    const size_t flushed = props.size();
    for (const auto& [path, p] : props) {
      EXPECT_EQ(p->filter_size, BloomFilterBytes(p->num_entries, 7000))
          << path;  // flushes: not the bottommost run
    }
    ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
    props.clear();
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    ASSERT_EQ(props.size(), 1u);
    const auto& merged = *props.begin()->second;
    EXPECT_EQ(merged.num_entries, 20000u);
    EXPECT_EQ(merged.filter_size,
              last_level_filter ? BloomFilterBytes(20000, 7000) : 0u);
    ExpectAllKeysFound(db.get(), 20000);
    const std::string plan =
        AsMonkey(*options.table_factory
                      ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                      ->filter_policy)
            .PlanToString(1, "default");
    EXPECT_NE(plan.find("universal compaction"), std::string::npos) << plan;
    EXPECT_NE(plan.find("every file gets the average budget, 7.000"),
              std::string::npos)
        << plan;
    EXPECT_EQ(plan.find("bottommost sorted run no filter") != std::string::npos,
              !last_level_filter)
        << plan;
    // No listener: every file's run is unknown, and counted: the flushes'
    // and the merge's.
    EXPECT_EQ(
        AsMonkey(*options.table_factory
                      ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                      ->filter_policy)
            .tiered_fallbacks(),
        flushed + 1);
  }
}

// A default policy no listener feeds knows nothing of the tree before its
// first compaction: a flush gets the budget, not the static plan's L0 (a
// run far smaller than a memtable, 48 bits/key at monkey:10).
TEST(MonkeyFilterPolicyTest, AnUnfedFlushBeforeAnyCompactionGetsTheBudget) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = TreeOptions("monkey:7");
  options.disable_auto_compactions = true;
  auto db = test::OpenOrDie(options, dir.path());
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(db->Put({}, Key(i), "v").ok());
  }
  ASSERT_TRUE(db->Flush({}).ok());
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  ASSERT_FALSE(props.empty());
  for (const auto& [path, p] : props) {
    EXPECT_EQ(p->filter_size, BloomFilterBytes(p->num_entries, 7000)) << path;
  }
}

TEST(MonkeyFilterPolicyTest, SstFileWriterFilesGetTheAverage) {
  test::TempDir dir;
  const ROCKSDB_NAMESPACE::Options options = TreeOptions("monkey:7");
  ROCKSDB_NAMESPACE::SstFileWriter writer(ROCKSDB_NAMESPACE::EnvOptions(),
                                          options);
  const std::string sst = dir.Sub("ingest.sst");
  ASSERT_TRUE(writer.Open(sst).ok());
  const int n = 50000;
  for (int i = 0; i < n; ++i) ASSERT_TRUE(writer.Put(Key(i), "v").ok());
  ASSERT_TRUE(writer.Finish().ok());
  ROCKSDB_NAMESPACE::SstFileReader reader(options);
  ASSERT_TRUE(reader.Open(sst).ok());
  EXPECT_EQ(reader.GetTableProperties()->filter_size,
            BloomFilterBytes(n, 7000));
}

TEST(MonkeyFilterPolicyTest, StockPoliciesReadMonkeyFilesAndBack) {
  test::TempDir monkey_dir, bloom_dir;
  {
    auto db = test::OpenOrDie(TreeOptions("monkey:10"), monkey_dir.path());
    LoadTree(db.get());
  }
  {
    auto db = test::OpenOrDie(TreeOptions("bloomfilter:10"), bloom_dir.path());
    LoadTree(db.get());
  }
  struct Reader {
    std::string dir, uri;
    bool filters_used;
  };
  for (const Reader& r : {Reader{monkey_dir.path(), "bloomfilter:10", true},
                          Reader{monkey_dir.path(), "", false},
                          Reader{bloom_dir.path(), "monkey:10", true},
                          Reader{bloom_dir.path(), "", false}}) {
    SCOPED_TRACE(r.dir + " read with '" + r.uri + "'");
    ROCKSDB_NAMESPACE::Options options = TreeOptions(r.uri);
    auto db = test::OpenOrDie(options, r.dir);
    ExpectAllKeysFound(db.get());
    const uint64_t useful = ProbeAbsent(db.get(), options.statistics.get());
    EXPECT_EQ(useful > 0, r.filters_used);
  }
}

TEST(MonkeyFilterPolicyTest, ReopensFromItsOptionsFile) {
  test::TempDir dir;
  {
    auto db =
        test::OpenOrDie(TreeOptions("id=monkey;bits_per_key=7;size_ratio=8;"
                                    "last_level_filter=false"),
                        dir.path());
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(1), "v").ok());
  }
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::LoadLatestOptions(config, dir.path(),
                                                   &db_options, &cfs)
                  .ok());
  ASSERT_EQ(cfs.size(), 1u);
  const auto* table =
      cfs[0]
          .options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  ASSERT_NE(table->filter_policy, nullptr);
  const MonkeyOptions& o = AsMonkey(*table->filter_policy).options();
  EXPECT_EQ(o.bits_per_key, 7);
  EXPECT_EQ(o.size_ratio, 8);
  EXPECT_FALSE(o.last_level_filter);

  // The reopened DB runs with the policy from its own OPTIONS file.
  ROCKSDB_NAMESPACE::Options options(db_options, cfs[0].options);
  auto db = test::OpenOrDie(options, dir.path());
  std::string value;
  EXPECT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(), Key(1), &value).ok());
}

TEST(MonkeyFilterPolicyTest, RibbonPlansRealBits) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options =
      TreeOptions("id=monkey;bits_per_key=10;filter=ribbon");
  options.write_buffer_size = 4 << 20;  // files of ~40k keys
  options.disable_auto_compactions = true;
  auto db = test::OpenOrDie(options, dir.path());
  for (int i = 0; i < 60000; ++i) {
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), "v").ok());
  }
  ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  const auto& policy =
      AsMonkey(*options.table_factory
                    ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                    ->filter_policy);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  ASSERT_FALSE(props.empty());
  for (const auto& [path, p] : props) {
    const double real = 8.0 * p->filter_size / p->num_filter_entries;
    const double planned = policy.MillibitsForLevel(0, 5) / 1000.0;
    EXPECT_NEAR(real, planned, 0.03 * planned) << path;
  }
  ExpectAllKeysFound(db.get(), 60000);
}

}  // namespace
}  // namespace monkey
