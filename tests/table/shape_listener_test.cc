// Tests of ShapeListener (table/shape_listener.cc) and live-shape planning in
// real RocksDB trees: the budget holds on a young tree with dynamic level
// sizing off, where the static plan overspends; and plan updates race safely
// with filter building.
#include "monkey/table/shape_listener.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/table/policy_peer.h"
#include "monkey/tests/table/policy_test_util.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/stackable_db.h"

namespace monkey {
namespace {

using test::Key;

ROCKSDB_NAMESPACE::Options YoungTreeOptions(const std::string& filter_uri) {
  ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
      /*write_buffer_kib=*/256, /*target_file_kib=*/128,
      /*level_base_kib=*/512, /*dynamic_level_bytes=*/false);
  options.num_levels = 7;
  EXPECT_TRUE(Install(filter_uri, &options).ok()) << filter_uri;
  return options;
}

int DeepestLevel(ROCKSDB_NAMESPACE::DB* db) {
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  int deepest = 0;
  for (const auto& f : files) deepest = std::max(deepest, f.level);
  return deepest;
}

// Keys [from, to) in random order, settled every 8,000 keys: a load that
// compactions keep up with whatever the machine's speed, so that the tree
// -- and the bits the tests bound -- do not depend on how busy it is (a
// load that ran ahead of its compactions on a loaded machine put an unfed
// young tree past its bound).
void Load(ROCKSDB_NAMESPACE::DB* db, int from, int to, std::mt19937* rng) {
  std::vector<int> order;
  for (int i = from; i < to; ++i) order.push_back(i);
  std::shuffle(order.begin(), order.end(), *rng);
  const std::string value(48, 'v');
  for (size_t n = 0; n < order.size(); ++n) {
    ASSERT_TRUE(
        db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(order[n]), value).ok());
    if (n % 8000 == 7999) test::WaitForBackgroundWork(db);
  }
  test::WaitForCompactions(db);
}

// The ShapeListener Install put in `db`'s options.
ShapeListener* ListenerOf(ROCKSDB_NAMESPACE::DB* db) {
  for (const auto& listener : db->GetDBOptions().listeners) {
    if (listener == nullptr) continue;
    if (auto* shape = listener->CheckedCast<ShapeListener>()) return shape;
  }
  return nullptr;
}

// The listener reads the tree once, at its first job, and keeps it from the
// events after that: each flush and compaction names its files, and the
// key range collector Install adds gives their ranges. Before, every job
// that moved the tree enough re-read all its live files on the job's own
// thread (GetLiveFilesMetaData under the DB mutex), and writers stalled
// behind it (issue 29). The shape it keeps is the one a full read finds.
TEST(ShapeListenerTest, JobsKeepTheShapeFromTheirEvents) {
  for (const bool sequential : {false, true}) {
    SCOPED_TRACE(sequential ? "sequential keys" : "random keys");
    ROCKSDB_NAMESPACE::Options options = YoungTreeOptions("monkey:8");
    test::TempDir dir;
    auto db = test::OpenOrDie(options, dir.path());
    ShapeListener* listener = ListenerOf(db.get());
    ASSERT_NE(listener, nullptr);
    std::mt19937 rng(5);
    std::vector<int> order(150000);
    for (int i = 0; i < 150000; ++i) order[i] = i;
    if (!sequential) std::shuffle(order.begin(), order.end(), rng);
    const std::string value(48, 'v');
    for (int i : order) {
      ASSERT_TRUE(
          db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), value).ok());
    }
    test::WaitForCompactions(db.get());
    EXPECT_EQ(listener->full_reads(), 1u);
    EXPECT_GT(listener->plans(), 1u);
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    std::map<uint64_t, LiveFile> kept;
    for (LiveFile& f : listener->FilesOf("default")) kept[f.number] = f;
    ASSERT_EQ(kept.size(), files.size());
    int moved_down = 0;
    for (const auto& m : files) {
      auto it = kept.find(m.file_number);
      ASSERT_NE(it, kept.end()) << m.file_number;
      const LiveFile& f = it->second;
      EXPECT_EQ(f.level, m.level) << m.file_number;
      EXPECT_EQ(f.entries, m.num_entries) << m.file_number;
      EXPECT_EQ(f.smallest, m.smallestkey) << m.file_number;
      EXPECT_EQ(f.largest, m.largestkey) << m.file_number;
      EXPECT_TRUE(f.filter_known) << m.file_number;
      moved_down += m.level > 1;
    }
    EXPECT_GT(moved_down, 0);
  }
}

// Realized filter bits per filter entry in the files below L0.
double RealizedBitsBelowL0(ROCKSDB_NAMESPACE::DB* db) {
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  double bits = 0, entries = 0;
  for (const auto& f : files) {
    auto p = props.find(f.db_path + f.name);
    if (f.level == 0 || p == props.end()) continue;
    bits += 8.0 * p->second->filter_size;
    entries += p->second->num_filter_entries;
  }
  return entries > 0 ? bits / entries : 0;
}

// Dynamic level sizing off, so the tree grows downwards one level at a time
// and its deepest level is L1, then L2, then L3 -- never num_levels - 1.
// The budget holds below L0; L0's files take their premium on top while
// they last (docs/decisions/001-l0-premium-at-rest.md), and how many are
// left at rest -- none to three here -- is up to RocksDB's timing: over 12
// runs at load 3, after each step, the whole tree realized 8.04-8.42 bits
// per entry and the levels below L0 7.82-8.24.
TEST(ShapeListenerTest, LiveShapeHoldsTheBudgetOnAYoungTree) {
  struct Run {
    std::string uri;
    std::vector<double> realized;  // below L0, after each step
    std::vector<double> whole;     // the whole tree, after each step
    std::vector<int> deepest;
  };
  std::vector<Run> runs = {{"id=monkey;bits_per_key=8;shape=live"},
                           {"id=monkey;bits_per_key=8;shape=static"}};
  const std::vector<int> steps = {100000, 200000, 400000};
  for (Run& run : runs) {
    test::TempDir dir;
    auto db = test::OpenOrDie(YoungTreeOptions(run.uri), dir.path());
    std::mt19937 rng(3);
    int loaded = 0;
    for (int step : steps) {
      Load(db.get(), loaded, step, &rng);
      loaded = step;
      run.realized.push_back(RealizedBitsBelowL0(db.get()));
      run.whole.push_back(test::RealizedBitsPerFilterEntry(db.get()));
      run.deepest.push_back(DeepestLevel(db.get()));
    }
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("after " + std::to_string(steps[i]) + " keys, deepest L" +
                 std::to_string(runs[0].deepest[i]));
    EXPECT_LT(runs[0].deepest[i], 6);  // a young tree
    printf("%d keys: live %.3f below L0, %.3f in all; static %.3f in all\n",
           steps[i], runs[0].realized[i], runs[0].whole[i], runs[1].whole[i]);
    EXPECT_NEAR(runs[0].realized[i], 8.0, 0.05 * 8.0) << "live";
    // The static plan gives the young tree's deepest level upper-level bits.
    EXPECT_GT(runs[1].whole[i], 1.5 * 8.0) << "static";
  }
}

