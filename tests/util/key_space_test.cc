// Tests of KeySpace (util/key_space.h): shares of a column family's key
// space by key range, for fixed-width big-endian keys and others.
#include "util/key_space.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace monkey {
namespace {

// db_bench's keys: 8 big-endian bytes, then padding.
std::string BigEndian(uint64_t i, const std::string& prefix = "") {
  std::string key = prefix;
  for (int shift = 56; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>((i >> shift) & 0xff));
  }
  return key + "00000000";
}

TEST(KeySpaceTest, FixedWidthKeysMapLinearly) {
  const KeySpace space(BigEndian(0), BigEndian(16000000));
  EXPECT_DOUBLE_EQ(space.Share(BigEndian(0), BigEndian(16000000)), 1);
  EXPECT_NEAR(space.Share(BigEndian(4000000), BigEndian(8000000)), 0.25, 1e-9);
  EXPECT_NEAR(space.Share(BigEndian(0), BigEndian(1)), 1 / 16e6, 1e-12);
  // A shared prefix does not matter, nor do bytes past the eighth.
  const KeySpace prefixed(BigEndian(0, "user:"), BigEndian(1000, "user:"));
  EXPECT_NEAR(
      prefixed.Share(BigEndian(100, "user:"), BigEndian(350, "user:") + "zz"),
      0.25, 1e-9);
}

TEST(KeySpaceTest, SharesStayInsideTheSpan) {
  const KeySpace space("b", "d");
  EXPECT_DOUBLE_EQ(space.Share("a", "z"), 1);
  EXPECT_DOUBLE_EQ(space.Share("a", "b"), 0);
  EXPECT_DOUBLE_EQ(space.Share("c", "c"), 0);
  EXPECT_DOUBLE_EQ(space.Share("d", "c"), 0);  // reversed: empty
  EXPECT_NEAR(space.Share("b", "c"), 0.5, 1e-12);
  // Keys outside the span's common prefix sort before or after it.
  const KeySpace users("user:a", "user:z");
  EXPECT_DOUBLE_EQ(users.Share("admin", "zebra"), 1);
  EXPECT_DOUBLE_EQ(users.Share("user", "user:a"), 0);
}

TEST(KeySpaceTest, APointSpanIsWhole) {
  const KeySpace point("k", "k");
  EXPECT_DOUBLE_EQ(point.Share("k", "k"), 1);
  const KeySpace empty("", "");
  EXPECT_DOUBLE_EQ(empty.Share("", ""), 1);
}

}  // namespace
}  // namespace monkey
