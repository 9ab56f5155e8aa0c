// Tests of the strict option-string reading (table/strict_string.h): the
// decimal grammar, numbers and quotes in messages, duplicate options.
#include "monkey/table/strict_string.h"

#include <gtest/gtest.h>

#include <string>

namespace monkey {
namespace {

TEST(StrictStringTest, ReadsPlainDecimalsOnly) {
  const struct {
    const char* text;
    double value;
  } good[] = {{"7", 7},   {"7.5", 7.5}, {".5", 0.5},       {"5.", 5},
              {"-1", -1}, {"+2", 2},    {"1e-3", 1e-3},    {"2E+2", 200},
              {"0", 0},   {"0.000", 0}, {"1e-310", 1e-310}};
  for (const auto& c : good) {
    double value = -99;
    EXPECT_EQ(ParseDecimal(c.text, &value), "") << c.text;
    EXPECT_EQ(value, c.value) << c.text;
  }
  for (const char* bad :
       {"", " 7", "7 ", "0x10", "7abc", "inf", "nan", "-inf", "1e", "e5", ".",
        "+", "1.2.3", "1e-400", "1e400", "7,5", "\t7"}) {
    double value = -99;
    const std::string error = ParseDecimal(bad, &value);
    EXPECT_NE(error, "") << "'" << bad << "'";
    EXPECT_NE(error.find(std::string("'") + bad + "'"), std::string::npos)
        << error;
    EXPECT_EQ(value, -99) << bad;
  }
  // Zero written as an underflow is still zero.
  double value = -99;
  EXPECT_EQ(ParseDecimal("0e-400", &value), "");
  EXPECT_EQ(value, 0);
}

TEST(StrictStringTest, NumbersAndQuotesStayShortAndExact) {
  EXPECT_EQ(FormatNumber(1e-30), "1e-30");
  EXPECT_EQ(FormatNumber(0.02), "0.02");
  EXPECT_EQ(FormatNumber(7), "7");
  EXPECT_EQ(Quoted("monkey:7"), "'monkey:7'");
  const std::string huge(100000, 'x');
  const std::string quoted = Quoted(huge);
  EXPECT_LT(quoted.size(), 100u);
  EXPECT_NE(quoted.find("100000 characters"), std::string::npos) << quoted;
  const std::string elided = Elided("bad: " + huge + " and " + huge, huge);
  EXPECT_LT(elided.size(), 200u);
  EXPECT_EQ(elided.rfind("bad: xxx", 0), 0u) << elided;
  EXPECT_EQ(Elided("short: monkey:7", "monkey:7"), "short: monkey:7");
}

TEST(StrictStringTest, FindsAnOptionGivenTwice) {
  EXPECT_EQ(DuplicateOption("id=monkey;bits_per_key=7;bits_per_key=9"),
            "bits_per_key");
  EXPECT_EQ(DuplicateOption("{id=monkey;shape=live; shape =static}"), "shape");
  EXPECT_EQ(DuplicateOption("id=monkey;bits_per_key=7;size_ratio=10"), "");
  EXPECT_EQ(DuplicateOption("monkey:7"), "");
  EXPECT_EQ(DuplicateOption(""), "");
  // Options of a nested value are its own.
  EXPECT_EQ(DuplicateOption("a={x=1;y=2};b={x=3}"), "");
  EXPECT_EQ(DuplicateOption("a={x=1};a=2"), "a");
}

}  // namespace
}  // namespace monkey
