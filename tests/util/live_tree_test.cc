// Tests of LiveTree (util/live_tree.h): a column family's files kept from a
// listener's events, without reading the tree.
#include "monkey/util/live_tree.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace monkey {
namespace {

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}

// A file of `entries` keys over [lo, hi], its filter at 10 bits a key.
LiveFile File(uint64_t number, int level, int lo, int hi, double entries) {
  LiveFile f;
  f.number = number;
  f.level = level;
  f.entries = entries;
  f.bytes = 100 * entries;
  f.smallest = Key(lo);
  f.largest = Key(hi);
  f.filter_known = true;
  f.filter_bits = 10 * entries;
  f.filter_entries = entries;
  return f;
}

LiveJob Compaction(int output_level, std::vector<uint64_t> inputs) {
  LiveJob job;
  job.output_level = output_level;
  job.input_files = std::move(inputs);
  return job;
}

// (number, level) of each file.
std::map<uint64_t, int> Levels(const std::vector<LiveFile>& files) {
  std::map<uint64_t, int> levels;
  for (const LiveFile& f : files) levels[f.number] = f.level;
  return levels;
}

std::map<uint64_t, int> Levels(const LiveTree& tree) {
  return Levels(tree.Files());
}

TEST(LiveTreeTest, AFlushAddsItsFileToL0) {
  LiveTree tree;
  EXPECT_FALSE(tree.known());
  tree.Reset({File(5, 6, 0, 99, 1000)});
  ASSERT_TRUE(tree.known());
  LiveJob flush;
  flush.flush = true;
  EXPECT_FALSE(tree.flushing());
  tree.Began(1, flush);
  EXPECT_EQ(tree.Jobs().size(), 1u);
  EXPECT_TRUE(tree.flushing());
  tree.Created(1, File(7, -1, 10, 20, 100), true);
  EXPECT_EQ(tree.num_files(), 1u);  // built, not yet live
  tree.FlushCompleted(1, 7, true);
  EXPECT_TRUE(tree.Jobs().empty());
  EXPECT_FALSE(tree.flushing());
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{5, 6}, {7, 0}}));
  EXPECT_TRUE(tree.known());
  for (const LiveFile& f : tree.Files()) {
    if (f.number == 7) {
      EXPECT_TRUE(f.flushed);
      EXPECT_EQ(f.smallest, Key(10));
      EXPECT_EQ(f.filter_bits, 1000);
    }
  }
}

// Outputs replace inputs; an output that was an input is a trivial move,
// which keeps the filter it was built with.
TEST(LiveTreeTest, ACompactionReplacesItsInputsWithItsOutputs) {
  LiveTree tree;
  tree.Reset({File(1, 0, 0, 99, 100), File(2, 1, 0, 49, 500),
              File(3, 1, 50, 99, 500)});
  tree.Began(9, Compaction(1, {1, 2}));
  tree.Created(9, File(10, -1, 0, 49, 600), true);
  tree.CompactionCompleted(9, {1, 2}, {{10, 1}}, true);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{3, 1}, {10, 1}}));
  tree.CompactionCompleted(10, {3}, {{3, 2}}, true);  // trivial move
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{3, 2}, {10, 1}}));
  EXPECT_EQ(tree.Files()[0].filter_bits, 5000);
  EXPECT_TRUE(tree.known());
}

