// The live shape of one column family, as a listener reads it: the files of
// each level, the filters they were built with, and the flushes and
// compactions in flight, projected onto the tree they are about to make.
// Pure: no RocksDB in here; table/shape_listener.cc feeds it.
#pragma once

#include <cstdint>
#include <vector>

namespace monkey {

// One level of a live tree.
struct LiveLevel {
  double entries = 0;  // keys in the level, jobs in flight projected
  double runs = 0;     // L0: files; other levels: 1 if not empty
  // The filters already built for the level's files that no job in flight
  // is about to replace: their bits and the keys they hold. Files keep the
  // bits they were built with (a trivial move keeps them too); these are
  // the sunk part of the level, which the controller steers around.
  double filter_bits = 0;
  double filter_entries = 0;
};

// One live SST.
struct LiveFile {
  uint64_t number = 0;
  int level = 0;
  double entries = 0;  // num_entries; 0 when RocksDB has not loaded it
  double bytes = 0;    // file size, to estimate entries when they are 0
  // The filter it was built with, if known: real bits and keys in it.
  bool filter_known = false;
  double filter_bits = 0;
  double filter_entries = 0;
};

// A flush or compaction that has begun and not yet completed.
struct LiveJob {
  bool flush = false;
  int output_level = 0;
  std::vector<uint64_t> input_files;  // compaction inputs, by file number
  // A flush's run, in keys, if known (the memtables being flushed); else
  // it is guessed at the size of an L0 file.
  double flush_entries = 0;
};

// The shape the next files should be planned for: every level's keys and
// runs with the jobs in flight already done -- a compaction's inputs sit at
// its output level, a flush adds one L0 run -- so a compaction into an
// empty level is planned as the level it is about to become. Filters of
// files that jobs are about to replace do not count as built.
std::vector<LiveLevel> ProjectLiveShape(const std::vector<LiveFile>& files,
                                        const std::vector<LiveJob>& jobs);

// Where L0 files go when they leave L0: merged by a compaction, or moved
// down whole by a trivial move (sequential keys), which keeps their L0
// filters all the way to the level they end in. A moving average over
// recent L0 compactions, in keys.
class L0Fate {
 public:
  // Each L0 compaction keeps this much of the memory of earlier ones: the
  // share follows a change of load within about five L0 compactions, and
  // one odd compaction moves it by at most a fifth.
  static constexpr double kMemory = 0.8;

  void Note(double l0_keys, bool moved);
  // The share of recent L0 keys that left by trivial move; 0 if none left.
  double MovedShare() const;

 private:
  double moved_ = 0;
  double merged_ = 0;
};

}  // namespace monkey
