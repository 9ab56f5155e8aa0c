// Tests of the monkey_plan tool (tools/monkey_plan.cc, tools/advisor/): the
// --objective and --max_sum_fpr flags on the static shape, the advisor on
// small real databases written here (its text, its JSON keys and values
// against the table properties, its options strings), opening a database
// that another process holds open, and every bad input with its exit code.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/table/shape_listener.h"
#include "monkey/tests/small_tree_options.h"
#include "monkey/tests/table/policy_peer.h"
#include "monkey/tests/test_util.h"
#include "monkey/util/advisor.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/key_permutation.h"
#include "monkey/util/live_shape.h"
#include "nlohmann/json.hpp"
#include "rocksdb/comparator.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"

namespace monkey {
namespace {

using nlohmann::json;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs monkey_plan with `args` (shell words) and collects its exit status,
// stdout and stderr.
Result MonkeyPlan(const std::string& args) {
  test::TempDir dir;
  const std::string command = std::string(MONKEY_PLAN) + " " + args + " >" +
                              dir.Sub("out") + " 2>" + dir.Sub("err");
  const int status = std::system(command.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (auto [name, text] : {std::pair{"out", &r.out}, {"err", &r.err}}) {
    std::ifstream in(dir.Sub(name));
    std::stringstream buf;
    buf << in.rdbuf();
    *text = buf.str();
  }
  return r;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// The "avg bits/key, sum FPR" line of a plan table: Monkey's bits/key and
// Sum FPR (in %), then uniform's.
std::vector<double> Totals(const std::string& out) {
  const size_t at = out.find("avg bits/key, sum FPR");
  EXPECT_NE(at, std::string::npos) << out;
  std::vector<double> totals;
  std::stringstream line(out.substr(at + 21, out.find('\n', at) - at - 21));
  std::string word;
  while (line >> word) {
    if (word != "|") totals.push_back(std::strtod(word.c_str(), nullptr));
  }
  return totals;
}

TEST(MonkeyPlanTest, MemoryObjectiveMatchesUniformWithFewerBits) {
  const Result r =
      MonkeyPlan("--objective=memory --bits_per_key=10 --num_levels=6");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("objective=memory"), std::string::npos) << r.out;
  const std::vector<double> t = Totals(r.out);
  ASSERT_EQ(t.size(), 4u) << r.out;
  EXPECT_EQ(t[2], 10);    // uniform bits/key
  EXPECT_LE(t[1], t[3]);  // Sum FPR no worse than uniform 10 bits
  EXPECT_GE(t[1], 0.99 * t[3]);
  EXPECT_LT(t[0], 7.5);  // docs/math.md: 6.81 bits/key at 6 levels
}

TEST(MonkeyPlanTest, MaxSumFprIsTheTarget) {
  const Result r = MonkeyPlan(
      "--objective=memory --max_sum_fpr=0.02 --num_levels=6 "
      "--last_level_filter=false");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<double> t = Totals(r.out);
  ASSERT_EQ(t.size(), 4u) << r.out;
  EXPECT_LE(t[1], 2.0);
  EXPECT_GE(t[1], 1.98);
  EXPECT_NE(r.out.find("L5 "), std::string::npos);
  EXPECT_NE(r.out.find("none"), std::string::npos);  // no last-level filter
  // Less memory for a looser target.
  const Result loose = MonkeyPlan(
      "--objective=memory --max_sum_fpr=0.05 --num_levels=6 "
      "--last_level_filter=false");
  ASSERT_EQ(loose.code, 0) << loose.err;
  EXPECT_LT(Totals(loose.out)[0], t[0]);
}

TEST(MonkeyPlanTest, FprObjectiveIsTheDefault) {
  const Result plain = MonkeyPlan("--bits_per_key=7 --num_levels=5");
  const Result fpr =
      MonkeyPlan("--objective=fpr --bits_per_key=7 --num_levels=5");
  ASSERT_EQ(plain.code, 0);
  EXPECT_EQ(plain.out, fpr.out);
  EXPECT_NE(plain.out.find("monkey plan: 7 bits/key"), std::string::npos);
}

TEST(MonkeyPlanTest, BadFlagsExitOneNamingThem) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"--objective=speed", "--objective must be fpr or memory"},
      {"--max_sum_fpr=0.02", "--max_sum_fpr needs --objective=memory"},
      {"--objective=memory --max_sum_fpr=0", "max_sum_fpr must be"},
      {"--objective=memory --max_sum_fpr=-1", "max_sum_fpr must be"},
      {"--objective=memory --max_sum_fpr=nan", "max_sum_fpr must be"},
      {"--objective=memory --max_sum_fpr=1e-12", "cannot be reached"},
      {"--objective=memory --bits_per_key=101", "bits_per_key"},
      {"--json", "--json needs --db"},
      {"--column_family=x", "--column_family needs --db"},
      {"--cache_bytes=1000", "--cache_bytes needs --db"},
      {"--db=/tmp --cache_bytes=0", "--cache_bytes must be at least 1, got 0"},
      {"--db=/tmp --cache_bytes=-5", "--cache_bytes must be at least 1"},
      {"--read_latency_bytes=1000", "--read_latency_bytes needs --db"},
      {"--db=/tmp --read_latency_bytes=1000",
       "--read_latency_bytes applies with --cache_bytes"},
      {"--db=/tmp --cache_bytes=1000 --read_latency_bytes=0",
       "--read_latency_bytes must be a finite number above 0"},
      {"--db=/tmp --objective=memory", "--objective does not apply with --db"},
      {"--db=/tmp --bits_per_key=7", "--bits_per_key does not apply"},
      {"--model=cuckoo", "--model must be"},
  };
  for (const auto& c : cases) {
    const Result r = MonkeyPlan(c.args);
    EXPECT_EQ(r.code, 1) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
  }
}

