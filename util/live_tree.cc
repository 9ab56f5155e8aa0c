// LiveTree: one column family's files and jobs, from events. See
// live_tree.h.
#include "monkey/util/live_tree.h"

#include <algorithm>

namespace monkey {

void LiveTree::Reset(std::vector<LiveFile> files) {
  std::map<uint64_t, LiveFile> live;
  uint64_t newest = 0;
  for (LiveFile& file : files) {
    auto was = live_.find(file.number);
    auto made = created_.find(file.number);
    const LiveFile* record = was != live_.end()       ? &was->second
                             : made != created_.end() ? &made->second.first
                                                      : nullptr;
    if (record != nullptr && !file.filter_known && record->filter_known) {
      file.filter_known = true;
      file.filter_bits = record->filter_bits;
      file.filter_entries = record->filter_entries;
      file.flushed = record->flushed;
    }
    if (made != created_.end()) created_.erase(made);
    newest = std::max(newest, file.largest_seqno);
    live.emplace(file.number, std::move(file));
  }
  live_ = std::move(live);
  newest_seqno_ = newest;
  all_changed_ = true;
  changed_.clear();
  consumed_.clear();
  known_ = true;
}

void LiveTree::Created(int key, LiveFile file, bool range_known) {
  const uint64_t number = file.number;
  auto job = jobs_.find(key);
  if (job != jobs_.end() && job->second.flush) {
    flushed_by_[key].push_back(number);
  }
  created_[number] = {std::move(file), range_known};
}

void LiveTree::Deleted(uint64_t number) {
  // A compaction's inputs can be deleted before its OnCompactionCompleted
  // runs: another job's thread purges obsolete files as soon as the new
  // version is installed. A file deleted without a job (DeleteFilesInRange)
  // leaves the tree the same way.
  created_.erase(number);
  consumed_.erase(number);
  EraseLive(number);
}

void LiveTree::Began(int key, LiveJob job) { jobs_[key] = std::move(job); }

void LiveTree::FlushCompleted(int key, uint64_t number, bool ok) {
  jobs_.erase(key);
  flushed_by_.erase(key);
  if (committed_.erase(number) > 0) return;  // live, or taken since
  if (ok && number != 0) FlushedIntoL0(number);
}

void LiveTree::FlushedIntoL0(uint64_t number) {
  if (consumed_.erase(number) > 0) return;
  if (live_.count(number) > 0) return;  // a full read found it
  auto made = created_.find(number);
  if (made == created_.end()) {
    known_ = false;  // no record of the file: a full read finds it
    return;
  }
  LiveFile file = std::move(made->second.first);
  const bool range_known = made->second.second;
  created_.erase(made);
  file.level = 0;
  file.flushed = true;
  file.largest_seqno = newest_seqno_ + 1;  // newer than every live file
  known_ = known_ && range_known;
  PutLive(number, std::move(file));
}

void LiveTree::CompactionCompleted(
    int key, const std::vector<uint64_t>& inputs,
    const std::vector<std::pair<uint64_t, int>>& outputs, bool ok) {
  jobs_.erase(key);
  if (!ok) return;
  std::unordered_map<uint64_t, LiveFile> moved;
  uint64_t newest_input = 0;  // a new output's age: its newest input's
  for (uint64_t number : inputs) {
    auto it = live_.find(number);
    if (it == live_.end()) {
      // A flush's file whose callback has not run yet; else a file already
      // deleted.
      if (created_.erase(number) > 0) consumed_.insert(number);
      continue;
    }
    newest_input = std::max(newest_input, it->second.largest_seqno);
    moved.emplace(number, std::move(it->second));
    EraseLive(number);
  }
  for (const auto& [number, level] : outputs) {
    LiveFile file;
    auto was = moved.find(number);
    auto made = created_.find(number);
    if (was != moved.end()) {
      file = std::move(was->second);  // a trivial move
    } else if (made != created_.end()) {
      file = std::move(made->second.first);
      file.largest_seqno = newest_input;
      known_ = known_ && made->second.second;
      created_.erase(made);
    } else {
      known_ = false;
      continue;
    }
    file.level = level;
    PutLive(number, std::move(file));
  }
}

void LiveTree::CommitFlushJobs() {
  // Dropping the jobs alone lost each committed flush's run until its
  // callback: neither projected nor live, while the compaction it had
  // triggered took it as an input of no level, and the plan made as that
  // compaction began missed its keys.
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (!it->second.flush) {
      ++it;
      continue;
    }
    auto built = flushed_by_.find(it->first);
    if (built != flushed_by_.end()) {
      for (uint64_t number : built->second) {
        FlushedIntoL0(number);
        committed_.insert(number);
      }
      flushed_by_.erase(built);
    }
    it = jobs_.erase(it);
  }
}

bool LiveTree::flushing() const {
  for (const auto& [key, job] : jobs_) {
    if (job.flush) return true;
  }
  return false;
}

void LiveTree::PutLive(uint64_t number, LiveFile file) {
  newest_seqno_ = std::max(newest_seqno_, file.largest_seqno);
  live_[number] = std::move(file);
  NoteChanged(number);
}

void LiveTree::EraseLive(uint64_t number) {
  if (live_.erase(number) > 0) NoteChanged(number);
}

void LiveTree::NoteChanged(uint64_t number) {
  if (all_changed_) return;
  changed_.insert(number);
  // A planner that takes no changes (a column family no policy plans)
  // must not make the log grow without end.
  if (changed_.size() > 2 * live_.size() + 64) {
    all_changed_ = true;
    changed_.clear();
  }
}

LiveTree::Changes LiveTree::TakeChanges() {
  Changes changes;
  if (all_changed_) {
    changes.all = true;
    changes.put = Files();
  } else {
    for (uint64_t number : changed_) {
      auto it = live_.find(number);
      if (it == live_.end()) {
        changes.erased.push_back(number);
      } else {
        changes.put.push_back(it->second);
      }
    }
  }
  all_changed_ = false;
  changed_.clear();
  return changes;
}

int LiveTree::LevelOf(uint64_t number) const {
  auto it = live_.find(number);
  return it == live_.end() ? -1 : it->second.level;
}

std::vector<LiveFile> LiveTree::Files() const {
  std::vector<LiveFile> files;
  files.reserve(live_.size());
  for (const auto& [number, file] : live_) files.push_back(file);
  return files;
}

const LiveJob* LiveTree::Job(int key) const {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::vector<LiveJob> LiveTree::Jobs() const {
  std::vector<LiveJob> jobs;
  for (const auto& [key, job] : jobs_) jobs.push_back(job);
  return jobs;
}

void LiveFilesMirror::Apply(LiveTree::Changes changes) {
  if (changes.all) files_.clear();
  for (uint64_t number : changes.erased) files_.erase(number);
  for (LiveFile& file : changes.put) {
    const uint64_t number = file.number;
    files_[number] = std::move(file);
  }
}

std::vector<LiveFile> LiveFilesMirror::Files() const {
  std::vector<LiveFile> files;
  files.reserve(files_.size());
  for (const auto& [number, file] : files_) files.push_back(file);
  return files;
}

}  // namespace monkey
