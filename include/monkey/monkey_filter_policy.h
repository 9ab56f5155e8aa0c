// MonkeyFilterPolicy: a drop-in RocksDB FilterPolicy that gives each LSM level
// its own Bloom (or Ribbon) bits per key, as Monkey (SIGMOD 2017) prescribes,
// within an average bits-per-key budget.
//
// Why. RocksDB gives every SST the same bits per key. Level sizes grow
// geometrically, so ~90% of filter memory sits in the last level, while every
// level's false positives add to each lookup of an absent key -- the existence
// check of every unique-key insert. Monkey makes each level's FPR
// proportional to the size of its runs: small upper levels get more bits, the
// last level fewer, and the sum of FPRs drops at the same memory.
//
// How. RocksDB's BlockBasedTableBuilder calls GetBuilderWithContext() for
// every SST it writes, with the SST's level and column family
// (FilterBuildingContext; RocksDB >= 6.21 fills level_at_creation, reason and
// num_levels). The policy looks the level up in the plan of that column
// family's live shape (fed by the listener that monkey::Install adds), or in a
// static geometric plan, and defers to a built-in policy with that many bits,
// or builds no filter where the plan says 0. Files stay readable by stock
// RocksDB: the compatibility name and the reader are the built-in ones.
//
// Use:
//   monkey::Install("id=monkey;bits_per_key=7", &options);  // install.h
// or, without the live shape:
//   RegisterMonkeyFilterPolicy(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(),
//   ""); ROCKSDB_NAMESPACE::ConfigOptions config;
//   config.ignore_unsupported_options = false;  // else typos mean NO filter
//   ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, "monkey:7",
//   &policy);
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "monkey/plan_choices.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/utilities/object_registry.h"

namespace monkey {

struct MonkeyOptions {
  static const char* kName() { return "MonkeyOptions"; }

  // The average budget over the keys of the levels that may carry filters,
  // in real filter bits per key (what 8 * filter_size / num_filter_entries
  // reports), like bloomfilter:<bits_per_key>.
  double bits_per_key = 10;
  // The level size ratio T of the static plan (RocksDB's
  // max_bytes_for_level_multiplier).
  double size_ratio = 10;
  // false: no filter on the last level (like optimize_filters_for_hits, and
  // TDStore's setup); the budget then averages over the other levels. Under
  // universal compaction: none on the bottommost sorted run (the files a
  // compaction that takes in the oldest run builds).
  bool last_level_filter = true;
  // The filter each level gets; in options strings "bloom", "ribbon" or
  // "auto" (plan_choices.h).
  using Filter = FilterChoice;
  Filter filter = Filter::kBloom;
  // What a column family is planned for; in options strings "live" or
  // "static".
  enum class Shape {
    // Its live shape when a listener feeds it (monkey::Install adds one),
    // else the static shape.
    kLive,
    // Always the static shape: num_levels levels, each size_ratio times the
    // one above, the last one full.
    kStatic,
  };
  Shape shape = Shape::kLive;
  // What the plan minimises; in options strings "fpr", "memory" or "io"
  // (plan_choices.h). kMemory: the least filter memory whose Sigma FPR is at
  // most max_sum_fpr, or, without one, at most what uniform bits_per_key
  // filters give the same tree ("never worse than bloomfilter:<bits_per_key>,
  // with less memory"). The saving grows with the tree's depth: at T = 10
  // the model matches uniform 10 bits with 9.1 bits/key at 2 runs, 6.8 at 6.
  using Objective = monkey::Objective;
  Objective objective = Objective::kSumFpr;
  // objective=memory's target: expected false positives per absent-key
  // lookup, a fraction (0.02: 2 in 100). 0 means none is set.
  double max_sum_fpr = 0;
  // objective=io's block cache, in bytes. 0: the capacity of the block
  // cache that the table options (cache_index_and_filter_blocks) read
  // filters through, which monkey::Install finds, read at every plan.
  // objective=io plans the live shape within the filter memory of the
  // objective=fpr plan for bits_per_key: a static shape, and a live one
  // before its first plan, get that plan. Under memory pressure the cost
  // of an absent-key lookup is the blocks it reads, and a filter block the
  // cache does not hold is one of them: each run costs a filter read (a
  // partition, or a file's whole filter) at every lookup that misses it,
  // and an upper level's bigger filter is cached less often
  // (docs/math.md#block-cache).
  double cache_bytes = 0;
  // objective=io: the bytes the device reads in the time a read takes
  // whatever its size, so that a read of n bytes costs 1 + n /
  // read_latency_bytes small reads. It prices a full filter's read, a whole
  // filter block of a file, against a partition's. The default, 128 KiB,
  // is near an NVMe drive's (a SATA SSD's is near 50 KB); bench/cache_grid.py
  // fits the device's own from its runs (util/cache_plan.h).
  double read_latency_bytes = 131072;
};

// One level of a live tree, as the listener reports it (its definition is
// internal to the library).
struct LiveLevel;
struct LevelSizing;
struct CacheLayout;
struct TieredJobPlan;
class ShapeListener;

class MonkeyFilterPolicy : public ROCKSDB_NAMESPACE::FilterPolicy {
 public:
  // A policy with the default options. Options come through Create(), which
  // validates them, or through RocksDB's configuration (ConfigureFromMap,
  // CreateFromString, an OPTIONS file), which validates them the same way.
  MonkeyFilterPolicy();
  ~MonkeyFilterPolicy() override;

