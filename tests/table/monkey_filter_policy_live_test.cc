// Tests of MonkeyFilterPolicy's live plan as the policy applies it: plans
// per column family from published shapes, the static shape that ignores
// them, and filter=auto's Bloom at L0 and Ribbon below in a real RocksDB.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/tests/reliability/creation_level.h"
#include "monkey/tests/table/policy_peer.h"
#include "monkey/tests/table/policy_test_util.h"
#include "monkey/tests/test_util.h"
#include "monkey/util/live_shape.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"

namespace monkey {
namespace {

using test::AsMonkey;
using test::BloomFilterBytes;
using test::ExpectAllKeysFound;
using test::Key;
using test::PolicyOrDie;
using test::TreeOptions;
using test::WaitForCompactions;

const MonkeyFilterPolicy& Monkey(
    const std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>& policy) {
  return AsMonkey(*policy);
}

TEST(MonkeyFilterPolicyLiveTest, PlansFromTheLiveShapeOfEachColumnFamily) {
  auto policy = PolicyOrDie("monkey:10");
  const MonkeyFilterPolicy& monkey = Monkey(policy);
  const int static_l2 = monkey.MillibitsForLevel(2, 7, "default");
  // A young tree whose deepest level is L2: L2 is the last level now.
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                          {{1000, 1}, {10000, 1}, {100000, 1}});
  const int live_l2 = monkey.MillibitsForLevel(2, 7, "default");
  EXPECT_LT(live_l2, 10000);
  EXPECT_GT(static_l2, 2 * live_l2);
  // Other column families keep the static plan until they have a shape.
  EXPECT_EQ(monkey.MillibitsForLevel(2, 7, "other"), static_l2);
  EXPECT_NE(monkey.PlanToString(7, "default").find("live"), std::string::npos);
  // An empty tree withdraws the live plan.
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default", {});
  EXPECT_EQ(monkey.MillibitsForLevel(2, 7, "default"), static_l2);
}

// A live policy that no listener feeds plans from the static shape, which
// spends several times the budget on a young tree: it says so, in
// PlanToString and once per column family in the DB's info LOG. A listener
// created but never attached feeds nothing.
TEST(MonkeyFilterPolicyLiveTest, APolicyNoListenerFeedsSaysSo) {
  auto policy = PolicyOrDie("monkey:7");
  const auto unattached = NewShapeListener(policy);
  ASSERT_NE(unattached, nullptr);
  EXPECT_NE(Monkey(policy).PlanToString(7).find("no shape listener"),
            std::string::npos);
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.filter_policy = policy;
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  {
    auto db = test::OpenOrDie(options, dir.path());
    for (int flush = 0; flush < 2; ++flush) {
      ASSERT_TRUE(
          db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(flush), "v").ok());
      ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
    }
  }
  std::ifstream in(dir.path() + "/LOG");
  std::stringstream log;
  log << in.rdbuf();
  const std::string text = log.str();
  const size_t first = text.find("monkey: no shape listener feeds");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.find("monkey: no shape listener feeds", first + 1),
            std::string::npos);  // once
  // Fed once, it says nothing.
  MonkeyFilterPolicyPeer::UpdateLiveShape(Monkey(policy), "default",
                                          {{0, 0}, {1000, 1}});
  EXPECT_EQ(Monkey(policy).PlanToString(7).find("no shape listener"),
            std::string::npos);
}

// The bits of a compaction's output built while the column family has no
// live plan, as GetBuilderWithContext plans them: L0 -> L1 into an empty
// L1, nothing below it.
int BitsForACompactionIntoL1(const MonkeyFilterPolicy& monkey) {
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  ROCKSDB_NAMESPACE::FilterBuildingContext context(table);
  context.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleLevel;
  context.num_levels = 7;
  context.level_at_creation = 1;
  context.is_bottommost = true;
  context.reason = ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction;
  context.column_family_name = "default";
  MonkeyFilterPolicyPeer::NoteBuild(monkey, context, 1);
  return monkey.MillibitsForLevel(1, 7, "default");
}

// A listener's first shape of a new DB is an empty tree, which gives no
// plan, and its planner may run late on a busy machine: the builds in
// between are planned for a tree as deep as they show, as for a column
// family no listener feeds -- not num_levels deep, where L1 is a small
// upper level (35.5 bits/key at monkey:10, and a filter on the last level
// under last_level_filter=false).
TEST(MonkeyFilterPolicyLiveTest,
     AColumnFamilyFedNoPlanYetPlansAsDeepAsItsBuilds) {
  auto unfiltered =
      PolicyOrDie("id=monkey;bits_per_key=10;last_level_filter=false");
  MonkeyFilterPolicyPeer::UpdateLiveShape(Monkey(unfiltered), "default", {});
  EXPECT_EQ(BitsForACompactionIntoL1(Monkey(unfiltered)), 0);
  auto filtered = PolicyOrDie("monkey:10");
  MonkeyFilterPolicyPeer::UpdateLiveShape(Monkey(filtered), "default", {});
  const int l1 = BitsForACompactionIntoL1(Monkey(filtered));
  EXPECT_GT(l1, 8000);
  EXPECT_LT(l1, 11000);
  // It was fed: the missing-listener note stays out of PlanToString.
  EXPECT_EQ(Monkey(filtered).PlanToString(7).find("no shape listener"),
            std::string::npos);
}

TEST(MonkeyFilterPolicyLiveTest, StaticShapeIgnoresTheLiveOne) {
  auto policy = PolicyOrDie("id=monkey;bits_per_key=10;shape=static");
  const MonkeyFilterPolicy& monkey = Monkey(policy);
  const int before = monkey.MillibitsForLevel(2, 7, "default");
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                          {{1000, 1}, {10000, 1}, {100000, 1}});
  EXPECT_EQ(monkey.MillibitsForLevel(2, 7, "default"), before);
}

