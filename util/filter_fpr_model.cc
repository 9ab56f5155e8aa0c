// FPR models of RocksDB's filters. See filter_fpr_model.h.
//
// Measured here on RocksDB 7.8.3 (Debian 12) by the calibration test
// (build/tests/filter_fpr_model_test --gtest_filter='*MatchesRocksDb*'): one
// SST of 500k keys per setting, probed with absent in-range keys until ~600
// false positives. This model is within 1.5 sigma at every setting from 4 to
// 24 bits/key; RocksDB's own +-1 sigma estimate is 8-25% low from 16 bits
// up, and the ideal Bloom formula 2-5x low, because a 512-bit line saturates.
//
//   bits/key  probes  measured   this model  RocksDB estimate  ideal Bloom
//      10       6     0.976%     0.966%      0.953%            0.819%
//      16       9     0.0864%    0.0844%     0.0797%           0.0459%
//      20      11     0.0197%    0.0198%     0.0171%           0.0067%
//      24      12     0.00546%   0.00533%    0.00408%          0.00098%
#include "monkey/util/filter_fpr_model.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>

namespace monkey {
namespace {

constexpr int kCacheLineBits = 512;
constexpr int kMaxProbes = 24;
// The most bits per key the FastLocalBloom model plans with.
constexpr int kFastLocalBloomMaxMillibits = 48000;
const double kLn2Squared = std::log(2.0) * std::log(2.0);

double StandardFpRate(double bits_per_key, int num_probes) {
  return std::pow(1.0 - std::exp(-num_probes / bits_per_key), num_probes);
}

// Stirling numbers of the second kind S(k, j) for k, j <= kMaxProbes.
struct Stirling2 {
  long double s[kMaxProbes + 1][kMaxProbes + 1] = {};
  Stirling2() {
    s[0][0] = 1;
    for (int k = 1; k <= kMaxProbes; ++k) {
      for (int j = 1; j <= k; ++j) s[k][j] = j * s[k - 1][j] + s[k - 1][j - 1];
    }
  }
};

}  // namespace

int FastLocalBloomProbes(int millibits_per_key) {
  // Copied thresholds: RocksDB picked them from measurements of its own
  // implementation, so the model must use exactly the same ones.
  if (millibits_per_key <= 2080) return 1;
  if (millibits_per_key <= 3580) return 2;
  if (millibits_per_key <= 5100) return 3;
  if (millibits_per_key <= 6640) return 4;
  if (millibits_per_key <= 8300) return 5;
  if (millibits_per_key <= 10070) return 6;
  if (millibits_per_key <= 11720) return 7;
  if (millibits_per_key <= 14001) return 8;
  if (millibits_per_key <= 16050) return 9;
  if (millibits_per_key <= 18300) return 10;
  if (millibits_per_key <= 22001) return 11;
  if (millibits_per_key <= 25501) return 12;
  if (millibits_per_key > 50000) return 24;
  return (millibits_per_key - 1) / 2000 - 1;
}

// A line holding n keys has n*k probes set, at most kCacheLineBits bits. A
// query's k probes hit j distinct bits with probability S(k,j) (m)_j / m^k,
// and it is a false positive iff those j bits are all set. With n ~ Poisson(L)
// keys per line (L = m/b), inclusion-exclusion over which i of the j bits
// stay clear gives
//   P(j given bits all set) = sum_i (-1)^i C(j,i) exp(-L (1 - (1 - i/m)^k)).
// The alternating sum cancels; long double keeps it exact to ~1e-12 absolute,
// which is why max_bits() stops at 48 (FPR there is ~1e-9).
double FastLocalBloomFpr(double bits_per_key, int num_probes) {
  if (!(bits_per_key > 0.0)) return 1.0;
  static const Stirling2 stirling;
  const int k = std::clamp(num_probes, 1, kMaxProbes);
  const long double m = kCacheLineBits;
  const long double keys_per_line = m / bits_per_key;

  long double clear_term[kMaxProbes + 1];  // P(i given bits stay clear)
  for (int i = 0; i <= k; ++i) {
    clear_term[i] =
        std::exp(-keys_per_line * (1.0L - std::pow(1.0L - i / m, k)));
  }
  long double fpr = 0;
  long double falling = 1;  // (m)_j / m^j
  for (int j = 1; j <= k; ++j) {
    falling *= (m - (j - 1)) / m;
    long double all_set = 0;
    long double binom = 1;  // C(j, i)
    for (int i = 0; i <= j; ++i) {
      all_set += ((i & 1) ? -binom : binom) * clear_term[i];
      binom = binom * (j - i) / (i + 1);
    }
    fpr += stirling.s[k][j] * falling * std::pow(m, j - k) * all_set;
  }
  return std::clamp(static_cast<double>(fpr), 0.0, 1.0);
}

double RocksDbCacheLocalFpRate(double bits_per_key, int num_probes) {
  if (bits_per_key <= 0.0) return 1.0;
  const double keys_per_line = kCacheLineBits / bits_per_key;
  const double keys_stddev = std::sqrt(keys_per_line);
  const double crowded = StandardFpRate(
      kCacheLineBits / (keys_per_line + keys_stddev), num_probes);
  const double uncrowded = StandardFpRate(
      kCacheLineBits / (keys_per_line - keys_stddev), num_probes);
  return (crowded + uncrowded) / 2;
}

int RibbonSettingMillibitsForFpr(double fpr) {
  if (!(fpr < 1.0)) return 0;
  auto target = [](int millibits) {
    return RocksDbCacheLocalFpRate(millibits / 1000.0,
                                   FastLocalBloomProbes(millibits));
  };
  // RocksDB clamps settings to [1, 100] bits; the target falls with the
  // setting (checked over the whole range by the unit test).
  int lo = 1000, hi = 100000;
  if (target(lo) <= fpr) return lo;
  if (target(hi) > fpr) return hi;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (target(mid) <= fpr ? hi : lo) = mid;
  }
  return hi;
}

