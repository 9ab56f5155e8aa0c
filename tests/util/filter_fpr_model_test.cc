// Tests of the FPR models (util/filter_fpr_model.h): the math against an
// independent computation, and the models against real RocksDB filters.
#include "monkey/util/filter_fpr_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "monkey/rocksdb_compat.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"

namespace monkey {
namespace {

TEST(FilterFprModelTest, ProbesFollowRocksDb) {
  // Spot checks of FastLocalBloomImpl::ChooseNumProbes.
  EXPECT_EQ(FastLocalBloomProbes(1000), 1);
  EXPECT_EQ(FastLocalBloomProbes(2081), 2);
  EXPECT_EQ(FastLocalBloomProbes(10000), 6);
  EXPECT_EQ(FastLocalBloomProbes(10071), 7);
  EXPECT_EQ(FastLocalBloomProbes(16000), 9);
  EXPECT_EQ(FastLocalBloomProbes(24000), 12);
  EXPECT_EQ(FastLocalBloomProbes(28000), 12);
  EXPECT_EQ(FastLocalBloomProbes(28001), 13);
  EXPECT_EQ(FastLocalBloomProbes(50000), 23);
  EXPECT_EQ(FastLocalBloomProbes(50001), 24);
}

// The same FPR by brute force: the distribution of set bits in a line after
// each of n keys sets k bits, averaged over n ~ Poisson(512 / b).
double OccupancyFpr(double bits_per_key, int k) {
  const int m = 512;
  const double mean = m / bits_per_key;
  std::vector<double> dist(m + 1, 0.0);
  dist[0] = 1;
  double fpr = 0, poisson = std::exp(-mean);
  for (int n = 0; n < mean + 10 * std::sqrt(mean) + 20; ++n) {
    if (n > 0) {
      poisson *= mean / n;
      for (int probe = 0; probe < k; ++probe) {
        std::vector<double> next(m + 1, 0.0);
        for (int s = 0; s <= m; ++s) {
          next[s] += dist[s] * s / m;
          if (s < m)
            next[s + 1] += dist[s] * (1.0 - static_cast<double>(s) / m);
        }
        dist.swap(next);
      }
    }
    double hit = 0;
    for (int s = 0; s <= m; ++s) hit += dist[s] * std::pow(1.0 * s / m, k);
    fpr += poisson * hit;
  }
  return fpr;
}

TEST(FilterFprModelTest, FastLocalBloomMatchesOccupancyComputation) {
  for (double bits : {2.0, 6.0, 10.0, 16.0, 24.0, 36.0, 48.0}) {
    const int k = FastLocalBloomProbes(static_cast<int>(bits * 1000));
    const double want = OccupancyFpr(bits, k);
    EXPECT_NEAR(FastLocalBloomFpr(bits, k), want, want * 1e-6) << bits;
  }
}

// FastLocalBloom's FPR is kept per setting for the process: the kept
// value is the exact sum's, at every setting the model allows, the first
// time and every time after (and past them, the sum itself).
TEST(FilterFprModelTest, KeptFastLocalBloomRatesAreTheExactOnes) {
  const FprModel bloom = FprModel::FastLocalBloom();
  for (int pass = 0; pass < 2; ++pass) {
    for (int millibits :
         {1000, 1001, 4567, 10000, 13333, 24000, 47999, 48000}) {
      EXPECT_EQ(bloom.FalsePositiveRate(millibits / 1000.0),
                FastLocalBloomFpr(millibits / 1000.0,
                                  FastLocalBloomProbes(millibits)))
          << millibits << " bits, pass " << pass;
    }
  }
  EXPECT_EQ(bloom.FalsePositiveRate(60.0), bloom.FalsePositiveRate(48.0));
}

TEST(FilterFprModelTest, ModelsAtKnownPoints) {
  const FprModel ideal = FprModel::IdealBloom();
  EXPECT_NEAR(ideal.FalsePositiveRate(10), 0.0081925, 1e-7);
  EXPECT_EQ(ideal.FalsePositiveRate(0), 1.0);

  const FprModel bloom = FprModel::FastLocalBloom();
  EXPECT_EQ(bloom.FalsePositiveRate(0), 1.0);
  // RocksDB builds 1 bit/key for settings in [0.5, 1).
  EXPECT_EQ(bloom.FalsePositiveRate(0.7), bloom.FalsePositiveRate(1));
  // Saturation: above ~16 bits a cache-local filter falls far behind ideal.
  EXPECT_GT(bloom.FalsePositiveRate(24), 4 * ideal.FalsePositiveRate(24));

  const FprModel ribbon = FprModel::Ribbon(1.0);
  EXPECT_DOUBLE_EQ(ribbon.FalsePositiveRate(7), 1.0 / 128);
  EXPECT_DOUBLE_EQ(ribbon.FalsePositiveRate(7.5), 0.75 / 128);
  EXPECT_DOUBLE_EQ(FprModel::Ribbon().min_bits(), kRibbonSlotsPerKey);
}

TEST(FilterFprModelTest, RibbonSettingHitsTheTarget) {
  for (double fpr : {0.5, 0.1, 0.02, 0.0095, 1e-3, 1e-4, 1e-6}) {
    const int setting = RibbonSettingMillibitsForFpr(fpr);
    auto target = [](int m) {
      return RocksDbCacheLocalFpRate(m / 1000.0, FastLocalBloomProbes(m));
    };
    EXPECT_LE(target(setting), fpr) << fpr;
    EXPECT_GT(target(setting - 1), fpr) << fpr;
  }
  EXPECT_EQ(RibbonSettingMillibitsForFpr(1.0), 0);
  // ribbonfilter:10 is RocksDB's "same FPR as bloomfilter:10".
  EXPECT_EQ(RibbonSettingMillibitsForFpr(RocksDbCacheLocalFpRate(10, 6)),
            10000);
}

// One SST of kKeys keys, written with `uri` and ingested, then `probes`
// absent lookups inside its key range.
struct Measured {
  double real_bits_per_key = 0;
  test::FilterCounts counts;
};

Measured MeasureFilter(const std::string& uri, int keys, uint64_t probes) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.filter_policy = test::PolicyOrDie(uri);
  options.table_factory.reset(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));

