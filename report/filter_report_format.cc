// FilterReport as a readable table and as one "filter_report_json: {...}"
// line (nlohmann-json). See include/monkey/filter_report.h.
#include <cinttypes>
#include <cstdio>

#include "monkey/filter_report.h"
#include "nlohmann/json.hpp"

namespace monkey {
namespace {

using nlohmann::json;

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

std::string Percent(const std::optional<double>& fraction) {
  if (!fraction) return "-";
  char buf[32];
  snprintf(buf, sizeof(buf), "%.4f%%", 100 * *fraction);
  return buf;
}

std::string Mebibytes(uint64_t bytes) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.3f MiB", bytes / 1048576.0);
  return buf;
}

std::string LevelName(int level) {
  return level < 0 ? "L?" : "L" + std::to_string(level);
}

// The sorted runs of a tiered tree, one line each, and the false positives
// they are expected to cost an absent-key lookup.
std::string SortedRunsTable(const FilterReport& r) {
  std::string out;
  char line[512];
  snprintf(line, sizeof(line),
           "Sorted runs (%s compaction), newest first:\n"
           "%-4s %-5s %8s %11s %11s %10s %-6s %7s %10s %10s %9s %10s\n",
           r.compaction_style.c_str(), "Run", "Level", "File", "Keys",
           "FilterKiB", "Bits/entry", "Filter", "Reach", "ModelFPR",
           "Reach*FPR", "Probes/lk", "FPR");
  out += line;
  for (size_t i = 0; i < r.sorted_runs.size(); ++i) {
    const SortedRunReport& run = r.sorted_runs[i];
    const std::string file =
        run.file_number ? "#" + std::to_string(*run.file_number) : "-";
    char probes[32] = "-";
    if (run.probes_per_lookup) {
      snprintf(probes, sizeof(probes), "%.4f", *run.probes_per_lookup);
    }
    snprintf(line, sizeof(line),
             "%-4zu %-5s %8s %11" PRIu64
             " %11.1f %10.3f %-6s %7.4f %10s %10s %9s %10s\n",
             i + 1, LevelName(run.level).c_str(), file.c_str(), run.entries,
             run.filter_bytes / 1024.0, run.bits_per_key, run.filter.c_str(),
             run.reach, Percent(run.model_fpr).c_str(),
             Percent(run.reach * run.model_fpr.value_or(1.0)).c_str(), probes,
             Percent(run.fpr).c_str());
    out += line;
  }
  std::string measured;
  if (r.fp_per_absent_lookup) {
    snprintf(line, sizeof(line), " (measured %.5f)", *r.fp_per_absent_lookup);
    measured = line;
  }
  snprintf(line, sizeof(line),
           "Expected false positives per absent lookup, sum over %zu runs of "
           "reach x model FPR: %.5f%s\n",
           r.sorted_runs.size(), r.model_fp_per_absent_lookup.value_or(0),
           measured.c_str());
  out += line;
  return out;
}

}  // namespace

std::string FilterReport::ToTable() const {
  std::string out;
  char line[512];
  snprintf(line, sizeof(line), "Filter report: %s (%d thread%s)\n",
           benchmark.c_str(), threads, threads == 1 ? "" : "s");
  out += line;
  snprintf(line, sizeof(line),
           "%-5s %6s %11s %11s %11s %10s %-6s %11s %11s %9s %10s %10s %6s\n",
           "Level", "Files", "Keys", "FltEntries", "FilterKiB", "Bits/entry",
           "Filter", "Probes", "Useful", "FP", "FPR", "ModelFPR", "Agrees");
  out += line;
  for (const LevelFilterReport& l : levels) {
    snprintf(line, sizeof(line),
             "%-5s %6" PRIu64 " %11" PRIu64 " %11" PRIu64
             " %11.1f %10.3f %-6s %11" PRIu64 " %11" PRIu64 " %9" PRIu64
             " %10s %10s %6s\n",
             LevelName(l.level).c_str(), l.files, l.entries, l.filter_entries,
             l.filter_bytes / 1024.0, l.bits_per_key, l.filter.c_str(),
             l.probes, l.useful, l.false_positives, Percent(l.fpr).c_str(),
             Percent(l.model_fpr).c_str(),
             l.changed
                 ? "chg"
                 : (!l.model_agrees ? "-" : (*l.model_agrees ? "yes" : "NO")));
    out += line;
  }
  snprintf(line, sizeof(line),
           "Sum FPR over levels: %s (model %s); false positives %" PRIu64
           " in %" PRIu64 " probes\n",
           Percent(sum_fpr).c_str(), Percent(model_sum_fpr).c_str(),
           false_positives, probes);
  out += line;
  if (lookups) {
    std::string per_lookup = "-";
    if (fp_per_absent_lookup) {
      snprintf(line, sizeof(line), "%.5f", *fp_per_absent_lookup);
      per_lookup = line;
    }
    snprintf(line, sizeof(line),
             "Lookups: %" PRIu64 ", absent %" PRIu64
             "; false positives per absent lookup: %s\n",
             *lookups, absent_lookups.value_or(0), per_lookup.c_str());
    out += line;
  }
  snprintf(line, sizeof(line),
           "Filter bytes: %s in %" PRIu64
           " files, %.3f bits per filter entry "
           "over %" PRIu64 " filter entries (%" PRIu64
           " keys); %s held by %s (table readers' index+filter memory %s)\n",
           Mebibytes(filter_bytes_total).c_str(), files, bits_per_key,
           filter_entries_total, entries, Mebibytes(filter_cache_bytes).c_str(),
           filter_cache_source == "block_cache" ? "the block cache"
                                                : "table readers",
           Mebibytes(table_readers_mem).c_str());
  out += line;
  if (tickers) {
    snprintf(line, sizeof(line),
             "Block cache filter blocks: hit %" PRIu64 ", miss %" PRIu64
             ", bytes inserted %" PRIu64 "; data blocks: hit %" PRIu64
             ", miss %" PRIu64 "\n",
             tickers->filter_hit, tickers->filter_miss,
             tickers->filter_bytes_insert, tickers->data_hit,
             tickers->data_miss);
    out += line;
  }
  if (model_fp_per_absent_lookup) out += SortedRunsTable(*this);
  for (const std::string& note : notes) out += "Note: " + note + "\n";
  return out;
}

