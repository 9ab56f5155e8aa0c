// The advisor's math. See advisor.h.
#include "monkey/util/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>

#include "monkey/util/key_range.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/monkey_memory.h"

namespace monkey {
namespace {

bool Valid(double x) { return std::isfinite(x) && x >= 0; }

constexpr int kMaxLevel = 64;  // as the planner (ValidatePlanInputs)

}  // namespace

FilterChoice FilterChoiceOf(const std::string& filter) {
  if (filter == "ribbon") return FilterChoice::kRibbon;
  if (filter == "auto") return FilterChoice::kAuto;
  return FilterChoice::kBloom;
}

std::vector<double> ProbesPerLookup(const std::vector<LiveFile>& files) {
  int last = -1;
  std::vector<std::string_view> ends;
  for (const LiveFile& f : files) {
    last = std::max(last, f.level);
    ends.push_back(f.smallest);
    ends.push_back(f.largest);
  }
  std::vector<double> probes(last + 1, 0.0);
  const KeySpace space(ends);
  // Each file's range in key positions (either order: a reverse
  // comparator), and the span of them all.
  std::vector<KeyInterval> ranges;
  double lo = 1, hi = 0;
  for (const LiveFile& f : files) {
    const double a = space.Position(f.smallest);
    const double b = space.Position(f.largest);
    ranges.push_back({std::min(a, b), std::max(a, b)});
    lo = std::min(lo, ranges.back().lo);
    hi = std::max(hi, ranges.back().hi);
  }
  const double span = hi - lo;
  std::vector<std::vector<KeyInterval>> by_level(last + 1);
  for (size_t i = 0; i < files.size(); ++i) {
    const int level = files[i].level;
    if (level == 0) {
      probes[0] += span > 0 ? (ranges[i].hi - ranges[i].lo) / span : 1.0;
    } else {
      by_level[level].push_back(ranges[i]);
    }
  }
  for (int level = 1; level <= last; ++level) {
    if (by_level[level].empty()) continue;
    probes[level] =
        span > 0 ? std::min(1.0, UnionLength(by_level[level]) / span) : 1.0;
  }
  return probes;
}

bool HasFilters(const std::vector<AdvisorLevel>& levels) {
  for (const AdvisorLevel& l : levels) {
    if (l.filter_bytes > 0 && l.filter_entries > 0) return true;
  }
  return false;
}

std::string SuggestedFilter(const std::vector<AdvisorLevel>& levels) {
  std::string l0 = "none";                   // L0's kind
  double bloom_below = 0, ribbon_below = 0;  // filtered keys by kind
  for (const AdvisorLevel& l : levels) {
    if (!(l.filter_entries > 0) || l.filter == "none") continue;
    if (l.level == 0) {
      l0 = l.filter;
    } else if (l.filter == "bloom") {
      bloom_below += l.filter_entries;
    } else if (l.filter == "ribbon") {
      ribbon_below += l.filter_entries;
    }
  }
  // Below L0, the kind of the most keys (a "mixed" level counts for
  // neither); with no filters below L0, L0's kind.
  const bool ribbon = bloom_below + ribbon_below > 0
                          ? ribbon_below > bloom_below
                          : l0 == "ribbon";
  if (!ribbon) return "bloom";
  return l0 == "bloom" || l0 == "mixed" ? "auto" : "ribbon";
}

std::string MonkeyOptionsString(double bits_per_key, bool last_level_filter,
                                const std::string& filter) {
  char bits[32];
  snprintf(bits, sizeof(bits), "%.3f", bits_per_key);
  std::string b = bits;
  while (b.back() == '0') b.pop_back();
  if (b.back() == '.') b.pop_back();
  return "id=monkey;bits_per_key=" + b +
         (last_level_filter ? "" : ";last_level_filter=false") +
         ";filter=" + filter;
}

Plan PolicyPlan(const std::vector<LiveLevel>& live, double bits_per_key,
                bool last_level_filter, const std::string& filter) {
  LivePlanOptions options;
  options.bits_per_key = bits_per_key;
  options.last_level_filter = last_level_filter;
  options.filter = FilterChoiceOf(filter);
  LivePlan plan;
  if (!PlanLiveTree(live, options, &plan)) return Plan();
  return plan.plan;
}

namespace {

// The levels by number, or what is wrong with the facts: each level once,
// in [0, 64), finite and >= 0, and the files are the levels' files (the
// shape comes from them).
std::string CheckedLevels(
    const std::vector<AdvisorLevel>& levels, const std::vector<LiveFile>& files,
    std::map<int, const AdvisorLevel*>* levels_by_number) {
  std::map<int, const AdvisorLevel*>& by_level = *levels_by_number;
  for (const AdvisorLevel& l : levels) {
    if (!(l.files > 0)) continue;
    if (l.level < 0 || l.level >= kMaxLevel) {
      return "level " + std::to_string(l.level) + " is outside [0, 64)";
    }
    if (!Valid(l.files) || !Valid(l.entries) || !Valid(l.filter_entries) ||
        !Valid(l.unfiltered_entries) || !Valid(l.filter_bytes) ||
        !Valid(l.model_fpr) || l.model_fpr > 1) {
      return "level " + std::to_string(l.level) +
             " has facts that are not finite and >= 0 (or an FPR above 1)";
    }
    if (!by_level.emplace(l.level, &l).second) {
      return "level " + std::to_string(l.level) + " is given twice";
    }
  }
  if (by_level.empty()) return "no SST files";
  if (!HasFilters(levels)) return "no filters";
  std::map<int, double> files_at;
  for (const LiveFile& f : files) {
    const std::string name = "file " + std::to_string(f.number);
    if (f.level < 0 || f.level >= kMaxLevel) {
      return name + " is at level " + std::to_string(f.level) +
             ", outside [0, 64)";
    }
    if (!Valid(f.entries) || !Valid(f.bytes)) {
      return name + " has entries or bytes that are not finite and >= 0";
    }
    files_at[f.level] += 1;
  }
  for (const auto& [level, l] : by_level) {
    if (files_at[level] != l->files) {
      return "level " + std::to_string(level) + " has " +
             std::to_string(static_cast<long long>(l->files)) + " files but " +
             std::to_string(static_cast<long long>(files_at[level])) +
             " file records";
    }
  }
  for (const auto& [level, n] : files_at) {
    if (n > 0 && by_level.count(level) == 0) {
      return "file records at level " + std::to_string(level) +
             ", which has no level facts";
    }
  }
  return "";
}

// Filter entries per stored key: the budget is in real bits per filter
// entry (with a prefix extractor, prefixes; with whole-key filtering too,
// keys and prefixes), and the listener publishes each level in filter
// entries (FilterEntriesPerKey). By level where it has filters, else over
// the tree's filtered keys; 1 where nothing is known.
struct StoredKeyRates {
  std::map<int, double> at;
  double tree = 1.0;
  double operator()(int level) const {
    auto it = at.find(level);
    return it != at.end() ? it->second : tree;
  }
};

StoredKeyRates RatesOf(const std::map<int, const AdvisorLevel*>& by_level) {
  StoredKeyRates rates;
  double tree_filter_entries = 0, tree_filtered_keys = 0;
  for (const auto& [level, l] : by_level) {
    const double filtered_keys = l->entries - l->unfiltered_entries;
    if (!(l->filter_entries > 0 && l->filter_bytes > 0 && filtered_keys > 0)) {
      continue;
    }
    rates.at[level] = l->filter_entries / filtered_keys;
    tree_filter_entries += l->filter_entries;
    tree_filtered_keys += filtered_keys;
  }
  if (tree_filtered_keys > 0) {
    rates.tree = tree_filter_entries / tree_filtered_keys;
  }
  return rates;
}

// The tree as it is: its live shape as the listener would publish it,
// probes per lookup, filter entries, and today's FPRs, bytes and Sigma
// FPR. Returns what is wrong, or "".
std::string DescribeTree(const std::map<int, const AdvisorLevel*>& by_level,
                         const std::vector<LiveFile>& files,
                         const StoredKeyRates& rate, Advice* advice) {
  Advice& a = *advice;
  // What the listener would publish: no jobs in flight, each file in filter
  // entries (its keys at its level's rate), and no filter known as built,
  // so that the controller does not steer against filters another policy
  // built (a rebuild replaces them).
  std::vector<LiveFile> units = files;
  for (LiveFile& f : units) f.entries *= rate(f.level);
  a.live = ProjectLiveShape(units, {});
  const int last = by_level.rbegin()->first;
  a.live.resize(last + 1);
  a.shape.assign(last + 1, LevelShape{0, 0, true});
  a.probes = ProbesPerLookup(files);
  a.probes.resize(last + 1);
  a.fpr_now.assign(last + 1, 1.0);
  a.filter_keys.assign(last + 1, 0.0);
  for (int level = 0; level <= last; ++level) {
    a.shape[level].entries = a.live[level].entries;
    a.shape[level].runs = a.live[level].runs;
  }
  for (const auto& [level, l] : by_level) {
    const bool filters = l->filter_entries > 0 && l->filter_bytes > 0;
    // A filter's bits are per entry it holds (num_filter_entries); files
    // without a filter would hold their keys at the level's rate, a level
    // without filters its keys at the tree's (as a.live counts them).
    a.filter_keys[level] =
        filters ? l->filter_entries + l->unfiltered_entries * rate(level)
                : l->entries * rate(level);
    if (filters && l->entries > 0) {
      // Files without a filter let every lookup in their range through:
      // weighted by stored keys, not filter entries.
      a.fpr_now[level] = ((l->entries - l->unfiltered_entries) * l->model_fpr +
                          l->unfiltered_entries) /
                         l->entries;
    }
    if (level == last && !filters) {
      a.shape[level].filtered = false;
      a.last_level_filter = false;
    }
    a.filter_bytes_now += l->filter_bytes;
  }
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (!a.shape[i].filtered) continue;
    a.filtered_entries += a.filter_keys[i];
    a.sum_fpr_now += a.probes[i] * a.fpr_now[i];
  }
  if (!(a.filtered_entries > 0)) return "no keys in the filtered levels";
  a.bits_per_key_now = 8 * a.filter_bytes_now / a.filtered_entries;
  return "";
}

// Level `l` (with files) as the block cache sees it now.
CachedRun CachedRunOf(const AdvisorLevel& l, const Advice& advice,
                      double filter_partition_bytes) {
  const size_t i = static_cast<size_t>(l.level);
  CachedRun run;
  run.reach = i < advice.probes.size() ? advice.probes[i] : 0;
  run.filter_bytes = l.filter_bytes;
  run.fpr =
      l.filter_bytes > 0 && i < advice.fpr_now.size() ? advice.fpr_now[i] : 1.0;
  run.filter_blocks =
      FilterBlocks(l.filter_bytes, l.files, filter_partition_bytes);
  run.index_bytes = l.index_bytes;
  run.index_blocks = std::max(l.files, l.index_blocks);
  run.data_bytes = l.data_bytes;
  run.data_blocks = std::max(l.files, l.data_blocks);
  return run;
}

}  // namespace

