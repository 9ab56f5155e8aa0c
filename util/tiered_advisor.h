// The advisor's math for a tiered tree (`monkey_plan --db` on a database
// written under universal compaction): per sorted run -- each L0 file, and
// each non-empty level below (tiered_shape.h) -- what its filters give now,
// and what Monkey's tiered plan (tiered_plan.h) gives at the same filter
// bytes and at the same false positives. Pure math: no RocksDB in here;
// tools/advisor/ reads the database.
//
// The runs and their reach are the policy's (ProjectTieredRuns, no job in
// flight), and so are the plans: the tiered plan of every run rebuilt, as
// the filters the database holds were built under another policy. What a
// plan is worth is counted as util/advisor.h counts a level's: each run's
// filter probes per absent-key lookup by key position (ProbesPerLookup,
// each run as its own level) times its FPR. Summed, that is the expected
// false positives per absent-key lookup, the figure db_bench's readmissing
// measures: its false positives over its lookups. The oldest run, where it
// has no filter now (optimize_filters_for_hits, last_level_filter=false),
// keeps none, and stays out of the sums, as in the policy.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/advisor.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/tiered_shape.h"

namespace monkey {

// One suggestion for a tiered tree: its options string and, per run, what
// the tiered plan of that string builds.
struct TieredAdvisedPlan {
  std::string error;           // why there is no suggestion; "" if there is one
  double bits_per_key = 0;     // the string's bits_per_key
  std::vector<int> millibits;  // per run of TieredAdvice::runs
  std::vector<double> fpr;     // per run, by the model at its millibits
  double false_positives = 0;  // per absent-key lookup, filtered runs
  double filter_bytes = 0;     // of the filtered runs
  std::string options;         // id=monkey;bits_per_key=...;filter=...
};

struct TieredAdvice {
  // The runs now, newest first, in filter entries (FilterEntriesOf), with
  // the filter bits they hold and the policy's reach.
  TieredRuns runs;
  std::vector<double> probes;  // per run: filter probes per absent lookup
  std::vector<double> bits_per_key_now;  // per run, per filter entry
  std::vector<double> fpr_now;  // per run: the model's, 1 without filters
  std::string filter;           // the suggestions' filter= (SuggestedFilter)
  bool last_level_filter = true;
  double filtered_entries = 0;     // filter entries of the runs in the sums
  double false_positives_now = 0;  // sum of probes x fpr_now over them
  double filter_bytes_now = 0;
  double bits_per_key_now_total = 0;  // 8 filter_bytes_now / filtered
  TieredAdvisedPlan same_bytes;       // the false positives today's bytes buy
  TieredAdvisedPlan same_fpr;         // the least bytes for today's
  double saving = 0;  // 1 - same_fpr.filter_bytes / filter_bytes_now
};

// The advice for one column family written under universal compaction:
// `levels` as Advise takes them (each level's filter kind) and its SST
// files with the filters they hold (LiveFile::filter_known, filter_bits,
// filter_entries) and their largest_seqno. Returns "" and fills *advice,
// or what is wrong: no files, no filters, facts not finite and >= 0.
std::string AdviseTiered(const std::vector<AdvisorLevel>& levels,
                         const std::vector<LiveFile>& files,
                         TieredAdvice* advice);

}  // namespace monkey
