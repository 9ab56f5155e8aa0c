// fpr_check's deterministic tree. See tree.h.
#include "monkey/tools/fpr_check/tree.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

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

}  // namespace

uint64_t TreeSpec::KeysAt(int level) const {
  // Level L holds num / size_ratio^(last - L); L0's files are one step up.
  const int last = levels - 1;
  const int steps = level == 0 ? last : last - level;
  return static_cast<uint64_t>(std::llround(num / std::pow(size_ratio, steps)));
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
  options->compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleLevel;
  options->disable_auto_compactions = true;
  options->max_subcompactions = 1;
  if (options->num_levels < spec.levels) options->num_levels = spec.levels;
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
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  Status s = OpenDB(barriered, path, &db);
  if (!s.ok()) return s;
  RefreshShape(db.get());

  uint64_t next = 0;  // key numbers used so far
  for (int level = spec.levels - 1; level >= 1; --level) {
    const uint64_t n = spec.KeysAt(level);
    progress("L" + std::to_string(level) + ": " + std::to_string(n) +
             " keys, flushed and compacted to L" + std::to_string(level));
    s = WriteAndFlush(spec, db.get(), next, n);
    if (!s.ok()) return s;
    next += n;
    ROCKSDB_NAMESPACE::CompactionOptions compact;
    compact.max_subcompactions = 1;
    s = db->CompactFiles(compact, FilesAt(db.get(), 0), level);
    if (!s.ok()) return s;
    RefreshShape(db.get());
  }
  // Rewrite each level in place, deepest first, now that the whole tree is
  // there: a policy that plans from the live shape then builds every
  // level's filters knowing the tree, as in a tree that has reached its
  // shape. Other policies build the same filters again.
  for (int level = spec.levels - 1; level >= 1; --level) {
    progress("L" + std::to_string(level) + ": rewritten in place");
    ROCKSDB_NAMESPACE::CompactionOptions compact;
    compact.max_subcompactions = 1;
    s = db->CompactFiles(compact, FilesAt(db.get(), level), level);
    if (!s.ok()) return s;
    RefreshShape(db.get());
  }
  const uint64_t per_file = spec.KeysAt(0);
  progress("L0: " + std::to_string(spec.l0_files) + " files of " +
           std::to_string(per_file) + " keys");
  for (int f = 0; f < spec.l0_files; ++f) {
    s = WriteAndFlush(spec, db.get(), next, per_file);
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
