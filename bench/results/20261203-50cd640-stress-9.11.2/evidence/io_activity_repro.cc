// A shape listener's first refresh inside OnCompactionBegin reads table
// properties with a default ReadOptions (io_activity kUnknown) on a thread
// whose ThreadStatus operation is OP_COMPACTION: db_stress's env wrapper
// asserts on that (db_stress_env_wrapper.h). Same check here.
#include <cassert>
#include <cstdio>
#include <thread>
#include "monkey/install.h"
#include "monitoring/thread_status_util.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
using namespace ROCKSDB_NAMESPACE;
static int mismatches = 0;
class File : public FSRandomAccessFileOwnerWrapper {
 public:
  explicit File(std::unique_ptr<FSRandomAccessFile>&& t) : FSRandomAccessFileOwnerWrapper(std::move(t)) {}
  IOStatus Read(uint64_t o, size_t n, const IOOptions& opts, Slice* r, char* s, IODebugContext* d) const override {
    Env::IOActivity want = ThreadStatusUtil::TEST_GetExpectedIOActivity(ThreadStatusUtil::GetThreadOperation());
    if (!(want == Env::IOActivity::kUnknown || want == opts.io_activity)) {
      ++mismatches;
      fprintf(stderr, "io_activity mismatch: thread expects %d, read has %d\n", (int)want, (int)opts.io_activity);
    }
    return target()->Read(o, n, opts, r, s, d);
  }
};
class FS : public FileSystemWrapper {
 public:
  explicit FS(const std::shared_ptr<FileSystem>& t) : FileSystemWrapper(t) {}
  const char* Name() const override { return "iofs"; }
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o, std::unique_ptr<FSRandomAccessFile>* r, IODebugContext* d) override {
    std::unique_ptr<FSRandomAccessFile> t;
    IOStatus s = target()->NewRandomAccessFile(f, o, &t, d);
    if (s.ok()) r->reset(new File(std::move(t)));
    return s;
  }
};
struct Noop : public EventListener {
  void OnCompactionBegin(DB*, const CompactionJobInfo&) override {}
};
int main(int argc, char** argv) {
  std::string path = argv[1];
  bool refresh = argc > 2 && std::string(argv[2]) == "refresh";
  DestroyDB(path, Options());
  auto fs = std::make_shared<FS>(FileSystem::Default());
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.disable_auto_compactions = true;
  o.enable_thread_tracking = true;
  o.max_open_files = 20;
  o.level0_file_num_compaction_trigger = 2;
  if (!monkey::Install(argc > 3 ? argv[3] : "monkey:7", &o).ok()) return 1;
  DB* db;
  if (!DB::Open(o, path, &db).ok()) return 1;
  for (int f = 0; f < 4; ++f) {
    for (int i = 0; i < 2000; ++i) db->Put(WriteOptions(), std::to_string(i * 4 + f), std::string(50, 'v'));
    db->Flush(FlushOptions());
  }
  delete db;
  o.disable_auto_compactions = !refresh ? false : true;
  o.listeners.clear();
  if (!monkey::Install(argc > 3 ? argv[3] : "monkey:7", &o).ok()) return 1;
  if (argc > 4) o.listeners.push_back(std::make_shared<Noop>());
  if (!DB::Open(o, path, &db).ok()) return 1;
  if (refresh) {  // seed on this thread, before any compaction can begin
    monkey::RefreshShape(db);
    db->SetOptions({{"disable_auto_compactions", "false"}});
  }

  db->WaitForCompact(WaitForCompactOptions());
  delete db;
  printf("%s: %d io_activity mismatches\n", refresh ? "RefreshShape after open" : "no RefreshShape", mismatches);
  return 0;
}
