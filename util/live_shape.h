// The live shape of one column family, as a listener reads it: the files of
// each level, the filters they were built with, and the flushes and
// compactions in flight, projected onto the tree they are about to make.
// Pure: no RocksDB in here; table/shape_listener.cc feeds it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace monkey {

// One level of a live tree.
struct LiveLevel {
  double entries = 0;  // keys in the level, jobs in flight projected
  // The runs a lookup probes here, each weighted by the share of lookups
  // that reach it (the share of the tree's keys inside its key range): one
  // per L0 file, at most 1 for a level below. Under random keys every run
  // covers the key space and counts 1; under sequential keys files cover
  // disjoint stretches and each counts its share.
  double runs = 0;
  // The filters already built for the level's files that no job in flight
  // is about to replace: their bits and the keys they hold. Files keep the
  // bits they were built with (a trivial move keeps them too).
  double filter_bits = 0;
  double filter_entries = 0;
  // Keys in those files, with a filter or without one (a level planned at
  // 0 bits); the rest of the level's keys are in files whose filters are
  // unknown, or are being written to it by jobs in flight.
  double built_entries = 0;
  // Keys that jobs in flight are writing to the level: the files the plan
  // is about to build.
  double fluid_entries = 0;
};

// One live SST.
struct LiveFile {
  uint64_t number = 0;
  int level = 0;
  double entries = 0;  // num_entries; 0 when RocksDB has not loaded it
  double bytes = 0;    // file size, to estimate entries when they are 0
  // Its key range, in the column family's order (user keys; bytewise or
  // its reverse).
  std::string smallest, largest;
  bool flushed = false;  // made by a flush, as far as is known
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
// files that jobs are about to replace do not count as built. A flush's run
// is guessed to cover what the newest flushed file covers.
std::vector<LiveLevel> ProjectLiveShape(const std::vector<LiveFile>& files,
                                        const std::vector<LiveJob>& jobs);

// The share of the tree's keys inside each file's key range, in rank space:
// the files' ends, sorted, cut the key space into stretches, and each file's
// keys spread evenly over the stretches it spans. No assumption about how
// keys are spelled (decimal digits, binary integers) enters. `entries` is
// indexed like `files`.
std::vector<double> KeyShareInRange(const std::vector<LiveFile>& files,
                                    const std::vector<double>& entries);

}  // namespace monkey
