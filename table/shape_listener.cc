// ShapeListener: the live LSM shape, per column family, for the policy.
#include "monkey/table/shape_listener.h"

#include <algorithm>

#include "monkey/util/level_sizing.h"
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

namespace {

// The keys of a compaction's `i`-th input, from the table properties
// RocksDB hands the callbacks (keyed by the inputs' paths); -1 if unknown.
double InputEntries(const ROCKSDB_NAMESPACE::CompactionJobInfo& info,
                    size_t i) {
  if (i >= info.input_files.size()) return -1;
  auto props = info.table_properties.find(info.input_files[i]);
  if (props == info.table_properties.end() || props->second == nullptr) {
    return -1;
  }
  return static_cast<double>(props->second->num_entries);
}

// How RocksDB sizes the levels of a column family with `options`, in keys
// at the bytes per key of its `files`; unknown outside leveled compaction.
LevelSizing SizingOf(const ROCKSDB_NAMESPACE::Options& options,
                     const std::vector<LiveFile>& files) {
  if (options.compaction_style != ROCKSDB_NAMESPACE::kCompactionStyleLevel) {
    return LevelSizing();
  }
  double bytes = 0, entries = 0;
  for (const LiveFile& file : files) {
    if (file.entries > 0 && file.bytes > 0) {
      bytes += file.bytes;
      entries += file.entries;
    }
  }
  return SizingInEntries(options.level_compaction_dynamic_level_bytes,
                         static_cast<double>(options.max_bytes_for_level_base),
                         options.max_bytes_for_level_multiplier,
                         options.num_levels, bytes, entries);
}

}  // namespace

void EraseShapeListeners(
    std::vector<std::shared_ptr<ROCKSDB_NAMESPACE::EventListener>>* listeners,
    const ROCKSDB_NAMESPACE::FilterPolicy* policy) {
  listeners->erase(
      std::remove_if(
          listeners->begin(), listeners->end(),
          [policy](const auto& listener) {
            const auto* shape =
                listener == nullptr
                    ? nullptr
                    : listener->template CheckedCast<ShapeListener>();
            return shape != nullptr &&
                   (policy == nullptr || shape->Feeds(policy));
          }),
      listeners->end());
}

ShapeListener::ShapeListener(std::shared_ptr<const MonkeyFilterPolicy> policy)
    : policy_(std::move(policy)) {
  policy_->has_listener_ = true;
}

ShapeListener::ShapeListener(PolicyMap by_column_family)
    : by_cf_(std::move(by_column_family)) {
  for (const auto& [cf, policy] : by_cf_) policy->has_listener_ = true;
}

bool ShapeListener::Feeds(const ROCKSDB_NAMESPACE::FilterPolicy* policy) const {
  if (policy_ != nullptr) return policy_.get() == policy;
  for (const auto& [cf, p] : by_cf_) {
    if (p.get() == policy) return true;
  }
  return false;
}

const MonkeyFilterPolicy* ShapeListener::PolicyFor(
    const std::string& column_family) const {
  if (policy_ != nullptr) return policy_.get();
  auto it = by_cf_.find(column_family);
  return it == by_cf_.end() ? nullptr : it->second.get();
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
  job.job.flush_filter_entries_per_key = last_flush_filter_rate_[info.cf_name];
  jobs_[{info.job_id, info.cf_name}] = job;
  // Unknown keys (0: no flush of the column family seen yet) force a
  // refresh.
  drift_[info.cf_name].Move(
      0, job.job.flush_entries > 0 ? job.job.flush_entries : -1.0);
  RefreshIfStaleLocked(db, info.cf_name);
}

void ShapeListener::OnFlushCompleted(
    ROCKSDB_NAMESPACE::DB*, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase({info.job_id, info.cf_name});
  const auto& props = info.table_properties;
  last_flush_entries_[info.cf_name] = static_cast<double>(props.num_entries);
  if (props.num_entries > 0 && props.num_filter_entries > 0) {
    last_flush_filter_rate_[info.cf_name] =
        static_cast<double>(props.num_filter_entries) / props.num_entries;
  }
  file_levels_[info.file_number] = 0;
  // The published shape already holds the flush's run.
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
  jobs_[{info.job_id, info.cf_name}] = job;
  // Each input's keys leave its level and arrive at the output level; an
  // input already there is rewritten, its filter replaced. The inputs'
  // levels are the listener's own: RocksDB (7.8.3 to 11.x) reports the
  // index of an input's level within the compaction -- 0 or 1 -- as its
  // CompactionFileInfo::level.
  ShapeDrift& drift = drift_[info.cf_name];
  for (size_t i = 0; i < info.input_file_infos.size(); ++i) {
    const double keys = InputEntries(info, i);
    auto known = file_levels_.find(info.input_file_infos[i].file_number);
    const int level = known == file_levels_.end() ? -1 : known->second;
    drift.Move(level, keys);
    if (level != info.output_level) drift.Move(info.output_level, keys);
  }
  RefreshIfStaleLocked(db, info.cf_name);
}

void ShapeListener::OnCompactionCompleted(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase({info.job_id, info.cf_name});
  for (const auto& input : info.input_file_infos) {
    file_levels_.erase(input.file_number);
  }
  for (const auto& output : info.output_file_infos) {
    file_levels_[output.file_number] = output.level;  // its real level
  }
  if (!info.status.ok()) {
    // Its inputs stayed where they were, not where it was projected.
    RefreshLocked(db);
  }
  // A trivial move's outputs are its inputs, and keep the filters they were
  // built with, where the projection had them rebuilt at the output
  // level's bits: the plan's band counts them at those bits until the next
  // refresh, which the drift of the jobs begun since brings (their keys
  // were counted when the move began). Reading the tree at each one ran a
  // sequential load, where nearly every compaction is a trivial move, at
  // 0.81x Bloom's rate on the deep preset's tree (0.94x now; docs/design.md,
  // "What a refresh costs"); in the simulation, waiting left Sigma FPR and
  // the bits where reading at once had them.
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

void ShapeListener::RefreshIfStaleLocked(ROCKSDB_NAMESPACE::DB* db,
                                         const std::string& column_family) {
  if (drift_[column_family].Stale()) RefreshLocked(db);
}

void ShapeListener::Refresh(ROCKSDB_NAMESPACE::DB* db) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!seeded_) SeedFiltersLocked(db);
  RefreshLocked(db);
}

void ShapeListener::RefreshLocked(ROCKSDB_NAMESPACE::DB* db) {
  // GetLiveFilesMetaData rather than GetColumnFamilyMetaData: the callbacks
  // name a column family but a DB* has no handle for it, and one call covers
  // them all. RocksDB calls listeners without its mutex held.
  DropCommittedFlushesLocked(db);
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> metadata;
  db->GetLiveFilesMetaData(&metadata);
  std::map<std::string, std::vector<LiveFile>> files;
  file_levels_.clear();
  for (const auto& m : metadata) {
    file_levels_[m.file_number] = m.level;
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
    const MonkeyFilterPolicy* policy = PolicyFor(cf);
    if (policy == nullptr) continue;
    const std::vector<LiveLevel> shape = ProjectLiveShape(cf_files, jobs[cf]);
    // How the levels are sized, for the plan to see where a backlog drains
    // (util/level_sizing.h). A DB* reaches only the default column family's
    // options; the others are planned as they are.
    LevelSizing sizing;
    if (cf == ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) {
      sizing = SizingOf(db->GetOptions(), cf_files);
    }
    policy->UpdateLiveShape(cf, shape, sizing);
    drift_[cf].Published(shape, policy->options().last_level_filter);
  }
}

}  // namespace monkey