TEST(MonkeyPlanTest, HelpDocumentsTheExitCodes) {
  const Result r = MonkeyPlan("--help");
  for (const char* code :
       {"  2  --db: the path does not exist", "  3  --db: the path is not",
        "  4  --db: no column family", "  5  --db: no SST file",
        "  6  --db: a table's properties", "  7  --db: RocksDB could not"}) {
    EXPECT_NE((r.out + r.err).find(code), std::string::npos) << code;
  }
}

// The advisor predicts with the policy's own live plan, on the live shape
// the policy's listener publishes (ProjectLiveShape of the files, with
// their key ranges): what PolicyPlan says a string builds, and what the
// advice's own strings are said to build, is what a policy made from that
// string builds for each level of the same tree.
TEST(MonkeyPlanTest, TheAdvisorPredictsWhatThePolicyBuilds) {
  // Decimal keys; L0's two files over most of the range, L1 over part of
  // it (compactions moved the rest down), L3 empty, L4 the last level.
  auto key = [](uint64_t id) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%012llu", static_cast<unsigned long long>(id));
    return std::string(buf);
  };
  std::vector<LiveFile> files;
  auto add = [&](int level, double entries, uint64_t from, uint64_t to) {
    LiveFile f;
    f.number = files.size() + 1;
    f.level = level;
    f.entries = entries;
    f.bytes = 120 * entries;
    f.smallest = key(from);
    f.largest = key(to);
    files.push_back(f);
  };
  add(0, 4.5e5, 10, 999000);
  add(0, 4.5e5, 2000, 990000);
  add(1, 1.35e6, 0, 300000);
  add(1, 1.35e6, 300100, 610000);
  for (int i = 0; i < 12; ++i) add(2, 1e6, i * 83333, i * 83333 + 83000);
  for (int i = 0; i < 100; ++i) add(4, 1.1e6, i * 10000, i * 10000 + 9990);
  const std::vector<LiveLevel> live = ProjectLiveShape(files, {});
  ASSERT_EQ(live.size(), 5u);
  EXPECT_LT(live[1].runs, 0.8);  // L1's reach is partial

  auto expect_builds = [&](const std::string& options, const Plan& plan) {
    SCOPED_TRACE(options);
    const auto policy = test::PolicyOrDie(options);
    const auto* monkey = policy->CheckedCast<MonkeyFilterPolicy>();
    ASSERT_NE(monkey, nullptr);
    MonkeyFilterPolicyPeer::UpdateLiveShape(*monkey, "cf", live);
    ASSERT_EQ(plan.levels.size(), live.size());
    for (int level = 0; level < static_cast<int>(live.size()); ++level) {
      if (!(live[level].entries > 0)) continue;
      EXPECT_EQ(monkey->MillibitsForLevel(level, 7, "cf"),
                plan.levels[level].millibits_per_key)
          << "L" << level;
    }
  };
  for (const std::string filter : {"bloom", "ribbon", "auto"}) {
    for (bool last_level_filter : {true, false}) {
      for (double bits : {5.5, 8.498, 12.0}) {
        expect_builds(MonkeyOptionsString(bits, last_level_filter, filter),
                      PolicyPlan(live, bits, last_level_filter, filter));
      }
    }
  }

  // The advice on these files (uniform 10-bit Bloom filters now): both of
  // its strings, and the plans it predicts for them.
  std::vector<AdvisorLevel> levels;
  for (int level : {0, 1, 2, 4}) {
    AdvisorLevel l;
    l.level = level;
    for (const LiveFile& f : files) {
      if (f.level != level) continue;
      l.files += 1;
      l.entries += f.entries;
    }
    l.filter_entries = l.entries;
    l.filter_bytes = l.entries * 10 / 8;
    l.filter = "bloom";
    l.model_fpr = FprModel::FastLocalBloom().FalsePositiveRate(10);
    levels.push_back(l);
  }
  Advice advice;
  ASSERT_EQ("", Advise(levels, files, &advice));
  ASSERT_EQ("", advice.same_bytes.error);
  ASSERT_EQ("", advice.same_fpr.error);
  expect_builds(advice.same_bytes.options, advice.same_bytes.plan);
  expect_builds(advice.same_fpr.options, advice.same_fpr.plan);
}

