// fpr_check's deterministic LSM tree: the same keys in the same files on the
// same levels in every run, and the same absent-key probes.
//
// Leveled (the default). Each level is written bottom-up as a memtable that
// is flushed and then compacted straight to its level with CompactFiles, so
// its filters are built for that level; automatic compactions are off, so
// nothing in the background can move a file. Then each level is rewritten
// in place, deepest first, so that a policy planning from the live shape
// builds every level's filters knowing the whole tree. Sizes follow a
// geometric tree: the last level holds `num` keys, each level above
// size_ratio times fewer, and L0 holds l0_files files of the size one step
// above L1.
//
// Universal. `num` keys go in `flushes` equal flushes, and after each one
// RocksDB's universal compaction runs until it has nothing left to do, one
// compaction at a time: the tree is the sorted runs it leaves, each built
// by the flush or compaction that wrote it, as in an engine. Its shape
// follows from the flushes, num_levels (`levels`), the compaction trigger,
// the universal size_ratio and min_merge_width, and RocksDB's defaults for
// the other universal options; the files' sizes enter the picker's
// choices, so filters of other sizes may give another tree.
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
  // Leveled: keys in the last level. Universal: keys in the tree.
  uint64_t num = 1000000;
  int levels = 5;          // L0 .. L(levels-1): num_levels
  double size_ratio = 10;  // leveled only
  int l0_files = 2;        // leveled only
  int value_size = 16;
  uint64_t probes = 200000;  // absent-key Gets
  // "level" or "universal".
  std::string compaction_style = "level";
  // Universal only: the flushes that write the keys; the sorted runs that
  // start a compaction (level0_file_num_compaction_trigger); and
  // CompactionOptionsUniversal's size_ratio (a percentage) and
  // min_merge_width.
  int flushes = 24;
  int compaction_trigger = 8;
  int universal_size_ratio = 1;
  int min_merge_width = 2;

  bool universal() const { return compaction_style == "universal"; }
  // Leveled: keys the tree holds at `level` (per file for L0).
  uint64_t KeysAt(int level) const;
  // Universal: keys of the flush-th flush, 0-based.
  uint64_t KeysOfFlush(int flush) const;
  // What is wrong with the spec, as a sentence per problem; "" if nothing.
  std::string Problems() const;
};

// Keys are 16 hex digits of KeyPermutation(seed) at positions 0, 1, ...:
// distinct, and spread over the whole key space, so every level spans it and
// every probe reaches every level's filter. The absent probes take the
// positions from here on; the tree's are below.
inline constexpr uint64_t kFirstAbsentKey = uint64_t{1} << 62;

// Options fpr_check imposes on top of the caller's: the spec's compaction
// style, no automatic compactions (BuildTree lets universal compaction run
// between its flushes), memtables big enough that only explicit flushes
// write files, one subcompaction. Leveled: num_levels is spec.levels unless
// the caller's is higher (an engine's setting; 0 means not set). Universal:
// num_levels, level0_file_num_compaction_trigger, size_ratio and
// min_merge_width are the spec's, the other universal options RocksDB's
// defaults, and one compaction runs at a time.
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
