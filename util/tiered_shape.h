// The sorted runs of a tiered tree (universal compaction) as a flush or
// compaction will leave them, for the tiered plan (tiered_plan.h). Pure: no
// RocksDB in here; table/shape_listener.cc feeds it the live files and the
// job.
//
// Under universal compaction (RocksDB's CalculateSortedRuns) each L0 file
// is one sorted run and each non-empty level below is one more; runs are
// ordered by age, and a compaction merges runs that sit next to each other
// into one at their place. So once a job is done the tree holds the runs it
// did not touch, at the bits their filters were built with, and the run the
// job writes: a flush's, the newest, or a compaction's, at its inputs'
// place.
#pragma once

#include <vector>

#include "monkey/util/live_shape.h"
#include "monkey/util/tiered_plan.h"

namespace monkey {

struct TieredRuns {
  std::vector<SortedRun> runs;  // newest first; the last is the oldest
  int building = -1;            // the job's run in `runs`; -1: none
  // Indexed like the files given: the run each file is in (a job's input:
  // the job's run); -1 for an input whose run holds no entries.
  std::vector<int> run_of_file;
};

// Another compaction in flight while a job is planned, with the real
// millibits per filter entry its own plan gave its run. The job's tree is
// the tree once that one is done too: planned with its inputs, a flush
// during a merge of many rich L0 runs is held to the budget by bits about
// to leave the tree. On the 1M-key universal sweep the trees paid up to
// 1.59x the optimum's false positives that way, 1.46x without
// (bench/results/20261207-233bc2f-tiered-budget,
// bench/results/20261207-c6ea107-tiered-budget).
struct CompactionInFlight {
  std::vector<uint64_t> input_files;
  int output_level = 0;
  int millibits = 0;
};

// The runs of the tree of `files` (LiveFile::level, keys, filters, key
// range and largest_seqno set) once `job` is done. A run's entries are
// filter entries (FilterEntriesOf); its reach is the share of the tree's
// keys inside the union of its files' key ranges (GroupKeyShares), so runs
// of random keys reach every lookup and runs of sequential keys their own
// stretch. A flush's run is the size its job says (else the mean L0 file's)
// and reaches what the newest flushed file reaches (else every lookup); a
// compaction's run holds its inputs' entries and reaches their union. The
// filter bits of a file whose filter is unknown (built before the listener
// saw it) count at `unknown_bits_per_key` a filter entry: the budget it was
// most likely built at.
// Each of `in_flight` (disjoint from the job's inputs) is projected as
// done: its inputs one run at its output level, at its millibits.
TieredRuns ProjectTieredRuns(
    const std::vector<LiveFile>& files, const LiveJob& job,
    double unknown_bits_per_key,
    const std::vector<CompactionInFlight>& in_flight = {});

}  // namespace monkey
