// Helpers shared by the tests that run a real RocksDB: temporary directories,
// key formats, and the filter lookup counters of one measurement.
#pragma once

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "monkey/install.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/statistics.h"

namespace monkey::test {

// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "monkey_test_XXXXXX")
            .string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Present keys are Key(i); AbsentKey(i, j) sorts right after Key(i), so every
// absent lookup falls inside some file's key range and reaches its filter.
inline std::string Key(uint64_t i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "k%015" PRIu64, i);
  return buf;
}
inline std::string AbsentKey(uint64_t i, uint64_t j) {
  return Key(i) + "x" + std::to_string(j);
}

// Filter outcomes counted by RocksDB's statistics.
struct FilterCounts {
  uint64_t useful = 0;         // the filter said "absent"
  uint64_t positive = 0;       // the filter said "maybe"
  uint64_t true_positive = 0;  // ... and the key was there
  uint64_t false_positives() const { return positive - true_positive; }
  double fpr() const {
    const uint64_t fp = false_positives();
    return useful + fp == 0 ? 0.0 : static_cast<double>(fp) / (useful + fp);
  }
};

inline FilterCounts CountsFrom(rocksdb::Statistics& stats) {
  FilterCounts c;
  c.useful = stats.getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
  c.positive = stats.getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  c.true_positive =
      stats.getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
  return c;
}

// FilterPolicy::CreateFromString, with "monkey" registered, that fails
// loudly on unknown ids.
inline std::shared_ptr<const rocksdb::FilterPolicy> PolicyOrDie(
    const std::string& uri) {
  RegisterOnce();
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  rocksdb::Status s =
      rocksdb::FilterPolicy::CreateFromString(config, uri, &policy);
  EXPECT_TRUE(s.ok()) << uri << ": " << s.ToString();
  return policy;
}

}  // namespace monkey::test
