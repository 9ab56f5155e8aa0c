// The bits of a tiered tree's new run. See tiered_job.h.
#include "monkey/util/tiered_job.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <set>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/price_search.h"

namespace monkey {
namespace {

// The runs a compaction merges into its run, but for the oldest of them,
// as runs yet to be built: the tree's newer runs come back. Under
// universal compaction flushes refill the top of the tree, and merges of
// them its middle, before the merged run is merged again, so the run
// spends its life under runs like those it absorbed, not under the few the
// job leaves; most of all a run that a full merge leaves alone in the
// tree, which planned for that tree would get the whole budget and starve
// every flush built above it. Priced with them, it gets the bits the tree
// as it was before the job is worth: the newest runs, small, take the
// most. A flush absorbs no run: none.
std::vector<SortedRun> RegrowingRuns(const std::vector<LiveFile>& files,
                                     const LiveJob& job,
                                     double unknown_bits_per_key) {
  if (job.flush || job.input_files.empty()) return {};
  const TieredRuns before =
      ProjectTieredRuns(files, LiveJob{}, unknown_bits_per_key);
  std::set<int> inputs;
  for (size_t i = 0; i < files.size(); ++i) {
    if (before.run_of_file[i] >= 0 &&
        std::count(job.input_files.begin(), job.input_files.end(),
                   files[i].number) > 0) {
      inputs.insert(before.run_of_file[i]);
    }
  }
  if (!inputs.empty()) inputs.erase(std::prev(inputs.end()));  // the oldest
  std::vector<SortedRun> regrowing;
  for (int r : inputs) {
    SortedRun run = before.runs[r];
    run.building = true;
    run.filter_bits = 0;
    regrowing.push_back(run);
  }
  return regrowing;
}

// The least millibits at which the job's run leaves the tree the job
// leaves -- the built runs at their own bits -- at the budget's band edge,
// (1 - kUnderBand) of the budget; 0 where it already is. Priced for runs
// that have not grown back yet, a merged run would leave that tree under
// the budget until they have: a full merge, most of all, whose run alone
// is then the whole tree, at bits well below a lone run's optimum (the
// budget) and below what bloomfilter:k would have given it. Filters are
// immutable, so the run takes the bits that tree needs now, and the runs
// that grow back above it share what is left, as they would above a run
// built at the edge by the band's correction (tiered_plan.h).
int BandFloorMillibits(const std::vector<SortedRun>& runs, int building,
                       const TieredPlanOptions& options) {
  double keys = 0, sunk_bits = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!options.last_level_filter && i + 1 == runs.size()) continue;
    keys += runs[i].entries;
    if (static_cast<int>(i) != building) sunk_bits += runs[i].filter_bits;
  }
  const double entries = runs[building].entries;
  const double need =
      (1 - kUnderBand) * options.bits_per_key * keys - sunk_bits;
  if (!(need > 0 && entries > 0)) return 0;
  return static_cast<int>(std::ceil(1000 * need / entries));
}

}  // namespace

bool PlanTieredJob(const std::vector<LiveFile>& files, const LiveJob& job,
                   const TieredPlanOptions& options, TieredJobPlan* out) {
  TieredJobPlan result;
  result.runs = ProjectTieredRuns(files, job, options.bits_per_key);
  const int building = result.runs.building;
  if (building < 0) return false;
  const std::vector<SortedRun>& runs = result.runs.runs;
  const SortedRun& run = runs[building];
  result.oldest = building + 1 == static_cast<int>(runs.size());
  // Planned with the runs that will grow back above the job's, newest
  // first, as runs yet to be built; the plan kept is the job's tree's.
  std::vector<SortedRun> planned =
      RegrowingRuns(files, job, options.bits_per_key);
  result.regrowing = static_cast<int>(planned.size());
  planned.insert(planned.end(), runs.begin(), runs.end());
  if (planned.size() == 1) {
    result.millibits = BudgetMillibits(
        options.bits_per_key, ModelForLevel(options.filter, run.level));
    const double bits = result.millibits / 1000.0;
    result.plan.millibits = {result.millibits};
    result.plan.bits_per_key = bits;
    result.plan.false_positives =
        run.reach *
        ModelForLevel(options.filter, run.level).FalsePositiveRate(bits);
  } else {
    if (!PlanTieredTree(planned, options, &result.plan)) return false;
    std::vector<int>& millibits = result.plan.millibits;
    millibits.erase(millibits.begin(), millibits.begin() + result.regrowing);
    result.millibits = millibits[building];
  }
  // No lower than the band's edge for the tree the job leaves, and no
  // higher than the plan for that tree alone would give the run. Under
  // Objective::kMemory the bits buy a target, not a budget: no floor.
  const bool filtered = options.last_level_filter || !result.oldest;
  if (result.regrowing > 0 && filtered && result.millibits > 0 &&
      options.objective != Objective::kMemory) {
    TieredPlan alone;
    const int cap =
        runs.size() == 1
            ? BudgetMillibits(options.bits_per_key,
                              ModelForLevel(options.filter, run.level))
        : PlanTieredTree(runs, options, &alone) ? alone.millibits[building]
                                                : result.millibits;
    const int floor =
        std::min(cap, BandFloorMillibits(runs, building, options));
    if (floor > result.millibits) {
      result.millibits = floor;
      result.plan.millibits[building] = floor;
      result.floored = true;
    }
  }
  // The job's tree once it is done: built runs at their own bits, the
  // job's at the plan's (the regrowing runs are not built yet).
  double fp = 0, bits_total = 0, keys = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double bits = runs[i].building ? result.plan.millibits[i] / 1000.0
                        : runs[i].entries > 0
                            ? runs[i].filter_bits / runs[i].entries
                            : 0;
    result.bits_per_key.push_back(bits);
    result.fpr.push_back(bits > 0 ? ModelForLevel(options.filter, runs[i].level)
                                        .FalsePositiveRate(bits)
                                  : 1.0);
    fp += runs[i].reach * result.fpr.back();
    if (options.last_level_filter || i + 1 < runs.size()) {
      bits_total += runs[i].entries * bits;
      keys += runs[i].entries;
    }
  }
  result.plan.false_positives = fp;
  result.plan.bits_per_key = keys > 0 ? bits_total / keys : 0;
  *out = std::move(result);
  return true;
}

std::string FormatTieredJobPlan(const TieredJobPlan& job) {
  std::string out;
  char line[160];
  snprintf(line, sizeof(line), "%-4s %-5s %12s %8s | %9s %10s\n", "run",
           "level", "keys", "reach", "bits/key", "FPR");
  out += line;
  const std::vector<SortedRun>& runs = job.runs.runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    const SortedRun& run = runs[i];
    snprintf(line, sizeof(line), "%-4zu L%-4d %12.0f %8.4f | %9.3f %9.5f%%%s\n",
             i, run.level, run.entries, run.reach, job.bits_per_key[i],
             job.fpr[i] * 100, run.building ? "  <- this job" : "");
    out += line;
  }
  snprintf(line, sizeof(line),
           "false positives per absent-key lookup %.5f, %.3f bits/key\n",
           job.plan.false_positives, job.plan.bits_per_key);
  out += line;
  if (job.regrowing > 0) {
    snprintf(line, sizeof(line),
             "priced with the %d runs it merges above its oldest input, to "
             "grow back%s\n",
             job.regrowing,
             job.floored ? "; raised to the budget's band edge" : "");
    out += line;
  }
  return out;
}

}  // namespace monkey
