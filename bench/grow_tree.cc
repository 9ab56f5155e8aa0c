// grow_tree: grows a RocksDB in steps under each filter policy given, and
// reports at every step what the filters cost and what they buy:
//   - realized filter bits per key over the keys in live SSTs (8 *
//     filter_size / num_filter_entries), against the budget;
//   - measured sum of FPRs: false positives per absent in-range lookup;
//   - the planner's optimum for the realized shape at the same memory, each
//     run weighted by the share of lookups that reach it, and the ratio;
//   - the model's Sigma FPR for uniform filters on that shape, and the least
//     bits per key any plan needs to reach it (objective=memory's floor).
//
// Two modes:
//   grow_tree --filter_uris='id=monkey;bits_per_key=8;shape=live|...'
//     one tree per policy and dynamic-sizing setting; by default each step
//     waits for compactions (--settle_steps), as docs/design.md's tables.
//   grow_tree --matrix
//     the live plan's benchmark over load regimes: memtable sizes, base
//     level sizes, size ratios, dynamic sizing on and off, and three loads
//     (fast: WAL off, one writer; writers4: four writers with the WAL;
//     sequential: ascending keys, WAL off). Each step is a snapshot taken
//     mid-load (writes stopped, background work paused once the running
//     jobs finish), then the tree is flushed and settled for a last one.
//     Each cell is checked against docs/design.md's bounds: sum FPR within
//     1.25x of the optimum at every step and 1.10x once settled, the
//     budget within 5% at every settled step, and (dynamic sizing on) live
//     within 1.05x of the static shape at equal memory.
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

DEFINE_string(db, "/tmp/monkey_grow_tree", "Directory for the DBs (wiped)");
DEFINE_string(filter_uris,
              "id=monkey;bits_per_key=8;shape=live|"
              "id=monkey;bits_per_key=8;shape=static",
              "Filter policies to grow a tree under, separated by '|'");
DEFINE_string(steps, "1000000,2000000,4000000,8000000",
              "Key counts at which to measure");
DEFINE_string(dynamic_levels, "false,true",
              "level_compaction_dynamic_level_bytes settings to run");
DEFINE_string(order, "random", "Insert order: random or sequential");
DEFINE_int32(writers, 1, "Writer threads");
DEFINE_bool(disable_wal, false, "Write without the WAL (a bulk load)");
DEFINE_bool(settle_steps, true,
            "Flush and wait for compactions before each step's measurement; "
            "false measures mid-load and settles only after the last step "
            "(--matrix: false unless given)");
DEFINE_int32(key_size, 16, "Key size in bytes");
DEFINE_int32(value_size, 100, "Value size in bytes");
DEFINE_int64(write_buffer_size, 4 << 20, "Memtable size");
DEFINE_int64(max_bytes_for_level_base, 16 << 20, "L1 (base level) size");
DEFINE_int64(target_file_size_base, 4 << 20, "SST size");
DEFINE_double(size_ratio, 10, "max_bytes_for_level_multiplier");
DEFINE_int32(num_levels, 7, "LSM levels");
DEFINE_int32(probes, 200000, "Absent lookups per measurement");
DEFINE_uint64(seed, 1, "Seed of the insert order and the probes");
DEFINE_string(json, "", "Also write the results to this JSON file");
DEFINE_bool(debug_log, false,
            "Log at DEBUG level, so the DB's LOG shows each SST's bits");

DEFINE_bool(listener, true,
            "Feed the policy the live shape (monkey::Install's listener); "
            "false: the policy alone, as LD_PRELOAD or ldb run it");

DEFINE_bool(matrix, false, "Run the load-regime matrix (see the top)");
DEFINE_string(matrix_filter_uri, "id=monkey;bits_per_key=8",
              "Matrix: the Monkey policy, run with shape=live and (dynamic "
              "sizing on) shape=static");
DEFINE_string(matrix_memtable_mib, "1,2,4,64", "Matrix: memtable sizes");
DEFINE_string(matrix_base_multiples, "1,2,4",
              "Matrix: base level size as multiples of the memtable");
