// ShapeListener: the live LSM shape, per column family, for the policy.
#include "table/shape_listener.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "rocksdb/db.h"
#include "rocksdb/metadata.h"

namespace monkey {

namespace {

// "/db/000123.sst" -> 123; 0 if the name is not an SST's.
uint64_t FileNumber(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string name =
      path.substr(slash == std::string::npos ? 0 : slash + 1);
  char* end = nullptr;
  const uint64_t number = std::strtoull(name.c_str(), &end, 10);
  return end != nullptr && std::string(end) == ".sst" ? number : 0;
}

}  // namespace

ShapeListener::ShapeListener(std::shared_ptr<const MonkeyFilterPolicy> policy)
    : policy_(std::move(policy)) {}

void ShapeListener::OnFlushBegin(rocksdb::DB* db,
                                 const rocksdb::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Job job;
  job.column_family = info.cf_name;
  job.flush = true;
  // The memtables being flushed. A DB* only names the default column
  // family's; for the others, the previous flush is the best guess.
  uint64_t entries = 0;
  if (info.cf_id == 0 &&
      db->GetIntProperty("rocksdb.num-entries-imm-mem-tables", &entries)) {
    job.flush_entries = static_cast<double>(entries);
  } else {
    job.flush_entries = last_flush_entries_[info.cf_name];
  }
  jobs_[info.job_id] = job;
  RefreshLocked(db);
}

void ShapeListener::OnFlushCompleted(rocksdb::DB* db,
                                     const rocksdb::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase(info.job_id);
  last_flush_entries_[info.cf_name] =
      static_cast<double>(info.table_properties.num_entries);
  RefreshLocked(db);
}

void ShapeListener::OnCompactionBegin(rocksdb::DB* db,
                                      const rocksdb::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Job job;
  job.column_family = info.cf_name;
  job.output_level = info.output_level;
  for (const auto& input : info.input_file_infos) {
    job.input_files.push_back(input.file_number);
  }
  jobs_[info.job_id] = job;
  RefreshLocked(db);
}

void ShapeListener::OnCompactionCompleted(
    rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase(info.job_id);
  if (info.status.ok()) NoteL0Fate(info);
  RefreshLocked(db);
}

void ShapeListener::NoteL0Fate(const rocksdb::CompactionJobInfo& info) {
  std::unordered_set<uint64_t> outputs;
  for (const auto& out : info.output_file_infos) {
    outputs.insert(out.file_number);
  }
  bool moved = true;
  for (const auto& in : info.input_file_infos) {
    moved &= outputs.count(in.file_number) > 0;
  }
  // RocksDB fills input_files (paths) and input_file_infos in the same
  // order; without a path or its properties, a file counts as one key.
  double l0_keys = 0;
  for (size_t i = 0; i < info.input_file_infos.size(); ++i) {
    if (info.input_file_infos[i].level != 0) continue;
    auto props = i < info.input_files.size()
                     ? info.table_properties.find(info.input_files[i])
                     : info.table_properties.end();
    l0_keys += props == info.table_properties.end()
                   ? 1.0
                   : static_cast<double>(props->second->num_entries);
  }
  if (!(l0_keys > 0) || info.output_level == 0) return;
  L0Fate& fate = l0_fate_[info.cf_name];
  fate.moved = 0.8 * fate.moved + (moved ? l0_keys : 0);
  fate.merged = 0.8 * fate.merged + (moved ? 0 : l0_keys);
}

void ShapeListener::OnExternalFileIngested(
    rocksdb::DB* db, const rocksdb::ExternalFileIngestionInfo&) {
  Refresh(db);
}

void ShapeListener::OnTableFileCreated(
    const rocksdb::TableFileCreationInfo& info) {
  const uint64_t number = FileNumber(info.file_path);
  if (!info.status.ok() || number == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  filters_[number] = {
      8.0 * info.table_properties.filter_size,
      static_cast<double>(info.table_properties.num_filter_entries)};
}

void ShapeListener::OnTableFileDeleted(
    const rocksdb::TableFileDeletionInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  filters_.erase(FileNumber(info.file_path));
}

void ShapeListener::SeedFiltersLocked(rocksdb::DB* db) {
  seeded_ = true;
  rocksdb::TablePropertiesCollection props;
  if (!db->GetPropertiesOfAllTables(&props).ok()) return;
  for (const auto& [path, p] : props) {
    const uint64_t number = FileNumber(path);
    if (number != 0 && !filters_.count(number)) {
      filters_[number] = {8.0 * p->filter_size,
                          static_cast<double>(p->num_filter_entries)};
    }
  }
}

void ShapeListener::Refresh(rocksdb::DB* db) {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked(db);
}

void ShapeListener::RefreshLocked(rocksdb::DB* db) {
  // GetLiveFilesMetaData rather than GetColumnFamilyMetaData: the callbacks
  // name a column family but a DB* has no handle for it, and one call covers
  // them all. RocksDB calls listeners without its mutex held.
  if (!seeded_) SeedFiltersLocked(db);
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::map<std::string, std::vector<LiveLevel>> shapes;
  std::unordered_map<uint64_t, const rocksdb::LiveFileMetaData*> by_number;
  auto level_of = [&](const std::string& cf, int level) -> LiveLevel& {
    std::vector<LiveLevel>& levels = shapes[cf];
    if (levels.size() <= static_cast<size_t>(level)) levels.resize(level + 1);
    return levels[level];
  };
  // Filters that in-flight compactions are about to replace do not count
  // towards what is already built.
  std::unordered_set<uint64_t> replaced;
  for (const auto& [job_id, job] : jobs_) {
    replaced.insert(job.input_files.begin(), job.input_files.end());
  }
  // With max_open_files limited, RocksDB loads the entry counts of only 20
  // files when it opens a DB; the others read 0 until rebuilt. Count those
  // from their filters, else from their size at the column family's bytes
  // per entry.
  std::map<std::string, std::pair<double, double>> bytes_and_entries;
  auto entries_of = [&](const rocksdb::LiveFileMetaData& file) -> double {
    if (file.num_entries > 0) return static_cast<double>(file.num_entries);
    auto filter = filters_.find(file.file_number);
    if (filter != filters_.end() && filter->second.entries > 0) {
      return filter->second.entries;
    }
    const auto& [bytes, entries] = bytes_and_entries[file.column_family_name];
    return bytes > 0 ? file.size * entries / bytes : 0.0;
  };
  for (const auto& file : files) {
    if (file.num_entries > 0) {
      auto& known = bytes_and_entries[file.column_family_name];
      known.first += static_cast<double>(file.size);
      known.second += static_cast<double>(file.num_entries);
    }
  }
  std::unordered_map<uint64_t, double> entries;
  for (const auto& file : files) {
    by_number[file.file_number] = &file;
    entries[file.file_number] = entries_of(file);
    LiveLevel& level = level_of(file.column_family_name, file.level);
    level.entries += entries[file.file_number];
    level.runs = file.level == 0 ? level.runs + 1 : 1;
    auto filter = filters_.find(file.file_number);
    if (filter != filters_.end() && !replaced.count(file.file_number)) {
      level.filter_bits += filter->second.bits;
      level.filter_entries += filter->second.entries;
    }
  }
  // A flush of unknown size is guessed at the size of an L0 file, or of any
  // file; in an empty tree its size does not matter.
  auto flush_entries = [&](const Job& job) {
    if (job.flush_entries > 0) return job.flush_entries;
    const std::vector<LiveLevel>& levels = shapes[job.column_family];
    double entries = 0, runs = 0;
    for (const LiveLevel& level : levels) {
      entries += level.entries;
      runs += level.runs;
      if (&level == &levels[0] && runs > 0) break;
    }
    return runs > 0 ? entries / runs : 1.0;
  };
  // Project the jobs in flight: their inputs already sit at the output level.
  for (const auto& [job_id, job] : jobs_) {
    double moved = job.flush ? flush_entries(job) : 0;
    int merged_l0_runs = 0;
    for (uint64_t number : job.input_files) {
      auto it = by_number.find(number);
      if (it == by_number.end()) continue;  // already gone
      const rocksdb::LiveFileMetaData& file = *it->second;
      LiveLevel& from = level_of(job.column_family, file.level);
      from.entries -= entries[number];
      moved += entries[number];
      if (file.level == 0) ++merged_l0_runs;
    }
    if (!(moved > 0)) continue;
    LiveLevel& to = level_of(job.column_family, job.output_level);
    to.entries += moved;
    if (job.output_level == 0) {
      to.runs += 1;  // a flush, or an L0->L0 compaction's one output run
    }
    level_of(job.column_family, 0).runs -= merged_l0_runs;
  }
  for (auto& [cf, levels] : shapes) {
    for (size_t i = 0; i < levels.size(); ++i) {
      levels[i].entries = std::max(levels[i].entries, 0.0);
      levels[i].runs = levels[i].entries > 0
                           ? (i == 0 ? std::max(levels[i].runs, 1.0) : 1.0)
                           : 0.0;
    }
    const L0Fate& fate = l0_fate_[cf];
    const double left = fate.moved + fate.merged;
    policy_->UpdateLiveShape(cf, levels, left > 0 ? fate.moved / left : 0);
  }
}

}  // namespace monkey
