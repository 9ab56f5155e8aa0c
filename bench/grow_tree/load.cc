// grow_tree: how a tree is loaded and grown step by step (grow_tree.h).
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

namespace grow_tree {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Present keys are even ids, absent keys odd ones: every probe falls inside
// the key range of every level.
std::string Key(uint64_t id) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%0*" PRIu64, FLAGS_key_size, id);
  return buf;
}

void Check(const ROCKSDB_NAMESPACE::Status& s, const std::string& what) {
  if (!s.ok()) {
    fprintf(stderr, "grow_tree: %s: %s\n", what.c_str(), s.ToString().c_str());
    exit(1);
  }
}

namespace {

void WaitForCompactions(ROCKSDB_NAMESPACE::DB* db) {
  Check(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()), "flush");
  for (;;) {
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

Load LoadNamed(const std::string& name) {
  if (name == "fast") return {name, false, true, 1};
  if (name == "writers4") return {name, false, false, 4};
  if (name == "sequential") return {name, true, true, 1};
  fprintf(stderr, "grow_tree: unknown load '%s' (fast, writers4, sequential)\n",
          name.c_str());
  exit(1);
}

namespace {

// Writes ids order[from, to) with `writers` threads.
void Write(ROCKSDB_NAMESPACE::DB* db, const Load& load,
           const std::vector<uint64_t>& order, uint64_t from, uint64_t to) {
  ROCKSDB_NAMESPACE::WriteOptions write_options;
  write_options.disableWAL = load.disable_wal;
  const std::string value(FLAGS_value_size, 'v');
  std::vector<std::thread> threads;
  for (int t = 0; t < load.writers; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = from + t; i < to; i += load.writers) {
        Check(db->Put(write_options, Key(2 * order[i]), value), "put");
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace

std::vector<Step> Grow(const TreeSpec& spec, const std::vector<uint64_t>& steps,
                       bool settle_steps, const std::string& label) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.compression = ROCKSDB_NAMESPACE::kNoCompression;
  options.write_buffer_size = spec.write_buffer_size;
  options.max_bytes_for_level_base = spec.base_level_size;
  options.target_file_size_base = spec.target_file_size;
  options.max_bytes_for_level_multiplier = spec.size_ratio;
  options.level_compaction_dynamic_level_bytes = spec.dynamic;
  options.num_levels = FLAGS_num_levels;
  options.max_background_jobs = 2;
  options.statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
  if (FLAGS_debug_log) options.info_log_level = ROCKSDB_NAMESPACE::DEBUG_LEVEL;
  Check(monkey::Install(spec.uri, &options), "filter_uri");
  if (!FLAGS_listener) {
    // A policy no listener was ever made for, as LD_PRELOAD or ldb make it:
    // Install's policy knows it had a listener.
    options.listeners.clear();
    ROCKSDB_NAMESPACE::ConfigOptions config;
    config.ignore_unsupported_options = false;
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> alone;
    Check(ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, spec.uri,
                                                            &alone),
          "filter_uri");
    options.table_factory
        ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
        ->filter_policy = alone;
  }
  std::filesystem::remove_all(FLAGS_db);
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  Check(monkey::OpenDB(options, FLAGS_db, &db), "open");

  std::vector<uint64_t> order(steps.back());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(FLAGS_seed);
  if (!spec.load.sequential) std::shuffle(order.begin(), order.end(), rng);
  std::vector<Step> out;
  uint64_t loaded = 0;
  auto measure = [&](uint64_t keys, bool settled, double seconds) {
    // Random order: each step adds keys all over the range, which is the
    // same at every step. Sequential: probe the part written so far.
    const uint64_t range = spec.load.sequential ? keys : steps.back();
    out.push_back(Measure(db.get(), options, &rng, range));
    Step& s = out.back();
    s.keys = keys;
    s.settled = settled;
    fprintf(stderr,
            "grow_tree: %s: %" PRIu64
            " keys%s (%.0f s): %s, %.3f bits/key, sum FPR %.3f%% (optimum "
            "%.3f%%, ratio %.3f)\n",
            label.c_str(), keys, settled ? " settled" : "", seconds,
            s.levels.c_str(), s.realized, s.sum_fpr * 100, s.optimum * 100,
            s.ratio());
  };
  for (uint64_t target : steps) {
    const auto start = std::chrono::steady_clock::now();
    Write(db.get(), spec.load, order, loaded, target);
    loaded = target;
    if (settle_steps) WaitForCompactions(db.get());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (settle_steps) {
      measure(target, true, seconds);
    } else {
      // A snapshot of the tree mid-load: no job changes it while probed.
      Check(db->PauseBackgroundWork(), "pause");
      measure(target, false, seconds);
      Check(db->ContinueBackgroundWork(), "continue");
    }
  }
  if (!settle_steps) {
    const auto start = std::chrono::steady_clock::now();
    WaitForCompactions(db.get());
    measure(
        steps.back(), true,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return out;
}

}  // namespace grow_tree
