// grow_tree: what one step measures -- shape, filters, false positives per
// absent lookup -- and the optimum it is held to (grow_tree.h).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include "gflags/gflags.h"
#include "monkey/bench/grow_tree/grow_tree.h"
#include "monkey/filter_report.h"
#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/held_budget.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"
#include "nlohmann/json.hpp"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"

namespace grow_tree {

namespace {

// The share of probes (odd ids below 2 * range) inside a file's key range:
// an absent lookup reaches a file's filter only there. Young levels and
// sequential loads cover part of the key space, so the optimum is computed
// with each run weighted by the probes that reach it.
double Coverage(const ROCKSDB_NAMESPACE::SstFileMetaData& file,
                uint64_t range) {
  const uint64_t lo = std::stoull(file.smallestkey);
  const uint64_t hi = std::stoull(file.largestkey);
  // Probe u is key 2u + 1: inside [lo, hi] for u in [lo / 2, (hi - 1) / 2].
  const uint64_t first = lo / 2;
  const uint64_t last = std::min(range - 1, hi == 0 ? 0 : (hi - 1) / 2);
  return hi == 0 || last < first
             ? 0.0
             : static_cast<double>(last - first + 1) / range;
}

// The filter models of a policy string's levels, for the optimum.
monkey::FilterChoice ChoiceOf(const ROCKSDB_NAMESPACE::FilterPolicy* policy) {
  const auto* monkey = policy == nullptr
                           ? nullptr
                           : policy->CheckedCast<monkey::MonkeyFilterPolicy>();
  if (monkey != nullptr) return monkey->options().filter;
  // ribbonfilter:N builds Bloom at L0 (bloom_before_level=0).
  return policy != nullptr &&
                 std::string(policy->Name()).find("ibbon") != std::string::npos
             ? monkey::FilterChoice::kAuto
             : monkey::FilterChoice::kBloom;
}

}  // namespace

Step Measure(ROCKSDB_NAMESPACE::DB* db,
             const ROCKSDB_NAMESPACE::Options& options, std::mt19937_64* rng,
             uint64_t range) {
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::vector<monkey::LevelShape> shape(options.num_levels, {0, 0, true});
  for (const auto& f : files) {
    shape[f.level].entries += f.num_entries;
    shape[f.level].runs += Coverage(f, range);
  }
  // A level >= 1 is one run: the share of probes its files cover.
  for (int l = 1; l < options.num_levels; ++l) {
    shape[l].runs = std::min(shape[l].runs, 1.0);
  }
  // RocksDB skips the key-range check when the tree is one level of at most
  // 3 files (FilePicker in db/version_set.cc, 7.8.3 to main): a young tree of
  // L0 alone has every file's filter probed by every lookup, whatever its
  // range (measured: 3.0 probes per lookup for 3 disjoint L0 files under
  // sequential keys).
  const auto l0_files = std::count_if(
      files.begin(), files.end(), [](const auto& f) { return f.level == 0; });
  if (l0_files > 0 && l0_files <= 3 &&
      l0_files == static_cast<std::ptrdiff_t>(files.size())) {
    shape[0].runs = static_cast<double>(l0_files);
  }

  // Which files hold no filter, from their table properties.
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  Check(db->GetPropertiesOfAllTables(&props), "table properties");
  std::map<uint64_t, uint64_t> filter_size;  // by file number
  for (const auto& [path, p] : props) {
    const std::string base = std::filesystem::path(path).stem().string();
    filter_size[std::stoull(base)] = p->filter_size;
  }
  int deepest = 0;
  for (const auto& f : files) deepest = std::max(deepest, f.level);
  std::vector<uint64_t> level_files(options.num_levels, 0);
  std::vector<uint64_t> unfiltered_files(options.num_levels, 0);
  std::vector<uint64_t> unfiltered_keys(options.num_levels, 0);
  double unfiltered_upper_fp = 0, deepest_cover = 0;
  for (const auto& f : files) {
    ++level_files[f.level];
    if (f.level == deepest) deepest_cover += Coverage(f, range);
    const auto it = filter_size.find(f.file_number);
    if (it == filter_size.end() || it->second > 0) continue;
    ++unfiltered_files[f.level];
    unfiltered_keys[f.level] += f.num_entries;
    if (f.level < deepest || f.level == 0) {
      unfiltered_upper_fp += Coverage(f, range);
    }
  }

  // Per level, each file's range (numeric ids) and whether it has no filter.
  struct Span {
    uint64_t lo, hi;
    bool unfiltered;
  };
  std::vector<std::vector<Span>> spans(options.num_levels);
  for (const auto& f : files) {
    const auto it = filter_size.find(f.file_number);
    spans[f.level].push_back({std::stoull(f.smallestkey),
                              std::stoull(f.largestkey),
                              it != filter_size.end() && it->second == 0});
  }
  for (auto& level : spans) {
    std::sort(level.begin(), level.end(),
              [](const Span& a, const Span& b) { return a.lo < b.lo; });
  }
  constexpr int kBottomSamples = 20000;
  uint64_t above_bottom = 0;
  for (int i = 0; i < kBottomSamples; ++i) {
    const uint64_t key = 2 * (range * i / kBottomSamples) + 1;
    int unfiltered_reads = 0, bottom = -1;
    std::vector<int> unfiltered_at;  // levels of covering unfiltered files
    for (int l = 0; l < options.num_levels; ++l) {
      for (const Span& f : spans[l]) {
        if (l > 0 && f.lo > key) break;
        if (f.lo <= key && key <= f.hi) {
          bottom = l;
          if (f.unfiltered) unfiltered_at.push_back(l);
        }
      }
    }
    for (int l : unfiltered_at) unfiltered_reads += l < bottom;
    above_bottom += unfiltered_reads;
  }

  monkey::FilterStatsCollector collector;
  collector.Start(options.statistics, db);
  {
    monkey::FilterStatsCollector::ThreadScope scope(&collector);
    std::uniform_int_distribution<uint64_t> id(0, range - 1);
    std::string value;
    for (int i = 0; i < FLAGS_probes; ++i) {
      ROCKSDB_NAMESPACE::Status s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                                            Key(2 * id(*rng) + 1), &value);
      if (!s.IsNotFound()) Check(s, "absent lookup");
    }
    scope.AddLookups(FLAGS_probes, 0);
  }
  monkey::FilterReport report;
  Check(monkey::BuildFilterReport(db, collector, "grow_tree", &report),
        "filter report");
  Step step;
  step.level_bits.assign(options.num_levels, 0);
  for (const monkey::LevelFilterReport& l : report.levels) {
    if (l.level < 0 || l.files == 0) continue;
    step.level_bits[l.level] = l.bits_per_key;
    step.levels += (step.levels.empty() ? "L" : " L") + std::to_string(l.level);
    if (l.level == 0) step.levels += "x" + std::to_string(l.files);
  }
  step.realized = report.bits_per_key;
  step.sum_fpr = report.fp_per_absent_lookup.value_or(0);
  step.level_files = level_files;
  step.level_unfiltered_files = unfiltered_files;
  step.level_unfiltered_keys = unfiltered_keys;
  step.unfiltered_upper_fp = unfiltered_upper_fp;
  step.deepest_level_cover = std::min(deepest_cover, 1.0);
  step.unfiltered_above_bottom_fp =
      static_cast<double>(above_bottom) / kBottomSamples;
  step.filter_bytes = report.filter_bytes_total;
  step.entries = report.entries;
  if (report.tickers) {
    step.data_blocks_per_lookup =
        static_cast<double>(report.tickers->data_hit +
                            report.tickers->data_miss) /
        FLAGS_probes;
  }
  const auto* table =
      options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  const auto live = monkey::LiveShape(shape, /*last_level_filter=*/true);
  const std::vector<monkey::FprModel> models = monkey::ModelsForLevels(
      ChoiceOf(table->filter_policy.get()), live.size());
  const monkey::Plan optimum =
      monkey::PlanBitsPerKey(live, step.realized, models);
  step.shape = live;
  step.models = models;
  step.optimum = optimum.sum_fpr;
  const auto* monkey_policy =
      table->filter_policy == nullptr
          ? nullptr
          : table->filter_policy->CheckedCast<monkey::MonkeyFilterPolicy>();
  step.uniform =
      monkey::PlanUniform(
          live,
          monkey_policy ? monkey_policy->options().bits_per_key : step.realized,
          models)
          .sum_fpr;
  monkey::Plan least;
  if (monkey::PlanLeastBits(live, step.uniform, models, &least).empty()) {
    step.least_bits = least.bits_per_key();
  }
  for (size_t l = 0; l < live.size(); ++l) {
    step.optimum_level_bits.push_back(
        live[l].entries > 0 ? optimum.levels[l].bits_per_key : 0);
  }
  return step;
}

