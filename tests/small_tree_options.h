// Options for a small tree that flushes and compacts every few hundred keys,
// so that a test sees several levels, moves and compactions within seconds.
// No GoogleTest here: the crash-test child process uses it too.
#pragma once

#include <cstdint>

#include "rocksdb/options.h"

namespace monkey::test {

inline ROCKSDB_NAMESPACE::Options SmallTreeOptions(uint64_t write_buffer_kib,
                                                   uint64_t target_file_kib,
                                                   uint64_t level_base_kib,
                                                   bool dynamic_level_bytes) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.compression = ROCKSDB_NAMESPACE::kNoCompression;
  options.write_buffer_size = write_buffer_kib << 10;
  options.target_file_size_base = target_file_kib << 10;
  options.max_bytes_for_level_base = level_base_kib << 10;
  options.level_compaction_dynamic_level_bytes = dynamic_level_bytes;
  options.num_levels = 5;
  options.max_background_jobs = 2;
  return options;
}

}  // namespace monkey::test
