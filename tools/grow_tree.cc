// grow_tree: grows a RocksDB in steps (e.g. 1M to 8M keys) under each filter
// policy given, with dynamic level sizing off and on, and reports at every
// step what the filters cost and what they buy:
//   - realized filter bits per key over filtered keys (8 * filter_size /
//     num_filter_entries summed over the live SSTs), against the budget;
//   - measured sum of FPRs: false positives per absent in-range lookup
//     (RocksDB's bloom.filter.full.positive - full.true.positive tickers);
//   - the planner's optimum for the live shape at the same memory, each
//     level weighted by the share of lookups that reach its files.
// It is the experiment behind docs/design.md's live-shape and trivial-move
// sections; --order=sequential makes trivial moves common.
//
//   grow_tree --filter_uris='id=monkey;bits_per_key=8;shape=live|...'
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include "gflags/gflags.h"
#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "nlohmann/json.hpp"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "util/filter_fpr_model.h"
#include "util/monkey_bpk.h"

DEFINE_string(db, "/tmp/monkey_grow_tree", "Directory for the DBs (wiped)");
DEFINE_string(filter_uris,
              "id=monkey;bits_per_key=8;shape=live|"
              "id=monkey;bits_per_key=8;shape=static",
              "Filter policies to grow a tree under, separated by '|'");
DEFINE_string(steps, "1000000,2000000,4000000,8000000",
              "Key counts at which to measure");
DEFINE_string(dynamic_levels, "false,true",
              "level_compaction_dynamic_level_bytes settings to run");
DEFINE_string(order, "random", "Insert order: random or sequential");
DEFINE_int32(key_size, 16, "Key size in bytes");
DEFINE_int32(value_size, 100, "Value size in bytes");
DEFINE_int64(write_buffer_size, 4 << 20, "Memtable size");
DEFINE_int64(max_bytes_for_level_base, 16 << 20, "L1 (base level) size");
DEFINE_int64(target_file_size_base, 4 << 20, "SST size");
DEFINE_int32(num_levels, 7, "LSM levels");
DEFINE_int32(probes, 200000, "Absent lookups per measurement");
DEFINE_uint64(seed, 1, "Seed of the insert order and the probes");
DEFINE_string(json, "", "Also write the results to this JSON file");

namespace {

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

void Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) {
    fprintf(stderr, "grow_tree: %s: %s\n", what, s.ToString().c_str());
    exit(1);
  }
}