// A small leveled tree under `filter_uri` ("" for no filter): 30000 keys in
// random order, compacted into several levels, then three more flushes kept
// in L0 (automatic compactions off) so that L0 has runs.
ROCKSDB_NAMESPACE::Options TreeOptions(const std::string& filter_uri) {
  ROCKSDB_NAMESPACE::Options options =
      test::SmallTreeOptions(64, 64, 256, false);
  options.max_bytes_for_level_multiplier = 4;
  if (!filter_uri.empty()) {
    EXPECT_TRUE(Install(filter_uri, &options).ok()) << filter_uri;
  }
  return options;
}

void WriteTree(ROCKSDB_NAMESPACE::DB* db,
               ROCKSDB_NAMESPACE::ColumnFamilyHandle* cf = nullptr,
               uint64_t keys = 30000) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  const KeyPermutation permutation(7);
  const std::string value(100, 'v');
  for (uint64_t i = 0; i < keys; ++i) {
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), cf,
                        test::Key(permutation.At(i) % 1000000000), value)
                    .ok());
  }
  test::WaitForCompactions(db);
  ASSERT_TRUE(db->SetOptions(cf, {{"disable_auto_compactions", "true"}}).ok());
  for (uint64_t i = keys; i < keys + 3000; ++i) {
    ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), cf,
                        test::Key(permutation.At(i) % 1000000000), value)
                    .ok());
    if ((i - keys) % 1000 == 999) {
      ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions(), cf).ok());
    }
  }
}

