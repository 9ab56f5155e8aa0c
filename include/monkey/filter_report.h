// Per-level filter report for any RocksDB program: how many bits per key each
// LSM level's filters really hold, how often they were probed, and how many
// false positives they let through, next to what the FPR model predicts for
// those bits; plus filter memory and the block cache's filter tickers.
//
// Why. RocksDB counts filter outcomes per level only in PerfContext, which is
// thread-local: a benchmark with N reader threads must enable it on each of
// them and add their counts up, and must reset it in the right order or old
// counts leak into the next measurement. Filter memory per level sits in table
// properties, and the block cache's share of it in another property.
//
// Use:
//   monkey::FilterStatsCollector collector;
//   collector.Start(options.statistics, db);       // before the readers run
//   // on every reader thread, around its reads:
//   {
//     monkey::FilterStatsCollector::ThreadScope scope(&collector);
//     ... db->Get(...) ...
//     scope.AddLookups(lookups, found);              // optional
//   }                                                // merges its counts
//   monkey::FilterReport report;
//   ROCKSDB_NAMESPACE::Status s = monkey::BuildFilterReport(db, collector,
//   "readmissing",
//                                                 &report);
//   fputs(report.ToTable().c_str(), stdout);
//   puts(report.ToJsonLine().c_str());  // "filter_report_json: {...}"
//
// Level attribution: a table reader keeps the level it was opened at, so a
// trivially moved file counts under its old level until it is reopened (for
// example by reopening the DB before a read phase).
//
// Tiered trees. Under universal or FIFO compaction the report also lists the
// sorted runs, newest first: each L0 file is one, each non-empty level below
// another (RocksDB's CalculateSortedRuns). Each run has the model's FPR for
// its filters and its reach, the share of absent-key lookups that probe it
// (the share of the tree's keys inside its key range); their sum of reach x
// FPR is the false positives an absent-key lookup is expected to meet.
// RocksDB counts filter outcomes per level, so a run's measured FPR is known
// only where it is its level's only run: L0's files share L0's counts.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/statistics.h"
#include "rocksdb/status.h"
#include "rocksdb/table_properties.h"

namespace monkey {

// Filter outcomes of one level (PerfContextByLevel), summed over threads.
struct LevelFilterCounts {
  uint64_t useful = 0;              // the filter said "not here"
  uint64_t full_positive = 0;       // the filter said "may be here"
  uint64_t full_true_positive = 0;  // ... and the key was there
  uint64_t probes() const { return useful + full_positive; }
  uint64_t false_positives() const {
    return full_positive > full_true_positive
               ? full_positive - full_true_positive
               : 0;
  }
};

// The block cache tickers a report shows, as differences over a measurement.
struct FilterTickers {
  uint64_t filter_hit = 0;           // BLOCK_CACHE_FILTER_HIT
  uint64_t filter_miss = 0;          // BLOCK_CACHE_FILTER_MISS
  uint64_t filter_bytes_insert = 0;  // BLOCK_CACHE_FILTER_BYTES_INSERT
  uint64_t data_hit = 0;             // BLOCK_CACHE_DATA_HIT
  uint64_t data_miss = 0;            // BLOCK_CACHE_DATA_MISS

  static FilterTickers From(const ROCKSDB_NAMESPACE::Statistics& statistics);
  FilterTickers Minus(const FilterTickers& earlier) const;
};

// Collects per-level filter counts from many reader threads.
class FilterStatsCollector {
 public:
  FilterStatsCollector() = default;
  FilterStatsCollector(const FilterStatsCollector&) = delete;
  FilterStatsCollector& operator=(const FilterStatsCollector&) = delete;

  // Begins a measurement: forgets merged counts and, if `statistics` is set,
  // remembers its tickers so that the report shows their change. If `db` is
  // set, it also remembers which files each level of `cf` (default: the
  // default column family) holds, so that the report can tell the levels
  // that flushes or compactions changed during the measurement. Call it
  // while no ThreadScope of this collector is open.
  void Start(
      std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics = nullptr,
      ROCKSDB_NAMESPACE::DB* db = nullptr,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf = nullptr);

  // Counts one reader thread while it lives. The constructor raises the
  // thread's PerfLevel to kEnableCount if it is lower, and clears its
  // per-level PerfContext (ClearPerLevelPerfContext, then
  // EnablePerLevelPerfContext, then Reset: Reset alone keeps per-level counts
  // while per-level counting is off). The destructor adds the thread's counts
  // to the collector under its lock and restores the PerfLevel. The thread's
  // PerfContext keeps its counts. Scopes may nest; the innermost is current.
  class ThreadScope {
   public:
    explicit ThreadScope(FilterStatsCollector* collector);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

