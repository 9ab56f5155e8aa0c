// Tests of MonkeyFilterPolicy's live plan as the policy applies it: plans
// per column family from published shapes, the static shape that ignores
// them, and filter=auto's Bloom at L0 and Ribbon below in a real RocksDB.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "monkey/util/price_search.h"
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

// The Monkey policy of `options`' block-based table.
const MonkeyFilterPolicy& MonkeyOf(const ROCKSDB_NAMESPACE::Options& options) {
  return AsMonkey(*options.table_factory
                       ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
                       ->filter_policy);
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
  const auto& monkey = MonkeyOf(options);
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

// Universal compaction under Install: manual flushes and compactions, so
// that each job and the tree it leaves are known.
ROCKSDB_NAMESPACE::Options UniversalOptions(const std::string& filter_uri,
                                            int num_levels) {
  ROCKSDB_NAMESPACE::Options options = TreeOptions("");
  options.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
  options.num_levels = num_levels;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 16 << 20;       // flushes only when asked
  options.target_file_size_base = 256 << 10;  // runs below L0: many files
  options.max_subcompactions = 2;
  // Once auto compactions are on, four runs merge those of about one size
  // (the default size ratio's 1% is too tight for flushes of equal keys).
  options.level0_file_num_compaction_trigger = 4;
  options.compaction_options_universal.size_ratio = 10;
  EXPECT_TRUE(Install(filter_uri, &options).ok());
  return options;
}

struct Sst {
  int level;
  std::string name;
  uint64_t entries, filter_bytes;
};

// The live SSTs, newest file first.
std::vector<Sst> Ssts(ROCKSDB_NAMESPACE::DB* db) {
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.file_number > b.file_number;
  });
  std::vector<Sst> out;
  for (const auto& f : files) {
    const auto& p = props.at(f.db_path + f.name);
    out.push_back({f.level, f.name, p->num_entries, p->filter_size});
  }
  return out;
}

void PutKeys(ROCKSDB_NAMESPACE::DB* db, int n, bool (*take)(int)) {
  for (int i = 0; i < n; ++i) {
    if (take(i)) ASSERT_TRUE(db->Put({}, Key(i), "v").ok());
  }
}

