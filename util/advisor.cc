// The advisor's math. See advisor.h.
#include "util/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "util/monkey_memory.h"

namespace monkey {
namespace {

bool Valid(double x) { return std::isfinite(x) && x >= 0; }

// What a Monkey policy with this filter= builds at `level` (as
// table/monkey_filter_policy.cc plans it: Ribbon with its default slots).
FprModel ModelFor(const std::string& filter, int level) {
  const bool ribbon = filter == "ribbon" || (filter == "auto" && level != 0);
  return ribbon ? FprModel::Ribbon() : FprModel::FastLocalBloom();
}

}  // namespace

bool HasFilters(const std::vector<AdvisorLevel>& levels) {
  for (const AdvisorLevel& l : levels) {
    if (l.filter_bytes > 0 && l.filter_entries > 0) return true;
  }
  return false;
}

std::string SuggestedFilter(const std::vector<AdvisorLevel>& levels) {
  std::string l0 = "none";                   // L0's kind
  double bloom_below = 0, ribbon_below = 0;  // filtered keys by kind
  for (const AdvisorLevel& l : levels) {
    if (!(l.filter_entries > 0) || l.filter == "none") continue;
    if (l.level == 0) {
      l0 = l.filter;
    } else if (l.filter == "bloom") {
      bloom_below += l.filter_entries;
    } else if (l.filter == "ribbon") {
      ribbon_below += l.filter_entries;
    }
  }
  // Below L0, the kind of the most keys (a "mixed" level counts for
  // neither); with no filters below L0, L0's kind.
  const bool ribbon = bloom_below + ribbon_below > 0
                          ? ribbon_below > bloom_below
                          : l0 == "ribbon";
  if (!ribbon) return "bloom";
  return l0 == "bloom" || l0 == "mixed" ? "auto" : "ribbon";
}

std::string MonkeyOptionsString(double bits_per_key, bool last_level_filter,
                                const std::string& filter) {
  char bits[32];
  snprintf(bits, sizeof(bits), "%.3f", bits_per_key);
  std::string b = bits;
  while (b.back() == '0') b.pop_back();
  if (b.back() == '.') b.pop_back();
  return "id=monkey;bits_per_key=" + b +
         (last_level_filter ? "" : ";last_level_filter=false") +
         ";filter=" + filter;
}

std::string Advise(const std::vector<AdvisorLevel>& levels, Advice* advice) {
  std::map<int, const AdvisorLevel*> by_level;
  for (const AdvisorLevel& l : levels) {
    if (!(l.files > 0)) continue;
    if (l.level < 0 || l.level >= 64) {
      return "level " + std::to_string(l.level) + " is outside [0, 64)";
    }
    if (!Valid(l.files) || !Valid(l.entries) || !Valid(l.filter_entries) ||
        !Valid(l.unfiltered_entries) || !Valid(l.filter_bytes) ||
        !Valid(l.model_fpr) || l.model_fpr > 1) {
      return "level " + std::to_string(l.level) +
             " has facts that are not finite and >= 0 (or an FPR above 1)";
    }
    if (!by_level.emplace(l.level, &l).second) {
      return "level " + std::to_string(l.level) + " is given twice";
    }
  }
  if (by_level.empty()) return "no SST files";
  if (!HasFilters(levels)) return "no filters";

  Advice a;
  a.filter = SuggestedFilter(levels);
  const int last = by_level.rbegin()->first;
  a.shape.assign(last + 1, LevelShape{0, 0, true});
  a.fpr_now.assign(last + 1, 1.0);
  for (int i = 0; i <= last; ++i) a.models.push_back(ModelFor(a.filter, i));
  for (const auto& [level, l] : by_level) {
    LevelShape& s = a.shape[level];
    const bool filters = l->filter_entries > 0 && l->filter_bytes > 0;
    // A filter's bits are per key it holds (num_filter_entries), which is
    // what the policy's bits_per_key counts too.
    s.entries =
        filters ? l->filter_entries + l->unfiltered_entries : l->entries;
    s.runs = level == 0 ? l->files : 1;
    if (filters) {
      // Files without a filter let every lookup in their range through.
      a.fpr_now[level] =
          (l->filter_entries * l->model_fpr + l->unfiltered_entries) /
          (l->filter_entries + l->unfiltered_entries);
    }
    if (level == last && !filters) {
      s.filtered = false;
      a.last_level_filter = false;
    }
    a.filter_bytes_now += l->filter_bytes;
  }
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (!a.shape[i].filtered) continue;
    a.filtered_entries += a.shape[i].entries;
    a.sum_fpr_now += a.shape[i].runs * a.fpr_now[i];
  }
  if (!(a.filtered_entries > 0)) return "no keys in the filtered levels";
  a.bits_per_key_now = 8 * a.filter_bytes_now / a.filtered_entries;

  auto finish = [&](AdvisedPlan* p) {
    p->filter_bytes = p->bits_per_key * a.filtered_entries / 8;
    p->options =
        MonkeyOptionsString(p->bits_per_key, a.last_level_filter, a.filter);
  };

  // Monkey at the same bytes: the realized bits per key, to the millibit
  // below (RocksDB's resolution; never more bytes than now).
  AdvisedPlan& same_bytes = a.same_bytes;
  same_bytes.bits_per_key =
      std::min(100.0, std::floor(a.bits_per_key_now * 1000 + 1e-6) / 1000);
  same_bytes.error = ValidatePlanInputs(a.shape, same_bytes.bits_per_key);
  if (same_bytes.error.empty()) {
    same_bytes.plan =
        PlanBitsPerKey(a.shape, same_bytes.bits_per_key, a.models);
    finish(&same_bytes);
  }

  // Monkey at the same Sum FPR: its least bits, to the millibit above
  // (never a higher Sum FPR than now).
  AdvisedPlan& same_fpr = a.same_fpr;
  same_fpr.error =
      PlanLeastBits(a.shape, a.sum_fpr_now, a.models, &same_fpr.plan);
  if (same_fpr.error.empty()) {
    same_fpr.bits_per_key =
        std::ceil(same_fpr.plan.bits_per_key() * 1000 - 1e-6) / 1000;
    finish(&same_fpr);
    a.saving = a.filter_bytes_now > 0
                   ? 1 - same_fpr.filter_bytes / a.filter_bytes_now
                   : 0;
  }
  *advice = std::move(a);
  return "";
}

}  // namespace monkey
