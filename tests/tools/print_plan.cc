// print_plan: prints a filter policy and, for Monkey, its PlanToString, the
// way the patched db_bench prints them in its header: real output for the
// tests of the comparison's parser (tests/bench/comparison/parse_test.py).
//
//   print_plan FILTER_URI          the static plan for 7 levels
//   print_plan FILTER_URI DB_DIR   the live plan of a small tree built in
//                                  DB_DIR (which must not exist): 20000 keys
//                                  in the last level and two one-key files
//                                  in L0, whose runs, weighted by their
//                                  share, print in %g's exponent form
#include <cstdio>
#include <memory>
#include <string>

#include "monkey/install.h"
#include "monkey/monkey_filter_policy.h"
#include "monkey/rocksdb_compat.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"

namespace {

int Fail(const char* what, const ROCKSDB_NAMESPACE::Status& s) {
  fprintf(stderr, "print_plan: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

// Writes `count` keys from `first` on and flushes them into one L0 file.
ROCKSDB_NAMESPACE::Status WriteFile(ROCKSDB_NAMESPACE::DB* db, int first,
                                    int count) {
  const std::string value(100, 'v');
  for (int i = first; i < first + count; ++i) {
    char key[32];
    snprintf(key, sizeof(key), "key%012d", i);
    ROCKSDB_NAMESPACE::Status s =
        db->Put(ROCKSDB_NAMESPACE::WriteOptions(), key, value);
    if (!s.ok()) return s;
  }
  return db->Flush(ROCKSDB_NAMESPACE::FlushOptions());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: print_plan FILTER_URI [DB_DIR]\n");
    return 2;
  }
  ROCKSDB_NAMESPACE::Options options;
  ROCKSDB_NAMESPACE::Status s = monkey::Install(argv[1], &options);
  if (!s.ok()) return Fail("Install", s);
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  if (argc == 3) {
    options.create_if_missing = true;
    options.error_if_exists = true;
    options.disable_auto_compactions = true;  // the shape below, exactly
    options.level_compaction_dynamic_level_bytes = true;
    s = monkey::OpenDB(options, argv[2], &db);
    if (!s.ok()) return Fail("DB::Open", s);
    for (int i = 0; s.ok() && i < 4; ++i) {
      s = WriteFile(db.get(), i * 5000, 5000);
    }
    if (s.ok()) {
      s = db->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(), nullptr,
                           nullptr);
    }
    for (int i = 0; s.ok() && i < 2; ++i) {
      s = WriteFile(db.get(), 20000 + i, 1);
    }
    if (!s.ok()) return Fail("building the tree", s);
    monkey::RefreshShape(db.get());
  }
  // As db_bench's PrintFilterPolicy (db_bench_patches/*/0001-filter-uri).
  const auto* table =
      options.table_factory
          ->GetOptions<ROCKSDB_NAMESPACE::BlockBasedTableOptions>();
  const ROCKSDB_NAMESPACE::FilterPolicy* policy =
      table == nullptr ? nullptr : table->filter_policy.get();
  if (policy == nullptr) {
    printf("Filter policy: none\n");
    return 0;
  }
  printf("Filter policy: %s %s\n", policy->GetId().c_str(),
         policy->ToString(ROCKSDB_NAMESPACE::ConfigOptions()).c_str());
  const auto* monkey = policy->CheckedCast<monkey::MonkeyFilterPolicy>();
  if (monkey != nullptr) {
    fputs(monkey
              ->PlanToString(options.num_levels,
                             ROCKSDB_NAMESPACE::kDefaultColumnFamilyName)
              .c_str(),
          stdout);
  }
  return 0;
}
