// db_bench's --filter_uri, filter report and insertunique, which the
// db_bench patches call. See report/db_bench_support.h.
#include "monkey/report/db_bench_support.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <set>

#include "monkey/monkey_filter_policy.h"
#include "monkey/table/shape_listener.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"

namespace monkey {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Status;

bool DbBenchInstallFilter(const std::string& filter_uri, int bloom_bits,
                          ROCKSDB_NAMESPACE::Options* options, FILE* err) {
  if (filter_uri.empty()) return true;
  if (bloom_bits >= 0) {
    fprintf(err, "--filter_uri and --bloom_bits exclude each other\n");
    return false;
  }
  // db_bench sets up the same Options again for each fresh DB, with a new
  // table factory: the listener the last setup added feeds a policy no
  // table uses now, and would go on reading the tree at every job.
  EraseShapeListeners(&options->listeners, nullptr);
  const Status s = Install(filter_uri, options);
  if (!s.ok()) {
    fprintf(err, "--filter_uri: %s\n", s.ToString().c_str());
    return false;
  }
  return true;
}

void DbBenchPrintFilterPolicy(const ROCKSDB_NAMESPACE::Options& options,
                              FILE* out) {
  const auto* table =
      options.table_factory == nullptr
          ? nullptr
          : options.table_factory
                ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  const ROCKSDB_NAMESPACE::FilterPolicy* policy =
      table == nullptr ? nullptr : table->filter_policy.get();
  if (policy == nullptr) {
    fprintf(out, "Filter policy: none\n");
    return;
  }
  const std::string id = policy->GetId();
  const std::string options_string =
      policy->ToString(ROCKSDB_NAMESPACE::ConfigOptions());
  if (options_string == id) {
    fprintf(out, "Filter policy: %s\n", id.c_str());
  } else {
    fprintf(out, "Filter policy: %s %s\n", id.c_str(), options_string.c_str());
  }
  const auto* monkey = policy->CheckedCast<MonkeyFilterPolicy>();
  if (monkey != nullptr) {
    fputs(monkey
              ->PlanToString(options.num_levels,
                             ROCKSDB_NAMESPACE::kDefaultColumnFamilyName)
              .c_str(),
          out);
  }
}

bool DbBenchFilterReport::Wanted(const std::string& benchmark) {
  // db_bench's benchmarks that Get or MultiGet keys. multireadwhilewriting
  // arrived after 7.8.3.
  static const std::set<std::string> kWanted = {"readrandom",
                                                "readmissing",
                                                "readrandomsmall",
                                                "readrandomfast",
                                                "multireadrandom",
                                                "readwhilewriting",
                                                "readwhilemerging",
                                                "readwhilescanning",
                                                "readrandomwriterandom",
                                                "updaterandom",
                                                "xorupdaterandom",
                                                "readrandomoperands",
                                                "randomwithverify",
                                                "readrandommergerandom",
                                                "mixgraph",
                                                "multireadwhilewriting",
                                                "insertunique"};
  return kWanted.count(benchmark) > 0;
}

void DbBenchFilterReport::Start(
    bool enabled, const std::string& benchmark,
    std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics, DB* db) {
  active_ = enabled && Wanted(benchmark);
  benchmark_ = benchmark;
  if (active_) collector_.Start(std::move(statistics), db);
}

std::unique_ptr<FilterStatsCollector::ThreadScope>
DbBenchFilterReport::NewThreadScope() {
  if (!active_) return nullptr;
  return std::make_unique<FilterStatsCollector::ThreadScope>(&collector_);
}

void DbBenchFilterReport::CountLookups(int64_t lookups, int64_t found) {
  auto* scope = FilterStatsCollector::ThreadScope::Current();
  if (scope != nullptr) scope->AddLookups(lookups, found);
}

void DbBenchFilterReport::Finish(DB* db, FILE* out, FILE* err) {
  if (!active_) return;
  active_ = false;
  if (db == nullptr) {
    fprintf(out, "Filter report: only for a single DB\n");
    return;
  }
  FilterReport report;
  const Status s = BuildFilterReport(db, collector_, benchmark_, &report);
  if (!s.ok()) {
    fprintf(err, "filter report: %s\n", s.ToString().c_str());
    return;
  }
  if (benchmark_ == "multireadrandom") {
    report.notes.push_back(
        "MultiGet may undercount true positives (not every MultiGet path "
        "counts them), which overcounts false positives of keys it finds; "
        "absent keys measure FPR exactly");
  }
  fprintf(out, "%s%s\n", report.ToTable().c_str(), report.ToJsonLine().c_str());
  fflush(out);
}

std::string DbBenchInsertUnique::MarkerKey(int key_size) {
  std::string marker(8, '\xff');
  marker += "~insertunique_next";
  marker.resize(std::max(key_size, 8), '~');
  return marker;
}

bool DbBenchInsertUnique::Reserve(DB* db, int key_size, bool plain_keys,
                                  int64_t offset, int threads,
                                  int64_t keys_per_thread, FILE* out,
                                  FILE* err) {
  if (db == nullptr || key_size < 8 || !plain_keys) {
    fprintf(err,
            "insertunique needs one DB, --key_size >= 8, no prefixes, "
            "timestamps or --use_existing_keys\n");
    return false;
  }
  const std::string marker = MarkerKey(key_size);
  uint64_t reserved = 0;  // positions below it were taken earlier
  std::string value;
  Status s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), marker, &value);
  if (s.ok()) {
    char* end = nullptr;
    errno = 0;
    reserved = strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno != 0) {
      fprintf(err, "insertunique: the marker key holds '%s', not a position\n",
              value.c_str());
      return false;
    }
  } else if (!s.IsNotFound()) {
    fprintf(err, "insertunique: %s\n", s.ToString().c_str());
    return false;
  }
  const uint64_t first = offset >= 0 ? static_cast<uint64_t>(offset) : reserved;
  const uint64_t next = first + static_cast<uint64_t>(threads) *
                                    static_cast<uint64_t>(keys_per_thread);
  s = db->Put(ROCKSDB_NAMESPACE::WriteOptions(), marker,
              std::to_string(std::max(next, reserved)));
  if (!s.ok()) {
    fprintf(err, "insertunique: %s\n", s.ToString().c_str());
    return false;
  }
  first_ = first;
  keys_per_thread_ = keys_per_thread;
  fprintf(out,
          "insertunique: key permutation positions [%" PRIu64 ", %" PRIu64
          ")\n",
          first, next);
  return true;
}