  // A policy with these options, or InvalidArgument naming the bad value.
  static ROCKSDB_NAMESPACE::Status Create(
      const MonkeyOptions& options,
      std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);

  static const char* kClassName() { return "monkey"; }
  const char* Name() const override { return kClassName(); }
  // The built-in family's name, so that stock RocksDB reads our filters.
  const char* CompatibilityName() const override;

  ROCKSDB_NAMESPACE::FilterBitsBuilder* GetBuilderWithContext(
      const ROCKSDB_NAMESPACE::FilterBuildingContext& context) const override;
  ROCKSDB_NAMESPACE::FilterBitsReader* GetFilterBitsReader(
      const ROCKSDB_NAMESPACE::Slice& contents) const override;

  const MonkeyOptions& options() const { return options_; }

  // Real millibits per key the policy builds for a file created at `level`
  // of column family `column_family`: from its live plan when there is one
  // (shape=live), else from the static plan for `num_levels` levels. Level
  // -1 (unknown) gets the average budget. 0 means no filter.
  int MillibitsForLevel(int level, int num_levels,
                        const std::string& column_family =
                            ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) const;

  // Whether a file built at `level` (0 for flushes) is a Ribbon filter.
  bool BuildsRibbon(int level) const;

  // Files built under universal compaction (shape=live) at the average
  // budget because the sorted run they build was unknown: no shape listener
  // feeds the policy, the listener heard of no job for the file (a flush while
  // DB::Open recovers the WAL, SstFileWriter, ingestion), or the job's run
  // and RocksDB's bottommost disagree under last_level_filter=false. The
  // info LOG says so once per column family, and PlanToString gives the
  // count. FIFO trees are not counted: the budget is their plan.
  uint64_t tiered_fallbacks() const { return tiered_fallbacks_; }

  // The plan as a table (per level: bits per key, predicted FPR, share of
  // keys): the live plan of `column_family` if there is one, else the
  // static plan for num_levels levels. Under universal compaction: the
  // sorted runs the last job planned for, with its run marked.
  std::string PlanToString(
      int num_levels, const std::string& column_family =
                          ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) const;

 protected:
  // Validates the options and re-plans after every configuration change.
  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  // The listener publishes live shapes; tests read them back.
  friend class ShapeListener;
  friend class MonkeyFilterPolicyPeer;

  // Publishes a column family's live shape; files built from now on use its
  // plan. Thread-safe against concurrent filter building. An empty tree
  // (no entries) withdraws the live plan.
  // `sizing` is how RocksDB sizes the column family's levels, if known.
  void UpdateLiveShape(const std::string& column_family,
                       const std::vector<LiveLevel>& levels) const;
  void UpdateLiveShape(const std::string& column_family,
                       const std::vector<LiveLevel>& levels,
                       const LevelSizing& sizing) const;
  // `cache` is the block cache objective=io plans for, with the capacity
  // to plan at (cache_bytes, else the table options' cache's).
  void UpdateLiveShape(const std::string& column_family,
                       const std::vector<LiveLevel>& levels,
                       const LevelSizing& sizing,
                       const CacheLayout& cache) const;
  // The live shape last published for a column family; empty if none.
  std::vector<LiveLevel> LiveShapeOf(const std::string& column_family) const;
  // The level sizing published with it; unknown if none.
  LevelSizing LiveSizingOf(const std::string& column_family) const;

