// Tests of what the db_bench patches call (report/db_bench_support.cc):
// --filter_uri's checks and messages, the run header's filter lines, the
// filter report's start, threads and output, and insertunique's key
// reservation, inserts and counts, on real DBs.
#include "monkey/report/db_bench_support.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/table/shape_listener.h"
#include "monkey/tests/report/two_level_db.h"
#include "monkey/tests/test_util.h"
#include "rocksdb/table.h"

namespace monkey {
namespace {

// A FILE* whose text the test reads back.
class Capture {
 public:
  Capture() : file_(open_memstream(&buf_, &size_)) {}
  ~Capture() {
    fclose(file_);
    free(buf_);
  }
  FILE* file() { return file_; }
  std::string text() {
    fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  size_t size_ = 0;
  FILE* file_;
};

ROCKSDB_NAMESPACE::Options BlockBasedOptions() {
  ROCKSDB_NAMESPACE::Options options;
  options.table_factory.reset(ROCKSDB_NAMESPACE::NewBlockBasedTableFactory());
  return options;
}

const ROCKSDB_NAMESPACE::FilterPolicy* PolicyOf(
    const ROCKSDB_NAMESPACE::Options& options) {
  return options.table_factory
      ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>()
      ->filter_policy.get();
}

// db_bench's key for integer v without prefixes (GenerateKeyFromInt): its 8
// big-endian bytes, padded with '0'.
std::string DbBenchKey(uint64_t v, int key_size) {
  std::string key(key_size, '0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>(v >> (56 - 8 * i));
  return key;
}

TEST(DbBenchInstallFilterTest, EmptyUriLeavesTheOptionsAlone) {
  ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
  Capture err;
  EXPECT_TRUE(DbBenchInstallFilter("", 10, &options, err.file()));
  EXPECT_EQ(PolicyOf(options), nullptr);
  EXPECT_EQ(err.text(), "");
}

TEST(DbBenchInstallFilterTest, InstallsThePolicy) {
  ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
  Capture err;
  EXPECT_TRUE(DbBenchInstallFilter("monkey:7", -1, &options, err.file()));
  ASSERT_NE(PolicyOf(options), nullptr);
  EXPECT_NE(PolicyOf(options)->CheckedCast<MonkeyFilterPolicy>(), nullptr);
  EXPECT_EQ(err.text(), "");
}

// db_bench sets up its Options again for each fresh DB, with a new table
// factory: one listener, feeding the policy the table uses.
TEST(DbBenchInstallFilterTest, SettingUpAgainKeepsOneListener) {
  ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
  ASSERT_TRUE(DbBenchInstallFilter("monkey:7", -1, &options));
  options.table_factory = BlockBasedOptions().table_factory;
  ASSERT_TRUE(DbBenchInstallFilter("monkey:7", -1, &options));
  ASSERT_EQ(options.listeners.size(), 1u);
  const auto* shape = options.listeners[0]->CheckedCast<ShapeListener>();
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->policy(),
            PolicyOf(options)->CheckedCast<MonkeyFilterPolicy>());
}

TEST(DbBenchInstallFilterTest, BloomBitsExcludeIt) {
  ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
  Capture err;
  EXPECT_FALSE(DbBenchInstallFilter("monkey:7", 0, &options, err.file()));
  EXPECT_EQ(err.text(), "--filter_uri and --bloom_bits exclude each other\n");
  EXPECT_EQ(PolicyOf(options), nullptr);
}

TEST(DbBenchInstallFilterTest, UnknownIdIsAnErrorNotNoFilter) {
  ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
  Capture err;
  EXPECT_FALSE(DbBenchInstallFilter("monkeyy:7", -1, &options, err.file()));
  const std::string text = err.text();
  EXPECT_EQ(text.rfind("--filter_uri: Invalid argument: ", 0), 0u) << text;
  EXPECT_NE(text.find("monkeyy"), std::string::npos) << text;
}

TEST(DbBenchPrintFilterPolicyTest, None) {
  Capture out;
  DbBenchPrintFilterPolicy(BlockBasedOptions(), out.file());
  EXPECT_EQ(out.text(), "Filter policy: none\n");
}

TEST(DbBenchPrintFilterPolicyTest, BuiltInPolicyIsOneLine) {
  ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
  ASSERT_TRUE(Install("bloomfilter:10", &options).ok());
  Capture out;
  DbBenchPrintFilterPolicy(options, out.file());
  const std::string text = out.text();
  EXPECT_EQ(text.rfind("Filter policy: bloomfilter", 0), 0u) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
}

TEST(DbBenchPrintFilterPolicyTest, MonkeyPrintsItsOptionsAndPlan) {
  for (int num_levels : {5, 7}) {
    ROCKSDB_NAMESPACE::Options options = BlockBasedOptions();
    options.num_levels = num_levels;
    ASSERT_TRUE(Install("monkey:7", &options).ok());
    const auto* monkey = PolicyOf(options)->CheckedCast<MonkeyFilterPolicy>();
    ASSERT_NE(monkey, nullptr);
    const std::string plan = monkey->PlanToString(
        num_levels, ROCKSDB_NAMESPACE::kDefaultColumnFamilyName);
    Capture out;
    DbBenchPrintFilterPolicy(options, out.file());
    const std::string text = out.text();
    const size_t first_line = text.find('\n') + 1;
    EXPECT_EQ(text.rfind("Filter policy: monkey ", 0), 0u) << text;
    EXPECT_NE(text.substr(0, first_line).find("bits_per_key=7"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.substr(first_line), plan);
  }
}

TEST(DbBenchFilterReportTest, WantedForPointLookupBenchmarksOnly) {
  for (const char* name :
       {"readrandom", "readmissing", "multireadrandom", "readwhilewriting",
        "multireadwhilewriting", "mixgraph", "insertunique"}) {
    EXPECT_TRUE(DbBenchFilterReport::Wanted(name)) << name;
  }
  for (const char* name :
       {"fillrandom", "readseq", "seekrandom", "compact", "stats", ""}) {
    EXPECT_FALSE(DbBenchFilterReport::Wanted(name)) << name;
  }
}

TEST(DbBenchFilterReportTest, NothingWhenOffOrNotWanted) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 2000);
  for (const auto& [enabled, name] :
       {std::pair<bool, const char*>{false, "readmissing"},
        std::pair<bool, const char*>{true, "fillrandom"}}) {
    DbBenchFilterReport report;
    report.Start(enabled, name, t->options.statistics, t->db.get());
    EXPECT_EQ(report.NewThreadScope(), nullptr) << name;
    Capture out, err;
    report.Finish(t->db.get(), out.file(), err.file());
    EXPECT_EQ(out.text(), "") << name;
    EXPECT_EQ(err.text(), "") << name;
  }
}

TEST(DbBenchFilterReportTest, MergesEveryThreadAndPrintsOnce) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 20000);
  DbBenchFilterReport report;
  report.Start(true, "readmissing", t->options.statistics, t->db.get());
  // Outside a scope it counts nowhere.
  DbBenchFilterReport::CountLookups(1000, 1000);
  const int kThreads = 3;
  const uint64_t per_thread = t->absent_keys() / kThreads;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto scope = report.NewThreadScope();
      ASSERT_NE(scope, nullptr);
      std::string value;
      int64_t found = 0;
      for (uint64_t k = i * per_thread; k < (i + 1) * per_thread; ++k) {
        if (t->db->Get(ROCKSDB_NAMESPACE::ReadOptions(), t->Absent(k), &value)
                .ok()) {
          ++found;
        }
      }
      DbBenchFilterReport::CountLookups(per_thread, found);
    });
  }
  for (std::thread& thread : threads) thread.join();

  Capture out, err;
  report.Finish(t->db.get(), out.file(), err.file());
  EXPECT_EQ(err.text(), "");
  const std::string text = out.text();
  const size_t json_at = text.find(kFilterReportJsonPrefix);
  ASSERT_NE(json_at, std::string::npos) << text;
  EXPECT_GT(json_at, 0u);  // the table comes first
  EXPECT_EQ(text.back(), '\n');
  const auto json = nlohmann::json::parse(
      text.substr(json_at + strlen(kFilterReportJsonPrefix)));
  EXPECT_EQ(json["benchmark"], "readmissing");
  EXPECT_EQ(json["threads"], kThreads);
  EXPECT_EQ(json["lookups"], kThreads * per_thread);
  // Each absent key meets one filter on each of the two levels.
  EXPECT_EQ(json["probes"], 2 * kThreads * per_thread);
  EXPECT_EQ(json["notes"].size(), 0u);

  // Finish ended the measurement.
  EXPECT_EQ(report.NewThreadScope(), nullptr);
  Capture again;
  report.Finish(t->db.get(), again.file(), err.file());
  EXPECT_EQ(again.text(), "");
}

