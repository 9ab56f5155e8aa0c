// The sorted runs of a tiered tree once a job is done. See tiered_shape.h.
#include "monkey/util/tiered_shape.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_set>
#include <utility>

namespace monkey {
namespace {

// A run as it is gathered from its files.
struct Gathered {
  SortedRun run;
  uint64_t newest = 0;  // its files' largest LiveFile::largest_seqno
  double share = 1;
  int group = 0;  // its index as gathered, before the runs are ordered
};

// Universal compaction's order of runs, newest first: L0's files by age,
// then each level below, deeper older (RocksDB's CalculateSortedRuns).
bool Newer(const Gathered& a, const Gathered& b) {
  if (a.run.level != b.run.level) return a.run.level < b.run.level;
  return a.newest > b.newest;
}

}  // namespace

TieredRuns ProjectTieredRuns(const std::vector<LiveFile>& files,
                             const LiveJob& job, double unknown_bits_per_key,
                             const std::vector<CompactionInFlight>& in_flight) {
  FilterEntryRates rates;
  const std::vector<double> entries = FilterEntriesOf(files, &rates);
  const std::unordered_set<uint64_t> inputs(job.input_files.begin(),
                                            job.input_files.end());
  // The other compactions' inputs: file number -> its compaction.
  std::map<uint64_t, size_t> other_input;
  for (size_t c = 0; c < in_flight.size(); ++c) {
    for (uint64_t number : in_flight[c].input_files) {
      if (inputs.count(number) == 0) other_input.emplace(number, c);
    }
  }
  std::map<size_t, int> group_of_compaction;
  // Groups: the compaction's run first (its inputs), then each L0 file
  // and each level the job leaves alone.
  std::vector<Gathered> runs(1);
  runs[0].run.building = true;
  runs[0].run.level = job.flush ? 0 : job.output_level;
  std::map<int, int> group_of_level;
  std::vector<int> group(files.size(), -1);
  int newest_l0 = -1;       // the newest L0 file's group
  int newest_flushed = -1;  // the newest flushed L0 file's
  uint64_t l0_seqno = 0, flushed_seqno = 0;
  double l0_entries = 0, l0_files = 0, all_entries = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const LiveFile& file = files[i];
    all_entries += entries[i];
    int g = 0;
    const auto other = other_input.find(file.number);
    if (other != other_input.end()) {
      // Done: in its compaction's run, at that run's bits.
      const CompactionInFlight& c = in_flight[other->second];
      auto [it, added] = group_of_compaction.emplace(
          other->second, static_cast<int>(runs.size()));
      if (added) runs.emplace_back();
      g = it->second;
      runs[g].run.level = c.output_level;
      runs[g].run.filter_bits += c.millibits / 1000.0 * entries[i];
    } else if (inputs.count(file.number) == 0) {
      if (file.level == 0) {
        g = static_cast<int>(runs.size());
        runs.emplace_back();
        l0_entries += entries[i];
        ++l0_files;
        if (newest_l0 < 0 || file.largest_seqno >= l0_seqno) {
          newest_l0 = g;
          l0_seqno = file.largest_seqno;
        }
        if (file.flushed &&
            (newest_flushed < 0 || file.largest_seqno >= flushed_seqno)) {
          newest_flushed = g;
          flushed_seqno = file.largest_seqno;
        }
      } else {
        auto [it, added] =
            group_of_level.emplace(file.level, static_cast<int>(runs.size()));
        if (added) runs.emplace_back();
        g = it->second;
      }
      runs[g].run.level = file.level;
    }
    group[i] = g;
    Gathered& run = runs[g];
    run.run.entries += entries[i];
    run.newest = std::max(run.newest, file.largest_seqno);
    if (g != 0 && other == other_input.end()) {
      run.run.filter_bits += file.filter_known
                                 ? file.filter_bits
                                 : unknown_bits_per_key * entries[i];
    }
  }
  const std::vector<double> shares =
      GroupKeyShares(files, entries, group, static_cast<int>(runs.size()));
  for (size_t g = 1; g < runs.size(); ++g) runs[g].share = shares[g];
  Gathered& building = runs[0];
  if (job.flush) {
    // A flush adds the newest run, of the memtables' keys at the filter
    // entries a key of the last flush had.
    const double rate = job.flush_filter_entries_per_key > 0
                            ? job.flush_filter_entries_per_key
                            : rates.At(0);
    double keys = job.flush_entries * rate;
    if (!(keys > 0)) {
      keys = l0_files > 0     ? l0_entries / l0_files
             : !files.empty() ? all_entries / static_cast<double>(files.size())
                              : 1.0;
    }
    building.run.entries = keys;
    building.newest = std::numeric_limits<uint64_t>::max();
    const int like = newest_flushed >= 0 ? newest_flushed : newest_l0;
    building.share = like >= 0 ? runs[like].share : 1.0;
  } else {
    building.share = shares[0];
  }
  TieredRuns out;
  for (size_t g = 0; g < runs.size(); ++g) runs[g].group = static_cast<int>(g);
  if (!(building.run.entries > 0)) runs.erase(runs.begin());
  std::stable_sort(runs.begin(), runs.end(), Newer);
  std::vector<int> run_of_group(shares.size(), -1);
  for (Gathered& g : runs) {
    g.run.reach = g.share;
    if (g.run.building) out.building = static_cast<int>(out.runs.size());
    run_of_group[g.group] = static_cast<int>(out.runs.size());
    out.runs.push_back(g.run);
  }
  out.run_of_file.reserve(files.size());
  for (const int g : group) out.run_of_file.push_back(run_of_group[g]);
  return out;
}

}  // namespace monkey