// objective=io plans for the block cache the table options read filters
// through: its capacity, its partitions, and what the files hold besides
// filters, from their table properties.
TEST(ShapeListenerTest, TheIoObjectivePlansForTheTablesBlockCache) {
  ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
      /*write_buffer_kib=*/256, /*target_file_kib=*/128,
      /*level_base_kib=*/512, /*dynamic_level_bytes=*/false);
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.cache_index_and_filter_blocks = true;
  table.partition_filters = true;
  table.index_type =
      ROCKSDB_NAMESPACE::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.metadata_block_size = 4096;
  table.block_cache = ROCKSDB_NAMESPACE::NewLRUCache(64 << 10);
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  ASSERT_TRUE(Install("id=monkey;bits_per_key=10;objective=io", &options).ok());
  test::TempDir dir;
  auto db = test::OpenOrDie(options, dir.path());
  std::mt19937 rng(5);
  Load(db.get(), 0, 100000, &rng);
  ShapeListener* listener = ListenerOf(db.get());
  ASSERT_NE(listener, nullptr);
  listener->WaitForPlans();
  const CacheLayout layout = listener->CacheLayoutOf("default");
  EXPECT_EQ(layout.cache_bytes, 64 << 10);
  EXPECT_EQ(layout.partition_bytes, 4096);
  // 48-byte values and 16-byte keys, uncompressed, in 4 KiB blocks.
  EXPECT_GT(layout.per_byte.data_bytes, 0.5);
  EXPECT_LT(layout.per_byte.data_bytes, 1);
  EXPECT_NEAR(1 / layout.per_byte.data_blocks, 4096, 512);
  EXPECT_GT(layout.per_byte.index_bytes, 0);
  const auto* monkey =
      options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
          ->filter_policy->CheckedCast<MonkeyFilterPolicy>();
  ASSERT_NE(monkey, nullptr);
  const std::string plan = monkey->PlanToString(5);
  EXPECT_NE(plan.find("monkey plan (live shape): objective io, 65536-byte "
                      "block cache, partitioned filters; modelled block "
                      "reads per lookup"),
            std::string::npos)
      << plan;
  // A bigger cache, read at the next plan.
  table.block_cache->SetCapacity(1 << 20);
  EXPECT_EQ(listener->CacheLayoutOf("default").cache_bytes, 1 << 20);
}

// Filter bits per filter entry of each level's files.
std::map<int, double> RealizedBitsByLevel(ROCKSDB_NAMESPACE::DB* db) {
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  std::map<int, std::pair<double, double>> sums;  // bits, entries
  for (const auto& f : files) {
    auto p = props.find(f.db_path + f.name);
    if (p == props.end()) continue;
    sums[f.level].first += 8.0 * p->second->filter_size;
    sums[f.level].second += p->second->num_filter_entries;
  }
  std::map<int, double> bits;
  for (const auto& [level, sum] : sums) bits[level] = sum.first / sum.second;
  return bits;
}

// DB::CompactFiles tells no listener it runs (RocksDB 7.8.3 to 9.11): its
// output lands on a level the live shape has no keys in. db_stress wrote L0
// to an empty L1 that way at the average budget, and a trivial move took
// the file down to L5, under L6's bits. Such a level is planned as the one
// above the next level down, at the plan's price.
TEST(ShapeListenerTest, CompactFilesIntoAnEmptyLevelIsPlannedAboveTheNext) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
      /*write_buffer_kib=*/256, /*target_file_kib=*/1024,
      /*level_base_kib=*/4096, /*dynamic_level_bytes=*/true);
  options.num_levels = 7;
  options.disable_auto_compactions = true;
  ASSERT_TRUE(Install("monkey:7", &options).ok());
  auto db = test::OpenOrDie(options, dir.path());
  const std::string value(48, 'v');
  for (int i = 0; i < 40000; ++i) {
    ASSERT_TRUE(db->Put({}, Key(i * 2), value).ok());
  }
  ASSERT_TRUE(db->Flush({}).ok());
  ROCKSDB_NAMESPACE::CompactRangeOptions to_last;
  to_last.bottommost_level_compaction =
      ROCKSDB_NAMESPACE::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(to_last, nullptr, nullptr).ok());
  for (int i = 0; i < 4000; ++i) {
    ASSERT_TRUE(db->Put({}, Key(i * 20 + 1), value).ok());
  }
  ASSERT_TRUE(db->Flush({}).ok());
  test::WaitForBackgroundWork(db.get());
  std::vector<std::string> l0;
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  for (const auto& f : files) {
    if (f.level == 0) l0.push_back(f.db_path + f.name);
  }
  ASSERT_FALSE(l0.empty());
  ASSERT_TRUE(
      db->CompactFiles(ROCKSDB_NAMESPACE::CompactionOptions(), l0, 1).ok());
  const std::map<int, double> bits = RealizedBitsByLevel(db.get());
  ASSERT_EQ(bits.count(1), 1u);
  ASSERT_EQ(bits.count(6), 1u);
  EXPECT_GT(bits.at(1), bits.at(6) + 1.0);
}

// A policy no listener feeds -- set into the table options without
// monkey::Install, as LD_PRELOAD, ldb or db_stress do -- plans a geometric
// tree as deep as its compactions show. Planned num_levels deep, the young
// tree's deepest level got upper-level bits: 3.5-4x the budget with
// dynamic sizing off.
TEST(ShapeListenerTest, AnUnfedPolicyPlansForTheDepthItSees) {
  for (const bool dynamic : {false, true}) {
    SCOPED_TRACE(dynamic ? "dynamic sizing on" : "dynamic sizing off");
    ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
        /*write_buffer_kib=*/256, /*target_file_kib=*/128,
        /*level_base_kib=*/512, dynamic);
    options.num_levels = 7;
    ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
    table.filter_policy = test::PolicyOrDie("monkey:8");
    options.table_factory.reset(
        ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
    test::TempDir dir;
    auto db = test::OpenOrDie(options, dir.path());
    std::mt19937 rng(3);
    int loaded = 0;
    for (int step : {100000, 200000, 400000}) {
      Load(db.get(), loaded, step, &rng);
      loaded = step;
      const double realized = test::RealizedBitsPerFilterEntry(db.get());
      const int deepest = DeepestLevel(db.get());
      SCOPED_TRACE("after " + std::to_string(step) + " keys, deepest L" +
                   std::to_string(deepest));
      // Measured: sizing off 7.90-10.55 (32.6-32.9 planned 7 levels deep),
      // on 7.93-8.62. Files moved down whole keep upper-level bits, which
      // only a live shape can make up for.
      EXPECT_LT(realized, (dynamic ? 1.15 : 1.5) * 8);
      const std::string plan =
          test::AsMonkey(*table.filter_policy).PlanToString(7, "default");
      EXPECT_NE(plan.find("no shape listener has fed"), std::string::npos);
      // As deep as compactions built files: trivial moves build none.
      const size_t at = plan.find(" levels");
      ASSERT_NE(at, std::string::npos) << plan;
      const int levels = std::stoi(plan.substr(plan.rfind(' ', at - 1)));
      EXPECT_GE(levels, 3) << plan;
      EXPECT_LE(levels, deepest + 1) << plan;
    }
  }
}

