// The child process of crash_recovery_test.cc: opens (and so recovers) the
// DB with the Monkey policy installed from an options string, then writes
// keys with sync=true until it is killed, acknowledging each durable batch on
// stdout. Usage: crash_loader <db dir> <filter uri> <first key number>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "monkey/install.h"
#include "monkey/rocksdb_compat.h"
#include "monkey/tests/reliability/crash_load.h"
#include "monkey/tests/reliability/creation_level.h"
#include "monkey/tests/small_tree_options.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/table.h"

namespace {

// One write(2) per line: the parent must never see half a line.
void Say(const char* word, uint64_t n) {
  char line[48];
  const int len = snprintf(line, sizeof(line), "%s %llu\n", word,
                           static_cast<unsigned long long>(n));
  if (write(STDOUT_FILENO, line, len) != len) _exit(1);
}

// Tells the parent which files completed flushes and compactions made.
class JobReporter : public ROCKSDB_NAMESPACE::EventListener {
 public:
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB*,
                        const ROCKSDB_NAMESPACE::FlushJobInfo&) override {
    Say("flushed", 0);
  }
  void OnCompactionCompleted(
      ROCKSDB_NAMESPACE::DB*,
      const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override {
    if (info.status.ok()) Say("compacted", info.output_level);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <db dir> <filter uri> <first key number>\n",
            argv[0]);
    return 2;
  }
  const std::string db_dir = argv[1];
  const std::string filter_uri = argv[2];
  const uint64_t first = std::strtoull(argv[3], nullptr, 10);

  // A small tree that flushes and compacts every few hundred keys, so that
  // kills land in flushes, compactions and OPTIONS-file writes too.
  ROCKSDB_NAMESPACE::Options options = monkey::test::SmallTreeOptions(
      /*write_buffer_kib=*/64, /*target_file_kib=*/64, /*level_base_kib=*/256,
      /*dynamic_level_bytes=*/true);
  options.table_properties_collector_factories.push_back(
      std::make_shared<monkey::test::CreationLevelCollectorFactory>());
  options.listeners.push_back(std::make_shared<JobReporter>());
  ROCKSDB_NAMESPACE::Status s = monkey::Install(filter_uri, &options);
  if (!s.ok()) {
    fprintf(stderr, "crash_loader: %s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  s = monkey::OpenDB(options, db_dir, &db);
  if (!s.ok()) {
    fprintf(stderr, "crash_loader: open: %s\n", s.ToString().c_str());
    return 1;
  }
  ROCKSDB_NAMESPACE::WriteOptions sync;
  sync.sync = true;
  for (uint64_t n = 0;; n += monkey::test::kCrashBatch) {
    ROCKSDB_NAMESPACE::WriteBatch batch;
    for (int j = 0; j < monkey::test::kCrashBatch; ++j) {
      batch.Put(monkey::test::CrashKey(first + n + j),
                monkey::test::CrashValue(first + n + j));
    }
    s = db->Write(sync, &batch);
    if (!s.ok()) {
      fprintf(stderr, "crash_loader: write: %s\n", s.ToString().c_str());
      return 1;
    }
    Say("acked", n + monkey::test::kCrashBatch);
  }
}
