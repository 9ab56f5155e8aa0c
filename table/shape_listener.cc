// ShapeListener: the live LSM shape, per column family, for the policy.
#include "monkey/table/shape_listener.h"

#include <algorithm>
#include <chrono>

#if defined(__linux__)
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

#include "monkey/table/key_range_collector.h"
#include "monkey/table/level_plans.h"
#include "monkey/util/level_sizing.h"
#include "monkey/util/sst_file_name.h"
// Cache's definition (GetCapacity): rocksdb/cache.h up to 8.0; from 8.1 on
// cache.h only declares it and rocksdb/advanced_cache.h defines it.
#if __has_include("rocksdb/advanced_cache.h")
#include "rocksdb/advanced_cache.h"
#else
#include "rocksdb/cache.h"
#endif
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
  file.largest_seqno = meta.largest_seqno;
  return file;
}

namespace {

thread_local BuildingFile building_file;

}  // namespace

const BuildingFile& BuildingFileOnThisThread() { return building_file; }

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

// How RocksDB sizes the levels of a column family, in keys at the bytes per
// key of its `files`.
LevelSizing SizingOf(bool dynamic, double base_bytes, double multiplier,
                     int num_levels, const std::vector<LiveFile>& files) {
  double bytes = 0, entries = 0;
  for (const LiveFile& file : files) {
    if (file.entries > 0 && file.bytes > 0) {
      bytes += file.bytes;
      entries += file.entries;
    }
  }
  return SizingInEntries(dynamic, base_bytes, multiplier, num_levels, bytes,
                         entries);
}

// Names the calling thread the planner (top -H, perf) and lowers its
// priority (ShapeListener::kPlannerNice says why).
void LowerPlannerPriority() {
#if defined(__linux__)
  pthread_setname_np(pthread_self(), ShapeListener::kPlannerThreadName);
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)),
              ShapeListener::kPlannerNice);
#endif
}

// The calling thread's CPU time (its wall time where there is no such
// clock).
std::chrono::nanoseconds PlannerCpuTime() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec now;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0) {
    return std::chrono::seconds(now.tv_sec) +
           std::chrono::nanoseconds(now.tv_nsec);
  }
#endif
  return std::chrono::steady_clock::now().time_since_epoch();
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
  policy_->AddListener(this);
}

ShapeListener::ShapeListener(PolicyMap by_column_family)
    : by_cf_(std::move(by_column_family)) {
  for (const auto& [cf, policy] : by_cf_) policy->AddListener(this);
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

ShapeListener::~ShapeListener() {
  // The policies outlive their listeners (they hold them): a builder that
  // finds this listener in a BuildingFile record after this no longer
  // asks it.
  if (policy_ != nullptr) policy_->RemoveListener(this);
  for (const auto& [cf, policy] : by_cf_) policy->RemoveListener(this);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (planner_.joinable()) planner_.join();
}

void ShapeListener::OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                                 const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  trees_[info.cf_name];  // read with the others if it is new
  EnsureKnownLocked(db);
  LiveJob job;
  job.flush = true;
  // The memtables being flushed are about the size of the last flush's.
  // Reading them (rocksdb.num-entries-imm-mem-tables) takes the DB mutex on
  // the flush's thread, where writers and other jobs contend for it: only
  // the first flush of the default column family does, which has no
  // previous one (a DB* names no other column family's memtables).
  job.flush_entries = last_flush_entries_[info.cf_name];
  uint64_t entries = 0;
  if (job.flush_entries <= 0 && info.cf_id == 0 &&
      db->GetIntProperty("rocksdb.num-entries-imm-mem-tables", &entries)) {
    job.flush_entries = static_cast<double>(entries);
  }
  job.flush_filter_entries_per_key = last_flush_filter_rate_[info.cf_name];
  // Unknown keys (0: no flush of the column family seen yet) force a plan.
  drift_[info.cf_name].Move(0,
                            job.flush_entries > 0 ? job.flush_entries : -1.0);
  // One atomic flush is one job id for all the column families it flushes,
  // each with its own OnFlushBegin: jobs are keyed within a column family.
  trees_[info.cf_name].Began(info.job_id, std::move(job));
  PlanIfStaleLocked(info.cf_name);
}

