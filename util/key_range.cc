// Key positions and intervals. See key_range.h.
#include "monkey/util/key_range.h"

#include <algorithm>

namespace monkey {

size_t CommonPrefixLength(const std::vector<std::string_view>& keys) {
  if (keys.empty()) return 0;
  const std::string_view first = keys.front();
  size_t n = first.size();
  for (std::string_view key : keys) {
    size_t i = 0;
    while (i < n && i < key.size() && key[i] == first[i]) ++i;
    n = i;
  }
  return n;
}

double KeyPosition(std::string_view key, size_t skip) {
  double position = 0;
  double scale = 1.0 / 256;
  for (size_t i = skip; i < key.size() && i < skip + 8; ++i) {
    position += static_cast<unsigned char>(key[i]) * scale;
    scale /= 256;
  }
  return position;
}

double UnionLength(std::vector<KeyInterval> intervals) {
  std::sort(
      intervals.begin(), intervals.end(),
      [](const KeyInterval& a, const KeyInterval& b) { return a.lo < b.lo; });
  double length = 0, end = 0;
  bool open = false;
  for (const KeyInterval& i : intervals) {
    if (!(i.hi > i.lo)) continue;
    if (!open || i.lo > end) {
      length += i.hi - i.lo;
      end = i.hi;
      open = true;
    } else if (i.hi > end) {
      length += i.hi - end;
      end = i.hi;
    }
  }
  return length;
}

}  // namespace monkey
