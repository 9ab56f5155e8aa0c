// KeyPermutation: a full-period 64-bit LCG with jump-ahead, mixed by a
// bijection. See include/monkey/key_permutation.h.
#include "monkey/util/key_permutation.h"

namespace monkey {

static_assert(KeyPermutation::kIncrement % 2 == 1,
              "full period needs an odd increment");
static_assert(KeyPermutation::kMultiplier % 4 == 1,
              "full period modulo 2^64 needs a multiplier = 1 mod 4");

uint64_t KeyPermutation::Mix(uint64_t x) {
  // SplitMix64's finalizer: xor-shifts and odd multipliers, each a bijection.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t KeyPermutation::StateAt(uint64_t position) const {
  // Compose the affine map x -> a*x + c with itself by squaring
  // (Brown, "Random number generation with arbitrary strides", 1994).
  uint64_t acc_mult = 1, acc_plus = 0;
  uint64_t cur_mult = kMultiplier, cur_plus = kIncrement;
  for (uint64_t p = position; p > 0; p >>= 1) {
    if (p & 1) {
      acc_mult *= cur_mult;
      acc_plus = acc_plus * cur_mult + cur_plus;
    }
    cur_plus = (cur_mult + 1) * cur_plus;
    cur_mult *= cur_mult;
  }
  return acc_mult * seed_ + acc_plus;
}

uint64_t KeyPermutation::At(uint64_t position) const {
  return Mix(StateAt(position));
}

KeyPermutation::Cursor KeyPermutation::From(uint64_t position) const {
  return Cursor(StateAt(position), position);
}

uint64_t KeyPermutation::Cursor::Next() {
  const uint64_t value = Mix(state_);
  state_ = state_ * kMultiplier + kIncrement;
  ++position_;
  return value;
}

}  // namespace monkey
