// The live shape of one column family, as a listener reads it: the files of
// each level, the filters they were built with, and the flushes and
// compactions in flight, projected onto the tree they are about to make.
// Pure: no RocksDB in here; table/shape_listener.cc feeds it.
#pragma once

#include <cstdint>
#include <map>
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
  // The built files' keys by the bits their filters hold, in millibits per
  // key (0 for a file built without a filter). A level's files are built at
  // different moments, at different bits, and a lookup meets one of them:
  // the level's FPR is the mean of its files' FPRs, which is above the FPR
  // at their mean bits, FPR being convex in bits. Growing to 8M keys in the
  // simulator (36,000-key memtables, base level 4x, T = 10, dynamic sizing,
  // objective=memory) the gap reached 7.5% of the tree's Sigma FPR.
  std::map<int, double> built_entries_by_millibits;
  // L0 only: the run the column family's next flush would add -- its
  // filter entries and reach, as a flush in flight is projected -- for a
  // flush whose builder starts before the plan projecting it is published
  // (the listener plans off the flush's thread, and a flush builds its
  // filter at once).
  double next_flush_entries = 0;
  double next_flush_runs = 0;
  // Its files and their bytes, jobs in flight projected (a flush's file at
  // the tree's bytes per filter entry): what a block cache holds of it
  // besides filters (util/cache_plan.h), and, with full filters, the
  // blocks its filter comes in.
  double files = 0;
  double bytes = 0;

  // Counts a file of `entries` keys as built: its filter has `bits` bits
  // for `keys` keys (both 0 for a file built without a filter).
  void AddBuilt(double entries, double bits, double keys);
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
  // Orders the files by age, newest highest, as a tiered tree orders its
  // sorted runs: the largest sequence number in it where a full read gave
  // it; for a file built since, a stand-in that orders it the same way (a
  // flush's file above every live file, a compaction's output at its
  // newest input's).
  uint64_t largest_seqno = 0;
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
  // A manual compaction (CompactRange): the tree it leaves is the one its
  // caller asked for, typically one run after a bulk load, not a moment in
  // a tree that writes keep growing.
  bool manual = false;
  // A flush's run, in keys, if known (the memtables being flushed); else
  // it is guessed at the size of an L0 file.
  double flush_entries = 0;
  // Filter entries per key of the column family's last flush, if known: a
  // memtable's keys are not the tree's. Under random keys and prefix-only
  // filters (16 keys a prefix) a memtable of 15,000 keys holds 11,000
  // prefixes, 0.75 a key, while the last level holds 0.07: at the tree's
  // rate a flush was planned as a run 10 times too small, at 12.9 bits.
  double flush_filter_entries_per_key = 0;
};

// Filter entries per key, from the files whose filters are known: by
// level, and over the tree for levels with none (a level built without
// filters). The budget is in real bits per filter entry, and RocksDB builds
// a setting's bits for each entry it adds to a filter: each key, its prefix
// too with a prefix extractor, or the prefix alone without whole-key
// filtering (at 16 keys a prefix, 1/16 of the keys). Counting keys instead
// planned prefix-only filters at 1/16 of their bits per entry, and the
// budget's correction then overspent them by 20-42%. 1 where nothing is
// known.
struct FilterEntryRates {
  double tree = 1;
  std::map<int, double> by_level;
  double At(int level) const;
};
FilterEntryRates FilterEntriesPerKey(const std::vector<LiveFile>& files,
                                     const std::vector<double>& keys);

// The shape the next files should be planned for: every level's keys and
// runs with the jobs in flight already done -- a compaction's inputs sit at
// its output level, a flush adds one L0 run -- so a compaction into an
// empty level is planned as the level it is about to become. Filters of
// files that jobs are about to replace do not count as built. A flush's run
// is guessed to cover what the newest flushed file covers. Entries are
// filter entries: a file's own where its filter is known, else its keys at
// FilterEntriesPerKey's rate.
// With `next_flush`, L0 also carries the run that flush would add
// (LiveLevel::next_flush_entries), without projecting it.
std::vector<LiveLevel> ProjectLiveShape(const std::vector<LiveFile>& files,
                                        const std::vector<LiveJob>& jobs,
                                        const LiveJob* next_flush = nullptr);

// Each file's filter entries: its filter's, where known; else its keys at
// its level's filter entries per key (`rates`, set here). A file whose key
// count RocksDB has not loaded (0) counts at its bytes per key.
std::vector<double> FilterEntriesOf(const std::vector<LiveFile>& files,
                                    FilterEntryRates* rates);

// The share of the tree's keys inside the union of each group's files' key
// ranges, in rank space as KeyShareInRange: group[i] is the group file i
// belongs to, in [0, groups), or -1 for none. `entries` is indexed like
// `files`.
std::vector<double> GroupKeyShares(const std::vector<LiveFile>& files,
                                   const std::vector<double>& entries,
                                   const std::vector<int>& group, int groups);

// The share of the tree's keys inside each file's key range, in rank space:
// the files' ends, sorted, cut the key space into stretches, and each file's
// keys spread evenly over the stretches it spans. No assumption about how
// keys are spelled (decimal digits, binary integers) enters. `entries` is
// indexed like `files`.
std::vector<double> KeyShareInRange(const std::vector<LiveFile>& files,
                                    const std::vector<double>& entries);

}  // namespace monkey
