// Level targets and the drained tree. See level_sizing.h.
#include "monkey/util/level_sizing.h"

#include <algorithm>
#include <limits>

namespace monkey {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Passes of DrainedEntries: each moves keys down at least one level, and
// a target that grows with the largest level settles within a few.
constexpr int kDrainPasses = 16;
}  // namespace

LevelSizing SizingInEntries(bool dynamic, double base_level_bytes,
                            double multiplier, int num_levels, double bytes,
                            double entries) {
  LevelSizing sizing;
  sizing.dynamic = dynamic;
  sizing.multiplier = multiplier;
  sizing.num_levels = num_levels;
  if (bytes > 0 && entries > 0) {
    sizing.base_level_entries = base_level_bytes * entries / bytes;
  }
  return sizing;
}

std::vector<double> LevelTargets(const std::vector<double>& entries,
                                 const LevelSizing& sizing) {
  const int n = sizing.num_levels;
  std::vector<double> target(std::max<size_t>(n, entries.size()), kInfinity);
  if (!sizing.known()) return target;
  const double base_max = sizing.base_level_entries;
  const double t = sizing.multiplier;
  if (!sizing.dynamic) {
    double level_target = base_max;
    for (int l = 1; l < n; ++l, level_target *= t) target[l] = level_target;
    return target;
  }
  // The largest level below L0 sets the last level's target; the base level
  // is the first whose target fits within max_bytes_for_level_base.
  double max_size = 0;
  int first = -1;
  for (int l = 1; l < n && l < static_cast<int>(entries.size()); ++l) {
    if (entries[l] > 0 && first < 0) first = l;
    max_size = std::max(max_size, entries[l]);
  }
  if (max_size <= 0) return target;  // L0 compacts into the last level
  double cur = max_size;
  for (int l = n - 2; l >= first; --l) cur /= t;
  int base = first;
  double base_size;
  if (cur <= base_max / t) {
    base_size = base_max / t;
  } else {
    while (base > 1 && cur > base_max) {
      --base;
      cur /= t;
    }
    base_size = std::min(cur, base_max);
  }
  // No target below max_bytes_for_level_base (RocksDB: an hourglass tree
  // would starve L0). The last level has no target to compact out of.
  double level_target = base_size;
  for (int l = base; l < n - 1; ++l) {
    if (l > base) level_target *= t;
    target[l] = std::max(level_target, base_max);
  }
  return target;
}

int BaseLevel(const std::vector<double>& targets) {
  int base = 1;
  while (base + 1 < static_cast<int>(targets.size()) &&
         !(targets[base] < kInfinity)) {
    ++base;
  }
  return base;
}

std::vector<double> DrainedEntries(const std::vector<double>& entries,
                                   const LevelSizing& sizing) {
  std::vector<double> drained = entries;
  drained.resize(std::max<size_t>(sizing.num_levels, entries.size()), 0);
  if (!sizing.known() || drained.size() < 2) return drained;
  for (int pass = 0; pass < kDrainPasses; ++pass) {
    const std::vector<double> target = LevelTargets(drained, sizing);
    const int base = BaseLevel(target);
    bool moved = drained[0] > 0;
    drained[base] += drained[0];
    drained[0] = 0;
    for (size_t l = 1; l + 1 < drained.size(); ++l) {
      if (drained[l] > target[l]) {
        drained[l + 1] += drained[l] - target[l];
        drained[l] = target[l];
        moved = true;
      }
    }
    if (!moved) break;
  }
  return drained;
}

}  // namespace monkey