DbBenchInsertUnique::Thread DbBenchInsertUnique::ForThread(int tid) const {
  const uint64_t from = first_ + static_cast<uint64_t>(tid) *
                                     static_cast<uint64_t>(keys_per_thread_);
  return Thread(KeyPermutation().From(from), keys_per_thread_);
}

Status DbBenchInsertUnique::Thread::Insert(
    DB* db, const ROCKSDB_NAMESPACE::ReadOptions& read_options,
    const ROCKSDB_NAMESPACE::WriteOptions& write_options,
    const ROCKSDB_NAMESPACE::Slice& key,
    const std::function<ROCKSDB_NAMESPACE::Slice()>& value,
    std::string* error) {
  ++checked_;
  existing_.Reset();
  Status s = db->Get(read_options, db->DefaultColumnFamily(), key, &existing_);
  if (s.ok()) {
    ++found_;  // see found()
    return s;
  }
  if (!s.IsNotFound()) {
    *error = "insertunique: Get: " + s.ToString();
    return s;
  }
  const ROCKSDB_NAMESPACE::Slice v = value();
  s = db->Put(write_options, key, v);
  if (!s.ok()) {
    *error = "insertunique: Put: " + s.ToString();
    return s;
  }
  bytes_ += static_cast<int64_t>(key.size() + v.size());
  return s;
}

std::string DbBenchInsertUnique::Thread::Message() const {
  char msg[100];
  snprintf(msg, sizeof(msg),
           "(%" PRId64 " inserted, %" PRId64 " of %" PRId64 " existed)",
           checked_ - found_, found_, checked_);
  return msg;
}

}  // namespace monkey
