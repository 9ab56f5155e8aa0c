// fpr_check's deterministic LSM tree: the same keys in the same files on the
// same levels in every run, and the same absent-key probes. Each level is
// written bottom-up as a memtable that is flushed and then compacted straight
// to its level with CompactFiles, so its filters are built for that level;
// automatic compactions are off, so nothing in the background can move a
// file. Then each level is rewritten in place, deepest first, so that a
// policy planning from the live shape builds every level's filters knowing
// the whole tree. Sizes follow a geometric tree: the last level holds `num`
// keys, each level above size_ratio times fewer, and L0 holds l0_files files
// of the size one step above L1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "monkey/filter_report.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace monkey::fpr_check {

struct TreeSpec {
  uint64_t seed = 301;
  uint64_t num = 1000000;  // keys in the last level
  int levels = 5;          // L0 .. L(levels-1)
  double size_ratio = 10;
  int l0_files = 2;
  int value_size = 16;
  uint64_t probes = 200000;  // absent-key Gets

  // Keys the tree holds at `level` (per file for L0).
  uint64_t KeysAt(int level) const;
};

// Keys are 16 hex digits of KeyPermutation(seed) at positions 0, 1, ...:
// distinct, and spread over the whole key space, so every level spans it and
// every probe reaches every level's filter. The absent probes take the
// positions from here on; the tree's are below.
inline constexpr uint64_t kFirstAbsentKey = uint64_t{1} << 62;

// Options fpr_check imposes on top of the caller's: leveled compaction,
// no automatic compactions, memtables big enough that only explicit flushes
// write files, one subcompaction. num_levels is spec.levels unless the
// caller's is higher (an engine's setting; 0 means not set).
void MakeDeterministic(const TreeSpec& spec,
                       ROCKSDB_NAMESPACE::Options* options);

// Builds the tree in an empty directory. `progress` gets one line per step.
ROCKSDB_NAMESPACE::Status BuildTree(const TreeSpec& spec,
                                    const ROCKSDB_NAMESPACE::Options& options,
                                    const std::string& path,
                                    void (*progress)(const std::string& line));

// Looks up spec.probes absent keys on this thread, counting every filter
// outcome in `collector`. A key found is an error: the probes must be absent.
ROCKSDB_NAMESPACE::Status ProbeAbsent(const TreeSpec& spec,
                                      ROCKSDB_NAMESPACE::DB* db,
                                      FilterStatsCollector* collector);

}  // namespace monkey::fpr_check
