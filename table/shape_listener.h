// ShapeListener: feeds a MonkeyFilterPolicy the live shape of each column
// family -- keys per level and one run per L0 file -- so that each new SST is
// planned for the tree as it is, not as a full geometric tree would be.
//
// Threads. RocksDB calls the callbacks on the thread that runs the flush or
// compaction, before and after the job; whatever they do delays the job,
// and a late flush stalls writers. So a callback only records what its
// event changed in the column family's LiveTree (util/live_tree.h: the
// files it names, from the payload) and, when the tree has moved far
// enough from the shape last planned for (util/shape_drift.h), marks the
// column family for the planner: one thread per listener, started at the
// first event, at the lowest CPU priority, that projects the tree
// (ProjectLiveShape) and re-plans (MonkeyFilterPolicy::UpdateLiveShape)
// while the job runs. Under the mutex the callbacks take, the planner only
// takes the files changed since its last plan (LiveTree::TakeChanges) into
// its own copy (LiveFilesMirror): a callback never waits for a copy of the
// whole tree. A callback reads no DB property that takes the DB mutex,
// except the first flush's memtable keys and, while a flush is in flight,
// the immutable memtables at a compaction's start. The policy
// publishes each plan by swapping one pointer; a builder takes the plan
// published last and never waits for one being made. The first files of a
// job may so be built to the plan before it (a plan takes about a
// millisecond on a 1,000-file tree); WaitForPlans waits for the planner.
//
// Reads of the whole tree (GetLiveFilesMetaData) are rare and counted
// (full_reads): at the first event after DB::Open, at Refresh (RefreshShape,
// ingestion), and when an event leaves the tree unsure -- a file no event
// described, or whose key range no event gave. (A file deleted without a
// job, by DeleteFilesInRange, just leaves the tree.) A file's key range
// comes from KeyRangeCollector (table/key_range_collector.h), which Install
// adds to the column family's options; without it each new file makes the
// next event read the tree.
//
// Jobs in flight are projected onto the shape: a compaction's inputs
// already count at its output level, and a flush adds one L0 run the size
// of the memtables being flushed. So a compaction into an empty level is
// planned as the level it is about to become. A completed job needs no new
// plan, since the projection already showed its result -- unless it failed.
//
// It also keeps the filter bits of the SSTs it sees created, so the policy
// can steer new files to hold the realized average at the budget (files
// built under earlier plans, or trivially moved, keep their filters). Files
// that existed before the listener are seeded from the table properties by
// Refresh called from an engine's thread (monkey::RefreshShape after
// DB::Open, and ingestion); until then, or without it, they count once
// rebuilt.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/util/cache_plan.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/live_tree.h"
#include "monkey/util/shape_drift.h"
#include "monkey/util/tiered_job.h"
#include "rocksdb/cache.h"
#include "rocksdb/listener.h"
#include "rocksdb/metadata.h"

namespace monkey {

// One SST at `level` as the listener describes it to ProjectLiveShape:
// number, level, entries, size and key range (the filter it was built with
// is the listener's to add). monkey_plan --db describes a database's files
// with it too, so that the advisor plans for the shape the policy sees.
LiveFile DescribeFile(const ROCKSDB_NAMESPACE::SstFileMetaData& meta,
                      int level);

// Removes from `listeners` the ShapeListeners that feed `policy`, or every
// ShapeListener when `policy` is nullptr: a listener left behind by a
// policy that was replaced would go on reading the tree for no table.
void EraseShapeListeners(
    std::vector<std::shared_ptr<ROCKSDB_NAMESPACE::EventListener>>* listeners,
    const ROCKSDB_NAMESPACE::FilterPolicy* policy);

class ShapeListener;

// The table file the calling thread is about to build, as the last
// OnTableFileCreationStarted on it said: RocksDB calls it on the thread
// that then creates the file's table builder, and so the builder's filter
// policy, just before it (BuildTable for flushes,
// CompactionJob::OpenCompactionOutputFile for each output of each
// subcompaction; 7.8.3 to 11.x). It is how a filter policy learns which
// job -- and so which sorted run -- it builds for, which
// FilterBuildingContext does not say. `listener` is only compared and
// looked up by the policy it feeds, never dereferenced before that: the
// record outlives the job.
struct BuildingFile {
  ShapeListener* listener = nullptr;
  std::string column_family;
  int job_id = -1;
  ROCKSDB_NAMESPACE::TableFileCreationReason reason =
      ROCKSDB_NAMESPACE::TableFileCreationReason::kMisc;
};
const BuildingFile& BuildingFileOnThisThread();

class ShapeListener : public ROCKSDB_NAMESPACE::EventListener {
 public:
  // Policies by column family. DB::Open takes its listeners from DBOptions,
  // one set for all column families, each of which may have a policy of its
  // own (InstallForColumnFamilies).
  using PolicyMap =
      std::map<std::string, std::shared_ptr<const MonkeyFilterPolicy>>;

