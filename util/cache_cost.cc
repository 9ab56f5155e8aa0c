// Block reads per lookup through an LRU cache, by Che's approximation. See
// cache_cost.h.
#include "monkey/util/cache_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace monkey {

namespace {

// How close, in log t, a characteristic time is solved: 1e-10 of t.
constexpr double kTimeTolerance = 1e-10;

// The characteristic time at which `groups`, less `minus_bytes` referenced
// at `minus_rate` per lookup (one block of a group, which the others make
// room for), keep `capacity` bytes cached; `referenced` is what they hold
// cached for ever. The cached bytes rise with log t, smoothly: Newton's
// method in log t from `guess`, kept inside the bracket the values seen
// make by bisection. The planner evaluates the model thousands of times a
// plan, and a bisection to 1e-12 took 50-100 sums of the groups; from the
// whole cache's T, the T beside a block much smaller than the cache is 2-3
// Newton steps away.
double SolveTime(const std::vector<BlockGroup>& groups, double capacity,
                 double minus_bytes, double minus_rate, double referenced,
                 double guess) {
  if (referenced <= capacity) return std::numeric_limits<double>::infinity();
  if (!(capacity > 0)) return 0;
  // f(u) = cached bytes at t = e^u, less the capacity, and df/du.
  const auto f = [&](double u, double* slope) {
    const double t = std::exp(u);
    double bytes = -capacity, d = 0;
    const auto add = [&](double b, double per_block_rate) {
      const double x = per_block_rate * t;
      bytes += b * -std::expm1(-x);
      d += b * x * std::exp(-x);
    };
    for (const BlockGroup& g : groups) {
      if (g.rate > 0 && g.bytes > 0)
        add(g.bytes, g.rate / std::max(1.0, g.blocks));
    }
    if (minus_bytes > 0 && minus_rate > 0) add(-minus_bytes, minus_rate);
    *slope = d;
    return bytes;
  };
  // Newton's steps, at most kLongestStep in log t each, inside the bracket
  // [lo, hi] the values seen so far make (infinite until both ends are).
  constexpr double kLongestStep = 2;
  double u = std::log(guess > 0 && std::isfinite(guess) ? guess : 1.0);
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 200; ++i) {
    double slope = 0;
    const double value = f(u, &slope);
    if (value == 0) break;
    (value < 0 ? lo : hi) = u;
    double step = slope > 0 ? -value / slope : 0;
    if (!(std::fabs(step) <= kLongestStep)) {
      step = value < 0 ? kLongestStep : -kLongestStep;
    }
    if (std::fabs(step) < kTimeTolerance) return std::exp(u + step);
    // A step past the bracket's end: that end is finite (the step heads
    // away from u, which is the other), and the bracket halves.
    u = u + step > lo && u + step < hi ? u + step : (lo + hi) / 2;
    if (hi - lo < kTimeTolerance) break;
  }
  return std::exp(u);
}

// The share of the time `group`'s blocks are cached at characteristic time
// `t` when the cache is emptied at `flushes` per lookup: a reference finds
// its block when the last one came within t and no flush since, r / (r +
// F) (1 - exp(-(r + F) t)) for a block referenced at r. The flushes leave
// the cache less full, so that t is longer than the one solved without
// them: the share errs low.
double CachedShareBetweenFlushes(const BlockGroup& group, double t,
                                 double flushes) {
  if (!(flushes > 0)) return CachedShare(group, t);
  const double r = group.rate / std::max(1.0, group.blocks);
  const double any = r + flushes;
  return r / any * (std::isinf(t) ? 1 : -std::expm1(-any * t));
}

double ReferencedBytes(const std::vector<BlockGroup>& groups) {
  double referenced = 0;
  for (const BlockGroup& g : groups) {
    if (g.rate > 0 && g.bytes > 0) referenced += g.bytes;
  }
  return referenced;
}

}  // namespace

double FilterBlocks(double filter_bytes, double files, double partition_bytes) {
  const double blocks = std::max(1.0, files);
  return partition_bytes > 0
             ? std::max(blocks, std::ceil(filter_bytes / partition_bytes))
             : blocks;
}

