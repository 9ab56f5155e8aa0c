// Tests of PlanTieredJob (util/tiered_job.h): the bits a tiered tree's flush
// or compaction builds its run with.
#include "monkey/util/tiered_job.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"

namespace monkey {
namespace {

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}

LiveFile File(uint64_t number, int level, double entries, uint64_t seqno,
              double bits = 10) {
  LiveFile f;
  f.number = number;
  f.level = level;
  f.entries = entries;
  f.bytes = 100 * entries;
  f.smallest = Key(0);
  f.largest = Key(999);
  f.largest_seqno = seqno;
  f.filter_known = true;
  f.filter_bits = bits * entries;
  f.filter_entries = entries;
  return f;
}

LiveJob Flush(double entries) {
  LiveJob job;
  job.flush = true;
  job.flush_entries = entries;
  return job;
}

LiveJob Compaction(int output_level, std::vector<uint64_t> inputs) {
  LiveJob job;
  job.output_level = output_level;
  job.input_files = std::move(inputs);
  return job;
}

// Two L0 runs over a big L6, all at 10 bits/key: a universal tree whose
// filters were built at the budget.
std::vector<LiveFile> Tree() {
  return {File(30, 0, 1000, 90), File(29, 0, 4000, 80),
          File(10, 6, 100000, 10)};
}

TieredPlanOptions Budget(double bits_per_key, bool last_level_filter = true) {
  TieredPlanOptions options;
  options.bits_per_key = bits_per_key;
  options.last_level_filter = last_level_filter;
  return options;
}

TEST(TieredJobTest, AFlushRunGetsMoreBitsThanTheBudget) {
  // The new run is small and probed by every lookup: at one price for all
  // runs its bits are above the average, which the big oldest run pays for.
  TieredJobPlan job;
  ASSERT_TRUE(PlanTieredJob(Tree(), Flush(1000), Budget(10), &job));
  EXPECT_EQ(job.runs.building, 0);
  EXPECT_FALSE(job.oldest);
  EXPECT_GT(job.millibits, 12000);
  EXPECT_EQ(job.millibits, job.plan.millibits[0]);
  ASSERT_EQ(job.fpr.size(), job.runs.runs.size());
  // The built runs count at their own bits.
  EXPECT_DOUBLE_EQ(job.bits_per_key[3], 10);
  EXPECT_LT(job.fpr[0], job.fpr[3]);
}

TEST(TieredJobTest, ACompactionIntoTheOldestRunIsTheBottommost) {
  TieredJobPlan job;
  ASSERT_TRUE(PlanTieredJob(Tree(), Compaction(6, {29, 10}), Budget(10), &job));
  ASSERT_EQ(job.runs.runs.size(), 2u);
  EXPECT_EQ(job.runs.building, 1);
  EXPECT_TRUE(job.oldest);
  // The new oldest run holds 104,000 keys; the L0 run left is 1,000 at 10
  // bits, so the merged run gets about the budget, a little less.
  EXPECT_GT(job.millibits, 9000);
  EXPECT_LE(job.millibits, 10000);
}

TEST(TieredJobTest, AFullMergeIsPricedForTheRunsThatGrowBack) {
  // Every run merged into one: the tree the job leaves holds that run
  // alone, but the two L0 runs it absorbs grow back above it before it is
  // merged again. Its bits are the oldest run's in the tree as it was, every
  // run rebuilt, the absorbed runs at half their keys (their average over
  // its life): under the budget, which the runs to come take.
  TieredJobPlan job;
  ASSERT_TRUE(
      PlanTieredJob(Tree(), Compaction(6, {30, 29, 10}), Budget(10), &job));
  ASSERT_EQ(job.runs.runs.size(), 1u);
  EXPECT_TRUE(job.oldest);
  EXPECT_EQ(job.regrowing, 2);
  std::vector<SortedRun> before(3);
  const double entries[] = {500, 2000, 105000};
  const int levels[] = {0, 0, 6};
  for (int i = 0; i < 3; ++i) {
    before[i].level = levels[i];
    before[i].entries = entries[i];
    before[i].building = true;
  }
  TieredPlan rebuilt;
  ASSERT_TRUE(PlanTieredTree(before, Budget(10), &rebuilt));
  EXPECT_EQ(job.millibits, rebuilt.millibits[2]);
  EXPECT_LT(job.millibits, 9900);
  // What the job leaves: one run, at its bits.
  ASSERT_EQ(job.plan.millibits.size(), 1u);
  EXPECT_DOUBLE_EQ(job.plan.bits_per_key, job.millibits / 1000.0);
  EXPECT_NE(FormatTieredJobPlan(job).find("priced with the 2 runs"),
            std::string::npos);
}

TEST(TieredJobTest, AManualFullMergeIsPlannedForTheRunItLeaves) {
  // CompactRange's one run is the tree its caller asked for: no runs are
  // priced to grow back, and alone it gets the budget, as a first flush
  // does.
  LiveJob manual = Compaction(6, {30, 29, 10});
  manual.manual = true;
  TieredJobPlan job;
  ASSERT_TRUE(PlanTieredJob(Tree(), manual, Budget(10), &job));
  ASSERT_EQ(job.runs.runs.size(), 1u);
  EXPECT_EQ(job.regrowing, 0);
  EXPECT_EQ(job.millibits,
            BudgetMillibits(10, ModelForLevel(FilterChoice::kBloom, 6)));
  EXPECT_EQ(FormatTieredJobPlan(job).find("grow back"), std::string::npos);
}

TEST(TieredJobTest, AFlushDuringAMergeIsPlannedForTheTreeOnceMerged) {
  // Eight L0 runs at 20 bits being merged into L5 at 9 bits, over a big L6
  // at 9: the tree once merged wants a flush well above the budget. Planned
  // with the merge's inputs still in it, at 20 bits, the tree is over the
  // band and the flush is held down.
  std::vector<LiveFile> files;
  std::vector<uint64_t> merging;
  for (int i = 0; i < 8; ++i) {
    files.push_back(File(40 + i, 0, 14000, 90 + i, /*bits=*/20));
    merging.push_back(40 + i);
  }
  files.push_back(File(10, 6, 460000, 10, /*bits=*/9));
  const std::vector<CompactionInFlight> in_flight = {{merging, 5, 9000}};
  TieredJobPlan during, without;
  ASSERT_TRUE(
      PlanTieredJob(files, Flush(14000), Budget(10), &during, in_flight));
  ASSERT_TRUE(PlanTieredJob(files, Flush(14000), Budget(10), &without));
  ASSERT_EQ(during.runs.runs.size(), 3u);  // the flush, L5, L6
  EXPECT_EQ(during.runs.runs[1].level, 5);
  EXPECT_DOUBLE_EQ(during.runs.runs[1].filter_bits, 8 * 14000 * 9.0);
  EXPECT_GT(during.millibits, 14000);
  EXPECT_LT(without.millibits, 12000);
}

TEST(TieredJobTest, NoLastLevelFilterLeavesTheOldestRunUnfiltered) {
  TieredJobPlan job;
  ASSERT_TRUE(PlanTieredJob(Tree(), Compaction(6, {29, 10}),
                            Budget(10, /*last_level_filter=*/false), &job));
  EXPECT_TRUE(job.oldest);
  EXPECT_EQ(job.millibits, 0);
}

TEST(TieredJobTest, ARunAloneGetsTheBudget) {
  // The first flush: one run, whatever last_level_filter says (RocksDB
  // never calls a flush bottommost, and builds its filter).
  for (bool llf : {true, false}) {
    TieredJobPlan job;
    ASSERT_TRUE(PlanTieredJob({}, Flush(5000), Budget(7, llf), &job)) << llf;
    EXPECT_TRUE(job.oldest);
    EXPECT_EQ(job.millibits,
              BudgetMillibits(7, ModelForLevel(FilterChoice::kBloom, 0)));
  }
}

TEST(TieredJobTest, NoRunToBuildIsNoPlan) {
  TieredJobPlan job;
  job.millibits = 1234;
  // A compaction whose inputs are not in the tree: nothing known to build.
  EXPECT_FALSE(PlanTieredJob(Tree(), Compaction(6, {99}), Budget(10), &job));
  EXPECT_EQ(job.millibits, 1234);
}

TEST(TieredJobTest, TheTableMarksTheJobsRun) {
  TieredJobPlan job;
  ASSERT_TRUE(PlanTieredJob(Tree(), Flush(1000), Budget(10), &job));
  const std::string table = FormatTieredJobPlan(job);
  EXPECT_NE(table.find("<- this job"), std::string::npos) << table;
  EXPECT_NE(table.find("false positives per absent-key lookup"),
            std::string::npos)
      << table;
  // Header, four runs, the total.
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 6) << table;
}

}  // namespace
}  // namespace monkey
