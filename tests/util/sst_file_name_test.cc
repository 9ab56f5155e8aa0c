// Tests of util/sst_file_name.h.
#include "monkey/util/sst_file_name.h"

#include <gtest/gtest.h>

namespace monkey {
namespace {

TEST(SstFileNameTest, NumbersOfSstPathsAndNames) {
  EXPECT_EQ(SstFileNumber("/db/000123.sst"), 123u);
  EXPECT_EQ(SstFileNumber("000007.sst"), 7u);
  EXPECT_EQ(SstFileNumber("/a/b.c/18446744073709551615.sst"),
            18446744073709551615u);
}

TEST(SstFileNameTest, AnythingElseIsZero) {
  EXPECT_EQ(SstFileNumber("/db/000123.log"), 0u);
  EXPECT_EQ(SstFileNumber("/db/MANIFEST-000004"), 0u);
  EXPECT_EQ(SstFileNumber("/db/.sst"), 0u);
  EXPECT_EQ(SstFileNumber("/db/12x.sst"), 0u);
  EXPECT_EQ(SstFileNumber("/db/000123.sst.tmp"), 0u);
  EXPECT_EQ(SstFileNumber("/db/99999999999999999999.sst"), 0u);  // overflow
  EXPECT_EQ(SstFileNumber(""), 0u);
}

}  // namespace
}  // namespace monkey
