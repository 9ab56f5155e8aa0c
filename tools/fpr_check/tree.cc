// fpr_check's deterministic tree. See tree.h.
#include "monkey/tools/fpr_check/tree.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/util/key_permutation.h"
#include "rocksdb/table.h"

namespace monkey::fpr_check {
namespace {

using ROCKSDB_NAMESPACE::Status;

// Writes keys [first, first + count) into the memtable and flushes them
// into one L0 file.
Status WriteAndFlush(const TreeSpec& spec, ROCKSDB_NAMESPACE::DB* db,
                     uint64_t first, uint64_t count) {
  const KeyPermutation keys(spec.seed);
  KeyPermutation::Cursor cursor = keys.From(first);
  const std::string value(spec.value_size, 'v');
  ROCKSDB_NAMESPACE::WriteOptions no_wal;
  no_wal.disableWAL = true;  // the tree is rebuilt, never recovered
  char key[24];
  for (uint64_t i = 0; i < count; ++i) {
    snprintf(key, sizeof(key), "%016" PRIx64, cursor.Next());
    Status s = db->Put(no_wal, key, value);
    if (!s.ok()) return s;
  }
  Status s = db->Flush(ROCKSDB_NAMESPACE::FlushOptions());
  RefreshShape(db);  // a live-shape policy sees each step, in order
  return s;
}

std::vector<std::string> FilesAt(ROCKSDB_NAMESPACE::DB* db, int level) {
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> names;
  for (const auto& f : meta.levels[level].files) names.push_back(f.name);
  return names;
}

// Every file by number and level: what a compaction changes.
std::set<std::pair<uint64_t, int>> FilesOf(ROCKSDB_NAMESPACE::DB* db) {
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::set<std::pair<uint64_t, int>> files;
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) files.emplace(f.file_number, level.level);
  }
  return files;
}

// Lets RocksDB compact until it has nothing left to do. PauseBackgroundWork
// waits for every flush and compaction scheduled, and schedules none while
// it holds; ContinueBackgroundWork then schedules what was queued
// meanwhile. Once a round of the two leaves the files as they were, no
// compaction was queued or the one queued found nothing to do (RocksDB
// keeps "rocksdb.compaction-pending" at 1 when universal compaction has as
// many sorted runs as its trigger and nothing to merge, so that property
// cannot tell).
Status CompactUntilIdle(ROCKSDB_NAMESPACE::DB* db) {
  Status s = db->PauseBackgroundWork();
  std::set<std::pair<uint64_t, int>> files = FilesOf(db);
  for (;;) {
    if (s.ok()) s = db->ContinueBackgroundWork();
    if (s.ok()) s = db->PauseBackgroundWork();
    if (!s.ok()) return s;
    std::set<std::pair<uint64_t, int>> now = FilesOf(db);
    if (now == files) break;
    files = std::move(now);
  }
  return db->ContinueBackgroundWork();
}

