// grow_tree's parts (bench/grow_tree/): a tree's load and how it grows
// (load.cc), what a step measures (measure.cc), the load-regime matrix
// (matrix.cc), and the command line (main.cc, which defines the flags
// declared here).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gflags/gflags.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"
#include "nlohmann/json.hpp"
#include "rocksdb/db.h"

DECLARE_string(db);
DECLARE_string(filter_uris);
DECLARE_string(steps);
DECLARE_string(dynamic_levels);
DECLARE_string(order);
DECLARE_int32(writers);
DECLARE_bool(disable_wal);
DECLARE_bool(settle_steps);
DECLARE_int32(key_size);
DECLARE_int32(value_size);
DECLARE_int64(write_buffer_size);
DECLARE_int64(max_bytes_for_level_base);
DECLARE_int64(target_file_size_base);
DECLARE_double(size_ratio);
DECLARE_int32(num_levels);
DECLARE_int32(probes);
DECLARE_uint64(seed);
DECLARE_string(json);
DECLARE_bool(debug_log);
DECLARE_bool(listener);
DECLARE_bool(matrix);
DECLARE_string(matrix_filter_uri);
DECLARE_string(matrix_memtable_mib);
DECLARE_string(matrix_base_multiples);
DECLARE_string(matrix_size_ratios);
DECLARE_string(matrix_dynamic);
DECLARE_string(matrix_loads);
DECLARE_double(matrix_memtables);
DECLARE_int64(matrix_max_keys);
DECLARE_int32(matrix_steps);

namespace grow_tree {

// The items of a `sep`-separated flag, empty ones left out.
std::vector<std::string> Split(const std::string& s, char sep);

// Key `id` as the tree stores it: FLAGS_key_size decimal digits.
std::string Key(uint64_t id);

// Exits with `what` and the status when it is not OK.
void Check(const ROCKSDB_NAMESPACE::Status& s, const std::string& what);

// How a tree is loaded.
struct Load {
  std::string name;
  bool sequential = false;
  bool disable_wal = false;
  int writers = 1;
};

// fast, writers4 or sequential; exits on any other name.
Load LoadNamed(const std::string& name);

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

// Grows the tree `spec` describes through `steps` keys and measures it at
// each: settled if `settle_steps`, else mid-load and once more settled.
std::vector<Step> Grow(const TreeSpec& spec, const std::vector<uint64_t>& steps,
                       bool settle_steps, const std::string& label);

// Measures the tree as it is: its shape and filters from the library's
// filter report, and false positives per absent lookup over `range` ids.
Step Measure(ROCKSDB_NAMESPACE::DB* db,
             const ROCKSDB_NAMESPACE::Options& options, std::mt19937_64* rng,
             uint64_t range);

// A Monkey policy string's bits_per_key; 0 for any other policy.
double BudgetOf(const std::string& uri);

// One step as grow_tree's JSON holds it.
nlohmann::json StepJson(const Step& s, double budget);

// --matrix: grows every cell of the load-regime matrix; the exit status.
int RunMatrix();

}  // namespace grow_tree