void WaitForCompactions(rocksdb::DB* db) {
  Check(db->Flush(rocksdb::FlushOptions()), "flush");
  for (;;) {
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

struct Step {
  uint64_t keys = 0;
  std::string levels;   // e.g. "L0x2 L1 L5 L6"
  double realized = 0;  // filter bits per filtered key
  double sum_fpr = 0;   // false positives per absent lookup
  double optimum = 0;   // planner's sum FPR for this shape and memory
  std::vector<double> level_bits;
};

// The share of probes (odd ids below 2 * range) inside a file's key range:
// an absent lookup reaches a file's filter only there. Young levels and
// sequential loads cover part of the key space, so the optimum is computed
// with each level weighted by the probes that reach it.
double Coverage(const rocksdb::SstFileMetaData& file, uint64_t range) {
  const uint64_t lo = std::stoull(file.smallestkey);
  const uint64_t hi = std::stoull(file.largestkey);
  // Probe u is key 2u + 1: inside [lo, hi] for u in [lo / 2, (hi - 1) / 2].
  const uint64_t first = lo / 2;
  const uint64_t last = std::min(range - 1, hi == 0 ? 0 : (hi - 1) / 2);
  return hi == 0 || last < first
             ? 0.0
             : static_cast<double>(last - first + 1) / range;
}

// The live shape, and the realized filter bits per level.
Step Measure(rocksdb::DB* db, rocksdb::Statistics* stats, std::mt19937_64* rng,
             uint64_t keys) {
  Step step;
  step.keys = keys;
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  rocksdb::TablePropertiesCollection props;
  Check(db->GetPropertiesOfAllTables(&props), "table properties");
  std::vector<monkey::LevelShape> shape(FLAGS_num_levels, {0, 0, true});
  std::vector<double> bits(FLAGS_num_levels), entries(FLAGS_num_levels);
  int l0_files = 0;
  for (const auto& f : files) {
    l0_files += f.level == 0;
    const auto& p = props.at(f.db_path + f.name);
    shape[f.level].entries += f.num_entries;
    shape[f.level].runs += Coverage(f, keys);
    bits[f.level] += 8.0 * p->filter_size;
    entries[f.level] += p->num_filter_entries;
  }

  double total_bits = 0, total_entries = 0;
  for (int l = 0; l < FLAGS_num_levels; ++l) {
    step.level_bits.push_back(entries[l] > 0 ? bits[l] / entries[l] : 0);
    if (shape[l].entries == 0) continue;
    total_bits += bits[l];
    total_entries += entries[l];
    step.levels += (step.levels.empty() ? "L" : " L") + std::to_string(l);
    if (l == 0) step.levels += "x" + std::to_string(l0_files);
  }
  step.realized = total_entries > 0 ? total_bits / total_entries : 0;
  const auto live = monkey::LiveShape(shape, /*last_level_filter=*/true);
  step.optimum = monkey::PlanBitsPerKey(live, step.realized,
                                        monkey::FprModel::FastLocalBloom())
                     .sum_fpr;

  stats->Reset();
  std::uniform_int_distribution<uint64_t> id(0, keys - 1);
  std::string value;
  for (int i = 0; i < FLAGS_probes; ++i) {
    rocksdb::Status s =
        db->Get(rocksdb::ReadOptions(), Key(2 * id(*rng) + 1), &value);
    if (!s.IsNotFound()) Check(s, "absent lookup");
  }
  const uint64_t positive =
      stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  const uint64_t true_positive =
      stats->getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
  step.sum_fpr = static_cast<double>(positive - true_positive) / FLAGS_probes;
  return step;
}

std::vector<Step> Grow(const std::string& uri, bool dynamic,
                       const std::vector<uint64_t>& steps) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = rocksdb::kNoCompression;
  options.write_buffer_size = FLAGS_write_buffer_size;
  options.max_bytes_for_level_base = FLAGS_max_bytes_for_level_base;
  options.target_file_size_base = FLAGS_target_file_size_base;
  options.level_compaction_dynamic_level_bytes = dynamic;
  options.num_levels = FLAGS_num_levels;
  options.max_background_jobs = 2;
  options.statistics = rocksdb::CreateDBStatistics();
  Check(monkey::Install(uri, &options), "filter_uri");
  std::filesystem::remove_all(FLAGS_db);
  rocksdb::DB* raw = nullptr;
  Check(rocksdb::DB::Open(options, FLAGS_db, &raw), "open");
  std::unique_ptr<rocksdb::DB> db(raw);

  std::vector<uint64_t> order(steps.back());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(FLAGS_seed);
  if (FLAGS_order == "random") std::shuffle(order.begin(), order.end(), rng);
  const std::string value(FLAGS_value_size, 'v');
  std::vector<Step> out;
  uint64_t loaded = 0;
  for (uint64_t target : steps) {
    // Random order: each step adds random keys of the whole range, so the
    // range is the same at every step. Sequential: the next stretch.
    const auto start = std::chrono::steady_clock::now();
    for (; loaded < target; ++loaded) {
      Check(db->Put(rocksdb::WriteOptions(), Key(2 * order[loaded]), value),
            "put");
    }
    WaitForCompactions(db.get());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    // Probe only the part of the range written so far.
    const uint64_t range = FLAGS_order == "random" ? steps.back() : target;
    out.push_back(Measure(db.get(), options.statistics.get(), &rng, range));
    out.back().keys = target;
    const Step& s = out.back();
    fprintf(stderr,
            "grow_tree: %s dynamic=%d: %" PRIu64
            " keys (%.0f s): %s, %.3f bits/key, sum FPR %.3f%% (optimum "
            "%.3f%%)\n",
            uri.c_str(), dynamic, target, seconds, s.levels.c_str(), s.realized,
            s.sum_fpr * 100, s.optimum * 100);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Grows a DB in steps under each filter policy and reports realized "
      "filter bits/key and measured sum FPR against Monkey's optimum.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::vector<uint64_t> steps;
  for (const auto& s : Split(FLAGS_steps, ',')) steps.push_back(std::stoull(s));
  if (steps.empty() || !std::is_sorted(steps.begin(), steps.end())) {
    fprintf(stderr, "grow_tree: --steps must be increasing key counts\n");
    return 1;
  }
  nlohmann::json results = nlohmann::json::array();
  printf("%-42s %-7s %9s %-20s %9s %8s %9s %9s %6s\n", "filter_uri", "dynamic",
         "keys", "levels", "bits/key", "vs budg", "sum FPR", "optimum",
         "ratio");
  for (const std::string& dynamic : Split(FLAGS_dynamic_levels, ',')) {
    for (const std::string& uri : Split(FLAGS_filter_uris, '|')) {
      const bool on = dynamic == "true";
      std::shared_ptr<const rocksdb::FilterPolicy> policy;
      rocksdb::Options probe;
      Check(monkey::Install(uri, &probe), "filter_uri");
      const auto* monkey =
          probe.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()
              ->filter_policy->CheckedCast<monkey::MonkeyFilterPolicy>();
      const double budget = monkey ? monkey->options().bits_per_key : 0;
      for (const Step& s : Grow(uri, on, steps)) {
        printf("%-42s %-7s %9" PRIu64
               " %-20s %9.3f %7.1f%% %8.3f%% %8.3f%% "
               "%6.3f\n",
               uri.c_str(), dynamic.c_str(), s.keys, s.levels.c_str(),
               s.realized, budget > 0 ? (s.realized / budget - 1) * 100 : 0,
               s.sum_fpr * 100, s.optimum * 100,
               s.optimum > 0 ? s.sum_fpr / s.optimum : 0);
        results.push_back({{"filter_uri", uri},
                           {"dynamic_levels", on},
                           {"order", FLAGS_order},
                           {"keys", s.keys},
                           {"levels", s.levels},
                           {"bits_per_key", s.realized},
                           {"level_bits_per_key", s.level_bits},
                           {"sum_fpr", s.sum_fpr},
                           {"optimum_sum_fpr", s.optimum}});
      }
      fflush(stdout);
    }
  }
  if (!FLAGS_json.empty()) std::ofstream(FLAGS_json) << results.dump(2) << "\n";
  return 0;
}