// With a prefix extractor RocksDB adds each key's prefix to its filter too,
// or the prefix alone without whole-key filtering, and builds a setting's
// bits for each entry it adds. The budget is per filter entry: counted per
// key, prefix-only filters (16 keys a prefix) overspent it by 20-42% and
// whole-key filters with prefixes underspent it.
TEST(ShapeListenerTest, PrefixFiltersHoldTheBudgetPerFilterEntry) {
  for (bool whole_key : {false, true}) {
    SCOPED_TRACE(whole_key ? "whole keys and prefixes" : "prefixes only");
    // Files of a few thousand prefixes: a filter rounds up to whole 64-byte
    // cache lines, which the plan does not model, and adds 8% to a filter
    // of 100 prefixes at 7 bits.
    ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
        /*write_buffer_kib=*/1024, /*target_file_kib=*/1024,
        /*level_base_kib=*/4096, /*dynamic_level_bytes=*/true);
    options.prefix_extractor.reset(
        ROCKSDB_NAMESPACE::NewFixedPrefixTransform(9));
    ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
    table.whole_key_filtering = whole_key;
    options.table_factory.reset(
        ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
    ASSERT_TRUE(Install("monkey:7", &options).ok());
    test::TempDir dir;
    auto db = test::OpenOrDie(options, dir.path());
    std::vector<int> order(400000);
    for (int i = 0; i < 400000; ++i) order[i] = i;
    std::mt19937 rng(11);
    std::shuffle(order.begin(), order.end(), rng);
    const std::string value(48, 'v');
    char key[32];
    // Settled every 8,000 keys: a load that compactions keep up with,
    // whatever the machine's speed. Keys have 9-byte prefixes, 16 keys
    // each.
    for (size_t n = 0; n < order.size(); ++n) {
      const int i = order[n];
      snprintf(key, sizeof(key), "p%08d-%02d", i / 16, i % 16);
      ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), key, value).ok());
      if (n % 8000 == 7999) test::WaitForBackgroundWork(db.get());
    }
    test::WaitForCompactions(db.get());
    // Below L0: L0's files take their premium on top of the budget while
    // they last (util/live_plan.cc), and with prefixes only a memtable of
    // random keys holds nearly a prefix a key, so L0 holds a fifth of the
    // filter entries here.
    const double below_l0 = RealizedBitsBelowL0(db.get());
    printf(
        "realized bits per filter entry, prefix 9, whole_key_filtering=%d, "
        "monkey:7: %.3f below L0, %.3f in all\n",
        whole_key, below_l0, test::RealizedBitsPerFilterEntry(db.get()));
    EXPECT_NEAR(below_l0, 7.0, 0.05 * 7.0);
  }
}

// Waits until no column family has a compaction pending or running.
void WaitForAllCompactions(
    ROCKSDB_NAMESPACE::DB* db,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& handles) {
  for (int i = 0; i < 6000; ++i) {
    uint64_t pending = 0, running = 1;
    for (auto* h : handles) {
      uint64_t p = 0;
      db->GetIntProperty(h, "rocksdb.compaction-pending", &p);
      pending += p;
    }
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "compactions did not finish";
}

// DB::Open with column families takes its listeners from DBOptions alone:
// with Install on each column family's Options and DBOptions from one of
// them, the other column family planned from the static shape (cf12 at 3.3x
// its budget). InstallForColumnFamilies feeds each its own policy.
TEST(ShapeListenerTest, EachColumnFamilyHoldsItsOwnBudget) {
  ROCKSDB_NAMESPACE::Options o5 = test::SmallTreeOptions(
      /*write_buffer_kib=*/256, /*target_file_kib=*/128,
      /*level_base_kib=*/512, /*dynamic_level_bytes=*/false);
  o5.num_levels = 7;
  o5.create_missing_column_families = true;
  ROCKSDB_NAMESPACE::Options o12 = o5;
  ASSERT_TRUE(Install("monkey:5", &o5).ok());
  ASSERT_TRUE(Install("monkey:12", &o12).ok());
  ROCKSDB_NAMESPACE::DBOptions db_options(o5);
  const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs = {
      {ROCKSDB_NAMESPACE::kDefaultColumnFamilyName,
       ROCKSDB_NAMESPACE::ColumnFamilyOptions()},
      {"cf5", o5},
      {"cf12", o12}};
  ASSERT_TRUE(InstallForColumnFamilies(&db_options, cfs).ok());
  test::TempDir dir;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
  ASSERT_TRUE(OpenDB(db_options, dir.path(), cfs, &handles, &db).ok());
  std::mt19937 rng(5);
  std::vector<int> order(200000);
  for (int i = 0; i < 200000; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  const std::string value(48, 'v');
  // Flushed and settled every 4,000 keys (under a memtable): a load that
  // compactions keep up with, whatever the machine's speed.
  for (size_t n = 0; n < order.size(); ++n) {
    for (size_t cf = 1; cf < handles.size(); ++cf) {
      ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), handles[cf],
                          Key(order[n]), value)
                      .ok());
    }
    if (n % 4000 != 3999 && n + 1 != order.size()) continue;
    for (size_t cf = 1; cf < handles.size(); ++cf) {
      ASSERT_TRUE(
          db->Flush(ROCKSDB_NAMESPACE::FlushOptions(), handles[cf]).ok());
    }
    WaitForAllCompactions(db.get(), handles);
  }
  printf(
      "realized bits per filter entry, cf5 monkey:5: %.3f, cf12 "
      "monkey:12: %.3f\n",
      test::RealizedBitsPerFilterEntry(db.get(), handles[1]),
      test::RealizedBitsPerFilterEntry(db.get(), handles[2]));
  EXPECT_NEAR(test::RealizedBitsPerFilterEntry(db.get(), handles[1]), 5.0,
              0.05 * 5.0);
  EXPECT_NEAR(test::RealizedBitsPerFilterEntry(db.get(), handles[2]), 12.0,
              0.05 * 12.0);
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
}

