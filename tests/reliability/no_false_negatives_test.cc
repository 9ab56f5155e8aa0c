// The promise that outranks every other: a filter never hides a key that
// exists. A matrix of filter policies and RocksDB settings, each loading its
// own distinct keys by every path that builds a filter (flush, compaction,
// trivial move, SstFileWriter plus ingestion), then reading every key back
// with Get, MultiGet and (with a prefix extractor) a prefix Seek, before and
// after reopening the DB. Each case also checks that every write path really
// left files behind and that its filters really answered absent lookups, so
// a case cannot pass by testing nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/reliability/creation_level.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"

namespace monkey {
namespace {

using test::Key;

// The filter policies of the matrix. Adding one is one line here.
struct FilterCase {
  const char* name;
  const char* uri;
  bool monkey;  // last level off is last_level_filter=false, not
                // optimize_filters_for_hits
};
constexpr FilterCase kFilters[] = {
    {"bloom", "bloomfilter:10", false},
    {"ribbon", "ribbonfilter:10", false},
    {"monkey_static", "id=monkey;bits_per_key=7;shape=static", true},
    {"monkey_live", "id=monkey;bits_per_key=7;shape=live", true},
    {"monkey_ribbon", "id=monkey;bits_per_key=7;filter=ribbon", true},
    {"monkey_auto", "id=monkey;bits_per_key=7;filter=auto", true},
};

enum class Prefix { kNone, kWithWholeKey, kPrefixOnly };

using Config =
    std::tuple<int /*filter*/, bool /*last_level_filter*/,
               bool /*dynamic_level_bytes*/, bool /*partitioned*/, Prefix>;

// Keys per case; the matrix below holds 6 * 2 * 2 * 2 * 3 = 144 cases.
constexpr int kKeysPerCase = 8000;
constexpr int kCases = std::size(kFilters) * 2 * 2 * 2 * 3;

// The prefix extractor takes "k" and the first 12 of 15 digits, so a prefix
// covers 1000 consecutive key numbers. Present keys fill the even groups of
// 1000, absent probes the odd ones: a prefix-only filter can answer those.
constexpr int kPrefixLength = 13;
constexpr uint64_t kGroup = 1000;

std::string PresentKey(uint64_t base, uint64_t i) {
  return Key(base + (i / kGroup) * 2 * kGroup + i % kGroup);
}
std::string AbsentKey(uint64_t base, uint64_t i) {
  return Key(base + (i / kGroup) * 2 * kGroup + kGroup + i % kGroup);
}

std::string Name(const ::testing::TestParamInfo<Config>& info) {
  const auto& [filter, llf, dynamic, partitioned, prefix] = info.param;
  static const char* kPrefixNames[] = {"noprefix", "prefix_wholekey",
                                       "prefix_only"};
  return std::string(kFilters[filter].name) +
         (llf ? "_lastfilter" : "_nolast") +
         (dynamic ? "_dynamic" : "_static_sizes") +
         (partitioned ? "_partitioned" : "_full") + "_" +
         kPrefixNames[static_cast<int>(prefix)];
}

class NoFalseNegativesTest : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    const auto& [filter, llf, dynamic, partitioned, prefix] = GetParam();
    filter_ = kFilters[filter];
    prefix_ = prefix;
    // Every case has its own key numbers, so the matrix checks
    // kCases * kKeysPerCase distinct keys.
    base_ = static_cast<uint64_t>(CaseIndex()) * 2 * kKeysPerCase;