double BudgetOf(const std::string& uri) {
  ROCKSDB_NAMESPACE::Options probe;
  Check(monkey::Install(uri, &probe), "filter_uri");
  const auto* monkey =
      probe.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
          ->filter_policy->CheckedCast<monkey::MonkeyFilterPolicy>();
  return monkey ? monkey->options().bits_per_key : 0;
}

nlohmann::json StepJson(const Step& s, double budget) {
  return {
      {"keys", s.keys},
      {"settled", s.settled},
      {"levels", s.levels},
      {"bits_per_key", s.realized},
      {"budget_deviation", budget > 0 ? s.realized / budget - 1 : 0.0},
      {"level_bits_per_key", s.level_bits},
      {"optimum_level_bits_per_key", s.optimum_level_bits},
      {"sum_fpr", s.sum_fpr},
      {"optimum_sum_fpr", s.optimum},
      {"uniform_sum_fpr", s.uniform},
      {"least_bits_for_uniform", s.least_bits},
      {"ratio", s.ratio()},
      {"held_budget_ratio", s.held_budget_ratio},
      {"level_files", s.level_files},
      {"level_unfiltered_files", s.level_unfiltered_files},
      {"level_unfiltered_keys", s.level_unfiltered_keys},
      {"unfiltered_upper_fp_per_lookup", s.unfiltered_upper_fp},
      {"fp_per_lookup_with_unfiltered", s.sum_fpr + s.unfiltered_upper_fp},
      {"data_blocks_per_lookup", s.data_blocks_per_lookup},
      {"deepest_level_cover", s.deepest_level_cover},
      {"unfiltered_above_bottom_fp_per_lookup", s.unfiltered_above_bottom_fp},
      {"filter_bytes", s.filter_bytes},
      {"entries", s.entries}};
}

}  // namespace grow_tree