// Each sorted run's files get the bits its job's plan gave the run: a big
// oldest run the budget while it is alone, each small flush over the whole
// key space more (every lookup probes it, and it holds few keys) while the
// tree stays within the budget's band, a merge of the flushes the same bits
// in all its files. Not the average budget for every file.
TEST(MonkeyFilterPolicyLiveTest, UniversalRunsGetTheirJobsBits) {
  constexpr int kKeys = 200000;
  for (const int num_levels : {7, 1}) {
    SCOPED_TRACE("num_levels=" + std::to_string(num_levels));
    test::TempDir dir;
    ROCKSDB_NAMESPACE::Options options =
        UniversalOptions("monkey:10", num_levels);
    const auto& monkey = MonkeyOf(options);
    auto db = test::OpenOrDie(options, dir.path());
    PutKeys(db.get(), kKeys, [](int i) { return i % 10 != 0; });
    ASSERT_TRUE(db->Flush({}).ok());
    ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
    auto plan = MonkeyFilterPolicyPeer::TieredPlanOf(monkey, "default");
    ASSERT_NE(plan, nullptr);
    ASSERT_EQ(plan->runs.runs.size(), 1u);
    const int budget = plan->millibits;
    EXPECT_EQ(budget, 10000);
    for (const Sst& f : Ssts(db.get())) {
      EXPECT_EQ(f.level, num_levels - 1) << f.name;
      EXPECT_EQ(f.filter_bytes, BloomFilterBytes(f.entries, budget)) << f.name;
    }
    // Three small runs, each over the whole key space. The tree's bits per
    // key once a job is done stay within the band above the budget: the
    // big run keeps the budget it got alone, so the flushes' extra bits
    // are over it, and the third flush is held to the band's edge.
    const double most_bits_per_key = budget / 1000.0 * (1 + kOverBand);
    int flush_bits = 0;
    for (int r = 0; r < 3; ++r) {
      for (int i = 0; i < kKeys; i += 10) {
        if ((i / 10) % 3 == r) ASSERT_TRUE(db->Put({}, Key(i), "v").ok());
      }
      ASSERT_TRUE(db->Flush({}).ok());
      plan = MonkeyFilterPolicyPeer::TieredPlanOf(monkey, "default");
      ASSERT_NE(plan, nullptr);
      EXPECT_EQ(plan->runs.building, 0);
      EXPECT_EQ(plan->runs.runs.size(), static_cast<size_t>(r + 2));
      // The first is planned at the size of the flush before it (the
      // listener's estimate of a flush), the big run's: about the budget.
      // The second at its own size, the tree inside the band: far more.
      // The third would take the tree past the band: it gets what is left
      // there, still more than the big run.
      if (r == 1) EXPECT_GT(plan->millibits, 12000);
      if (r == 2) {
        EXPECT_GT(plan->millibits, budget);
        EXPECT_LT(plan->millibits, flush_bits);
        EXPECT_NEAR(plan->plan.bits_per_key, most_bits_per_key, 0.01);
      }
      // 0.01: the estimate of the first flush's size.
      EXPECT_LE(plan->plan.bits_per_key, most_bits_per_key + 0.01) << r;
      const Sst newest = Ssts(db.get())[0];
      EXPECT_EQ(newest.level, 0);
      EXPECT_EQ(newest.filter_bytes,
                BloomFilterBytes(newest.entries, plan->millibits))
          << r;
      if (r == 1) flush_bits = plan->millibits;
    }
    // Universal compaction merges the three flushes -- four runs reach
    // the trigger, and the oldest is far larger than they are -- into one
    // run at their place; all its files get its bits, fewer than the
    // flush planned inside the band (it is three times larger), and the
    // tree stays within the band.
    ASSERT_TRUE(db->SetOptions({{"disable_auto_compactions", "false"}}).ok());
    WaitForCompactions(db.get());
    plan = MonkeyFilterPolicyPeer::TieredPlanOf(monkey, "default");
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(monkey.tiered_fallbacks(), 0u);
    ASSERT_EQ(plan->runs.runs.size(), 2u);
    EXPECT_EQ(plan->runs.building, 0);
    EXPECT_GT(plan->millibits, budget);
    EXPECT_LT(plan->millibits, flush_bits);
    EXPECT_LE(plan->plan.bits_per_key, most_bits_per_key + 0.01);
    int merged = 0;
    for (const Sst& f : Ssts(db.get())) {
      // The merged run: at L5, above the oldest at L6; or with one level
      // the L0 file smaller than the oldest (L0 files are not split).
      if (num_levels > 1 ? f.level != num_levels - 2 : f.entries > kKeys / 2) {
        continue;
      }
      ++merged;
      EXPECT_EQ(f.filter_bytes, BloomFilterBytes(f.entries, plan->millibits))
          << f.name;
    }
    EXPECT_GE(merged, 1);
    const std::string table = monkey.PlanToString(num_levels, "default");
    EXPECT_NE(table.find("universal compaction, the sorted runs"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find("<- this job"), std::string::npos) << table;
    ExpectAllKeysFound(db.get(), kKeys);
  }
}

// last_level_filter=false: RocksDB's bottommost run gets no filter, and
// the runs above are planned without its keys; every file is planned.
TEST(MonkeyFilterPolicyLiveTest, UniversalBottommostRunHasNoFilterWithoutLlf) {
  constexpr int kKeys = 100000;
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options =
      UniversalOptions("id=monkey;bits_per_key=10;last_level_filter=false", 7);
  const auto& monkey = MonkeyOf(options);
  auto db = test::OpenOrDie(options, dir.path());
  PutKeys(db.get(), kKeys, [](int i) { return i % 2 == 0; });
  ASSERT_TRUE(db->Flush({}).ok());
  // The first flush is a run alone, and RocksDB filters it: the budget.
  EXPECT_EQ(Ssts(db.get())[0].filter_bytes,
            BloomFilterBytes(Ssts(db.get())[0].entries, 10000));
  ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
  for (const Sst& f : Ssts(db.get())) {
    EXPECT_EQ(f.level, 6);
    EXPECT_EQ(f.filter_bytes, 0u) << f.name;
  }
  for (int r = 0; r < 2; ++r) {
    for (int i = 1 + 2 * r; i < kKeys; i += 4) {
      ASSERT_TRUE(db->Put({}, Key(i), "v").ok());
    }
    ASSERT_TRUE(db->Flush({}).ok());
    auto plan = MonkeyFilterPolicyPeer::TieredPlanOf(monkey, "default");
    ASSERT_NE(plan, nullptr);
    const Sst newest = Ssts(db.get())[0];
    EXPECT_GT(plan->millibits, 0);
    EXPECT_EQ(newest.filter_bytes,
              BloomFilterBytes(newest.entries, plan->millibits));
  }
  EXPECT_EQ(monkey.tiered_fallbacks(), 0u);
  ExpectAllKeysFound(db.get(), kKeys);
}

// CompactRange merges a universal tree into the one run its caller asked
// for: that run is planned alone, at the budget, not for the flushes it
// absorbed as if they would grow back (an automatic merge's pricing).
TEST(MonkeyFilterPolicyLiveTest, AManualUniversalMergeGetsTheBudget) {
  constexpr int kKeys = 60000;
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = UniversalOptions("monkey:10", 7);
  const auto& monkey = MonkeyOf(options);
  auto db = test::OpenOrDie(options, dir.path());
  for (int r = 0; r < 3; ++r) {
    for (int i = r; i < kKeys; i += 3) {
      ASSERT_TRUE(db->Put({}, Key(i), "v").ok());
    }
    ASSERT_TRUE(db->Flush({}).ok());
  }
  ASSERT_EQ(Ssts(db.get()).size(), 3u);
  ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
  uint64_t entries = 0, filter_bytes = 0;
  for (const Sst& f : Ssts(db.get())) {
    EXPECT_EQ(f.level, 6);
    entries += f.entries;
    filter_bytes += f.filter_bytes;
  }
  EXPECT_EQ(entries, static_cast<uint64_t>(kKeys));
  auto plan = MonkeyFilterPolicyPeer::TieredPlanOf(monkey, "default");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(plan->regrowing, 0);
  EXPECT_EQ(plan->millibits, 10000);
  // Each file at the budget: 10 bits per key, to RocksDB's rounding.
  EXPECT_NEAR(8.0 * filter_bytes / entries, 10, 0.1);
  EXPECT_EQ(monkey.tiered_fallbacks(), 0u);
  ExpectAllKeysFound(db.get(), kKeys);
}

// A job the listener hears nothing of -- CompactFiles has no
// OnCompactionBegin (RocksDB 7.8.3 to 9.11) -- builds the average budget,
// and is counted and logged, not planned for a run it does not know.
TEST(MonkeyFilterPolicyLiveTest, AnUnknownUniversalJobGetsTheBudgetAndSaysSo) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = UniversalOptions("monkey:10", 7);
  const auto& monkey = MonkeyOf(options);
  std::vector<std::string> flushed;
  {
    auto db = test::OpenOrDie(options, dir.path());
    for (int r = 0; r < 2; ++r) {
      PutKeys(
          db.get(), 40000,
          r == 0 ? [](int i) { return i % 2 == 0; }
                 : [](int i) { return i % 2 == 1; });
      ASSERT_TRUE(db->Flush({}).ok());
      flushed.push_back(Ssts(db.get())[0].name);
    }
    EXPECT_EQ(monkey.tiered_fallbacks(), 0u);
    ASSERT_TRUE(db->CompactFiles({}, flushed, 6).ok());
    const std::vector<Sst> files = Ssts(db.get());
    ASSERT_FALSE(files.empty());
    for (const Sst& f : files) {
      EXPECT_EQ(f.level, 6);
      EXPECT_EQ(f.filter_bytes, BloomFilterBytes(f.entries, 10000)) << f.name;
    }
    EXPECT_EQ(monkey.tiered_fallbacks(), files.size());
    EXPECT_NE(monkey.PlanToString(7, "default")
                  .find(std::to_string(files.size()) +
                        " files so far at the average budget"),
              std::string::npos);
    ExpectAllKeysFound(db.get(), 40000);
  }
  std::ifstream in(dir.path() + "/LOG");
  std::stringstream log;
  log << in.rdbuf();
  EXPECT_NE(log.str().find("because the sorted run it builds is unknown"),
            std::string::npos);
}

// FIFO: every file is a run of about one size and every absent-key lookup
// probes them all, so the budget everywhere is Monkey's plan; nothing is
// counted as a fallback.
TEST(MonkeyFilterPolicyLiveTest, FifoFilesGetTheBudget) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = TreeOptions("");
  options.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleFIFO;
  options.write_buffer_size = 16 << 20;
  ASSERT_TRUE(Install("monkey:7", &options).ok());
  const auto& monkey = MonkeyOf(options);
  auto db = test::OpenOrDie(options, dir.path());
  for (int r = 0; r < 3; ++r) {
    PutKeys(db.get(), 30000, [](int i) { return i % 3 == 0; });
    ASSERT_TRUE(db->Flush({}).ok());
  }
  const std::vector<Sst> files = Ssts(db.get());
  ASSERT_EQ(files.size(), 3u);
  for (const Sst& f : files) {
    EXPECT_EQ(f.filter_bytes, BloomFilterBytes(f.entries, 7000)) << f.name;
  }
  EXPECT_EQ(monkey.tiered_fallbacks(), 0u);
  EXPECT_NE(monkey.PlanToString(7, "default").find("FIFO compaction"),
            std::string::npos);
}

}  // namespace
}  // namespace monkey
