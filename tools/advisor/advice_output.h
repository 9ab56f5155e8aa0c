// What monkey_plan --db prints for one column family: a table per level
// (files, runs as the policy plans them, probes per lookup, stored keys,
// filter entries, filter bytes, realized bits per filter entry, filter kind,
// model FPR, and the bits and FPR of both
// suggestions), the Sum FPR and filter bytes now, and the two suggestions with
// their options strings; or the same as JSON (keys in docs/advisor.md).
#pragma once

#include <string>

#include "monkey/tools/advisor/db_facts.h"
#include "monkey/util/advisor.h"
#include "monkey/util/cache_plan.h"
#include "nlohmann/json.hpp"

namespace monkey::advisor {

// `advice` is nullptr where there is nothing to advise; `why` says why.
std::string AdviceText(const ColumnFamilyFacts& facts, const Advice* advice,
                       const std::string& why);

// One element of "column_families": name, levels (level, files, entries:
// stored keys, filter_bytes, filter_entries, bits_per_key: realized bits per
// filter entry, filter, model_fpr), sum_fpr_now,
// filter_bytes_now, same_bytes (sum_fpr, options) and same_fpr
// (filter_bytes, saving, options); a suggestion that cannot be made, or
// all of them without advice, is null.
nlohmann::json AdviceJson(const ColumnFamilyFacts& facts, const Advice* advice);

// --cache_bytes: the modelled block reads per absent-key lookup through
// `cache` (util/cache_cost.h) now, by kind, the bytes they read and their
// cost, with the filter layout, and with the bits per level of `plan`
// (util/cache_plan.h); as text, and as AdviceJson's "block_reads"
// (cache_bytes, read_latency_bytes, filter_layout: "full" or
// "partitioned", filter, index, data, total, bytes, cost, and plan:
// levels, bits_per_key per level, filter, index, data, total, bytes, cost).
std::string BlockReadsText(const ColumnFamilyFacts& facts,
                           const CacheLayout& cache, const BlockReads& reads,
                           const CachePlan& plan);
nlohmann::json BlockReadsJson(const ColumnFamilyFacts& facts,
                              const CacheLayout& cache, const BlockReads& reads,
                              const CachePlan& plan);

}  // namespace monkey::advisor