void ShapeListener::OnFlushCompleted(
    ROCKSDB_NAMESPACE::DB*, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  EndTieredJob(info.cf_name, info.job_id);  // before mu_: see TieredPlanFor
  std::lock_guard<std::mutex> lock(mu_);
  const auto& props = info.table_properties;
  last_flush_entries_[info.cf_name] = static_cast<double>(props.num_entries);
  if (props.num_entries > 0 && props.num_filter_entries > 0) {
    last_flush_filter_rate_[info.cf_name] =
        static_cast<double>(props.num_filter_entries) / props.num_entries;
  }
  // The published shape already holds the flush's run.
  trees_[info.cf_name].FlushCompleted(info.job_id, info.file_number, true);
}

void ShapeListener::OnCompactionBegin(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  trees_[info.cf_name];  // read with the others if it is new
  EnsureKnownLocked(db);
  // The flush that triggered this compaction may have committed without
  // its callback yet: its file is an input, and must be in L0 for the
  // compaction to move it. A flush that failed has no callback at all.
  CommitFlushesLocked(db);
  LiveTree& tree = trees_[info.cf_name];
  LiveJob job;
  job.output_level = info.output_level;
  job.manual = info.compaction_reason ==
               ROCKSDB_NAMESPACE::CompactionReason::kManualCompaction;
  // Each input's keys leave its level and arrive at the output level; an
  // input already there is rewritten, its filter replaced. The inputs'
  // levels are the tree's own: RocksDB (7.8.3 to 11.x) reports the index
  // of an input's level within the compaction -- 0 or 1 -- as its
  // CompactionFileInfo::level.
  ShapeDrift& drift = drift_[info.cf_name];
  for (size_t i = 0; i < info.input_file_infos.size(); ++i) {
    const uint64_t number = info.input_file_infos[i].file_number;
    job.input_files.push_back(number);
    const double keys = InputEntries(info, i);
    const int level = tree.LevelOf(number);
    drift.Move(level, keys);
    if (level != info.output_level) drift.Move(info.output_level, keys);
  }
  tree.Began(info.job_id, std::move(job));
  PlanIfStaleLocked(info.cf_name);
}

void ShapeListener::OnCompactionCompleted(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  EndTieredJob(info.cf_name, info.job_id);  // before mu_: see TieredPlanFor
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t> inputs;
  for (const auto& input : info.input_file_infos) {
    inputs.push_back(input.file_number);
  }
  std::vector<std::pair<uint64_t, int>> outputs;
  for (const auto& output : info.output_file_infos) {
    outputs.emplace_back(output.file_number, output.level);  // its real level
  }
  LiveTree& tree = trees_[info.cf_name];
  tree.CompactionCompleted(info.job_id, inputs, outputs, info.status.ok());
  // A failed compaction's inputs stayed where they were, not where it was
  // projected.
  if (!info.status.ok()) MarkForPlanLocked(info.cf_name);
  // A file the events did not describe: read the tree once, here, rather
  // than at a flush's start, where it delays the flush.
  EnsureKnownLocked(db);
  // A trivial move's outputs are its inputs, and keep the filters they were
  // built with, where the projection had them rebuilt at the output
  // level's bits: the plan's band counts them at those bits until the next
  // plan, which the drift of the jobs begun since brings (their keys were
  // counted when the move began). Re-planning at each one ran a sequential
  // load, where nearly every compaction is a trivial move, at 0.81x Bloom's
  // rate on the deep preset's tree (docs/design.md#refresh-cost); in the
  // simulation, waiting left Sigma FPR and the bits where re-planning at once
  // had them.
}

void ShapeListener::OnExternalFileIngested(
    ROCKSDB_NAMESPACE::DB* db,
    const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo&) {
  Refresh(db);
}

void ShapeListener::OnTableFileCreationStarted(
    const ROCKSDB_NAMESPACE::TableFileCreationBriefInfo& info) {
  // A string's copy per file, and nothing else: the policy asks for the
  // job's plan only under universal compaction.
  building_file.listener = this;
  building_file.column_family = info.cf_name;
  building_file.job_id = info.job_id;
  building_file.reason = info.reason;
}

