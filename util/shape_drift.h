// When the live shape must be read again. A refresh walks every live file
// (RocksDB's GetLiveFilesMetaData, then the projection of live_shape.h):
// its cost grows with the tree, while the change one flush or compaction
// makes shrinks with it. On the deep preset's tree of ~1,600 64 KiB files,
// a refresh at every flush and compaction event halved fillrandom's rate
// (docs/design.md#refresh-cost). So jobs that move the tree
// little wait for the next refresh. Pure: no RocksDB in here;
// table/shape_listener.cc feeds it.
//
// How little: planning level i for (1 + d_i) times the keys it has moves
// its optimal bits by ln(1 + d_i) / ln(2)^2, and a Bloom level D bits off
// its optimum loses about (ln(2)^2 D)^2 / 2 of its FPR: about d_i^2 / 2.
// At Monkey's optimum each level's share of Sigma FPR is its share of the
// filtered keys, n_i / N (the Lagrange condition r_i p_i = lambda n_i / c),
// so a stale shape costs about drift^2 / 2 of Sigma FPR, where
//   drift^2 = sum_i (n_i / N) d_i^2 = sum_i m_i^2 / (n_i N)
// for m_i keys moved in or out of level i. Small levels may drift far
// (L0 doubling, in a tree where it is 0.3% of the keys, costs 0.15%); the
// last level only a little. The same files are built at most
// 2.1 drift^2 bits per key off the budget.
#pragma once

#include <vector>

#include "monkey/util/live_shape.h"

namespace monkey {

class ShapeDrift {
 public:
  // drift <= 0.1: a stale shape costs at most ~0.5% of Sigma FPR, and then
  // only on the files built before the next refresh.
  static constexpr double kDefaultTolerance = 0.1;

  explicit ShapeDrift(double tolerance = kDefaultTolerance)
      : tolerance_(tolerance) {}

  // A refresh published `shape`: it describes the tree; nothing is pending.
  // Without a last-level filter, the deepest level with keys carries none,
  // and neither counts nor weighs.
  void Published(const std::vector<LiveLevel>& shape,
                 bool last_level_filter = true);

  // As Published, for a shape taken when the drift was `at_snapshot` (a
  // copy of this one): the moves made since then still count. The
  // listener plans on a thread of its own while jobs go on.
  void PublishedSince(const std::vector<LiveLevel>& shape,
                      bool last_level_filter, const ShapeDrift& at_snapshot);

  // A job begun since moves `keys` into or out of `level`. Keys that are
  // not known (negative, or NaN) make the shape stale at once.
  void Move(int level, double keys);

  // Whether the tree may now be too far from the published shape: the
  // drift above exceeds the tolerance, or a filtered level that held no
  // keys has some. True before the first Published().
  bool Stale() const;

 private:
  double tolerance_;
  bool published_ = false;
  bool unknown_ = false;
  std::vector<double> level_keys_;  // as published; -1: not filtered
  double filtered_keys_ = 0;        // N
  std::vector<double> moved_keys_;  // m_i since then
  double next_flush_ = 0;           // the run the plan priced into an empty L0
};

}  // namespace monkey
