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

// Key positions in the key space a set of keys spans, for keys spelled in
// text as well as in binary: where every byte of the keys after their
// common prefix (8 bytes of it) is printable ASCII, each offset counts only
// the values from the lowest to the highest seen there, not all 256. Keys
// written as decimal digits use 10 values of 256, and read in base 256 a
// level's files were bunched: in a 1M-key tree of 16-digit keys, L1's files
// held 78% of the keys and covered 5.7% of the KeyPosition span. Here they
// are placed as their numbers. Other keys (binary, db_bench's) count all
// 256 values, as KeyPosition does: 16 uniform bytes, two keys' worth, are
// all printable once in 10^7. Built from many keys (the file ends of a
// column family, of a level, or inside a file's range), so that each
// offset's range is seen.
class KeySpace {
 public:
  explicit KeySpace(const std::vector<std::string_view>& keys);
  // Where `key` lies in [0, 1], monotone in the key (values outside an
  // offset's range count as its ends).
  double Position(std::string_view key) const;

 private:
  size_t skip_ = 0;
  std::vector<int> lowest_;  // per offset after the prefix
  std::vector<int> values_;  // highest - lowest + 1
};

// An interval [lo, hi] of key positions.
struct KeyInterval {
  double lo = 0;
  double hi = 1;
};

// The length of the union of `intervals`.
double UnionLength(std::vector<KeyInterval> intervals);

}  // namespace monkey
