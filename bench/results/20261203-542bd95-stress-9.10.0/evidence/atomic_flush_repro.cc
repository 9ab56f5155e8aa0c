// Atomic flush vs the shape listener: flush two column families in one job.
#include <cstdio>
#include <string>
#include <vector>
#include "monkey/install.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/listener.h"
using namespace ROCKSDB_NAMESPACE;
struct Trace : public ROCKSDB_NAMESPACE::EventListener {
  void OnFlushBegin(DB*, const FlushJobInfo& i) override {
    printf("FlushBegin cf=%s job=%d\n", i.cf_name.c_str(), i.job_id);
  }
  void OnFlushCompleted(DB*, const FlushJobInfo& i) override {
    printf("FlushCompleted cf=%s job=%d entries=%llu\n", i.cf_name.c_str(), i.job_id,
           (unsigned long long)i.table_properties.num_entries);
  }
};
int main(int argc, char** argv) {
  bool atomic = argc > 2 && std::string(argv[2]) == "atomic";
  std::string path = argv[1];
  DestroyDB(path, Options());
  Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.atomic_flush = atomic;
  options.disable_auto_compactions = true;
  options.info_log_level = InfoLogLevel::DEBUG_LEVEL;
  options.num_levels = 7;
  options.level_compaction_dynamic_level_bytes = true;
  options.max_bytes_for_level_base = 512 * 1024;
  Status s = monkey::Install("id=monkey;bits_per_key=10", &options);
  if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  options.listeners.insert(options.listeners.begin(), std::make_shared<Trace>());
  std::vector<ColumnFamilyDescriptor> cfs = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions(options)},
      {"1", ColumnFamilyOptions(options)}};
  std::vector<ColumnFamilyHandle*> h;
  DB* db;
  s = DB::Open(DBOptions(options), path, cfs, &h, &db);
  if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  monkey::RefreshShape(db);
  int key = 0;
  for (int round = 0; round < 12; ++round) {
    for (int i = 0; i < 1000; ++i, ++key) {
      char k[32];
      snprintf(k, sizeof(k), "%08d", (key * 7919) % 1000003);
      db->Put(WriteOptions(), h[0], k, std::string(100, 'v'));
      db->Put(WriteOptions(), h[1], k, std::string(100, 'v'));
    }
    FlushOptions fo;
    db->Flush(fo, h);
    if (round % 4 == 3) {
      CompactRangeOptions co;
      db->CompactRange(co, h[0], nullptr, nullptr);
      db->CompactRange(co, h[1], nullptr, nullptr);
    }
  }
  for (auto* c : h) db->DestroyColumnFamilyHandle(c);
  delete db;
  return 0;
}
