// The advisor's math (`monkey_plan --db`): from the per-level facts of an
// existing database -- files, keys, filter bytes and filter kinds, read from
// its table properties -- and its files' key ranges, to three answers:
//   1. now: its Sum FPR, by the FPR model of the filters it holds, and its
//      filter bytes;
//   2. Monkey at the same filter bytes: the Sum FPR they buy;
//   3. Monkey at the same Sum FPR: the least filter bytes that keep it, and
//      the share saved;
// with the Monkey options string for 2 and 3. Pure math: no RocksDB in
// here; tools/advisor/ reads the database.
//
// The shape planned is the one the policy's listener would publish for
// this database: ProjectLiveShape (util/live_shape.h) of its files, no job
// in flight, each run weighted by the reach the policy estimates for it.
// The deepest level with files is the last. Where it carries no filter
// (optimize_filters_for_hits, or Monkey's last_level_filter=false), the
// suggestions keep it that way, and its keys and FPR stay out of the sums,
// as they do in the policy.
//
// Every Sum FPR here, now and planned, counts each level's filter probes
// per absent-key lookup, with lookups spread evenly over the key space by
// key position (ProbesPerLookup, on util/key_range.h's KeySpace: bytes in
// base 256, or over the values seen where the keys are text). That is a second
// estimate of what the policy's reach estimates (KeyShareInRange, rank space),
// kept on purpose: the policy's must not depend on how keys are spelled, and
// spreads each file's keys evenly over the stretches between file ends, which
// is coarse where a level's ends fall inside the files below it. On a 16M-key
// db_bench database readmissing probed L0's three files 2,999,981 times
// and L1's 810,317 times in 1,000,000 lookups: byte positions say 3.000
// and 0.811, rank space 2.817 and 0.656 (docs/advisor.md). The policy's
// bits are the policy's, computed its way; only what they are worth is
// counted with the probes.
//
// The answers are what the policy would build on this tree with the
// suggested string: its live plan (util/live_plan.h, PlanLiveTree, the
// code the policy runs, on the same LiveLevels), with no filters counted as
// built -- the filters the database holds now were built under another
// policy, and a rebuild replaces them all. That plan prices bits where the
// live tree, L0's files at their own bits, spends the budget. So
// bits_per_key is found by bisection on that plan: the most that keeps
// today's filter bytes, and the least that keeps today's Sum FPR. The
// frozen tree's optimum (PlanLeastBits on the shape) is given too, as a
// bound: the policy plans L1 and below for the tree L0's keys are going
// to, not for the tree as it stands.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/cache_cost.h"
#include "monkey/util/cache_plan.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {

// What the table properties of one level's files say.
struct AdvisorLevel {
  int level = 0;
  double files = 0;
  double entries = 0;  // num_entries of all its files: stored keys
  // num_filter_entries of its files: what their filters hold (keys,
  // prefixes, or both); realized bits are per filter entry.
  double filter_entries = 0;
  double unfiltered_entries = 0;  // num_entries of its files with no filter
  double filter_bytes = 0;        // filter_size
  // "bloom", "ribbon", "mixed" or "none" (FilterReport's filter kinds).
  std::string filter = "none";
  // The model FPR of the level's filters (FilterReport's model_fpr: each
  // file by its own kind and bits, weighted by its key range); ignored
  // without filters.
  double model_fpr = 1;
  // What a lookup may read of the level besides its filters (table
  // properties): its index below any top level, in `index_blocks` blocks
  // (a file's index partitions, or its one index block), and its data.
  double index_bytes = 0;
  double index_blocks = 0;
  double data_bytes = 0;
  double data_blocks = 0;
};

// One suggestion: the options string, its plan and what it predicts.
struct AdvisedPlan {
  std::string error;        // why there is no suggestion; "" if there is one
  double bits_per_key = 0;  // the string's bits_per_key
  // What the policy builds with it on this tree: per level of
  // Advice::shape, its millibits and FPR; sum_fpr counts Advice::probes per
  // level, total_bits the filter entries its filters hold
  // (Advice::filter_keys).
  Plan plan;
  double filter_bytes = 0;  // plan.total_bits / 8
  std::string options;      // id=monkey;bits_per_key=...;filter=...
};

struct Advice {
  // The live shape the policy's listener would publish for this database:
  // ProjectLiveShape of its files in filter entries (each file's keys at
  // its level's filter entries per key), no job in flight, no filter known
  // as built.
  std::vector<LiveLevel> live;
  // The same per level (empty levels: no keys, no runs), with the last
  // level unfiltered where it has no filters now.
  std::vector<LevelShape> shape;
  // Per level: filter probes per absent-key lookup (ProbesPerLookup), what
  // the Sum FPRs here count.
  std::vector<double> probes;
  // Per level: the filter entries its filters would hold (num_filter_entries,
  // plus the keys of its files without a filter at the level's filter
  // entries per key; a level with no filter now: its keys at the tree's
  // rate), and the FPR of one run now (its files' by their stored keys).
  std::vector<double> filter_keys;
  std::vector<double> fpr_now;
  std::string filter;  // the suggestions' filter=
  bool last_level_filter = true;
  double filtered_entries = 0;  // filter_keys of the levels in the sums
  double sum_fpr_now = 0;       // sum of probes * fpr_now, filtered levels
  double filter_bytes_now = 0;
  // 8 filter_bytes_now / filtered_entries: per filter entry.
  double bits_per_key_now = 0;
  AdvisedPlan same_bytes;  // its plan.sum_fpr: the Sum FPR it buys
  AdvisedPlan same_fpr;
  double saving = 0;  // 1 - same_fpr.filter_bytes / filter_bytes_now
  // The least filter bytes that keep sum_fpr_now with the tree frozen as it
  // is, L0's runs planned with the rest (PlanLeastBits on `shape` with
  // `probes` as runs); 0 if none.
  double frozen_filter_bytes = 0;
};