TEST(DbBenchFilterReportTest, MultiGetGetsItsNote) {
  auto t = test::MakeTwoLevelDb("bloomfilter:10", 2000);
  DbBenchFilterReport report;
  report.Start(true, "multireadrandom", nullptr, t->db.get());
  Capture out, err;
  report.Finish(t->db.get(), out.file(), err.file());
  EXPECT_NE(out.text().find("MultiGet may undercount true positives"),
            std::string::npos)
      << out.text();
}

TEST(DbBenchFilterReportTest, OnlyForOneDb) {
  DbBenchFilterReport report;
  report.Start(true, "readrandom", nullptr, nullptr);
  Capture out, err;
  report.Finish(nullptr, out.file(), err.file());
  EXPECT_EQ(out.text(), "Filter report: only for a single DB\n");
  EXPECT_EQ(err.text(), "");
}

TEST(DbBenchInsertUniqueTest, MarkerSortsAfterEveryKey) {
  for (int key_size : {8, 9, 16, 40}) {
    const std::string marker = DbBenchInsertUnique::MarkerKey(key_size);
    EXPECT_EQ(marker.size(), static_cast<size_t>(key_size));
    EXPECT_EQ(marker.substr(0, 8), std::string(8, '\xff'));
    if (key_size > 8) {
      EXPECT_LT(ROCKSDB_NAMESPACE::Slice(DbBenchKey(~uint64_t{0}, key_size))
                    .compare(marker),
                0);
    }
  }
  EXPECT_EQ(DbBenchInsertUnique::MarkerKey(16),
            "\xff\xff\xff\xff\xff\xff\xff\xff~insertu");
  EXPECT_EQ(DbBenchInsertUnique::MarkerKey(4).size(), 8u);
}

