// RocksDB's SST file names: "<dir>/000123.sst" holds file number 123. Table
// properties are keyed by path, live-file metadata by number; this is the
// one place that maps the first to the second.
#pragma once

#include <cstdint>
#include <string_view>

namespace monkey {

// The file number of an SST's path or name; 0 (never an SST's number) if
// it is not an SST's.
uint64_t SstFileNumber(std::string_view path);

}  // namespace monkey