// The first flush of an empty column family is planned as the run it is
// about to make, from the live shape: not from the static plan, which gives
// an L0 file 6x the budget in a 7-level tree.
TEST(ShapeListenerTest, FirstFlushIsPlannedFromTheLiveShape) {
  test::TempDir dir;
  auto db = test::OpenOrDie(YoungTreeOptions("monkey:8"), dir.path());
  const std::string value(48, 'v');
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), value).ok());
  }
  ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  // Small filters round up to whole cache lines: a little over 8.
  EXPECT_NEAR(test::RealizedBitsPerFilterEntry(db.get()), 8.0, 0.5);
}

// DB::Open replays an unflushed WAL into an L0 file before any listener
// hears of the DB: that file gets the budget, not the static plan's L0.
TEST(ShapeListenerTest, TheFlushOfAReplayedWalGetsTheBudget) {
  test::TempDir dir;
  {
    auto db = test::OpenOrDie(YoungTreeOptions("monkey:8"), dir.path());
    const std::string value(48, 'v');
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(
          db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), value).ok());
    }
    ASSERT_EQ(test::RealizedBitsPerFilterEntry(db.get()),
              0);  // still in the memtable
  }
  auto db = test::OpenOrDie(YoungTreeOptions("monkey:8"), dir.path());
  EXPECT_NEAR(test::RealizedBitsPerFilterEntry(db.get()), 8.0, 0.5);
}

TEST(ShapeListenerTest, InstallAddsTheListenerOnlyForLiveMonkey) {
  auto count = [](const std::string& uri) {
    ROCKSDB_NAMESPACE::Options options;
    EXPECT_TRUE(Install(uri, &options).ok()) << uri;
    int n = 0;
    for (const auto& l : options.listeners) {
      n += l->CheckedCast<ShapeListener>() != nullptr;
    }
    return n;
  };
  EXPECT_EQ(count("monkey:7"), 1);
  EXPECT_EQ(count("id=monkey;shape=static"), 0);
  EXPECT_EQ(count("bloomfilter:10"), 0);
}

// A DB whose live files are whatever the test says, to drive the listener's
// callbacks directly.
class FakeFilesDB : public ROCKSDB_NAMESPACE::StackableDB {
 public:
  explicit FakeFilesDB(ROCKSDB_NAMESPACE::DB* db) : StackableDB(db) {}
  void GetLiveFilesMetaData(
      std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData>* files) override {
    ++reads;
    *files = files_;
  }
  int reads = 0;  // of the live files: the listener's refreshes
  // Reads of the files' table properties, which open and read SSTs.
  int property_reads = 0;
  using StackableDB::GetPropertiesOfAllTables;
  ROCKSDB_NAMESPACE::Status GetPropertiesOfAllTables(
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      ROCKSDB_NAMESPACE::TablePropertiesCollection* props) override {
    ++property_reads;
    return StackableDB::GetPropertiesOfAllTables(column_family, props);
  }
  void AddFile(uint64_t number, int level, uint64_t entries,
               const std::string& smallest = "",
               const std::string& largest = "",
               const std::string& column_family = "default") {
    ROCKSDB_NAMESPACE::LiveFileMetaData f;
    f.smallestkey = smallest;
    f.largestkey = largest;
    f.file_number = number;
    f.name = "/" + std::to_string(number) + ".sst";
    f.column_family_name = column_family;
    f.level = level;
    f.num_entries = entries;
    files_.push_back(f);
  }
  void Clear() { files_.clear(); }
  // What rocksdb.num-immutable-mem-table says: memtables not yet flushed.
  uint64_t immutable_memtables = 0;
  // Integer properties read: RocksDB takes the DB mutex for the memtable
  // ones the listener reads.
  int int_property_reads = 0;
  using StackableDB::GetIntProperty;
  bool GetIntProperty(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                      const ROCKSDB_NAMESPACE::Slice& property,
                      uint64_t* value) override {
    ++int_property_reads;
    if (property == ROCKSDB_NAMESPACE::DB::Properties::kNumImmutableMemTable) {
      *value = immutable_memtables;
      return true;
    }
    return StackableDB::GetIntProperty(column_family, property, value);
  }

 private:
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files_;
};

// A listener feeding a fresh "monkey:10" policy from a FakeFilesDB.
class ListenerTest : public ::testing::Test {
 protected:
  ListenerTest()
      : db_(test::OpenOrDie(Options(), dir_.path()).release()),
        policy_(test::PolicyOrDie("monkey:10")),
        monkey_(policy_->CheckedCast<MonkeyFilterPolicy>()),
        listener_(std::shared_ptr<const MonkeyFilterPolicy>(policy_, monkey_)) {
  }
  static ROCKSDB_NAMESPACE::Options Options() {
    ROCKSDB_NAMESPACE::Options options;
    options.create_if_missing = true;
    return options;
  }
  // What the policy builds at `level` once the planner has caught up.
  int Millibits(int level) {
    listener_.WaitForPlans();
    return monkey_->MillibitsForLevel(level, 7, "default");
  }
  // A job begun and done, then the planner caught up, so that the plans
  // counted do not depend on how the planner's thread was scheduled.
  void BeginAndComplete(ROCKSDB_NAMESPACE::CompactionJobInfo* info) {
    listener_.OnCompactionBegin(&db_, *info);
    listener_.WaitForPlans();
    listener_.OnCompactionCompleted(&db_, *info);
    listener_.WaitForPlans();
  }

  test::TempDir dir_;
  FakeFilesDB db_;
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy_;
  const MonkeyFilterPolicy* monkey_;
  ShapeListener listener_;
};

// What the policy plans for a tree of these (entries, runs) levels.
int PlannedMillibits(const std::vector<LiveLevel>& levels, int level) {
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy =
      test::PolicyOrDie("monkey:10");
  const auto* monkey = policy->CheckedCast<MonkeyFilterPolicy>();
  MonkeyFilterPolicyPeer::UpdateLiveShape(*monkey, "default", levels);
  return monkey->MillibitsForLevel(level, 7, "default");
}

