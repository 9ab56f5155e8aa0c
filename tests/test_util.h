// Helpers shared by the tests that run a real RocksDB: temporary directories,
// key formats, and the filter lookup counters of one measurement.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/small_tree_options.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
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

// `options` with monkey::NewPlanBarrier() after a Monkey listener, if there
// is one: each job built to the plan made for it, whatever the timing.
template <typename DBOrColumnFamilyOptions>
DBOrColumnFamilyOptions WithAwaitPlans(DBOrColumnFamilyOptions options) {
  for (const auto& listener : options.listeners) {
    if (listener != nullptr &&
        std::string(listener->Name()) == "MonkeyShapeListener") {
      options.listeners.push_back(NewPlanBarrier());
      break;
    }
  }
  return options;
}

// DB::Open that fails the test on error, each job built to its own plan
// (WithAwaitPlans).
inline std::unique_ptr<ROCKSDB_NAMESPACE::DB> OpenOrDie(
    const ROCKSDB_NAMESPACE::Options& options, const std::string& path) {
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  const ROCKSDB_NAMESPACE::Status s =
      OpenDB(WithAwaitPlans(options), path, &db);
  EXPECT_TRUE(s.ok()) << path << ": " << s.ToString();
  return db;
}

// Flushes, then waits until no compaction is pending or running.
inline void WaitForCompactions(ROCKSDB_NAMESPACE::DB* db) {
  ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  for (int i = 0; i < 6000; ++i) {
    uint64_t pending = 1, running = 1;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) {
      WaitForPlans(db);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "compactions did not finish";
}

// Flushes, then waits until the background work RocksDB would schedule has
// run: each round pauses background work (which waits for every scheduled
// flush and compaction), notes the live files, and resumes it (which
// schedules what is pending); idle once a round changes no file. For
// universal compaction, where WaitForCompactions can wait forever: 7.8.3
// reports a compaction pending for a tree of as many sorted runs as the
// trigger whose picker finds none to merge (none within the size ratio).
inline void WaitForBackgroundIdle(ROCKSDB_NAMESPACE::DB* db) {
  ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
  std::vector<uint64_t> before;
  for (int i = 0; i < 6000; ++i) {
    ASSERT_TRUE(db->PauseBackgroundWork().ok());
    std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    ASSERT_TRUE(db->ContinueBackgroundWork().ok());
    std::vector<uint64_t> numbers;
    for (const auto& f : files) numbers.push_back(f.file_number);
    std::sort(numbers.begin(), numbers.end());
    if (i > 0 && numbers == before) {
      WaitForPlans(db);
      return;
    }
    before = std::move(numbers);
  }
  FAIL() << "background work did not settle";
}

// Realized filter bits per filter entry (8 filter_size / num_filter_entries)
// over the live SSTs of column family `cf` (nullptr: the default one).
inline double RealizedBitsPerFilterEntry(
    ROCKSDB_NAMESPACE::DB* db,
    ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf = nullptr) {
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(
                    cf != nullptr ? cf : db->DefaultColumnFamily(), &props)
                  .ok());
  double bits = 0, entries = 0;
  for (const auto& [path, p] : props) {
    bits += 8.0 * p->filter_size;
    entries += p->num_filter_entries;
  }
  return entries > 0 ? bits / entries : 0;
}

// Waits, without flushing, until no flush or compaction is pending or
// running: called every so many keys, it makes a load that compactions keep
// up with on any machine, with memtables flushed when full.
inline void WaitForBackgroundWork(ROCKSDB_NAMESPACE::DB* db) {
  for (int i = 0; i < 6000; ++i) {
    uint64_t imm = 1, pending = 1, running = 1, flushes = 1;
    db->GetIntProperty("rocksdb.num-immutable-mem-table", &imm);
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    db->GetIntProperty("rocksdb.num-running-flushes", &flushes);
    if (imm == 0 && pending == 0 && running == 0 && flushes == 0) {
      WaitForPlans(db);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "background work did not finish";
}

// FastLocalBloom's filter size in RocksDB 7.8.3 for n keys at m millibits:
// bits rounded up to whole 64-byte cache lines, plus 5 bytes of metadata.
inline uint64_t BloomFilterBytes(uint64_t n, int millibits) {
  if (millibits == 0) return 0;
  const uint64_t raw = (n * millibits + 7999) / 8000;
  return ((raw + 63) & ~uint64_t{63}) + 5;
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

inline FilterCounts CountsFrom(ROCKSDB_NAMESPACE::Statistics& stats) {
  FilterCounts c;
  c.useful = stats.getTickerCount(ROCKSDB_NAMESPACE::BLOOM_FILTER_USEFUL);
  c.positive =
      stats.getTickerCount(ROCKSDB_NAMESPACE::BLOOM_FILTER_FULL_POSITIVE);
  c.true_positive =
      stats.getTickerCount(ROCKSDB_NAMESPACE::BLOOM_FILTER_FULL_TRUE_POSITIVE);
  return c;
}

// FilterPolicy::CreateFromString, with "monkey" registered, that fails
// loudly on unknown ids.
inline std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> PolicyOrDie(
    const std::string& uri) {
  RegisterOnce();
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, uri, &policy);
  EXPECT_TRUE(s.ok()) << uri << ": " << s.ToString();
  return policy;
}

}  // namespace monkey::test