std::set<std::string> Keys(const json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

// The advisor's JSON keys, exactly as docs/advisor.md documents them.
void ExpectJsonKeys(const json& cf) {
  EXPECT_EQ(Keys(cf), (std::set<std::string>{"name", "levels", "sum_fpr_now",
                                             "filter_bytes_now", "same_bytes",
                                             "same_fpr"}));
  for (const json& level : cf["levels"]) {
    EXPECT_EQ(Keys(level),
              (std::set<std::string>{"level", "files", "entries",
                                     "filter_bytes", "filter_entries",
                                     "bits_per_key", "filter", "model_fpr"}));
  }
  if (!cf["same_bytes"].is_null()) {
    EXPECT_EQ(Keys(cf["same_bytes"]),
              (std::set<std::string>{"sum_fpr", "options"}));
  }
  if (!cf["same_fpr"].is_null()) {
    EXPECT_EQ(Keys(cf["same_fpr"]),
              (std::set<std::string>{"filter_bytes", "saving", "options"}));
  }
}

TEST(MonkeyPlanTest, AdvisesOnASmallDatabase) {
  test::TempDir dir;
  const std::string path = dir.Sub("db");
  {
    auto db = test::OpenOrDie(TreeOptions("bloomfilter:10"), path);
    WriteTree(db.get());
  }
  const Result text = MonkeyPlan("--db=" + Quote(path));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("column family 'default'"), std::string::npos);
  for (const char* want :
       {"runs", "L0 ", "now:        sum FPR", "same bytes: sum FPR",
        "same FPR:   filters", "id=monkey;bits_per_key="}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << text.out;
  }

  const Result r = MonkeyPlan("--db=" + Quote(path) + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json all = json::parse(r.out);
  EXPECT_EQ(Keys(all), std::set<std::string>{"column_families"});
  ASSERT_EQ(all["column_families"].size(), 1u);
  const json& cf = all["column_families"][0];
  ExpectJsonKeys(cf);
  EXPECT_EQ(cf["name"], "default");

  // Against the database's own table properties, read here.
  ROCKSDB_NAMESPACE::Options options = TreeOptions("bloomfilter:10");
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDBForReadOnly(options, path, &db).ok());
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  uint64_t filter_bytes = 0;
  for (const auto& [name, p] : props) filter_bytes += p->filter_size;
  EXPECT_EQ(cf["filter_bytes_now"], filter_bytes);
  // The files as the policy's listener describes them, for each level's
  // filter probes per absent-key lookup.
  std::vector<LiveFile> files;
  for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
    for (const auto& f : level.files) {
      LiveFile file = DescribeFile(f, level.level);
      file.entries = props.at(f.db_path + f.name)->num_entries;
      files.push_back(file);
    }
  }
  const std::vector<double> probes_at = ProbesPerLookup(files);
  double sum_fpr = 0;
  int levels_with_files = 0;
  for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
    if (level.files.empty()) continue;
    ++levels_with_files;
    uint64_t entries = 0, level_filter_bytes = 0, filter_entries = 0;
    // Each file's FPR by the model at its filter body's bits per key: the
    // level's model FPR is their average (by key range).
    double lowest = 1, highest = 0;
    const double probes = probes_at.at(level.level);
    for (const auto& f : level.files) {
      entries += f.num_entries;
      const auto& p = props.at(f.db_path + f.name);
      level_filter_bytes += p->filter_size;
      filter_entries += p->num_filter_entries;
      const double file_fpr = FprModel::FastLocalBloom().FalsePositiveRate(
          FilterBodyBitsPerKey(p->filter_size, p->num_filter_entries));
      lowest = std::min(lowest, file_fpr);
      highest = std::max(highest, file_fpr);
    }
    const json* found = nullptr;
    for (const json& l : cf["levels"]) {
      if (l["level"] == level.level) found = &l;
    }
    ASSERT_NE(found, nullptr) << "L" << level.level;
    EXPECT_EQ((*found)["files"], level.files.size());
    EXPECT_EQ((*found)["entries"], entries);
    EXPECT_EQ((*found)["filter_bytes"], level_filter_bytes);
    EXPECT_EQ((*found)["filter_entries"], filter_entries);
    EXPECT_EQ((*found)["filter"], "bloom");
    EXPECT_DOUBLE_EQ((*found)["bits_per_key"].get<double>(),
                     8.0 * level_filter_bytes / filter_entries);
    const double fpr = (*found)["model_fpr"];
    EXPECT_GE(fpr, lowest * (1 - 1e-12));
    EXPECT_LE(fpr, highest * (1 + 1e-12));
    // A level is probed at most once per lookup, each L0 file once.
    EXPECT_LE(probes, level.level == 0 ? level.files.size() : 1.0);
    EXPECT_GT(probes, 0);
    sum_fpr += probes * fpr;
  }
  EXPECT_EQ(cf["levels"].size(), levels_with_files);
  EXPECT_GE(levels_with_files, 3) << text.out;
  EXPECT_GE(meta.levels[0].files.size(), 3u) << text.out;
  EXPECT_NEAR(cf["sum_fpr_now"].get<double>(), sum_fpr, 1e-12);

  // Monkey does better at the same bytes, and needs less for the same FPR.
  EXPECT_LT(cf["same_bytes"]["sum_fpr"].get<double>(), 0.7 * sum_fpr);
  const double saving = cf["same_fpr"]["saving"];
  EXPECT_GT(saving, 0.1);
  EXPECT_NEAR(cf["same_fpr"]["filter_bytes"].get<double>(),
              (1 - saving) * filter_bytes, 1.0);
  // Both strings are Monkey policies the library accepts.
  for (const char* which : {"same_bytes", "same_fpr"}) {
    const std::string options_string = cf[which]["options"];
    EXPECT_EQ(options_string.rfind("id=monkey;bits_per_key=", 0), 0u);
    EXPECT_NE(options_string.find(";filter=bloom"), std::string::npos);
    EXPECT_NE(test::PolicyOrDie(options_string), nullptr) << options_string;
  }
}

