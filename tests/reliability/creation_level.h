// A table properties collector that writes into every SST the level RocksDB
// built it for (0 for flush and recovery, the output level for compaction,
// -1 for SstFileWriter). A trivial move re-links a file without rebuilding
// it, so a file whose level is below its creation level was moved, and its
// filter is still the one planned for its creation level. The tests use it to
// know which plan each file's filter must follow, even across crashes.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/object_registry.h"

namespace monkey::test {

inline constexpr char kCreationLevelProperty[] =
    "monkey.test.level_at_creation";
// What CreationLevel returns for a file written without the collector.
inline constexpr int kNoCreationLevel = -100;

class CreationLevelCollector
    : public ROCKSDB_NAMESPACE::TablePropertiesCollector {
 public:
  explicit CreationLevelCollector(int level) : level_(level) {}
  ROCKSDB_NAMESPACE::Status AddUserKey(const ROCKSDB_NAMESPACE::Slice&,
                                       const ROCKSDB_NAMESPACE::Slice&,
                                       ROCKSDB_NAMESPACE::EntryType,
                                       ROCKSDB_NAMESPACE::SequenceNumber,
                                       uint64_t) override {
    return ROCKSDB_NAMESPACE::Status::OK();
  }
  ROCKSDB_NAMESPACE::Status Finish(
      ROCKSDB_NAMESPACE::UserCollectedProperties* props) override {
    (*props)[kCreationLevelProperty] = std::to_string(level_);
    return ROCKSDB_NAMESPACE::Status::OK();
  }
  ROCKSDB_NAMESPACE::UserCollectedProperties GetReadableProperties()
      const override {
    return {{kCreationLevelProperty, std::to_string(level_)}};
  }
  const char* Name() const override { return "CreationLevelCollector"; }

 private:
  const int level_;
};

class CreationLevelCollectorFactory
    : public ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory {
 public:
  ROCKSDB_NAMESPACE::TablePropertiesCollector* CreateTablePropertiesCollector(
      ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory::Context context)
      override {
    return new CreationLevelCollector(context.level_at_creation);
  }
  static const char* kClassName() { return "CreationLevelCollectorFactory"; }
  const char* Name() const override { return kClassName(); }
};

// RocksDB writes the collector's name into the OPTIONS file; registering it
// lets the file be loaded with ignore_unsupported_options=false.
inline void RegisterCreationLevelCollector() {
  static const bool registered = [] {
    ROCKSDB_NAMESPACE::ObjectLibrary::Default()
        ->AddFactory<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>(
            CreationLevelCollectorFactory::kClassName(),
            [](const std::string&,
               std::unique_ptr<
                   ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>* guard,
               std::string*) {
              guard->reset(new CreationLevelCollectorFactory());
              return guard->get();
            });
    return true;
  }();
  (void)registered;
}

inline int CreationLevel(const ROCKSDB_NAMESPACE::TableProperties& props) {
  auto it = props.user_collected_properties.find(kCreationLevelProperty);
  if (it == props.user_collected_properties.end()) return kNoCreationLevel;
  return std::atoi(it->second.c_str());
}

}  // namespace monkey::test
