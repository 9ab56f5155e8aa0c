// ShapeListener: feeds a MonkeyFilterPolicy the live shape of each column
// family -- keys per level and one run per L0 file -- so that each new SST is
// planned for the tree as it is, not as a full geometric tree would be.
//
// RocksDB 7.8.3 has no "DB opened" callback, so the shape is read when a
// flush or compaction begins (before it builds any SST: the first file built
// after open already sees the live shape), when one completes, and when files
// are ingested. Jobs in flight are projected onto the shape: a compaction's
// inputs already count at its output level, and a flush adds one L0 run the
// size of the memtables being flushed. So a compaction into an empty level is
// planned as the level it is about to become.
//
// It notes how L0 files leave L0 -- merged by a compaction, or trivially
// moved down with their filters, as under sequential keys -- so the policy
// can plan L0 files for where they end up.
//
// It also tracks the filter bits of the SSTs it sees created, so the policy
// can steer new files to hold the realized average at the budget (files
// built under earlier plans, or trivially moved, keep their filters). Files
// that existed before the listener are seeded from the default column
// family's table properties; others count once rebuilt.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "rocksdb/listener.h"
#include "util/live_shape.h"

namespace monkey {

class ShapeListener : public rocksdb::EventListener {
 public:
  explicit ShapeListener(std::shared_ptr<const MonkeyFilterPolicy> policy);

  static const char* kClassName() { return "MonkeyShapeListener"; }
  const char* Name() const override { return kClassName(); }

  void OnFlushBegin(rocksdb::DB* db,
                    const rocksdb::FlushJobInfo& info) override;
  void OnFlushCompleted(rocksdb::DB* db,
                        const rocksdb::FlushJobInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db,
                         const rocksdb::CompactionJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db,
                             const rocksdb::CompactionJobInfo& info) override;
  void OnExternalFileIngested(
      rocksdb::DB* db, const rocksdb::ExternalFileIngestionInfo& info) override;
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override;

  // Reads the live shape of every column family of `db` and publishes it.
  // The callbacks call it; so may an engine right after DB::Open.
  void Refresh(rocksdb::DB* db);

 private:
  // A flush or compaction that has begun and not yet completed.
  struct Job {
    std::string column_family;
    LiveJob job;
  };
  // A live SST's filter, as built.
  struct Filter {
    double bits = 0;
    double entries = 0;
  };

  void RefreshLocked(rocksdb::DB* db);
  void NoteL0Fate(const rocksdb::CompactionJobInfo& info);
  void SeedFiltersLocked(rocksdb::DB* db);

  const std::shared_ptr<const MonkeyFilterPolicy> policy_;
  std::mutex mu_;  // serializes refreshes, so a stale shape never wins
  std::map<int, Job> jobs_;
  std::map<std::string, double> last_flush_entries_;
  std::map<uint64_t, Filter> filters_;  // by file number
  bool seeded_ = false;
  // How L0 files left L0, per column family.
  std::map<std::string, L0Fate> l0_fate_;
};

}  // namespace monkey
