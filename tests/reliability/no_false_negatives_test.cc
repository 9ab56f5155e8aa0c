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
#include <set>
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

// A case's DB, with its own key numbers, and the loads and reads every
// case of both matrices runs.
class CaseDB {
 protected:
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
    std::shuffle(order.begin(), order.end(), std::mt19937(seed_));
    for (int i : order) ASSERT_NO_FATAL_FAILURE(Put(i));
    ASSERT_NO_FATAL_FAILURE(Settle());
  }

  // Until no flush or compaction is left to run (test_util.h says why
  // tiered trees need their own wait).
  void Settle() {
    if (options_.compaction_style == ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
      test::WaitForCompactions(db_.get());
    } else {
      test::WaitForBackgroundIdle(db_.get());
    }
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
    for (int i = 0; i < keys_; ++i) {
      const ROCKSDB_NAMESPACE::Status s = db_->Get(
          ROCKSDB_NAMESPACE::ReadOptions(), PresentKey(base_, i), &value);
      missing += !s.ok() || value != Value(i);
    }
    constexpr int kBatch = 64;
    for (int begin = 0; begin < keys_; begin += kBatch) {
      const int end = std::min(begin + kBatch, keys_);
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
      for (int i = 0; i < keys_; ++i) {
        const std::string key = PresentKey(base_, i);
        it->Seek(key);
        missing += !it->Valid() || it->key() != key;
      }
      EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    }
    return missing;
  }

  // Absent keys, 2000 spread over the case's key range, must come back
  // NotFound; returns how often a filter said so.
  uint64_t FilterNegatives() {
    options_.statistics->Reset();
    std::string value;
    const int step = std::max(1, keys_ / 2000);
    for (int i = 0; i < 2000; ++i) {
      EXPECT_TRUE(db_->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                           AbsentKey(base_, i * step), &value)
                      .IsNotFound());
    }
    return options_.statistics->getTickerCount(
               ROCKSDB_NAMESPACE::BLOOM_FILTER_USEFUL) +
           options_.statistics->getTickerCount(
               ROCKSDB_NAMESPACE::BLOOM_FILTER_PREFIX_USEFUL);
  }

  // Sets the prefix extractor and the table's filter layout, then installs
  // `uri` (last_level_filter=false or optimize_filters_for_hits for !llf).
  void Configure(const FilterCase& filter, bool llf, bool partitioned,
                 Prefix prefix) {
    filter_ = filter;
    prefix_ = prefix;
    options_.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
    options_.table_properties_collector_factories.push_back(
        std::make_shared<test::CreationLevelCollectorFactory>());
    if (prefix != Prefix::kNone) {
      options_.prefix_extractor.reset(
          ROCKSDB_NAMESPACE::NewFixedPrefixTransform(kPrefixLength));
    }
    table_.whole_key_filtering = prefix != Prefix::kPrefixOnly;
    if (partitioned) {
      table_.partition_filters = true;
      table_.index_type =
          ROCKSDB_NAMESPACE::BlockBasedTableOptions::kTwoLevelIndexSearch;
      table_.metadata_block_size = 512;  // several partitions per file
    }
    llf_ = llf;
    ASSERT_NO_FATAL_FAILURE(InstallFilter(filter));
  }

  // The table with `filter`'s policy, as Configure set it up.
  void InstallFilter(const FilterCase& filter) {
    options_.table_factory.reset(
        ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table_));
    std::string uri = filter.uri;
    options_.optimize_filters_for_hits = false;
    if (!llf_) {
      if (filter.monkey) {
        uri += ";last_level_filter=false";
      } else {
        options_.optimize_filters_for_hits = true;
      }
    }
    const ROCKSDB_NAMESPACE::Status s = Install(uri, &options_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  FilterCase filter_;
  Prefix prefix_ = Prefix::kNone;
  bool llf_ = true;
  uint64_t base_ = 0;
  int keys_ = 0;  // present keys [0, keys_)
  uint32_t seed_ = 0;
  test::TempDir dir_;
  ROCKSDB_NAMESPACE::Options options_;
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table_;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
};