// Universal compaction: one sorted run per L0 file and per non-empty level
// below, newest first, each with its file's filter bytes and entries from
// the table properties; the false positives now are the sum over runs of
// probes x model FPR; and Monkey's tiered plan does better at the same
// bytes and needs fewer for the same false positives.
TEST(MonkeyPlanTest, AdvisesOnAUniversalDatabase) {
  test::TempDir dir;
  const std::string path = dir.Sub("db");
  ROCKSDB_NAMESPACE::Options options = TreeOptions("bloomfilter:10");
  options.compaction_style = ROCKSDB_NAMESPACE::kCompactionStyleUniversal;
  options.num_levels = 7;
  {
    // Compacted into one run at the last level, then four flushes kept in
    // L0. Not test::WaitForCompactions: 7.8.3 reports a universal
    // compaction pending that it never picks.
    auto db = test::OpenOrDie(options, path);
    const KeyPermutation permutation(7);
    const std::string value(100, 'v');
    for (uint64_t i = 0; i < 12000; ++i) {
      if (i == 8000) {
        ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
        ASSERT_TRUE(
            db->SetOptions({{"disable_auto_compactions", "true"}}).ok());
      }
      ASSERT_TRUE(
          db->Put({}, test::Key(permutation.At(i) % 1000000000), value).ok());
      if (i >= 8000 && i % 1000 == 999) {
        ASSERT_TRUE(db->Flush({}).ok());
      }
    }
    WaitForPlans(db.get());
  }
  const Result text = MonkeyPlan("--db=" + Quote(path));
  ASSERT_EQ(text.code, 0) << text.err;
  for (const char* want :
       {"universal compaction", "run  level", "false positives per absent",
        "same bytes: false positives", "same FPR:   filters",
        "id=monkey;bits_per_key="}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << text.out;
  }
  const Result r = MonkeyPlan("--db=" + Quote(path) + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json cf = json::parse(r.out)["column_families"][0];
  EXPECT_EQ(Keys(cf),
            (std::set<std::string>{
                "name", "compaction_style", "levels", "sorted_runs",
                "sum_fpr_now", "filter_bytes_now", "same_bytes", "same_fpr"}));
  EXPECT_EQ(cf["compaction_style"], "universal");
  EXPECT_EQ(Keys(cf["same_bytes"]),
            (std::set<std::string>{"sum_fpr", "filter_bytes", "options"}));
  EXPECT_EQ(
      Keys(cf["same_fpr"]),
      (std::set<std::string>{"filter_bytes", "saving", "sum_fpr", "options"}));

  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDBForReadOnly(options, path, &db).ok());
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  // The runs as universal compaction counts them (CalculateSortedRuns), in
  // its order: L0 newest file first, then the levels down.
  struct Run {
    int level;
    uint64_t filter_bytes = 0, filter_entries = 0;
    double lowest_fpr = 1, highest_fpr = 0;  // of its files, by the model
  };
  std::vector<Run> want;
  for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
    for (const auto& f : level.files) {
      const auto& p = props.at(f.db_path + f.name);
      if (level.level == 0 || want.empty() || want.back().level != level.level)
        want.push_back({level.level});
      Run& run = want.back();
      run.filter_bytes += p->filter_size;
      run.filter_entries += p->num_filter_entries;
      const double fpr = FprModel::FastLocalBloom().FalsePositiveRate(
          FilterBodyBitsPerKey(p->filter_size, p->num_filter_entries));
      run.lowest_fpr = std::min(run.lowest_fpr, fpr);
      run.highest_fpr = std::max(run.highest_fpr, fpr);
    }
  }
  ASSERT_GE(meta.levels[0].files.size(), 4u) << text.out;
  ASSERT_GE(meta.levels.back().files.size(), 2u) << text.out;
  ASSERT_EQ(cf["sorted_runs"].size(), want.size()) << r.out;
  double false_positives = 0, bytes = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const json& run = cf["sorted_runs"][i];
    EXPECT_EQ(run["level"], want[i].level) << i;
    EXPECT_EQ(run["filter_bytes"], want[i].filter_bytes) << i;
    EXPECT_EQ(run["filter_entries"], want[i].filter_entries) << i;
    EXPECT_EQ(run["file_number"].is_null(), want[i].level != 0) << i;
    // A run's model FPR is its files' (weighted by key range).
    const double fpr = run["model_fpr"];
    EXPECT_GE(fpr, want[i].lowest_fpr * (1 - 1e-12)) << i;
    EXPECT_LE(fpr, want[i].highest_fpr * (1 + 1e-12)) << i;
    // Random keys: every run spans nearly all the key space, so nearly
    // every lookup probes every run once.
    EXPECT_GT(run["probes"].get<double>(), 0.9) << i;
    EXPECT_LE(run["probes"].get<double>(), 1.0) << i;
    false_positives += run["probes"].get<double>() * fpr;
    bytes += want[i].filter_bytes;
  }
  EXPECT_NEAR(cf["sum_fpr_now"].get<double>(), false_positives, 1e-12);
  EXPECT_EQ(cf["filter_bytes_now"], bytes);
  EXPECT_LT(cf["same_bytes"]["sum_fpr"].get<double>(), false_positives);
  EXPECT_LE(cf["same_bytes"]["filter_bytes"].get<double>(), bytes * 1.001);
  EXPECT_GT(cf["same_fpr"]["saving"].get<double>(), 0);
  EXPECT_LE(cf["same_fpr"]["sum_fpr"].get<double>(), false_positives * 1.001);
  for (const char* which : {"same_bytes", "same_fpr"}) {
    const std::string options_string = cf[which]["options"];
    EXPECT_EQ(options_string.rfind("id=monkey;bits_per_key=", 0), 0u);
    EXPECT_NE(test::PolicyOrDie(options_string), nullptr) << options_string;
  }
}