TEST(MonkeyFilterPolicyLiveTest, DeepestNonEmptyLevelIsTheLast) {
  auto policy = PolicyOrDie("id=monkey;bits_per_key=7;last_level_filter=false");
  const MonkeyFilterPolicy& monkey = Monkey(policy);
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                          {{500, 2}, {10000, 1}, {90000, 1}});
  EXPECT_EQ(monkey.MillibitsForLevel(2, 7, "default"), 0);
  // The budget covers L0 and L1 only; L1 holds 95% of it.
  EXPECT_GT(monkey.MillibitsForLevel(1, 7, "default"), 6000);
  EXPECT_GT(monkey.MillibitsForLevel(0, 7, "default"),
            monkey.MillibitsForLevel(1, 7, "default"));
}

// Each L0 file is one run: the same keys in more files means smaller runs,
// each with more bits, and more filters probed per lookup.
TEST(MonkeyFilterPolicyLiveTest, EachL0FileIsARun) {
  auto policy = PolicyOrDie("monkey:10");
  const MonkeyFilterPolicy& monkey = Monkey(policy);
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                          {{8000, 1}, {0, 0}, {100000, 1}});
  const int one_run = monkey.MillibitsForLevel(0, 7, "default");
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                          {{8000, 4}, {0, 0}, {100000, 1}});
  const int four_runs = monkey.MillibitsForLevel(0, 7, "default");
  EXPECT_GT(four_runs, one_run);
}

// The listener reports the filters already built; when they stray from the
// budget by more than the plan's band, new files make up for part of it.
TEST(MonkeyFilterPolicyLiveTest, NewFilesHoldTheRealizedBudget) {
  auto policy = PolicyOrDie("monkey:10");
  const MonkeyFilterPolicy& monkey = Monkey(policy);
  MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                          {{0, 0}, {10000, 1}, {100000, 1}});
  const int neutral = monkey.MillibitsForLevel(2, 7, "default");
  // Built at 8 bits/key: 20% under, with a compaction writing 10% of L2's
  // keys (fluid: the files the plan is about to build, the only bits it can
  // steer).
  LiveLevel l1{10000, 1, 8.0 * 10000, 10000, 10000, 0};
  LiveLevel l2{100000, 1, 8.0 * 90000, 90000, 90000, 10000};
  auto at = [&](double bits_per_key) {
    l1.filter_bits = bits_per_key * l1.filter_entries;
    l2.filter_bits = bits_per_key * l2.filter_entries;
    MonkeyFilterPolicyPeer::UpdateLiveShape(monkey, "default",
                                            {{0, 0}, l1, l2});
    return monkey.MillibitsForLevel(2, 7, "default");
  };
  EXPECT_GT(at(8.0), neutral);
  EXPECT_LT(at(12.0), neutral);
  // 2% over or 2% under: inside the 3% band either way, left alone.
  EXPECT_EQ(at(10.2), neutral);
  EXPECT_EQ(at(9.8), neutral);
  // Nothing being written below L0: nothing to steer, however far off.
  l2.fluid_entries = 0;
  l2.built_entries = l2.filter_entries = 100000;
  EXPECT_EQ(at(8.0), neutral);
}

// filter=auto: Bloom for L0, Ribbon below, each planned with its own model
// and in real bits.
TEST(MonkeyFilterPolicyLiveTest, AutoBuildsBloomForL0AndRibbonBelow) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = TreeOptions("");
  options.write_buffer_size = 4 << 20;
  options.target_file_size_base = 64 << 20;  // one file per level
  options.disable_auto_compactions = true;
  // The static shape, so the plan a file was built with is the plan now.
  ASSERT_TRUE(
      Install("id=monkey;bits_per_key=10;filter=auto;shape=static", &options)
          .ok());
  auto db = test::OpenOrDie(options, dir.path());
  // Two flushes over the same key range, so that compacting them rewrites
  // them rather than moving a file down.
  for (int parity = 0; parity < 2; ++parity) {
    for (int i = parity; i < 60000; i += 2) {
      ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), "v").ok());
    }
    ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  }
  const auto& monkey =
      AsMonkey(*options.table_factory
                    ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                    ->filter_policy);
  auto check = [&](int level, bool ribbon) {
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    ROCKSDB_NAMESPACE::TablePropertiesCollection props;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    int checked = 0;
    for (const auto& f : files) {
      if (f.level != level) continue;
      const auto& p = props.at(f.db_path + f.name);
      const int planned = monkey.MillibitsForLevel(level, 5, "default");
      const bool bloom_size =
          p->filter_size == BloomFilterBytes(p->num_entries, planned);
      const double real = 8.0 * p->filter_size / p->num_filter_entries;
      EXPECT_EQ(bloom_size, !ribbon) << "L" << level;
      EXPECT_NEAR(real, planned / 1000.0, 0.03 * planned / 1000.0);
      // Bloom rounds up to cache lines; Ribbon at 60k keys uses fewer slots
      // per key than the 1.045 it is planned with.
      EXPECT_EQ(real < planned / 1000.0, ribbon) << "L" << level;
      ++checked;
    }
    EXPECT_GT(checked, 0) << "L" << level;
  };
  check(0, /*ribbon=*/false);
  ASSERT_TRUE(db->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(),
                               nullptr, nullptr)
                  .ok());
  check(4, /*ribbon=*/true);
  ExpectAllKeysFound(db.get(), 60000);
}

}  // namespace
}  // namespace monkey
