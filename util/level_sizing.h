// Where a leveled tree's keys are going: the level targets RocksDB sets
// (VersionStorageInfo::CalculateBaseBytes, the same from 7.8.3 to 11.x) and
// the tree a backlog drains to once compactions catch up. A fast load
// leaves a level far past its target -- RocksDB 7.x and later do not raise
// the base level's target for a backed-up L0 but merge L0 into it whole --
// and every key past a target is on its way to the last level. Pure: no
// RocksDB in here; table/shape_listener.cc reads the sizing from the DB's
// options.
#pragma once

#include <vector>

namespace monkey {

// How RocksDB sizes a column family's levels, in keys (bytes over the tree's
// bytes per key). base_level_entries <= 0: unknown.
struct LevelSizing {
  bool dynamic = false;           // level_compaction_dynamic_level_bytes
  double base_level_entries = 0;  // max_bytes_for_level_base
  double multiplier = 10;         // max_bytes_for_level_multiplier
  int num_levels = 7;             // num_levels
  bool known() const {
    return base_level_entries > 0 && multiplier > 1 && num_levels > 1;
  }
};

// The sizing of a tree whose files hold `entries` keys in `bytes`, from
// the options in bytes (RocksDB's targets count file bytes): unknown when
// the tree has no keys yet.
LevelSizing SizingInEntries(bool dynamic, double base_level_bytes,
                            double multiplier, int num_levels, double bytes,
                            double entries);

// Each level's target, in keys, for levels of `entries` (indexed by level,
// L0 first; shorter than num_levels is fine): infinite where RocksDB lets
// nothing compact out (L0, levels above the base level, the last level
// under dynamic sizing -- its target is its own size) and for every level
// when the sizing is unknown.
std::vector<double> LevelTargets(const std::vector<double>& entries,
                                 const LevelSizing& sizing);

// The level L0 compacts into, for `targets` from LevelTargets: the first
// below L0 with a target, else the last.
int BaseLevel(const std::vector<double>& targets);

// The tree `entries` drains to once compactions catch up with no new
// writes: L0 into the base level, and every level past its target passing
// the excess to the one below, the targets re-set as the levels move (under
// dynamic sizing they follow the largest level). The result has
// num_levels entries. Keys are only ever moved down, so the deepest level
// gains what the backlog holds; with the sizing unknown nothing moves.
std::vector<double> DrainedEntries(const std::vector<double>& entries,
                                   const LevelSizing& sizing);

}  // namespace monkey