std::vector<CachedRun> CachedRunsNow(const std::vector<AdvisorLevel>& levels,
                                     const Advice& advice,
                                     double filter_partition_bytes) {
  std::vector<CachedRun> runs;
  for (const AdvisorLevel& l : levels) {
    if (l.files > 0) {
      runs.push_back(CachedRunOf(l, advice, filter_partition_bytes));
    }
  }
  return runs;
}

std::vector<CacheRunToPlan> CacheRunsToPlan(
    const std::vector<AdvisorLevel>& levels, const Advice& advice,
    double filter_partition_bytes) {
  static const FprModel kBloom = FprModel::FastLocalBloom();
  static const FprModel kRibbon = FprModel::Ribbon();
  std::vector<CacheRunToPlan> runs;
  for (const AdvisorLevel& l : levels) {
    if (!(l.files > 0)) continue;
    const size_t i = static_cast<size_t>(l.level);
    CacheRunToPlan r;
    r.run = CachedRunOf(l, advice, filter_partition_bytes);
    r.filter_entries =
        i < advice.filter_keys.size() ? advice.filter_keys[i] : l.entries;
    r.files = l.files;
    const bool ribbon =
        advice.filter == "ribbon" || (advice.filter == "auto" && l.level > 0);
    r.model = ribbon ? &kRibbon : &kBloom;
    runs.push_back(r);
  }
  return runs;
}

