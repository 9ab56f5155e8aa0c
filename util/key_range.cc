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

namespace {
constexpr int kLowestPrintable = 0x20, kHighestPrintable = 0x7e;
}  // namespace

KeySpace::KeySpace(const std::vector<std::string_view>& keys)
    : skip_(CommonPrefixLength(keys)), lowest_(8, 0), values_(8, 1) {
  std::vector<int> highest(8, -1);
  bool text = true;
  for (size_t i = 0; i < 8; ++i) {
    for (std::string_view key : keys) {
      if (skip_ + i >= key.size()) continue;
      const int v = static_cast<unsigned char>(key[skip_ + i]);
      lowest_[i] = highest[i] < 0 ? v : std::min(lowest_[i], v);
      highest[i] = std::max(highest[i], v);
      text = text && v >= kLowestPrintable && v <= kHighestPrintable;
    }
  }
  for (size_t i = 0; i < 8; ++i) {
    if (highest[i] < 0) continue;  // no key is this long
    // Binary keys: every byte value may come.
    if (!text) lowest_[i] = 0, highest[i] = 255;
    values_[i] = highest[i] - lowest_[i] + 1;
  }
}

double KeySpace::Position(std::string_view key) const {
  double position = 0;
  double scale = 1;
  for (size_t i = 0; i < 8; ++i) {
    scale /= values_[i];
    if (skip_ + i >= key.size()) break;
    const int v = static_cast<unsigned char>(key[skip_ + i]);
    position += std::clamp(v - lowest_[i], 0, values_[i] - 1) * scale;
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