    // Point lookups this thread made and how many found their key, so that
    // the report can give false positives per absent lookup.
    void AddLookups(uint64_t lookups, uint64_t found);

    // The calling thread's innermost open scope, or nullptr.
    static ThreadScope* Current();

   private:
    FilterStatsCollector* collector_;
    ThreadScope* outer_;
    ROCKSDB_NAMESPACE::PerfLevel saved_perf_level_;
    uint64_t lookups_ = 0;
    uint64_t found_ = 0;
    bool lookups_known_ = false;
  };

  // Merged so far: per level (-1: files of unknown level), lookups, threads.
  std::map<int, LevelFilterCounts> level_counts() const;
  std::optional<uint64_t> lookups() const;
  std::optional<uint64_t> found() const;
  int threads() const;
  // Ticker changes since Start(), or nothing without statistics.
  std::optional<FilterTickers> TickersSinceStart() const;
  // Seconds since Start() (or since construction).
  double SecondsSinceStart() const;
  // File numbers per level when Start() was given a DB, else nothing.
  std::optional<std::map<int, std::set<uint64_t>>> FilesAtStart() const;

 private:
  void Merge(const std::map<int, LevelFilterCounts>& counts, bool lookups_known,
             uint64_t lookups, uint64_t found);

  mutable std::mutex mu_;
  std::map<int, LevelFilterCounts> counts_;
  uint64_t lookups_ = 0;
  uint64_t found_ = 0;
  bool lookups_known_ = false;
  int threads_ = 0;
  std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics_;
  FilterTickers tickers_at_start_;
  std::optional<std::map<int, std::set<uint64_t>>> files_at_start_;
  std::chrono::steady_clock::time_point started_ =
      std::chrono::steady_clock::now();
};

// One level of a report.
struct LevelFilterReport {
  int level = 0;
  uint64_t files = 0;
  uint64_t entries = 0;       // num_entries of its files: stored keys
  uint64_t filter_bytes = 0;  // filter_size
  // FilterEntriesOf its files: what their filters hold (keys, prefixes or
  // both).
  uint64_t filter_entries = 0;
  // Realized bits per filter entry, 8 * filter_bytes / filter_entries (the
  // name is kept: a JSON key); 0 if no file has a filter.
  double bits_per_key = 0;
  // The filters' kind: "bloom", "ribbon", "mixed", or "none".
  std::string filter = "none";
  uint64_t probes = 0;  // useful + full_positive
  uint64_t useful = 0;
  uint64_t false_positives = 0;
  // FP / (useful + FP): per filter probe of a key not in the file; unset
  // when no such probe happened.
  std::optional<double> fpr;
  // What the FPR model (util/filter_fpr_model.h) predicts for the bits per
  // key of this level's filters: each file with its own kind and bits,
  // weighted by the share of the key space it covers (absent keys spread
  // evenly). Unset without filters.
  std::optional<double> model_fpr;
  // Standard deviation of a measured FPR around model_fpr: the binomial
  // error of useful + FP trials, and the spread of the level's filters as
  // built around the model (small filters stray most;
  // util/filter_fpr_spread.h). Whether the measurement agrees with the
  // model: within max(3 sigma, 5% of model_fpr). Not judged on a changed
  // level.
  std::optional<double> fpr_sigma;
  std::optional<bool> model_agrees;
  // The level's files differ from those at FilterStatsCollector::Start():
  // its counts came from readers of files that may have moved (a reader
  // counts under the level it was opened at) or gone, so they need not
  // match the files the report describes.
  bool changed = false;
};

// One sorted run of a tiered tree: an L0 file, or a level below.
struct SortedRunReport {
  int level = 0;
  std::optional<uint64_t> file_number;  // an L0 run's file
  uint64_t files = 0;
  uint64_t entries = 0;  // stored keys
  uint64_t filter_bytes = 0;
  uint64_t filter_entries = 0;
  double bits_per_key = 0;  // realized, per filter entry; 0 without filters
  std::string filter = "none";
  std::optional<double> model_fpr;  // unset without filters
  // Absent-key lookups that probe the run, per lookup: the share of the
  // tree's keys inside the union of its files' key ranges (GroupKeyShares,
  // util/live_shape.h), as the planner sees it.
  double reach = 1;
  // Measured, from its level's counters, where the run is its level's only
  // run; unset for the files of an L0 with several. probes_per_lookup needs
  // the lookups reported, all of them for absent keys.
  std::optional<uint64_t> probes;
  std::optional<uint64_t> false_positives;
  std::optional<double> fpr;
  std::optional<double> probes_per_lookup;
};

// A report over all levels of one column family.
struct FilterReport {
  std::string benchmark;
  std::vector<LevelFilterReport> levels;  // levels with files or probes
  // The column family's compaction style: "level", "universal" or "fifo".
  std::string compaction_style = "level";
  // Universal and FIFO only: the sorted runs, newest first.
  std::vector<SortedRunReport> sorted_runs;
  // Universal and FIFO only: the false positives an absent-key lookup is
  // expected to meet, the sum over runs of reach x model FPR (a run without
  // a filter at FPR 1: a lookup that reaches it reads a block, as
  // monkey_plan --db counts it).
  std::optional<double> model_fp_per_absent_lookup;

