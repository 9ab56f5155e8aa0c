// The two choices a Monkey plan is made with: which filter each level gets,
// and what the plan minimises. One definition, shared by the policy's
// options (MonkeyOptions::Filter and MonkeyOptions::Objective name these)
// and the planner in util/, so that nothing converts between copies.
// RocksDB-free.
#pragma once

namespace monkey {

// Which filter a level gets; in options strings "bloom", "ribbon", "auto".
enum class FilterChoice {
  kBloom,   // FastLocalBloom everywhere
  kRibbon,  // Standard128Ribbon everywhere: ~30% smaller at the same FPR,
            // slower to build
  // Bloom for flushes and L0, which are short-lived and fast to build,
  // Ribbon below (like RocksDB's bloom_before_level=0).
  kAuto,
};

// What the plan minimises; in options strings "fpr", "memory" or "io".
enum class Objective {
  // The least Sigma FPR for the budget bits_per_key: memory is fixed.
  kSumFpr,
  // The least filter memory whose Sigma FPR is at most a target (the
  // options' max_sum_fpr, or what uniform bits_per_key filters give the
  // same tree).
  kMemory,
  // The fewest block reads per absent-key lookup when filters, indexes and
  // data share a block cache of a given size (cache_index_and_filter_blocks
  // under memory pressure, partitioned filters): each level's bits, or no
  // filter, within the memory the kSumFpr plan takes (util/cache_plan.h).
  // Under pressure Sigma FPR is not
  // what a lookup pays: an uncached filter block is read before it saves a
  // read, and bigger filters are cached less often.
  kIo,
};

}  // namespace monkey
