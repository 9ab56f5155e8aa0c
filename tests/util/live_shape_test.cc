// Tests of the live shape (util/live_shape.h): jobs in flight projected onto
// the tree, sunk and fluid keys, and each run's reach in rank space.
#include "monkey/util/live_shape.h"

#include <gtest/gtest.h>

#include <map>

#include "monkey/tests/util/decimal_key.h"

namespace monkey {
namespace {

// Decimal keys: the reach must not depend on where keys lie in byte space.
std::string Key(uint64_t id) { return test::DecimalKey(id); }

LiveFile File(uint64_t number, int level, double entries, uint64_t first,
              uint64_t last) {
  LiveFile f;
  f.number = number;
  f.level = level;
  f.entries = entries;
  f.bytes = 100 * entries;
  f.smallest = Key(first);
  f.largest = Key(last);
  return f;
}

LiveFile WithFilter(LiveFile f, double bits_per_key) {
  f.filter_known = true;
  f.filter_bits = bits_per_key * f.entries;
  f.filter_entries = bits_per_key > 0 ? f.entries : 0;
  return f;
}

TEST(LiveShapeTest, LevelsCountKeysAndRuns) {
  const std::vector<LiveLevel> levels =
      ProjectLiveShape({File(1, 0, 100, 0, 999), File(2, 0, 100, 0, 999),
                        File(3, 2, 300, 0, 499), File(4, 2, 300, 500, 999)},
                       {});
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].entries, 200);
  EXPECT_DOUBLE_EQ(levels[0].runs, 2);  // each L0 file spans every key
  EXPECT_EQ(levels[1].entries, 0);
  EXPECT_EQ(levels[1].runs, 0);
  EXPECT_EQ(levels[2].entries, 600);
  EXPECT_DOUBLE_EQ(levels[2].runs, 1);
}

TEST(LiveShapeTest, SunkFiltersAreTheOnesNoJobReplaces) {
  LiveJob job;
  job.output_level = 2;
  job.input_files = {1, 3};
  const std::vector<LiveLevel> levels = ProjectLiveShape(
      {WithFilter(File(1, 1, 100, 0, 999), 10),
       WithFilter(File(3, 2, 400, 0, 499), 8),
       WithFilter(File(4, 2, 500, 500, 999), 6), File(5, 2, 50, 1000, 1001)},
      {job});
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[1].entries, 0);  // moved to L2 by the job
  EXPECT_EQ(levels[2].entries, 1050);
  // Only file 4 is built and stays; file 5's filter is unknown.
  EXPECT_EQ(levels[2].filter_bits, 6 * 500);
  EXPECT_EQ(levels[2].filter_entries, 500);
  EXPECT_EQ(levels[2].built_entries, 500);
  EXPECT_EQ(levels[2].fluid_entries, 500);  // what the job writes
}

TEST(LiveShapeTest, AFileWithoutAFilterIsBuiltButHoldsNoFilterKeys) {
  const std::vector<LiveLevel> levels =
      ProjectLiveShape({WithFilter(File(1, 1, 100, 0, 99), 0)}, {});
  EXPECT_EQ(levels[1].built_entries, 100);
  EXPECT_EQ(levels[1].filter_entries, 0);
}

// A level's built keys are kept by their filters' bits, so that its FPR
// can be the mean of its files' FPRs (live_plan.h): files 1 and 2 at 7.5
// bits, file 3 without a filter, and file 4, being rewritten, not at all.
TEST(LiveShapeTest, BuiltKeysAreKeptByTheirFiltersBits) {
  LiveJob job;
  job.output_level = 2;
  job.input_files = {4};
  const std::vector<LiveLevel> levels =
      ProjectLiveShape({WithFilter(File(1, 2, 200, 0, 199), 7.5),
                        WithFilter(File(2, 2, 100, 200, 299), 7.5),
                        WithFilter(File(3, 2, 300, 300, 599), 0),
                        WithFilter(File(4, 2, 400, 600, 999), 10)},
                       {job});
  const std::map<int, double> expected = {{0, 300}, {7500, 300}};
  EXPECT_EQ(levels[2].built_entries_by_millibits, expected);
  EXPECT_EQ(levels[2].built_entries, 600);
}

