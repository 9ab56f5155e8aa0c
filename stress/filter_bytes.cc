// Filter bytes that Monkey's policy builds for N keys at each level L0-L6
// of num_levels = 7 (GetBuilderWithContext with level_at_creation = L, a
// flush for L0, a compaction below): under the static plan (db_stress,
// db_crashtest.py: no shape listener) a live SST's filter size for its
// "# entries for filter" tells the level it was built for, so a file that
// RocksDB moved whole shows up (stress/check_filters.py's check 4).
//
// Needs RocksDB's internal FilterBitsBuilder (a source tree's
// table/block_based/filter_policy_internal.h), so it is not in our CMake.
// clang-format off
// Built and run here against the 9.10.0 fork and our library built for it:
//   T=build-fork/rocksdb-9.10.0-trixie
//   g++ -std=c++17 -O1 -DNDEBUG -I$T/install/include -I$T/src \
//     stress/filter_bytes.cc -o /tmp/filter_bytes \
//     build-9.10.0/libmonkeyfilter.a $T/install/lib/x86_64-linux-gnu/librocksdb.a \
//     -lpthread -lsnappy -llz4 -lzstd -lz -lbz2 -ldl
//   /tmp/filter_bytes 'id=monkey;bits_per_key=10;filter=ribbon;shape=static' 216 [1 [3]]
// (then 1: optimize_filters_for_memory; then a format_version, 3: legacy Bloom).
// clang-format on
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "table/block_based/filter_policy_internal.h"
extern "C" int RegisterMonkeyFilterPolicy(ROCKSDB_NAMESPACE::ObjectLibrary&,
                                          const std::string&);
using namespace ROCKSDB_NAMESPACE;
int main(int argc, char** argv) {
  RegisterMonkeyFilterPolicy(*ObjectLibrary::Default(), "");
  ConfigOptions c;
  c.ignore_unsupported_options = false;
  std::shared_ptr<const FilterPolicy> p;
  Status s = FilterPolicy::CreateFromString(c, argv[1], &p);
  if (!s.ok()) {
    fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  int n = atoi(argv[2]);
  bool ofm = argc > 3 && atoi(argv[3]);
  for (int level = 0; level < 7; ++level) {
    BlockBasedTableOptions t;
    t.optimize_filters_for_memory = ofm;
    if (argc > 4) t.format_version = atoi(argv[4]);  // < 5: legacy Bloom
    FilterBuildingContext ctx(t);
    ctx.level_at_creation = level;
    ctx.num_levels = 7;
    ctx.compaction_style = kCompactionStyleLevel;
    ctx.reason = level == 0 ? TableFileCreationReason::kFlush
                            : TableFileCreationReason::kCompaction;
    std::unique_ptr<FilterBitsBuilder> b(p->GetBuilderWithContext(ctx));
    if (!b) {
      printf("L%d none\n", level);
      continue;
    }
    for (int i = 0; i < n; ++i) {
      std::string k = "key" + std::to_string(i * 7919 + 13);
      b->AddKey(k);
    }
    std::unique_ptr<const char[]> buf;
    Slice f = b->Finish(&buf);
    printf("L%d %zu bytes %.3f bits/key\n", level, f.size(),
           8.0 * f.size() / n);
  }
}
