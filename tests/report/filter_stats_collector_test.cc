// Tests of FilterStatsCollector (report/filter_stats_collector.cc): per-level
// counts merged over threads, the PerfContext reset order, PerfLevel restore,
// nesting, and block cache ticker deltas.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "monkey/filter_report.h"
#include "monkey/tests/report/two_level_db.h"
#include "rocksdb/perf_context.h"

namespace monkey {
namespace {

// Gets absent keys [begin, end) of `t`; returns how many were found.
uint64_t GetAbsent(const test::TwoLevelDb& t, uint64_t begin, uint64_t end) {
  uint64_t found = 0;
  std::string value;
  for (uint64_t i = begin; i < end; ++i) {
    if (t.db->Get(ROCKSDB_NAMESPACE::ReadOptions(), t.Absent(i), &value).ok())
      ++found;
  }
  return found;
}

TEST(FilterStatsCollectorTest, MergesPerLevelCountsOfAllThreads) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 20000);
  FilterStatsCollector collector;
  collector.Start();
  constexpr int kThreads = 4;
  const uint64_t per_thread = t->absent_keys() / kThreads;
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      FilterStatsCollector::ThreadScope scope(&collector);
      const uint64_t found =
          GetAbsent(*t, k * per_thread, (k + 1) * per_thread);
      scope.AddLookups(per_thread, found);
    });
  }
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(collector.threads(), kThreads);
  EXPECT_EQ(collector.lookups(), kThreads * per_thread);
  EXPECT_EQ(collector.found(), 0u);
  const auto counts = collector.level_counts();
  ASSERT_EQ(counts.count(0), 1u);
  ASSERT_EQ(counts.count(6), 1u);
  for (int level : {0, 6}) {
    // Every absent key meets one filter per level, on whichever thread.
    EXPECT_EQ(counts.at(level).probes(), kThreads * per_thread) << level;
    EXPECT_EQ(counts.at(level).full_true_positive, 0u) << level;
    EXPECT_GT(counts.at(level).false_positives(), 0u) << level;
  }
}

TEST(FilterStatsCollectorTest, StartForgetsEarlierCounts) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 20000);
  FilterStatsCollector collector;
  {
    FilterStatsCollector::ThreadScope scope(&collector);
    GetAbsent(*t, 0, 1000);
    scope.AddLookups(1000, 0);
  }
  ASSERT_EQ(collector.level_counts().at(6).probes(), 1000u);
  collector.Start();
  EXPECT_TRUE(collector.level_counts().empty());
  EXPECT_FALSE(collector.lookups().has_value());
  EXPECT_EQ(collector.threads(), 0);
}

// PerfContext::Reset() keeps per-level counts while per-level counting is
// disabled; a scope must clear them anyway, or an earlier measurement on the
// same thread leaks into the next one.
TEST(FilterStatsCollectorTest, NoLeakFromAnEarlierMeasurementOnTheThread) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 20000);
  FilterStatsCollector first;
  {
    FilterStatsCollector::ThreadScope scope(&first);
    GetAbsent(*t, 0, 1000);
  }
  ASSERT_EQ(first.level_counts().at(0).probes(), 1000u);
  ROCKSDB_NAMESPACE::get_perf_context()->DisablePerLevelPerfContext();

  FilterStatsCollector second;
  { FilterStatsCollector::ThreadScope scope(&second); }
  for (const auto& [level, c] : second.level_counts()) {
    EXPECT_EQ(c.probes(), 0u) << "level " << level;
  }
}

TEST(FilterStatsCollectorTest, RaisesAndRestoresThePerfLevel) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 20000);
  FilterStatsCollector collector;
  ROCKSDB_NAMESPACE::SetPerfLevel(ROCKSDB_NAMESPACE::PerfLevel::kDisable);
  {
    FilterStatsCollector::ThreadScope scope(&collector);
    EXPECT_GE(ROCKSDB_NAMESPACE::GetPerfLevel(),
              ROCKSDB_NAMESPACE::PerfLevel::kEnableCount);
    GetAbsent(*t, 0, 100);
  }
  EXPECT_EQ(ROCKSDB_NAMESPACE::GetPerfLevel(),
            ROCKSDB_NAMESPACE::PerfLevel::kDisable);
  EXPECT_EQ(collector.level_counts().at(6).probes(), 100u);

  ROCKSDB_NAMESPACE::SetPerfLevel(ROCKSDB_NAMESPACE::PerfLevel::kEnableTime);
  { FilterStatsCollector::ThreadScope scope(&collector); }
  EXPECT_EQ(ROCKSDB_NAMESPACE::GetPerfLevel(),
            ROCKSDB_NAMESPACE::PerfLevel::kEnableTime);
  ROCKSDB_NAMESPACE::SetPerfLevel(ROCKSDB_NAMESPACE::PerfLevel::kDisable);
}

TEST(FilterStatsCollectorTest, CurrentIsTheInnermostScope) {
  FilterStatsCollector outer_collector;
  FilterStatsCollector inner_collector;
  EXPECT_EQ(FilterStatsCollector::ThreadScope::Current(), nullptr);
  {
    FilterStatsCollector::ThreadScope outer(&outer_collector);
    EXPECT_EQ(FilterStatsCollector::ThreadScope::Current(), &outer);
    {
      FilterStatsCollector::ThreadScope inner(&inner_collector);
      EXPECT_EQ(FilterStatsCollector::ThreadScope::Current(), &inner);
      FilterStatsCollector::ThreadScope::Current()->AddLookups(5, 1);
    }
    EXPECT_EQ(FilterStatsCollector::ThreadScope::Current(), &outer);
  }
  EXPECT_EQ(FilterStatsCollector::ThreadScope::Current(), nullptr);
  EXPECT_EQ(inner_collector.lookups(), 5u);
  EXPECT_EQ(inner_collector.found(), 1u);
  EXPECT_FALSE(outer_collector.lookups().has_value());
}

TEST(FilterStatsCollectorTest, TickersAreChangesSinceStart) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 20000,
                                /*cache_filters=*/true);
  FilterStatsCollector collector;
  EXPECT_FALSE(collector.TickersSinceStart().has_value());
  GetAbsent(*t, 0, 100);  // loads both filters into the block cache
  collector.Start(t->options.statistics);
  {
    FilterStatsCollector::ThreadScope scope(&collector);
    GetAbsent(*t, 100, 200);
  }
  const std::optional<FilterTickers> tickers = collector.TickersSinceStart();
  ASSERT_TRUE(tickers.has_value());
  // Two filters per lookup, all already cached.
  EXPECT_EQ(tickers->filter_hit, 200u);
  EXPECT_EQ(tickers->filter_miss, 0u);
  EXPECT_EQ(tickers->filter_bytes_insert, 0u);
}

}  // namespace
}  // namespace monkey
