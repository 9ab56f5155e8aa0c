// Keys spelled as 16 decimal digits, as grow_tree and many applications
// spell them (YCSB's are digits too): their bytes are far from uniform, so
// tests of key positions and reach use them beside binary keys.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace monkey::test {

inline std::string DecimalKey(uint64_t id) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%016" PRIu64, id);
  return buf;
}

}  // namespace monkey::test
