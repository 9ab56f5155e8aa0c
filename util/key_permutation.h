// A pseudo-random permutation of the 64-bit integers, for benchmarks that
// insert unique keys in random order (db_bench insertunique, the way TDStore
// and sysbench generate unique keys): the values at positions 0, 1, 2, ...
// never repeat, and a run can resume at any position, so a later run
// continues after the keys an earlier one inserted. Pure math.
//
// How. A full-period linear congruential generator x -> a*x + c (mod 2^64)
// visits every 64-bit value once per period (Hull-Dobell: c odd, a = 1 mod
// 4). Its low bits are weak, so each state goes through a bijective mixer
// (SplitMix64's finalizer); a bijection of a permutation is a permutation.
// Jumping to position p takes O(log p) steps.
#pragma once

#include <cstdint>

namespace monkey {

class KeyPermutation {
 public:
  // Different seeds give different permutations.
  explicit KeyPermutation(uint64_t seed = 0) : seed_(seed) {}

  // The value at `position`.
  uint64_t At(uint64_t position) const;

  // Walks the permutation from a position, one value per Next().
  class Cursor {
   public:
    uint64_t Next();
    uint64_t position() const { return position_; }

   private:
    friend class KeyPermutation;
    Cursor(uint64_t state, uint64_t position)
        : state_(state), position_(position) {}
    uint64_t state_;
    uint64_t position_;
  };
  Cursor From(uint64_t position) const;

  // The generator's constants (Knuth's MMIX LCG), and the mixer.
  static constexpr uint64_t kMultiplier = 6364136223846793005ULL;
  static constexpr uint64_t kIncrement = 1442695040888963407ULL;
  static uint64_t Mix(uint64_t x);

 private:
  // The LCG state at `position`: a^p * seed + c * (a^p - 1) / (a - 1).
  uint64_t StateAt(uint64_t position) const;

  uint64_t seed_;
};

}  // namespace monkey
