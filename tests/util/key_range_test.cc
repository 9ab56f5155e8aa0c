// Tests of key positions (util/key_range.h): KeyPosition, KeySpace for keys
// spelled in text and in binary, and the union of intervals.
#include "monkey/util/key_range.h"

#include <gtest/gtest.h>

#include <string>

#include "monkey/tests/util/decimal_key.h"

namespace monkey {
namespace {

using test::DecimalKey;

std::string BigEndian(uint64_t id) {
  std::string key;
  for (int shift = 56; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>((id >> shift) & 0xff));
  }
  return key;
}

TEST(KeyRangeTest, KeyPositionReadsBytesInBase256) {
  EXPECT_DOUBLE_EQ(KeyPosition(std::string("p\x80", 2), 1), 0.5);
  EXPECT_DOUBLE_EQ(KeyPosition(std::string("p\x40\x80", 3), 1),
                   0.25 + 0.5 / 256);
  EXPECT_EQ(KeyPosition("p", 1), 0);
}

// Decimal ids as grow_tree spells them: positions go with the numbers (to
// 1e-5: the low digits range over the values these five ends show, not all
// ten). Read in base 256, L1's files of the 1M-key tree in key_range.h
// covered under 5% of the span; here 0..911986 is 46% of it.
TEST(KeyRangeTest, DecimalKeysArePlacedAsTheirNumbers) {
  std::vector<std::string> ends = {DecimalKey(8), DecimalKey(584302),
                                   DecimalKey(911986), DecimalKey(1112878),
                                   DecimalKey(1999998)};
  const std::vector<std::string_view> views(ends.begin(), ends.end());
  const KeySpace space(views);
  const double span = space.Position(ends.back()) - space.Position(ends[0]);
  for (const std::string& end : ends) {
    const double id = std::stod(end);
    EXPECT_NEAR((space.Position(end) - space.Position(ends[0])) / span,
                (id - 8) / (1999998 - 8), 1e-5)
        << end;
  }
  const size_t skip = CommonPrefixLength(views);
  EXPECT_LT((KeyPosition(ends[2], skip) - KeyPosition(ends[0], skip)) /
                (KeyPosition(ends.back(), skip) - KeyPosition(ends[0], skip)),
            0.05);
}

// Binary keys, even few of them, are placed as KeyPosition places them.
TEST(KeyRangeTest, BinaryKeysArePlacedAsKeyPositionPlacesThem) {
  std::vector<std::string> ends;
  for (uint64_t id : {0, 250, 300, 500, 750, 1000}) {
    ends.push_back("user:" + BigEndian(id));
  }
  const std::vector<std::string_view> views(ends.begin(), ends.end());
  const KeySpace space(views);
  const size_t skip = CommonPrefixLength(views);
  for (const std::string& end : ends) {
    EXPECT_DOUBLE_EQ(space.Position(end), KeyPosition(end, skip));
  }
}

// Binary keys whose bytes at one offset all happen to be printable (here
// the third: 'A', 'B', 'C') are binary still.
TEST(KeyRangeTest, BinaryKeysWithSomePrintableBytesAreBinary) {
  const std::vector<std::string> ends = {std::string("\x01\x90"
                                                     "A",
                                                     3),
                                         std::string("\x05\x10"
                                                     "B",
                                                     3),
                                         std::string("\xf0\x00"
                                                     "C",
                                                     3)};
  const std::vector<std::string_view> views(ends.begin(), ends.end());
  const KeySpace space(views);
  for (const std::string& end : ends) {
    EXPECT_DOUBLE_EQ(space.Position(end), KeyPosition(end, 0));
  }
}

TEST(KeyRangeTest, KeySpacePositionsAreMonotone) {
  std::vector<std::string> ends = {"user0042", "user0917", "user1000", "userz"};
  const std::vector<std::string_view> views(ends.begin(), ends.end());
  const KeySpace space(views);
  double last = -1;
  for (const std::string key :
       {"user", "user0042", "user0043", "user0917", "user1", "user1000",
        "user5", "userz", "userzz"}) {
    const double p = space.Position(key);
    EXPECT_GE(p, last) << key;
    EXPECT_GE(p, 0);
    EXPECT_LE(p, 1);
    last = p;
  }
}

TEST(KeyRangeTest, UnionLengthCountsOverlapsOnce) {
  EXPECT_DOUBLE_EQ(UnionLength({{0, 0.3}, {0.2, 0.5}, {0.7, 0.8}}), 0.6);
  EXPECT_EQ(UnionLength({}), 0);
}

}  // namespace
}  // namespace monkey