// The shape counts what the budget counts, filter entries: a prefix-only
// filter at 16 keys a prefix holds 1/16 of its file's keys. A file built
// without a filter, and a flush, count their keys at the rate of the known
// filters: of their level, else of the tree.
TEST(LiveShapeTest, LevelsCountFilterEntries) {
  LiveFile l1 = WithFilter(File(1, 1, 1600, 0, 999), 7);
  l1.filter_entries = 100;  // 16 keys a prefix
  l1.filter_bits = 700;
  LiveFile l2 = WithFilter(File(2, 2, 16000, 0, 999), 0);  // no filter
  LiveJob flush;
  flush.flush = true;
  flush.flush_entries = 320;
  const std::vector<LiveLevel> levels = ProjectLiveShape({l1, l2}, {flush});
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_DOUBLE_EQ(levels[1].entries, 100);
  EXPECT_DOUBLE_EQ(levels[1].filter_entries, 100);
  EXPECT_DOUBLE_EQ(levels[1].built_entries, 100);
  EXPECT_DOUBLE_EQ(levels[2].entries, 1000);
  EXPECT_DOUBLE_EQ(levels[0].entries, 20);
  // Nothing known: keys.
  EXPECT_DOUBLE_EQ(ProjectLiveShape({File(1, 1, 1600, 0, 999)}, {})[1].entries,
                   1600);
}

TEST(LiveShapeTest, AFlushAddsOneL0Run) {
  LiveJob flush;
  flush.flush = true;
  flush.flush_entries = 70;
  const std::vector<LiveLevel> levels = ProjectLiveShape(
      {File(1, 0, 100, 0, 999), File(2, 3, 1000, 0, 999)}, {flush});
  EXPECT_EQ(levels[0].entries, 170);
  EXPECT_DOUBLE_EQ(levels[0].runs, 2);
  EXPECT_EQ(levels[0].fluid_entries, 70);
  // Of unknown size: an L0 file's; in an empty tree, one key.
  flush.flush_entries = 0;
  EXPECT_EQ(ProjectLiveShape({File(1, 0, 100, 0, 999)}, {flush})[0].entries,
            200);
  const std::vector<LiveLevel> empty = ProjectLiveShape({}, {flush});
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].entries, 1);
  EXPECT_EQ(empty[0].runs, 1);
}

// What a block cache holds of each level besides filters: its files and
// their bytes, a compaction's inputs at its output level, and a flush's
// file at the tree's bytes per filter entry.
TEST(LiveShapeTest, LevelsCountFilesAndBytes) {
  LiveJob flush;
  flush.flush = true;
  flush.flush_entries = 70;
  LiveJob compaction;
  compaction.output_level = 2;
  compaction.input_files = {2};
  const std::vector<LiveLevel> levels =
      ProjectLiveShape({File(1, 0, 100, 0, 999), File(2, 1, 1000, 0, 999),
                        File(3, 2, 1000, 0, 499), File(4, 2, 3000, 500, 999)},
                       {flush, compaction});
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].files, 2);
  EXPECT_DOUBLE_EQ(levels[0].bytes, 100 * 100 + 70 * 100);
  EXPECT_EQ(levels[1].files, 0);
  EXPECT_EQ(levels[1].bytes, 0);
  EXPECT_EQ(levels[2].files, 3);
  EXPECT_DOUBLE_EQ(levels[2].bytes, 100 * 5000);
}

TEST(LiveShapeTest, AnL0ToL0CompactionMakesOneRun) {
  LiveJob job;
  job.output_level = 0;
  job.input_files = {1, 2, 3};
  const std::vector<LiveLevel> levels =
      ProjectLiveShape({File(1, 0, 10, 0, 999), File(2, 0, 10, 0, 999),
                        File(3, 0, 10, 0, 999), File(4, 0, 10, 0, 999)},
                       {job});
  EXPECT_EQ(levels[0].entries, 40);
  EXPECT_DOUBLE_EQ(levels[0].runs, 2);
}

// With max_open_files limited, RocksDB has not loaded every file's entry
// count after an open: count such a file from its filter, else from its
// size at the bytes per key of the files that are known.
TEST(LiveShapeTest, UnloadedEntryCountsAreEstimated) {
  LiveFile unloaded = WithFilter(File(2, 1, 80, 0, 499), 10);
  unloaded.entries = 0;
  LiveFile bare = File(3, 1, 0, 500, 999);
  bare.bytes = 5000;  // 100 bytes per key, like file 1
  const std::vector<LiveLevel> levels =
      ProjectLiveShape({File(1, 2, 100, 0, 999), unloaded, bare}, {});
  EXPECT_DOUBLE_EQ(levels[1].entries, 80 + 50);
}

// Sequential keys: each file holds its own stretch of the key space, and a
// lookup reaches it in the measure of the keys there.
TEST(LiveShapeTest, DisjointFilesReachTheirShareOfTheKeys) {
  std::vector<LiveFile> files = {
      File(1, 0, 100, 9900, 9999), File(2, 1, 900, 9000, 9899),
      File(3, 2, 4500, 0, 4499), File(4, 2, 4500, 4500, 8999)};
  files[0].flushed = true;
  const std::vector<LiveLevel> levels = ProjectLiveShape(files, {});
  EXPECT_NEAR(levels[0].runs, 0.01, 1e-9);
  EXPECT_NEAR(levels[1].runs, 0.09, 1e-9);
  EXPECT_NEAR(levels[2].runs, 0.90, 1e-9);
  // A flush is guessed to reach what the newest flushed file reaches.
  LiveJob flush;
  flush.flush = true;
  flush.flush_entries = 100;
  EXPECT_NEAR(ProjectLiveShape(files, {flush})[0].runs, 0.02, 1e-9);
}

