// The live shape of a column family, with jobs in flight projected. See
// live_shape.h.
#include "util/live_shape.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace monkey {

std::vector<LiveLevel> ProjectLiveShape(const std::vector<LiveFile>& files,
                                        const std::vector<LiveJob>& jobs) {
  std::vector<LiveLevel> levels;
  auto level_of = [&](int level) -> LiveLevel& {
    if (levels.size() <= static_cast<size_t>(level)) levels.resize(level + 1);
    return levels[level];
  };
  std::unordered_set<uint64_t> replaced;
  for (const LiveJob& job : jobs) {
    replaced.insert(job.input_files.begin(), job.input_files.end());
  }
  // With max_open_files limited, RocksDB loads the entry counts of only 20
  // files when it opens a DB; the others read 0 until rebuilt. Count those
  // from their filters, else from their size at the known bytes per entry.
  double known_bytes = 0, known_entries = 0;
  for (const LiveFile& file : files) {
    if (file.entries > 0) {
      known_bytes += file.bytes;
      known_entries += file.entries;
    }
  }
  auto entries_of = [&](const LiveFile& file) -> double {
    if (file.entries > 0) return file.entries;
    if (file.filter_known && file.filter_entries > 0) {
      return file.filter_entries;
    }
    return known_bytes > 0 ? file.bytes * known_entries / known_bytes : 0.0;
  };
  std::unordered_map<uint64_t, std::pair<int, double>> by_number;
  for (const LiveFile& file : files) {
    const double entries = entries_of(file);
    by_number[file.number] = {file.level, entries};
    LiveLevel& level = level_of(file.level);
    level.entries += entries;
    level.runs = file.level == 0 ? level.runs + 1 : 1;
    if (file.filter_known && !replaced.count(file.number)) {
      level.filter_bits += file.filter_bits;
      level.filter_entries += file.filter_entries;
    }
  }
  // A flush of unknown size is guessed at the size of an L0 file, or of any
  // file; in an empty tree its size does not matter.
  double guess = 1.0;
  if (!levels.empty() && levels[0].runs > 0) {
    guess = levels[0].entries / levels[0].runs;
  } else if (!files.empty()) {
    double entries = 0;
    for (const LiveLevel& level : levels) entries += level.entries;
    guess = std::max(1.0, entries / static_cast<double>(files.size()));
  }
  for (const LiveJob& job : jobs) {
    double moved =
        job.flush ? (job.flush_entries > 0 ? job.flush_entries : guess) : 0;
    int merged_l0_runs = 0;
    for (uint64_t number : job.input_files) {
      auto it = by_number.find(number);
      if (it == by_number.end()) continue;  // already gone
      const auto [from, entries] = it->second;
      level_of(from).entries -= entries;
      moved += entries;
      if (from == 0) ++merged_l0_runs;
    }
    if (!(moved > 0)) continue;
    LiveLevel& to = level_of(job.output_level);
    to.entries += moved;
    // A flush, or an L0->L0 compaction, adds one run.
    if (job.output_level == 0) to.runs += 1;
    level_of(0).runs -= merged_l0_runs;
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    LiveLevel& level = levels[i];
    level.entries = std::max(level.entries, 0.0);
    level.runs =
        level.entries > 0 ? (i == 0 ? std::max(level.runs, 1.0) : 1.0) : 0.0;
  }
  return levels;
}

void L0Fate::Note(double l0_keys, bool moved) {
  if (!(l0_keys > 0)) return;
  moved_ = kMemory * moved_ + (moved ? l0_keys : 0);
  merged_ = kMemory * merged_ + (moved ? 0 : l0_keys);
}

double L0Fate::MovedShare() const {
  const double left = moved_ + merged_;
  return left > 0 ? moved_ / left : 0;
}

}  // namespace monkey