// The leveled tree: each level compacted to its place, then rewritten in
// place; then L0's flushes.
Status BuildLeveled(const TreeSpec& spec, ROCKSDB_NAMESPACE::DB* db,
                    void (*progress)(const std::string& line)) {
  Status s;
  uint64_t next = 0;  // key numbers used so far
  for (int level = spec.levels - 1; level >= 1; --level) {
    const uint64_t n = spec.KeysAt(level);
    progress("L" + std::to_string(level) + ": " + std::to_string(n) +
             " keys, flushed and compacted to L" + std::to_string(level));
    s = WriteAndFlush(spec, db, next, n);
    if (!s.ok()) return s;
    next += n;
    ROCKSDB_NAMESPACE::CompactionOptions compact;
    compact.max_subcompactions = 1;
    s = db->CompactFiles(compact, FilesAt(db, 0), level);
    if (!s.ok()) return s;
    RefreshShape(db);
  }
  // Rewrite each level in place, deepest first, now that the whole tree is
  // there: a policy that plans from the live shape then builds every
  // level's filters knowing the tree, as in a tree that has reached its
  // shape. Other policies build the same filters again.
  for (int level = spec.levels - 1; level >= 1; --level) {
    progress("L" + std::to_string(level) + ": rewritten in place");
    ROCKSDB_NAMESPACE::CompactionOptions compact;
    compact.max_subcompactions = 1;
    s = db->CompactFiles(compact, FilesAt(db, level), level);
    if (!s.ok()) return s;
    RefreshShape(db);
  }
  const uint64_t per_file = spec.KeysAt(0);
  progress("L0: " + std::to_string(spec.l0_files) + " files of " +
           std::to_string(per_file) + " keys");
  for (int f = 0; f < spec.l0_files; ++f) {
    s = WriteAndFlush(spec, db, next, per_file);
    if (!s.ok()) return s;
    next += per_file;
  }
  // The tree must be exactly what was built: l0_files in L0, and every
  // level holding its keys.
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  for (int level = 0; level < spec.levels; ++level) {
    uint64_t entries = 0;
    for (const auto& f : meta.levels[level].files) entries += f.num_entries;
    const uint64_t want =
        level == 0 ? per_file * spec.l0_files : spec.KeysAt(level);
    if (entries != want ||
        (level == 0 &&
         meta.levels[0].files.size() != static_cast<size_t>(spec.l0_files))) {
      return Status::Corruption(
          "fpr_check: L" + std::to_string(level) + " holds " +
          std::to_string(entries) + " keys in " +
          std::to_string(meta.levels[level].files.size()) +
          " files, expected " + std::to_string(want));
    }
  }
  return Status::OK();
}

// The universal tree: the flushes, each followed by the compactions
// RocksDB picks for it.
Status BuildUniversal(const TreeSpec& spec, ROCKSDB_NAMESPACE::DB* db,
                      void (*progress)(const std::string& line)) {
  progress(std::to_string(spec.flushes) + " flushes of " +
           std::to_string(spec.KeysOfFlush(0)) +
           " keys, each followed by universal compaction until it is idle");
  uint64_t next = 0;
  for (int f = 0; f < spec.flushes; ++f) {
    const uint64_t n = spec.KeysOfFlush(f);
    Status s = WriteAndFlush(spec, db, next, n);
    if (s.ok()) s = CompactUntilIdle(db);
    if (!s.ok()) return s;
    RefreshShape(db);
    next += n;
  }
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::string runs;
  uint64_t entries = 0;
  for (const auto& level : meta.levels) {
    uint64_t at_level = 0;
    for (const auto& f : level.files) {
      at_level += f.num_entries;
      if (level.level == 0) runs += " " + std::to_string(f.num_entries);
    }
    if (level.level > 0 && at_level > 0) {
      runs +=
          " L" + std::to_string(level.level) + ":" + std::to_string(at_level);
    }
    entries += at_level;
  }
  progress("sorted runs, newest first (L0 files, then levels), in keys:" +
           runs);
  // No key was written twice: the tree holds every one.
  if (entries != spec.num) {
    return Status::Corruption("fpr_check: the tree holds " +
                              std::to_string(entries) + " keys, expected " +
                              std::to_string(spec.num));
  }
  return Status::OK();
}

}  // namespace

uint64_t TreeSpec::KeysAt(int level) const {
  // Level L holds num / size_ratio^(last - L); L0's files are one step up.
  const int last = levels - 1;
  const int steps = level == 0 ? last : last - level;
  return static_cast<uint64_t>(std::llround(num / std::pow(size_ratio, steps)));
}

uint64_t TreeSpec::KeysOfFlush(int flush) const {
  // Flush f writes keys [f num / flushes, (f + 1) num / flushes).
  return (flush + 1) * num / flushes - flush * num / flushes;
}

