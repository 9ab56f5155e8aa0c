// Tests of ProjectTieredRuns (util/tiered_shape.h): a tiered tree's sorted
// runs once a flush or compaction is done, from the live files.
#include "monkey/util/tiered_shape.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace monkey {
namespace {

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}

// A file of `entries` keys over [lo, hi], `bits` bits a key in its filter,
// `seqno` its age (newest highest).
LiveFile File(uint64_t number, int level, int lo, int hi, double entries,
              uint64_t seqno, double bits = 10) {
  LiveFile f;
  f.number = number;
  f.level = level;
  f.entries = entries;
  f.bytes = 100 * entries;
  f.smallest = Key(lo);
  f.largest = Key(hi);
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

// Universal with 7 levels: three L0 files over the key space, L5 in two
// files and L6.
std::vector<LiveFile> Tree() {
  return {
      File(30, 0, 0, 999, 1000, 90, 14), File(31, 0, 0, 999, 2000, 95, 12),
      File(29, 0, 0, 999, 4000, 80, 11), File(20, 5, 0, 499, 5000, 50),
      File(21, 5, 500, 999, 5000, 51),   File(10, 6, 0, 999, 100000, 10, 8)};
}

TEST(TieredShapeTest, AFlushAddsTheNewestRun) {
  const TieredRuns t = ProjectTieredRuns(Tree(), Flush(500), 10);
  ASSERT_EQ(t.runs.size(), 6u);
  EXPECT_EQ(t.building, 0);
  EXPECT_TRUE(t.runs[0].building);
  EXPECT_EQ(t.runs[0].entries, 500);
  // L0's files newest first by age, not by number; then L5 as one run,
  // then L6.
  const double entries[] = {500, 2000, 1000, 4000, 10000, 100000};
  const double bits[] = {0, 24000, 14000, 44000, 100000, 800000};
  const int levels[] = {0, 0, 0, 0, 5, 6};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(t.runs[i].entries, entries[i]) << i;
    EXPECT_EQ(t.runs[i].filter_bits, bits[i]) << i;
    EXPECT_EQ(t.runs[i].level, levels[i]) << i;
    EXPECT_NEAR(t.runs[i].reach, 1, 1e-9) << i;  // every run spans the keys
    EXPECT_EQ(t.runs[i].building, i == 0) << i;
  }
}

// A compaction's run takes its inputs' place: merging L0's two older files
// into L4 (the level above the next older run) leaves the newest L0 file,
// the new run, L5 and L6.
TEST(TieredShapeTest, ACompactionsRunTakesItsInputsPlace) {
  const TieredRuns t = ProjectTieredRuns(Tree(), Compaction(4, {30, 29}), 10);
  ASSERT_EQ(t.runs.size(), 4u);
  EXPECT_EQ(t.building, 1);
  EXPECT_EQ(t.runs[0].entries, 2000);
  EXPECT_EQ(t.runs[1].entries, 5000);
  EXPECT_EQ(t.runs[1].filter_bits, 0);  // to be built
  EXPECT_EQ(t.runs[1].level, 4);
  EXPECT_EQ(t.runs[2].level, 5);
  EXPECT_EQ(t.runs[3].level, 6);
}

// Another compaction in flight is projected as done: a flush during the
// merge of L0's two older files into L4 sees the run that merge writes, at
// the bits its plan gave it, not the two files it takes away.
TEST(TieredShapeTest, ACompactionInFlightIsProjectedAsDone) {
  const TieredRuns t = ProjectTieredRuns(Tree(), Flush(500), 10,
                                         {{{30, 29}, 4, /*millibits=*/9000}});
  ASSERT_EQ(t.runs.size(), 5u);
  EXPECT_EQ(t.building, 0);
  const double entries[] = {500, 2000, 5000, 10000, 100000};
  const double bits[] = {0, 24000, 45000, 100000, 800000};
  const int levels[] = {0, 0, 4, 5, 6};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(t.runs[i].entries, entries[i]) << i;
    EXPECT_EQ(t.runs[i].filter_bits, bits[i]) << i;
    EXPECT_EQ(t.runs[i].level, levels[i]) << i;
    EXPECT_FALSE(t.runs[i].building && i > 0) << i;
  }
  // Its inputs are in its run.
  EXPECT_EQ(t.run_of_file[0], 2);  // file 30
  EXPECT_EQ(t.run_of_file[2], 2);  // file 29
  // And the same compaction as the job itself is not projected twice.
  const TieredRuns same = ProjectTieredRuns(Tree(), Compaction(4, {30, 29}), 10,
                                            {{{30, 29}, 4, 9000}});
  ASSERT_EQ(same.runs.size(), 4u);
  EXPECT_EQ(same.building, 1);
  EXPECT_EQ(same.runs[1].filter_bits, 0);
}

