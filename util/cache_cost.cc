// Block reads per lookup through an LRU cache, by Che's approximation. See
// cache_cost.h.
#include "monkey/util/cache_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace monkey {

namespace {

// The bytes `groups` keep cached at characteristic time `t`.
double CachedBytes(const std::vector<BlockGroup>& groups, double t) {
  double bytes = 0;
  for (const BlockGroup& g : groups) bytes += g.bytes * CachedShare(g, t);
  return bytes;
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
  double referenced = 0;
  for (const BlockGroup& g : groups) {
    if (g.rate > 0 && g.bytes > 0) referenced += g.bytes;
  }
  if (referenced <= capacity) return std::numeric_limits<double>::infinity();
  if (!(capacity > 0)) return 0;
  // CachedBytes rises from 0 to `referenced` with t: bracket, then bisect
  // in log t (the rates span many orders of magnitude).
  double lo = 1, hi = 1;
  while (CachedBytes(groups, lo) > capacity) lo /= 2;
  while (CachedBytes(groups, hi) < capacity) hi *= 2;
  for (int i = 0; i < 100 && hi / lo > 1 + 1e-12; ++i) {
    const double mid = std::sqrt(lo * hi);
    (CachedBytes(groups, mid) < capacity ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
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
  // A block larger than the whole cache never stays: RocksDB's LRUCache
  // inserts it over capacity for the reader holding it and frees it at its
  // release (LRUCacheShard::Release, usage above capacity). It takes no
  // room, and every reference to it is a read.
  std::vector<BlockGroup> cacheable;
  std::vector<bool> fits(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    const BlockGroup& g = groups[i];
    fits[i] = g.bytes / std::max(1.0, g.blocks) <= cache_bytes;
    if (fits[i]) cacheable.push_back(g);
  }
  // A block stays while the other blocks referenced since it was last
  // leave room for it: its characteristic time is that of a cache smaller
  // by its own size. For blocks much smaller than the cache this is Che's
  // T; for a full filter block of a large share of the cache it matters:
  // with one T for all, three L0 files' 90 KB filters in a 125 KB cache
  // were modelled at 3.95 misses a lookup where RocksDB missed 5.03
  // (bench/results/20261204-526acd4-cache-model-check).
  std::vector<double> missed(groups.size());
  for (size_t i = 0, c = 0; i < groups.size(); ++i) {
    const BlockGroup& g = groups[i];
    if (!fits[i]) {
      missed[i] = g.rate;
      continue;
    }
    // The others: every cacheable block but one of this group's.
    std::vector<BlockGroup> others = cacheable;
    BlockGroup& mine = others[c++];
    const double blocks = std::max(1.0, mine.blocks);
    const double size = mine.bytes / blocks;
    mine.rate *= (blocks - 1) / blocks;
    mine.bytes -= size;
    mine.blocks = blocks - 1;
    const double t = CharacteristicTime(others, cache_bytes - size);
    missed[i] = g.rate * (1 - CachedShare(g, t));
  }
  BlockReads reads;
  for (size_t i = 0; i < groups.size(); i += 3) {
    reads.filter += missed[i];
    reads.index += missed[i + 1];
    reads.data += missed[i + 2];
  }
  return reads;
}

}  // namespace monkey