class NoFalseNegativesTest : public ::testing::TestWithParam<Config>,
                             protected CaseDB {
 protected:
  void SetUp() override {
    const auto& [filter, llf, dynamic, partitioned, prefix] = GetParam();
    // Every case has its own key numbers, so the matrix checks
    // kCases * kKeysPerCase distinct keys.
    base_ = static_cast<uint64_t>(CaseIndex()) * 2 * kKeysPerCase;
    keys_ = kKeysPerCase;
    seed_ = CaseIndex();
    options_ = test::SmallTreeOptions(/*write_buffer_kib=*/64,
                                      /*target_file_kib=*/64,
                                      /*level_base_kib=*/256, dynamic);
    ASSERT_NO_FATAL_FAILURE(
        Configure(kFilters[filter], llf, partitioned, prefix));
  }

  // A number unique to this case of the matrix.
  int CaseIndex() const {
    const auto& [filter, llf, dynamic, partitioned, prefix] = GetParam();
    return (((filter * 2 + llf) * 2 + dynamic) * 2 + partitioned) * 3 +
           static_cast<int>(prefix);
  }
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

// Tiered trees: universal compaction (each L0 file a sorted run, and each
// level below; num_levels=1 keeps every run in L0) and FIFO (every file a
// run), where a Monkey policy plans each run a job writes (docs/design.md
// #tiered-trees). Each case loads its keys by flush and compaction,
// ingestion and flushes alone, reads them back, reopens the DB under the
// other policy (Monkey's tree under bloomfilter:10, Bloom's under Monkey),
// reads them again, then merges the whole tree into one run under that
// policy -- a manual full merge, whose run the tiered plan gives the
// budget -- and reads them once more.
enum class Tiered { kUniversal, kUniversalOneLevel, kFifo };

constexpr FilterCase kTieredFilters[] = {
    {"bloom", "bloomfilter:10", false},
    {"monkey_live", "id=monkey;bits_per_key=7;shape=live", true},
    {"monkey_auto", "id=monkey;bits_per_key=7;filter=auto", true},
};
// What a case's DB is reopened under: Monkey's tree under Bloom, Bloom's
// under Monkey.
constexpr FilterCase kBloom = kTieredFilters[0];
constexpr FilterCase kMonkey = kTieredFilters[1];

using TieredConfig = std::tuple<int /*filter*/, Tiered, bool /*llf*/, Prefix>;

// 3 * 3 * 2 * 3 = 54 cases of 20,000 keys: 1,080,000.
constexpr int kTieredKeysPerCase = 20000;
constexpr int kTieredCases = std::size(kTieredFilters) * 3 * 2 * 3;

std::string TieredName(const ::testing::TestParamInfo<TieredConfig>& info) {
  const auto& [filter, tiered, llf, prefix] = info.param;
  static const char* kTieredNames[] = {"universal", "universal_one_level",
                                       "fifo"};
  static const char* kPrefixNames[] = {"noprefix", "prefix_wholekey",
                                       "prefix_only"};
  return std::string(kTieredFilters[filter].name) + "_" +
         kTieredNames[static_cast<int>(tiered)] +
         (llf ? "_lastfilter" : "_nolast") + "_" +
         kPrefixNames[static_cast<int>(prefix)];
}

class NoFalseNegativesTieredTest
    : public ::testing::TestWithParam<TieredConfig>,
      protected CaseDB {
 protected:
  void SetUp() override {
    const auto& [filter, tiered, llf, prefix] = GetParam();
    tiered_ = tiered;
    const int index = ((filter * 3 + static_cast<int>(tiered)) * 2 + llf) * 3 +
                      static_cast<int>(prefix);
    // Past the leveled matrix's key numbers: distinct keys here too.
    base_ = (static_cast<uint64_t>(kCases) * kKeysPerCase +
             static_cast<uint64_t>(index) * kTieredKeysPerCase) *
            2;
    keys_ = kTieredKeysPerCase;
    seed_ = index;
    options_ = test::SmallTreeOptions(/*write_buffer_kib=*/64,
                                      /*target_file_kib=*/64,
                                      /*level_base_kib=*/256,
                                      /*dynamic_level_bytes=*/false);
    if (tiered == Tiered::kFifo) {
      options_.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleFIFO;
      options_.num_levels = 1;
      // Nothing is dropped: every key must stay readable.
      options_.compaction_options_fifo.max_table_files_size = 1ull << 40;
    } else {
      options_.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
      options_.num_levels = tiered == Tiered::kUniversal ? 7 : 1;
      options_.compaction_options_universal.allow_trivial_move = true;
    }
    ASSERT_NO_FATAL_FAILURE(
        Configure(kTieredFilters[filter], llf, /*partitioned=*/false, prefix));
  }

  // Reopens the DB under `filter`, automatic compactions off.
  void ReopenUnder(const FilterCase& filter) {
    db_.reset();
    options_.disable_auto_compactions = true;
    ASSERT_NO_FATAL_FAILURE(InstallFilter(filter));
    ASSERT_NO_FATAL_FAILURE(Open());
  }

  // Each L0 file one, and each non-empty level below.
  int SortedRuns() {
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    std::set<int> levels;
    int runs = 0;
    for (const auto& f : files) {
      runs += f.level == 0;
      if (f.level > 0) levels.insert(f.level);
    }
    return runs + static_cast<int>(levels.size());
  }

  Tiered tiered_ = Tiered::kUniversal;
};

TEST_P(NoFalseNegativesTieredTest, EveryKeyIsFound) {
  constexpr int kCompacted = kTieredKeysPerCase * 8 / 10;
  constexpr int kIngested = kTieredKeysPerCase * 9 / 10;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(LoadByFlushAndCompaction(kCompacted));
  // The ingested file stays a run of its own: no compaction merges it.
  ASSERT_TRUE(db_->SetOptions({{"disable_auto_compactions", "true"}}).ok());
  ASSERT_NO_FATAL_FAILURE(LoadByIngestion(kCompacted, kIngested));
  ASSERT_NO_FATAL_FAILURE(LoadByFlushOnly(kIngested, kTieredKeysPerCase));

  const Origins o = CountOrigins();
  EXPECT_GT(o.flushed, 0);
  EXPECT_GT(o.ingested, 0);
  // Universal compaction wrote runs of merged files; FIFO merges none.
  if (tiered_ == Tiered::kFifo) {
    EXPECT_EQ(o.compacted, 0);
  } else if (tiered_ == Tiered::kUniversal) {
    EXPECT_GT(o.compacted, 0);
  }
  EXPECT_GE(SortedRuns(), 3) << "several sorted runs";

  EXPECT_EQ(CountMissing(), 0);
  EXPECT_GT(FilterNegatives(), 0u) << "the filters were never consulted";

  const FilterCase other = filter_.monkey ? kBloom : kMonkey;
  ASSERT_NO_FATAL_FAILURE(ReopenUnder(other));
  EXPECT_EQ(CountMissing(), 0) << "after reopening under " << other.uri;
  EXPECT_GT(FilterNegatives(), 0u) << "after reopening under " << other.uri;

  // One run, built by `other`. FIFO compacts nothing: its files stay.
  ASSERT_TRUE(db_->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(),
                                nullptr, nullptr)
                  .ok());
  EXPECT_EQ(CountMissing(), 0) << "after a full merge under " << other.uri;
  if (tiered_ != Tiered::kFifo) {
    EXPECT_EQ(SortedRuns(), 1) << "a full merge";
    EXPECT_EQ(CountOrigins().ingested, 0) << "a full merge";
  }
  // Under last_level_filter=false the one run left is unfiltered.
  if (llf_ || tiered_ == Tiered::kFifo) {
    EXPECT_GT(FilterNegatives(), 0u)
        << "after a full merge under " << other.uri;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, NoFalseNegativesTieredTest,
    ::testing::Combine(::testing::Range<int>(0, std::size(kTieredFilters)),
                       ::testing::Values(Tiered::kUniversal,
                                         Tiered::kUniversalOneLevel,
                                         Tiered::kFifo),
                       ::testing::Bool(),
                       ::testing::Values(Prefix::kNone, Prefix::kWithWholeKey,
                                         Prefix::kPrefixOnly)),
    TieredName);

TEST(NoFalseNegativesMatrixTest, TieredCoversAMillionDistinctKeys) {
  EXPECT_GE(static_cast<int64_t>(kTieredCases) * kTieredKeysPerCase, 1000000);
}

}  // namespace
}  // namespace monkey
