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

// The runs of `files` as runs yet to be built: the tree before a job, every
// run rebuilt at one price.
std::vector<SortedRun> Rebuilt(const std::vector<LiveFile>& files) {
  std::vector<SortedRun> runs;
  for (const LiveFile& f : files) {
    SortedRun run;
    run.level = f.level;
    run.entries = f.entries;
    run.building = true;
    runs.push_back(run);
  }
  return runs;
}

TEST(TieredJobTest, AFullMergeIsPricedForTheRunsThatGrowBackAtTheBandEdge) {
  // Every run merged into one: the tree the job leaves holds that run
  // alone, but the two L0 runs it absorbs grow back above it before it is
  // merged again. Priced with them, as the oldest run of the tree as it
  // was, its bits are under 9.7; alone, the run is the whole tree, which
  // would then spend that much under the budget (bloomfilter:10 gives it
  // 10). So it gets the band's edge: (1 - kUnderBand) x 10 bits.
  TieredJobPlan job;
  ASSERT_TRUE(
      PlanTieredJob(Tree(), Compaction(6, {30, 29, 10}), Budget(10), &job));
  ASSERT_EQ(job.runs.runs.size(), 1u);
  EXPECT_TRUE(job.oldest);
  EXPECT_EQ(job.regrowing, 2);
  std::vector<LiveFile> before = Tree();
  before[2].entries = 105000;  // what the merged run holds
  TieredPlan rebuilt;
  ASSERT_TRUE(PlanTieredTree(Rebuilt(before), Budget(10), &rebuilt));
  EXPECT_LT(rebuilt.millibits[2], 9700);
  EXPECT_TRUE(job.floored);
  EXPECT_EQ(job.millibits, 9700);
  // What the job leaves: one run, at its bits.
  ASSERT_EQ(job.plan.millibits.size(), 1u);
  EXPECT_EQ(job.plan.millibits[0], 9700);
  EXPECT_DOUBLE_EQ(job.plan.bits_per_key, 9.7);
  EXPECT_NE(FormatTieredJobPlan(job).find("priced with the 2 runs"),
            std::string::npos);
  EXPECT_NE(FormatTieredJobPlan(job).find("band edge"), std::string::npos);
}

TEST(TieredJobTest, AMergeUnderRunsThatHoldTheBudgetKeepsItsRegrowingPrice) {
  // Two L0 runs at 10 bits merged into the oldest, under a newer L0 run of
  // 30,000 keys at 20 bits: the tree the job leaves spends over the band's
  // edge at the price the regrowing runs give the merged run, so that price
  // stands, below what the run would get planned for that tree alone.
  const std::vector<LiveFile> files = {
      File(31, 0, 30000, 95, /*bits=*/20), File(30, 0, 1000, 90),
      File(29, 0, 4000, 80), File(10, 6, 100000, 10)};
  TieredJobPlan job;
  ASSERT_TRUE(
      PlanTieredJob(files, Compaction(6, {30, 29, 10}), Budget(10), &job));
  ASSERT_EQ(job.runs.runs.size(), 2u);
  EXPECT_EQ(job.regrowing, 2);
  EXPECT_FALSE(job.floored);
  // The regrowing runs, to be built, above the job's tree.
  std::vector<SortedRun> planned = Rebuilt({files[1], files[2]});
  planned.insert(planned.end(), job.runs.runs.begin(), job.runs.runs.end());
  TieredPlan regrowing;
  ASSERT_TRUE(PlanTieredTree(planned, Budget(10), &regrowing));
  EXPECT_EQ(job.millibits, regrowing.millibits[3]);
  EXPECT_GE(job.plan.bits_per_key, 9.7);
  TieredPlan alone;
  ASSERT_TRUE(PlanTieredTree(job.runs.runs, Budget(10), &alone));
  EXPECT_LT(job.millibits, alone.millibits[1]);
}

TEST(TieredJobTest, TheBandEdgeIsCappedByThePlanForTheJobsTree) {
  // Under a newer run of 60,000 keys built at 1 bit, the merged run alone
  // would need ~14.7 bits to bring the tree to the band's edge; the plan
  // for that tree gives it fewer, and a floor never buys more than that.
  const std::vector<LiveFile> files = {
      File(31, 0, 60000, 95, /*bits=*/1), File(30, 0, 1000, 90),
      File(29, 0, 4000, 80), File(10, 6, 100000, 10)};
  TieredJobPlan job;
  ASSERT_TRUE(
      PlanTieredJob(files, Compaction(6, {30, 29, 10}), Budget(10), &job));
  EXPECT_EQ(job.regrowing, 2);
  TieredPlan alone;
  ASSERT_TRUE(PlanTieredTree(job.runs.runs, Budget(10), &alone));
  EXPECT_TRUE(job.floored);
  EXPECT_EQ(job.millibits, alone.millibits[1]);
  EXPECT_LT(job.plan.bits_per_key, 9.7);
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