// Prefix filters: NewFixedPrefixTransform(8), whole_key_filtering=false,
// 16 keys a prefix. Each level's filter entries are its files'
// num_filter_entries (prefixes, far fewer than its keys), and its realized
// bits are per filter entry, in the JSON and in the text.
// --cache_bytes: the modelled block reads per absent-key lookup, for full
// and partitioned filters (the layout read from the OPTIONS file): none
// where everything fits, every block where nothing does, and fewer as the
// cache grows.
TEST(MonkeyPlanTest, ModelsBlockReadsThroughABlockCache) {
  for (bool partitioned : {false, true}) {
    SCOPED_TRACE(partitioned ? "partitioned" : "full");
    test::TempDir dir;
    const std::string path = dir.Sub("db");
    {
      ROCKSDB_NAMESPACE::Options options = TreeOptions("bloomfilter:10");
      auto* table =
          options.table_factory
              ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
      ASSERT_NE(table, nullptr);
      if (partitioned) {
        table->partition_filters = true;
        table->index_type = ROCKSDB_NAMESPACE::BlockBasedTableOptions::
            IndexType::kTwoLevelIndexSearch;
        table->metadata_block_size = 256;
      }
      auto db = test::OpenOrDie(options, path);
      WriteTree(db.get());
    }
    std::vector<double> totals;
    for (int64_t cache :
         {int64_t{1}, int64_t{20000}, int64_t{200000}, int64_t{1} << 40}) {
      const Result r =
          MonkeyPlan("--db=" + Quote(path) +
                     " --json --cache_bytes=" + std::to_string(cache));
      ASSERT_EQ(r.code, 0) << r.err;
      const json cf = json::parse(r.out)["column_families"][0];
      ASSERT_TRUE(cf.contains("block_reads")) << r.out;
      const json& reads = cf["block_reads"];
      EXPECT_EQ(Keys(reads), (std::set<std::string>{
                                 "cache_bytes", "read_latency_bytes",
                                 "filter_layout", "filter", "index", "data",
                                 "total", "bytes", "cost", "plan"}));
      // The plan for this cache: bits per level with files, its reads never
      // costlier than the database's own filters', in no more filter
      // memory than now, or 0.8 of a cache that holds more.
      const json& plan = reads["plan"];
      EXPECT_EQ(Keys(plan), (std::set<std::string>{"levels", "bits_per_key",
                                                   "filter", "index", "data",
                                                   "total", "bytes", "cost"}));
      EXPECT_EQ(plan["levels"].size(), cf["levels"].size());
      EXPECT_EQ(plan["bits_per_key"].size(), cf["levels"].size());
      EXPECT_LE(plan["cost"].get<double>(), reads["cost"].get<double>())
          << r.out;
      double planned_bits = 0;
      for (size_t i = 0; i < cf["levels"].size(); ++i) {
        planned_bits += cf["levels"][i]["filter_entries"].get<double>() *
                        plan["bits_per_key"][i].get<double>();
      }
      EXPECT_LE(planned_bits, std::max(8 * cf["filter_bytes_now"].get<double>(),
                                       8 * 0.8 * static_cast<double>(cache)) *
                                  1.001);
      EXPECT_EQ(reads["read_latency_bytes"], 131072);
      EXPECT_NEAR(
          reads["cost"].get<double>(),
          reads["total"].get<double>() + reads["bytes"].get<double>() / 131072,
          1e-9);
      EXPECT_EQ(reads["cache_bytes"], cache);
      EXPECT_EQ(reads["filter_layout"], partitioned ? "partitioned" : "full");
      const double filter = reads["filter"], index = reads["index"],
                   data = reads["data"], total = reads["total"];
      EXPECT_NEAR(total, filter + index + data, 1e-12);
      if (cache == 1) {
        // Next to nothing cached: every lookup reads a filter block at each
        // level it reaches (at least the last, which spans the keys), and
        // past a false positive an index and a data block.
        EXPECT_GE(filter, 1);
        EXPECT_NEAR(index, data, 1e-6 * index);
        EXPECT_GT(index, 0);
        EXPECT_LT(index, 0.1 * filter);
      }
      totals.push_back(total);
    }
    EXPECT_GT(totals[0], totals[1]);
    EXPECT_GT(totals[1], totals[2]);
    EXPECT_EQ(totals[3], 0);
    const Result text =
        MonkeyPlan("--db=" + Quote(path) + " --cache_bytes=20000");
    ASSERT_EQ(text.code, 0) << text.err;
    for (const char* want :
         {"Block reads per absent-key lookup through a 20000-byte block cache",
          "  now:       filter ", "  planned:   filter ", "with bits/key L"}) {
      EXPECT_NE(text.out.find(want), std::string::npos) << want << text.out;
    }
  }
}

