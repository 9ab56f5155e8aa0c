// LiveTree: the files and jobs of one column family, kept from a listener's
// events. Each event changes only the files it names -- a flush adds its
// file, a compaction replaces its inputs with its outputs, a trivial move
// changes a file's level -- in O(files changed * log files), so that the
// thread running a flush or compaction does next to nothing for the plan
// (issue 29: the tree read and re-planned at each job cost 6-32% of write
// throughput). A planner keeps its own copy of the files (LiveFilesMirror),
// updated from TakeChanges with the files changed since its last plan, and
// projects and plans off that thread (live_shape.h, live_plan.h): nothing
// that grows with the tree runs under the lock the job threads take. Pure:
// no RocksDB in here; table/shape_listener.cc feeds it.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "monkey/util/live_shape.h"

namespace monkey {

class LiveTree {
 public:
  // The tree as a full read found it (LiveFile::level set). Files created
  // and not yet seen live keep their records; live files whose filters were
  // recorded keep them.
  void Reset(std::vector<LiveFile> files);
  // Whether a full read has happened, and nothing since left the tree
  // unsure (a file whose key range or record is unknown).
  bool known() const { return known_; }

  // A file was built (flush or compaction output) by job `key`, before it
  // is live. `file.level` is ignored; its key range must be set (smallest
  // and largest), else the tree becomes unsure when the file goes live.
  void Created(int key, LiveFile file, bool range_known);
  // A file was deleted: its records go, and a live file leaves the tree.
  void Deleted(uint64_t number);

  // A job began: `key` names it among the column family's jobs.
  void Began(int key, LiveJob job);
  // A flush ended: its job is done, and `number` is live in L0 if it went
  // well.
  void FlushCompleted(int key, uint64_t number, bool ok);
  // A compaction ended: `inputs` leave the tree, `outputs` (number, level)
  // arrive. An output that is already live is a trivial move: it keeps its
  // filter and takes its new level. A failed compaction moves nothing.
  void CompactionCompleted(int key, const std::vector<uint64_t>& inputs,
                           const std::vector<std::pair<uint64_t, int>>& outputs,
                           bool ok);
  // The flush jobs in flight have all committed or failed, without their
  // callbacks yet (ShapeListener::CommitFlushesLocked: no immutable
  // memtable is left). A committed flush's files go live in L0, as its
  // FlushCompleted would put them; a failed flush, which has no callback,
  // leaves nothing.
  void CommitFlushJobs();

  // Whether a flush job is in flight (begun, neither completed nor
  // committed).
  bool flushing() const;

  // The live files changed since the last TakeChanges: `put` holds those
  // added or moved, `erased` the numbers that left. O(files changed),
  // except the first call and the first after a Reset, or after more
  // changes than twice the files, which put every file (`all`).
  struct Changes {
    bool all = false;  // `put` is every live file: drop the others
    std::vector<LiveFile> put;
    std::vector<uint64_t> erased;
  };
  Changes TakeChanges();

  // The level of a live file; -1 if it is not live.
  int LevelOf(uint64_t number) const;
  // The live files and the jobs in flight, for ProjectLiveShape.
  std::vector<LiveFile> Files() const;
  std::vector<LiveJob> Jobs() const;
  // The job in flight that `key` names; nullptr if none.
  const LiveJob* Job(int key) const;
  size_t num_files() const { return live_.size(); }

 private:
  bool known_ = false;                 // read in full, and nothing unsure since
  std::map<uint64_t, LiveFile> live_;  // by number: snapshots in one order
  uint64_t newest_seqno_ = 0;  // the largest LiveFile::largest_seqno seen
  // Files built and not yet live, with whether their range is known.
  std::unordered_map<uint64_t, std::pair<LiveFile, bool>> created_;
  // Files a completed compaction took before they were live here: a
  // flush whose callback comes after a compaction took its file.
  std::unordered_set<uint64_t> consumed_;
  std::map<int, LiveJob> jobs_;
  // The files each flush job in flight has built, by the job's key.
  std::unordered_map<int, std::vector<uint64_t>> flushed_by_;
  // Flushed files CommitFlushJobs made live before their FlushCompleted.
  std::unordered_set<uint64_t> committed_;

  // Numbers of the live files put or erased since the last TakeChanges,
  // unless all_changed_ (none taken yet, a Reset since, or too many).
  bool all_changed_ = true;
  std::unordered_set<uint64_t> changed_;

  // A flush's file `number` goes live in L0, if it was built and not taken.
  void FlushedIntoL0(uint64_t number);
  // Every change to live_ goes through these, for TakeChanges.
  void PutLive(uint64_t number, LiveFile file);
  void EraseLive(uint64_t number);
  void NoteChanged(uint64_t number);
};

// A planner's copy of one LiveTree's live files, kept from its
// TakeChanges: the listener's mutex is held only while the changes are
// taken, and the copy is read without it.
class LiveFilesMirror {
 public:
  void Apply(LiveTree::Changes changes);
  // The files by number, as LiveTree::Files gives them.
  std::vector<LiveFile> Files() const;
  size_t num_files() const { return files_.size(); }

 private:
  std::map<uint64_t, LiveFile> files_;
};

}  // namespace monkey
