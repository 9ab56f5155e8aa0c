// The advisor's math (`monkey_plan --db`): from the per-level facts of an
// existing database -- files, keys, filter bytes and filter kinds, read from
// its table properties -- to three answers:
//   1. now: its Sum FPR, by the FPR model of the filters it holds, and its
//      filter bytes;
//   2. Monkey at the same filter bytes: the Sum FPR they buy;
//   3. Monkey at the same Sum FPR: the least filter bytes that keep it, and
//      the share saved;
// with the Monkey options string for 2 and 3. Pure math: no RocksDB in
// here; tools/advisor/ reads the database.
//
// The shape planned is the database's own: level i holds the keys of its
// files in files (L0) or 1 runs; the deepest level with files is the last.
// Where the last level carries no filter (optimize_filters_for_hits, or
// Monkey's last_level_filter=false), the suggestions keep it that way, and
// its keys and FPR stay out of the sums, as they do in the policy.
//
// The answers are what the policy would build on this tree with the
// suggested string: its live plan (util/live_plan.h, the code the policy
// runs), which budgets the tree L0's keys are going to (L0 folded into the
// level below) and gives L0's runs what that plan's price buys on top. So
// bits_per_key is found by bisection on that plan: the most that keeps
// today's filter bytes, and the least that keeps today's Sum FPR. Planning
// the tree as frozen (L0 in the budget, PlanBitsPerKey and PlanLeastBits on
// the shape) promised more than a rebuilt database realized: on a 16M-key
// bloomfilter:10 database with a fresh L0, 15.0% saved where the rebuild
// saved 12.3%; predicted this way, 17.86% against 18.14% realized
// (docs/advisor.md). That frozen optimum is still given, as a bound.
#pragma once

#include <string>
#include <vector>

#include "util/filter_fpr_model.h"
#include "util/monkey_bpk.h"

namespace monkey {

// What the table properties of one level's files say.
struct AdvisorLevel {
  int level = 0;
  double files = 0;
  double entries = 0;             // num_entries of all its files
  double filter_entries = 0;      // num_filter_entries: keys with a filter
  double unfiltered_entries = 0;  // num_entries of its files with no filter
  double filter_bytes = 0;        // filter_size
  // "bloom", "ribbon", "mixed" or "none" (FilterReport's filter kinds).
  std::string filter = "none";
  // The model FPR of the level's filters (FilterReport's model_fpr: each
  // file by its own kind and bits, weighted by its key range); ignored
  // without filters.
  double model_fpr = 1;
  // Filter probes per absent-key lookup here, with lookups spread evenly
  // over the column family's key space: the share of it the level's files
  // cover (util/key_space.h), summed over L0's files. Below 0: unknown,
  // taken as its runs (L0 files, or 1).
  double probes = -1;
};

// One suggestion: the options string, its plan and what it predicts.
struct AdvisedPlan {
  std::string error;        // why there is no suggestion; "" if there is one
  double bits_per_key = 0;  // the string's bits_per_key
  // What the policy builds with it on this tree: per level of
  // Advice::shape, its bits and FPR, and the totals (its total_bits / 8 are
  // filter_bytes; its sum_fpr counts Advice::probes per level).
  Plan plan;
  double filter_bytes = 0;
  std::string options;  // id=monkey;bits_per_key=...;filter=...
};

struct Advice {
  // The shape planned, indexed by level number (empty levels: no runs):
  // runs as the policy counts them, L0 files or 1.
  std::vector<LevelShape> shape;
  // Per level: filter probes per absent-key lookup (AdvisorLevel::probes),
  // what Sum FPRs here count, and the FPR of one run now.
  std::vector<double> probes;
  std::vector<double> fpr_now;
  std::string filter;  // the suggestions' filter=
  bool last_level_filter = true;
  double filtered_entries = 0;  // keys of the levels in the sums
  double sum_fpr_now = 0;       // sum of probes * fpr_now, filtered levels
  double filter_bytes_now = 0;
  double bits_per_key_now = 0;  // 8 filter_bytes_now / filtered_entries
  AdvisedPlan same_bytes;       // its plan.sum_fpr: the Sum FPR it buys
  AdvisedPlan same_fpr;
  double saving = 0;  // 1 - same_fpr.filter_bytes / filter_bytes_now
  // The least filter bytes that keep sum_fpr_now with the tree frozen as it
  // is, L0's runs in the budget (PlanLeastBits on `shape` with `probes` as
  // runs); 0 if none.
  double frozen_filter_bytes = 0;
};

// What a Monkey policy with these options builds on `shape` (levels by
// number; runs and entries as they are, `filtered` ignored): its live plan,
// with no filters built yet and no L0 files moved down whole. Per level of
// the returned plan, bits and FPR; totals over the filtered levels.
Plan PolicyPlan(const std::vector<LevelShape>& shape, double bits_per_key,
                bool last_level_filter, const std::string& filter);

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

// The three answers for one column family's levels (in any order, each
// level at most once). Returns "" and fills *advice, or what is wrong:
// no levels with files, no filters, or facts that are not finite and >= 0.
// A suggestion that cannot be made (e.g. a Sum FPR below what the suggested
// filters reach) has its AdvisedPlan::error set instead.
std::string Advise(const std::vector<AdvisorLevel>& levels, Advice* advice);

}  // namespace monkey