    options_ = test::SmallTreeOptions(/*write_buffer_kib=*/64,
                                      /*target_file_kib=*/64,
                                      /*level_base_kib=*/256, dynamic);
    options_.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
    options_.table_properties_collector_factories.push_back(
        std::make_shared<test::CreationLevelCollectorFactory>());
    if (prefix != Prefix::kNone) {
      options_.prefix_extractor.reset(
          ROCKSDB_NAMESPACE::NewFixedPrefixTransform(kPrefixLength));
    }
    ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
    table.whole_key_filtering = prefix != Prefix::kPrefixOnly;
    if (partitioned) {
      table.partition_filters = true;
      table.index_type =
          ROCKSDB_NAMESPACE::BlockBasedTableOptions::kTwoLevelIndexSearch;
      table.metadata_block_size = 512;  // several partitions per file
    }
    options_.table_factory.reset(
        ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
    std::string uri = filter_.uri;
    if (!llf) {
      if (filter_.monkey) {
        uri += ";last_level_filter=false";
      } else {
        options_.optimize_filters_for_hits = true;
      }
    }
    const ROCKSDB_NAMESPACE::Status s = Install(uri, &options_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // A number unique to this case of the matrix.
  int CaseIndex() const {
    const auto& [filter, llf, dynamic, partitioned, prefix] = GetParam();
    return (((filter * 2 + llf) * 2 + dynamic) * 2 + partitioned) * 3 +
           static_cast<int>(prefix);
  }

  void Open() {
    const ROCKSDB_NAMESPACE::Status s = OpenDB(options_, dir_.path(), &db_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    // A live-shape policy plans from this tree at once.
    RefreshShape(db_.get());
  }

  void Put(uint64_t i) {
    ASSERT_TRUE(db_->Put(ROCKSDB_NAMESPACE::WriteOptions(),
                         PresentKey(base_, i), Value(i))
                    .ok());
  }
  static std::string Value(uint64_t i) {
    return std::string(100, static_cast<char>('a' + i % 26));
  }

  // Keys [0, 70%): random order under automatic flushes and compactions.
  void LoadByFlushAndCompaction(int end) {
    std::vector<int> order(end);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(CaseIndex()));
    for (int i : order) ASSERT_NO_FATAL_FAILURE(Put(i));
    ASSERT_NO_FATAL_FAILURE(test::WaitForCompactions(db_.get()));
  }

  // Keys above everything else, in order, then a manual compaction of just
  // that range: the files do not overlap anything, so RocksDB moves them down
  // without rewriting them.
  void LoadByTrivialMove(int begin, int end) {
    for (int i = begin; i < end; ++i) ASSERT_NO_FATAL_FAILURE(Put(i));
    ASSERT_NO_FATAL_FAILURE(test::WaitForCompactions(db_.get()));
    const std::string first = PresentKey(base_, begin);
    const std::string last = PresentKey(base_, end - 1);
    const ROCKSDB_NAMESPACE::Slice from(first), to(last);
    ASSERT_TRUE(
        db_->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(), &from, &to)
            .ok());
  }

  void LoadByIngestion(int begin, int end) {
    ROCKSDB_NAMESPACE::SstFileWriter writer(ROCKSDB_NAMESPACE::EnvOptions(),
                                            options_);
    const std::string sst = dir_.Sub("ingest.sst");
    ASSERT_TRUE(writer.Open(sst).ok());
    for (int i = begin; i < end; ++i) {
      ASSERT_TRUE(writer.Put(PresentKey(base_, i), Value(i)).ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
    const ROCKSDB_NAMESPACE::Status s = db_->IngestExternalFile(
        {sst}, ROCKSDB_NAMESPACE::IngestExternalFileOptions());
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // The last keys stay in L0 flush files: automatic compaction is off.
  void LoadByFlushOnly(int begin, int end) {
    ASSERT_TRUE(db_->SetOptions({{"disable_auto_compactions", "true"}}).ok());
    for (int i = begin; i < end; ++i) ASSERT_NO_FATAL_FAILURE(Put(i));
    ASSERT_TRUE(db_->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  }

  // Counts live files by how they were made.
  struct Origins {
    int flushed = 0;    // built by flush and still in L0
    int compacted = 0;  // built by compaction for the level they are at
    int moved = 0;      // built at a shallower level than where they are
    int ingested = 0;   // built by SstFileWriter
  };
  Origins CountOrigins() {
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    ROCKSDB_NAMESPACE::TablePropertiesCollection props;
    EXPECT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
    Origins o;
    for (const auto& f : files) {
      const auto it = props.find(f.db_path + f.name);
      if (it == props.end()) {
        ADD_FAILURE() << "no properties for " << f.name;
        continue;
      }
      const int created = test::CreationLevel(*it->second);
      if (created == -1) {
        ++o.ingested;
      } else if (created < f.level) {
        ++o.moved;
      } else if (created == 0) {
        ++o.flushed;
      } else {
        ++o.compacted;
      }
    }
    return o;
  }

  // Reads every key back by Get, MultiGet and prefix Seek; returns how many
  // reads missed (or returned the wrong value).
  int CountMissing() {
    int missing = 0;
    std::string value;
    for (int i = 0; i < kKeysPerCase; ++i) {
      const ROCKSDB_NAMESPACE::Status s = db_->Get(
          ROCKSDB_NAMESPACE::ReadOptions(), PresentKey(base_, i), &value);
      missing += !s.ok() || value != Value(i);
    }
    constexpr int kBatch = 64;
    for (int begin = 0; begin < kKeysPerCase; begin += kBatch) {
      const int end = std::min(begin + kBatch, kKeysPerCase);
      std::vector<std::string> keys;
      for (int i = begin; i < end; ++i) keys.push_back(PresentKey(base_, i));
      std::vector<ROCKSDB_NAMESPACE::Slice> slices(keys.begin(), keys.end());
      std::vector<std::string> values;
      const std::vector<ROCKSDB_NAMESPACE::Status> statuses =
          db_->MultiGet(ROCKSDB_NAMESPACE::ReadOptions(), slices, &values);
      for (int i = begin; i < end; ++i) {
        missing += !statuses[i - begin].ok() || values[i - begin] != Value(i);
      }
    }
    if (prefix_ != Prefix::kNone) {
      ROCKSDB_NAMESPACE::ReadOptions ro;
      ro.prefix_same_as_start = true;
      std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db_->NewIterator(ro));
      for (int i = 0; i < kKeysPerCase; ++i) {
        const std::string key = PresentKey(base_, i);
        it->Seek(key);
        missing += !it->Valid() || it->key() != key;
      }
      EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    }
    return missing;
  }

  // Absent keys must come back NotFound; returns how often a filter said so.
  uint64_t FilterNegatives() {
    options_.statistics->Reset();
    std::string value;
    for (int i = 0; i < 2000; ++i) {
      EXPECT_TRUE(db_->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                           AbsentKey(base_, i * 5), &value)
                      .IsNotFound());
    }
    return options_.statistics->getTickerCount(
               ROCKSDB_NAMESPACE::BLOOM_FILTER_USEFUL) +
           options_.statistics->getTickerCount(
               ROCKSDB_NAMESPACE::BLOOM_FILTER_PREFIX_USEFUL);
  }

  FilterCase filter_;
  Prefix prefix_ = Prefix::kNone;
  uint64_t base_ = 0;
  test::TempDir dir_;
  ROCKSDB_NAMESPACE::Options options_;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
};

TEST_P(NoFalseNegativesTest, EveryKeyIsFound) {
  constexpr int kCompacted = kKeysPerCase * 7 / 10;
  constexpr int kMoved = kKeysPerCase * 8 / 10;
  constexpr int kIngested = kKeysPerCase * 9 / 10;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(LoadByFlushAndCompaction(kCompacted));
  ASSERT_NO_FATAL_FAILURE(LoadByTrivialMove(kCompacted, kMoved));
  ASSERT_NO_FATAL_FAILURE(LoadByIngestion(kMoved, kIngested));
  ASSERT_NO_FATAL_FAILURE(LoadByFlushOnly(kIngested, kKeysPerCase));

  const Origins o = CountOrigins();
  EXPECT_GT(o.flushed, 0);
  EXPECT_GT(o.compacted, 0);
  EXPECT_GT(o.moved, 0);
  EXPECT_GT(o.ingested, 0);

  EXPECT_EQ(CountMissing(), 0);
  const uint64_t negatives = FilterNegatives();
  EXPECT_GT(negatives, 0u) << "the filters were never consulted";
  std::string levels;
  db_->GetProperty("rocksdb.levelstats", &levels);
  printf(
      "%d keys; files: %d flushed, %d compacted, %d moved, %d ingested; "
      "%d filter negatives for 2000 absent keys\n%s",
      kKeysPerCase, o.flushed, o.compacted, o.moved, o.ingested,
      static_cast<int>(negatives), levels.c_str());

  db_.reset();
  options_.disable_auto_compactions = true;  // read the same tree again
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(CountMissing(), 0) << "after reopening";
  EXPECT_GT(FilterNegatives(), 0u) << "after reopening";
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, NoFalseNegativesTest,
    ::testing::Combine(::testing::Range<int>(0, std::size(kFilters)),
                       ::testing::Bool(), ::testing::Bool(), ::testing::Bool(),
                       ::testing::Values(Prefix::kNone, Prefix::kWithWholeKey,
                                         Prefix::kPrefixOnly)),
    Name);

TEST(NoFalseNegativesMatrixTest, CoversAMillionDistinctKeys) {
  EXPECT_GE(static_cast<int64_t>(kCases) * kKeysPerCase, 1000000);
}

}  // namespace
}  // namespace monkey
