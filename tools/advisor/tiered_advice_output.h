// What monkey_plan --db prints for a column family written under universal
// compaction: a line per sorted run (each L0 file, each level below:
// level, file, probes per absent-key lookup, filter entries, filter bytes,
// realized bits, model FPR, and the bits and FPR of both suggestions), the
// false positives per absent-key lookup and filter bytes now, and the two
// suggestions with their options strings; or the same as JSON.
#pragma once

#include <string>

#include "monkey/tools/advisor/db_facts.h"
#include "monkey/util/tiered_advisor.h"
#include "nlohmann/json.hpp"

namespace monkey::advisor {

// `advice` is nullptr where there is nothing to advise; `why` says why.
std::string TieredAdviceText(const ColumnFamilyFacts& facts,
                             const TieredAdvice* advice,
                             const std::string& why);

// AdviceJson's keys (sum_fpr_now and same_bytes.sum_fpr: the false
// positives per absent-key lookup, which for a tiered tree is what a sum
// of FPRs counts), with compaction_style "universal" and sorted_runs,
// newest first: level, file_number (an L0 run's; null below), files,
// filter_entries, filter_bytes, bits_per_key, model_fpr, probes, reach,
// and same_bytes and same_fpr (bits_per_key, fpr) per run, null without a
// suggestion.
nlohmann::json TieredAdviceJson(const ColumnFamilyFacts& facts,
                                const TieredAdvice* advice);

}  // namespace monkey::advisor
