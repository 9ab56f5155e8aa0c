// The bits a tiered tree's flush or compaction builds its sorted run with:
// the tiered plan (tiered_plan.h) of the runs the job leaves
// (tiered_shape.h). Pure: no RocksDB in here. table/shape_listener.cc plans
// each job once, at its first file, and every file the job writes -- each
// output of each subcompaction -- gets its run's bits, as one run's files
// share one FPR at the optimum.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/live_shape.h"
#include "monkey/util/tiered_plan.h"
#include "monkey/util/tiered_shape.h"

namespace monkey {

struct TieredJobPlan {
  TieredRuns runs;  // the runs once the job is done, newest first
  TieredPlan plan;  // per run of `runs`
  // Per run, once the job is done: its bits per key and FPR (a built run
  // at its own bits, the job's at the plan's).
  std::vector<double> bits_per_key, fpr;
  int millibits = 0;    // the job's run's real millibits per key; 0: none
  bool oldest = false;  // the job's run is the oldest (RocksDB's bottommost)
  // A compaction's runs, but for its oldest input, priced with the tree as
  // runs yet to be built: they grow back above the job's run (tiered_job.cc).
  int regrowing = 0;
};

// The plan for `job` of the tree of `files` (ProjectTieredRuns, unknown
// filters at the budget; other compactions `in_flight` projected as done),
// priced with the runs a compaction merges, but for its oldest, as runs to
// be built at half their keys: they grow back above its run (not for a
// manual compaction: LiveJob::manual). A flush alone in the tree gets the
// budget: one run's optimum, and what RocksDB's own rule (a flush is never
// bottommost) builds under last_level_filter=false. False where the job
// builds no run with keys or nothing can be planned; the caller then
// builds the budget.
bool PlanTieredJob(const std::vector<LiveFile>& files, const LiveJob& job,
                   const TieredPlanOptions& options, TieredJobPlan* out,
                   const std::vector<CompactionInFlight>& in_flight = {});

// The plan as the policy's PlanToString shows it: per run, newest first,
// its level, keys, reach, bits per key and FPR, the job's run marked; then
// the expected false positives per absent-key lookup and bits per key.
std::string FormatTieredJobPlan(const TieredJobPlan& job);

}  // namespace monkey
