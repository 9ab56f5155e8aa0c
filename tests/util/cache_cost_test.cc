// Tests for util/cache_cost.h: block reads per lookup through an LRU cache.
#include "monkey/util/cache_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace monkey {
namespace {

// A run of `keys` keys at `bits` bits per key, its filter in `partitions`
// blocks, with 4 KiB data blocks of 40 keys and an index of 1/100 of the
// data.
CachedRun RunOf(double reach, double keys, double bits, double fpr,
                double partitions) {
  CachedRun run;
  run.reach = reach;
  run.fpr = fpr;
  run.filter_bytes = keys * bits / 8;
  run.filter_blocks = partitions;
  run.data_blocks = keys / 40;
  run.data_bytes = run.data_blocks * 4096;
  run.index_bytes = run.data_bytes / 100;
  run.index_blocks = partitions;
  return run;
}

double AllBytes(const std::vector<CachedRun>& runs) {
  double bytes = 0;
  for (const CachedRun& r : runs) {
    bytes += r.filter_bytes + r.index_bytes + r.data_bytes;
  }
  return bytes;
}

const std::vector<CachedRun> kTree = {RunOf(0.2, 1e4, 16, 0.001, 4),
                                      RunOf(0.6, 1e5, 12, 0.005, 40),
                                      RunOf(1.0, 1e6, 8, 0.02, 400)};

TEST(CacheCostTest, WhatFitsStaysCached) {
  const BlockReads reads = ExpectedBlockReads(kTree, AllBytes(kTree));
  EXPECT_EQ(reads.total(), 0);
}

TEST(CacheCostTest, WithoutACacheEveryBlockIsRead) {
  const BlockReads reads = ExpectedBlockReads(kTree, 0);
  double filter = 0, passed = 0;
  for (const CachedRun& r : kTree) {
    filter += r.reach;
    passed += r.reach * r.fpr;
  }
  EXPECT_DOUBLE_EQ(reads.filter, filter);
  EXPECT_DOUBLE_EQ(reads.index, passed);
  EXPECT_DOUBLE_EQ(reads.data, passed);
}

// Each read reads a block of its group: a full filter's is the file's
// whole filter, and it is what a read costs beyond the small reads.
TEST(CacheCostTest, ReadsCountTheBytesOfTheirBlocks) {
  const CachedRun full = RunOf(1.0, 1e6, 8, 0.02, 1);
  const CachedRun partitioned = RunOf(1.0, 1e6, 8, 0.02, 250);
  const double small = 4096 + full.index_bytes;  // a data block, the index
  const BlockReads f = ExpectedBlockReads({full}, 0);
  EXPECT_DOUBLE_EQ(f.bytes, full.filter_bytes + 0.02 * small);
  const BlockReads p = ExpectedBlockReads({partitioned}, 0);
  EXPECT_DOUBLE_EQ(p.bytes, full.filter_bytes / 250 +
                                0.02 * (4096 + full.index_bytes / 250));
  EXPECT_DOUBLE_EQ(f.Cost(1e6), f.total() + f.bytes / 1e6);
  EXPECT_DOUBLE_EQ(f.Cost(std::numeric_limits<double>::infinity()), f.total());
  EXPECT_EQ(ExpectedBlockReads(kTree, AllBytes(kTree)).bytes, 0);
}

TEST(CacheCostTest, ARunWithoutAFilterReadsIndexAndDataAtEveryLookup) {
  CachedRun run = RunOf(0.5, 1e5, 0, 1, 1);
  run.filter_bytes = 0;
  const BlockReads reads = ExpectedBlockReads({run}, 0);
  EXPECT_EQ(reads.filter, 0);
  EXPECT_DOUBLE_EQ(reads.index, 0.5);
  EXPECT_DOUBLE_EQ(reads.data, 0.5);
}

// Blocks referenced alike share the cache alike: of one group of n blocks
// of size s, each is cached with the share of the others that the room
// beside it holds, (C - s) / ((n - 1) s).
TEST(CacheCostTest, OneKindOfBlockKeepsTheRoomBesideOneOfThem) {
  for (double partitions : {4.0, 10.0, 1000.0}) {
    CachedRun run;
    run.reach = 0.8;
    run.fpr = 0.01;
    run.filter_bytes = 4e6;
    run.filter_blocks = partitions;  // index and data take no room
    const BlockReads reads = ExpectedBlockReads({run}, 1e6);
    const double size = 4e6 / partitions;
    EXPECT_NEAR(reads.filter, 0.8 * (1 - (1e6 - size) / (4e6 - size)), 1e-9)
        << partitions;
    EXPECT_EQ(reads.index + reads.data, 0) << partitions;
  }
}

// RocksDB's LRUCache evicts every block no reader holds to insert one
// larger than its capacity, and frees that one as soon as its reader lets
// go: such a block is read at every reference, and the others, which fit
// the cache, stay only between two of them. A partition referenced at
// 1/100 a lookup, with the big block at 1/2, is found at 0.01 / 0.51 of its
// references.
TEST(CacheCostTest, ABlockLargerThanTheCacheIsNeverCachedAndEmptiesIt) {
  CachedRun big;  // one full filter of 2 MB, the index and data in none
  big.reach = 0.5;
  big.fpr = 0.01;
  big.filter_bytes = 2e6;
  CachedRun small = big;  // 100 partitions of 5 KB
  small.reach = 1;
  small.filter_bytes = 5e5;
  small.filter_blocks = 100;
  const BlockReads reads = ExpectedBlockReads({big, small}, 1e6);
  EXPECT_NEAR(reads.filter, 0.5 + 1 - 0.01 / 0.51, 1e-12);
  EXPECT_EQ(ExpectedBlockReads({small}, 1e6).filter, 0);
  EXPECT_EQ(ExpectedBlockReads({big}, 2e6).filter, 0);
}

TEST(CacheCostTest, TheCharacteristicTimeFillsTheCache) {
  const std::vector<BlockGroup> groups = {
      {1e6, 100, 1.0}, {5e6, 1000, 0.3}, {2e7, 5000, 0.01}};
  for (double capacity : {1e4, 1e6, 1e7, 2.5e7}) {
    const double t = CharacteristicTime(groups, capacity);
    double cached = 0;
    for (const BlockGroup& g : groups) cached += g.bytes * CachedShare(g, t);
    EXPECT_NEAR(cached / capacity, 1, 1e-9) << capacity;
  }
  EXPECT_TRUE(std::isinf(CharacteristicTime(groups, 2.6e7)));
  EXPECT_EQ(CharacteristicTime(groups, 0), 0);
}

// Che: of blocks alike in size, those referenced more often are the more
// likely cached.
TEST(CacheCostTest, HotterBlocksAreMoreOftenCached) {
  const BlockGroup hot{1e6, 100, 1.0}, cold{1e6, 100, 0.1};
  const double t = CharacteristicTime({hot, cold}, 1e6);
  EXPECT_GT(CachedShare(hot, t), 2 * CachedShare(cold, t));
}

TEST(CacheCostTest, MoreCacheNeverReadsMore) {
  const double all = AllBytes(kTree);
  double last = ExpectedBlockReads(kTree, 0).total();
  for (int percent = 1; percent <= 100; ++percent) {
    const double reads = ExpectedBlockReads(kTree, percent * all / 100).total();
    EXPECT_LE(reads, last + 1e-12) << percent;
    last = reads;
  }
  EXPECT_EQ(last, 0);
}

}  // namespace
}  // namespace monkey
