// Tests of the advisor's math (util/advisor.h) without a database: the shape
// it plans (the listener's, from the files' key ranges), the Sum FPR now,
// the two suggestions against the planners, the options strings, and facts
// it must refuse.
#include "monkey/util/advisor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "monkey/tests/util/decimal_key.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/monkey_memory.h"

namespace monkey {
namespace {

// A level whose `entries` keys all sit in `filter` filters of `bits` real
// bits per key, with the model's FPR.
AdvisorLevel Filtered(int level, double files, double entries, double bits,
                      const std::string& filter = "bloom") {
  AdvisorLevel l;
  l.level = level;
  l.files = files;
  l.entries = entries;
  l.filter_entries = entries;
  l.filter_bytes = entries * bits / 8;
  l.filter = filter;
  const FprModel model =
      filter == "ribbon" ? FprModel::Ribbon() : FprModel::FastLocalBloom();
  l.model_fpr = model.FalsePositiveRate(bits);
  return l;
}

AdvisorLevel Unfiltered(int level, double files, double entries) {
  AdvisorLevel l;
  l.level = level;
  l.files = files;
  l.entries = entries;
  l.unfiltered_entries = entries;
  return l;
}

constexpr uint64_t kKeySpace = 600000;

// 8-byte big-endian keys, as db_bench writes them: byte positions are
// linear in them.
std::string Key(uint64_t id, const std::string& prefix = "") {
  std::string key = prefix;
  for (int shift = 56; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>((id >> shift) & 0xff));
  }
  return key;
}

// The SST files of `levels` as the listener describes them: L0's files
// each over the whole key space (random keys), a level below cut into its
// files side by side, sharing their ends so that together they cover
// [0, cover[level]) (default: all of it) and each has the same keys.
std::vector<LiveFile> FilesOf(const std::vector<AdvisorLevel>& levels,
                              std::map<int, uint64_t> cover = {}) {
  std::vector<LiveFile> files;
  uint64_t number = 1;
  for (const AdvisorLevel& l : levels) {
    const int n = static_cast<int>(l.files);
    const uint64_t end = cover.count(l.level) ? cover[l.level] : kKeySpace;
    for (int i = 0; i < n; ++i) {
      LiveFile f;
      f.number = number++;
      f.level = l.level;
      f.entries = l.entries / n;
      f.bytes = 100 * f.entries;
      f.smallest = Key(l.level == 0 ? 0 : end * i / n);
      f.largest = Key(l.level == 0 ? end : end * (i + 1) / n);
      files.push_back(f);
    }
  }
  return files;
}

// Advise on `levels` with their files from FilesOf.
std::string AdviseOn(const std::vector<AdvisorLevel>& levels, Advice* a) {
  return Advise(levels, FilesOf(levels), a);
}

// A bloomfilter:10 tree as db_bench leaves it: 3 L0 files, L1..L4 growing
// by 10 (dynamic level sizing keeps L5, L6 for later: empty here).
std::vector<AdvisorLevel> UniformTree(double bits = 10) {
  return {Filtered(0, 3, 3e5, bits), Filtered(1, 2, 1e6, bits),
          Filtered(2, 8, 1e7, bits), Filtered(3, 60, 1e8, bits)};
}

TEST(AdvisorTest, PlansTheDatabasesOwnShape) {
  Advice a;
  ASSERT_EQ("", AdviseOn(UniformTree(), &a));
  ASSERT_EQ(a.shape.size(), 4u);
  // The listener's shape of the same files.
  const std::vector<LiveLevel> live =
      ProjectLiveShape(FilesOf(UniformTree()), {});
  ASSERT_EQ(a.live.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(a.live[i].entries, live[i].entries);
    EXPECT_EQ(a.live[i].runs, live[i].runs);
    EXPECT_EQ(a.shape[i].runs, live[i].runs);
    EXPECT_EQ(a.live[i].filter_bits, 0);  // no filter counted as built
    EXPECT_EQ(a.live[i].built_entries, 0);
  }
  EXPECT_NEAR(a.shape[0].runs, 3, 1e-12);  // three L0 files over all keys
  EXPECT_NEAR(a.shape[1].runs, 1, 1e-12);
  // Every level covers the key range: one probe per L0 file, one per level.
  EXPECT_EQ(a.probes, (std::vector<double>{3, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(a.shape[3].entries, 1e8);
  EXPECT_TRUE(a.last_level_filter);
  EXPECT_EQ(a.filter, "bloom");
  const double p = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.sum_fpr_now, 6 * p, 1e-12 * p);  // 3 L0 runs + 3 levels
  EXPECT_NEAR(a.bits_per_key_now, 10, 1e-12);
  EXPECT_NEAR(a.filter_bytes_now, (3e5 + 1e6 + 1e7 + 1e8) * 10 / 8, 1e-3);
}

// The same tree without L0 files: the policy's live plan is then the
// optimum for the shape itself.
std::vector<AdvisorLevel> SettledTree(double bits = 10) {
  std::vector<AdvisorLevel> levels = UniformTree(bits);
  levels.erase(levels.begin());
  return levels;
}

double Entries(const std::vector<AdvisorLevel>& levels) {
  double n = 0;
  for (const AdvisorLevel& l : levels) n += l.filter_entries;
  return n;
}

TEST(AdvisorTest, SameBytesIsTheMostBitsThatFitTodaysBytes) {
  for (const auto& levels : {UniformTree(9.8765), SettledTree(9.8765)}) {
    Advice a;
    ASSERT_EQ("", AdviseOn(levels, &a));
    ASSERT_EQ("", a.same_bytes.error);
    const double b = a.same_bytes.bits_per_key;
    EXPECT_EQ(b, std::round(b * 1000) / 1000);  // RocksDB's resolution
    // Its plan is the policy's, and (filters holding all keys here) its
    // bytes are that plan's bits.
    const Plan plan = PolicyPlan(a.live, b, true, "bloom");
    ASSERT_EQ(plan.levels.size(), a.shape.size());
    for (size_t i = 0; i < a.shape.size(); ++i) {
      EXPECT_EQ(a.same_bytes.plan.levels[i].millibits_per_key,
                plan.levels[i].millibits_per_key);
    }
    EXPECT_DOUBLE_EQ(a.same_bytes.plan.total_bits, plan.total_bits);
    EXPECT_DOUBLE_EQ(a.same_bytes.filter_bytes, plan.total_bits / 8);
    EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
    EXPECT_GT(PolicyPlan(a.live, b + 0.001, true, "bloom").total_bits / 8,
              a.filter_bytes_now);
    EXPECT_LT(a.same_bytes.plan.sum_fpr, a.sum_fpr_now / 2);
    EXPECT_EQ(a.same_bytes.options, MonkeyOptionsString(b, true, "bloom"));
  }
  // Without L0, the policy plans the shape as it is: PlanBitsPerKey at the
  // realized bits per key (to the millibit: its plan may leave part of a
  // millibit unspent, which the next millibit up then fits in).
  Advice a;
  ASSERT_EQ("", AdviseOn(SettledTree(9.8765), &a));
  EXPECT_NEAR(a.same_bytes.bits_per_key, 9.8765, 0.001);
  const Plan want =
      PlanBitsPerKey(a.shape, a.same_bytes.bits_per_key,
                     std::vector<FprModel>(4, FprModel::FastLocalBloom()));
  for (size_t i = 0; i < a.shape.size(); ++i) {
    EXPECT_EQ(a.same_bytes.plan.levels[i].millibits_per_key,
              want.levels[i].millibits_per_key);
  }
}

TEST(AdvisorTest, SameFprIsTheFewestBitsThatKeepTodaysSumFpr) {
  for (const auto& levels : {UniformTree(), SettledTree()}) {
    Advice a;
    ASSERT_EQ("", AdviseOn(levels, &a));
    ASSERT_EQ("", a.same_fpr.error);
    const double b = a.same_fpr.bits_per_key;
    EXPECT_LE(a.same_fpr.plan.sum_fpr, a.sum_fpr_now * (1 + 1e-12));
    EXPECT_GT(PolicyPlan(a.live, b - 0.001, true, "bloom").sum_fpr,
              a.sum_fpr_now);
    EXPECT_DOUBLE_EQ(a.same_fpr.filter_bytes, a.same_fpr.plan.total_bits / 8);
    EXPECT_NEAR(a.saving, 1 - a.same_fpr.filter_bytes / a.filter_bytes_now,
                1e-12);
    // The frozen tree's optimum is a bound: the policy, which plans L1 and
    // below for the tree L0's keys are going to, needs at least as much.
    EXPECT_GT(a.frozen_filter_bytes, 0);
    EXPECT_LE(a.frozen_filter_bytes, a.same_fpr.filter_bytes * (1 + 1e-3));
    EXPECT_EQ(a.same_fpr.options, MonkeyOptionsString(b, true, "bloom"));
  }
  // Three levels at T = 10, uniform 10 bits: 8.322 bits/key keep the Sum
  // FPR, 16.8% less (docs/math.md, from monkey_plan --objective=memory).
  Advice settled, with_l0;
  ASSERT_EQ("", AdviseOn(SettledTree(), &settled));
  EXPECT_NEAR(settled.same_fpr.bits_per_key, 8.322, 0.002);
  EXPECT_NEAR(settled.saving, 0.168, 0.001);
  // Three L0 runs more: more runs, more to save.
  ASSERT_EQ("", AdviseOn(UniformTree(), &with_l0));
  EXPECT_GT(with_l0.saving, settled.saving);
  // Without L0 the policy's plan is the frozen one: the dual's bits.
  Advice a;
  ASSERT_EQ("", AdviseOn(SettledTree(), &a));
  Plan dual;
  ASSERT_EQ("",
            PlanLeastBits(a.shape, a.sum_fpr_now,
                          std::vector<FprModel>(4, FprModel::FastLocalBloom()),
                          &dual));
  EXPECT_NEAR(a.same_fpr.filter_bytes, dual.total_bits / 8,
              0.005 * dual.total_bits / 8);
  EXPECT_NEAR(a.same_fpr.bits_per_key, dual.bits_per_key(), 0.002);
  EXPECT_NEAR(a.frozen_filter_bytes, dual.total_bits / 8, 1e-6);
}

// A database the policy built: its own plan at 7 bits per key. The advisor
// finds 7 bits at the same bytes, and nothing to save at the same FPR.
TEST(AdvisorTest, APolicyBuiltDatabaseHasNothingToSave) {
  std::vector<AdvisorLevel> levels = {
      Filtered(0, 2, 2e5, 1), Filtered(1, 1, 1e6, 1), Filtered(2, 10, 1e7, 1),
      Filtered(3, 100, 1e8, 1)};
  const Plan plan =
      PolicyPlan(ProjectLiveShape(FilesOf(levels), {}), 7, true, "bloom");
  ASSERT_EQ(plan.levels.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    levels[i] = Filtered(i, levels[i].files, levels[i].entries,
                         plan.levels[i].bits_per_key);
  }
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  EXPECT_NEAR(a.sum_fpr_now, plan.sum_fpr, 1e-12);
  EXPECT_NEAR(a.same_bytes.bits_per_key, 7, 0.0015);
  EXPECT_NEAR(a.same_fpr.bits_per_key, 7, 0.0015);
  EXPECT_NEAR(a.saving, 0, 0.001);
  // The budget is the settled tree's: L1 and below, with L0's keys at the
  // bits of L1, which they settle into, hold it; L0's files, small runs,
  // take their premium on top while they last.
  EXPECT_GT(plan.levels[0].bits_per_key, 9);
  double settled_bits = levels[0].entries * plan.levels[1].bits_per_key;
  double settled_keys = levels[0].entries;
  for (int i = 1; i < 4; ++i) {
    settled_bits += levels[i].entries * plan.levels[i].bits_per_key;
    settled_keys += levels[i].entries;
  }
  EXPECT_NEAR(settled_bits / settled_keys, 7, 0.001);
  EXPECT_GT(a.bits_per_key_now, 7.005);
}

TEST(AdvisorTest, ALastLevelWithoutFiltersStaysWithout) {
  std::vector<AdvisorLevel> levels = UniformTree();
  levels.push_back(Unfiltered(4, 400, 1e9));
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  EXPECT_FALSE(a.last_level_filter);
  EXPECT_FALSE(a.shape[4].filtered);
  EXPECT_EQ(a.shape[4].entries, 1e9);
  // Neither its keys nor its FPR of 1 are in the sums.
  const double p = FprModel::FastLocalBloom().FalsePositiveRate(10);
  EXPECT_NEAR(a.sum_fpr_now, 6 * p, 1e-12 * p);
  EXPECT_NEAR(a.bits_per_key_now, 10, 1e-12);
  EXPECT_EQ(a.same_bytes.plan.levels[4].millibits_per_key, 0);
  EXPECT_EQ(a.same_fpr.plan.levels[4].millibits_per_key, 0);
  EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
  EXPECT_EQ(a.same_bytes.options,
            MonkeyOptionsString(a.same_bytes.bits_per_key, false, "bloom"));
  EXPECT_NE(a.same_fpr.options.find(";last_level_filter=false;"),
            std::string::npos);
}

// An upper level without filters (a Monkey plan that gave it none) counts
// with FPR 1 per run; files without filters in a level with filters let
// their share of lookups through.
TEST(AdvisorTest, LevelsAndFilesWithoutFiltersCountAsFpr1) {
  std::vector<AdvisorLevel> levels = UniformTree();
  levels[1] = Unfiltered(1, 2, 1e6);
  levels[2].unfiltered_entries = 2.5e6;  // a quarter of L2's keys
  levels[2].filter_entries = 7.5e6;
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  const double p = levels[0].model_fpr;
  EXPECT_NEAR(a.fpr_now[1], 1, 0);
  EXPECT_NEAR(a.fpr_now[2], 0.75 * p + 0.25, 1e-15);
  EXPECT_NEAR(a.sum_fpr_now, 3 * p + 1 + (0.75 * p + 0.25) + p, 1e-12);
  EXPECT_TRUE(a.shape[1].filtered);
  EXPECT_DOUBLE_EQ(a.shape[1].entries, 1e6);
  EXPECT_DOUBLE_EQ(a.shape[2].entries, 1e7);
  // Its filters would hold all its keys.
  EXPECT_DOUBLE_EQ(a.filter_keys[1], 1e6);
  EXPECT_DOUBLE_EQ(a.filter_keys[2], 1e7);
}

// The block cache's view of the levels: each reached by its probes, at
// its FPR now, its filters in one block a file or in partitions, its index
// and data blocks as the table properties count them.
TEST(AdvisorTest, CachedRunsAreTheLevelsAsTheBlockCacheSeesThem) {
  std::vector<AdvisorLevel> levels = UniformTree();
  levels[1] = Unfiltered(1, 2, 1e6);
  for (AdvisorLevel& l : levels) {
    l.index_bytes = l.entries * 0.5;
    l.index_blocks = l.files;  // one index block a file
    l.data_bytes = l.entries * 116;
    l.data_blocks = l.data_bytes / 4096;
  }
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  for (double partition : {0.0, 4096.0}) {
    const std::vector<CachedRun> runs = CachedRunsNow(levels, a, partition);
    ASSERT_EQ(runs.size(), levels.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      const AdvisorLevel& l = levels[i];
      EXPECT_DOUBLE_EQ(runs[i].reach, a.probes[l.level]) << i;
      EXPECT_DOUBLE_EQ(runs[i].fpr,
                       l.filter_bytes > 0 ? a.fpr_now[l.level] : 1.0)
          << i;
      EXPECT_DOUBLE_EQ(runs[i].filter_bytes, l.filter_bytes) << i;
      EXPECT_DOUBLE_EQ(
          runs[i].filter_blocks,
          partition > 0
              ? std::max(l.files, std::ceil(l.filter_bytes / partition))
              : l.files)
          << i;
      EXPECT_DOUBLE_EQ(runs[i].index_bytes, l.index_bytes) << i;
      EXPECT_DOUBLE_EQ(runs[i].index_blocks, l.files) << i;
      EXPECT_DOUBLE_EQ(runs[i].data_blocks, l.data_blocks) << i;
    }
  }
  // L0's three files, each over the whole key space: three probes a lookup.
  EXPECT_NEAR(CachedRunsNow(levels, a, 0)[0].reach, 3, 1e-9);
  EXPECT_EQ(CachedRunsNow(levels, a, 0)[1].fpr, 1);  // L1 has no filter
  EXPECT_GT(CachedRunsNow(levels, a, 4096)[3].filter_blocks, levels[3].files);
}

// The runs a cache plan starts from: the cache's view, the filter entries
// a rebuilt filter would hold, and the filter the policy would build there.
TEST(AdvisorTest, CacheRunsToPlanAreTheLevelsWithTheirFilters) {
  const std::vector<AdvisorLevel> levels = {Filtered(0, 3, 3e5, 10),
                                            Filtered(1, 2, 1e6, 10, "ribbon"),
                                            Filtered(2, 8, 1e7, 10, "ribbon")};
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  ASSERT_EQ(a.filter, "auto");
  const std::vector<CacheRunToPlan> runs = CacheRunsToPlan(levels, a, 4096);
  const std::vector<CachedRun> cached = CachedRunsNow(levels, a, 4096);
  ASSERT_EQ(runs.size(), 3u);
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_DOUBLE_EQ(runs[i].run.reach, cached[i].reach) << i;
    EXPECT_DOUBLE_EQ(runs[i].filter_entries, a.filter_keys[i]) << i;
    EXPECT_DOUBLE_EQ(runs[i].files, levels[i].files) << i;
    ASSERT_NE(runs[i].model, nullptr);
    EXPECT_EQ(runs[i].model->kind(),
              i == 0 ? FilterKind::kFastLocalBloom : FilterKind::kRibbon)
        << i;
  }
}

// The advice for a block cache: the reads now, and a plan from the bits
// now that costs no more, in no more filter memory than now or 0.8 of a
// cache that holds more; the bits now where nothing costs less (a cache
// that holds the whole tree). A cache of twice the filters buys bits.
TEST(AdvisorTest, AdvisesForACacheFromTheBitsNowWithinTheirMemory) {
  std::vector<AdvisorLevel> levels = UniformTree();
  double filter_bytes = 0;
  for (AdvisorLevel& l : levels) {
    l.index_bytes = l.entries * 0.5;
    l.index_blocks = l.files;
    l.data_bytes = l.entries * 116;
    l.data_blocks = l.data_bytes / 4096;
    filter_bytes += l.filter_bytes;
  }
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  for (double partition : {0.0, 4096.0}) {
    SCOPED_TRACE(partition);
    for (double share : {0.05, 0.2, 0.5, 2.0, 1e6}) {
      SCOPED_TRACE(share);
      CacheLayout cache;
      cache.cache_bytes = share * filter_bytes;
      cache.partition_bytes = partition;
      const CacheAdvice advised = AdviseForCache(levels, a, cache);
      const BlockReads now = ExpectedBlockReads(
          CachedRunsNow(levels, a, partition), cache.cache_bytes);
      EXPECT_DOUBLE_EQ(advised.now.Cost(cache.read_latency_bytes),
                       now.Cost(cache.read_latency_bytes));
      const std::vector<CacheRunToPlan> runs =
          CacheRunsToPlan(levels, a, partition);
      ASSERT_EQ(advised.plan.bits.size(), levels.size());
      const double plan_bits = FilterBitsOf(runs, advised.plan.bits);
      EXPECT_LE(plan_bits,
                std::max(8 * filter_bytes, 8 * 0.8 * cache.cache_bytes) *
                    (1 + 1e-12));
      if (share == 2.0) EXPECT_GT(plan_bits, 1.2 * 8 * filter_bytes);
      EXPECT_LE(advised.plan.reads.Cost(cache.read_latency_bytes),
                now.Cost(cache.read_latency_bytes));
      if (share > 1e3) {  // every block cached: nothing is cheaper than now
        for (double bits : advised.plan.bits) EXPECT_DOUBLE_EQ(bits, 10);
        EXPECT_DOUBLE_EQ(advised.plan.reads.total(), now.total());
      }
    }
  }
  // Full filters at a twentieth of their bytes: whole filter blocks miss,
  // and a plan that moves bits between levels reads fewer bytes.
  CacheLayout tight;
  tight.cache_bytes = 0.05 * filter_bytes;
  const CacheAdvice advised = AdviseForCache(levels, a, tight);
  EXPECT_LT(advised.plan.reads.Cost(tight.read_latency_bytes),
            0.99 * advised.now.Cost(tight.read_latency_bytes));
}

TEST(AdvisorTest, SuggestsTheFilterKindsTheDatabaseHas) {
  EXPECT_EQ(SuggestedFilter(UniformTree()), "bloom");
  std::vector<AdvisorLevel> ribbon = {Filtered(0, 1, 1e5, 7, "ribbon"),
                                      Filtered(1, 1, 1e6, 7, "ribbon")};
  EXPECT_EQ(SuggestedFilter(ribbon), "ribbon");
  ribbon[0] = Filtered(0, 1, 1e5, 10, "bloom");
  EXPECT_EQ(SuggestedFilter(ribbon), "auto");
  // No L0 files: Ribbon below.
  EXPECT_EQ(SuggestedFilter({Filtered(1, 1, 1e6, 7, "ribbon")}), "ribbon");
  // Mostly Bloom below L0.
  EXPECT_EQ(SuggestedFilter({Filtered(1, 1, 1e5, 7, "ribbon"),
                             Filtered(2, 1, 1e6, 10, "bloom")}),
            "bloom");
  // Only L0 has filters.
  EXPECT_EQ(SuggestedFilter(
                {Filtered(0, 1, 1e5, 7, "ribbon"), Unfiltered(1, 1, 1e6)}),
            "ribbon");
  Advice a;
  ASSERT_EQ("", AdviseOn(ribbon, &a));
  EXPECT_EQ(a.filter, "auto");
  EXPECT_NE(a.same_fpr.options.find(";filter=auto"), std::string::npos);
}

TEST(AdvisorTest, OptionsStringsKeepRocksDbsResolution) {
  EXPECT_EQ(MonkeyOptionsString(7.12, true, "bloom"),
            "id=monkey;bits_per_key=7.12;filter=bloom");
  EXPECT_EQ(MonkeyOptionsString(7.12, false, "bloom"),
            "id=monkey;bits_per_key=7.12;last_level_filter=false;filter=bloom");
  EXPECT_EQ(MonkeyOptionsString(10, true, "ribbon"),
            "id=monkey;bits_per_key=10;filter=ribbon");
  EXPECT_EQ(MonkeyOptionsString(6.9004, true, "auto"),
            "id=monkey;bits_per_key=6.9;filter=auto");
  EXPECT_EQ(MonkeyOptionsString(6.123, true, "bloom"),
            "id=monkey;bits_per_key=6.123;filter=bloom");
}

TEST(AdvisorTest, RefusesWhatItCannotAdviseOn) {
  Advice a;
  EXPECT_EQ(AdviseOn({}, &a), "no SST files");
  EXPECT_EQ(AdviseOn({Unfiltered(0, 0, 0)}, &a), "no SST files");
  EXPECT_EQ(AdviseOn({Unfiltered(0, 2, 100), Unfiltered(1, 1, 1000)}, &a),
            "no filters");
  EXPECT_FALSE(HasFilters({Unfiltered(0, 2, 100)}));
  EXPECT_TRUE(HasFilters(UniformTree()));
  std::vector<AdvisorLevel> bad = UniformTree();
  bad[1].filter_bytes = std::nan("");
  EXPECT_NE(AdviseOn(bad, &a).find("level 1"), std::string::npos);
  bad = UniformTree();
  bad[2].model_fpr = 1.5;
  EXPECT_NE(AdviseOn(bad, &a).find("level 2"), std::string::npos);
  bad = UniformTree();
  bad[3].entries = -1;
  EXPECT_NE(AdviseOn(bad, &a).find("level 3"), std::string::npos);
  bad = UniformTree();
  bad.push_back(bad[1]);
  EXPECT_NE(AdviseOn(bad, &a).find("twice"), std::string::npos);
  bad = UniformTree();
  bad[0].level = 64;
  EXPECT_NE(AdviseOn(bad, &a).find("outside"), std::string::npos);
  // The files must be the levels' files.
  std::vector<LiveFile> files = FilesOf(UniformTree());
  files.pop_back();
  EXPECT_NE(
      Advise(UniformTree(), files, &a).find("level 3 has 60 files but 59"),
      std::string::npos);
  files = FilesOf(UniformTree());
  files.push_back(files.back());
  files.back().level = 5;
  EXPECT_NE(Advise(UniformTree(), files, &a).find("no level facts"),
            std::string::npos);
  files = FilesOf(UniformTree());
  files[0].entries = std::nan("");
  EXPECT_NE(Advise(UniformTree(), files, &a).find("file 1 "),
            std::string::npos);
}

// A Sum FPR that the suggested filters cannot reach: no same_fpr
// suggestion, and why.
TEST(AdvisorTest, AnUnreachableSumFprIsReportedNotPlanned) {
  std::vector<AdvisorLevel> levels = {Filtered(0, 1, 1e5, 40, "ribbon"),
                                      Filtered(1, 1, 1e6, 40, "ribbon"),
                                      Filtered(2, 1, 1e7, 40, "ribbon")};
  // Labelled Bloom, with Ribbon's FPR at 40 bits (2^-38): below what
  // Bloom's best filter (48 bits) reaches.
  for (AdvisorLevel& l : levels) l.filter = "bloom";
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  EXPECT_EQ(a.filter, "bloom");
  EXPECT_EQ(a.same_fpr.options, "");
  EXPECT_NE(a.same_fpr.error.find("keeps today's Sum FPR"), std::string::npos)
      << a.same_fpr.error;
  EXPECT_EQ(a.frozen_filter_bytes, 0);
  EXPECT_EQ(a.same_bytes.error, "");
}

}  // namespace
}  // namespace monkey