// With one level (num_levels=1) every run is an L0 file: their ages order
// them, and a compaction that takes in the oldest writes the oldest run.
TEST(TieredShapeTest, WithOneLevelAgesOrderTheRuns) {
  std::vector<LiveFile> files = {File(8, 0, 0, 999, 100, 40),
                                 File(5, 0, 0, 999, 800, 10),
                                 File(9, 0, 0, 999, 200, 30)};
  TieredRuns t = ProjectTieredRuns(files, Compaction(0, {9, 5}), 10);
  ASSERT_EQ(t.runs.size(), 2u);
  EXPECT_EQ(t.building, 1);
  EXPECT_EQ(t.runs[0].entries, 100);
  EXPECT_EQ(t.runs[1].entries, 1000);
  t = ProjectTieredRuns(files, Compaction(0, {8, 9}), 10);
  ASSERT_EQ(t.runs.size(), 2u);
  EXPECT_EQ(t.building, 0);
  EXPECT_EQ(t.runs[1].entries, 800);
}

// Runs of sequential keys cover their own stretches: each reaches the
// share of the lookups that fall there, and a flush the newest flush's.
TEST(TieredShapeTest, RunsReachTheirShareOfTheKeys) {
  LiveFile flushed = File(7, 0, 900, 999, 1000, 60);
  flushed.flushed = true;
  std::vector<LiveFile> files = {File(5, 6, 0, 799, 8000, 1), flushed,
                                 File(6, 0, 800, 899, 1000, 50)};
  const TieredRuns t = ProjectTieredRuns(files, Flush(1000), 10);
  ASSERT_EQ(t.runs.size(), 4u);
  EXPECT_NEAR(t.runs[0].reach, 0.1, 1e-9);  // as the newest flush's
  EXPECT_NEAR(t.runs[1].reach, 0.1, 1e-9);
  EXPECT_NEAR(t.runs[2].reach, 0.1, 1e-9);
  EXPECT_NEAR(t.runs[3].reach, 0.8, 1e-9);
}

// A file whose filter the listener never saw counts at the bits given; a
// flush of unknown keys is guessed at the mean L0 file's.
TEST(TieredShapeTest, UnknownsAreGuessed) {
  std::vector<LiveFile> files = Tree();
  files[5].filter_known = false;
  const TieredRuns t = ProjectTieredRuns(files, Flush(0), 7);
  EXPECT_EQ(t.runs[5].filter_bits, 700000);
  EXPECT_NEAR(t.runs[0].entries, 7000.0 / 3, 1e-9);
}

// A compaction whose inputs the tree does not hold writes no run it can
// plan: no run is marked as being built.
TEST(TieredShapeTest, ACompactionOfUnknownFilesBuildsNoKnownRun) {
  const TieredRuns t = ProjectTieredRuns(Tree(), Compaction(4, {77}), 10);
  EXPECT_EQ(t.building, -1);
  EXPECT_EQ(t.runs.size(), 5u);
}

// No job: the runs at rest, as the filter report lists them, and the run
// each file is in. A job's inputs are in the job's run.
TEST(TieredShapeTest, RunsAtRestNameTheirFiles) {
  TieredRuns t = ProjectTieredRuns(Tree(), LiveJob(), 10);
  ASSERT_EQ(t.runs.size(), 5u);
  EXPECT_EQ(t.building, -1);
  // Files 30, 31, 29 (L0, by age: 31, 30, 29), 20 and 21 (L5), 10 (L6).
  const std::vector<int> runs = {1, 0, 2, 3, 3, 4};
  EXPECT_EQ(t.run_of_file, runs);
  t = ProjectTieredRuns(Tree(), Compaction(4, {30, 29}), 10);
  const std::vector<int> with_job = {1, 0, 1, 2, 2, 3};
  EXPECT_EQ(t.run_of_file, with_job);
}

}  // namespace
}  // namespace monkey
