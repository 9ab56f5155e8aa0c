// False positive rate models of the filters RocksDB builds, as functions of
// real filter bits per key. The planner (monkey_bpk.h) optimises against the
// model of the filter that will actually be built, so these must match what
// RocksDB measures, not textbook formulas. Pure math: no RocksDB in here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "monkey/plan_choices.h"

namespace monkey {

enum class FilterKind {
  kIdealBloom,      // p = exp(-b ln^2 2): the textbook optimum, for the math
  kFastLocalBloom,  // RocksDB's format_version=5 cache-local Bloom
  kRibbon,          // RocksDB's Standard128Ribbon
};

// Ribbon slots per added key for a filter of `entries` keys: RocksDB's
// BandingConfigHelper (128-bit coefficients, 1-in-20 construction failure),
// which grows by 0.0038 per doubling of the filter: 1.030 at 32k keys, 1.044
// at 500k, 1.048 at 1M.
double RibbonSlotsPerKey(double entries);

// What the policy plans Ribbon with when it does not know file sizes.
inline constexpr double kRibbonSlotsPerKey = 1.045;

class FprModel {
 public:
  static FprModel IdealBloom();
  static FprModel FastLocalBloom();
  static FprModel Ribbon(double slots_per_key = kRibbonSlotsPerKey);

  // Expected FPR of one filter holding `bits_per_key` real bits per key.
  // 0 bits means no filter (FPR 1). Values are clamped to [0, max_bits()].
  double FalsePositiveRate(double bits_per_key) const;

  // RocksDB cannot build a filter below min_bits() (it turns 0.5..1 into 1
  // and less into none) or above max_bits(); the planner stays inside.
  double min_bits() const { return min_bits_; }
  double max_bits() const { return max_bits_; }
  FilterKind kind() const { return kind_; }
  std::string Name() const;

 private:
  FprModel(FilterKind kind, double min_bits, double max_bits,
           double slots_per_key)
      : kind_(kind),
        min_bits_(min_bits),
        max_bits_(max_bits),
        slots_per_key_(slots_per_key) {}

  FilterKind kind_;
  double min_bits_;
  double max_bits_;
  double slots_per_key_;  // Ribbon only
};

// Bits per key to the millibits RocksDB builds: its own rounding
// (BloomLikeFilterPolicy's constructor). The one place it is done.
int ToMillibits(double bits_per_key);

// RocksDB's filters end in 5 bytes of metadata (kMetadataLen in its
// table/block_based/filter_policy.cc), which set no bits: a built filter's
// FPR is its body's. The bits per key of a filter of `filter_bytes` (a
// table's filter_size) holding `keys` keys (num_filter_entries), for the
// model. Counting the metadata put a 500-key filter at 7.67 bits per key
// 3.4% under its FPR.
constexpr uint64_t kFilterMetadataBytes = 5;
double FilterBodyBitsPerKey(uint64_t filter_bytes, uint64_t keys);

// Whether a file at `level` (0 for flushes, -1 unknown) is built as Ribbon.
bool BuildsRibbon(FilterChoice choice, int level);

// The model of the filter a file at `level` gets, as the planner sees it
// (Ribbon at its typical slots per key), and the same for levels 0..n-1.
FprModel ModelForLevel(FilterChoice choice, int level);
std::vector<FprModel> ModelsForLevels(FilterChoice choice, size_t levels);

// The number of probes RocksDB's FastLocalBloom uses for a given setting in
// millibits per key (util/bloom_impl.h, FastLocalBloomImpl::ChooseNumProbes).
int FastLocalBloomProbes(int millibits_per_key);

// FPR of FastLocalBloom: keys land in 512-bit cache lines (Poisson with mean
// 512/b); each sets `num_probes` bits inside its line. Exact for independent
// probes, by inclusion-exclusion over occupied bits; see filter_fpr_model.cc.
double FastLocalBloomFpr(double bits_per_key, int num_probes);

// RocksDB's own estimate for a cache-local Bloom (BloomMath::CacheLocalFpRate,
// the mean of +-1 sigma line loads). Not accurate enough to plan with, but it
// is how RocksDB turns a Ribbon "bloom-equivalent" setting into a target FPR.
double RocksDbCacheLocalFpRate(double bits_per_key, int num_probes);

// The Ribbon setting (NewRibbonFilterPolicy's bloom-equivalent bits per key,
// in millibits) whose target FPR RocksDB makes equal to `fpr`, so that a plan
// in real bits can be handed to RocksDB. Returns the smallest setting whose
// target is <= fpr, or 0 when fpr >= 1 (no filter).
int RibbonSettingMillibitsForFpr(double fpr);

}  // namespace monkey