// A reverse comparator gives smallest > largest in byte order.
TEST(LiveShapeTest, ReversedRangesAreRangesToo) {
  std::vector<LiveFile> files = {File(1, 1, 100, 99, 0),
                                 File(2, 2, 900, 999, 100)};
  const std::vector<LiveLevel> levels = ProjectLiveShape(files, {});
  EXPECT_NEAR(levels[1].runs, 0.1, 1e-9);
  EXPECT_NEAR(levels[2].runs, 0.9, 1e-9);
}

// Rank space, not byte space: 1000 decimal keys either side of a carry
// ("0000000000129999" to "0000000000130000") are 25x wider in byte space
// than 1000 keys that do not cross one.
TEST(LiveShapeTest, KeySharesDoNotDependOnHowKeysAreSpelled) {
  const std::vector<LiveFile> files = {File(1, 1, 1000, 120000, 120999),
                                       File(2, 1, 1000, 129500, 130499)};
  const std::vector<double> share = KeyShareInRange(files, {1000, 1000});
  EXPECT_DOUBLE_EQ(share[0], 0.5);
  EXPECT_DOUBLE_EQ(share[1], 0.5);
}

// Ends are sorted by 8 bytes after the prefix they all share, then whole:
// keys that tie in those bytes, and keys that are prefixes of others, keep
// their byte order, so files side by side stay side by side.
TEST(LiveShapeTest, KeysThatTieInTheirFirstBytesKeepTheirOrder) {
  auto file = [](uint64_t number, std::string smallest, std::string largest) {
    LiveFile f;
    f.number = number;
    f.level = 1;
    f.entries = 100.0 * number;
    f.smallest = std::move(smallest);
    f.largest = std::move(largest);
    return f;
  };
  const std::vector<LiveFile> files = {file(3, "pA2345678c", "pB"),
                                       file(1, "pA", "pA2345678"),
                                       file(2, "pA2345678a", "pA2345678b")};
  const std::vector<double> share = KeyShareInRange(files, {300, 100, 200});
  EXPECT_NEAR(share[0], 0.5, 1e-12);
  EXPECT_NEAR(share[1], 1.0 / 6, 1e-12);
  EXPECT_NEAR(share[2], 1.0 / 3, 1e-12);
}

// Random keys: an L0 file spans the key space and reaches every lookup; a
// file of the last level reaches its own stretch.
TEST(LiveShapeTest, SpanningFilesReachEveryLookup) {
  std::vector<LiveFile> files = {File(1, 0, 100, 0, 9999)};
  for (uint64_t i = 0; i < 10; ++i) {
    files.push_back(File(2 + i, 3, 990, 1000 * i, 1000 * i + 999));
  }
  std::vector<double> entries;
  for (const LiveFile& f : files) entries.push_back(f.entries);
  const std::vector<double> share = KeyShareInRange(files, entries);
  EXPECT_DOUBLE_EQ(share[0], 1);
  for (size_t i = 1; i < share.size(); ++i) {
    EXPECT_NEAR(share[i], 0.1, 0.01) << i;
  }
  const std::vector<LiveLevel> levels = ProjectLiveShape(files, {});
  EXPECT_DOUBLE_EQ(levels[0].runs, 1);
  EXPECT_NEAR(levels[3].runs, 1, 1e-9);
}

// Random keys: a level's files lie side by side with slivers between them
// (a few keys of the level below). Its reach is all but 1: the level below
// puts next to nothing in the slivers, though each is a stretch of its own
// (counting stretches alike gave 0.76): 20 ids of 10,000 lie outside its
// files. Decimal spelling cost 2% when stretches were measured in base 256
// (0.981): a sliver across a carry ("2497" to "2503") is wide there.
TEST(LiveShapeTest, TheSliversBetweenALevelsFilesHoldFewKeys) {
  std::vector<LiveFile> files;
  for (uint64_t i = 0; i < 10; ++i) {
    files.push_back(File(1 + i, 6, 1000, 1000 * i, 1000 * i + 999));
  }
  for (uint64_t i = 0; i < 4; ++i) {
    files.push_back(File(20 + i, 5, 250, 2500 * i + 3, 2500 * i + 2497));
  }
  const std::vector<LiveLevel> levels = ProjectLiveShape(files, {});
  EXPECT_NEAR(levels[5].runs, 0.998, 1e-4);
  EXPECT_NEAR(levels[6].runs, 1, 1e-9);
}

}  // namespace
}  // namespace monkey
