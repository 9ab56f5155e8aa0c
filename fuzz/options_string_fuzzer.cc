// libFuzzer target: Monkey's options strings through RocksDB's own parser,
// FilterPolicy::CreateFromString, as an engine's OPTIONS file would reach it.
// The input is one of "monkey:<input>", "id=monkey;<input>" or
// "{id=monkey;<input>}" (first byte picks). Allowed outcomes: OK or
// InvalidArgument. On OK the policy's options must be valid, its plan within
// RocksDB's range, and its serialized form (what the OPTIONS file holds) must
// parse back into a policy with the same plan.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "monkey/monkey_filter_policy.h"
#include "monkey/util/monkey_bpk.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"

namespace {

void Fail(const std::string& uri, const std::string& what) {
  fprintf(stderr, "options_string_fuzzer: '%s': %s\n", uri.c_str(),
          what.c_str());
  abort();
}

ROCKSDB_NAMESPACE::Status Parse(
    const std::string& uri,
    std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy) {
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  return ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, uri, policy);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool registered = [] {
    RegisterMonkeyFilterPolicy(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(),
                               "");
    return true;
  }();
  (void)registered;
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const char* const kForms[][2] = {
      {"monkey:", ""}, {"id=monkey;", ""}, {"{id=monkey;", "}"}};
  const auto& form = kForms[data[0] % 3];
  const std::string uri = form[0] + rest + form[1];
  // A later "id=" makes another policy (RocksDB's map keeps the last id):
  // not a Monkey string any more.
  std::unordered_map<std::string, std::string> map;
  if (uri.find('=') != std::string::npos &&
      ROCKSDB_NAMESPACE::StringToMap(
          form[1][0] == '}' ? "id=monkey;" + rest : uri, &map)
          .ok() &&
      map.count("id") && map["id"] != "monkey") {
    return 0;
  }

  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  const ROCKSDB_NAMESPACE::Status s = Parse(uri, &policy);
  if (!s.ok()) {
    if (!s.IsInvalidArgument())
      Fail(uri, "not InvalidArgument: " + s.ToString());
    return 0;
  }
  if (policy == nullptr) Fail(uri, "OK without a policy");
  const auto* monkey = policy->CheckedCast<monkey::MonkeyFilterPolicy>();
  if (monkey == nullptr)
    Fail(uri, std::string("not monkey: ") + policy->Name());

  const monkey::MonkeyOptions& o = monkey->options();
  if (!(o.bits_per_key >= 0 && o.bits_per_key <= 100)) {
    Fail(uri, "accepted bits_per_key " + std::to_string(o.bits_per_key));
  }
  if (!(o.size_ratio > 1 && std::isfinite(o.size_ratio))) {
    Fail(uri, "accepted size_ratio " + std::to_string(o.size_ratio));
  }
  using Filter = monkey::MonkeyOptions::Filter;
  if (o.filter != Filter::kBloom && o.filter != Filter::kRibbon &&
      o.filter != Filter::kAuto) {
    Fail(uri, "accepted filter " + std::to_string(static_cast<int>(o.filter)));
  }
  // Every level's bits are in RocksDB's range, and over the tree the plan
  // assumes, the average keeps the budget.
  for (int num_levels : {1, 2, 7, 64}) {
    for (int level = -1; level <= num_levels; ++level) {
      const int millibits = monkey->MillibitsForLevel(level, num_levels);
      if (millibits < 0 || millibits > 100000) {
        Fail(uri, "plan gives " + std::to_string(millibits) + " millibits");
      }
    }
    std::vector<monkey::LevelShape> shape;
    if (!monkey::StaticShape(o.size_ratio, num_levels, o.last_level_filter,
                             &shape)
             .empty()) {
      Fail(uri, "no static shape for " + std::to_string(num_levels));
    }
    double entries = 0, millibit_entries = 0;
    for (int level = 0; level < num_levels; ++level) {
      if (!shape[level].filtered) continue;
      entries += shape[level].entries;
      millibit_entries +=
          shape[level].entries * monkey->MillibitsForLevel(level, num_levels);
    }
    const double budget = o.bits_per_key * 1000 * entries;
    if (millibit_entries > budget * (1 + 1e-9)) {
      Fail(uri, std::to_string(num_levels) + " levels average " +
                    std::to_string(millibit_entries / entries / 1000) +
                    " bits/key");
    }
  }
  // What RocksDB writes to the OPTIONS file must read back as the same
  // policy: same options, same plan.
  ROCKSDB_NAMESPACE::ConfigOptions config;
  const std::string serialized = policy->ToString(config);
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> again;
  const ROCKSDB_NAMESPACE::Status s2 = Parse(serialized, &again);
  if (!s2.ok()) Fail(uri, "serialized '" + serialized + "': " + s2.ToString());
  const auto* reread = again->CheckedCast<monkey::MonkeyFilterPolicy>();
  if (reread == nullptr)
    Fail(uri, "serialized '" + serialized + "' not monkey");
  for (int num_levels : {1, 2, 7, 64}) {
    for (int level = -1; level < num_levels; ++level) {
      if (reread->MillibitsForLevel(level, num_levels) !=
          monkey->MillibitsForLevel(level, num_levels)) {
        Fail(uri, "serialized '" + serialized + "' plans L" +
                      std::to_string(level) + " of " +
                      std::to_string(num_levels) + " differently");
      }
    }
  }
  return 0;
}
