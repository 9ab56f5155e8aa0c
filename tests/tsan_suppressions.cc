// ThreadSanitizer's suppressions for the test binaries of a
// MONKEY_SANITIZE=thread build; linked into every test executable there.
//
// Why one suppression is needed, and why it is sound. librocksdb comes from
// Debian, uninstrumented: TSan sees none of its memory accesses and none of
// its atomics, only the calls it makes into intercepted functions (malloc and
// free, memcpy and memcmp, pthread mutexes). RocksDB hands objects between
// threads with atomic reference counts (Version::Unref, SuperVersion, the
// memtable's Arena, table readers), so TSan sees a free() in one RocksDB
// thread and a memcmp() on the same bytes in another with no order between
// them: a race that is not there. "called_from_lib" makes TSan ignore the
// memory accesses of interceptors called from librocksdb. It does not ignore
// RocksDB's pthread mutexes, so the order they give our code (listeners,
// table builders) is still seen, and every access of our own code, the
// policy, its planner and the tests, is still checked.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:librocksdb.so\n";
}