// A compaction is planned for the tree it is about to make: its inputs
// already count at the output level, even where that level is still empty.
TEST_F(ListenerTest, CompactionsAreProjectedOntoTheShape) {
  db_.AddFile(7, 0, 1000);
  db_.AddFile(8, 0, 1000);
  db_.AddFile(9, 1, 5000);
  db_.AddFile(10, 3, 50000);
  listener_.Refresh(&db_);
  EXPECT_EQ(Millibits(1),
            PlannedMillibits({{2000, 2}, {5000, 1}, {0, 0}, {50000, 1}}, 1));
  // L2 is empty: a job no listener hears of (CompactFiles) writing there
  // plans it as the level above L3, a tenth of L3's keys -- as large as L1,
  // which holds L0's keys too, so at least L1's bits.
  EXPECT_GE(Millibits(2), Millibits(1));
  EXPECT_GT(Millibits(2), 10000);

  ROCKSDB_NAMESPACE::CompactionJobInfo l1_to_l2;
  l1_to_l2.job_id = 1;
  l1_to_l2.cf_name = "default";
  l1_to_l2.output_level = 2;
  l1_to_l2.input_file_infos.push_back({1, 9, 0});
  listener_.OnCompactionBegin(&db_, l1_to_l2);
  const int l2 = Millibits(2);
  EXPECT_EQ(l2,
            PlannedMillibits({{2000, 2}, {0, 0}, {5000, 1}, {50000, 1}}, 2));
  EXPECT_GT(l2, 10000);  // a level a tenth the size of the last

  // An L0->L0 compaction merges two runs into one.
  ROCKSDB_NAMESPACE::CompactionJobInfo l0_to_l0;
  l0_to_l0.job_id = 2;
  l0_to_l0.cf_name = "default";
  l0_to_l0.output_level = 0;
  l0_to_l0.input_file_infos = {{0, 7, 0}, {0, 8, 0}};
  const int two_runs = Millibits(0);
  listener_.OnCompactionBegin(&db_, l0_to_l0);
  EXPECT_EQ(Millibits(0),
            PlannedMillibits({{2000, 1}, {0, 0}, {5000, 1}, {50000, 1}}, 0));
  EXPECT_LT(Millibits(0), two_runs);

  // A job that failed leaves the projection: its inputs stayed put.
  ROCKSDB_NAMESPACE::CompactionJobInfo failed = l1_to_l2;
  failed.status = ROCKSDB_NAMESPACE::Status::Aborted();
  listener_.OnCompactionCompleted(&db_, failed);
  const std::vector<LiveLevel> merged_l0 = {
      {2000, 1}, {5000, 1}, {0, 0}, {50000, 1}};
  EXPECT_EQ(Millibits(0), PlannedMillibits(merged_l0, 0));
  EXPECT_EQ(Millibits(1), PlannedMillibits(merged_l0, 1));

  // A job done made the tree it was projected to make: L0's two files are
  // now one.
  db_.Clear();
  db_.AddFile(11, 0, 2000);
  db_.AddFile(9, 1, 5000);
  db_.AddFile(10, 3, 50000);
  l0_to_l0.output_file_infos = {{0, 11, 0}};
  listener_.OnCompactionCompleted(&db_, l0_to_l0);
  EXPECT_EQ(Millibits(0), PlannedMillibits(merged_l0, 0));
  EXPECT_EQ(Millibits(1), PlannedMillibits(merged_l0, 1));
  listener_.Refresh(&db_);
  EXPECT_EQ(Millibits(0), PlannedMillibits(merged_l0, 0));
  EXPECT_EQ(Millibits(1), PlannedMillibits(merged_l0, 1));
}

// `count` files of `level`, numbered from `first`.
std::vector<std::pair<int, uint64_t>> Files(int level, uint64_t first,
                                            int count) {
  std::vector<std::pair<int, uint64_t>> files;
  for (int i = 0; i < count; ++i) files.push_back({level, first + i});
  return files;
}

// A compaction of `inputs` (level, file number), of `entries` keys each,
// into `output_level`, as RocksDB reports it when it begins: inputs by
// path, with their table properties, and as their "level" the index of
// their level in the compaction (0: the base input level, 1: the output
// level), which is what RocksDB 7.8.3 to 11.x put there.
ROCKSDB_NAMESPACE::CompactionJobInfo Compaction(
    int job_id, int output_level,
    const std::vector<std::pair<int, uint64_t>>& inputs, uint64_t entries) {
  ROCKSDB_NAMESPACE::CompactionJobInfo job;
  job.job_id = job_id;
  job.cf_name = "default";
  job.output_level = output_level;
  job.base_input_level = inputs.empty() ? 0 : inputs.front().first;
  for (const auto& [level, number] : inputs) {
    const std::string path = "/" + std::to_string(number) + ".sst";
    job.input_files.push_back(path);
    job.input_file_infos.push_back({level == output_level ? 1 : 0, number, 0});
    auto props = std::make_shared<ROCKSDB_NAMESPACE::TableProperties>();
    props->num_entries = entries;
    job.table_properties[path] = props;
  }
  return job;
}

// A compaction's outputs, as RocksDB reports them when it is done: here the
// inputs themselves at the output level (the same files, as a trivial move
// leaves them; their keys and ranges stay the events' own).
void OutputsAreInputs(ROCKSDB_NAMESPACE::CompactionJobInfo* info) {
  for (const auto& input : info->input_file_infos) {
    info->output_file_infos.push_back(
        {info->output_level, input.file_number, 0});
  }
}