// What a Monkey policy with these options builds for a column family whose
// listener publishes `live`: its live plan (PlanLiveTree). Per level of
// the returned plan, millibits and FPR; totals over the live shape's
// filtered levels. An empty plan where the policy has no live plan.
Plan PolicyPlan(const std::vector<LiveLevel>& live, double bits_per_key,
                bool last_level_filter, const std::string& filter);

// Filter probes per absent-key lookup at each level (indexed by level, up
// to the deepest with files), with lookups spread evenly over the key space
// the files span, by key position (a KeySpace of every file end): a level
// below L0 counts the share its files' ranges cover, at most 1; L0 each
// file's share. Exact for keys whose bytes are uniform (db_bench's) and for
// decimal ids (grow_tree's); 1 per file and per level when the span is a
// single point.
std::vector<double> ProbesPerLookup(const std::vector<LiveFile>& files);

// The FilterChoice a suggestion's filter= names ("bloom" for any other).
FilterChoice FilterChoiceOf(const std::string& filter);

// The advisor's bits_per_key, in millibits: up to RocksDB's 100 a key.
inline constexpr int kMaxAdvisedMillibits = 100000;

// The least millibits in [0, kMaxAdvisedMillibits] where `holds` turns
// true (false below, true from there on); kMaxAdvisedMillibits + 1 if it
// never does. How a suggestion's bits_per_key is found: on the policy's
// own plan, which is monotone in it.
template <typename Holds>
int FirstMillibits(Holds holds) {
  int lo = 0, hi = kMaxAdvisedMillibits + 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (holds(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// True if some level holds filter bytes.
bool HasFilters(const std::vector<AdvisorLevel>& levels);

// The filter= a suggestion keeps: "bloom" or "ribbon" where every filtered
// level has that kind, "auto" for Bloom at L0 and Ribbon below, else the
// kind of the most filtered keys below L0.
std::string SuggestedFilter(const std::vector<AdvisorLevel>& levels);

// "id=monkey;bits_per_key=<b>[;last_level_filter=false];filter=<filter>",
// with b to 1/1000 (RocksDB's resolution), trailing zeros dropped.
std::string MonkeyOptionsString(double bits_per_key, bool last_level_filter,
                                const std::string& filter);

// The levels as the block cache sees them now (util/cache_cost.h): one
// CachedRun per level with files, reached by its probes per lookup, passing
// keys at its FPR now, its filters in blocks of `filter_partition_bytes`
// (partitioned filters; at least one a file) or, for 0, one block a file.
std::vector<CachedRun> CachedRunsNow(const std::vector<AdvisorLevel>& levels,
                                     const Advice& advice,
                                     double filter_partition_bytes);

// The levels to plan for a block cache (util/cache_plan.h): as
// CachedRunsNow sees them, each with the filter entries its filters would
// hold (Advice::filter_keys) and the FPR model of `filter` at its level
// ("auto": Bloom at L0, Ribbon below), as the policy would build them.
std::vector<CacheRunToPlan> CacheRunsToPlan(
    const std::vector<AdvisorLevel>& levels, const Advice& advice,
    double filter_partition_bytes);

// The advisor's answer for a block cache (`monkey_plan --db --cache_bytes`):
// the levels' reads through `cache` now, and the bits per level with files
// that cost the least (BlockReads::Cost), planned from the bits now (8 x
// a level's filter bytes / its filter entries) and within their filter
// memory: a plan up to the cache's edge goes over it as the tree grows
// (docs/design.md#objective-io). The plan prices each level at the model's
// FPR for its bits, `now` each file at its own (they differ by up to 1% on
// small files), so a plan that costs no less than `now` is the bits now.
struct CacheAdvice {
  BlockReads now;
  CachePlan plan;
};
CacheAdvice AdviseForCache(const std::vector<AdvisorLevel>& levels,
                           const Advice& advice, const CacheLayout& cache);

// The three answers for one column family: `levels` (in any order, each
// level at most once) and its SST files, as the listener describes them
// (number, level, entries, bytes, key range; filters are not read). Returns
// "" and fills *advice, or what is wrong: no levels with files, no
// filters, facts that are not finite and >= 0, or files and levels that do
// not match. A suggestion that cannot be made (e.g. a Sum FPR below what
// the suggested filters reach) has its AdvisedPlan::error set instead.
std::string Advise(const std::vector<AdvisorLevel>& levels,
                   const std::vector<LiveFile>& files, Advice* advice);

}  // namespace monkey