std::shared_ptr<const TieredJobPlan> ShapeListener::TieredPlanFor(
    const std::string& column_family, int job_id) {
  const MonkeyFilterPolicy* policy = PolicyFor(column_family);
  if (policy == nullptr) return nullptr;
  std::lock_guard<std::mutex> plan_lock(tiered_mu_);
  const auto key = std::make_pair(column_family, job_id);
  auto it = tiered_jobs_.find(key);
  if (it != tiered_jobs_.end()) return it->second;
  // The tree and the job under mu_, the plan without it: a universal
  // tree holds few files (one a run in L0, a run's target-size files
  // below), and the copy is made once per job, on its thread, before its
  // first file. Lock order: tiered_mu_, then mu_ (the job-end callbacks
  // drop their plans before they take mu_).
  std::vector<LiveFile> files;
  LiveJob job;
  std::vector<CompactionInFlight> others;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto tree = trees_.find(column_family);
    if (tree == trees_.end() || !tree->second.known()) return nullptr;
    const LiveJob* in_flight = tree->second.Job(job_id);
    if (in_flight == nullptr) return nullptr;
    job = *in_flight;
    files = tree->second.Files();
    // A failed flush has no end callback: its plan goes here.
    for (auto old = tiered_jobs_.begin(); old != tiered_jobs_.end();) {
      auto other = trees_.find(old->first.first);
      const bool done = other == trees_.end() ||
                        other->second.Job(old->first.second) == nullptr;
      old = done ? tiered_jobs_.erase(old) : std::next(old);
    }
    // The column family's other compactions with plans: done by the time
    // this job's run joins the tree, most of them.
    for (const auto& [other_key, other_plan] : tiered_jobs_) {
      if (other_key.first != column_family || other_key.second == job_id) {
        continue;
      }
      const LiveJob* other = tree->second.Job(other_key.second);
      if (other == nullptr || other->flush) continue;
      others.push_back(
          {other->input_files, other->output_level, other_plan->millibits});
    }
  }
  auto plan = std::make_shared<TieredJobPlan>();
  if (!PlanTieredJob(files, job, TieredPlanOptionsOf(policy->options()),
                     plan.get(), others)) {
    return nullptr;
  }
  policy->NoteTieredPlan(column_family, plan);
  tiered_jobs_[key] = plan;
  return plan;
}

void ShapeListener::EndTieredJob(const std::string& column_family, int job_id) {
  std::lock_guard<std::mutex> lock(tiered_mu_);
  tiered_jobs_.erase({column_family, job_id});
}

void ShapeListener::OnTableFileCreated(
    const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) {
  const uint64_t number = SstFileNumber(info.file_path);
  if (!info.status.ok() || number == 0) return;
  const auto& props = info.table_properties;
  LiveFile file;
  file.number = number;
  file.entries = static_cast<double>(props.num_entries);
  file.bytes = static_cast<double>(info.file_size);
  file.flushed =
      info.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush;
  file.filter_known = true;
  file.filter_bits = 8.0 * props.filter_size;
  file.filter_entries = static_cast<double>(props.num_filter_entries);
  const bool range_known = KeyRangeOf(props, &file.smallest, &file.largest);
  std::lock_guard<std::mutex> lock(mu_);
  block_sums_[info.cf_name].Add(props, file.bytes);
  trees_[info.cf_name].Created(info.job_id, std::move(file), range_known);
}

void ShapeListener::OnTableFileDeleted(
    const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) {
  const uint64_t number = SstFileNumber(info.file_path);
  std::lock_guard<std::mutex> lock(mu_);
  seeded_filters_.erase(number);
  // The event names no column family; file numbers are unique in a DB.
  for (auto& [cf, tree] : trees_) tree.Deleted(number);
}

void ShapeListener::SeedFiltersLocked(ROCKSDB_NAMESPACE::DB* db) {
  seeded_ = true;
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  if (!db->GetPropertiesOfAllTables(&props).ok()) return;
  for (const auto& [path, p] : props) {
    const uint64_t number = SstFileNumber(path);
    if (number != 0) {
      seeded_filters_[number] = {8.0 * p->filter_size,
                                 static_cast<double>(p->num_filter_entries)};
      // Its size as the table properties add it up (the file's own is not
      // in them).
      block_sums_[p->column_family_name].Add(
          *p,
          static_cast<double>(p->data_size + p->index_size + p->filter_size));
    }
  }
}

void ShapeListener::CommitFlushesLocked(ROCKSDB_NAMESPACE::DB* db) {
  // A flush's memtables stay immutable until it commits, and then its file
  // is live: a full read finds it while its job is still in flight, and
  // projecting the flush too would count its run twice. With no immutable
  // memtable left, no flush of the column family is in flight: a flush
  // job still listed committed -- its file is live, its callback still to
  // come -- or failed. A DB* reads only the default column family's
  // memtables; other column families' flushes wait for their callback.
  // The property takes the DB mutex: it is read only while a flush is in
  // flight.
  auto it = trees_.find(ROCKSDB_NAMESPACE::kDefaultColumnFamilyName);
  if (it == trees_.end() || !it->second.flushing()) return;
  uint64_t unflushed = 0;
  if (!db->GetIntProperty(
          ROCKSDB_NAMESPACE::DB::Properties::kNumImmutableMemTable,
          &unflushed) ||
      unflushed > 0) {
    return;
  }
  it->second.CommitFlushJobs();
}

