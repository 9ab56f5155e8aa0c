// The advisor's answers for a tiered tree. See tiered_advisor.h.
#include "monkey/util/tiered_advisor.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/tiered_plan.h"

namespace monkey {
namespace {

bool Valid(double x) { return std::isfinite(x) && x >= 0; }

constexpr int kMaxLevel = 64;  // as the planner (ValidatePlanInputs)

// Per run, filter probes per absent-key lookup by key position: what
// ProbesPerLookup counts for a level, each run taken as a level of its own.
std::vector<double> ProbesPerRun(const std::vector<LiveFile>& files,
                                 const TieredRuns& runs) {
  std::vector<LiveFile> as_levels;
  for (size_t i = 0; i < files.size(); ++i) {
    if (runs.run_of_file[i] < 0) continue;
    as_levels.push_back(files[i]);
    as_levels.back().level = runs.run_of_file[i] + 1;
  }
  const std::vector<double> by_level = ProbesPerLookup(as_levels);
  std::vector<double> probes(runs.runs.size(), 0.0);
  for (size_t r = 0; r < probes.size(); ++r) {
    if (r + 1 < by_level.size()) probes[r] = by_level[r + 1];
  }
  return probes;
}

}  // namespace

std::string AdviseTiered(const std::vector<AdvisorLevel>& levels,
                         const std::vector<LiveFile>& files,
                         TieredAdvice* advice) {
  if (files.empty()) return "no SST files";
  double filter_bits = 0;
  for (const LiveFile& f : files) {
    if (f.level < 0 || f.level >= kMaxLevel) {
      return "a file at level " + std::to_string(f.level) + ", outside [0, 64)";
    }
    if (!Valid(f.entries) || !Valid(f.bytes) || !Valid(f.filter_bits) ||
        !Valid(f.filter_entries)) {
      return "file facts must be finite and >= 0";
    }
    filter_bits += f.filter_bits;
  }
  if (!(filter_bits > 0)) return "no filters";
  std::map<int, std::string> kind_at;
  for (const AdvisorLevel& l : levels) kind_at[l.level] = l.filter;

  TieredAdvice a;
  a.runs = ProjectTieredRuns(files, LiveJob{}, 0);
  const std::vector<SortedRun>& runs = a.runs.runs;
  if (runs.empty()) return "no sorted runs with keys";
  a.probes = ProbesPerRun(files, a.runs);
  a.filter = SuggestedFilter(levels);
  a.last_level_filter = runs.back().filter_bits > 0;
  const size_t counted = a.last_level_filter ? runs.size() : runs.size() - 1;
  // A run's FPR now: each file's at its filter body's bits (the report's
  // model, FilterBodyBitsPerKey), weighted by its share of the run's
  // filter entries, the share of the run's lookups it takes for keys
  // spread evenly. Averaging the bits instead would count each file's
  // metadata as bits and miss that the FPR is convex in them.
  std::vector<double> weighted_fpr(runs.size(), 0), weight(runs.size(), 0);
  for (size_t f = 0; f < files.size(); ++f) {
    const int r = a.runs.run_of_file[f];
    if (r < 0 || !(files[f].filter_bits > 0)) continue;
    const FilterChoice kind = kind_at[runs[r].level] == "ribbon"
                                  ? FilterChoice::kRibbon
                                  : FilterChoice::kBloom;
    const double body = FilterBodyBitsPerKey(
        static_cast<uint64_t>(std::llround(files[f].filter_bits / 8)),
        static_cast<uint64_t>(std::llround(files[f].filter_entries)));
    const double fpr =
        body > 0 ? ModelForLevel(kind, runs[r].level).FalsePositiveRate(body)
                 : 1;
    weighted_fpr[r] += files[f].filter_entries * fpr;
    weight[r] += files[f].filter_entries;
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const SortedRun& run = runs[i];
    const double bits = run.entries > 0 ? run.filter_bits / run.entries : 0;
    a.bits_per_key_now.push_back(bits);
    a.fpr_now.push_back(weight[i] > 0 ? weighted_fpr[i] / weight[i] : 1);
    a.filter_bytes_now += run.filter_bits / 8;
    if (i < counted) {
      a.filtered_entries += run.entries;
      a.false_positives_now += a.probes[i] * a.fpr_now[i];
    }
  }
  a.bits_per_key_now_total =
      a.filtered_entries > 0 ? 8 * a.filter_bytes_now / a.filtered_entries : 0;

  // What the tiered plan at `millibits` builds, every run rebuilt, and
  // what it is worth here. False where nothing can be planned.
  const FilterChoice choice = FilterChoiceOf(a.filter);
  std::vector<SortedRun> rebuilt = runs;
  for (SortedRun& run : rebuilt) {
    run.building = true;
    run.filter_bits = 0;
  }
  auto plan = [&](int millibits, TieredAdvisedPlan* p) {
    TieredPlanOptions options;
    options.bits_per_key = millibits / 1000.0;
    options.filter = choice;
    options.last_level_filter = a.last_level_filter;
    TieredPlan tiered;
    if (!(millibits > 0) || !PlanTieredTree(rebuilt, options, &tiered)) {
      return false;
    }
    p->bits_per_key = options.bits_per_key;
    p->millibits = tiered.millibits;
    p->fpr.clear();
    p->false_positives = 0;
    p->filter_bytes = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      const int m = tiered.millibits[i];
      p->fpr.push_back(m > 0 ? ModelForLevel(choice, runs[i].level)
                                   .FalsePositiveRate(m / 1000.0)
                             : 1.0);
      if (i < counted) {
        p->false_positives += a.probes[i] * p->fpr.back();
        p->filter_bytes += runs[i].entries * m / 8000.0;
      }
    }
    p->options =
        MonkeyOptionsString(p->bits_per_key, a.last_level_filter, a.filter);
    return true;
  };

  // Monkey at the same bytes: the most millibits whose filters fit in
  // today's bytes.
  TieredAdvisedPlan probe;
  const int fits =
      FirstMillibits([&](int m) {
        return plan(m, &probe) && probe.filter_bytes > a.filter_bytes_now;
      }) -
      1;
  if (!plan(fits, &a.same_bytes)) {
    a.same_bytes.error = "no bits_per_key fits today's filter bytes";
  }
  // Monkey at the same false positives: the fewest millibits that keep
  // them.
  const int keeps = FirstMillibits([&](int m) {
    return plan(m, &probe) &&
           probe.false_positives <= a.false_positives_now * (1 + 1e-12);
  });
  if (keeps > kMaxAdvisedMillibits || !plan(keeps, &a.same_fpr)) {
    a.same_fpr = TieredAdvisedPlan();
    a.same_fpr.error =
        "no bits_per_key up to 100 keeps today's false positives with " +
        a.filter + " filters";
  } else {
    a.saving = a.filter_bytes_now > 0
                   ? 1 - a.same_fpr.filter_bytes / a.filter_bytes_now
                   : 0;
  }
  *advice = std::move(a);
  return "";
}

}  // namespace monkey
