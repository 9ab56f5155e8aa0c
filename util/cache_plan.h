// Filter bits per run for a block cache: the bits (or no filter) that
// minimise the block reads per absent-key lookup that util/cache_cost.h
// models, when filters live in a block cache of a given size (issue 32,
// the cache-aware objective). Bits buy a lower FPR but a bigger filter,
// which the cache then holds less often: with a small cache, a run whose
// filter every lookup reads may be better off with fewer bits, or none.
// Pure math: no RocksDB in here.
#pragma once

#include <limits>
#include <vector>

#include "monkey/util/cache_cost.h"
#include "monkey/util/filter_fpr_model.h"

namespace monkey {

// One run to plan: how the cache sees it (CachedRun's reach, index and
// data; its filter fields are the plan's), the entries its filter would
// hold, and the blocks a filter of it comes in.
struct CacheRunToPlan {
  CachedRun run;
  double filter_entries = 0;
  double files = 1;  // full filters: one block a file
  // Its filter's FPR model; nullptr for the plan's.
  const FprModel* model = nullptr;
  // false: it gets no filter whatever it would save (the last level with
  // last_level_filter=false).
  bool filterable = true;
};

// What a file holds besides its filter, per byte of the file: its data
// and index bytes and blocks (table properties data_size,
// num_data_blocks, index_size, index_partitions). The defaults, where no
// file's are known: data all of it in 4 KiB blocks (block_size's default),
// and no index.
struct BytesPerFileByte {
  double data_bytes = 1;
  double data_blocks = 1.0 / 4096;
  double index_bytes = 0;
  double index_blocks = 0;  // 0 (a whole index): one block a file
};

// What a read of more bytes costs: a device spends about the same time on
// every read (its latency, and the block's checksum and parse) and then
// time per byte. This is the number of bytes it transfers in that fixed
// time; a read of n bytes costs 1 + n / kReadLatencyBytes small reads.
// Partitions, index and data blocks (4 KiB) cost about one read each; a
// full filter block of a file (60-300 KB) costs 1.5-3. Counted as reads
// alone (1e12 bytes), full filters at 1/20 of bloomfilter:10's filter
// bytes got 32 bits/key on L1, whose blocks flush the cache anyway, and
// lookups ran at 0.41x (0.39-0.42x) this default's ops/s with 0.97x its
// reads (bench/results/20261207-336806a-cache-grid-full-read-latency).
// The grid fits a device's value from its runs (bench/read_cost.py). On
// this project's VM it moved between days: 125 KiB on 2026-12-05 (69 us
// a read, 0.55 us a KiB; bench/results/20261205-a7fbab4-cache-grid) and
// 25 KiB on 2026-12-07 (41 us, 1.7 us), and planned at 32 KiB, lookups
// ran at 0.99x, 1.13x and 0.94x this default's ops/s at 0.05, 0.2 and
// 0.5x: no better. Another VM fitted 117 KiB the same day (91 us, 0.79
// us; bench/results/20261207-66c2108-cache-grid-full-8-rounds). The
// default is an NVMe drive's (80 us, 2-3 GB/s: 160-240 KB); a SATA SSD
// (100 us, 500 MB/s) gives 50 KB.
inline constexpr double kReadLatencyBytes = 128 << 10;

// The block cache a plan is for, and the blocks the tree's files come in.
struct CacheLayout {
  double cache_bytes = 0;  // 0: none known
  // metadata_block_size with partition_filters; 0 for full filters.
  double partition_bytes = 0;
  BytesPerFileByte per_byte;
  // The cost of a read's bytes (kReadLatencyBytes); infinite: reads only.
  double read_latency_bytes = kReadLatencyBytes;
};

// A run of `files` files of `bytes` in all, as the cache sees its index
// and data under `layout` (its filter is the plan's to add).
CachedRun CachedFiles(double reach, double files, double bytes,
                      const CacheLayout& layout);

struct CachePlan {
  std::vector<double> bits;  // per run: bits per filter entry, 0 for none
  BlockReads reads;          // modelled, at those bits
};

// The grid's top. FastLocalBloom's FPR at 32 bits per key is 5.4e-6, a
// false positive in 190,000 lookups of a run (at 48 bits, its most,
// 1.8e-7): past 32 bits a filter buys no block read the model counts, and
// the grid stays short.
inline constexpr double kMostCachePlanBits = 32;

// The share of a block cache that a plan's filters may fill, where the
// cache holds more than the budget's filters. The cache model (Che's
// approximation) sees each lookup's blocks as independent references; a
// cache full of filters that every lookup reads in turn is a loop, which
// LRU serves worse than that: it holds the loop whole or thrashes. On one
// tree at a cache of twice bloomfilter:10's filter bytes
// (bench/results/20261207-22af1d0-cache-grid-share-sweep), filters of
// bloomfilter:16 and :18, 0.8 and 0.9 of the cache, read 0.0012 and 0.0007
// blocks a lookup (full filters) and 0.0026 and 0.0016 (partitioned), as
// modelled or within 1.5x of it, the fewest at 0.9; bloomfilter:20's, 1.0
// of the cache, read 0.035 and 0.055, 40x and 7x the model's. Planned to
// 0.8, a tree that ends 12% over its plan (files keep the bits they were
// built with while the tree grows) stays at the 0.9 that still read as
// modelled; the cliff past it costs more than the last bits save.
inline constexpr double kMostCacheShareForFilters = 0.8;

// The most filter bits a plan for `cache` may spend: `budget_filter_bits`
// (the budget plan's, or the bits now), or kMostCacheShareForFilters of
// the cache where that is more.
double MostFilterBitsFor(const CacheLayout& cache, double budget_filter_bits);

// The bits per run, on a grid of `step` bits from `model`'s least to
// kMostCachePlanBits (or 0), each run's FPR by its own model or `model`, that
// minimise the modelled cost of the block reads per lookup (BlockReads::Cost)
// through `cache`: cache_bytes, filters in partitions of partition_bytes (0:
// one full filter block a file), reads costed by read_latency_bytes.
// Coordinate descent from the best uniform setting of the grid, from no filters
// and from the most bits: each pass gives each run in turn its best bits with
// the others fixed, until no pass improves; the best end wins. So the plan is
// never worse than any uniform bits on the grid. A last descent in steps of
// step / 5, within 4 of them of each run's bits, spends what the grid left
// of a cap. A run that is not
// filterable keeps 0 throughout. `also_from`, per run, is one more start
// (bits off the grid too), so that the plan is never worse than it either:
// the live plan starts from the budget's plan. The plan's filter bits,
// the sum over runs of filter_entries x bits, stay within
// `max_filter_bits`: starts above it are skipped, and so is every step
// that would go above it (`also_from` counts as within).
CachePlan PlanBitsForCache(
    const std::vector<CacheRunToPlan>& runs, const FprModel& model,
    const CacheLayout& cache, double step = 0.5,
    const std::vector<double>* also_from = nullptr,
    double max_filter_bits = std::numeric_limits<double>::infinity());

// The sum over runs of filter_entries x bits.
double FilterBitsOf(const std::vector<CacheRunToPlan>& runs,
                    const std::vector<double>& bits);

// The runs' modelled block reads through `cache` with `bits` per run.
BlockReads ReadsWithBits(const std::vector<CacheRunToPlan>& runs,
                         const std::vector<double>& bits, const FprModel& model,
                         const CacheLayout& cache);

}  // namespace monkey
