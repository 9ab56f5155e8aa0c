// A synthetic leveled LSM-tree that grows under a write load, for testing the
// live plan (util/live_plan.h) without RocksDB: files are created by flushes
// and rewritten by compactions with RocksDB's leveled rules as 7.8.3 to
// 11.x have them (level targets with or without dynamic level sizing,
// util/level_sizing.h; ComputeCompactionScore's scores, the highest
// compacted first, one file at a time into the overlapping files below,
// trivial moves where nothing overlaps), and each new file gets the
// bits the live plan gives its level at that moment, exactly as the
// listener and the policy feed it. The tree's Sigma FPR comes from the FPR
// model, so one growth path runs in milliseconds and has no sampling noise.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/level_sizing.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/shape_drift.h"

namespace monkey::test {

struct SimOptions {
  double memtable_keys = 1000;    // keys per flush
  double base_level_keys = 2000;  // max_bytes_for_level_base, in keys
  double file_keys = 1000;        // target_file_size_base, in keys
  double size_ratio = 10;         // max_bytes_for_level_multiplier
  int num_levels = 7;
  bool dynamic = true;      // level_compaction_dynamic_level_bytes
  int l0_trigger = 4;       // level0_file_num_compaction_trigger
  int l0_stop = 36;         // level0_stop_writes_trigger
  bool sequential = false;  // ascending keys, else uniform random
  // Keys one compaction merges while the writer fills one memtable: large
  // keeps up with the load, small is a fast bulk load whose L0 and upper
  // levels back up.
  double compaction_speed = 20;
  int compaction_threads = 1;
  // Snapshots wait for every compaction, as grow_tree --settle_steps does;
  // else they are taken mid-load, as DB::PauseBackgroundWork leaves it.
  bool settle_snapshots = false;
  // 0: the plan is re-made at every flush and compaction begin and end, as
  // the listener once did; else, as it does now, only when a job begins
  // that ShapeDrift(refresh_drift) finds the tree has drifted for, and at
  // the first flush.
  double refresh_drift = 0;
  uint64_t seed = 1;
};

// The tree at one moment.
struct SimSnapshot {
  double keys_written = 0;
  bool settled = false;           // all writes done and no compaction left
  std::vector<LevelShape> shape;  // runs weighted by the probes reaching them
  double bits_per_key = 0;        // realized, over filtered levels
  double l0_share = 0;            // L0's share of the keys of filtered levels
  double sum_fpr = 0;             // expected false positives per lookup
  double optimum = 0;  // the planner's sum FPR for `shape` at these bits
  std::string levels;  // "L0x2 L4 L5 L6"
  // Per level: realized bits per key, and the optimum's.
  std::vector<double> level_bits, optimum_bits;
  double ratio() const { return optimum > 0 ? sum_fpr / optimum : 0; }
};

class LsmSimulator {
 public:
  // The bits a file built at `level` gets, from the plan the simulator last
  // published; `plan` is null before the first one. Defaults to the live
  // plan's lookup (LivePlan::MillibitsForLevel).
  using Planner =
      std::function<bool(const std::vector<LiveLevel>& levels, LivePlan* plan)>;

  LsmSimulator(const SimOptions& sim, const LivePlanOptions& plan);
  // Replaces PlanLiveTree, e.g. with an older controller to compare.
  void set_planner(Planner planner) { planner_ = std::move(planner); }

  // Writes `memtables` memtables, measuring the tree after each write count
  // in `snapshot_at` (in memtables, increasing), then lets compactions
  // finish and measures once more (settled).
  std::vector<SimSnapshot> Run(int memtables,
                               const std::vector<int>& snapshot_at);

 private:
  struct File {
    uint64_t number = 0;
    int level = 0;
    double lo = 0, hi = 0;  // key range [lo, hi), keys spread evenly
    double keys = 0;
    int millibits = 0;
    int built_at = 0;  // the level its filter was built for
    bool flushed = false;
    bool busy = false;  // an input of a job in flight
  };
  struct Job {
    double end = 0;
    bool flush = false;
    int output_level = 0;
    std::vector<uint64_t> inputs;
    std::vector<File> outputs;
    bool trivial_move = false;
  };

  void Publish();
  // A job began that moves these (level, keys): publish if due.
  void Began(const std::vector<std::pair<int, double>>& moved);
  int MillibitsFor(int level) const;
  std::vector<double> LevelTargets() const;
  bool PickCompaction(Job* job) const;
  void BeginJob(Job job);
  void FinishJob(const Job& job);
  std::vector<File> Merge(const std::vector<const File*>& inputs, int level);
  SimSnapshot Measure(bool settled) const;
  int L0Files() const;

  SimOptions sim_;
  LivePlanOptions plan_options_;
  Planner planner_;
  std::vector<File> files_;
  std::vector<Job> jobs_;
  LivePlan plan_;
  ShapeDrift drift_;
  bool have_plan_ = false;
  uint64_t next_number_ = 1;
  double now_ = 0;
  double written_ = 0;  // keys
  double range_ = 1;    // the probed key range: [0, range_)
  double total_keys_ = 1;
  std::mt19937_64 rng_;
};

}  // namespace monkey::test