TEST(MonkeyPlanTest, CountsFilterEntriesOfPrefixFilters) {
  test::TempDir dir;
  const std::string path = dir.Sub("db");
  auto options_of = [] {
    ROCKSDB_NAMESPACE::Options options = TreeOptions("bloomfilter:10");
    options.prefix_extractor.reset(
        ROCKSDB_NAMESPACE::NewFixedPrefixTransform(8));
    auto* table = options.table_factory
                      ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
    EXPECT_NE(table, nullptr);
    if (table != nullptr) table->whole_key_filtering = false;
    return options;
  };
  {
    auto db = test::OpenOrDie(options_of(), path);
    // Key i: prefix i / 16 in 8 digits, then i % 16; in a fixed random order.
    constexpr uint64_t kKeys = 30000;
    const KeyPermutation permutation(7);
    std::vector<std::pair<uint64_t, uint64_t>> order;
    for (uint64_t i = 0; i < kKeys; ++i) {
      order.emplace_back(permutation.At(i), i);
    }
    std::sort(order.begin(), order.end());
    const std::string value(100, 'v');
    char key[32];
    for (size_t n = 0; n < order.size(); ++n) {
      const uint64_t i = order[n].second;
      snprintf(key, sizeof(key), "%08llu%08llu",
               static_cast<unsigned long long>(i / 16),
               static_cast<unsigned long long>(i % 16));
      ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(), key, value).ok());
      if (n == kKeys - 3000) {
        test::WaitForCompactions(db.get());
        ASSERT_TRUE(
            db->SetOptions({{"disable_auto_compactions", "true"}}).ok());
      }
      if (n > kKeys - 3000 && n % 1000 == 999) {
        ASSERT_TRUE(db->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
      }
    }
  }
  const Result text = MonkeyPlan("--db=" + Quote(path));
  ASSERT_EQ(text.code, 0) << text.err;
  for (const char* want :
       {"filt entries", "bits/entry", "bits per filter entry"}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << text.out;
  }
  const Result r = MonkeyPlan("--db=" + Quote(path) + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json all = json::parse(r.out);
  const json& cf = all["column_families"][0];
  ExpectJsonKeys(cf);

  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDBForReadOnly(options_of(), path, &db).ok());
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  ROCKSDB_NAMESPACE::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  size_t levels_with_files = 0;
  uint64_t all_entries = 0, all_filter_entries = 0;
  for (const ROCKSDB_NAMESPACE::LevelMetaData& level : meta.levels) {
    if (level.files.empty()) continue;
    ++levels_with_files;
    uint64_t entries = 0, filter_bytes = 0, filter_entries = 0;
    for (const auto& f : level.files) {
      const auto& p = props.at(f.db_path + f.name);
      entries += p->num_entries;
      filter_bytes += p->filter_size;
      filter_entries += p->num_filter_entries;
    }
    all_entries += entries;
    all_filter_entries += filter_entries;
    const json* found = nullptr;
    for (const json& l : cf["levels"]) {
      if (l["level"] == level.level) found = &l;
    }
    ASSERT_NE(found, nullptr) << "L" << level.level;
    EXPECT_EQ((*found)["entries"], entries);
    EXPECT_EQ((*found)["filter_entries"], filter_entries);
    EXPECT_DOUBLE_EQ((*found)["bits_per_key"].get<double>(),
                     8.0 * filter_bytes / filter_entries);
  }
  EXPECT_EQ(cf["levels"].size(), levels_with_files);
  EXPECT_GE(levels_with_files, 3u) << text.out;
  // Prefixes, not keys: a level's keys share a prefix with others of its
  // own where it holds most of the tree (the last level, 16 a prefix).
  EXPECT_LT(all_filter_entries, all_entries / 2) << text.out;
}

// The database stays open in this process (holding its LOCK) and keeps
// taking writes while the tool runs in another.
TEST(MonkeyPlanTest, WorksWhileAnotherProcessHasTheDatabaseOpen) {
  test::TempDir dir;
  const std::string path = dir.Sub("db");
  auto db = test::OpenOrDie(TreeOptions("bloomfilter:10"), path);
  WriteTree(db.get());
  ASSERT_TRUE(db->SetOptions({{"disable_auto_compactions", "false"}}).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const std::string value(100, 'w');
    for (uint64_t i = 0; !stop; ++i) {
      db->Put(ROCKSDB_NAMESPACE::WriteOptions(), test::Key(2000000000 + i),
              value)
          .PermitUncheckedError();
    }
  });
  for (int run = 0; run < 3; ++run) {
    const Result r = MonkeyPlan("--db=" + Quote(path) + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    if (r.code == 0) {
      EXPECT_GT(json::parse(r.out)["column_families"][0]["filter_bytes_now"]
                    .get<uint64_t>(),
                0u);
    }
  }
  stop = true;
  writer.join();
}

