// FilterStatsCollector: merges the thread-local per-level PerfContext filter
// counts of many reader threads. See include/monkey/filter_report.h.
#include "monkey/filter_report.h"
#include "rocksdb/perf_context.h"

namespace monkey {
namespace {

thread_local FilterStatsCollector::ThreadScope* current_scope = nullptr;

}  // namespace

FilterTickers FilterTickers::From(
    const ROCKSDB_NAMESPACE::Statistics& statistics) {
  FilterTickers t;
  t.filter_hit =
      statistics.getTickerCount(ROCKSDB_NAMESPACE::BLOCK_CACHE_FILTER_HIT);
  t.filter_miss =
      statistics.getTickerCount(ROCKSDB_NAMESPACE::BLOCK_CACHE_FILTER_MISS);
  t.filter_bytes_insert = statistics.getTickerCount(
      ROCKSDB_NAMESPACE::BLOCK_CACHE_FILTER_BYTES_INSERT);
  t.data_hit =
      statistics.getTickerCount(ROCKSDB_NAMESPACE::BLOCK_CACHE_DATA_HIT);
  t.data_miss =
      statistics.getTickerCount(ROCKSDB_NAMESPACE::BLOCK_CACHE_DATA_MISS);
  return t;
}

FilterTickers FilterTickers::Minus(const FilterTickers& earlier) const {
  // Tickers only grow, unless someone reset the statistics in between.
  auto minus = [](uint64_t now, uint64_t then) {
    return now >= then ? now - then : now;
  };
  FilterTickers d;
  d.filter_hit = minus(filter_hit, earlier.filter_hit);
  d.filter_miss = minus(filter_miss, earlier.filter_miss);
  d.filter_bytes_insert =
      minus(filter_bytes_insert, earlier.filter_bytes_insert);
  d.data_hit = minus(data_hit, earlier.data_hit);
  d.data_miss = minus(data_miss, earlier.data_miss);
  return d;
}

void FilterStatsCollector::Start(
    std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics,
    ROCKSDB_NAMESPACE::DB* db, ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf) {
  std::optional<std::map<int, std::set<uint64_t>>> files;
  if (db != nullptr) {
    ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(cf == nullptr ? db->DefaultColumnFamily() : cf,
                                &meta);
    files.emplace();
    for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
      for (const ROCKSDB_NAMESPACE::SstFileMetaData& f : level.files) {
        (*files)[level.level].insert(f.file_number);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  files_at_start_ = std::move(files);
  counts_.clear();
  lookups_ = found_ = 0;
  lookups_known_ = false;
  threads_ = 0;
  statistics_ = std::move(statistics);
  if (statistics_) tickers_at_start_ = FilterTickers::From(*statistics_);
  started_ = std::chrono::steady_clock::now();
}

FilterStatsCollector::ThreadScope::ThreadScope(FilterStatsCollector* collector)
    : collector_(collector),
      outer_(current_scope),
      saved_perf_level_(ROCKSDB_NAMESPACE::GetPerfLevel()) {
  if (saved_perf_level_ < ROCKSDB_NAMESPACE::PerfLevel::kEnableCount) {
    ROCKSDB_NAMESPACE::SetPerfLevel(ROCKSDB_NAMESPACE::PerfLevel::kEnableCount);
  }
  // This order matters: PerfContext::Reset() clears per-level counts only
  // while per-level counting is enabled, so counts of an earlier measurement
  // on this thread would otherwise leak into this one.
  ROCKSDB_NAMESPACE::PerfContext* perf = ROCKSDB_NAMESPACE::get_perf_context();
  perf->ClearPerLevelPerfContext();
  perf->EnablePerLevelPerfContext();
  perf->Reset();
  current_scope = this;
}

FilterStatsCollector::ThreadScope::~ThreadScope() {
  std::map<int, LevelFilterCounts> counts;
  const ROCKSDB_NAMESPACE::PerfContext* perf =
      ROCKSDB_NAMESPACE::get_perf_context();
  if (perf->level_to_perf_context != nullptr) {
    for (const auto& [level, by_level] : *perf->level_to_perf_context) {
      // Readers of files with no level (SstFileReader, ingestion) use -1,
      // which PerfContext stores as a uint32_t.
      LevelFilterCounts& c = counts[static_cast<int>(level)];
      c.useful = by_level.bloom_filter_useful;
      c.full_positive = by_level.bloom_filter_full_positive;
      c.full_true_positive = by_level.bloom_filter_full_true_positive;
    }
  }
  collector_->Merge(counts, lookups_known_, lookups_, found_);
  current_scope = outer_;
  ROCKSDB_NAMESPACE::SetPerfLevel(saved_perf_level_);
}

void FilterStatsCollector::ThreadScope::AddLookups(uint64_t lookups,
                                                   uint64_t found) {
  lookups_ += lookups;
  found_ += found;
  lookups_known_ = true;
}

FilterStatsCollector::ThreadScope*
FilterStatsCollector::ThreadScope::Current() {
  return current_scope;
}

void FilterStatsCollector::Merge(const std::map<int, LevelFilterCounts>& counts,
                                 bool lookups_known, uint64_t lookups,
                                 uint64_t found) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [level, c] : counts) {
    LevelFilterCounts& sum = counts_[level];
    sum.useful += c.useful;
    sum.full_positive += c.full_positive;
    sum.full_true_positive += c.full_true_positive;
  }
  if (lookups_known) {
    lookups_ += lookups;
    found_ += found;
    lookups_known_ = true;
  }
  ++threads_;
}

std::map<int, LevelFilterCounts> FilterStatsCollector::level_counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

std::optional<uint64_t> FilterStatsCollector::lookups() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!lookups_known_) return std::nullopt;
  return lookups_;
}

std::optional<uint64_t> FilterStatsCollector::found() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!lookups_known_) return std::nullopt;
  return found_;
}

int FilterStatsCollector::threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return threads_;
}

std::optional<FilterTickers> FilterStatsCollector::TickersSinceStart() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!statistics_) return std::nullopt;
  return FilterTickers::From(*statistics_).Minus(tickers_at_start_);
}

std::optional<std::map<int, std::set<uint64_t>>>
FilterStatsCollector::FilesAtStart() const {
  std::lock_guard<std::mutex> lock(mu_);
  return files_at_start_;
}

double FilterStatsCollector::SecondsSinceStart() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       started_)
      .count();
}

}  // namespace monkey
