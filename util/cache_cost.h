// Block reads per absent-key lookup through an LRU block cache: what a
// lookup pays in I/O when filters and indexes live in the block cache
// (cache_index_and_filter_blocks) and the cache is smaller than they are
// (issue 32). Under memory pressure this, not Sigma FPR, is the cost: a
// filter block that is not cached is read before it can save a read. Pure
// math: no RocksDB in here.
//
// A lookup probes the runs whose key range holds its key (`reach`). At a
// run it reads the filter block that holds the key -- the whole filter
// when it is a full filter, one partition when it is partitioned -- and,
// only when the filter passes the key (its FPR; every key without a
// filter), an index block and a data block: RocksDB's BlockBasedTable::Get
// consults the filter before the index. Each read is a block-cache lookup,
// and a miss is a block read.
//
// Which blocks stay cached follows Che's approximation of LRU (Che, Tung
// and Wang, JSAC 2002; Fricker, Robert and Roberts, ITC 2012): when blocks
// are referenced independently, a block referenced at rate r per lookup is
// cached with probability 1 - exp(-r T), where the characteristic time T
// (in lookups) is the one at which the cached blocks fill the cache:
//   sum over blocks of size * (1 - exp(-r T)) = capacity.
// A block must find room beside the others: its T is that of the other
// blocks in the capacity less its own size (for small blocks, Che's T; for
// a block as large as the cache, 0 unless nothing else is referenced).
// The blocks of one kind in one run are referenced alike (keys hash
// uniformly over filter partitions; absent keys spread over data blocks),
// so each kind of each run is one group of equal blocks.
//
// Where it departs from RocksDB: LRUCache keeps index and filter blocks in
// its high-priority pool (cache_index_and_filter_blocks_with_high_priority),
// which data blocks cannot evict; blocks pinned in the cache
// (pin_top_level_index_and_filter, pin_l0_filter_and_index_blocks_in_cache)
// are left out, as is the capacity they take (pass what remains).
#pragma once

#include <vector>

namespace monkey {

// One sorted run (an L0 file, or a level) as the cache sees it.
struct CachedRun {
  double reach = 0;  // share of lookups that probe the run, 0..1
  double fpr = 1;    // its filter's false positive rate; 1 without a filter
  // Its filter: `filter_bytes` in `filter_blocks` equal blocks (1 for a
  // full filter, the partitions for a partitioned one). 0 bytes: no filter.
  double filter_bytes = 0;
  double filter_blocks = 1;
  double index_bytes = 0;  // its index, in `index_blocks` blocks
  double index_blocks = 1;
  double data_bytes = 0;  // its data, in `data_blocks` blocks
  double data_blocks = 1;
};

// Expected block reads per lookup, by kind of block, and the bytes they
// read.
struct BlockReads {
  double filter = 0;
  double index = 0;
  double data = 0;
  double bytes = 0;
  double total() const { return filter + index + data; }
  // What the reads cost, in small reads: each read costs one, plus its
  // bytes over `read_latency_bytes` (CacheLayout's; infinite: reads only).
  double Cost(double read_latency_bytes) const {
    return total() + (read_latency_bytes > 0 ? bytes / read_latency_bytes : 0);
  }
};

// Blocks of one kind: `blocks` blocks of `bytes` in all, referenced
// `rate` times per lookup in all (each block rate / blocks).
struct BlockGroup {
  double bytes = 0;
  double blocks = 1;
  double rate = 0;
};

// Che's characteristic time of an LRU cache of `capacity` bytes over
// `groups`: the T at which sum of bytes * (1 - exp(-rate / blocks * T))
// equals the capacity. Infinite when every referenced block fits (even in
// no capacity, when none is); else 0 for no capacity.
double CharacteristicTime(const std::vector<BlockGroup>& groups,
                          double capacity);

// The probability that a block of `group` is cached at characteristic time
// `t`.
double CachedShare(const BlockGroup& group, double t);

// The blocks a run's filter of `filter_bytes` comes in: partitions of about
// `partition_bytes` (RocksDB cuts one at metadata_block_size), at least one
// a file; for 0, one full filter block a file.
double FilterBlocks(double filter_bytes, double files, double partition_bytes);

// Expected block reads per lookup over `runs` through an LRU cache of
// `cache_bytes`. A block larger than the cache is never cached (RocksDB's
// LRUCache frees it when its reader lets go), and each reference to it
// empties the cache of the others (LRUCache evicts them all to insert it).
BlockReads ExpectedBlockReads(const std::vector<CachedRun>& runs,
                              double cache_bytes);

}  // namespace monkey