DEFINE_string(matrix_size_ratios, "6,8,10", "Matrix: level size ratios T");
DEFINE_string(matrix_dynamic, "true,false", "Matrix: dynamic level sizing");
DEFINE_string(matrix_loads, "fast,writers4,sequential", "Matrix: loads");
DEFINE_double(matrix_memtables, 64,
              "Matrix: data per cell, in memtables (capped by "
              "--matrix_max_keys)");
DEFINE_int64(matrix_max_keys, 6000000, "Matrix: most keys per cell");
DEFINE_int32(matrix_steps, 4,
             "Matrix: growth steps per cell, at k/steps of the data");

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Present keys are even ids, absent keys odd ones: every probe falls inside
// the key range of every level.
std::string Key(uint64_t id) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%0*" PRIu64, FLAGS_key_size, id);
  return buf;
}

void Check(const ROCKSDB_NAMESPACE::Status& s, const std::string& what) {
  if (!s.ok()) {
    fprintf(stderr, "grow_tree: %s: %s\n", what.c_str(), s.ToString().c_str());
    exit(1);
  }
}

void WaitForCompactions(ROCKSDB_NAMESPACE::DB* db) {
  Check(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()), "flush");
  for (;;) {
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// How a tree is loaded.
struct Load {
  std::string name;
  bool sequential = false;
  bool disable_wal = false;
  int writers = 1;
};

Load LoadNamed(const std::string& name) {
  if (name == "fast") return {name, false, true, 1};
  if (name == "writers4") return {name, false, false, 4};
  if (name == "sequential") return {name, true, true, 1};
  fprintf(stderr, "grow_tree: unknown load '%s' (fast, writers4, sequential)\n",
          name.c_str());
  exit(1);
}

// One tree's options.
struct TreeSpec {
  std::string uri;
  bool dynamic = false;
  Load load;
  int64_t write_buffer_size = 0;
  int64_t base_level_size = 0;
  int64_t target_file_size = 0;
  double size_ratio = 10;
};

struct Step {
  uint64_t keys = 0;
  bool settled = false;
  std::string levels;   // e.g. "L0x2 L4 L5 L6"
  double realized = 0;  // filter bits per key over keys with a filter
  double sum_fpr = 0;   // false positives per absent lookup
  double optimum = 0;   // planner's sum FPR for this shape and memory
  // The model's sum FPR for uniform filters on this shape at a Monkey
  // policy's bits_per_key (objective=memory's default target), or at the
  // realized bits for any other policy.
  double uniform = 0;
  // The least filter bits per key any plan needs to reach `uniform` on this
  // shape (PlanLeastBits): the floor of objective=memory's bytes at this
  // step, whatever the controller does; 0 if the model cannot reach it.
  double least_bits = 0;
  std::vector<double> level_bits;
  std::vector<double> optimum_level_bits;  // the optimum's plan
  // The live shape measured and its filters' models, for HeldBudgetRatio.
  std::vector<monkey::LevelShape> shape;
  std::vector<monkey::FprModel> models;
  // At a step over the budget: the least Sigma FPR any bits for
  // L0's files reach with the levels below as built and the tree held to
  // the budget's bound, over the optimum at those bytes (0 elsewhere).
  double held_budget_ratio = 0;
  // Per level: files, files built without a filter (filter_size 0) and their
  // keys. `sum_fpr` counts filter false positives only: a file without a
  // filter above the deepest level is read by every lookup whose key falls in
  // its range, and no filter counter sees it.
  std::vector<uint64_t> level_files, level_unfiltered_files;
  std::vector<uint64_t> level_unfiltered_keys;
  // Those files at FPR 1: the share of probes inside their ranges, over
  // files without a filter in L0 and in every level above the deepest
  // non-empty one. An upper bound on what they cost: such a file can be the
  // deepest run for its keys (see unfiltered_above_bottom_fp).
  double unfiltered_upper_fp = 0;
  // Measured: data blocks read per absent lookup (block cache data hits and
  // misses: false positives plus reads of files without a filter), and the
  // share of probes the deepest level covers.
  double data_blocks_per_lookup = 0;
  double deepest_level_cover = 0;
  // The files without a filter above the deepest run covering each probe's
  // key (RocksDB's is_bottommost sense), per absent lookup: where the deepest
  // level has no file, the level above is the key's bottom, and its file
  // without a filter costs what last_level_filter=false accepts there.
  double unfiltered_above_bottom_fp = 0;
  uint64_t filter_bytes = 0;  // all filters
  uint64_t entries = 0;       // all keys
  double ratio() const { return optimum > 0 ? sum_fpr / optimum : 0; }
};

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

// Measures the tree as it is: its shape and filters from the library's
// filter report, and false positives per absent lookup over `range` ids.
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

// Writes ids order[from, to) with `writers` threads.
void Write(ROCKSDB_NAMESPACE::DB* db, const Load& load,
           const std::vector<uint64_t>& order, uint64_t from, uint64_t to) {
  ROCKSDB_NAMESPACE::WriteOptions write_options;
  write_options.disableWAL = load.disable_wal;
  const std::string value(FLAGS_value_size, 'v');
  std::vector<std::thread> threads;
  for (int t = 0; t < load.writers; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = from + t; i < to; i += load.writers) {
        Check(db->Put(write_options, Key(2 * order[i]), value), "put");
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

std::vector<Step> Grow(const TreeSpec& spec, const std::vector<uint64_t>& steps,
                       bool settle_steps, const std::string& label) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.compression = ROCKSDB_NAMESPACE::kNoCompression;
  options.write_buffer_size = spec.write_buffer_size;
  options.max_bytes_for_level_base = spec.base_level_size;
  options.target_file_size_base = spec.target_file_size;
  options.max_bytes_for_level_multiplier = spec.size_ratio;
  options.level_compaction_dynamic_level_bytes = spec.dynamic;
  options.num_levels = FLAGS_num_levels;
  options.max_background_jobs = 2;
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
  if (FLAGS_debug_log) options.info_log_level = ROCKSDB_NAMESPACE::DEBUG_LEVEL;
  Check(monkey::Install(spec.uri, &options), "filter_uri");
  if (!FLAGS_listener) {
    // A policy no listener was ever made for, as LD_PRELOAD or ldb make it:
    // Install's policy knows it had a listener.
    options.listeners.clear();
    ROCKSDB_NAMESPACE::ConfigOptions config;
    config.ignore_unsupported_options = false;
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> alone;
    Check(ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, spec.uri,
                                                            &alone),
          "filter_uri");
    options.table_factory
        ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
        ->filter_policy = alone;
  }
  std::filesystem::remove_all(FLAGS_db);
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  Check(monkey::OpenDB(options, FLAGS_db, &db), "open");

  std::vector<uint64_t> order(steps.back());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(FLAGS_seed);
  if (!spec.load.sequential) std::shuffle(order.begin(), order.end(), rng);
  std::vector<Step> out;
  uint64_t loaded = 0;
  auto measure = [&](uint64_t keys, bool settled, double seconds) {
    // Random order: each step adds keys all over the range, which is the
    // same at every step. Sequential: probe the part written so far.
    const uint64_t range = spec.load.sequential ? keys : steps.back();
    out.push_back(Measure(db.get(), options, &rng, range));
    Step& s = out.back();
    s.keys = keys;
    s.settled = settled;
    fprintf(stderr,
            "grow_tree: %s: %" PRIu64
            " keys%s (%.0f s): %s, %.3f bits/key, sum FPR %.3f%% (optimum "
            "%.3f%%, ratio %.3f)\n",
            label.c_str(), keys, settled ? " settled" : "", seconds,
            s.levels.c_str(), s.realized, s.sum_fpr * 100, s.optimum * 100,
            s.ratio());
  };
  for (uint64_t target : steps) {
    const auto start = std::chrono::steady_clock::now();
    Write(db.get(), spec.load, order, loaded, target);
    loaded = target;
    if (settle_steps) WaitForCompactions(db.get());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (settle_steps) {
      measure(target, true, seconds);
    } else {
      // A snapshot of the tree mid-load: no job changes it while probed.
      Check(db->PauseBackgroundWork(), "pause");
      measure(target, false, seconds);
      Check(db->ContinueBackgroundWork(), "continue");
    }
  }
  if (!settle_steps) {
    const auto start = std::chrono::steady_clock::now();
    WaitForCompactions(db.get());
    measure(
        steps.back(), true,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return out;
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

int RunSingle(const std::vector<uint64_t>& steps) {
  nlohmann::json results = nlohmann::json::array();
  printf("%-42s %-7s %9s %-20s %9s %8s %9s %9s %6s %9s %10s\n", "filter_uri",
         "dynamic", "keys", "levels", "bits/key", "vs budg", "sum FPR",
         "optimum", "ratio", "uniform", "least bits");
  Load load{FLAGS_order, FLAGS_order == "sequential", FLAGS_disable_wal,
            FLAGS_writers};
  for (const std::string& dynamic : Split(FLAGS_dynamic_levels, ',')) {
    for (const std::string& uri : Split(FLAGS_filter_uris, '|')) {
      TreeSpec spec{uri,
                    dynamic == "true",
                    load,
                    FLAGS_write_buffer_size,
                    FLAGS_max_bytes_for_level_base,
                    FLAGS_target_file_size_base,
                    FLAGS_size_ratio};
      const double budget = BudgetOf(uri);
      const std::string label = uri + " dynamic=" + dynamic;
      for (const Step& s : Grow(spec, steps, FLAGS_settle_steps, label)) {
        printf("%-42s %-7s %9" PRIu64
               " %-20s %9.3f %7.1f%% %8.3f%% %8.3f%% "
               "%6.3f %8.3f%% %10.3f\n",
               uri.c_str(), dynamic.c_str(), s.keys, s.levels.c_str(),
               s.realized, budget > 0 ? (s.realized / budget - 1) * 100 : 0,
               s.sum_fpr * 100, s.optimum * 100, s.ratio(), s.uniform * 100,
               s.least_bits);
        nlohmann::json j = StepJson(s, budget);
        j["filter_uri"] = uri;
        j["dynamic_levels"] = spec.dynamic;
        j["order"] = FLAGS_order;
        results.push_back(j);
      }
      fflush(stdout);
    }
  }
  if (!FLAGS_json.empty()) std::ofstream(FLAGS_json) << results.dump(2) << "\n";
  return 0;
}

// The bounds a matrix cell is held to (docs/design.md#live-plan).
constexpr double kMaxStepRatio = 1.25;
constexpr double kMaxSettledRatio = 1.10;
constexpr double kMaxBudgetDeviation = 0.05;
constexpr double kMaxLiveOverStaticFpr = 1.05;
// The static shape's ratio at its own bytes is measured only when its
// optimum expects this many false positives over the probes: below it the
// ratio is noise (one false positive more or less moves it by 1/N), and a
// static plan that spends several times the budget -- 48 bits/key on L0
// files that trivial moves carry down under sequential keys -- leaves
// next to none.
constexpr double kMinStaticFalsePositives = 30;

// The least Sigma FPR a step could have had with its budget held, over the
// optimum at that budget: L0's files at whatever bits keep the tree within
// `max_bits_per_key`, the levels below as built (their files are sunk).
// Over kMaxStepRatio, no choice of L0's bits at that moment meets both the
// budget's bound and the step's.
double HeldBudgetRatio(const Step& s, double max_bits_per_key) {
  if (s.shape.empty()) return 0;
  const monkey::Plan held = monkey::HoldBudgetWithL0(
      s.shape, s.level_bits, max_bits_per_key, s.models);
  const double optimum =
      monkey::PlanBitsPerKey(s.shape, max_bits_per_key, s.models).sum_fpr;
  return optimum > 0 ? held.sum_fpr / optimum : 0;
}

int RunMatrix() {
  const double entry_bytes = FLAGS_key_size + FLAGS_value_size;
  const std::string live_uri = FLAGS_matrix_filter_uri + ";shape=live";
  const std::string static_uri = FLAGS_matrix_filter_uri + ";shape=static";
  const double budget = BudgetOf(live_uri);
  // The matrix's bounds are for growth steps as a load leaves them and for
  // the settled end, so it measures mid-load unless --settle_steps is given.
  const bool settle_steps =
      !gflags::GetCommandLineFlagInfoOrDie("settle_steps").is_default &&
      FLAGS_settle_steps;
  nlohmann::json results = nlohmann::json::array();
  int cells = 0, failed = 0;
  printf("%-44s %9s %-22s %8s %9s %6s %6s %7s %7s %s\n", "cell", "keys",
         "levels (live)", "bits/key", "sum FPR", "ratio", "worst", "budget",
         "midload", "verdict");
  for (const std::string& memtable : Split(FLAGS_matrix_memtable_mib, ','))
    for (const std::string& multiple : Split(FLAGS_matrix_base_multiples, ','))
      for (const std::string& ratio : Split(FLAGS_matrix_size_ratios, ','))
        for (const std::string& dynamic : Split(FLAGS_matrix_dynamic, ','))
          for (const std::string& load : Split(FLAGS_matrix_loads, ',')) {
            TreeSpec spec;
            spec.dynamic = dynamic == "true";
            spec.load = LoadNamed(load);
            spec.write_buffer_size =
                static_cast<int64_t>(std::stod(memtable) * (1 << 20));
            spec.base_level_size = static_cast<int64_t>(std::stod(multiple) *
                                                        spec.write_buffer_size);
            spec.target_file_size = spec.write_buffer_size;
            spec.size_ratio = std::stod(ratio);
            const uint64_t keys = static_cast<uint64_t>(std::min<double>(
                FLAGS_matrix_max_keys,
                FLAGS_matrix_memtables * spec.write_buffer_size / entry_bytes));
            std::vector<uint64_t> steps;
            for (int k = 1; k <= FLAGS_matrix_steps; ++k) {
              steps.push_back(keys * k / FLAGS_matrix_steps);
            }
            char name[128];
            snprintf(name, sizeof(name), "mem=%sM base=%sx T=%s dyn=%s %s",
                     memtable.c_str(), multiple.c_str(), ratio.c_str(),
                     spec.dynamic ? "on" : "off", load.c_str());
            spec.uri = live_uri;
            std::vector<Step> live = Grow(spec, steps, settle_steps, name);
            std::vector<Step> fixed;
            if (spec.dynamic) {
              spec.uri = static_uri;
              fixed = Grow(spec, steps, settle_steps,
                           std::string(name) + " static");
            }
            double worst = 0, worst_budget = 0, worst_budget_midload = 0;
            // The budget is held at settled steps; mid-load an L0 backlog
            // holds the memory its filters need (docs/design.md). Both are
            // reported, with the mid-load steps over the budget's bound and
            // those of them at which no bits for L0 could have held it
            // within kMaxStepRatio of the optimum; a settled step over it,
            // with what holding it would have cost.
            int over_budget = 0, over_budget_past_ratio = 0;
            for (Step& s : live) {
              worst = std::max(worst, s.ratio());
              const double deviation = std::fabs(s.realized / budget - 1);
              double& worst_of_kind =
                  s.settled ? worst_budget : worst_budget_midload;
              worst_of_kind = std::max(worst_of_kind, deviation);
              if (s.realized > budget * (1 + kMaxBudgetDeviation)) {
                s.held_budget_ratio =
                    HeldBudgetRatio(s, budget * (1 + kMaxBudgetDeviation));
                if (!s.settled) {
                  ++over_budget;
                  over_budget_past_ratio += s.held_budget_ratio > kMaxStepRatio;
                }
              }
            }
            const Step& end = live.back();
            std::string verdict;
            if (worst > kMaxStepRatio) verdict += " step-ratio";
            if (end.ratio() > kMaxSettledRatio) verdict += " settled-ratio";
            if (worst_budget > kMaxBudgetDeviation) verdict += " budget";
            // Against the static shape, after the load: live's sum FPR and
            // bytes over static's, and each one's sum FPR over the optimum
            // at its own bytes. The static plan does not hold the budget on
            // a young tree (L0 files get its L0's 48 bits at monkey:8), so
            // at equal memory is the comparison that says which allocates
            // better; both are printed.
            double vs_static_fpr = 0, vs_static_bytes = 0, static_ratio = 0;
            bool static_measurable = false;
            if (!fixed.empty()) {
              const Step& s = fixed.back();
              vs_static_fpr = s.sum_fpr > 0 ? end.sum_fpr / s.sum_fpr : 0;
              vs_static_bytes = s.realized > 0 ? end.realized / s.realized : 0;
              static_ratio = s.ratio();
              static_measurable =
                  s.optimum * FLAGS_probes >= kMinStaticFalsePositives;
              if (static_measurable &&
                  end.ratio() > kMaxLiveOverStaticFpr * static_ratio) {
                verdict += " vs-static";
              }
            }
            ++cells;
            failed += !verdict.empty();
            printf("%-44s %9" PRIu64
                   " %-22s %8.3f %8.3f%% %6.3f %6.3f %6.1f%% %6.1f%% %s",
                   name, end.keys, end.levels.c_str(), end.realized,
                   end.sum_fpr * 100, end.ratio(), worst, worst_budget * 100,
                   worst_budget_midload * 100,
                   verdict.empty() ? "ok" : ("FAIL" + verdict).c_str());
            if (!fixed.empty()) {
              printf(" (vs static: %.3fx FPR at %.3fx bytes; ratio %.3f%s)",
                     vs_static_fpr, vs_static_bytes, static_ratio,
                     static_measurable ? "" : ", too few false positives");
            }
            if (over_budget > 0) {
              printf(
                  " (mid-load: %d step%s over the budget by more than "
                  "%.0f%%, %d past %.2fx the optimum at any bits for L0)",
                  over_budget, over_budget == 1 ? "" : "s",
                  kMaxBudgetDeviation * 100, over_budget_past_ratio,
                  kMaxStepRatio);
            }
            // Settled over the budget: L0's files below the compaction
            // trigger keep their premium. What the best bits for them
            // within the budget's bound would have bought.
            if (end.held_budget_ratio > 0) {
              printf(
                  " (settled: %.3fx the optimum at best for L0's bits "
                  "within the budget)",
                  end.held_budget_ratio);
            }
            printf("\n");
            fflush(stdout);
            nlohmann::json cell = {
                {"memtable_mib", std::stod(memtable)},
                {"base_multiple", std::stod(multiple)},
                {"size_ratio", spec.size_ratio},
                {"dynamic_levels", spec.dynamic},
                {"load", load},
                {"budget", budget},
                {"live", nlohmann::json::array()},
                {"static", nlohmann::json::array()},
                {"worst_step_ratio", worst},
                {"settled_ratio", end.ratio()},
                {"worst_budget_deviation", worst_budget},
                {"worst_midload_budget_deviation", worst_budget_midload},
                {"midload_steps_over_budget", over_budget},
                {"midload_steps_over_budget_past_ratio",
                 over_budget_past_ratio},
                {"static_measurable", static_measurable},
                {"ok", verdict.empty()}};
            for (const Step& s : live) {
              cell["live"].push_back(StepJson(s, budget));
            }
            for (const Step& s : fixed) {
              cell["static"].push_back(StepJson(s, budget));
            }
            results.push_back(cell);
            if (!FLAGS_json.empty()) {
              std::ofstream(FLAGS_json) << results.dump(2) << "\n";
            }
          }
  printf("grow_tree: matrix: %d of %d cells within bounds\n", cells - failed,
         cells);
  return failed == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Grows a DB in steps under each filter policy and reports realized "
      "filter bits/key and measured sum FPR against Monkey's optimum; "
      "--matrix runs the live plan's benchmark over load regimes.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_matrix) return RunMatrix();
  std::vector<uint64_t> steps;
  for (const auto& s : Split(FLAGS_steps, ',')) steps.push_back(std::stoull(s));
  if (steps.empty() || !std::is_sorted(steps.begin(), steps.end())) {
    fprintf(stderr, "grow_tree: --steps must be increasing key counts\n");
    return 1;
  }
  return RunSingle(steps);
}