// The tree is read once, and each job then changes only the files its
// events name. A plan projects every live file, so it is not made for every
// job: a tree of small files runs many jobs, each moving a sliver of it,
// and those wait for the next plan; a job done needs none, while a job that
// moves much of a level is planned for at once.
TEST_F(ListenerTest, SmallJobsWaitForTheNextPlan) {
  for (uint64_t n = 1; n <= 20; ++n) db_.AddFile(n, 4, 1000);
  for (uint64_t n = 101; n <= 200; ++n) db_.AddFile(n, 5, 1000);
  for (uint64_t n = 1001; n <= 2000; ++n) db_.AddFile(n, 6, 1000);
  listener_.Refresh(&db_);
  ASSERT_EQ(db_.reads, 1);
  ASSERT_EQ(listener_.plans(), 1u);
  // 40 jobs of one L5 file and ten L6 files each: k of them drift the
  // tree by sqrt(k^2 (1000^2 / 100000 + 11000^2 / 1000000) / 1120000),
  // past 0.1 at k = 10 (and again 10 jobs after each plan, L5 and L6
  // having moved by a few percent): one plan every 10 jobs rather than
  // one read of the tree and one plan per job.
  for (int job = 0; job < 40; ++job) {
    std::vector<std::pair<int, uint64_t>> inputs = Files(5, 101 + job, 1);
    for (const auto& f : Files(6, 1001 + 10 * job, 10)) inputs.push_back(f);
    auto info = Compaction(job, 6, inputs, 1000);
    OutputsAreInputs(&info);
    BeginAndComplete(&info);
  }
  EXPECT_EQ(listener_.plans(), 1u + 40 / 10);
  // A job taking half of L5 is planned for at once; a failed one again.
  uint64_t plans = listener_.plans();
  auto half = Compaction(100, 6, Files(5, 151, 50), 1000);
  listener_.OnCompactionBegin(&db_, half);
  listener_.WaitForPlans();
  EXPECT_EQ(listener_.plans(), ++plans);
  half.status = ROCKSDB_NAMESPACE::Status::Aborted();
  listener_.OnCompactionCompleted(&db_, half);
  listener_.WaitForPlans();
  EXPECT_EQ(listener_.plans(), ++plans);
  // A trivial move of all of L4 into L5 is planned for when it begins, as
  // any job moving that much; done, it waits like any other (its files
  // keep the filters they were built with, which the tree keeps too).
  auto moved = Compaction(101, 5, Files(4, 1, 20), 1000);
  listener_.OnCompactionBegin(&db_, moved);
  listener_.WaitForPlans();
  EXPECT_EQ(listener_.plans(), ++plans);
  OutputsAreInputs(&moved);
  listener_.OnCompactionCompleted(&db_, moved);
  listener_.WaitForPlans();
  EXPECT_EQ(listener_.plans(), plans);
  // A job whose keys are unknown is planned for at once.
  auto unknown = Compaction(102, 6, Files(5, 151, 1), 1000);
  unknown.table_properties.clear();
  listener_.OnCompactionBegin(&db_, unknown);
  listener_.WaitForPlans();
  EXPECT_EQ(listener_.plans(), ++plans);
  // None of it read the tree again.
  EXPECT_EQ(db_.reads, 1);
  EXPECT_EQ(listener_.full_reads(), 1u);
}

// A sequential load moves nearly every file down whole: one trivial move
// per flush. Each moves a sliver of the tree, and waits for the next plan
// like any small job (planning at each move's completion ran the deep
// preset's fillseq at 0.81x Bloom's rate).
TEST_F(ListenerTest, TrivialMovesWaitForTheNextPlan) {
  for (uint64_t n = 101; n <= 200; ++n) db_.AddFile(n, 5, 1000);
  for (uint64_t n = 1001; n <= 2000; ++n) db_.AddFile(n, 6, 1000);
  listener_.Refresh(&db_);
  ASSERT_EQ(listener_.plans(), 1u);
  // 40 moves of one L5 file into L6: k of them drift the tree by
  // sqrt(k^2 (1000^2 / 100000 + 1000^2 / 1000000) / 1100000), past 0.1 at
  // k = 32: one plan in 40 moves, where each move's completion was one.
  for (int job = 0; job < 40; ++job) {
    auto info = Compaction(job, 6, Files(5, 101 + job, 1), 1000);
    OutputsAreInputs(&info);
    BeginAndComplete(&info);
  }
  EXPECT_EQ(listener_.plans(), 1u + 1);
  EXPECT_EQ(db_.reads, 1);
}

// One atomic flush (atomic_flush=true) is one job id for every column
// family it flushes, each with its own OnFlushBegin: keyed by job id alone,
// the second replaced the first, and its column family was planned one L0
// run short (RocksDB 9.10.0 db_stress).
TEST_F(ListenerTest, AnAtomicFlushProjectsARunInEachColumnFamily) {
  db_.AddFile(9, 1, 5000);
  db_.AddFile(10, 1, 5000, "", "", "one");
  db_.immutable_memtables = 1;
  ROCKSDB_NAMESPACE::FlushJobInfo one;
  one.cf_name = "one";
  one.cf_id = 1;
  one.job_id = 3;
  one.table_properties.num_entries = 1000;
  listener_.OnFlushCompleted(&db_, one);  // its flushes hold 1000 keys
  ROCKSDB_NAMESPACE::FlushJobInfo both = one;
  both.job_id = 4;
  listener_.OnFlushBegin(&db_, both);
  both.cf_name = "default";
  both.cf_id = 0;
  listener_.OnFlushBegin(&db_, both);
  listener_.Refresh(&db_);
  for (const std::string cf : {"one", "default"}) {
    const std::vector<LiveLevel> shape =
        MonkeyFilterPolicyPeer::LiveShapeOf(*monkey_, cf);
    ASSERT_FALSE(shape.empty()) << cf;
    EXPECT_EQ(shape[0].runs, 1) << cf;
  }
  EXPECT_EQ(MonkeyFilterPolicyPeer::LiveShapeOf(*monkey_, "one")[0].entries,
            1000);
}

// RocksDB tags a flush or compaction thread's reads as the job's, and
// db_stress (9.11) asserts every read matches: the listener read the live
// files' table properties from the first job's callback, and aborted it.
// Only Refresh, called from an engine's thread, reads them.
TEST_F(ListenerTest, JobsReadNoTableFiles) {
  db_.AddFile(9, 1, 5000);
  db_.AddFile(10, 6, 50000);
  ROCKSDB_NAMESPACE::FlushJobInfo flush;
  flush.cf_name = "default";
  flush.job_id = 1;
  listener_.OnFlushBegin(&db_, flush);
  auto compaction = Compaction(2, 6, {{1, 9}, {6, 10}}, 5000);
  listener_.OnCompactionBegin(&db_, compaction);
  compaction.status = ROCKSDB_NAMESPACE::Status::Aborted();
  listener_.OnCompactionCompleted(&db_, compaction);
  listener_.WaitForPlans();
  EXPECT_EQ(db_.reads, 1);  // the first job read the tree
  EXPECT_EQ(db_.property_reads, 0);
  listener_.Refresh(&db_);
  EXPECT_EQ(db_.property_reads, 1);  // seeds the filters built before it
  listener_.Refresh(&db_);
  EXPECT_EQ(db_.property_reads, 1);
}

// A callback runs on the job's thread, and RocksDB reads the memtable
// properties under the DB mutex, for which writers and other jobs contend;
// the listener read one at every flush's and compaction's start. A flush is
// sized from the flush before it; only the first reads the memtables. A
// compaction's start reads the immutable memtables only while a flush is in
// flight, which it may have to commit.
TEST_F(ListenerTest, CallbacksReadTheMemtablesOnlyWhenTheyMust) {
  db_.AddFile(10, 6, 50000);
  ROCKSDB_NAMESPACE::FlushJobInfo flush;
  flush.cf_name = "default";
  flush.cf_id = 0;
  flush.job_id = 1;
  listener_.OnFlushBegin(&db_, flush);
  EXPECT_EQ(db_.int_property_reads, 1);  // no flush before it
  flush.table_properties.num_entries = 1000;
  listener_.OnFlushCompleted(&db_, flush);
  db_.int_property_reads = 0;
  flush.job_id = 2;
  listener_.OnFlushBegin(&db_, flush);
  listener_.OnFlushCompleted(&db_, flush);
  auto compaction = Compaction(3, 6, {{6, 10}}, 50000);
  listener_.OnCompactionBegin(&db_, compaction);
  OutputsAreInputs(&compaction);
  listener_.OnCompactionCompleted(&db_, compaction);
  EXPECT_EQ(db_.int_property_reads, 0);
  flush.job_id = 4;
  listener_.OnFlushBegin(&db_, flush);
  compaction.job_id = 5;
  listener_.OnCompactionBegin(&db_, compaction);
  EXPECT_EQ(db_.int_property_reads, 1);  // the flush may have committed
  listener_.WaitForPlans();
}

