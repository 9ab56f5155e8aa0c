// The live shape of a column family, with jobs in flight projected. See
// live_shape.h.
#include "monkey/util/live_shape.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "monkey/util/key_range.h"

namespace monkey {
namespace {

// A file's key range as boundary indices [first, last] into the sorted,
// distinct ends of all files.
struct Span {
  size_t first = 0;
  size_t last = 0;
};

// The 8 bytes of `key` after its first `skip`, big-endian, zero-padded:
// keys in this order are in bytewise order too, so a sort compares these
// first and the whole keys only where they tie.
uint64_t SortWord(std::string_view key, size_t skip) {
  uint64_t word = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = skip + i;
    word = (word << 8) |
           (at < key.size() ? static_cast<unsigned char>(key[at]) : 0u);
  }
  return word;
}

// The files' ends, sorted and distinct, and each file's span over them.
// One sort of the ends, each with the slot it fills (2i: file i's
// smallest, 2i + 1: its largest), and ranks from one pass over it. Key
// comparisons (memcmp) were most of a projection's time, a binary search
// per end doubling them (BM_ProjectLiveShape, bench/live_plan_bench.cc):
// the sort compares each end's 8 bytes after the prefix all share first.
std::vector<Span> SpansOf(const std::vector<LiveFile>& files,
                          std::vector<std::string_view>* sorted_ends) {
  struct Slot {
    uint64_t word;
    std::string_view key;
    size_t slot;
  };
  std::vector<std::string_view> keys;
  keys.reserve(2 * files.size());
  for (const LiveFile& f : files) {
    keys.push_back(f.smallest);
    keys.push_back(f.largest);
  }
  const size_t skip = CommonPrefixLength(keys);
  std::vector<Slot> slots;
  slots.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    slots.push_back({SortWord(keys[i], skip), keys[i], i});
  }
  std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
    if (a.word != b.word) return a.word < b.word;
    const int c = a.key.compare(b.key);
    return c != 0 ? c < 0 : a.slot < b.slot;
  });
  std::vector<std::string_view>& ends = *sorted_ends;
  ends.clear();
  std::vector<size_t> rank(slots.size());
  for (const Slot& s : slots) {
    if (ends.empty() || ends.back() != s.key) ends.push_back(s.key);
    rank[s.slot] = ends.size() - 1;
  }
  std::vector<Span> spans;
  spans.reserve(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    size_t a = rank[2 * i], b = rank[2 * i + 1];
    if (a > b) std::swap(a, b);  // a reverse comparator
    spans.push_back({a, b});
  }
  return spans;
}

// Units of rank space: unit 2i is boundary i, unit 2i + 1 the stretch
// between boundaries i and i + 1. A span [a, b] covers units 2a..2b.
size_t FirstUnit(const Span& s) { return 2 * s.first; }
size_t EndUnit(const Span& s) { return 2 * s.last + 1; }

// The share of all keys in units [0, u), for every u. Narrow files go
// first and lay down where the keys are; each wider file then spreads its
// keys in proportion to the keys already there (it holds keys like the
// rest of the tree). Where nothing is yet, a file spreads its keys over its
// stretches by their width in key space, a KeySpace of the ends inside the
// file (key_range.h: decimal keys as their numbers): inside one file that
// is fine enough, and it puts
// next to nothing in the sliver between two adjacent files of the level
// above, which counting stretches alike would fill with a third of the
// file. Files side by side (sequential keys) keep exactly their own keys;
// an L0 file over a level of many small files follows that level's
// density.
std::vector<double> KeyMassPrefix(const std::vector<Span>& spans,
                                  const std::vector<double>& entries,
                                  const std::vector<std::string_view>& ends) {
  const size_t boundaries = ends.size();
  const size_t units = boundaries == 0 ? 0 : 2 * boundaries - 1;
  std::vector<size_t> order(spans.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return spans[a].last - spans[a].first < spans[b].last - spans[b].first;
  });
  std::vector<double> mass(units, 0);
  double total = 0;
  for (size_t i : order) {
    const Span& s = spans[i];
    const size_t first = FirstUnit(s), stop = EndUnit(s);
    double there = 0;
    for (size_t u = first; u < stop; ++u) there += mass[u];
    if (there > 0) {
      const double scale = entries[i] / there;
      for (size_t u = first; u < stop; ++u) mass[u] *= 1 + scale;
    } else if (s.last == s.first + 1) {
      // One stretch, its own (files side by side, as a sequential load
      // leaves them): all of the file's keys, with no key space to build.
      mass[2 * s.first + 1] += entries[i];
    } else if (s.last > s.first) {
      const KeySpace space(std::vector<std::string_view>(
          ends.begin() + s.first, ends.begin() + s.last + 1));
      std::vector<double> width;
      double widths = 0;
      for (size_t b = s.first; b < s.last; ++b) {
        width.push_back(std::max(
            0.0, space.Position(ends[b + 1]) - space.Position(ends[b])));
        widths += width.back();
      }
      for (size_t b = s.first; b < s.last; ++b) {
        const double share = widths > 0
                                 ? width[b - s.first] / widths
                                 : 1.0 / static_cast<double>(s.last - s.first);
        mass[2 * b + 1] += entries[i] * share;
      }
    } else {
      mass[first] += entries[i];
    }
    total += entries[i];
  }
  std::vector<double> prefix(units + 1, 0);
  for (size_t u = 0; u < units; ++u) {
    prefix[u + 1] = prefix[u] + (total > 0 ? mass[u] / total : 0);
  }
  return prefix;
}

