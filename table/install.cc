// monkey::Install: a filter policy from a string, into
// ROCKSDB_NAMESPACE::Options.
#include "monkey/install.h"

#include <map>
#include <mutex>

#include "monkey/monkey_filter_policy.h"
#include "monkey/table/key_range_collector.h"
#include "monkey/table/shape_listener.h"
#include "monkey/table/status_message.h"
#include "monkey/table/strict_string.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"

namespace monkey {

namespace {

// The block cache `table` reads `policy`'s filters through, for
// objective=io; InvalidArgument where that objective has none to plan for.
ROCKSDB_NAMESPACE::Status TableCacheOf(
    const MonkeyFilterPolicy& policy,
    const ROCKSDB_NAMESPACE::BlockBasedTableOptions& table,
    ShapeListener::TableCache* cache) {
  using ROCKSDB_NAMESPACE::Status;
  cache->cache = table.block_cache;
  cache->partition_bytes = table.partition_filters
                               ? static_cast<double>(table.metadata_block_size)
                               : 0.0;
  if (policy.options().objective != MonkeyOptions::Objective::kIo) {
    return Status::OK();
  }
  // Without it filters live in the table readers, outside the cache, and
  // are never read again once a file is open: no cache to plan for.
  if (!table.cache_index_and_filter_blocks) {
    return Status::InvalidArgument(
        "monkey: objective=io plans filters read through the block cache",
        "set BlockBasedTableOptions::cache_index_and_filter_blocks=true");
  }
  if (policy.options().cache_bytes <= 0 &&
      (table.no_block_cache || table.block_cache == nullptr)) {
    return Status::InvalidArgument(
        "monkey: objective=io needs a block cache",
        "give cache_bytes=<bytes>, or a block cache in the table options");
  }
  return Status::OK();
}

}  // namespace

void RegisterOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterMonkeyFilterPolicy(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(),
                               "");
  });
}

