// Tests of KeyPermutation (util/key_permutation.cc): jump-ahead equals
// stepping, no value repeats, resuming continues the same sequence, and the
// values spread over the whole key space.
#include "monkey/util/key_permutation.h"

#include <gtest/gtest.h>

#include <unordered_set>
#include <vector>

namespace monkey {
namespace {

TEST(KeyPermutationTest, JumpAheadEqualsStepping) {
  const KeyPermutation perm(42);
  KeyPermutation::Cursor cursor = perm.From(0);
  for (uint64_t p = 0; p < 5000; ++p) {
    ASSERT_EQ(cursor.position(), p);
    ASSERT_EQ(cursor.Next(), perm.At(p)) << p;
  }
  for (uint64_t p :
       {uint64_t{1} << 20, uint64_t{123456789012}, ~uint64_t{0} - 3}) {
    KeyPermutation::Cursor from = perm.From(p);
    for (uint64_t i = 0; i < 3; ++i) {
      EXPECT_EQ(from.Next(), perm.At(p + i)) << p + i;
    }
  }
}

TEST(KeyPermutationTest, NoValueRepeats) {
  const KeyPermutation perm;
  std::unordered_set<uint64_t> seen;
  KeyPermutation::Cursor cursor = perm.From(0);
  for (int i = 0; i < 1000000; ++i) {
    ASSERT_TRUE(seen.insert(cursor.Next()).second) << "repeat at " << i;
  }
}

TEST(KeyPermutationTest, TheRawGeneratorHasFullPeriodOnSmallModuli) {
  // Hull-Dobell does not depend on the modulus' size: the same constants
  // modulo 2^16 must visit all 65536 values before returning.
  const uint32_t mask = 0xffff;
  const uint32_t a = KeyPermutation::kMultiplier & mask;
  const uint32_t c = KeyPermutation::kIncrement & mask;
  std::vector<bool> seen(mask + 1);
  uint32_t x = 0;
  for (uint32_t i = 0; i <= mask; ++i) {
    ASSERT_FALSE(seen[x]) << "period " << i;
    seen[x] = true;
    x = (a * x + c) & mask;
  }
  EXPECT_EQ(x, 0u);
}

TEST(KeyPermutationTest, MixIsABijectionOnSamples) {
  std::unordered_set<uint64_t> out;
  for (uint64_t x = 0; x < 100000; ++x) {
    ASSERT_TRUE(out.insert(KeyPermutation::Mix(x)).second);
  }
}

TEST(KeyPermutationTest, ValuesSpreadOverTheKeySpace) {
  // Big-endian keys sort by their top bits: 64 buckets of the top 6 bits
  // must each get close to 1/64 of 64k values.
  const KeyPermutation perm(7);
  std::vector<int> buckets(64);
  KeyPermutation::Cursor cursor = perm.From(1000);
  const int n = 1 << 16;
  for (int i = 0; i < n; ++i) ++buckets[cursor.Next() >> 58];
  for (int b = 0; b < 64; ++b) {
    EXPECT_NEAR(buckets[b], n / 64, 160) << "bucket " << b;  // ~5 sigma
  }
}

TEST(KeyPermutationTest, SeedsGiveDifferentPermutations) {
  EXPECT_NE(KeyPermutation(1).At(0), KeyPermutation(2).At(0));
  EXPECT_NE(KeyPermutation(1).At(5), KeyPermutation(1).At(6));
}

}  // namespace
}  // namespace monkey