  // Whether shape=live and no listener has published a shape of
  // `column_family` yet: the static plan is then the plan, for a tree as
  // deep as the files built so far show (UnfedTreeOf), and said once in
  // the info LOG (NoteUnfedBuild) and by PlanToString.
  bool NeverFed(const std::string& column_family) const;
  // For a file a column family builds at `level` while it has no live plan
  // (never fed, fed an empty tree, or its planner not yet done): learns
  // the tree's depth from where compactions build (is_bottommost: nothing
  // lies below the file's key range), and if never fed logs the missing
  // listener once.
  void NoteUnfedBuild(const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
                      int level) const;
  // A column family's tree as its compactions showed it while it had no
  // live plan (the static plan is planned that deep): `levels`,
  // the deepest output with nothing below it + 1 (0: none seen yet), and
  // `base`, the shallowest level below L0 they wrote (where L0 drains).
  struct UnfedTree {
    int levels = 0;
    int base = 0;
  };
  UnfedTree UnfedTreeOf(const std::string& column_family) const;

  // The listeners feeding this policy, which a builder may ask for its
  // job's plan (BuildingFileOnThisThread names one).
  void AddListener(ShapeListener* listener) const;
  void RemoveListener(ShapeListener* listener) const;
  bool FedBy(ShapeListener* listener) const;
  // Universal compaction: the millibits of the sorted run `context`'s file
  // belongs to, from its job's plan; the average budget (counted in
  // tiered_fallbacks) where the run is unknown. 0: no filter.
  int TieredMillibits(const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
                      int level) const;
  // The last tiered plan a listener made for `column_family`, for
  // PlanToString.
  void NoteTieredPlan(const std::string& column_family,
                      std::shared_ptr<const TieredJobPlan> plan) const;

  struct LevelPlans;
  void NoteTiered(const std::string& column_family,
                  ROCKSDB_NAMESPACE::CompactionStyle style) const;
  ROCKSDB_NAMESPACE::Status Replan();
  std::shared_ptr<const LevelPlans> StaticPlan(int num_levels) const;
  std::shared_ptr<const LevelPlans> LivePlansOf(
      const std::string& column_family) const;
  // The built-in policy for a level's filter; nullptr for no filter.
  const ROCKSDB_NAMESPACE::FilterPolicy* BuiltinFor(int level,
                                                    int millibits) const;

  MonkeyOptions options_;
  // Any built-in policy reads every built-in filter format.
  std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> reader_;

  mutable std::mutex mu_;
  // A ShapeListener feeds this policy: until its first shape arrives, a
  // flush gets the budget rather than the static plan (see
  // MillibitsForLevel).
  mutable std::atomic<bool> has_listener_{false};
  // Live shapes published so far.
  mutable std::atomic<uint64_t> live_updates_{0};
  // Static plans by num_levels, made on first use and kept.
  mutable std::map<int, std::shared_ptr<const LevelPlans>> static_plans_;
  // Column families a listener has published a shape of, and those whose
  // missing listener has been logged.
  mutable std::set<std::string> fed_;
  mutable std::set<std::string> warned_;
  mutable std::map<std::string, UnfedTree> unfed_trees_;
  // Column families last seen building a file under universal or FIFO
  // compaction, and that style: PlanToString says what they get.
  mutable std::map<std::string, ROCKSDB_NAMESPACE::CompactionStyle> tiered_;
  mutable std::set<ShapeListener*> listeners_;
  mutable std::map<std::string, std::shared_ptr<const TieredJobPlan>>
      tiered_plans_;
  mutable std::atomic<uint64_t> tiered_fallbacks_{0};
  mutable std::set<std::string> tiered_warned_;
  // Live plans by column family, replaced whole by UpdateLiveShape.
  mutable std::map<std::string, std::shared_ptr<const LevelPlans>> live_plans_;
  // Built-in policies by (Ribbon?, RocksDB setting in millibits). They live
  // as long as this policy: builders keep pointers into them
  // (optimize_filters_for_memory).
  mutable std::map<std::pair<bool, int>,
                   std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>>
      builtins_;
};

}  // namespace monkey

// Registers the id "monkey" with a RocksDB ObjectLibrary, so that
// FilterPolicy::CreateFromString accepts "monkey:7" and
// "id=monkey;bits_per_key=7;size_ratio=10;last_level_filter=false". It is
// also the RocksDB plugin registrar (monkey_FUNC in monkey.mk).
extern "C" int RegisterMonkeyFilterPolicy(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& arg);