double RibbonSlotsPerKey(double entries) {
  // Keys that fit in 2^i slots, from RocksDB's ribbon_config.cc
  // (BandingConfigHelperData<kOneIn20, 128U, false>), for i = 8..17.
  static constexpr double kKeysByPow2[] = {248.851, 499.532, 1001.26, 2003.97,
                                           4005.59, 8000.39, 15966.6, 31828.1,
                                           63447.3, 126506};
  constexpr int kFirst = 8, kLast = 17;
  constexpr double kFactorPerPow2 = 0.0038;
  if (!(entries > kKeysByPow2[0]))
    return std::ldexp(1.0, kFirst) / kKeysByPow2[0];
  if (entries <= kKeysByPow2[kLast - kFirst]) {
    int i = 0;
    while (entries > kKeysByPow2[i + 1]) ++i;
    // Interpolate log2(slots) in log2(keys) between the known points.
    const double x0 = std::log2(kKeysByPow2[i]);
    const double x1 = std::log2(kKeysByPow2[i + 1]);
    const double t = (std::log2(entries) - x0) / (x1 - x0);
    return std::exp2(kFirst + i + t) / entries;
  }
  const double base = std::ldexp(1.0, kLast) / kKeysByPow2[kLast - kFirst] -
                      kLast * kFactorPerPow2;
  double factor = base + kLast * kFactorPerPow2;
  for (int iter = 0; iter < 8; ++iter) {
    factor = base + std::log2(entries * factor) * kFactorPerPow2;
  }
  return factor;
}

FprModel FprModel::IdealBloom() {
  return FprModel(FilterKind::kIdealBloom, 1.0, 100.0, 0.0);
}

FprModel FprModel::FastLocalBloom() {
  return FprModel(FilterKind::kFastLocalBloom, 1.0,
                  kFastLocalBloomMaxMillibits / 1000.0, 0.0);
}

