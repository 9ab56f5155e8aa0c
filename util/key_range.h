// Where keys lie in the key space, for weighting files by the share of
// lookups that reach them: a point lookup probes a file's filter only when
// the key falls inside the file's [smallest, largest] range. Pure: no
// RocksDB in here.
#pragma once

#include <string_view>
#include <vector>

namespace monkey {

// The length of the prefix all of `keys` share.
size_t CommonPrefixLength(const std::vector<std::string_view>& keys);

// Where `key` lies in [0, 1): the 8 bytes after the first `skip` (a prefix
// every key shares), read as a base-256 fraction. Monotone in the key, so a
// file's range maps to an interval; uniform for keys whose bytes are.
double KeyPosition(std::string_view key, size_t skip);

// An interval [lo, hi] of key positions.
struct KeyInterval {
  double lo = 0;
  double hi = 1;
};

// The length of the union of `intervals`.
double UnionLength(std::vector<KeyInterval> intervals);

}  // namespace monkey