void ShapeListener::EnsureKnownLocked(ROCKSDB_NAMESPACE::DB* db) {
  for (const auto& [cf, tree] : trees_) {
    if (!tree.known()) {
      FullReadLocked(db);
      for (const auto& [name, t] : trees_) MarkForPlanLocked(name);
      return;
    }
  }
}

void ShapeListener::FullReadLocked(ROCKSDB_NAMESPACE::DB* db) {
  // GetLiveFilesMetaData rather than GetColumnFamilyMetaData: the callbacks
  // name a column family but a DB* has no handle for it, and one call covers
  // them all. RocksDB calls listeners without its mutex held.
  ++full_reads_;
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> metadata;
  db->GetLiveFilesMetaData(&metadata);
  std::map<std::string, std::vector<LiveFile>> files;
  for (const auto& m : metadata) {
    LiveFile file = DescribeFile(m, m.level);
    auto seeded = seeded_filters_.find(m.file_number);
    if (seeded != seeded_filters_.end()) {
      file.filter_known = true;
      file.filter_bits = seeded->second.first;
      file.filter_entries = seeded->second.second;
    }
    files[m.column_family_name].push_back(std::move(file));
  }
  // Every column family with files or with a job in flight: the first
  // flush of an empty one is planned as the run it is about to make.
  for (auto& [cf, tree] : trees_) files[cf];
  for (auto& [cf, cf_files] : files) trees_[cf].Reset(std::move(cf_files));
  CommitFlushesLocked(db);
  // How the default column family's levels are sized, for the plan to see
  // where a backlog drains (util/level_sizing.h). Read here, with the tree:
  // SetOptions changes show at the next full read.
  const ROCKSDB_NAMESPACE::Options options = db->GetOptions();
  sizing_.known =
      options.compaction_style == ROCKSDB_NAMESPACE::kCompactionStyleLevel;
  sizing_.dynamic = options.level_compaction_dynamic_level_bytes;
  sizing_.base_bytes = static_cast<double>(options.max_bytes_for_level_base);
  sizing_.multiplier = options.max_bytes_for_level_multiplier;
  sizing_.num_levels = options.num_levels;
}

void ShapeListener::PlanIfStaleLocked(const std::string& column_family) {
  if (drift_[column_family].Stale()) MarkForPlanLocked(column_family);
}

void ShapeListener::MarkForPlanLocked(const std::string& column_family) {
  if (PolicyFor(column_family) == nullptr) return;
  to_plan_.insert(column_family);
  if (!planner_.joinable()) {
    planner_ = std::thread([this] { PlannerLoop(); });
  }
  work_cv_.notify_one();
}

void ShapeListener::PlannerLoop() {
  LowerPlannerPriority();
  std::unique_lock<std::mutex> lock(mu_);
  std::chrono::steady_clock::time_point next_plan;
  bool first_plan = true;
  while (true) {
    work_cv_.wait(lock, [this] { return stop_ || !to_plan_.empty(); });
    // The planner's share of a core: after a plan of t, the next waits
    // until t / kPlannerShare has passed since the last began (unless
    // someone waits for the plans), and plans the tree as it is then.
    work_cv_.wait_until(lock, next_plan, [this] { return stop_ || hurry_; });
    if (stop_) break;
    if (to_plan_.empty()) continue;
    const std::string cf = *to_plan_.begin();
    to_plan_.erase(to_plan_.begin());
    planning_ = true;
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    const std::chrono::nanoseconds cpu_start = PlannerCpuTime();
    Plan(cf);
    // The share is of a core: what the plan took on the CPU, not on the
    // clock, which at nice 19 beside busy compactions counts the time it
    // waited too, and spaced plans seconds apart. The first plan is not
    // paced: it fills the FPR models' tables once for the process (42 ms,
    // bench/results/20261205-922cc45-live-plan-bench-io), which held a
    // young tree's next plan back 2 s.
    next_plan = start;
    if (!first_plan) {
      next_plan +=
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              (PlannerCpuTime() - cpu_start) / kPlannerShare);
    }
    first_plan = false;
    lock.lock();
    planning_ = false;
    if (to_plan_.empty()) {
      hurry_ = false;
      idle_cv_.notify_all();
    }
  }
  planning_ = false;
  idle_cv_.notify_all();
}