FprModel FprModel::Ribbon(double slots_per_key) {
  // A Ribbon slot stores between 1 and 32 result bits ("columns").
  return FprModel(FilterKind::kRibbon, slots_per_key, 32.0 * slots_per_key,
                  slots_per_key);
}

std::string FprModel::Name() const {
  switch (kind_) {
    case FilterKind::kIdealBloom:
      return "ideal";
    case FilterKind::kFastLocalBloom:
      return "bloom";
    case FilterKind::kRibbon:
      return "ribbon";
  }
  return "unknown";
}

namespace {

// FastLocalBloom's FPR at a setting in millibits, computed once per process:
// the exact sum (FastLocalBloomFpr, in long double) costs microseconds, and
// a plan for objective=memory asks for a hundred or more settings, the
// same ones plan after plan (BM_PlanLiveTree, bench/live_plan_bench.cc).
// A table over every setting a FastLocalBloom model allows, filled as
// asked; a race computes the same value twice.
double FastLocalBloomFprAt(int millibits) {
  if (millibits < 0 || millibits > kFastLocalBloomMaxMillibits) {
    return FastLocalBloomFpr(millibits / 1000.0,
                             FastLocalBloomProbes(millibits));
  }
  static const std::unique_ptr<std::atomic<double>[]> table = [] {
    auto t = std::make_unique<std::atomic<double>[]>(
        kFastLocalBloomMaxMillibits + 1);
    for (int m = 0; m <= kFastLocalBloomMaxMillibits; ++m) {
      t[m].store(-1.0, std::memory_order_relaxed);
    }
    return t;
  }();
  double fpr = table[millibits].load(std::memory_order_relaxed);
  if (fpr < 0) {
    fpr =
        FastLocalBloomFpr(millibits / 1000.0, FastLocalBloomProbes(millibits));
    table[millibits].store(fpr, std::memory_order_relaxed);
  }
  return fpr;
}

}  // namespace

double FprModel::FalsePositiveRate(double bits_per_key) const {
  if (!(bits_per_key > 0.0)) return 1.0;
  const double bits = std::min(bits_per_key, max_bits_);
  switch (kind_) {
    case FilterKind::kIdealBloom:
      return std::exp(-bits * kLn2Squared);
    case FilterKind::kFastLocalBloom: {
      // RocksDB builds 1 bit/key for settings in [0.5, 1).
      const int millibits = std::max(ToMillibits(bits), 1000);
      return FastLocalBloomFprAt(millibits);
    }
    case FilterKind::kRibbon: {
      // RocksDB mixes c and c+1 result columns across the filter's blocks to
      // hit a fractional target; a query in a c-column block is a false
      // positive with probability 2^-c.
      const double columns = std::max(bits / slots_per_key_, 1.0);
      const double whole = std::floor(columns);
      const double upper_share = columns - whole;
      return std::ldexp(1.0 - upper_share / 2, -static_cast<int>(whole));
    }
  }
  return 1.0;
}

double FilterBodyBitsPerKey(uint64_t filter_bytes, uint64_t keys) {
  if (keys == 0 || filter_bytes <= kFilterMetadataBytes) return 0;
  return 8.0 * (filter_bytes - kFilterMetadataBytes) / keys;
}

int ToMillibits(double bits_per_key) {
  return static_cast<int>(bits_per_key * 1000.0 + 0.500001);
}

bool BuildsRibbon(FilterChoice choice, int level) {
  return choice == FilterChoice::kRibbon ||
         (choice == FilterChoice::kAuto && level != 0);
}

FprModel ModelForLevel(FilterChoice choice, int level) {
  return BuildsRibbon(choice, level) ? FprModel::Ribbon()
                                     : FprModel::FastLocalBloom();
}

std::vector<FprModel> ModelsForLevels(FilterChoice choice, size_t levels) {
  std::vector<FprModel> models;
  for (size_t level = 0; level < levels; ++level) {
    models.push_back(ModelForLevel(choice, static_cast<int>(level)));
  }
  return models;
}

}  // namespace monkey