// Files keep the order of their age, as a tiered tree orders its runs: a
// full read's sequence numbers, a flushed file newer than every live one,
// a compaction's output at its newest input's age, a trivial move at its
// own.
TEST(LiveTreeTest, FilesKeepTheOrderOfTheirAge) {
  LiveTree tree;
  LiveFile old_file = File(1, 0, 0, 99, 100), new_file = File(2, 0, 0, 99, 100);
  old_file.largest_seqno = 40;
  new_file.largest_seqno = 70;
  tree.Reset({old_file, new_file});
  LiveJob flush;
  flush.flush = true;
  tree.Began(1, flush);
  tree.Created(1, File(3, -1, 0, 99, 100), true);
  tree.FlushCompleted(1, 3, true);
  tree.Began(2, Compaction(0, {1, 2}));
  tree.Created(2, File(4, -1, 0, 99, 200), true);
  tree.CompactionCompleted(2, {1, 2}, {{4, 0}}, true);
  tree.CompactionCompleted(3, {3}, {{3, 1}}, true);  // trivial move
  std::map<uint64_t, uint64_t> age;
  for (const LiveFile& f : tree.Files()) age[f.number] = f.largest_seqno;
  EXPECT_EQ(age, (std::map<uint64_t, uint64_t>{{3, 71}, {4, 70}}));
}

TEST(LiveTreeTest, AFailedCompactionMovesNothing) {
  LiveTree tree;
  tree.Reset({File(1, 0, 0, 99, 100), File(2, 1, 0, 99, 500)});
  tree.Began(9, Compaction(1, {1, 2}));
  tree.Created(9, File(10, -1, 0, 99, 600), true);
  tree.CompactionCompleted(9, {1, 2}, {{10, 1}}, false);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{1, 0}, {2, 1}}));
  EXPECT_TRUE(tree.Jobs().empty());
}

// What the events do not say, a full read must: a file whose range or
// record is missing.
TEST(LiveTreeTest, WhatNoEventDescribesMakesTheTreeUnsure) {
  LiveTree tree;
  tree.Reset({File(1, 1, 0, 99, 100)});
  tree.Created(1, File(2, -1, 0, 9, 10), /*range_known=*/false);
  tree.FlushCompleted(1, 2, true);
  EXPECT_FALSE(tree.known());
  tree.Reset({File(1, 1, 0, 99, 100), File(2, 0, 0, 9, 10)});
  EXPECT_TRUE(tree.known());
  tree.CompactionCompleted(3, {2}, {{11, 1}}, true);  // 11: no record
  EXPECT_FALSE(tree.known());
}

// A deleted file leaves the tree, with or without a job: RocksDB can purge
// a compaction's inputs before the compaction's own callback runs, and
// DeleteFilesInRange deletes without one.
TEST(LiveTreeTest, ADeletedFileLeavesTheTree) {
  LiveTree tree;
  tree.Reset({File(1, 1, 0, 99, 100), File(2, 1, 100, 199, 100)});
  tree.Deleted(1);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{2, 1}}));
  tree.Created(7, File(3, -1, 100, 199, 100), true);
  tree.Deleted(2);  // purged before its compaction's callback
  tree.CompactionCompleted(7, {2}, {{3, 2}}, true);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{3, 2}}));
  EXPECT_TRUE(tree.known());
}

// A flush's file can be taken by a compaction before the flush's own
// callback runs (RocksDB calls OnFlushCompleted after committing it).
TEST(LiveTreeTest, AFlushTakenBeforeItsCallbackIsNotAdded) {
  LiveTree tree;
  tree.Reset({});
  tree.Created(1, File(4, -1, 0, 9, 10), true);
  tree.Created(2, File(5, -1, 0, 9, 10), true);
  tree.CompactionCompleted(2, {4}, {{5, 1}}, true);
  tree.FlushCompleted(1, 4, true);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{5, 1}}));
}

