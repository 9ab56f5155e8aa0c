// Key-space shares. See key_space.h.
#include "util/key_space.h"

#include <algorithm>

namespace monkey {

KeySpace::KeySpace(const std::string& smallest, const std::string& largest)
    : smallest_(smallest) {
  while (prefix_ < smallest.size() && prefix_ < largest.size() &&
         smallest[prefix_] == largest[prefix_]) {
    ++prefix_;
  }
  lo_ = Position(smallest);
  hi_ = Position(largest);
}

double KeySpace::Position(const std::string& key) const {
  // Keys outside the span's prefix sort before or after all of it.
  const size_t n = std::min(prefix_, key.size());
  const int order = key.compare(0, n, smallest_, 0, prefix_);
  if (order < 0 || (order == 0 && key.size() < prefix_)) return 0;
  if (order > 0) return 1;
  double position = 0;
  double scale = 1.0 / 256;
  for (size_t i = prefix_; i < key.size() && i < prefix_ + 8; ++i) {
    position += static_cast<unsigned char>(key[i]) * scale;
    scale /= 256;
  }
  return position;
}

double KeySpace::Share(const std::string& from, const std::string& to) const {
  if (!(hi_ > lo_)) return 1;
  const double a = std::clamp(Position(from), lo_, hi_);
  const double b = std::clamp(Position(to), lo_, hi_);
  return std::max(0.0, b - a) / (hi_ - lo_);
}

}  // namespace monkey