  // Feeds `policy` the shape of every column family.
  explicit ShapeListener(std::shared_ptr<const MonkeyFilterPolicy> policy);
  // Feeds each column family's own policy; the others are not read.
  explicit ShapeListener(PolicyMap by_column_family);

  static const char* kClassName() { return "MonkeyShapeListener"; }
  const char* Name() const override { return kClassName(); }

  void OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                    const ROCKSDB_NAMESPACE::FlushJobInfo& info) override;
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB* db,
                        const ROCKSDB_NAMESPACE::FlushJobInfo& info) override;
  void OnCompactionBegin(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override;
  void OnCompactionCompleted(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override;
  void OnExternalFileIngested(
      ROCKSDB_NAMESPACE::DB* db,
      const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo& info) override;
  void OnTableFileCreationStarted(
      const ROCKSDB_NAMESPACE::TableFileCreationBriefInfo& info) override;
  void OnTableFileCreated(
      const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(
      const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) override;

  // Whether it feeds `policy`.
  bool Feeds(const ROCKSDB_NAMESPACE::FilterPolicy* policy) const;
  // The policy it feeds every column family; nullptr when each has its own.
  const MonkeyFilterPolicy* policy() const { return policy_.get(); }

  // Reads the live shape of every column family of `db` and publishes its
  // plans before it returns. An engine's thread calls it (RefreshShape
  // after DB::Open), as does ingestion.
  void Refresh(ROCKSDB_NAMESPACE::DB* db);

  // Under universal compaction: the plan of job `job_id` of
  // `column_family` for the sorted run it builds (util/tiered_job.h), made
  // at the job's first file from the tree and the job as the events left
  // them, and kept until the job ends, so that every file of the job gets
  // its run's bits. nullptr where the job or the tree is unknown (no begin
  // event: a recovery flush; a file no event described) or there is
  // nothing to plan.
  std::shared_ptr<const TieredJobPlan> TieredPlanFor(
      const std::string& column_family, int job_id);

  // Waits until every column family marked for a new plan has it.
  void WaitForPlans();

  // The live files of `column_family` as the events left them.
  std::vector<LiveFile> FilesOf(const std::string& column_family);

  // The block cache a column family's table options read filters through
  // (cache_index_and_filter_blocks), for objective=io: the cache, whose
  // capacity each plan reads, and the filter partitions' size
  // (metadata_block_size with partition_filters; 0 for full filters).
  // Install and InstallForColumnFamilies set it; "" is every column
  // family without one of its own.
  struct TableCache {
    std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache;
    double partition_bytes = 0;
  };
  void SetTableCache(const std::string& column_family, TableCache cache);
  // The cache objective=io plans `column_family` for, with what its files
  // hold per byte besides filters (from the table properties seen).
  CacheLayout CacheLayoutOf(const std::string& column_family);

  // The planner thread's name and nice value, on Linux: the lowest
  // priority, as RocksDB gives its low-priority pool
  // (Env::LowerThreadPoolCPUPriority). Where writers and jobs keep every
  // core busy, a plan waits for them, not they for it: a late plan costs
  // little (a builder uses the one before), a late flush stalls writers.
  static constexpr const char* kPlannerThreadName = "monkey:planner";
  static constexpr int kPlannerNice = 19;

  // Whole-tree reads so far (GetLiveFilesMetaData), and plans published.
  uint64_t full_reads() const { return full_reads_; }
  uint64_t plans() const { return plans_; }

  ~ShapeListener() override;

 private:
  // How RocksDB sizes the default column family's levels, read with the
  // tree (a DB* reaches no other column family's options).
  struct SizingOptions {
    bool known = false;
    bool dynamic = false;
    double base_bytes = 0, multiplier = 10;
    int num_levels = 7;
  };

  // Reads every live file into the column families' trees; plans nothing.
  void FullReadLocked(ROCKSDB_NAMESPACE::DB* db);
  // A full read unless every tree is known.
  void EnsureKnownLocked(ROCKSDB_NAMESPACE::DB* db);
  // Flush jobs that committed before their callback go live (LiveTree::
  // CommitFlushJobs), once no immutable memtable is left.
  void CommitFlushesLocked(ROCKSDB_NAMESPACE::DB* db);
  // Reads the table properties of every live file: never on a flush or
  // compaction thread, where RocksDB tags the thread's reads as the job's
  // (db_stress asserts the tags match, RocksDB 9.11).
  void SeedFiltersLocked(ROCKSDB_NAMESPACE::DB* db);
  // Marks `column_family` for the planner if its tree drifted too far.
  void PlanIfStaleLocked(const std::string& column_family);
  void MarkForPlanLocked(const std::string& column_family);
  // Projects and plans `column_family` from its tree now; takes mu_.
  void Plan(const std::string& column_family);
  void PlannerLoop();

  // The policy that plans `column_family`'s files; nullptr for none.
  const MonkeyFilterPolicy* PolicyFor(const std::string& column_family) const;

  const std::shared_ptr<const MonkeyFilterPolicy> policy_;  // or by_cf_
  const PolicyMap by_cf_;
  std::mutex plan_mu_;  // one plan at a time, so a stale shape never wins
  // The planner's copies of the trees' files, under plan_mu_.
  std::map<std::string, LiveFilesMirror> mirrors_;
  std::mutex mu_;  // the state below; never held while planning
  std::map<std::string, LiveTree> trees_;
  std::map<std::string, ShapeDrift> drift_;  // since the last plan
  std::map<std::string, double> last_flush_entries_;
  std::map<std::string, double> last_flush_filter_rate_;  // per key
  // Filters of files that were live before the listener: bits, entries.
  std::map<uint64_t, std::pair<double, double>> seeded_filters_;
  SizingOptions sizing_;
  bool seeded_ = false;
  std::map<std::string, TableCache> table_caches_;
  // Sums over the files created or seeded, by column family: file bytes,
  // and the data and index bytes and blocks in them (index blocks: its
  // partitions, or one a file).
  struct BlockSums {
    double file = 0, data = 0, data_blocks = 0, index = 0, index_blocks = 0;
    void Add(const ROCKSDB_NAMESPACE::TableProperties& props, double bytes);
  };
  std::map<std::string, BlockSums> block_sums_;
  // The planner. It spends at most this share of one core's CPU time
  // (CLOCK_THREAD_CPUTIME_ID; the first plan is not paced): on the deep
  // preset's tree (~1,000-5,000 files of 64 KiB, a flush every few
  // milliseconds) a plan takes 1-3 ms, and planning for every job that
  // asked took 9.5% of fillseq's CPU samples (perf) and 12% of its
  // throughput. Plans coalesce meanwhile: the next one is for the tree as
  // it is then. A flush meanwhile is priced from the plan before (its L0
  // run at that plan's price), a compaction from the levels that plan saw.
  static constexpr double kPlannerShare = 0.02;
  std::thread planner_;
  std::condition_variable work_cv_, idle_cv_;
  std::set<std::string> to_plan_;
  bool planning_ = false;
  bool hurry_ = false;  // WaitForPlans is waiting: no pause between plans
  bool stop_ = false;
  std::atomic<uint64_t> full_reads_{0}, plans_{0};
  // Tiered jobs' plans, by column family and job id, from a job's first
  // file to its end (TieredPlanFor). tiered_mu_ is held while one is made,
  // so that subcompactions starting together plan their job once.
  std::mutex tiered_mu_;
  std::map<std::pair<std::string, int>, std::shared_ptr<const TieredJobPlan>>
      tiered_jobs_;
  void EndTieredJob(const std::string& column_family, int job_id);
};

}  // namespace monkey