ROCKSDB_NAMESPACE::Status Install(const std::string& filter_uri,
                                  ROCKSDB_NAMESPACE::Options* options) {
  using ROCKSDB_NAMESPACE::BlockBasedTableOptions;
  using ROCKSDB_NAMESPACE::Status;
  RegisterOnce();
  const BlockBasedTableOptions* current =
      options->table_factory == nullptr
          ? nullptr
          : options->table_factory->GetOptions<BlockBasedTableOptions>();
  if (current == nullptr) {
    return Status::InvalidArgument(
        "monkey::Install needs a block-based table factory");
  }
  const std::string named = "filter_uri " + Quoted(filter_uri);
  // RocksDB reads "" and "nullptr" as no filter policy, and OK: a filter
  // string that names none would silently turn filters off. Install only
  // installs one; to build no filter, leave or set
  // BlockBasedTableOptions::filter_policy to nullptr.
  if (filter_uri.empty() || filter_uri == "nullptr") {
    return Status::InvalidArgument(
        named,
        "names no filter policy (to build no filter, leave "
        "BlockBasedTableOptions::filter_policy unset)");
  }
  const std::string twice = DuplicateOption(filter_uri);
  if (!twice.empty()) {
    return Status::InvalidArgument(named, "gives " + twice + " twice");
  }
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options =
      false;  // unknown ids must not mean "none"
  BlockBasedTableOptions table = *current;
  // From nothing: handed the current policy, CreateFromString starts from
  // its options when the id is the same (Customizable::GetOptionsMap), and
  // "id=monkey;bits_per_key=10" after "...;last_level_filter=false" kept
  // the last level unfiltered.
  table.filter_policy = nullptr;
  Status s = ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(
      config, filter_uri, &table.filter_policy);
  if (!s.ok()) {
    return Status::InvalidArgument(named, Elided(StatusMessage(s), filter_uri));
  }
  if (table.filter_policy == nullptr) {
    return Status::InvalidArgument(named, "names no filter policy");
  }
  // A listener an earlier Install added feeds the policy this one replaces:
  // kept, it would go on reading the tree for a policy no table uses.
  if (current->filter_policy != nullptr) {
    EraseShapeListeners(&options->listeners, current->filter_policy.get());
  }
  // The table options as the factory keeps them: with the block cache it
  // makes when none is given.
  std::shared_ptr<ROCKSDB_NAMESPACE::TableFactory> factory(
      ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  ShapeListener::TableCache cache;
  const auto* monkey = table.filter_policy->CheckedCast<MonkeyFilterPolicy>();
  if (monkey != nullptr) {
    s = TableCacheOf(*monkey, *factory->GetOptions<BlockBasedTableOptions>(),
                     &cache);
    if (!s.ok()) return Status::InvalidArgument(named, StatusMessage(s));
  }
  options->table_factory = std::move(factory);
  if (auto listener = NewShapeListener(table.filter_policy)) {
    static_cast<ShapeListener*>(listener.get())
        ->SetTableCache("", std::move(cache));
    options->listeners.push_back(std::move(listener));
    // Each new file's key range, for the listener to keep the shape from
    // its events (table/shape_listener.h).
    AddKeyRangeCollector(&options->table_properties_collector_factories);
  }
  return Status::OK();
}

std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewShapeListener(
    const std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>& policy) {
  if (policy == nullptr) return nullptr;
  const auto* monkey = policy->CheckedCast<MonkeyFilterPolicy>();
  if (monkey == nullptr ||
      monkey->options().shape != MonkeyOptions::Shape::kLive) {
    return nullptr;
  }
  // Share ownership with the table options, so the listener never outlives
  // the policy it feeds.
  return std::make_shared<ShapeListener>(
      std::shared_ptr<const MonkeyFilterPolicy>(policy, monkey));
}

std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>
NewKeyRangeCollectorFactory() {
  return std::make_shared<KeyRangeCollectorFactory>();
}

ROCKSDB_NAMESPACE::Status InstallForColumnFamilies(
    ROCKSDB_NAMESPACE::DBOptions* db_options,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>&
        column_families) {
  using ROCKSDB_NAMESPACE::BlockBasedTableOptions;
  ShapeListener::PolicyMap by_cf;
  std::map<std::string, ShapeListener::TableCache> caches;
  for (const auto& cf : column_families) {
    const auto& factory = cf.options.table_factory;
    const BlockBasedTableOptions* table =
        factory == nullptr ? nullptr
                           : factory->GetOptions<BlockBasedTableOptions>();
    if (table == nullptr || table->filter_policy == nullptr) continue;
    const auto* monkey =
        table->filter_policy->CheckedCast<MonkeyFilterPolicy>();
    if (monkey == nullptr ||
        monkey->options().shape != MonkeyOptions::Shape::kLive) {
      continue;
    }
    ROCKSDB_NAMESPACE::Status s =
        TableCacheOf(*monkey, *table, &caches[cf.name]);
    if (!s.ok()) {
      return ROCKSDB_NAMESPACE::Status::InvalidArgument(
          "column family " + Quoted(cf.name), StatusMessage(s));
    }
    by_cf[cf.name] =
        std::shared_ptr<const MonkeyFilterPolicy>(table->filter_policy, monkey);
  }
  EraseShapeListeners(&db_options->listeners, nullptr);
  if (!by_cf.empty()) {
    auto listener = std::make_shared<ShapeListener>(std::move(by_cf));
    for (auto& [name, cache] : caches) {
      listener->SetTableCache(name, std::move(cache));
    }
    db_options->listeners.push_back(std::move(listener));
  }
  return ROCKSDB_NAMESPACE::Status::OK();
}

namespace {

class PlanBarrier : public ROCKSDB_NAMESPACE::EventListener {
 public:
  const char* Name() const override { return "MonkeyPlanBarrier"; }
  void OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                    const ROCKSDB_NAMESPACE::FlushJobInfo&) override {
    WaitForPlans(db);
  }
  void OnCompactionBegin(ROCKSDB_NAMESPACE::DB* db,
                         const ROCKSDB_NAMESPACE::CompactionJobInfo&) override {
    WaitForPlans(db);
  }
};

}  // namespace

std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewPlanBarrier() {
  return std::make_shared<PlanBarrier>();
}

void WaitForPlans(ROCKSDB_NAMESPACE::DB* db) {
  for (const auto& listener : db->GetDBOptions().listeners) {
    if (listener == nullptr) continue;
    if (auto* shape = listener->CheckedCast<ShapeListener>()) {
      shape->WaitForPlans();
    }
  }
}

void RefreshShape(ROCKSDB_NAMESPACE::DB* db) {
  for (const auto& listener : db->GetDBOptions().listeners) {
    if (listener == nullptr) continue;
    if (auto* shape = listener->CheckedCast<ShapeListener>()) {
      shape->Refresh(db);
    }
  }
}

}  // namespace monkey
