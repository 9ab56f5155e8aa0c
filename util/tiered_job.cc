// The bits of a tiered tree's new run. See tiered_job.h.
#include "monkey/util/tiered_job.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <set>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {
namespace {

// The share of its keys a regrowing run is priced at. The runs above a
// merged run grow back from none to about their size before it is merged
// again, at a steady write rate linearly: over the merged run's life each
// holds half its keys on average. Priced at their full size, for the
// fullest tree it lives under, the run took the fewest bits of any moment
// of its life: at full size the 1M-key universal sweep's trees paid up to
// 1.46x the optimum's false positives and 3 of 12 sat over 5% under the
// budget; at half, 1.33x and none
// (bench/results/20261207-c6ea107-tiered-budget,
// bench/results/20261207-8b51501-tiered-budget).
constexpr double kRegrowingShare = 0.5;

// The runs a compaction merges into its run, but for the oldest of them, as
// runs yet to be built, at kRegrowingShare of their keys: the tree's newer runs
// come back. Under universal compaction flushes refill the top of the tree, and
// merges of them its middle, before the merged run is merged again, so the run
// spends its life under runs like those it absorbed, not under the few the job
// leaves; most of all a run that a full merge leaves alone in the tree, which
// planned for that tree would get the whole budget and starve every flush built
// above it. Priced with them, it gets the bits the tree as it was before the
// job is worth: the newest runs, small, take the most. A flush absorbs no run:
// none. A manual compaction none either: its caller asked for the tree it
// leaves, typically one run after a bulk load, with no writes to grow runs
// back. Priced for runs that do not come back, a lone run holds too few bits
// for good: 7.8 bits per key under monkey:10, 0.025 false positives per lookup,
// in trees at rest right after an automatic full merge
// (bench/results/20261207-98ab382-tiered-budget).
std::vector<SortedRun> RegrowingRuns(
    const std::vector<LiveFile>& files, const LiveJob& job,
    double unknown_bits_per_key,
    const std::vector<CompactionInFlight>& in_flight) {
  if (job.flush || job.manual || job.input_files.empty()) return {};
  const TieredRuns before =
      ProjectTieredRuns(files, LiveJob{}, unknown_bits_per_key, in_flight);
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
    run.entries *= kRegrowingShare;
    run.building = true;
    run.filter_bits = 0;
    regrowing.push_back(run);
  }
  return regrowing;
}

}  // namespace

bool PlanTieredJob(const std::vector<LiveFile>& files, const LiveJob& job,
                   const TieredPlanOptions& options, TieredJobPlan* out,
                   const std::vector<CompactionInFlight>& in_flight) {
  TieredJobPlan result;
  result.runs = ProjectTieredRuns(files, job, options.bits_per_key, in_flight);
  const int building = result.runs.building;
  if (building < 0) return false;
  const std::vector<SortedRun>& runs = result.runs.runs;
  const SortedRun& run = runs[building];
  result.oldest = building + 1 == static_cast<int>(runs.size());
  // Planned with the runs that will grow back above the job's, newest
  // first, as runs yet to be built; the plan kept is the job's tree's.
  std::vector<SortedRun> planned =
      RegrowingRuns(files, job, options.bits_per_key, in_flight);
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
             "grow back\n",
             job.regrowing);
    out += line;
  }
  return out;
}

}  // namespace monkey