TEST(MonkeyPlanTest, ColumnFamilies) {
  test::TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ROCKSDB_NAMESPACE::Options options = TreeOptions("bloomfilter:10");
    options.create_missing_column_families = true;
    const ROCKSDB_NAMESPACE::Options no_filter = TreeOptions("");
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs = {
        {"default", options}, {"users", options}, {"logs", no_filter}};
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles;
    std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
    ASSERT_TRUE(OpenDB(options, path, cfs, &handles, &db).ok());
    WriteTree(db.get(), handles[1], 10000);
    WriteTree(db.get(), handles[2], 10000);
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  }
  // All: 'default' has no SST files (a note), 'logs' no filters (null
  // suggestions).
  Result r = MonkeyPlan("--db=" + Quote(path) + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  json all = json::parse(r.out);
  ASSERT_EQ(all["column_families"].size(), 2u) << r.out;
  EXPECT_EQ(all["column_families"][0]["name"], "users");
  EXPECT_FALSE(all["column_families"][0]["same_fpr"].is_null());
  const json& logs = all["column_families"][1];
  EXPECT_EQ(logs["name"], "logs");
  ExpectJsonKeys(logs);
  EXPECT_TRUE(logs["same_bytes"].is_null());
  EXPECT_TRUE(logs["same_fpr"].is_null());
  EXPECT_EQ(logs["filter_bytes_now"], 0);
  EXPECT_NE(r.err.find("'default' has no SST files"), std::string::npos);

  r = MonkeyPlan("--db=" + Quote(path) + " --column_family=users --json");
  ASSERT_EQ(r.code, 0) << r.err;
  all = json::parse(r.out);
  ASSERT_EQ(all["column_families"].size(), 1u);
  EXPECT_EQ(all["column_families"][0]["name"], "users");

  r = MonkeyPlan("--db=" + Quote(path) + " --column_family=nope");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("no column family 'nope'"), std::string::npos);
  EXPECT_NE(r.err.find("'users'"), std::string::npos) << r.err;
  r = MonkeyPlan("--db=" + Quote(path) + " --column_family=logs");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("has a filter"), std::string::npos) << r.err;
  r = MonkeyPlan("--db=" + Quote(path) + " --column_family=default");
  EXPECT_EQ(r.code, 5) << r.err;
}

// A comparator that the OPTIONS file names but nobody registered.
class ReverseComparator : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "monkey.test.Reverse"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    return -a.compare(b);
  }
  void FindShortestSeparator(std::string*,
                             const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

TEST(MonkeyPlanTest, BadInputsExitWithTheirCodes) {
  test::TempDir dir;
  Result r = MonkeyPlan("--db=" + Quote(dir.Sub("missing")));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos);

  std::ofstream(dir.Sub("file")) << "not a database\n";
  r = MonkeyPlan("--db=" + Quote(dir.Sub("file")));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("not a RocksDB database"), std::string::npos);
  r = MonkeyPlan("--db=" + Quote(dir.path()));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("no CURRENT file"), std::string::npos);

  // No filters at all.
  const std::string bare = dir.Sub("bare");
  {
    auto db = test::OpenOrDie(TreeOptions(""), bare);
    WriteTree(db.get(), nullptr, 5000);
  }
  r = MonkeyPlan("--db=" + Quote(bare));
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("has a filter"), std::string::npos) << r.err;

  // Tables without properties: an SST whose metaindex, which points to the
  // properties block, is damaged.
  const std::string broken = dir.Sub("broken");
  {
    auto db = test::OpenOrDie(TreeOptions("bloomfilter:10"), broken);
    WriteTree(db.get(), nullptr, 5000);
  }
  std::string victim;
  for (const auto& entry : std::filesystem::directory_iterator(broken)) {
    if (entry.path().extension() == ".sst") victim = entry.path();
  }
  ASSERT_FALSE(victim.empty());
  {
    std::fstream f(victim, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)),
                      std::istreambuf_iterator<char>());
    const size_t at = bytes.find("rocksdb.properties");
    ASSERT_NE(at, std::string::npos);
    f.seekp(at + 9);
    f.put(bytes[at + 9] ^ 0x20);
  }
  r = MonkeyPlan("--db=" + Quote(broken));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("table properties"), std::string::npos) << r.err;

  // A comparator nobody registered: RocksDB will not open it.
  static ReverseComparator reverse;
  const std::string reversed = dir.Sub("reversed");
  {
    ROCKSDB_NAMESPACE::Options options = TreeOptions("bloomfilter:10");
    options.comparator = &reverse;
    auto db = test::OpenOrDie(options, reversed);
    WriteTree(db.get(), nullptr, 2000);
  }
  r = MonkeyPlan("--db=" + Quote(reversed));
  EXPECT_EQ(r.code, 7) << r.err;
  EXPECT_NE(r.err.find("monkey.test.Reverse"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace monkey