std::string TreeSpec::Problems() const {
  std::string problems;
  if (num == 0 || probes == 0 || value_size < 0) {
    problems += " num and probes must be > 0, value_size >= 0;";
  }
  if (universal()) {
    if (levels < 1 || levels > 20 || flushes < 1 ||
        static_cast<uint64_t>(flushes) > num || compaction_trigger < 1 ||
        universal_size_ratio < 0 || min_merge_width < 2) {
      problems +=
          " a universal tree needs 1..20 levels, 1..num flushes, "
          "compaction_trigger >= 1, universal_size_ratio >= 0 and "
          "min_merge_width >= 2;";
    }
  } else if (compaction_style == "level") {
    if (levels < 2 || levels > 20 || l0_files < 0 || !(size_ratio > 1) ||
        KeysAt(1) == 0) {
      problems +=
          " the tree needs 2..20 levels, size_ratio > 1, and at least one "
          "key in L1;";
    }
  } else {
    problems += " compaction_style is 'level' or 'universal', not '" +
                compaction_style + "';";
  }
  return problems;
}

void MakeDeterministic(const TreeSpec& spec,
                       ROCKSDB_NAMESPACE::Options* options) {
  options->create_if_missing = true;
  options->error_if_exists = true;
  // An engine's OPTIONS file may name its own directories: write nowhere
  // but the tree's.
  options->wal_dir.clear();
  options->db_log_dir.clear();
  options->db_paths.clear();
  options->cf_paths.clear();
  options->disable_auto_compactions = true;
  options->max_subcompactions = 1;
  if (spec.universal()) {
    options->compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
    options->num_levels = spec.levels;
    ROCKSDB_NAMESPACE::CompactionOptionsUniversal universal;
    universal.size_ratio = spec.universal_size_ratio;
    universal.min_merge_width = spec.min_merge_width;
    options->compaction_options_universal = universal;
    options->level0_file_num_compaction_trigger = spec.compaction_trigger;
    // One compaction at a time, so that each is picked from the tree the
    // one before left.
    options->max_background_compactions = 1;
    options->max_background_flushes = 1;
  } else {
    options->compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleLevel;
    if (options->num_levels < spec.levels) options->num_levels = spec.levels;
  }
  // One memtable holds a whole level, so only Flush() writes files.
  const uint64_t entry_bytes = 16 + spec.value_size + 64;
  options->write_buffer_size = std::max<size_t>(
      options->write_buffer_size, 2 * spec.num * entry_bytes + (64 << 20));
  options->max_write_buffer_number =
      std::max(options->max_write_buffer_number, 2);
  options->db_write_buffer_size = 0;  // no DB-wide limit that would flush
  options->write_buffer_manager.reset();
}

Status BuildTree(const TreeSpec& spec,
                 const ROCKSDB_NAMESPACE::Options& options,
                 const std::string& path,
                 void (*progress)(const std::string& line)) {
  // Each flush built to the plan made for it, whatever the timing: the
  // same tree every time.
  ROCKSDB_NAMESPACE::Options barriered = options;
  barriered.listeners.push_back(NewPlanBarrier());
  // Universal compaction makes the tree, between the flushes.
  if (spec.universal()) barriered.disable_auto_compactions = false;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  Status s = OpenDB(barriered, path, &db);
  if (!s.ok()) return s;
  RefreshShape(db.get());
  s = spec.universal() ? BuildUniversal(spec, db.get(), progress)
                       : BuildLeveled(spec, db.get(), progress);
  if (!s.ok()) return s;
  return db->Close();
}

Status ProbeAbsent(const TreeSpec& spec, ROCKSDB_NAMESPACE::DB* db,
                   FilterStatsCollector* collector) {
  const KeyPermutation keys(spec.seed);
  KeyPermutation::Cursor cursor = keys.From(kFirstAbsentKey);
  FilterStatsCollector::ThreadScope scope(collector);
  std::string value;
  char key[24];
  uint64_t found = 0;
  for (uint64_t i = 0; i < spec.probes; ++i) {
    snprintf(key, sizeof(key), "%016" PRIx64, cursor.Next());
    const Status s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), key, &value);
    if (s.ok()) {
      ++found;
    } else if (!s.IsNotFound()) {
      return s;
    }
  }
  scope.AddLookups(spec.probes, found);
  if (found > 0) {
    return Status::Corruption("fpr_check: " + std::to_string(found) +
                              " absent probe keys were found");
  }
  return Status::OK();
}

}  // namespace monkey::fpr_check
