// ShapeListener: the live LSM shape, per column family, for the policy.
#include "table/shape_listener.h"

#include <algorithm>
#include <cstdlib>
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
  job.job.flush = true;
  // The memtables being flushed. A DB* only names the default column
  // family's; for the others, the previous flush is the best guess.
  uint64_t entries = 0;
  if (info.cf_id == 0 &&
      db->GetIntProperty("rocksdb.num-entries-imm-mem-tables", &entries)) {
    job.job.flush_entries = static_cast<double>(entries);
  } else {
    job.job.flush_entries = last_flush_entries_[info.cf_name];
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
  job.job.output_level = info.output_level;
  for (const auto& input : info.input_file_infos) {
    job.job.input_files.push_back(input.file_number);
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
  if (info.output_level == 0) return;  // L0->L0: still in L0
  l0_fate_[info.cf_name].Note(l0_keys, moved);
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
  std::vector<rocksdb::LiveFileMetaData> metadata;
  db->GetLiveFilesMetaData(&metadata);
  std::map<std::string, std::vector<LiveFile>> files;
  for (const auto& m : metadata) {
    LiveFile file;
    file.number = m.file_number;
    file.level = m.level;
    file.entries = static_cast<double>(m.num_entries);
    file.bytes = static_cast<double>(m.size);
    auto filter = filters_.find(m.file_number);
    if (filter != filters_.end()) {
      file.filter_known = true;
      file.filter_bits = filter->second.bits;
      file.filter_entries = filter->second.entries;
    }
    files[m.column_family_name].push_back(file);
  }
  std::map<std::string, std::vector<LiveJob>> jobs;
  for (const auto& [job_id, job] : jobs_) {
    jobs[job.column_family].push_back(job.job);
  }
  for (const auto& [cf, cf_files] : files) {
    policy_->UpdateLiveShape(cf, ProjectLiveShape(cf_files, jobs[cf]),
                             l0_fate_[cf].MovedShare());
  }
}

}  // namespace monkey
