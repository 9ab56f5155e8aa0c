// Where keys lie in a column family's key space, to weigh each SST by the
// share of absent-key lookups that reach its filter: a lookup probes a
// file's filter only inside the file's key range, so with lookups spread
// evenly over the key space a level whose files cover 81% of it is probed
// by 81% of them (a level that compactions have partly emptied into the
// one below), and each L0 file by the share its range covers. Pure: no
// RocksDB in here.
#pragma once

#include <string>

namespace monkey {

class KeySpace {
 public:
  // The span from `smallest` to `largest` (user keys, bytewise order).
  KeySpace(const std::string& smallest, const std::string& largest);

  // The share of the span that [from, to] covers, in [0, 1]: keys are read
  // as base-256 fractions of the 8 bytes after the prefix both ends share
  // (so fixed-width, big-endian keys of any length map linearly). 1 when
  // the span is a single point at that resolution.
  double Share(const std::string& from, const std::string& to) const;

 private:
  double Position(const std::string& key) const;

  size_t prefix_ = 0;
  double lo_ = 0;
  double hi_ = 0;
  std::string smallest_;
};

}  // namespace monkey
