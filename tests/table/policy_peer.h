// The tests' way to the policy's live-shape entry points, which only the
// listener has: the plan a given live shape makes, without a DB.
#pragma once

#include <string>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/util/level_sizing.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/tiered_job.h"

namespace monkey {

class MonkeyFilterPolicyPeer {
 public:
  static void UpdateLiveShape(const MonkeyFilterPolicy& policy,
                              const std::string& column_family,
                              const std::vector<LiveLevel>& levels) {
    policy.UpdateLiveShape(column_family, levels);
  }
  static std::vector<LiveLevel> LiveShapeOf(const MonkeyFilterPolicy& policy,
                                            const std::string& column_family) {
    return policy.LiveShapeOf(column_family);
  }
  static LevelSizing LiveSizingOf(const MonkeyFilterPolicy& policy,
                                  const std::string& column_family) {
    return policy.LiveSizingOf(column_family);
  }
  // What GetBuilderWithContext notes of a build before it plans its bits
  // (the builder itself is RocksDB-internal).
  static void NoteBuild(const MonkeyFilterPolicy& policy,
                        const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
                        int level) {
    policy.NoteUnfedBuild(context, level);
  }
  // The tiered plan a listener made last for `column_family`; nullptr if
  // none.
  static std::shared_ptr<const TieredJobPlan> TieredPlanOf(
      const MonkeyFilterPolicy& policy, const std::string& column_family) {
    std::lock_guard<std::mutex> lock(policy.mu_);
    auto it = policy.tiered_plans_.find(column_family);
    return it == policy.tiered_plans_.end() ? nullptr : it->second;
  }
  // How many live shapes the policy has been given.
  static uint64_t LiveUpdates(const MonkeyFilterPolicy& policy) {
    return policy.live_updates_;
  }
};

}  // namespace monkey
