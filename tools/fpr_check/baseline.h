// fpr_check's results as JSON baselines (nlohmann-json), and the comparison
// of a run with a baseline.
//
// The check. For each level, the measured FPR must agree with the baseline's
// within `sigmas` standard deviations of a two-proportion binomial test:
//   p = (FP_base + FP_run) / (n_base + n_run),
//   sigma = sqrt(p (1 - p) (1/n_base + 1/n_run)),
//   z = (FPR_run - FPR_base) / sigma,
// where n counts filter probes of keys not in the file (useful + FP). Both
// directions fail: a lower FPR with the same memory means the filter or the
// tree changed too. Each level's filter bytes must be within
// `bytes_fraction` of the baseline's. The totals (sum of level FPRs, with
// the levels' variances added, and all filter bytes) are checked the same
// way. A universal tree's shape is checked too, as universal compaction
// made it: each level's keys equal the baseline's, and its sorted runs are
// the baseline's, newest first, each at the same level with the same keys
// and its filter bytes within `bytes_fraction`: L0's files share L0's
// counters, so the runs' bytes are what tells them apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "monkey/filter_report.h"
#include "monkey/tools/fpr_check/tree.h"
#include "rocksdb/status.h"

namespace monkey::fpr_check {

struct LevelResult {
  int level = 0;
  uint64_t files = 0;
  uint64_t entries = 0;  // stored keys (num_entries)
  uint64_t filter_bytes = 0;
  // num_filter_entries (FilterEntriesOf): keys, prefixes or both.
  uint64_t filter_entries = 0;
  // Realized bits per filter entry: 8 * filter_bytes / filter_entries.
  double bits_per_key = 0;
  uint64_t probes = 0;
  uint64_t useful = 0;
  uint64_t false_positives = 0;
  uint64_t trials() const { return useful + false_positives; }
  double fpr() const {
    return trials() == 0 ? 0.0
                         : static_cast<double>(false_positives) / trials();
  }
};

// A sorted run of a universal tree (FilterReport::sorted_runs).
struct RunResult {
  int level = 0;
  uint64_t entries = 0;
  uint64_t filter_bytes = 0;
  double bits_per_key = 0;
  double reach = 1;
  double model_fpr = 0;  // 0 without a filter
};

struct Result {
  std::string filter_uri;
  std::string rocksdb_version;
  TreeSpec tree;
  std::vector<LevelResult> levels;
  std::vector<RunResult> runs;  // universal trees only, newest first

  uint64_t filter_bytes_total() const;
  uint64_t filter_entries_total() const;
  double bits_per_key() const;  // per filter entry, over all filters
  double sum_fpr() const;
};

// The levels of a report (its level -1, files of unknown level, excluded)
// and, for a universal tree, its sorted runs.
Result FromReport(const FilterReport& report, const std::string& filter_uri,
                  const TreeSpec& tree);

std::string ToJson(const Result& result);
// InvalidArgument naming what is missing or malformed.
ROCKSDB_NAMESPACE::Status FromJson(const std::string& json, Result* result);
ROCKSDB_NAMESPACE::Status WriteBaseline(const std::string& path,
                                        const Result& result);
ROCKSDB_NAMESPACE::Status ReadBaseline(const std::string& path, Result* result);

struct Tolerance {
  double sigmas = 4;
  double bytes_fraction = 0.01;
};

// One line of the comparison: a level, the totals, or the sorted runs.
struct Check {
  std::string what;  // "L0" .. "L6", "total", or "runs"
  double expected_fpr = 0, measured_fpr = 0;
  uint64_t expected_fp = 0, measured_fp = 0;
  uint64_t expected_trials = 0, measured_trials = 0;
  double sigma = 0;  // of the difference
  double z = 0;      // (measured - expected) / sigma; 0 if both equal
  uint64_t expected_bytes = 0, measured_bytes = 0;
  // shape (universal trees): a level's keys, or the runs' levels and keys,
  // as the baseline's.
  bool fpr_ok = true, bytes_ok = true, shape_ok = true;
  std::string note;  // e.g. a level missing on one side
  bool ok() const { return fpr_ok && bytes_ok && shape_ok; }
};

struct Comparison {
  Tolerance tolerance;
  std::vector<Check> checks;
  bool ok() const;
  // Expected vs measured per level and in total, by how many sigma and by
  // how much memory, and which line failed.
  std::string ToTable() const;
};

Comparison Compare(const Result& baseline, const Result& measured,
                   const Tolerance& tolerance);

}  // namespace monkey::fpr_check
