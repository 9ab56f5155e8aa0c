// KeyRangeCollector: records each SST's first and last user key in its table
// properties, so that a flush's or compaction's callbacks say where its
// files lie. RocksDB's FlushJobInfo and CompactionJobInfo carry a file's
// keys and filter but not its key range, and the live shape weighs each run
// by the share of lookups inside its range (util/live_shape.h). With the
// range in the payload the listener keeps the shape from the events alone,
// without reading every live file's metadata at each job (issue 29).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/table_properties.h"

namespace monkey {

// The user-collected property names, in each SST's properties block.
inline constexpr char kSmallestKeyProperty[] = "monkey.smallest_key";
inline constexpr char kLargestKeyProperty[] = "monkey.largest_key";

class KeyRangeCollectorFactory
    : public ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory {
 public:
  static const char* kClassName() { return "MonkeyKeyRangeCollector"; }
  const char* Name() const override { return kClassName(); }
  ROCKSDB_NAMESPACE::TablePropertiesCollector* CreateTablePropertiesCollector(
      ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory::Context context)
      override;
};

// Adds a KeyRangeCollectorFactory to `factories` unless one is there.
void AddKeyRangeCollector(
    std::vector<
        std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>>*
        factories);

// A file's key range from its user-collected properties; false if the
// collector did not run for it (a file from before, or options without it).
bool KeyRangeOf(const ROCKSDB_NAMESPACE::TableProperties& properties,
                std::string* smallest, std::string* largest);

}  // namespace monkey