// The share of the keys in the union of unit ranges [first, stop).
double MassOf(std::vector<std::pair<size_t, size_t>> ranges,
              const std::vector<double>& prefix) {
  std::sort(ranges.begin(), ranges.end());
  double mass = 0;
  size_t end = 0;
  for (const auto& [first, stop] : ranges) {
    const size_t from = std::max(first, end);
    if (stop > from) mass += prefix[stop] - prefix[from];
    end = std::max(end, stop);
  }
  return mass;
}

}  // namespace

std::vector<double> KeyShareInRange(const std::vector<LiveFile>& files,
                                    const std::vector<double>& entries) {
  std::vector<std::string_view> ends;
  const std::vector<Span> spans = SpansOf(files, &ends);
  const std::vector<double> prefix = KeyMassPrefix(spans, entries, ends);
  std::vector<double> share;
  for (const Span& s : spans) {
    share.push_back(prefix[EndUnit(s)] - prefix[FirstUnit(s)]);
  }
  return share;
}

std::vector<double> GroupKeyShares(const std::vector<LiveFile>& files,
                                   const std::vector<double>& entries,
                                   const std::vector<int>& group, int groups) {
  std::vector<std::string_view> ends;
  const std::vector<Span> spans = SpansOf(files, &ends);
  const std::vector<double> prefix = KeyMassPrefix(spans, entries, ends);
  std::vector<std::vector<std::pair<size_t, size_t>>> ranges(groups);
  for (size_t i = 0; i < files.size(); ++i) {
    if (group[i] >= 0 && group[i] < groups) {
      ranges[group[i]].emplace_back(FirstUnit(spans[i]), EndUnit(spans[i]));
    }
  }
  std::vector<double> share;
  for (auto& r : ranges) share.push_back(std::min(1.0, MassOf(r, prefix)));
  return share;
}

double FilterEntryRates::At(int level) const {
  auto it = by_level.find(level);
  return it != by_level.end() ? it->second : tree;
}

FilterEntryRates FilterEntriesPerKey(const std::vector<LiveFile>& files,
                                     const std::vector<double>& keys) {
  std::map<int, std::pair<double, double>> by_level;  // filter entries, keys
  double filter_entries = 0, filtered_keys = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const LiveFile& f = files[i];
    if (!f.filter_known || !(f.filter_entries > 0) || !(keys[i] > 0)) continue;
    by_level[f.level].first += f.filter_entries;
    by_level[f.level].second += keys[i];
    filter_entries += f.filter_entries;
    filtered_keys += keys[i];
  }
  FilterEntryRates rates;
  if (filtered_keys > 0) rates.tree = filter_entries / filtered_keys;
  for (const auto& [level, sums] : by_level) {
    rates.by_level[level] = sums.first / sums.second;
  }
  return rates;
}

void LiveLevel::AddBuilt(double entries, double bits, double keys) {
  filter_bits += bits;
  filter_entries += keys;
  built_entries += entries;
  built_entries_by_millibits[keys > 0 ? static_cast<int>(
                                            std::lround(1000 * bits / keys))
                                      : 0] += entries;
}

namespace {

LiveLevel& LevelOf(std::vector<LiveLevel>* levels, int level) {
  if (levels->size() <= static_cast<size_t>(level)) levels->resize(level + 1);
  return (*levels)[level];
}

}  // namespace

// With max_open_files limited, RocksDB loads the entry counts of only 20 files
// when it opens a DB; the others read 0 until rebuilt. Count those from
// their filters, else from their size at the known bytes per entry.
std::vector<double> FilterEntriesOf(const std::vector<LiveFile>& files,
                                    FilterEntryRates* rates) {
  double known_bytes = 0, known_entries = 0;
  for (const LiveFile& file : files) {
    if (file.entries > 0) {
      known_bytes += file.bytes;
      known_entries += file.entries;
    }
  }
  std::vector<double> keys;
  for (const LiveFile& file : files) {
    double e = file.entries;
    if (!(e > 0) && file.filter_known && file.filter_entries > 0) {
      e = file.filter_entries;
    }
    if (!(e > 0)) {
      e = known_bytes > 0 ? file.bytes * known_entries / known_bytes : 0.0;
    }
    keys.push_back(e);
  }
  *rates = FilterEntriesPerKey(files, keys);
  std::vector<double> entries;
  for (size_t i = 0; i < files.size(); ++i) {
    const LiveFile& file = files[i];
    entries.push_back(file.filter_known && file.filter_entries > 0
                          ? file.filter_entries
                          : keys[i] * rates->At(file.level));
  }
  return entries;
}

