// Text and JSON of the advisor for tiered trees. See tiered_advice_output.h.
#include "monkey/tools/advisor/tiered_advice_output.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "monkey/tools/advisor/advice_output.h"

namespace monkey::advisor {
namespace {

using nlohmann::json;

double MiB(double bytes) { return bytes / 1048576; }

// Per run: its files, and the file number of a run that is one L0 file.
struct RunFiles {
  int files = 0;
  uint64_t number = 0;
};

std::vector<RunFiles> FilesOfRuns(const ColumnFamilyFacts& facts,
                                  const TieredAdvice& a) {
  std::vector<RunFiles> out(a.runs.runs.size());
  for (size_t i = 0; i < a.runs.run_of_file.size(); ++i) {
    const int r = a.runs.run_of_file[i];
    if (r < 0) continue;
    ++out[r].files;
    out[r].number = facts.files_with_filters[i].number;
  }
  return out;
}

std::string Suggested(const TieredAdvisedPlan& p, size_t run) {
  char buf[64];
  if (!p.error.empty()) return "      -          -";
  if (p.millibits[run] == 0) {
    snprintf(buf, sizeof(buf), "%7s %10s", "none", "100%");
  } else {
    snprintf(buf, sizeof(buf), "%7.3f %9.4f%%", p.millibits[run] / 1000.0,
             p.fpr[run] * 100);
  }
  return buf;
}

json RunPlanJson(const TieredAdvisedPlan& p, size_t run) {
  if (!p.error.empty()) return nullptr;
  return {{"bits_per_key", p.millibits[run] / 1000.0}, {"fpr", p.fpr[run]}};
}

}  // namespace

std::string TieredAdviceText(const ColumnFamilyFacts& facts,
                             const TieredAdvice* advice,
                             const std::string& why) {
  std::string out;
  char line[512];
  snprintf(line, sizeof(line),
           "column family '%s': %llu SST files, universal compaction\n",
           facts.name.c_str(), static_cast<unsigned long long>(facts.files));
  out += line;
  if (advice == nullptr) {
    out += "  " + why + "\n";
    return out;
  }
  const TieredAdvice& a = *advice;
  const std::vector<RunFiles> files = FilesOfRuns(facts, a);
  snprintf(line, sizeof(line), "%-83s | %-18s | %-18s\n", "",
           "Monkey, same bytes", "Monkey, same FPR");
  out += line;
  snprintf(line, sizeof(line),
           "%-4s %-5s %8s %6s %6s %12s %10s %10s %10s | %7s %10s | %7s %10s\n",
           "run", "level", "file", "files", "probes", "filt entries",
           "filter MiB", "bits/entry", "model FPR", "bits", "FPR", "bits",
           "FPR");
  out += line;
  for (size_t r = 0; r < a.runs.runs.size(); ++r) {
    const SortedRun& run = a.runs.runs[r];
    const std::string file =
        run.level == 0 ? "#" + std::to_string(files[r].number) : "-";
    snprintf(line, sizeof(line),
             "%-4zu L%-4d %8s %6d %6.3f %12.0f %10.3f %10.3f %9.4f%% | %s | "
             "%s\n",
             r, run.level, file.c_str(), files[r].files, a.probes[r],
             run.entries, MiB(run.filter_bits / 8), a.bits_per_key_now[r],
             a.fpr_now[r] * 100, Suggested(a.same_bytes, r).c_str(),
             Suggested(a.same_fpr, r).c_str());
    out += line;
  }
  snprintf(line, sizeof(line),
           "now:        false positives per absent-key lookup %.5f (model), "
           "filters %.3f MiB (%.3f bits per filter entry)\n",
           a.false_positives_now, MiB(a.filter_bytes_now),
           a.bits_per_key_now_total);
  out += line;
  if (a.same_bytes.error.empty()) {
    snprintf(line, sizeof(line),
             "same bytes: false positives %.5f (%.2fx now) with Monkey at "
             "%.3f bits/key\n            %s\n",
             a.same_bytes.false_positives,
             a.false_positives_now > 0
                 ? a.same_bytes.false_positives / a.false_positives_now
                 : 0,
             a.same_bytes.bits_per_key, a.same_bytes.options.c_str());
  } else {
    snprintf(line, sizeof(line), "same bytes: no suggestion: %s\n",
             a.same_bytes.error.c_str());
  }
  out += line;
  if (a.same_fpr.error.empty()) {
    snprintf(line, sizeof(line),
             "same FPR:   filters %.3f MiB (%.3f bits/key), %.1f%% %s than "
             "now, false positives %.5f\n            %s\n",
             MiB(a.same_fpr.filter_bytes), a.same_fpr.bits_per_key,
             std::fabs(a.saving) * 100, a.saving >= 0 ? "less" : "more",
             a.same_fpr.false_positives, a.same_fpr.options.c_str());
  } else {
    snprintf(line, sizeof(line), "same FPR:   no suggestion: %s\n",
             a.same_fpr.error.c_str());
  }
  out += line;
  return out;
}

json TieredAdviceJson(const ColumnFamilyFacts& facts,
                      const TieredAdvice* advice) {
  json cf = AdviceJson(facts, nullptr);
  cf["compaction_style"] = facts.compaction_style;
  // AdviceJson without advice counts a level as unfiltered; here its
  // filters' FPR is what its runs hold.
  for (size_t i = 0; i < facts.levels.size(); ++i) {
    const AdvisorLevel& l = facts.levels[i];
    if (l.filter_bytes > 0) cf["levels"][i]["model_fpr"] = l.model_fpr;
  }
  json runs = json::array();
  if (advice == nullptr) {
    cf["sorted_runs"] = runs;
    return cf;
  }
  const TieredAdvice& a = *advice;
  const std::vector<RunFiles> files = FilesOfRuns(facts, a);
  for (size_t r = 0; r < a.runs.runs.size(); ++r) {
    const SortedRun& run = a.runs.runs[r];
    runs.push_back({{"level", run.level},
                    {"file_number",
                     run.level == 0 ? json(files[r].number) : json(nullptr)},
                    {"files", files[r].files},
                    {"filter_entries", run.entries},
                    {"filter_bytes",
                     static_cast<uint64_t>(std::llround(run.filter_bits / 8))},
                    {"bits_per_key", a.bits_per_key_now[r]},
                    {"model_fpr", a.fpr_now[r]},
                    {"probes", a.probes[r]},
                    {"reach", run.reach},
                    {"same_bytes", RunPlanJson(a.same_bytes, r)},
                    {"same_fpr", RunPlanJson(a.same_fpr, r)}});
  }
  cf["sorted_runs"] = runs;
  cf["sum_fpr_now"] = a.false_positives_now;
  cf["filter_bytes_now"] =
      static_cast<uint64_t>(std::llround(a.filter_bytes_now));
  cf["same_bytes"] =
      a.same_bytes.error.empty()
          ? json{{"sum_fpr", a.same_bytes.false_positives},
                 {"filter_bytes", static_cast<uint64_t>(
                                      std::llround(a.same_bytes.filter_bytes))},
                 {"options", a.same_bytes.options}}
          : json(nullptr);
  cf["same_fpr"] =
      a.same_fpr.error.empty()
          ? json{{"filter_bytes",
                  static_cast<uint64_t>(std::llround(a.same_fpr.filter_bytes))},
                 {"saving", a.saving},
                 {"sum_fpr", a.same_fpr.false_positives},
                 {"options", a.same_fpr.options}}
          : json(nullptr);
  return cf;
}

}  // namespace monkey::advisor