  uint64_t files = 0;
  uint64_t entries = 0;  // stored keys
  uint64_t filter_bytes_total = 0;
  uint64_t filter_entries_total = 0;
  double bits_per_key = 0;  // realized, per filter entry over all filters
  // index_size of all files: what competes with the filters for the block
  // cache under cache_index_and_filter_blocks.
  uint64_t index_bytes_total = 0;

  // Sums over the levels whose FPR was measured: sum_fpr of measured FPRs
  // (each level once, L0 included), model_sum_fpr of their model FPRs.
  std::optional<double> sum_fpr;
  std::optional<double> model_sum_fpr;
  uint64_t probes = 0;
  uint64_t false_positives = 0;
  // Lookups as the program reported them (ThreadScope::AddLookups).
  std::optional<uint64_t> lookups;
  std::optional<uint64_t> absent_lookups;
  // False positives per absent lookup: the extra SST data-block reads each
  // one costs. Set only when every reported lookup was for an absent key
  // (otherwise lookups of present keys add false positives above their key).
  std::optional<double> fp_per_absent_lookup;

  // Filter memory: with cache_index_and_filter_blocks, the filter blocks in
  // the block cache (rocksdb.block-cache-entry-stats); otherwise the filters
  // that table readers hold (all live files' filters: readers load them on
  // open). filter_cache_source says which: "block_cache" or "table_readers".
  uint64_t filter_cache_bytes = 0;
  std::string filter_cache_source;
  // RocksDB rescans the block cache for that property at most every 10 s
  // (and scans it when a DB opens): the age of the scan, in seconds. A note
  // says so when the scan is older than the measurement.
  std::optional<uint64_t> filter_cache_age_seconds;
  // rocksdb.estimate-table-readers-mem: index and filter memory outside the
  // block cache.
  uint64_t table_readers_mem = 0;

  // Changes of the block cache tickers during the measurement, if the
  // collector had statistics.
  std::optional<FilterTickers> tickers;
  int threads = 0;
  std::vector<std::string> notes;

  // True when every level with a measured FPR agrees with its model.
  bool ModelAgrees() const;

  // A readable table, one line per level and a totals block; for a tiered
  // tree, then one line per sorted run and their expected false positives.
  std::string ToTable() const;
  // Exactly one line, no newline: "filter_report_json: " and one JSON object
  // with the keys benchmark, levels (level, files, entries, filter_bytes,
  // filter_entries, bits_per_key, filter, probes, useful, false_positives,
  // fpr, model_fpr, fpr_sigma, model_agrees), sum_fpr, model_sum_fpr,
  // filter_bytes_total, filter_cache_bytes, compaction_style, sorted_runs
  // (level, file_number, files, entries, filter_bytes, filter_entries,
  // bits_per_key, filter, model_fpr, reach, probes, false_positives, fpr,
  // probes_per_lookup; [] under leveled compaction), and the other fields
  // above.
  std::string ToJsonLine() const;
};

// The filter entries of one SST file: what its filter holds, the divisor of
// its realized bits (num_filter_entries: keys; with a prefix extractor and
// whole_key_filtering=false, prefixes; with both, keys and prefixes). A
// file with a filter but num_filter_entries 0 (the old format, written
// before RocksDB 6.21) falls back to num_entries, its stored keys. 0 for a
// file without a filter.
uint64_t FilterEntriesOf(const ROCKSDB_NAMESPACE::TableProperties& props);

// Builds a report of `cf` (default: the default column family) from the DB's
// current files and the collector's merged counts.
ROCKSDB_NAMESPACE::Status BuildFilterReport(
    ROCKSDB_NAMESPACE::DB* db, const FilterStatsCollector& collector,
    const std::string& benchmark, FilterReport* report,
    ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf = nullptr);

// The prefix of FilterReport::ToJsonLine(), for programs that parse it.
inline constexpr const char* kFilterReportJsonPrefix = "filter_report_json: ";

}  // namespace monkey