TEST(DbBenchInsertUniqueTest, RejectsSettingsItCannotKeyUnique) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  auto db = test::OpenOrDie(options, dir.Sub("db"));
  const std::string why =
      "insertunique needs one DB, --key_size >= 8, no prefixes, timestamps "
      "or --use_existing_keys\n";
  struct Case {
    ROCKSDB_NAMESPACE::DB* db;
    int key_size;
    bool plain_keys;
  };
  for (const Case& c : {Case{nullptr, 16, true}, Case{db.get(), 7, true},
                        Case{db.get(), 16, false}}) {
    DbBenchInsertUnique insert;
    Capture out, err;
    EXPECT_FALSE(insert.Reserve(c.db, c.key_size, c.plain_keys, -1, 1, 10,
                                out.file(), err.file()));
    EXPECT_EQ(err.text(), why);
    EXPECT_EQ(out.text(), "");
  }
  std::string value;
  EXPECT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                      DbBenchInsertUnique::MarkerKey(16), &value)
                  .IsNotFound());
}

// Reserve in a fresh object, as each db_bench run does; returns its output.
std::string Reserve(ROCKSDB_NAMESPACE::DB* db, int64_t offset, int threads,
                    int64_t keys_per_thread, DbBenchInsertUnique* insert) {
  Capture out, err;
  EXPECT_TRUE(insert->Reserve(db, 16, true, offset, threads, keys_per_thread,
                              out.file(), err.file()))
      << err.text();
  return out.text();
}

std::string Marker(ROCKSDB_NAMESPACE::DB* db) {
  std::string value;
  EXPECT_TRUE(db->Get(ROCKSDB_NAMESPACE::ReadOptions(),
                      DbBenchInsertUnique::MarkerKey(16), &value)
                  .ok());
  return value;
}

TEST(DbBenchInsertUniqueTest, LaterRunsContinueAfterEarlierOnes) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  auto db = test::OpenOrDie(options, dir.Sub("db"));
  DbBenchInsertUnique a, b, c, d;
  EXPECT_EQ(Reserve(db.get(), -1, 2, 100, &a),
            "insertunique: key permutation positions [0, 200)\n");
  EXPECT_EQ(Marker(db.get()), "200");
  EXPECT_EQ(Reserve(db.get(), -1, 1, 50, &b),
            "insertunique: key permutation positions [200, 250)\n");
  EXPECT_EQ(Marker(db.get()), "250");
  // An explicit offset below the marker does not move it back...
  EXPECT_EQ(Reserve(db.get(), 0, 1, 10, &c),
            "insertunique: key permutation positions [0, 10)\n");
  EXPECT_EQ(Marker(db.get()), "250");
  // ... one above it does move it.
  EXPECT_EQ(Reserve(db.get(), 1000, 3, 10, &d),
            "insertunique: key permutation positions [1000, 1030)\n");
  EXPECT_EQ(Marker(db.get()), "1030");
}

TEST(DbBenchInsertUniqueTest, BadMarkerIsAnError) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  auto db = test::OpenOrDie(options, dir.Sub("db"));
  ASSERT_TRUE(db->Put(ROCKSDB_NAMESPACE::WriteOptions(),
                      DbBenchInsertUnique::MarkerKey(16), "12x")
                  .ok());
  DbBenchInsertUnique insert;
  Capture out, err;
  EXPECT_FALSE(
      insert.Reserve(db.get(), 16, true, -1, 1, 10, out.file(), err.file()));
  EXPECT_EQ(err.text(),
            "insertunique: the marker key holds '12x', not a position\n");
}