// RocksDB commits a flush, then calls OnFlushCompleted: in between, the
// compaction the new L0 file triggers can begin, and even end. With no
// immutable memtable left, the flush jobs still listed have committed, and
// their files are live in L0 -- the compaction's inputs -- before their
// callbacks come. Dropping the jobs alone left the file out of the tree:
// neither projected nor live, its keys missing from the plan.
TEST(LiveTreeTest, AFlushCommittedBeforeItsCallbackIsInL0) {
  LiveTree tree;
  tree.Reset({File(1, 1, 0, 999, 1000)});
  LiveJob flush;
  flush.flush = true;
  tree.Began(3, flush);
  tree.Created(3, File(7, -1, 0, 999, 100), true);
  tree.Began(4, flush);  // failed: no file, no callback
  tree.CommitFlushJobs();
  EXPECT_TRUE(tree.Jobs().empty());
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{1, 1}, {7, 0}}));
  EXPECT_EQ(tree.LevelOf(7), 0);
  tree.FlushCompleted(3, 7, true);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{1, 1}, {7, 0}}));
  EXPECT_TRUE(tree.known());

  // Taken by a compaction before its callback.
  tree.Began(5, flush);
  tree.Created(5, File(8, -1, 0, 999, 100), true);
  tree.CommitFlushJobs();
  tree.Began(6, Compaction(1, {7, 8, 1}));
  tree.Created(6, File(9, -1, 0, 999, 1200), true);
  tree.CompactionCompleted(6, {7, 8, 1}, {{9, 1}}, true);
  for (uint64_t n : {7, 8, 1}) tree.Deleted(n);
  tree.FlushCompleted(5, 8, true);
  EXPECT_EQ(Levels(tree), (std::map<uint64_t, int>{{9, 1}}));
  EXPECT_TRUE(tree.known());
}

// A full read keeps the filters the events recorded: metadata has none.
TEST(LiveTreeTest, AFullReadKeepsTheFiltersRecorded) {
  LiveTree tree;
  tree.Reset({});
  tree.Created(1, File(4, -1, 0, 9, 10), true);
  LiveFile read = File(4, 0, 0, 9, 10);
  read.filter_known = false;
  tree.Reset({read});
  ASSERT_EQ(tree.Files().size(), 1u);
  EXPECT_TRUE(tree.Files()[0].filter_known);
  EXPECT_EQ(tree.Files()[0].filter_bits, 100);
}

// Over a long run of random flushes, compactions and trivial moves (fixed
// seed), the files the events leave are the files a full read would find:
// also when flush callbacks come late, after compactions that began (and
// committed the flushes) or took their files.
TEST(LiveTreeTest, EventsLeaveTheTreeAFullReadFinds) {
  std::mt19937 rng(29);
  std::map<uint64_t, LiveFile> truth;
  LiveTree tree;
  tree.Reset({});
  LiveFilesMirror mirror;  // a planner's copy, kept from the changes
  uint64_t next = 1;
  std::vector<std::pair<int, uint64_t>> late;  // flush callbacks to come
  for (int step = 0; step < 2000; ++step) {
    if (rng() % 4 == 0) {
      mirror.Apply(tree.TakeChanges());
      ASSERT_EQ(Levels(mirror.Files()), Levels(tree)) << "step " << step;
    }
    const int kind = rng() % 3;
    const int job = step;
    if (!late.empty() && rng() % 2 == 0) {
      tree.FlushCompleted(late.front().first, late.front().second, true);
      late.erase(late.begin());
    }
    if (kind == 0 || truth.empty()) {
      LiveJob flush;
      flush.flush = true;
      tree.Began(job, flush);
      LiveFile f = File(next++, 0, 0, 999, 100);
      tree.Created(job, f, true);
      if (rng() % 2 == 0) {
        tree.FlushCompleted(job, f.number, true);
      } else {
        late.push_back({job, f.number});
      }
      truth[f.number] = f;
      continue;
    }
    tree.CommitFlushJobs();  // as each compaction begins
    // Up to three inputs from one level, into the next.
    auto it = truth.begin();
    std::advance(it, rng() % truth.size());
    const int level = it->second.level;
    const int out = std::min(level + 1, 6);
    std::vector<uint64_t> inputs;
    for (auto& [n, f] : truth) {
      if (f.level == level && inputs.size() < 3) inputs.push_back(n);
    }
    tree.Began(job, Compaction(out, inputs));
    std::vector<std::pair<uint64_t, int>> outputs;
    if (kind == 1 && inputs.size() == 1) {  // a trivial move
      outputs.push_back({inputs[0], out});
      truth[inputs[0]].level = out;
    } else {
      double entries = 0;
      for (uint64_t n : inputs) {
        entries += truth[n].entries;
        truth.erase(n);
      }
      LiveFile f = File(next++, out, 0, 999, entries);
      tree.Created(job, f, true);
      outputs.push_back({f.number, out});
      truth[f.number] = f;
    }
    tree.CompactionCompleted(job, inputs, outputs, true);
    for (uint64_t n : inputs) {
      if (!truth.count(n)) tree.Deleted(n);
    }
  }
  for (const auto& [job, number] : late) {
    tree.FlushCompleted(job, number, true);
  }
  mirror.Apply(tree.TakeChanges());
  EXPECT_EQ(Levels(mirror.Files()), Levels(tree));
  ASSERT_TRUE(tree.known());
  std::map<uint64_t, int> expected;
  for (const auto& [n, f] : truth) expected[n] = f.level;
  EXPECT_EQ(Levels(tree), expected);
  EXPECT_TRUE(tree.Jobs().empty());
}