void ShapeListener::BlockSums::Add(
    const ROCKSDB_NAMESPACE::TableProperties& props, double bytes) {
  if (!(bytes > 0) || props.data_size == 0) return;
  file += bytes;
  data += static_cast<double>(props.data_size);
  data_blocks += static_cast<double>(props.num_data_blocks);
  index += static_cast<double>(props.index_size);
  index_blocks += std::max<double>(1.0, props.index_partitions);
}

void ShapeListener::SetTableCache(const std::string& column_family,
                                  TableCache cache) {
  std::lock_guard<std::mutex> lock(mu_);
  table_caches_[column_family] = std::move(cache);
}

CacheLayout ShapeListener::CacheLayoutOf(const std::string& column_family) {
  CacheLayout layout;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_caches_.find(column_family);
  if (it == table_caches_.end()) it = table_caches_.find("");
  if (it != table_caches_.end()) {
    if (it->second.cache != nullptr) {
      layout.cache_bytes = static_cast<double>(it->second.cache->GetCapacity());
    }
    layout.partition_bytes = it->second.partition_bytes;
  }
  auto sums = block_sums_.find(column_family);
  if (sums != block_sums_.end() && sums->second.file > 0) {
    const BlockSums& s = sums->second;
    layout.per_byte.data_bytes = s.data / s.file;
    layout.per_byte.data_blocks = s.data_blocks / s.file;
    layout.per_byte.index_bytes = s.index / s.file;
    // A whole index is one block a file: CachedFiles counts files.
    layout.per_byte.index_blocks = s.index_blocks / s.file;
  }
  return layout;
}

std::vector<LiveFile> ShapeListener::FilesOf(const std::string& column_family) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = trees_.find(column_family);
  return it == trees_.end() ? std::vector<LiveFile>() : it->second.Files();
}

void ShapeListener::WaitForPlans() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!to_plan_.empty()) {
    hurry_ = true;
    work_cv_.notify_all();
  }
  idle_cv_.wait(lock,
                [this] { return stop_ || (to_plan_.empty() && !planning_); });
}

void ShapeListener::Plan(const std::string& column_family) {
  std::lock_guard<std::mutex> plan_lock(plan_mu_);
  const MonkeyFilterPolicy* policy = PolicyFor(column_family);
  if (policy == nullptr) return;
  std::vector<LiveFile> files;
  std::vector<LiveJob> jobs;
  SizingOptions sizing;
  ShapeDrift drift_at_snapshot;
  // The next flush, as OnFlushBegin will project it: its keys are the last
  // flush's.
  LiveJob next_flush;
  next_flush.flush = true;
  LiveTree::Changes changes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    LiveTree& tree = trees_[column_family];
    changes = tree.TakeChanges();
    jobs = tree.Jobs();
    sizing = sizing_;
    drift_at_snapshot = drift_[column_family];
    next_flush.flush_entries = last_flush_entries_[column_family];
    next_flush.flush_filter_entries_per_key =
        last_flush_filter_rate_[column_family];
  }
  LiveFilesMirror& mirror = mirrors_[column_family];
  mirror.Apply(std::move(changes));
  files = mirror.Files();
  const std::vector<LiveLevel> shape =
      ProjectLiveShape(files, jobs, &next_flush);
  // A DB* reaches only the default column family's options; the others are
  // planned as they are.
  LevelSizing level_sizing;
  if (sizing.known &&
      column_family == ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) {
    level_sizing = SizingOf(sizing.dynamic, sizing.base_bytes,
                            sizing.multiplier, sizing.num_levels, files);
  }
  policy->UpdateLiveShape(column_family, shape, level_sizing,
                          CacheLayoutOf(column_family));
  ++plans_;
  // Jobs that began meanwhile are not in this shape: their moves still
  // count towards the next plan (and one that moved the tree far enough
  // asked for it already).
  std::lock_guard<std::mutex> lock(mu_);
  drift_[column_family].PublishedSince(
      shape, policy->options().last_level_filter, drift_at_snapshot);
}

void ShapeListener::Refresh(ROCKSDB_NAMESPACE::DB* db) {
  std::vector<std::string> column_families;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!seeded_) SeedFiltersLocked(db);
    FullReadLocked(db);
    for (const auto& [cf, tree] : trees_) column_families.push_back(cf);
  }
  for (const std::string& cf : column_families) Plan(cf);
}

}  // namespace monkey
