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

namespace grow_tree {
namespace {

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

}  // namespace
}  // namespace grow_tree

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Grows a DB in steps under each filter policy and reports realized "
      "filter bits/key and measured sum FPR against Monkey's optimum; "
      "--matrix runs the live plan's benchmark over load regimes.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_matrix) return grow_tree::RunMatrix();
  std::vector<uint64_t> steps;
  for (const auto& s : grow_tree::Split(FLAGS_steps, ','))
    steps.push_back(std::stoull(s));
  if (steps.empty() || !std::is_sorted(steps.begin(), steps.end())) {
    fprintf(stderr, "grow_tree: --steps must be increasing key counts\n");
    return 1;
  }
  return grow_tree::RunSingle(steps);
}
