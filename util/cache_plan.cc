// Filter bits per run for a block cache. See cache_plan.h.
#include "monkey/util/cache_plan.h"

#include <algorithm>
#include <cmath>

namespace monkey {

namespace {

// `run` with a filter of `bits` per entry (none for 0).
CachedRun WithFilter(const CacheRunToPlan& r, double bits,
                     const FprModel& model, double partition_bytes) {
  CachedRun run = r.run;
  if (!(bits > 0)) {
    run.filter_bytes = 0;
    run.fpr = 1;
    return run;
  }
  run.filter_bytes = r.filter_entries * bits / 8;
  run.fpr = (r.model != nullptr ? *r.model : model).FalsePositiveRate(bits);
  run.filter_blocks = FilterBlocks(run.filter_bytes, r.files, partition_bytes);
  return run;
}

}  // namespace

CachedRun CachedFiles(double reach, double files, double bytes,
                      const CacheLayout& layout) {
  const BytesPerFileByte& per = layout.per_byte;
  CachedRun run;
  run.reach = reach;
  files = std::max(1.0, files);
  run.data_bytes = bytes * per.data_bytes;
  run.data_blocks = std::max(files, std::round(bytes * per.data_blocks));
  run.index_bytes = bytes * per.index_bytes;
  run.index_blocks = std::max(files, std::round(bytes * per.index_blocks));
  return run;
}

BlockReads ReadsWithBits(const std::vector<CacheRunToPlan>& runs,
                         const std::vector<double>& bits, const FprModel& model,
                         const CacheLayout& cache) {
  std::vector<CachedRun> cached;
  cached.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    cached.push_back(
        WithFilter(runs[i], bits[i], model, cache.partition_bytes));
  }
  return ExpectedBlockReads(cached, cache.cache_bytes);
}

double MostFilterBitsFor(const CacheLayout& cache, double budget_filter_bits) {
  return std::max(budget_filter_bits,
                  8 * kMostCacheShareForFilters * cache.cache_bytes);
}

double FilterBitsOf(const std::vector<CacheRunToPlan>& runs,
                    const std::vector<double>& bits) {
  double sum = 0;
  for (size_t i = 0; i < runs.size() && i < bits.size(); ++i) {
    sum += runs[i].filter_entries * bits[i];
  }
  return sum;
}

CachePlan PlanBitsForCache(const std::vector<CacheRunToPlan>& runs,
                           const FprModel& model, const CacheLayout& cache,
                           double step, const std::vector<double>* also_from,
                           double max_filter_bits) {
  // The caller's start is within by definition (a budget's plan rounded to
  // settings RocksDB builds may pass it by a few bits).
  if (also_from != nullptr && also_from->size() == runs.size()) {
    max_filter_bits = std::max(max_filter_bits, FilterBitsOf(runs, *also_from));
  }
  const auto within = [&](const std::vector<double>& bits) {
    return FilterBitsOf(runs, bits) <= max_filter_bits;
  };
  std::vector<double> grid = {0};
  const double most = std::min(model.max_bits(), kMostCachePlanBits);
  for (double b = std::ceil(model.min_bits() / step) * step; b <= most + 1e-9;
       b += step) {
    grid.push_back(b);
  }
  // Bits `b` for every run that may have a filter.
  const auto uniform = [&](double b) {
    std::vector<double> bits(runs.size(), b);
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!runs[i].filterable) bits[i] = 0;
    }
    return bits;
  };
  const auto cost_of = [&](const std::vector<double>& bits) {
    return ReadsWithBits(runs, bits, model, cache)
        .Cost(cache.read_latency_bytes);
  };
  // Starts: the best uniform setting, no filters, the most bits, and the
  // caller's.
  std::vector<std::vector<double>> starts = {uniform(0)};
  if (within(uniform(grid.back()))) starts.push_back(uniform(grid.back()));
  if (also_from != nullptr && also_from->size() == runs.size()) {
    starts.push_back(*also_from);
  }
  double best_uniform = 0, best_uniform_cost = 0;
  for (double b : grid) {
    if (!within(uniform(b))) continue;
    const double t = cost_of(uniform(b));
    if (b == grid.front() || t < best_uniform_cost) {
      best_uniform = b;
      best_uniform_cost = t;
    }
  }
  starts.push_back(uniform(best_uniform));
  // Coordinate descent over `candidates(i, bits)`, each run's trial bits.
  const auto descend = [&](std::vector<double>* bits, auto candidates) {
    double cost = cost_of(*bits);
    for (bool improved = true; improved;) {
      improved = false;
      for (size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].filterable) continue;
        double best_b = (*bits)[i];
        for (double b : candidates(i, *bits)) {
          if (b == (*bits)[i]) continue;
          std::vector<double> trial = *bits;
          trial[i] = b;
          if (b > (*bits)[i] && !within(trial)) continue;
          const double t = cost_of(trial);
          // A relative margin, so that rounding never cycles.
          if (t < cost * (1 - 1e-12)) {
            cost = t;
            best_b = b;
            improved = true;
          }
        }
        (*bits)[i] = best_b;
      }
    }
    return cost;
  };
  const auto on_grid =
      [&](size_t, const std::vector<double>&) -> const std::vector<double>& {
    return grid;
  };
  CachePlan best;
  double best_cost = 0;
  for (const std::vector<double>& start : starts) {
    std::vector<double> bits = start;
    const double cost = descend(&bits, on_grid);
    if (best.bits.empty() || cost < best_cost) {
      best.bits = bits;
      best_cost = cost;
    }
  }
  // Then steps of a fifth, next to each run's bits: where the cap binds,
  // the grid may leave up to a step of every run's bits unspent, and on a
  // cache that holds the filters every bit saves reads.
  const double fine = step / 5;
  const auto next_to = [&](size_t i, const std::vector<double>& bits) {
    std::vector<double> near;
    if (!(bits[i] > 0)) return near;
    for (int j = -4; j <= 4; ++j) {
      const double b = bits[i] + j * fine;
      if (j != 0 && b >= model.min_bits() - 1e-9 && b <= most + 1e-9) {
        near.push_back(b);
      }
    }
    return near;
  };
  descend(&best.bits, next_to);
  best.reads = ReadsWithBits(runs, best.bits, model, cache);
  return best;
}

}  // namespace monkey