namespace monkey {
namespace {

// Filter probes per lookup, by byte position: each L0 file its share of
// the span, each level below the union of its files' ranges.
TEST(AdvisorTest, ProbesAreSharesOfTheKeyRange) {
  auto file = [](int level, uint64_t from, uint64_t to,
                 const std::string& prefix = "user:") {
    LiveFile f;
    f.level = level;
    f.entries = 100;
    f.smallest = Key(from, prefix);
    f.largest = Key(to, prefix);
    return f;
  };
  std::vector<double> probes =
      ProbesPerLookup({file(0, 0, 1000), file(0, 250, 750), file(1, 0, 250),
                       file(1, 200, 300), file(1, 500, 750), file(3, 0, 1000)});
  ASSERT_EQ(probes.size(), 4u);
  EXPECT_NEAR(probes[0], 1.5, 1e-12);
  EXPECT_NEAR(probes[1], 0.55, 1e-12);  // [0, 300] and [500, 750]
  EXPECT_EQ(probes[2], 0);
  EXPECT_NEAR(probes[3], 1, 1e-12);
  // Ends in either order (a reverse comparator).
  LiveFile reversed = file(1, 250, 0);
  probes = ProbesPerLookup({file(2, 0, 1000), reversed});
  EXPECT_NEAR(probes[1], 0.25, 1e-12);
  // A single point: every run is probed.
  probes = ProbesPerLookup({file(0, 7, 7), file(0, 7, 7), file(1, 7, 7)});
  EXPECT_EQ(probes, (std::vector<double>{2, 1}));
  EXPECT_TRUE(ProbesPerLookup({}).empty());
}

// Keys spelled as decimal digits (grow_tree's, YCSB's) are shares of their
// numbers: L1's files below hold ids 8-911,986 and 1,112,878-1,768,332 of
// 0-1,999,998, 78% of them; read in base 256 they held 5.7% (the advisor
// then put a grow_tree tree's Sigma FPR at 1.02% where 1.63% was measured).
TEST(AdvisorTest, DecimalKeysAreSharesOfTheirNumbers) {
  auto file = [](int level, uint64_t from, uint64_t to) {
    LiveFile f;
    f.level = level;
    f.entries = 100;
    f.smallest = test::DecimalKey(from);
    f.largest = test::DecimalKey(to);
    return f;
  };
  const std::vector<double> probes =
      ProbesPerLookup({file(1, 8, 584302), file(1, 584326, 911986),
                       file(1, 1112878, 1330724), file(1, 1330740, 1768332),
                       file(2, 0, 1112876), file(2, 1112880, 1999998)});
  ASSERT_EQ(probes.size(), 3u);
  EXPECT_NEAR(probes[1], (911986 - 8 + 1768332 - 1112878) / 1999998.0, 1e-3);
  EXPECT_NEAR(probes[2], 1, 1e-3);
}

// A level whose files hold a fifth of the key range (compactions moved the
// rest down) is probed by a fifth of the lookups: it counts a fifth in
// every Sum FPR. The policy plans with the reach it estimates itself.
TEST(AdvisorTest, SumsCountProbesPerLookup) {
  const std::vector<AdvisorLevel> levels = UniformTree();
  Advice full, partial;
  ASSERT_EQ("", AdviseOn(levels, &full));
  const std::vector<LiveFile> files = FilesOf(levels, {{1, kKeySpace / 5}});
  ASSERT_EQ("", Advise(levels, files, &partial));
  EXPECT_NEAR(partial.probes[1], 0.2, 1e-12);
  EXPECT_NEAR(partial.probes[0], 3, 1e-12);
  const double p = levels[0].model_fpr;
  EXPECT_NEAR(partial.sum_fpr_now, (3 + 0.2 + 1 + 1) * p, 1e-12 * p);
  // The policy's runs: the listener's shape of the same files, where L1's
  // range holds about a fifth of the keys (rank space: 23.06M of 111.3M).
  EXPECT_EQ(partial.shape[1].runs, ProjectLiveShape(files, {})[1].runs);
  EXPECT_NEAR(partial.shape[1].runs, 23.06e6 / 111.3e6, 1e-3);
  // The plan is the policy's; its Sum FPR counts probes.
  const Plan plan =
      PolicyPlan(partial.live, partial.same_bytes.bits_per_key, true, "bloom");
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(partial.same_bytes.plan.levels[i].millibits_per_key,
              plan.levels[i].millibits_per_key);
    sum += partial.probes[i] * plan.levels[i].fpr;
  }
  EXPECT_NEAR(partial.same_bytes.plan.sum_fpr, sum, 1e-15);
  // A lower Sum FPR now takes more bits to keep.
  EXPECT_GT(partial.same_fpr.bits_per_key, full.same_fpr.bits_per_key);
  // With L0, the policy gives L1 what L1 with L0's keys folded in is worth
  // (the tree L0's keys are going to, util/live_plan.h): L0's reach, all of
  // it. Without L0, a level it finds less reach in is worth fewer bits.
  EXPECT_EQ(partial.same_bytes.plan.levels[1].millibits_per_key,
            full.same_bytes.plan.levels[1].millibits_per_key);
  const std::vector<AdvisorLevel> settled = SettledTree();
  Advice settled_full, settled_partial;
  ASSERT_EQ("", AdviseOn(settled, &settled_full));
  ASSERT_EQ("", Advise(settled, FilesOf(settled, {{1, kKeySpace / 5}}),
                       &settled_partial));
  EXPECT_LT(settled_partial.shape[1].runs, 0.25);
  EXPECT_LT(settled_partial.same_bytes.plan.levels[1].millibits_per_key,
            settled_full.same_bytes.plan.levels[1].millibits_per_key);
}

// Prefix filters (a prefix extractor, whole_key_filtering=false) hold one
// entry per prefix, at a rate per stored key that falls with depth. The
// budget is in real bits per filter entry, and the policy's listener
// publishes each level in filter entries: the advisor plans that shape and
// prices bits on filter entries.
TEST(AdvisorTest, CountsFilterEntriesNotStoredKeys) {
  // Filter entries per stored key: L0 0.75, L1 0.3, L2 0.1, L3 0.07; L4,
  // the last level, has no filter.
  const std::vector<double> rate = {0.75, 0.3, 0.1, 0.07};
  std::vector<AdvisorLevel> levels = UniformTree();
  for (size_t i = 0; i < rate.size(); ++i) {
    AdvisorLevel& l = levels[i];
    l.filter_entries = l.entries * rate[i];
    l.filter_bytes = l.filter_entries * 10 / 8;  // 10 bits per entry
  }
  levels.push_back(Unfiltered(4, 400, 1e9));
  const std::vector<LiveFile> files = FilesOf(levels);
  Advice a;
  ASSERT_EQ("", Advise(levels, files, &a));

  // What the policy's listener publishes once each file's filter is known,
  // without the filters as built.
  std::vector<LiveFile> known = files;
  double filter_entries = 0, filtered_keys = 0;
  for (LiveFile& f : known) {
    if (f.level == 4) continue;
    f.filter_known = true;
    f.filter_entries = f.entries * rate[f.level];
    f.filter_bits = 10 * f.filter_entries;
    filter_entries += f.filter_entries;
    filtered_keys += f.entries;
  }
  const std::vector<LiveLevel> live = ProjectLiveShape(known, {});
  ASSERT_EQ(a.live.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    SCOPED_TRACE("L" + std::to_string(i));
    EXPECT_NEAR(a.live[i].entries, live[i].entries, 1e-9 * live[i].entries);
    EXPECT_NEAR(a.live[i].runs, live[i].runs, 1e-9);
    EXPECT_EQ(a.live[i].filter_bits, 0);  // no filter counted as built
    EXPECT_EQ(a.live[i].built_entries, 0);
    EXPECT_NEAR(a.shape[i].entries, live[i].entries, 1e-9 * live[i].entries);
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(a.filter_keys[i], levels[i].filter_entries);
  }
  // The unfiltered last level: its keys at the tree's rate.
  EXPECT_NEAR(a.filter_keys[4], 1e9 * filter_entries / filtered_keys, 1e-3);
  // Realized bits per filter entry; the suggestions' bytes are their bits
  // per filter entry.
  EXPECT_NEAR(a.bits_per_key_now, 10, 1e-12);
  EXPECT_NEAR(a.filtered_entries, filter_entries, 1e-6);
  EXPECT_LE(a.same_bytes.filter_bytes, a.filter_bytes_now);
  // The policy's plan on its own shape.
  const Plan plan = PolicyPlan(live, a.same_bytes.bits_per_key, false, "bloom");
  ASSERT_EQ(plan.levels.size(), a.same_bytes.plan.levels.size());
  for (size_t i = 0; i < plan.levels.size(); ++i) {
    EXPECT_EQ(a.same_bytes.plan.levels[i].millibits_per_key,
              plan.levels[i].millibits_per_key)
        << "L" << i;
  }
}

// Files without a filter in a level of prefix filters: they would hold their
// keys at the level's filter entries per key, and let through the lookups
// in their share of the level's stored keys.
TEST(AdvisorTest, FilesWithoutFiltersWeighByStoredKeys) {
  std::vector<AdvisorLevel> levels = UniformTree();
  levels[2].unfiltered_entries = 2.5e6;   // a quarter of L2's keys
  levels[2].filter_entries = 7.5e6 / 16;  // 16 keys a prefix
  levels[2].filter_bytes = levels[2].filter_entries * 10 / 8;
  Advice a;
  ASSERT_EQ("", AdviseOn(levels, &a));
  const double p = levels[0].model_fpr;
  EXPECT_NEAR(a.fpr_now[2], 0.75 * p + 0.25, 1e-15);
  EXPECT_DOUBLE_EQ(a.filter_keys[2], 1e7 / 16);
}

}  // namespace
}  // namespace monkey
