// The search for a plan's price. See price_search.h.
#include "monkey/util/price_search.h"

#include <algorithm>

namespace monkey {
namespace {

// Bisection bounds on log(lambda): from past the cheapest filter of a
// single key to below the best filter of 1e18 keys in one run.
constexpr double kMinLogLambda = -150;
constexpr double kMaxLogLambda = 10;
constexpr int kBisections = 40;

}  // namespace

PricedMillibits SolveForPrice(const MillibitsAtPrice& at,
                              const PlanMeasure& measure, double target,
                              Meet meet, const std::vector<FprModel>& models) {
  double lo = kMinLogLambda, hi = kMaxLogLambda;
  for (int i = 0; i < kBisections; ++i) {
    const double mid = (lo + hi) / 2;
    (measure(at(mid)) > target ? lo : hi) = mid;
  }
  PricedMillibits solution{hi, at(hi)};
  const double at_hi = measure(solution.millibits);
  if (meet == Meet::kWithin && at_hi > target) {
    solution.millibits.assign(solution.millibits.size(), 0);
    return solution;
  }
  const std::vector<int> above = at(lo);
  const double at_lo = measure(above);
  if (at_lo > at_hi && target > at_hi) {
    const double fraction = std::min(1.0, (target - at_hi) / (at_lo - at_hi));
    std::vector<int> mixed = solution.millibits;
    for (size_t i = 0; i < mixed.size(); ++i) {
      mixed[i] += static_cast<int>(fraction * (above[i] - mixed[i]));
      // A run moving from no filter to its first vertex has nothing
      // buildable in between (RocksDB drops a setting under 0.5 bits and
      // builds 1 bit from 0.5, Ribbon its least columns): it takes one
      // end, the one that keeps the budget or reaches the target.
      if (mixed[i] > 0 && mixed[i] < above[i] &&
          mixed[i] < models[i].min_bits() * 1000) {
        mixed[i] = meet == Meet::kWithin ? 0 : above[i];
      }
    }
    if (meet == Meet::kWithin || measure(mixed) >= target) {
      solution.millibits = mixed;
    } else {
      solution.millibits = above;
    }
  }
  return solution;
}

}  // namespace monkey
