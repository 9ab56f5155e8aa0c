// FPR hulls and prices. See fpr_hull.h.
#include "monkey/util/fpr_hull.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace monkey {
namespace {

constexpr int kGridMillibits = 10;

FprHull BuildHull(const FprModel& model) {
  const int lo = static_cast<int>(std::ceil(model.min_bits() * 1000 - 1e-9));
  const int hi = static_cast<int>(std::floor(model.max_bits() * 1000 + 1e-9));
  FprHull hull;
  for (int m = lo; m <= hi;) {
    const double x = m, y = model.FalsePositiveRate(m / 1000.0);
    // Pop while the last vertex lies on or above the chord to (x, y).
    while (hull.millibits.size() >= 2) {
      const size_t n = hull.millibits.size();
      const double x1 = hull.millibits[n - 2], y1 = hull.fpr[n - 2];
      const double x2 = hull.millibits[n - 1], y2 = hull.fpr[n - 1];
      if ((y2 - y1) * (x - x1) < (y - y1) * (x2 - x1)) break;
      hull.millibits.pop_back();
      hull.fpr.pop_back();
    }
    hull.millibits.push_back(m);
    hull.fpr.push_back(y);
    if (m == hi) break;
    m = std::min(hi, (m / kGridMillibits + 1) * kGridMillibits);
  }
  // Past the point where FPR stops falling, more bits buy nothing.
  while (hull.fpr.size() >= 2 && hull.fpr.back() >= hull.fpr.end()[-2]) {
    hull.millibits.pop_back();
    hull.fpr.pop_back();
  }
  for (size_t v = 0; v + 1 < hull.millibits.size(); ++v) {
    hull.slope.push_back((hull.fpr[v + 1] - hull.fpr[v]) /
                         (hull.millibits[v + 1] - hull.millibits[v]));
  }
  return hull;
}

}  // namespace

std::shared_ptr<const FprHull> HullFor(const FprModel& model) {
  static std::mutex mu;
  static std::map<std::pair<std::string, double>,
                  std::shared_ptr<const FprHull>>
      cache;
  const auto key = std::make_pair(model.Name(), model.min_bits());
  std::lock_guard<std::mutex> lock(mu);
  auto& hull = cache[key];
  if (!hull) hull = std::make_shared<const FprHull>(BuildHull(model));
  return hull;
}

size_t HullVertexAt(const FprHull& hull, double entries, double runs,
                    double log_lambda) {
  const double threshold =
      -std::exp(log_lambda + std::log(entries) - std::log(runs));
  return std::lower_bound(hull.slope.begin(), hull.slope.end(), threshold) -
         hull.slope.begin();
}

void LogLambdaBracket(const std::vector<const FprHull*>& hulls,
                      const std::vector<LevelShape>& shape,
                      const std::vector<size_t>& on, double* lo, double* hi) {
  *hi = -std::numeric_limits<double>::infinity();
  *lo = std::numeric_limits<double>::infinity();
  for (size_t i : on) {
    const std::vector<double>& slope = hulls[i]->slope;
    if (slope.empty()) continue;
    const double scale = std::log(shape[i].runs) - std::log(shape[i].entries);
    *hi = std::max(*hi, std::log(-slope.front()) + scale + 1);
    *lo = std::min(*lo, std::log(-slope.back()) + scale - 1);
  }
}

std::vector<const FprHull*> HullsFor(
    const std::vector<FprModel>& models,
    std::vector<std::shared_ptr<const FprHull>>* owned) {
  std::vector<const FprHull*> hulls;
  for (const FprModel& model : models) {
    owned->push_back(HullFor(model));
    hulls.push_back(owned->back().get());
  }
  return hulls;
}

PlanCandidates CandidatesOf(const std::vector<LevelShape>& shape,
                            const std::vector<const FprHull*>& hulls) {
  PlanCandidates c;
  c.fixed.assign(shape.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].filtered || shape[i].runs <= 0) continue;
    if (shape[i].entries <= 0) {
      c.fixed[i] = hulls[i]->millibits.back();
    } else {
      c.by_run_size.push_back(i);
    }
  }
  std::stable_sort(c.by_run_size.begin(), c.by_run_size.end(),
                   [&](size_t a, size_t b) {
                     return shape[a].entries / shape[a].runs <
                            shape[b].entries / shape[b].runs;
                   });
  return c;
}

}  // namespace monkey