#if defined(__linux__)
// The planner's thread, by its name among the process's tasks, runs at
// the lowest CPU priority: where writers and jobs keep the cores busy,
// plans wait for them.
TEST_F(ListenerTest, ThePlannerRunsAtTheLowestPriority) {
  ROCKSDB_NAMESPACE::FlushJobInfo flush;
  flush.cf_name = "default";
  flush.job_id = 1;
  listener_.OnFlushBegin(&db_, flush);  // the first flush asks for a plan
  listener_.WaitForPlans();
  ASSERT_GE(listener_.plans(), 1u);
  int found = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    const std::string task = entry.path().filename();
    std::ifstream comm("/proc/self/task/" + task + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name != ShapeListener::kPlannerThreadName) continue;
    ++found;
    // /proc/<pid>/task/<tid>/stat: the 19th field is the nice value, after
    // a name in parentheses that may hold spaces.
    std::ifstream stat_file("/proc/self/task/" + task + "/stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)),
                     std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19; ++i) fields >> field;
    EXPECT_EQ(std::stoi(field), ShapeListener::kPlannerNice);
  }
  EXPECT_EQ(found, 1);
}
#endif

// DB::Flush() may return before the flush's OnFlushCompleted has run (see
// FprCheckTreeTest.LateFlushCallbacksChangeNothing). A flush whose memtable
// is no longer immutable has committed, and its file is live: it is not
// projected as one more L0 run on top of that file.
TEST_F(ListenerTest, ACommittedFlushIsNotProjectedAgain) {
  db_.AddFile(7, 0, 1000);
  db_.AddFile(10, 3, 50000);
  ROCKSDB_NAMESPACE::FlushJobInfo flush;
  flush.job_id = 3;
  flush.cf_id = 0;
  flush.cf_name = "default";
  db_.immutable_memtables = 1;  // the memtable being flushed
  listener_.OnFlushBegin(&db_, flush);
  const int in_flight = Millibits(0);
  // In flight, still projected (another refresh changes nothing).
  listener_.Refresh(&db_);
  EXPECT_EQ(Millibits(0), in_flight);
  // Committed; its OnFlushCompleted has not run yet.
  db_.AddFile(11, 0, 1000);
  db_.immutable_memtables = 0;
  listener_.Refresh(&db_);
  const std::vector<LiveLevel> committed = {
      {2000, 2}, {0, 0}, {0, 0}, {50000, 1}};
  EXPECT_EQ(Millibits(0), PlannedMillibits(committed, 0));
  EXPECT_EQ(Millibits(3), PlannedMillibits(committed, 3));
  // The late callback changes nothing.
  listener_.OnFlushCompleted(&db_, flush);
  EXPECT_EQ(Millibits(0), PlannedMillibits(committed, 0));
  EXPECT_EQ(Millibits(3), PlannedMillibits(committed, 3));
}

// Each run is weighted by the share of the tree's keys inside its range:
// an L0 file that covers a tenth of the key space, as under sequential
// keys, is planned like the level it sits beside, while one that spans the
// whole key space is a small run probed by every lookup.
TEST_F(ListenerTest, RunsArePlannedByTheirReach) {
  db_.AddFile(7, 0, 1000, Key(0), Key(99999));
  db_.AddFile(8, 1, 9000, Key(0), Key(99999));
  db_.AddFile(9, 2, 90000, Key(0), Key(99999));
  listener_.Refresh(&db_);
  const int spanning = Millibits(0);
  EXPECT_GT(spanning, Millibits(1));
  db_.Clear();
  // Sequential keys: every file holds its own stretch.
  db_.AddFile(7, 0, 1000, Key(99000), Key(99999));
  db_.AddFile(8, 1, 9000, Key(90000), Key(98999));
  db_.AddFile(9, 2, 90000, Key(0), Key(89999));
  listener_.Refresh(&db_);
  EXPECT_LT(Millibits(0), spanning);
  EXPECT_NEAR(Millibits(0), Millibits(2), 200);
  EXPECT_NEAR(Millibits(1), Millibits(2), 200);
}

// With max_open_files limited, RocksDB loads the entry counts of only 20
// files when it opens a DB (the rest read 0); the listener must still see
// every level's keys after a reopen.
TEST(ShapeListenerTest, SeesTheWholeShapeAfterReopen) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = YoungTreeOptions("monkey:10");
  options.target_file_size_base = 32 << 10;  // many files
  {
    auto db = test::OpenOrDie(options, dir.path());
    std::mt19937 rng(9);
    Load(db.get(), 0, 100000, &rng);
  }
  options = YoungTreeOptions("monkey:10");  // a fresh policy and listener
  options.max_open_files = 20;
  auto db = test::OpenOrDie(options, dir.path());
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  ASSERT_GT(files.size(), 40u);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  std::map<int, double> entries;
  int unloaded = 0;
  for (const auto& f : files) {
    unloaded += f.num_entries == 0;
    entries[f.level] += props.at(f.db_path + f.name)->num_entries;
  }
  ASSERT_GT(unloaded, 0) << "the reopen must leave entry counts unloaded";
  RefreshShape(db.get());
  const auto* monkey =
      options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
          ->filter_policy->CheckedCast<MonkeyFilterPolicy>();
  const std::vector<LiveLevel> shape =
      MonkeyFilterPolicyPeer::LiveShapeOf(*monkey, "default");
  for (const auto& [level, n] : entries) {
    ASSERT_LT(static_cast<size_t>(level), shape.size());
    EXPECT_EQ(shape[level].entries, n) << "L" << level;
  }
}

