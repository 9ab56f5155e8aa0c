// Text and JSON of the advisor. See advice_output.h.
#include "monkey/tools/advisor/advice_output.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "monkey/util/live_shape.h"

namespace monkey::advisor {
namespace {

using nlohmann::json;

void Append(std::string* out, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

void Append(std::string* out, const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  out->append(buf);
}

// Realized bits per filter entry (num_filter_entries: keys, prefixes or
// both), not per stored key.
double RealizedBits(const AdvisorLevel& l) {
  return l.filter_entries > 0 ? 8 * l.filter_bytes / l.filter_entries : 0;
}

// Runs per level as the policy counts them, each weighted by the reach it
// estimates (util/live_shape.h).
std::vector<double> RunsOf(const ColumnFamilyFacts& facts,
                           const Advice* advice) {
  std::vector<double> runs;
  if (advice != nullptr) {
    for (const LevelShape& level : advice->shape) runs.push_back(level.runs);
  } else {
    for (const LiveLevel& level : ProjectLiveShape(facts.live_files, {})) {
      runs.push_back(level.runs);
    }
  }
  return runs;
}

// Filter probes per absent-key lookup, what the Sum FPRs count
// (util/advisor.h).
std::vector<double> ProbesOf(const ColumnFamilyFacts& facts,
                             const Advice* advice) {
  return advice != nullptr ? advice->probes : ProbesPerLookup(facts.live_files);
}

double At(const std::vector<double>& v, int level) {
  return level >= 0 && static_cast<size_t>(level) < v.size() ? v[level] : 0;
}

double FprNow(const AdvisorLevel& l, const Advice* advice) {
  return advice != nullptr ? advice->fpr_now[l.level] : 1.0;
}

double MiB(double bytes) { return bytes / 1048576; }

// "  9.123  0.0512%" for a suggested level, "   none    100%" without.
std::string Suggested(const AdvisedPlan& p, const Advice& a, int level) {
  char buf[64];
  if (!p.error.empty()) return "      -          -";
  const LevelPlan& l = p.plan.levels[level];
  if (!a.shape[level].filtered || l.millibits_per_key == 0) {
    snprintf(buf, sizeof(buf), "%7s %10s", "none", "100%");
  } else {
    snprintf(buf, sizeof(buf), "%7.3f %9.4f%%", l.bits_per_key, l.fpr * 100);
  }
  return buf;
}

}  // namespace

std::string AdviceText(const ColumnFamilyFacts& facts, const Advice* advice,
                       const std::string& why) {
  std::string out;
  Append(&out, "column family '%s': %llu SST files\n", facts.name.c_str(),
         static_cast<unsigned long long>(facts.files));
  if (facts.levels.empty()) {
    Append(&out, "  %s\n", why.c_str());
    return out;
  }
  if (advice != nullptr) {
    Append(&out, "%-89s | %-18s | %-18s\n", "", "Monkey, same bytes",
           "Monkey, same FPR");
  }
  // keys: stored keys (num_entries); filter entries: what the filters hold
  // (num_filter_entries), and bits/entry the filter bits per filter entry.
  Append(&out, "%-5s %6s %6s %6s %12s %12s %10s %10s %-6s %10s", "level",
         "files", "runs", "probes", "keys", "filt entries", "filter MiB",
         "bits/entry", "filter", "model FPR");
  if (advice != nullptr) {
    Append(&out, " | %7s %10s | %7s %10s", "bits", "FPR", "bits", "FPR");
  }
  out += "\n";
  const std::vector<double> runs = RunsOf(facts, advice);
  const std::vector<double> probes = ProbesOf(facts, advice);
  for (const AdvisorLevel& l : facts.levels) {
    Append(&out,
           "L%-4d %6.0f %6.3f %6.3f %12.0f %12.0f %10.3f %10.3f %-6s %9.4f%%",
           l.level, l.files, At(runs, l.level), At(probes, l.level), l.entries,
           l.filter_entries, MiB(l.filter_bytes), RealizedBits(l),
           l.filter.c_str(), FprNow(l, advice) * 100);
    if (advice != nullptr) {
      Append(&out, " | %s | %s",
             Suggested(advice->same_bytes, *advice, l.level).c_str(),
             Suggested(advice->same_fpr, *advice, l.level).c_str());
    }
    out += "\n";
  }
  if (advice == nullptr) {
    Append(&out, "  %s\n", why.c_str());
    return out;
  }
  const Advice& a = *advice;
  Append(&out,
         "now:        sum FPR %.4f%% (model), filters %.3f MiB (%.3f "
         "bits per filter entry)\n",
         a.sum_fpr_now * 100, MiB(a.filter_bytes_now), a.bits_per_key_now);
  if (a.same_bytes.error.empty()) {
    Append(&out,
           "same bytes: sum FPR %.4f%% (%.2fx now) with Monkey at %.3f "
           "bits/key\n            %s\n",
           a.same_bytes.plan.sum_fpr * 100,
           a.sum_fpr_now > 0 ? a.same_bytes.plan.sum_fpr / a.sum_fpr_now : 0,
           a.same_bytes.bits_per_key, a.same_bytes.options.c_str());
  } else {
    Append(&out, "same bytes: no suggestion: %s\n", a.same_bytes.error.c_str());
  }
  if (a.same_fpr.error.empty()) {
    Append(&out,
           "same FPR:   filters %.3f MiB (%.3f bits/key), %.1f%% %s than "
           "now, sum FPR %.4f%%\n            %s\n",
           MiB(a.same_fpr.filter_bytes), a.same_fpr.bits_per_key,
           std::fabs(a.saving) * 100, a.saving >= 0 ? "less" : "more",
           a.same_fpr.plan.sum_fpr * 100, a.same_fpr.options.c_str());
  } else {
    Append(&out, "same FPR:   no suggestion: %s\n", a.same_fpr.error.c_str());
  }
  if (a.frozen_filter_bytes > 0 && a.filter_bytes_now > 0) {
    Append(&out,
           "  (planned as frozen, every level for the tree as it stands, the "
           "same sum FPR would\n  take %.3f MiB, %.1f%% less than now; the "
           "policy plans L1 and below for the tree\n  L0's keys are going "
           "to)\n",
           MiB(a.frozen_filter_bytes),
           (1 - a.frozen_filter_bytes / a.filter_bytes_now) * 100);
  }
  Append(&out,
         "  (runs: as the policy plans them, each weighted by the share of "
         "the tree's keys it\n  estimates in its key range; probes: filter "
         "probes per absent-key lookup, lookups\n  spread evenly over the "
         "key range; sum FPR = sum of probes * FPR: false positives\n  per "
         "absent-key lookup)\n");
  if (!a.last_level_filter) {
    Append(
        &out,
        "  L%zu has no filter: its keys and its FPR of 1 are left out of "
        "the sums and bits per filter entry, and the suggestions keep it so.\n",
        a.shape.size() - 1);
  }
  return out;
}

json AdviceJson(const ColumnFamilyFacts& facts, const Advice* advice) {
  json levels = json::array();
  for (const AdvisorLevel& l : facts.levels) {
    levels.push_back(
        {{"level", l.level},
         {"files", static_cast<uint64_t>(l.files)},
         {"entries", static_cast<uint64_t>(l.entries)},
         {"filter_bytes", static_cast<uint64_t>(l.filter_bytes)},
         {"filter_entries", static_cast<uint64_t>(l.filter_entries)},
         // Per filter entry; the key is kept for its readers.
         {"bits_per_key", RealizedBits(l)},
         {"filter", l.filter},
         {"model_fpr", FprNow(l, advice)}});
  }
  json cf = {{"name", facts.name}, {"levels", levels}};
  if (advice == nullptr) {
    const std::vector<double> probes = ProbesOf(facts, nullptr);
    double sum = 0, bytes = 0;
    for (const AdvisorLevel& l : facts.levels) {
      sum += At(probes, l.level);  // no filters: FPR 1
      bytes += l.filter_bytes;
    }
    cf["sum_fpr_now"] = sum;
    cf["filter_bytes_now"] = static_cast<uint64_t>(bytes);
    cf["same_bytes"] = nullptr;
    cf["same_fpr"] = nullptr;
    return cf;
  }
  const Advice& a = *advice;
  cf["sum_fpr_now"] = a.sum_fpr_now;
  cf["filter_bytes_now"] = static_cast<uint64_t>(a.filter_bytes_now);
  cf["same_bytes"] = a.same_bytes.error.empty()
                         ? json{{"sum_fpr", a.same_bytes.plan.sum_fpr},
                                {"options", a.same_bytes.options}}
                         : json(nullptr);
  cf["same_fpr"] =
      a.same_fpr.error.empty()
          ? json{{"filter_bytes",
                  static_cast<uint64_t>(std::llround(a.same_fpr.filter_bytes))},
                 {"saving", a.saving},
                 {"options", a.same_fpr.options}}
          : json(nullptr);
  return cf;
}

namespace {

const char* FilterLayout(const ColumnFamilyFacts& facts) {
  return facts.filter_partition_bytes > 0 ? "partitioned" : "full";
}

// The levels with files, top down: the runs CacheRunsToPlan made.
std::vector<int> CachedLevels(const ColumnFamilyFacts& facts) {
  std::vector<int> levels;
  for (const AdvisorLevel& l : facts.levels) {
    if (l.files > 0) levels.push_back(l.level);
  }
  return levels;
}

}  // namespace

std::string BlockReadsText(const ColumnFamilyFacts& facts,
                           const CacheLayout& cache, const BlockReads& reads,
                           const CachePlan& plan) {
  std::string out;
  const double latency = cache.read_latency_bytes;
  Append(&out,
         "Block reads per absent-key lookup through a %.0f-byte block cache "
         "(%s filters, model; cost: reads + bytes / %.0f):\n  now:       "
         "filter %.4f, index %.4f, data %.4f; total %.4f, %.0f bytes, cost "
         "%.4f\n",
         cache.cache_bytes, FilterLayout(facts), latency, reads.filter,
         reads.index, reads.data, reads.total(), reads.bytes,
         reads.Cost(latency));
  Append(&out,
         "  planned:   filter %.4f, index %.4f, data %.4f; total %.4f, %.0f "
         "bytes, cost %.4f, with bits/key",
         plan.reads.filter, plan.reads.index, plan.reads.data,
         plan.reads.total(), plan.reads.bytes, plan.reads.Cost(latency));
  const std::vector<int> levels = CachedLevels(facts);
  for (size_t i = 0; i < levels.size() && i < plan.bits.size(); ++i) {
    Append(&out, " L%d %g", levels[i], plan.bits[i]);
  }
  out += " (0: no filter)\n";
  return out;
}

nlohmann::json BlockReadsJson(const ColumnFamilyFacts& facts,
                              const CacheLayout& cache, const BlockReads& reads,
                              const CachePlan& plan) {
  const double latency = cache.read_latency_bytes;
  return nlohmann::json{
      {"cache_bytes", static_cast<uint64_t>(cache.cache_bytes)},
      {"read_latency_bytes", latency},
      {"filter_layout", FilterLayout(facts)},
      {"filter", reads.filter},
      {"index", reads.index},
      {"data", reads.data},
      {"total", reads.total()},
      {"bytes", reads.bytes},
      {"cost", reads.Cost(latency)},
      {"plan",
       {{"levels", CachedLevels(facts)},
        {"bits_per_key", plan.bits},
        {"filter", plan.reads.filter},
        {"index", plan.reads.index},
        {"data", plan.reads.data},
        {"total", plan.reads.total()},
        {"bytes", plan.reads.bytes},
        {"cost", plan.reads.Cost(latency)}}}};
}

}  // namespace monkey::advisor
