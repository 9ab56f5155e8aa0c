// ShapeListener: feeds a MonkeyFilterPolicy the live shape of each column
// family -- keys per level and one run per L0 file -- so that each new SST is
// planned for the tree as it is, not as a full geometric tree would be.
//
// RocksDB 7.8.3 has no "DB opened" callback, so the shape is read when a
// flush or compaction begins (before it builds any SST: the first file built
// after open already sees the live shape) and when files are ingested. Jobs
// in flight are projected onto the shape: a compaction's
// inputs already count at its output level, and a flush adds one L0 run the
// size of the memtables being flushed. So a compaction into an empty level is
// planned as the level it is about to become. A flush of the default column
// family is done once it has no immutable memtable left, even before its
// OnFlushCompleted: RocksDB runs that callback after committing the flush,
// and DB::Flush() may return first.
//
// A refresh walks every live file, so it is not made for every job: jobs
// that move the tree little wait for the next refresh (util/shape_drift.h),
// and a completed job needs none, since the projection already showed its
// result -- unless it failed. A trivial move's files keep their filters
// where the projection had them rebuilt; the next refresh reads them.
//
// It also tracks the filter bits of the SSTs it sees created, so the policy
// can steer new files to hold the realized average at the budget (files
// built under earlier plans, or trivially moved, keep their filters). Files
// that existed before the listener are seeded from the default column
// family's table properties by Refresh called from an engine's thread
// (monkey::RefreshShape after DB::Open, and ingestion); until then, or without
// it, they count once rebuilt.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/shape_drift.h"
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
  void OnTableFileCreated(
      const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(
      const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) override;

  // Whether it feeds `policy`.
  bool Feeds(const ROCKSDB_NAMESPACE::FilterPolicy* policy) const;
  // The policy it feeds every column family; nullptr when each has its own.
  const MonkeyFilterPolicy* policy() const { return policy_.get(); }

  // Reads the live shape of every column family of `db` and publishes it.
  // The callbacks call it; so may an engine right after DB::Open.
  void Refresh(ROCKSDB_NAMESPACE::DB* db);

 private:
  // A flush or compaction that has begun and not yet completed.
  struct Job {
    std::string column_family;
    bool default_column_family = false;
    LiveJob job;
  };
  // A live SST's filter, as built.
  struct Filter {
    double bits = 0;
    double entries = 0;
    bool flushed = false;
  };

  void RefreshLocked(ROCKSDB_NAMESPACE::DB* db);
  // Refreshes if jobs since the last refresh moved `column_family` too far
  // from the shape it was given.
  void RefreshIfStaleLocked(ROCKSDB_NAMESPACE::DB* db,
                            const std::string& column_family);
  void DropCommittedFlushesLocked(ROCKSDB_NAMESPACE::DB* db);
  // Reads the table properties of every live file: never on a flush or
  // compaction thread, where RocksDB tags the thread's reads as the job's
  // (db_stress asserts the tags match, RocksDB 9.11).
  void SeedFiltersLocked(ROCKSDB_NAMESPACE::DB* db);

  // The policy that plans `column_family`'s files; nullptr for none.
  const MonkeyFilterPolicy* PolicyFor(const std::string& column_family) const;

  const std::shared_ptr<const MonkeyFilterPolicy> policy_;  // or by_cf_
  const PolicyMap by_cf_;
  std::mutex mu_;  // serializes refreshes, so a stale shape never wins
  // By job id and column family: one atomic flush is one job id for all
  // the column families it flushes, each with its own OnFlushBegin.
  std::map<std::pair<int, std::string>, Job> jobs_;
  std::map<std::string, double> last_flush_entries_;
  std::map<std::string, double> last_flush_filter_rate_;  // per key
  std::map<uint64_t, Filter> filters_;                    // by file number
  std::map<std::string, ShapeDrift> drift_;  // since the last refresh
  // Each live SST's level: as the last refresh read it, and as completed
  // jobs since reported their outputs'.
  std::unordered_map<uint64_t, int> file_levels_;
  bool seeded_ = false;
};

}  // namespace monkey