// Runs thread `tid` of `insert` to the end the way the patch's loop does,
// appending the keys it makes to *made and counting the values it asks for
// in *values; returns the thread's counts.
DbBenchInsertUnique::Thread RunThread(ROCKSDB_NAMESPACE::DB* db,
                                      const DbBenchInsertUnique& insert,
                                      int tid, std::vector<std::string>* made,
                                      int* values) {
  DbBenchInsertUnique::Thread keys = insert.ForThread(tid);
  std::string error;
  while (!keys.Done()) {
    made->push_back(DbBenchKey(keys.NextKey(), 16));
    const ROCKSDB_NAMESPACE::Status s = keys.Insert(
        db, ROCKSDB_NAMESPACE::ReadOptions(), ROCKSDB_NAMESPACE::WriteOptions(),
        made->back(),
        [&] {
          ++*values;
          return ROCKSDB_NAMESPACE::Slice("value-of-10");
        },
        &error);
    EXPECT_TRUE(s.ok()) << error;
  }
  return keys;
}

TEST(DbBenchInsertUniqueTest, ThreadsInsertDistinctKeysThenFindThemAgain) {
  test::TempDir dir;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  auto db = test::OpenOrDie(options, dir.Sub("db"));
  const int kThreads = 2;
  const int kKeys = 300;
  DbBenchInsertUnique first;
  Reserve(db.get(), -1, kThreads, kKeys, &first);
  std::set<std::string> all;
  for (int tid = 0; tid < kThreads; ++tid) {
    int values = 0;
    std::vector<std::string> made;
    const DbBenchInsertUnique::Thread done =
        RunThread(db.get(), first, tid, &made, &values);
    ASSERT_EQ(made.size(), static_cast<size_t>(kKeys));
    // Thread t starts at position t * kKeys of the permutation.
    EXPECT_EQ(made.front(), DbBenchKey(KeyPermutation().At(tid * kKeys), 16));
    all.insert(made.begin(), made.end());
    EXPECT_EQ(values, kKeys);
    EXPECT_EQ(done.checked(), kKeys);
    EXPECT_EQ(done.found(), 0);
    EXPECT_EQ(done.bytes(), kKeys * (16 + 11));
    EXPECT_EQ(done.Message(), "(300 inserted, 0 of 300 existed)");
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kKeys));
  // The DB holds exactly those keys and the marker.
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
      db->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key() == DbBenchInsertUnique::MarkerKey(16)) continue;
    EXPECT_EQ(all.count(it->key().ToString()), 1u);
    ++n;
  }
  EXPECT_EQ(n, all.size());

  // A run told to start at 0 again checks the same keys: all exist, and no
  // value is asked for.
  DbBenchInsertUnique again;
  Reserve(db.get(), 0, 1, kKeys, &again);
  int values = 0;
  std::vector<std::string> made;
  const DbBenchInsertUnique::Thread done =
      RunThread(db.get(), again, 0, &made, &values);
  EXPECT_EQ(made.size(), static_cast<size_t>(kKeys));
  EXPECT_EQ(values, 0);
  EXPECT_EQ(done.found(), kKeys);
  EXPECT_EQ(done.bytes(), 0);
  EXPECT_EQ(done.Message(), "(0 inserted, 300 of 300 existed)");
}

TEST(DbBenchInsertUniqueTest, FailedPutSaysSo) {
  test::TempDir dir;
  {
    ROCKSDB_NAMESPACE::Options options;
    options.create_if_missing = true;
    test::OpenOrDie(options, dir.Sub("db"));
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(
      OpenDBForReadOnly(ROCKSDB_NAMESPACE::Options(), dir.Sub("db"), &db).ok());

  DbBenchInsertUnique insert;
  Capture out, err;
  EXPECT_FALSE(
      insert.Reserve(db.get(), 16, true, -1, 1, 10, out.file(), err.file()));
  EXPECT_EQ(err.text().rfind("insertunique: Not implemented", 0), 0u)
      << err.text();

  DbBenchInsertUnique::Thread keys = insert.ForThread(0);
  std::string error;
  const ROCKSDB_NAMESPACE::Status s = keys.Insert(
      db.get(), ROCKSDB_NAMESPACE::ReadOptions(),
      ROCKSDB_NAMESPACE::WriteOptions(), DbBenchKey(keys.NextKey(), 16),
      [] { return ROCKSDB_NAMESPACE::Slice("v"); }, &error);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(error.rfind("insertunique: Put: Not implemented", 0), 0u) << error;
  EXPECT_EQ(keys.checked(), 1);
  EXPECT_EQ(keys.bytes(), 0);
}

}  // namespace
}  // namespace monkey