CacheAdvice AdviseForCache(const std::vector<AdvisorLevel>& levels,
                           const Advice& advice, const CacheLayout& cache) {
  CacheAdvice out;
  out.now = ExpectedBlockReads(
      CachedRunsNow(levels, advice, cache.partition_bytes), cache.cache_bytes);
  const std::vector<CacheRunToPlan> runs =
      CacheRunsToPlan(levels, advice, cache.partition_bytes);
  std::vector<double> bits_now;
  for (const AdvisorLevel& l : levels) {
    if (!(l.files > 0)) continue;
    const double entries = runs[bits_now.size()].filter_entries;
    bits_now.push_back(entries > 0 ? 8 * l.filter_bytes / entries : 0.0);
  }
  out.plan =
      PlanBitsForCache(runs, FprModel::FastLocalBloom(), cache, 0.5, &bits_now,
                       MostFilterBitsFor(cache, FilterBitsOf(runs, bits_now)));
  const double latency = cache.read_latency_bytes;
  if (!(out.plan.reads.Cost(latency) < out.now.Cost(latency))) {
    out.plan.bits = bits_now;
    out.plan.reads = out.now;
  }
  return out;
}

std::string Advise(const std::vector<AdvisorLevel>& levels,
                   const std::vector<LiveFile>& files, Advice* advice) {
  std::map<int, const AdvisorLevel*> by_level;
  const std::string error = CheckedLevels(levels, files, &by_level);
  if (!error.empty()) return error;
  const StoredKeyRates rate = RatesOf(by_level);

  Advice a;
  a.filter = SuggestedFilter(levels);
  const std::string tree_error = DescribeTree(by_level, files, rate, &a);
  if (!tree_error.empty()) return tree_error;

  // What a plan's millibits are worth here: Sum FPR by probes per lookup,
  // bits for the keys each level's filters would hold.
  auto count = [&](Plan* plan) {
    plan->sum_fpr = 0;
    plan->total_bits = 0;
    plan->filtered_entries = 0;
    for (size_t i = 0; i < plan->levels.size() && i < a.shape.size(); ++i) {
      if (!a.shape[i].filtered) continue;
      plan->sum_fpr += a.probes[i] * plan->levels[i].fpr;
      plan->total_bits +=
          a.filter_keys[i] * plan->levels[i].millibits_per_key / 1000.0;
      plan->filtered_entries += a.filter_keys[i];
    }
  };
  // The policy's plan: its millibits, computed its way.
  auto policy = [&](int millibits) {
    Plan plan =
        PolicyPlan(a.live, millibits / 1000.0, a.last_level_filter, a.filter);
    count(&plan);
    return plan;
  };
  // (PlanLiveTree declines only a tree with no keys to filter, or inputs
  // the planner refuses, e.g. more than 1e6 runs in a level.)
  if (policy(10000).levels.size() != a.shape.size()) {
    return "the policy makes no live plan for this tree";
  }
  auto finish = [&](int millibits, AdvisedPlan* p) {
    p->bits_per_key = millibits / 1000.0;
    p->plan = policy(millibits);
    p->filter_bytes = p->plan.total_bits / 8;
    p->options =
        MonkeyOptionsString(p->bits_per_key, a.last_level_filter, a.filter);
  };

  // Monkey at the same bytes: the most millibits whose filters fit in
  // today's bytes.
  const int fits = FirstMillibits([&](int m) {
                     return policy(m).total_bits / 8 > a.filter_bytes_now;
                   }) -
                   1;
  finish(std::max(fits, 0), &a.same_bytes);

  // Monkey at the same Sum FPR: the fewest millibits that keep it. The
  // string says bits_per_key=<those bits>, not a Sum FPR target: every
  // version of the policy takes bits_per_key, and on this tree those bits
  // keep today's Sum FPR. (A target, objective=memory;max_sum_fpr=, would
  // also hold it as the tree deepens, where the policy offers one.)
  const int keeps = FirstMillibits(
      [&](int m) { return policy(m).sum_fpr <= a.sum_fpr_now * (1 + 1e-12); });
  if (keeps > kMaxAdvisedMillibits) {
    a.same_fpr.error = "no bits_per_key up to 100 keeps today's Sum FPR with " +
                       a.filter + " filters";
  } else {
    finish(keeps, &a.same_fpr);
    a.saving = a.filter_bytes_now > 0
                   ? 1 - a.same_fpr.filter_bytes / a.filter_bytes_now
                   : 0;
  }

  // The frozen tree's optimum, as a bound: every level, L0 included,
  // planned for the tree as it stands, with its probes as runs and bits
  // counted on the same keys.
  Plan frozen;
  std::vector<LevelShape> held = a.shape;
  for (size_t i = 0; i < held.size(); ++i) {
    held[i].entries = a.filter_keys[i];
    held[i].runs = a.probes[i];
  }
  if (PlanLeastBits(held, a.sum_fpr_now,
                    ModelsForLevels(FilterChoiceOf(a.filter), held.size()),
                    &frozen)
          .empty()) {
    count(&frozen);
    a.frozen_filter_bytes = frozen.total_bits / 8;
  }
  *advice = std::move(a);
  return "";
}

}  // namespace monkey
