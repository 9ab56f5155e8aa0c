// The LD_PRELOAD drop-in. Built only into the shared
// libmonkeyfilter_preload.so: when the dynamic loader initializes the library,
// it registers "monkey" with RocksDB's default ObjectLibrary. An unmodified
// program linked to the same shared librocksdb (Debian's db_bench, say) then
// gets Monkey from an OPTIONS file or options string:
//   LD_PRELOAD=libmonkeyfilter_preload.so db_bench --options_file=OPTIONS ...
// with filter_policy=monkey:7 in the OPTIONS file's BlockBasedTable section.
#include "monkey/install.h"

namespace monkey {
namespace {

// librocksdb is a DT_NEEDED dependency of this library, so the loader has
// initialized it by the time this runs, before the program's main().
const bool kRegisteredAtLoad = (RegisterOnce(), true);

}  // namespace
}  // namespace monkey