// The listener tells the plan how RocksDB sizes the default column
// family's levels, in keys at the tree's bytes per key, so that it can see
// where a backlog drains (util/level_sizing.h). Other column families'
// options are out of a DB*'s reach: their sizing stays unknown.
TEST(ShapeListenerTest, PublishesTheDefaultColumnFamilysLevelSizing) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = test::SmallTreeOptions(
      /*write_buffer_kib=*/256, /*target_file_kib=*/128,
      /*level_base_kib=*/512, /*dynamic_level_bytes=*/true);
  options.num_levels = 6;
  options.max_bytes_for_level_multiplier = 8;
  options.create_missing_column_families = true;
  ASSERT_TRUE(Install("monkey:8", &options).ok());
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> families = {
      {ROCKSDB_NAMESPACE::kDefaultColumnFamilyName, options},
      {"other", options}};
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, dir.path(), families, &handles, &db).ok());
  const std::string value(48, 'v');
  for (auto* handle : handles) {
    for (int i = 0; i < 20000; ++i) {
      ASSERT_TRUE(
          db->Put(ROCKSDB_NAMESPACE::WriteOptions(), handle, Key(i), value)
              .ok());
    }
    ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions(), handle).ok());
  }
  RefreshShape(db.get());
  const auto* monkey =
      options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
          ->filter_policy->CheckedCast<MonkeyFilterPolicy>();
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  double bytes = 0, entries = 0;
  for (const auto& f : files) {
    if (f.column_family_name != ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) {
      continue;
    }
    bytes += static_cast<double>(f.size);
    entries += static_cast<double>(f.num_entries);
  }
  ASSERT_GT(entries, 0);
  const LevelSizing sizing = MonkeyFilterPolicyPeer::LiveSizingOf(
      *monkey, ROCKSDB_NAMESPACE::kDefaultColumnFamilyName);
  ASSERT_TRUE(sizing.known());
  EXPECT_TRUE(sizing.dynamic);
  EXPECT_EQ(sizing.num_levels, 6);
  EXPECT_EQ(sizing.multiplier, 8);
  EXPECT_NEAR(sizing.base_level_entries, (512 << 10) * entries / bytes, 1e-6);
  EXPECT_FALSE(MonkeyFilterPolicyPeer::LiveSizingOf(*monkey, "other").known());
  EXPECT_FALSE(MonkeyFilterPolicyPeer::LiveShapeOf(*monkey, "other").empty());
  for (auto* handle : handles) {
    ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
  }
}

// Plans replaced while filters are being planned. This one is clean under
// ThreadSanitizer (librocksdb is not instrumented, so the DB test below can
// show RocksDB's own synchronization as races there).
TEST(ShapeListenerTest, PlanUpdatesRaceSafelyWithPlanLookups) {
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy =
      test::PolicyOrDie("monkey:9");
  const auto* monkey = policy->CheckedCast<MonkeyFilterPolicy>();
  ASSERT_NE(monkey, nullptr);
  std::atomic<bool> stop{false};
  std::thread updater([&] {
    for (int i = 0; !stop; ++i) {
      std::vector<LiveLevel> levels = {
          {1000.0 * (i % 7 + 1), i % 4 + 1.0}, {20000, 1}, {200000.0 + i, 1}};
      MonkeyFilterPolicyPeer::UpdateLiveShape(*monkey, "default", levels);
      if (i % 13 == 0)
        MonkeyFilterPolicyPeer::UpdateLiveShape(*monkey, "default", {});
    }
  });
  // FilterBitsBuilder is not a public type, so the plan lookups that
  // GetBuilderWithContext makes are raced here directly; the real DB below
  // races GetBuilderWithContext itself.
  std::vector<std::thread> readers;
  std::atomic<int> lookups{0};
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        const int millibits = monkey->MillibitsForLevel(i % 3, 7, "default");
        lookups += millibits > 0 && millibits <= 48000;
        if (i % 1000 == 0) EXPECT_FALSE(monkey->PlanToString(7).empty());
      }
    });
  }
  for (auto& r : readers) r.join();
  stop = true;
  updater.join();
  EXPECT_EQ(lookups, 40000);
}

// Counts the SSTs during whose build the policy got a new live shape.
class ReplanWitness : public ROCKSDB_NAMESPACE::EventListener {
 public:
  explicit ReplanWitness(const MonkeyFilterPolicy* policy) : policy_(policy) {}
  // Runs on the job's thread before it builds the file. The first few
  // compaction outputs wait there (up to 5 s) until another job re-plans,
  // so that some builds surely overlap a re-plan, whatever the timing.
  void OnTableFileCreationStarted(
      const ROCKSDB_NAMESPACE::TableFileCreationBriefInfo& info) override {
    const uint64_t at_start = MonkeyFilterPolicyPeer::LiveUpdates(*policy_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      started_[info.file_path] = at_start;
    }
    if (info.reason !=
            ROCKSDB_NAMESPACE::TableFileCreationReason::kCompaction ||
        held_.fetch_add(1) >= 3) {
      return;
    }
    for (int i = 0; i < 5000; ++i) {
      if (MonkeyFilterPolicyPeer::LiveUpdates(*policy_) > at_start) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void OnTableFileCreated(
      const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = started_.find(info.file_path);
    if (it == started_.end()) return;
    ++files_;
    replanned_during_build_ +=
        MonkeyFilterPolicyPeer::LiveUpdates(*policy_) > it->second;
    started_.erase(it);
  }
  int files() const { return files_; }
  int replanned_during_build() const { return replanned_during_build_; }

 private:
  const MonkeyFilterPolicy* policy_;
  std::mutex mu_;
  std::map<std::string, uint64_t> started_;
  int files_ = 0;
  int replanned_during_build_ = 0;
  std::atomic<int> held_{0};
};

// And in a real DB: writers, a flush and a compaction thread, and the
// listener re-planning on every job while other jobs build filters. Every
// key is found, and plans did change under files being built.
TEST(ShapeListenerTest, FlushesAndCompactionsRePlanConcurrently) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options = YoungTreeOptions("monkey:9");
  const auto* monkey =
      options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
          ->filter_policy->CheckedCast<MonkeyFilterPolicy>();
  ASSERT_NE(monkey, nullptr);
  auto witness = std::make_shared<ReplanWitness>(monkey);
  options.listeners.push_back(witness);
  auto db = test::OpenOrDie(options, dir.path());
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < 60000; i += 2) {
        ASSERT_TRUE(
            db->Put(ROCKSDB_NAMESPACE::WriteOptions(), Key(i), "v").ok());
      }
    });
  }
  for (auto& w : writers) w.join();
  test::WaitForCompactions(db.get());
  std::string value;
  for (int i = 0; i < 60000; ++i) {
    ASSERT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(), Key(i), &value).ok())
        << i;
  }
  EXPECT_GT(witness->files(), 10);
  EXPECT_GT(witness->replanned_during_build(), 0)
      << "no plan changed while a file was being built";
}

}  // namespace
}  // namespace monkey
