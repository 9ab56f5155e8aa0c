// A downstream program: registers Monkey, creates "monkey:7" from a string
// and checks that it plans per level. Exits non-zero on any failure.
#include <cstdio>

#include "monkey/monkey_filter_policy.h"
#include "rocksdb/convenience.h"

int main() {
  RegisterMonkeyFilterPolicy(*ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, "monkey:7",
                                                        &policy);
  if (!s.ok() || policy == nullptr) {
    fprintf(stderr, "CreateFromString: %s\n", s.ToString().c_str());
    return 1;
  }
  const auto* monkey = policy->CheckedCast<monkey::MonkeyFilterPolicy>();
  if (monkey == nullptr ||
      monkey->MillibitsForLevel(0, 7) <= monkey->MillibitsForLevel(6, 7)) {
    fprintf(stderr, "not a per-level monkey policy: %s\n", policy->Name());
    return 1;
  }
  printf("%s", monkey->PlanToString(7).c_str());
  return 0;
}