namespace {

// A flush adds one L0 run: each flush in flight, and `next_flush` as the
// run L0 is priced at while empty. Its keys, if unknown, are guessed at the
// size of an L0 file or of any file; its reach at the newest flush's
// (`newest_flush_share`, -1 with no flushed file); its bytes at
// `bytes_per_entry` a filter entry.
void AddFlushRuns(const std::vector<LiveFile>& files,
                  const std::vector<double>& entries,
                  const std::vector<LiveJob>& jobs, const LiveJob* next_flush,
                  const FilterEntryRates& rates, double newest_flush_share,
                  double bytes_per_entry, std::vector<LiveLevel>* levels) {
  double guess = 1.0;
  if (!levels->empty() && (*levels)[0].entries > 0) {
    int l0_files = 0;
    for (const LiveFile& f : files) l0_files += f.level == 0;
    if (l0_files > 0) guess = (*levels)[0].entries / l0_files;
  } else if (!files.empty()) {
    double total = 0;
    for (double e : entries) total += e;
    guess = std::max(1.0, total / static_cast<double>(files.size()));
  }
  const double flush_reach =
      newest_flush_share >= 0 ? std::max(newest_flush_share, 1e-9) : 1.0;
  auto flush_run = [&](const LiveJob& job) {
    const double rate = job.flush_filter_entries_per_key > 0
                            ? job.flush_filter_entries_per_key
                            : rates.At(0);
    return job.flush_entries > 0 ? job.flush_entries * rate : guess;
  };
  for (const LiveJob& job : jobs) {
    if (!job.flush) continue;
    const double run = flush_run(job);
    LiveLevel& l0 = LevelOf(levels, 0);
    l0.entries += run;
    l0.fluid_entries += run;
    l0.runs += flush_reach;
    l0.files += 1;
    l0.bytes += run * bytes_per_entry;
  }
  for (LiveLevel& level : *levels) {
    if (!(level.entries > 0)) level = LiveLevel();
  }
  if (next_flush != nullptr) {
    LiveLevel& l0 = LevelOf(levels, 0);
    l0.next_flush_entries = flush_run(*next_flush);
    l0.next_flush_runs = flush_reach;
  }
}

}  // namespace

std::vector<LiveLevel> ProjectLiveShape(const std::vector<LiveFile>& files,
                                        const std::vector<LiveJob>& jobs,
                                        const LiveJob* next_flush) {
  std::vector<LiveLevel> levels;
  // Where each input goes, and which job takes it.
  std::unordered_map<uint64_t, size_t> job_of;
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (uint64_t number : jobs[j].input_files) job_of[number] = j;
  }
  FilterEntryRates rates;
  const std::vector<double> entries = FilterEntriesOf(files, &rates);
  // Key shares in rank space, and each file's units, to merge ranges.
  std::vector<std::string_view> ends;
  const std::vector<Span> spans = SpansOf(files, &ends);
  const std::vector<double> prefix = KeyMassPrefix(spans, entries, ends);
  // Unit ranges per projected level (levels >= 1) and per L0 run.
  std::map<int, std::vector<std::pair<size_t, size_t>>> level_ranges;
  std::map<size_t, std::vector<std::pair<size_t, size_t>>> merged_l0_runs;
  double newest_flush_share = -1;
  uint64_t newest_flush = 0;
  double known_bytes = 0, known_entries = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const LiveFile& file = files[i];
    const std::pair<size_t, size_t> range = {FirstUnit(spans[i]),
                                             EndUnit(spans[i])};
    const double share = prefix[range.second] - prefix[range.first];
    if (file.flushed && file.number >= newest_flush) {
      newest_flush = file.number;
      newest_flush_share = share;
    }
    auto job = job_of.find(file.number);
    int level = file.level;
    if (job != job_of.end()) {
      level = jobs[job->second].output_level;
      LevelOf(&levels, level).fluid_entries += entries[i];
      if (level == 0) {
        merged_l0_runs[job->second].push_back(range);
      } else {
        level_ranges[level].push_back(range);
      }
    } else {
      LiveLevel& l = LevelOf(&levels, level);
      if (file.filter_known) {
        l.AddBuilt(entries[i], file.filter_bits, file.filter_entries);
      }
      if (level == 0) {
        l.runs += share;
      } else {
        level_ranges[level].push_back(range);
      }
    }
    LiveLevel& projected = LevelOf(&levels, level);
    projected.entries += entries[i];
    projected.files += 1;
    projected.bytes += file.bytes;
    if (file.bytes > 0) {
      known_bytes += file.bytes;
      known_entries += entries[i];
    }
  }
  for (const auto& [level, ranges] : level_ranges) {
    LevelOf(&levels, level).runs = std::min(1.0, MassOf(ranges, prefix));
  }
  for (const auto& [job, ranges] : merged_l0_runs) {
    LevelOf(&levels, 0).runs += std::min(1.0, MassOf(ranges, prefix));
  }
  AddFlushRuns(files, entries, jobs, next_flush, rates, newest_flush_share,
               known_entries > 0 ? known_bytes / known_entries : 0.0, &levels);
  return levels;
}

}  // namespace monkey
