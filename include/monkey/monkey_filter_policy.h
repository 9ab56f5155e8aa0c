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
//   RegisterMonkeyFilterPolicy(*rocksdb::ObjectLibrary::Default(), "");
//   rocksdb::ConfigOptions config;
//   config.ignore_unsupported_options = false;  // else typos mean NO filter
//   rocksdb::FilterPolicy::CreateFromString(config, "monkey:7", &policy);
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

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
  // TDStore's setup); the budget then averages over the other levels.
  bool last_level_filter = true;
  // "bloom" (FastLocalBloom), "ribbon" (Standard128Ribbon), or "auto": Bloom
  // for flushes and L0, which are short-lived and fast to build, Ribbon below
  // (like RocksDB's bloom_before_level).
  std::string filter = "bloom";
  // "live": plan from the column family's live shape when a listener feeds
  // it (monkey::Install adds one), else from the static shape. "static":
  // always the static shape.
  std::string shape = "live";
};

// One level of a live tree, as the listener reports it (its definition is
// internal to the library).
struct LiveLevel;

class MonkeyFilterPolicy : public rocksdb::FilterPolicy {
 public:
  // Options that fail validation are replaced by the defaults; use Create()
  // to have them reported instead.
  explicit MonkeyFilterPolicy(const MonkeyOptions& options = MonkeyOptions());
  ~MonkeyFilterPolicy() override;

  // A policy with these options, or InvalidArgument naming the bad value.
  static rocksdb::Status Create(
      const MonkeyOptions& options,
      std::shared_ptr<const rocksdb::FilterPolicy>* policy);

  static const char* kClassName() { return "monkey"; }
  const char* Name() const override { return kClassName(); }
  // The built-in family's name, so that stock RocksDB reads our filters.
  const char* CompatibilityName() const override;

  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& context) const override;
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override;

  const MonkeyOptions& options() const { return options_; }

  // Real millibits per key the policy builds for a file created at `level`
  // of column family `column_family`: from its live plan when there is one
  // (shape=live), else from the static plan for `num_levels` levels. Level
  // -1 (unknown) gets the average budget. 0 means no filter.
  int MillibitsForLevel(int level, int num_levels,
                        const std::string& column_family = "") const;

  // Publishes a column family's live shape; files built from now on use its
  // plan. Thread-safe against concurrent filter building. An empty tree
  // (no entries) withdraws the live plan. l0_moved_share is the share of L0
  // keys that recently left L0 by trivial move: such files keep their L0
  // filter all the way down, so L0 files are planned that much as the last
  // level they will end in.
  void UpdateLiveShape(const std::string& column_family,
                       const std::vector<LiveLevel>& levels,
                       double l0_moved_share = 0) const;

  // The live shape last published for a column family; empty if none.
  std::vector<LiveLevel> LiveShapeOf(const std::string& column_family) const;

  // The plan as a table (per level: bits per key, predicted FPR, share of
  // keys): the live plan of `column_family` if there is one, else the
  // static plan for num_levels levels.
  std::string PlanToString(int num_levels,
                           const std::string& column_family = "") const;

 protected:
  // Validates the options and re-plans after every configuration change.
  rocksdb::Status ConfigureOptions(
      const rocksdb::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  struct LevelPlans;
  rocksdb::Status Replan();
  std::shared_ptr<const LevelPlans> StaticPlan(int num_levels) const;
  std::shared_ptr<const LevelPlans> LivePlansOf(
      const std::string& column_family) const;
  // The built-in policy for a level's filter; nullptr for no filter.
  const rocksdb::FilterPolicy* BuiltinFor(int level, int millibits) const;

  MonkeyOptions options_;
  // Any built-in policy reads every built-in filter format.
  std::unique_ptr<const rocksdb::FilterPolicy> reader_;

  mutable std::mutex mu_;
  // Static plans by num_levels, made on first use and kept.
  mutable std::map<int, std::shared_ptr<const LevelPlans>> static_plans_;
  // Live plans by column family, replaced whole by UpdateLiveShape.
  mutable std::map<std::string, std::shared_ptr<const LevelPlans>> live_plans_;
  // Built-in policies by (Ribbon?, RocksDB setting in millibits). They live
  // as long as this policy: builders keep pointers into them
  // (optimize_filters_for_memory).
  mutable std::map<std::pair<bool, int>,
                   std::unique_ptr<const rocksdb::FilterPolicy>>
      builtins_;
};

}  // namespace monkey

// Registers the id "monkey" with a RocksDB ObjectLibrary, so that
// FilterPolicy::CreateFromString accepts "monkey:7" and
// "id=monkey;bits_per_key=7;size_ratio=10;last_level_filter=false". It is
// also the RocksDB plugin registrar (monkey_FUNC in monkey.mk).
extern "C" int RegisterMonkeyFilterPolicy(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& arg);