// A planner's copy takes only what changed since its last plan: the
// listener holds its mutex while the changes are taken, and the jobs'
// callbacks wait for it (bench/live_plan_bench.cc measures both ways).
TEST(LiveTreeTest, ChangesHoldOnlyTheFilesChanged) {
  LiveTree tree;
  std::vector<LiveFile> files;
  for (uint64_t n = 1; n <= 1000; ++n) files.push_back(File(n, 6, 0, 99, 10));
  tree.Reset(files);
  LiveFilesMirror mirror;
  LiveTree::Changes first = tree.TakeChanges();
  EXPECT_TRUE(first.all);
  EXPECT_EQ(first.put.size(), 1000u);
  mirror.Apply(std::move(first));

  // A compaction of two files into one, and a trivial move.
  tree.Began(1, Compaction(6, {1, 2}));
  tree.Created(1, File(1001, -1, 0, 99, 20), true);
  tree.CompactionCompleted(1, {1, 2}, {{1001, 6}}, true);
  tree.CompactionCompleted(2, {3}, {{3, 5}}, true);
  tree.Deleted(1);
  tree.Deleted(2);
  LiveTree::Changes changes = tree.TakeChanges();
  EXPECT_FALSE(changes.all);
  EXPECT_EQ(changes.put.size(), 2u);  // 1001, and 3 at its new level
  EXPECT_EQ(changes.erased.size(), 2u);
  mirror.Apply(std::move(changes));
  EXPECT_EQ(Levels(mirror.Files()), Levels(tree));
  EXPECT_TRUE(tree.TakeChanges().put.empty());

  // A full read puts every file again.
  tree.Reset(tree.Files());
  EXPECT_TRUE(tree.TakeChanges().all);
}

// A tree whose changes nobody takes keeps no log longer than twice its
// files: the next taker gets every file instead.
TEST(LiveTreeTest, UntakenChangesDoNotGrowWithoutEnd) {
  LiveTree tree;
  tree.Reset({File(1, 1, 0, 99, 10)});
  tree.TakeChanges();
  uint64_t live = 1;
  for (uint64_t n = 2; n < 1000; ++n) {
    tree.Created(static_cast<int>(n), File(n, -1, 0, 99, 10), true);
    tree.CompactionCompleted(static_cast<int>(n), {live}, {{n, 1}}, true);
    tree.Deleted(live);
    live = n;
  }
  LiveTree::Changes changes = tree.TakeChanges();
  EXPECT_TRUE(changes.all);
  ASSERT_EQ(changes.put.size(), 1u);
  EXPECT_EQ(changes.put[0].number, 999u);
}

}  // namespace
}  // namespace monkey
