// How far jobs have moved a tree from its published live shape. See
// shape_drift.h.
#include "monkey/util/shape_drift.h"

#include <cmath>

namespace monkey {

void ShapeDrift::Published(const std::vector<LiveLevel>& shape,
                           bool last_level_filter) {
  published_ = true;
  unknown_ = false;
  level_keys_.clear();
  filtered_keys_ = 0;
  int last = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    level_keys_.push_back(shape[i].entries);
    if (shape[i].entries > 0) last = static_cast<int>(i);
  }
  if (!last_level_filter && last >= 0) level_keys_[last] = -1;
  next_flush_ = shape.empty() ? 0 : shape[0].next_flush_entries;
  for (double keys : level_keys_) filtered_keys_ += keys > 0 ? keys : 0;
  moved_keys_.assign(level_keys_.size(), 0);
}

void ShapeDrift::PublishedSince(const std::vector<LiveLevel>& shape,
                                bool last_level_filter,
                                const ShapeDrift& at_snapshot) {
  std::vector<double> since = moved_keys_;
  for (size_t i = 0; i < since.size() && i < at_snapshot.moved_keys_.size();
       ++i) {
    since[i] -= at_snapshot.moved_keys_[i];
  }
  const bool unknown_since = unknown_ && !at_snapshot.unknown_;
  Published(shape, last_level_filter);
  if (moved_keys_.size() < since.size()) moved_keys_.resize(since.size(), 0);
  for (size_t i = 0; i < since.size(); ++i) moved_keys_[i] = since[i];
  unknown_ = unknown_since;
}

void ShapeDrift::Move(int level, double keys) {
  if (level < 0 || !(keys >= 0)) {
    unknown_ = true;
    return;
  }
  if (moved_keys_.size() <= static_cast<size_t>(level)) {
    moved_keys_.resize(level + 1, 0);
  }
  moved_keys_[level] += keys;
}

bool ShapeDrift::Stale() const {
  if (!published_ || unknown_) return true;
  double drift2 = 0;
  for (size_t level = 0; level < moved_keys_.size(); ++level) {
    const double moved = moved_keys_[level];
    if (!(moved > 0)) continue;
    const double had = level < level_keys_.size() ? level_keys_[level] : 0;
    if (had < 0) continue;  // carries no filter
    // A level the plan never saw -- except L0 where the plan priced the
    // next flush's run (LiveLevel::next_flush_entries): what counts there
    // is how far the runs that came differ from it. Planning for each
    // flush into an empty L0 (every flush of a sequential load) took most
    // of the planner's time.
    if (had == 0 && level == 0 && next_flush_ > 0) {
      const double off = std::fabs(moved - next_flush_);
      drift2 += off * off / (next_flush_ * filtered_keys_);
      continue;
    }
    if (had == 0) return true;
    drift2 += moved * moved / (had * filtered_keys_);
  }
  return drift2 > tolerance_ * tolerance_;
}

}  // namespace monkey