double CachedShare(const BlockGroup& group, double t) {
  if (!(group.rate > 0)) return 0;   // never referenced: never loaded
  if (!(group.bytes > 0)) return 1;  // takes no room
  if (std::isinf(t)) return 1;
  return -std::expm1(-group.rate / std::max(1.0, group.blocks) * t);
}

double CharacteristicTime(const std::vector<BlockGroup>& groups,
                          double capacity) {
  return SolveTime(groups, capacity, 0, 0, ReferencedBytes(groups), 1);
}

BlockReads ExpectedBlockReads(const std::vector<CachedRun>& runs,
                              double cache_bytes) {
  // Three groups per run: its filter, referenced at every lookup that
  // reaches it, and its index and data, at those its filter passes.
  std::vector<BlockGroup> groups;
  groups.reserve(3 * runs.size());
  for (const CachedRun& run : runs) {
    const bool filtered = run.filter_bytes > 0;
    const double passed = run.reach * (filtered ? run.fpr : 1.0);
    groups.push_back(
        {run.filter_bytes, run.filter_blocks, filtered ? run.reach : 0.0});
    groups.push_back({run.index_bytes, run.index_blocks, passed});
    groups.push_back({run.data_bytes, run.data_blocks, passed});
  }
  // A block larger than the whole cache never stays, and empties it: to
  // make room for its charge, RocksDB's LRUCache first evicts every block
  // no reader holds (LRUCacheShard::EvictFromLRU), then inserts it over
  // capacity for the reader and frees it at its release (usage above
  // capacity). Every reference to it is a read and a flush of the others.
  // Where the model left the others be, the plan for a 125 KB cache gave
  // L2's full filters 14.5 bits/key, files' filters just over the cache,
  // and lookups read 1.72 blocks where the model said 1.30 and a uniform
  // 7 bits read 1.17
  // (bench/results/20261207-6c1175c-cache-grid-release-same-tree).
  std::vector<BlockGroup> cacheable;
  std::vector<bool> fits(groups.size());
  double flushes = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    const BlockGroup& g = groups[i];
    fits[i] = g.bytes / std::max(1.0, g.blocks) <= cache_bytes;
    if (fits[i]) {
      cacheable.push_back(g);
    } else if (g.rate > 0 && g.bytes > 0) {
      flushes += g.rate;
    }
  }
  // A block stays while the other blocks referenced since it was last
  // leave room for it: its characteristic time is that of a cache smaller
  // by its own size. For blocks much smaller than the cache this is Che's
  // T; for a full filter block of a large share of the cache it matters:
  // with one T for all, three L0 files' 90 KB filters in a 125 KB cache
  // were modelled at 3.95 misses a lookup where RocksDB missed 5.03
  // (bench/results/20261204-526acd4-cache-model-check).
  std::vector<double> missed(groups.size());
  const double referenced = ReferencedBytes(cacheable);
  const double shared = CharacteristicTime(cacheable, cache_bytes);
  for (size_t i = 0; i < groups.size(); ++i) {
    const BlockGroup& g = groups[i];
    if (!fits[i]) {
      missed[i] = g.rate;
      continue;
    }
    if (!(g.rate > 0) || !(g.bytes > 0)) continue;  // never read, or no room
    // The others: every cacheable block but one of this group's, referenced
    // as before.
    const double blocks = std::max(1.0, g.blocks);
    const double size = g.bytes / blocks;
    const double t = SolveTime(cacheable, cache_bytes - size, size,
                               g.rate / blocks, referenced - size, shared);
    missed[i] = g.rate * (1 - CachedShareBetweenFlushes(g, t, flushes));
  }
  BlockReads reads;
  for (size_t i = 0; i < groups.size(); i += 3) {
    reads.filter += missed[i];
    reads.index += missed[i + 1];
    reads.data += missed[i + 2];
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    if (missed[i] > 0) {
      reads.bytes +=
          missed[i] * groups[i].bytes / std::max(1.0, groups[i].blocks);
    }
  }
  return reads;
}

}  // namespace monkey
