// KeyRangeCollector: each SST's first and last user key. See
// key_range_collector.h.
#include "monkey/table/key_range_collector.h"

#include <algorithm>
#include <cstring>

namespace monkey {
namespace {

class KeyRangeCollector : public ROCKSDB_NAMESPACE::TablePropertiesCollector {
 public:
  // Keys arrive in the column family's order, so the first is the smallest
  // and the last the largest. The last key is copied at every key, with
  // memcpy into a buffer already the key's size: std::string::assign went
  // through _M_replace's aliasing checks: 95 instructions a key, where
  // this takes 39; RocksDB's wrapper around every collector adds 85
  // (bench/results/20261203-018d52c-writetax-callgrind).
  ROCKSDB_NAMESPACE::Status AddUserKey(
      const ROCKSDB_NAMESPACE::Slice& key,
      const ROCKSDB_NAMESPACE::Slice& /*value*/,
      ROCKSDB_NAMESPACE::EntryType type,
      ROCKSDB_NAMESPACE::SequenceNumber /*seq*/,
      uint64_t /*file_size*/) override {
    // Range tombstones come after the point keys, out of order.
    if (type == ROCKSDB_NAMESPACE::kEntryRangeDeletion) {
      return ROCKSDB_NAMESPACE::Status::OK();
    }
    if (!any_) {
      smallest_.assign(key.data(), key.size());
      any_ = true;
    }
    if (largest_.size() != key.size()) largest_.resize(key.size());
    memcpy(largest_.data(), key.data(), key.size());
    return ROCKSDB_NAMESPACE::Status::OK();
  }

  ROCKSDB_NAMESPACE::Status Finish(
      ROCKSDB_NAMESPACE::UserCollectedProperties* properties) override {
    if (any_) {
      (*properties)[kSmallestKeyProperty] = smallest_;
      (*properties)[kLargestKeyProperty] = largest_;
    }
    return ROCKSDB_NAMESPACE::Status::OK();
  }

  ROCKSDB_NAMESPACE::UserCollectedProperties GetReadableProperties()
      const override {
    return {};  // binary keys; sst_dump shows the file's range anyway
  }

  const char* Name() const override {
    return KeyRangeCollectorFactory::kClassName();
  }

 private:
  bool any_ = false;
  std::string smallest_, largest_;
};

}  // namespace

ROCKSDB_NAMESPACE::TablePropertiesCollector*
KeyRangeCollectorFactory::CreateTablePropertiesCollector(
    ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory::Context) {
  return new KeyRangeCollector();
}

void AddKeyRangeCollector(
    std::vector<
        std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>>*
        factories) {
  const bool present = std::any_of(
      factories->begin(), factories->end(), [](const auto& factory) {
        return factory != nullptr && std::string(factory->Name()) ==
                                         KeyRangeCollectorFactory::kClassName();
      });
  if (!present)
    factories->push_back(std::make_shared<KeyRangeCollectorFactory>());
}

bool KeyRangeOf(const ROCKSDB_NAMESPACE::TableProperties& properties,
                std::string* smallest, std::string* largest) {
  const auto& user = properties.user_collected_properties;
  auto s = user.find(kSmallestKeyProperty);
  auto l = user.find(kLargestKeyProperty);
  if (s == user.end() || l == user.end()) return false;
  *smallest = s->second;
  *largest = l->second;
  return true;
}

}  // namespace monkey
