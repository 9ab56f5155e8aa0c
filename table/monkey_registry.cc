// Registers Monkey with RocksDB's object registry: "monkey" and
// "monkey:<bits_per_key>" as filter policies, a malformed "id=monkey;..."
// string as an error that names it, and Install's key range collector.
// RegisterMonkeyFilterPolicy is also the plugin's registrar (monkey_FUNC in
// monkey.mk).
#include <memory>
#include <string>

#include "monkey/monkey_filter_policy.h"
#include "monkey/table/key_range_collector.h"
#include "monkey/table/status_message.h"
#include "monkey/table/strict_string.h"
#include "rocksdb/convenience.h"
#include "rocksdb/utilities/object_registry.h"

extern "C" int RegisterMonkeyFilterPolicy(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& /*arg*/) {
  using ROCKSDB_NAMESPACE::FilterPolicy;
  // "monkey" alone, or "monkey:<bits_per_key>"; the factory rejects a bad
  // number with a message that names it, instead of "no such policy".
  library.AddFactory<const FilterPolicy>(
      ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry(
          monkey::MonkeyFilterPolicy::kClassName(), true)
          .AddSeparator(":", /*at_least_one=*/false),
      [](const std::string& uri, std::unique_ptr<const FilterPolicy>* guard,
         std::string* errmsg) -> const FilterPolicy* {
        auto policy = std::make_unique<monkey::MonkeyFilterPolicy>();
        const size_t colon = uri.find(':');
        if (colon != std::string::npos) {
          ROCKSDB_NAMESPACE::ConfigOptions config;
          config.ignore_unknown_options = false;
          ROCKSDB_NAMESPACE::Status s = policy->ConfigureFromMap(
              config, {{"bits_per_key", uri.substr(colon + 1)}});
          if (!s.ok()) {
            *errmsg = monkey::StatusMessage(s);  // RocksDB adds the code
            return nullptr;
          }
        }
        guard->reset(policy.release());
        return guard->get();
      });
  // "id=monkey;..." only reaches a factory whole when RocksDB could not split
  // it into options (an option without '=', say); without this entry that
  // is "Could not load FilterPolicy", NotSupported, which the default
  // ConfigOptions turn into no filter.
  library.AddFactory<const FilterPolicy>(
      ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry("id=monkey", false)
          .AnotherName("{id=monkey")
          .AddSeparator(";", /*at_least_one=*/false),
      [](const std::string& uri, std::unique_ptr<const FilterPolicy>*,
         std::string* errmsg) -> const FilterPolicy* {
        *errmsg = "monkey: malformed options string " + monkey::Quoted(uri) +
                  " (each option is name=value, separated by ';')";
        return nullptr;
      });
  // Install's key range collector, by name, so that a DB's OPTIONS file --
  // which lists it -- loads again (LoadOptionsFromFile, ldb).
  library.AddFactory<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>(
      monkey::KeyRangeCollectorFactory::kClassName(),
      [](const std::string&,
         std::unique_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>*
             guard,
         std::string*) {
        guard->reset(new monkey::KeyRangeCollectorFactory());
        return guard->get();
      });
  size_t num_types;
  return static_cast<int>(library.GetFactoryCount(&num_types));
}