std::string FilterReport::ToJsonLine() const {
  json j;
  j["benchmark"] = benchmark;
  j["threads"] = threads;
  json level_array = json::array();
  for (const LevelFilterReport& l : levels) {
    level_array.push_back({
        {"level", l.level},
        {"files", l.files},
        {"entries", l.entries},
        {"filter_bytes", l.filter_bytes},
        {"filter_entries", l.filter_entries},
        {"bits_per_key", l.bits_per_key},
        {"filter", l.filter},
        {"probes", l.probes},
        {"useful", l.useful},
        {"false_positives", l.false_positives},
        {"fpr", OrNull(l.fpr)},
        {"model_fpr", OrNull(l.model_fpr)},
        {"fpr_sigma", OrNull(l.fpr_sigma)},
        {"model_agrees", OrNull(l.model_agrees)},
        {"changed", l.changed},
    });
  }
  j["levels"] = std::move(level_array);
  j["sum_fpr"] = OrNull(sum_fpr);
  j["model_sum_fpr"] = OrNull(model_sum_fpr);
  j["probes"] = probes;
  j["false_positives"] = false_positives;
  j["lookups"] = OrNull(lookups);
  j["absent_lookups"] = OrNull(absent_lookups);
  j["fp_per_absent_lookup"] = OrNull(fp_per_absent_lookup);
  j["files"] = files;
  j["entries"] = entries;
  j["filter_bytes_total"] = filter_bytes_total;
  j["filter_entries_total"] = filter_entries_total;
  j["index_bytes_total"] = index_bytes_total;
  j["bits_per_key"] = bits_per_key;
  j["filter_cache_bytes"] = filter_cache_bytes;
  j["filter_cache_source"] = filter_cache_source;
  j["filter_cache_age_seconds"] = OrNull(filter_cache_age_seconds);
  j["table_readers_mem"] = table_readers_mem;
  if (tickers) {
    j["block_cache_filter_hit"] = tickers->filter_hit;
    j["block_cache_filter_miss"] = tickers->filter_miss;
    j["block_cache_filter_bytes_insert"] = tickers->filter_bytes_insert;
    j["block_cache_data_hit"] = tickers->data_hit;
    j["block_cache_data_miss"] = tickers->data_miss;
  } else {
    for (const char* key : {"block_cache_filter_hit", "block_cache_filter_miss",
                            "block_cache_filter_bytes_insert",
                            "block_cache_data_hit", "block_cache_data_miss"}) {
      j[key] = nullptr;
    }
  }
  j["model_agrees"] = ModelAgrees();
  j["compaction_style"] = compaction_style;
  json runs = json::array();
  for (const SortedRunReport& run : sorted_runs) {
    runs.push_back({
        {"level", run.level},
        {"file_number", OrNull(run.file_number)},
        {"files", run.files},
        {"entries", run.entries},
        {"filter_bytes", run.filter_bytes},
        {"filter_entries", run.filter_entries},
        {"bits_per_key", run.bits_per_key},
        {"filter", run.filter},
        {"model_fpr", OrNull(run.model_fpr)},
        {"reach", run.reach},
        {"probes", OrNull(run.probes)},
        {"false_positives", OrNull(run.false_positives)},
        {"fpr", OrNull(run.fpr)},
        {"probes_per_lookup", OrNull(run.probes_per_lookup)},
    });
  }
  j["sorted_runs"] = std::move(runs);
  j["model_fp_per_absent_lookup"] = OrNull(model_fp_per_absent_lookup);
  j["notes"] = notes;
  return kFilterReportJsonPrefix + j.dump();
}

}  // namespace monkey