  ROCKSDB_NAMESPACE::SstFileWriter writer(ROCKSDB_NAMESPACE::EnvOptions(),
                                          options);
  const std::string sst = dir.Sub("data.sst");
  EXPECT_TRUE(writer.Open(sst).ok());
  for (int i = 0; i < keys; ++i) {
    EXPECT_TRUE(writer.Put(test::Key(i), "v").ok());
  }
  EXPECT_TRUE(writer.Finish().ok());

  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  EXPECT_TRUE(OpenDB(options, dir.Sub("db"), &db).ok());
  EXPECT_TRUE(db->IngestExternalFile(
                    {sst}, ROCKSDB_NAMESPACE::IngestExternalFileOptions())
                  .ok());
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  Measured out;
  for (const auto& [name, p] : props) {
    out.real_bits_per_key = 8.0 * p->filter_size / p->num_filter_entries;
  }
  std::string value;
  for (uint64_t q = 0; q < probes; ++q) {
    EXPECT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                        test::AbsentKey(q % keys, q / keys), &value)
                    .IsNotFound());
  }
  out.counts = test::CountsFrom(*options.statistics);
  return out;
}

constexpr int kCalibrationKeys = 500000;

// Real filters of kCalibrationKeys keys, probed until ~600 false positives
// are expected. The model's prediction at the realized bits per key must lie
// within 4 binomial sigma. `settings` are RocksDB's; `guess` is the FPR
// expected from one, to size the probe count.
void ExpectModelMatchesRocksDb(const std::string& name, const FprModel& model,
                               const std::vector<double>& settings,
                               double (*guess_fpr)(double setting)) {
  for (double setting : settings) {
    const std::string uri = name + ":" + std::to_string(setting);
    const double guess = guess_fpr(setting);
    const uint64_t probes = static_cast<uint64_t>(
        std::clamp(600 / std::max(guess, 1e-9), 50000.0, 12e6));
    const Measured m = MeasureFilter(uri, kCalibrationKeys, probes);
    const double want = model.FalsePositiveRate(m.real_bits_per_key);
    const double trials = m.counts.useful + m.counts.false_positives();
    const double sigma = std::sqrt(trials * want * (1 - want));
    printf(
        "%-16s %7.3f real bits/key %9.0f probes %6llu FP  measured "
        "%.5f%%  model %.5f%%  (%+.1f sigma)\n",
        uri.c_str(), m.real_bits_per_key, trials,
        static_cast<unsigned long long>(m.counts.false_positives()),
        m.counts.fpr() * 100, want * 100,
        (m.counts.false_positives() - trials * want) / sigma);
    EXPECT_EQ(m.counts.true_positive, 0u);
    EXPECT_NEAR(static_cast<double>(m.counts.false_positives()), trials * want,
                4 * sigma)
        << uri << ": " << m.real_bits_per_key << " real bits/key, measured "
        << m.counts.fpr() * 100 << "%, model " << want * 100 << "%";
  }
}

TEST(FilterFprModelTest, RibbonSlotsFollowRocksDb) {
  EXPECT_NEAR(RibbonSlotsPerKey(31828.1), 32768 / 31828.1, 1e-9);
  EXPECT_NEAR(RibbonSlotsPerKey(126506), 131072 / 126506.0, 1e-9);
  EXPECT_NEAR(RibbonSlotsPerKey(500000), 1.0437, 5e-4);
  EXPECT_GT(RibbonSlotsPerKey(1e6), RibbonSlotsPerKey(5e5));
}

TEST(FilterFprModelTest, FastLocalBloomModelMatchesRocksDb) {
  ExpectModelMatchesRocksDb(
      "bloomfilter", FprModel::FastLocalBloom(),
      {4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24}, [](double setting) {
        return FprModel::FastLocalBloom().FalsePositiveRate(setting);
      });
}

// Ribbon from 4 to 20 real bits/key: the setting is what the policy hands
// RocksDB for that many real bits, and the filter must come out that size.
TEST(FilterFprModelTest, RibbonModelMatchesRocksDb) {
  static const FprModel model =
      FprModel::Ribbon(RibbonSlotsPerKey(kCalibrationKeys));
  std::vector<double> settings;
  for (double real_bits = 4; real_bits <= 20; real_bits += 2) {
    settings.push_back(
        RibbonSettingMillibitsForFpr(model.FalsePositiveRate(real_bits)) /
        1000.0);
  }
  ExpectModelMatchesRocksDb("ribbonfilter", model, settings, [](double s) {
    return RocksDbCacheLocalFpRate(
        s, FastLocalBloomProbes(static_cast<int>(s * 1000 + 0.5)));
  });
}

// A filter's bits are its body's: RocksDB's 640-byte body for 500 keys at
// 10 bits per key (5,000 bits rounded up to whole cache lines) and its 5
// bytes of metadata.
TEST(FilterFprModelTest, AFiltersBitsAreItsBodys) {
  EXPECT_DOUBLE_EQ(FilterBodyBitsPerKey(645, 500), 10.24);
  EXPECT_EQ(FilterBodyBitsPerKey(5, 500), 0);
  EXPECT_EQ(FilterBodyBitsPerKey(645, 0), 0);
}

}  // namespace
}  // namespace monkey
