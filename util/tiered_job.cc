// The bits of a tiered tree's new run. See tiered_job.h.
#include "monkey/util/tiered_job.h"

#include <cstdio>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {

bool PlanTieredJob(const std::vector<LiveFile>& files, const LiveJob& job,
                   const TieredPlanOptions& options, TieredJobPlan* out) {
  TieredJobPlan result;
  result.runs = ProjectTieredRuns(files, job, options.bits_per_key);
  const int building = result.runs.building;
  if (building < 0) return false;
  const std::vector<SortedRun>& runs = result.runs.runs;
  const SortedRun& run = runs[building];
  result.oldest = building + 1 == static_cast<int>(runs.size());
  if (runs.size() == 1) {
    result.millibits = BudgetMillibits(
        options.bits_per_key, ModelForLevel(options.filter, run.level));
    const double bits = result.millibits / 1000.0;
    result.plan.millibits = {result.millibits};
    result.plan.bits_per_key = bits;
    result.plan.false_positives =
        run.reach *
        ModelForLevel(options.filter, run.level).FalsePositiveRate(bits);
  } else {
    if (!PlanTieredTree(runs, options, &result.plan)) return false;
    result.millibits = result.plan.millibits[building];
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const double bits = runs[i].building ? result.plan.millibits[i] / 1000.0
                        : runs[i].entries > 0
                            ? runs[i].filter_bits / runs[i].entries
                            : 0;
    result.bits_per_key.push_back(bits);
    result.fpr.push_back(bits > 0 ? ModelForLevel(options.filter, runs[i].level)
                                        .FalsePositiveRate(bits)
                                  : 1.0);
  }
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
  return out;
}

}  // namespace monkey
