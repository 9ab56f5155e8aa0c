// ThreadSanitizer's suppressions for the test binaries of a
// MONKEY_SANITIZE=thread build against Debian's librocksdb; linked into every
// test executable there (not with an instrumented RocksDB,
// MONKEY_ROCKSDB_LIBRARY: see docs/testing.md).
//
// Why. librocksdb from Debian is not instrumented: TSan sees RocksDB's
// pthread mutexes and condition variables (they go through its
// interceptors) and the calls it makes to free, memcpy and memcmp, but none
// of its atomics. RocksDB hands some of its own objects between threads by
// atomic reference counts alone: the memtable's Arena, Version, table
// readers and their files, the block cache's role map. Freeing one of them
// in a background thread after a reader's memcmp on it then looks like a
// race. Each suppression names the RocksDB function that frees or builds
// such an object; none of our code runs inside them, so a race in our code
// still shows (a listener racing the main thread on a counter is reported).
//
// Not "called_from_lib:librocksdb.so": it makes TSan skip every interceptor
// called from librocksdb, its mutexes included, and the order those mutexes
// give our code (e.g. DB::Close waiting for a flush whose listener used our
// policy) is lost: that reported races in our code that are not there.
extern "C" const char* __tsan_default_suppressions() {
  return "race:ROCKSDB_NAMESPACE::Arena::~Arena\n"
         "race:ROCKSDB_NAMESPACE::Version::Unref\n"
         "race:ROCKSDB_NAMESPACE::PosixRandomAccessFile::~"
         "PosixRandomAccessFile\n"
         "race:ROCKSDB_NAMESPACE::BinarySearchIndexReader::~"
         "BinarySearchIndexReader\n"
         "race:ROCKSDB_NAMESPACE::CopyCacheDeleterRoleMap\n";
}
