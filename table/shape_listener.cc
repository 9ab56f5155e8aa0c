// ShapeListener: the live LSM shape, per column family, for the policy.
#include "monkey/table/shape_listener.h"

#include <algorithm>

#include "monkey/util/sst_file_name.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"

namespace monkey {

LiveFile DescribeFile(const ROCKSDB_NAMESPACE::SstFileMetaData& meta,
                      int level) {
  LiveFile file;
  file.number = meta.file_number;
  file.level = level;
  file.entries = static_cast<double>(meta.num_entries);
  file.bytes = static_cast<double>(meta.size);
  file.smallest = meta.smallestkey;
  file.largest = meta.largestkey;
  return file;
}

ShapeListener::ShapeListener(std::shared_ptr<const MonkeyFilterPolicy> policy)
    : policy_(std::move(policy)) {
  policy_->has_listener_ = true;
}

void ShapeListener::OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                                 const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Job job;
  job.column_family = info.cf_name;
  job.job.flush = true;
  job.default_column_family = info.cf_id == 0;
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

void ShapeListener::OnFlushCompleted(
    ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase(info.job_id);
  last_flush_entries_[info.cf_name] =
      static_cast<double>(info.table_properties.num_entries);
  RefreshLocked(db);
}

void ShapeListener::OnCompactionBegin(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
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
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase(info.job_id);
  RefreshLocked(db);
}

void ShapeListener::OnExternalFileIngested(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo&) {
  Refresh(db);
}

void ShapeListener::OnTableFileCreated(
    const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) {
  const uint64_t number = SstFileNumber(info.file_path);
  if (!info.status.ok() || number == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  filters_[number] = {
      8.0 * info.table_properties.filter_size,
      static_cast<double>(info.table_properties.num_filter_entries),
      info.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush};
}

void ShapeListener::OnTableFileDeleted(
    const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  filters_.erase(SstFileNumber(info.file_path));
}

void ShapeListener::SeedFiltersLocked(ROCKSDB_NAMESPACE::DB* db) {
  seeded_ = true;
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  if (!db->GetPropertiesOfAllTables(&props).ok()) return;
  for (const auto& [path, p] : props) {
    const uint64_t number = SstFileNumber(path);
    if (number != 0 && !filters_.count(number)) {
      filters_[number] = {8.0 * p->filter_size,
                          static_cast<double>(p->num_filter_entries), false};
    }
  }
}

void ShapeListener::DropCommittedFlushesLocked(ROCKSDB_NAMESPACE::DB* db) {
  // A flush's memtables stay immutable until it commits, and then its file
  // is live: projecting the flush too would count its run twice. Its
  // OnFlushCompleted may come later (DB::Flush() can return first), and a
  // refresh, or a job that begins, would meanwhile plan for a tree with one
  // L0 run too many. A DB* reads only the default column family's
  // memtables; other column families' flushes leave with their callback.
  bool any = false;
  for (const auto& [job_id, job] : jobs_) {
    any = any || (job.job.flush && job.default_column_family);
  }
  uint64_t unflushed = 0;
  if (!any ||
      !db->GetIntProperty(
          ROCKSDB_NAMESPACE::DB::Properties::kNumImmutableMemTable,
          &unflushed) ||
      unflushed > 0) {
    return;
  }
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->second.job.flush && it->second.default_column_family) {
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
}

void ShapeListener::Refresh(ROCKSDB_NAMESPACE::DB* db) {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked(db);
}

void ShapeListener::RefreshLocked(ROCKSDB_NAMESPACE::DB* db) {
  // GetLiveFilesMetaData rather than GetColumnFamilyMetaData: the callbacks
  // name a column family but a DB* has no handle for it, and one call covers
  // them all. RocksDB calls listeners without its mutex held.
  if (!seeded_) SeedFiltersLocked(db);
  DropCommittedFlushesLocked(db);
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> metadata;
  db->GetLiveFilesMetaData(&metadata);
  std::map<std::string, std::vector<LiveFile>> files;
  for (const auto& m : metadata) {
    LiveFile file = DescribeFile(m, m.level);
    auto filter = filters_.find(m.file_number);
    if (filter != filters_.end()) {
      file.flushed = filter->second.flushed;
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
  // Every column family with files or with a job in flight: the first
  // flush of an empty one is planned as the run it is about to make.
  for (const auto& [cf, cf_jobs] : jobs) files[cf];
  for (const auto& [cf, cf_files] : files) {
    policy_->UpdateLiveShape(cf, ProjectLiveShape(cf_files, jobs[cf]));
  }
}

}  // namespace monkey
