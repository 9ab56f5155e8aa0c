// fpr_check's baselines and their comparison. See baseline.h.
#include "monkey/tools/fpr_check/baseline.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "nlohmann/json.hpp"

namespace monkey::fpr_check {
namespace {

using nlohmann::ordered_json;
using ROCKSDB_NAMESPACE::Status;

constexpr int kFormatVersion = 1;

// A leveled tree's keys as they always were; a universal tree's name its
// style and its own options instead of size_ratio and l0_files.
ordered_json TreeToJson(const TreeSpec& t) {
  ordered_json j;
  j["seed"] = t.seed;
  if (t.universal()) j["compaction_style"] = t.compaction_style;
  j["num"] = t.num;
  j["levels"] = t.levels;
  if (t.universal()) {
    j["flushes"] = t.flushes;
    j["compaction_trigger"] = t.compaction_trigger;
    j["universal_size_ratio"] = t.universal_size_ratio;
    j["min_merge_width"] = t.min_merge_width;
  } else {
    j["size_ratio"] = t.size_ratio;
    j["l0_files"] = t.l0_files;
  }
  j["value_size"] = t.value_size;
  j["probes"] = t.probes;
  return j;
}

void TreeFromJson(const ordered_json& j, TreeSpec* t) {
  t->seed = j.at("seed").get<uint64_t>();
  t->compaction_style = j.value("compaction_style", "level");
  t->num = j.at("num").get<uint64_t>();
  t->levels = j.at("levels").get<int>();
  if (t->universal()) {
    t->flushes = j.at("flushes").get<int>();
    t->compaction_trigger = j.at("compaction_trigger").get<int>();
    t->universal_size_ratio = j.at("universal_size_ratio").get<int>();
    t->min_merge_width = j.at("min_merge_width").get<int>();
  } else {
    t->size_ratio = j.at("size_ratio").get<double>();
    t->l0_files = j.at("l0_files").get<int>();
  }
  t->value_size = j.at("value_size").get<int>();
  t->probes = j.at("probes").get<uint64_t>();
}

// Two-proportion test of false positives out of trials.
void CompareFpr(uint64_t fp1, uint64_t n1, uint64_t fp2, uint64_t n2,
                double sigmas, Check* c) {
  c->expected_fp = fp1;
  c->expected_trials = n1;
  c->measured_fp = fp2;
  c->measured_trials = n2;
  c->expected_fpr = n1 == 0 ? 0 : static_cast<double>(fp1) / n1;
  c->measured_fpr = n2 == 0 ? 0 : static_cast<double>(fp2) / n2;
  if (n1 == 0 || n2 == 0) {
    c->fpr_ok = n1 == n2;
    if (!c->fpr_ok) c->note = "probed on one side only";
    return;
  }
  const double p = static_cast<double>(fp1 + fp2) / (n1 + n2);
  c->sigma = std::sqrt(p * (1 - p) * (1.0 / n1 + 1.0 / n2));
  const double diff = c->measured_fpr - c->expected_fpr;
  c->z = c->sigma > 0 ? diff / c->sigma : 0;
  c->fpr_ok = std::fabs(diff) <= sigmas * c->sigma;
}

void CompareBytes(uint64_t expected, uint64_t measured, double fraction,
                  Check* c) {
  c->expected_bytes = expected;
  c->measured_bytes = measured;
  c->bytes_ok = std::fabs(static_cast<double>(measured) -
                          static_cast<double>(expected)) <=
                fraction * static_cast<double>(expected);
}

// The sorted runs, one by one: the same level and keys, filter bytes within
// `fraction`. The line shows the runs' total bytes, or the first run that
// strays.
Check CompareRuns(const std::vector<RunResult>& baseline,
                  const std::vector<RunResult>& measured, double fraction) {
  Check c;
  c.what = "runs";
  uint64_t expected = 0, now = 0;
  for (const RunResult& run : baseline) expected += run.filter_bytes;
  for (const RunResult& run : measured) now += run.filter_bytes;
  CompareBytes(expected, now, fraction, &c);
  c.note = std::to_string(measured.size()) + " sorted runs, ";
  if (baseline.size() != measured.size()) {
    c.note += "the baseline " + std::to_string(baseline.size());
    c.shape_ok = false;
    return c;
  }
  c.note += "as in the baseline";
  for (size_t i = 0; i < baseline.size(); ++i) {
    const RunResult& b = baseline[i];
    const RunResult& m = measured[i];
    const std::string name =
        "run " + std::to_string(i + 1) + " (L" + std::to_string(m.level) + ")";
    if (b.level != m.level || b.entries != m.entries) {
      c.shape_ok = false;
      c.note = name + ": " + std::to_string(m.entries) +
               " keys, the "
               "baseline's L" +
               std::to_string(b.level) + " " + std::to_string(b.entries);
      return c;
    }
    Check one;
    CompareBytes(b.filter_bytes, m.filter_bytes, fraction, &one);
    if (!one.bytes_ok) {
      c.expected_bytes = b.filter_bytes;
      c.measured_bytes = m.filter_bytes;
      c.bytes_ok = false;
      c.note = name + "'s filter bytes";
      return c;
    }
  }
  return c;
}

std::string Pct(double fraction) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.4f%%", 100 * fraction);
  return buf;
}

}  // namespace

uint64_t Result::filter_bytes_total() const {
  uint64_t total = 0;
  for (const LevelResult& l : levels) total += l.filter_bytes;
  return total;
}

uint64_t Result::filter_entries_total() const {
  uint64_t total = 0;
  for (const LevelResult& l : levels) total += l.filter_entries;
  return total;
}

double Result::bits_per_key() const {
  const uint64_t entries = filter_entries_total();
  return entries == 0 ? 0 : 8.0 * filter_bytes_total() / entries;
}

double Result::sum_fpr() const {
  double sum = 0;
  for (const LevelResult& l : levels) sum += l.fpr();
  return sum;
}

Result FromReport(const FilterReport& report, const std::string& filter_uri,
                  const TreeSpec& tree) {
  Result r;
  r.filter_uri = filter_uri;
  r.tree = tree;
  for (const LevelFilterReport& l : report.levels) {
    if (l.level < 0) continue;
    LevelResult lr;
    lr.level = l.level;
    lr.files = l.files;
    lr.entries = l.entries;
    lr.filter_bytes = l.filter_bytes;
    lr.filter_entries = l.filter_entries;
    lr.bits_per_key = l.bits_per_key;
    lr.probes = l.probes;
    lr.useful = l.useful;
    lr.false_positives = l.false_positives;
    r.levels.push_back(lr);
  }
  if (tree.universal()) {
    for (const SortedRunReport& run : report.sorted_runs) {
      RunResult rr;
      rr.level = run.level;
      rr.entries = run.entries;
      rr.filter_bytes = run.filter_bytes;
      rr.bits_per_key = run.bits_per_key;
      rr.reach = run.reach;
      rr.model_fpr = run.model_fpr.value_or(0);
      r.runs.push_back(rr);
    }
  }
  return r;
}

std::string ToJson(const Result& r) {
  ordered_json j;
  j["fpr_check_format"] = kFormatVersion;
  j["filter_uri"] = r.filter_uri;
  j["rocksdb_version"] = r.rocksdb_version;
  j["tree"] = TreeToJson(r.tree);
  ordered_json levels = ordered_json::array();
  for (const LevelResult& l : r.levels) {
    ordered_json lj;
    lj["level"] = l.level;
    lj["files"] = l.files;
    lj["entries"] = l.entries;
    lj["filter_bytes"] = l.filter_bytes;
    lj["filter_entries"] = l.filter_entries;
    lj["bits_per_key"] = l.bits_per_key;
    lj["probes"] = l.probes;
    lj["useful"] = l.useful;
    lj["false_positives"] = l.false_positives;
    lj["fpr"] = l.fpr();
    levels.push_back(lj);
  }
  j["levels"] = levels;
  if (r.tree.universal()) {
    ordered_json runs = ordered_json::array();
    for (const RunResult& run : r.runs) {
      ordered_json rj;
      rj["level"] = run.level;
      rj["entries"] = run.entries;
      rj["filter_bytes"] = run.filter_bytes;
      rj["bits_per_key"] = run.bits_per_key;
      rj["reach"] = run.reach;
      rj["model_fpr"] = run.model_fpr;
      runs.push_back(rj);
    }
    j["sorted_runs"] = runs;
  }
  ordered_json total;
  total["filter_bytes"] = r.filter_bytes_total();
  total["filter_entries"] = r.filter_entries_total();
  total["bits_per_key"] = r.bits_per_key();  // per filter entry
  total["sum_fpr"] = r.sum_fpr();
  j["total"] = total;
  return j.dump(2) + "\n";
}

Status FromJson(const std::string& text, Result* result) {
  ordered_json j =
      ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status::InvalidArgument("not JSON");
  }
  try {
    if (j.at("fpr_check_format").get<int>() != kFormatVersion) {
      return Status::InvalidArgument(
          "fpr_check_format " + j.at("fpr_check_format").dump() +
          ", this fpr_check reads " + std::to_string(kFormatVersion));
    }
    Result r;
    r.filter_uri = j.at("filter_uri").get<std::string>();
    r.rocksdb_version = j.value("rocksdb_version", "");
    TreeFromJson(j.at("tree"), &r.tree);
    for (const auto& lj : j.at("levels")) {
      LevelResult l;
      l.level = lj.at("level").get<int>();
      l.files = lj.at("files").get<uint64_t>();
      l.entries = lj.at("entries").get<uint64_t>();
      l.filter_bytes = lj.at("filter_bytes").get<uint64_t>();
      l.filter_entries = lj.at("filter_entries").get<uint64_t>();
      l.bits_per_key = lj.at("bits_per_key").get<double>();
      l.probes = lj.at("probes").get<uint64_t>();
      l.useful = lj.at("useful").get<uint64_t>();
      l.false_positives = lj.at("false_positives").get<uint64_t>();
      r.levels.push_back(l);
    }
    if (r.tree.universal()) {
      for (const auto& rj : j.at("sorted_runs")) {
        RunResult run;
        run.level = rj.at("level").get<int>();
        run.entries = rj.at("entries").get<uint64_t>();
        run.filter_bytes = rj.at("filter_bytes").get<uint64_t>();
        run.bits_per_key = rj.at("bits_per_key").get<double>();
        run.reach = rj.at("reach").get<double>();
        run.model_fpr = rj.at("model_fpr").get<double>();
        r.runs.push_back(run);
      }
    }
    *result = std::move(r);
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(e.what());
  }
  return Status::OK();
}

Status WriteBaseline(const std::string& path, const Result& result) {
  std::ofstream out(path, std::ios::trunc);
  out << ToJson(result);
  out.close();
  if (!out) return Status::IOError("cannot write baseline", path);
  return Status::OK();
}

Status ReadBaseline(const std::string& path, Result* result) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read baseline", path);
  std::stringstream text;
  text << in.rdbuf();
  const Status s = FromJson(text.str(), result);
  if (!s.ok()) {
    return Status::InvalidArgument("baseline " + path, s.ToString());
  }
  return Status::OK();
}

bool Comparison::ok() const {
  for (const Check& c : checks) {
    if (!c.ok()) return false;
  }
  return true;
}

Comparison Compare(const Result& baseline, const Result& measured,
                   const Tolerance& tolerance) {
  Comparison cmp;
  cmp.tolerance = tolerance;
  std::map<int, const LevelResult*> base, run;
  for (const LevelResult& l : baseline.levels) base[l.level] = &l;
  for (const LevelResult& l : measured.levels) run[l.level] = &l;
  std::map<int, bool> levels;
  for (const auto& [level, _] : base) levels[level] = true;
  for (const auto& [level, _] : run) levels[level] = true;

  double variance = 0;
  for (const auto& [level, _] : levels) {
    static const LevelResult kEmpty;
    const LevelResult& b = base.count(level) ? *base[level] : kEmpty;
    const LevelResult& m = run.count(level) ? *run[level] : kEmpty;
    Check c;
    c.what = "L" + std::to_string(level);
    CompareFpr(b.false_positives, b.trials(), m.false_positives, m.trials(),
               tolerance.sigmas, &c);
    CompareBytes(b.filter_bytes, m.filter_bytes, tolerance.bytes_fraction, &c);
    // A universal tree's shape is the picker's: its levels' keys too. A
    // leveled tree's is fixed by its spec, and checked as it always was.
    if (baseline.tree.universal() || measured.tree.universal()) {
      c.shape_ok = b.entries == m.entries;
    }
    if (!c.shape_ok) {
      c.note = std::to_string(m.entries) + " keys, the baseline's " +
               std::to_string(b.entries);
    }
    if (!base.count(level)) c.note = "level not in the baseline";
    if (!run.count(level)) c.note = "level missing from this run";
    variance += c.sigma * c.sigma;
    cmp.checks.push_back(c);
  }
  Check total;
  total.what = "total";
  total.expected_fpr = baseline.sum_fpr();
  total.measured_fpr = measured.sum_fpr();
  for (const Check& c : cmp.checks) {
    total.expected_fp += c.expected_fp;
    total.measured_fp += c.measured_fp;
    total.expected_trials += c.expected_trials;
    total.measured_trials += c.measured_trials;
  }
  total.sigma = std::sqrt(variance);
  const double diff = total.measured_fpr - total.expected_fpr;
  total.z = total.sigma > 0 ? diff / total.sigma : 0;
  total.fpr_ok = std::fabs(diff) <= tolerance.sigmas * total.sigma;
  CompareBytes(baseline.filter_bytes_total(), measured.filter_bytes_total(),
               tolerance.bytes_fraction, &total);
  total.note = "FPR: sum over levels";
  cmp.checks.push_back(total);
  if (baseline.tree.universal() || measured.tree.universal()) {
    cmp.checks.push_back(
        CompareRuns(baseline.runs, measured.runs, tolerance.bytes_fraction));
  }
  return cmp;
}

std::string Comparison::ToTable() const {
  std::string out;
  char line[512];
  snprintf(line, sizeof(line),
           "Comparison with the baseline (FPR within %.1f sigma, two-"
           "proportion binomial; filter bytes within %.1f%%)\n",
           tolerance.sigmas, 100 * tolerance.bytes_fraction);
  out += line;
  snprintf(line, sizeof(line), "%-6s %9s %9s %10s %10s %8s %13s %13s %8s  %s\n",
           "Level", "FP base", "FP now", "FPR base", "FPR now", "sigmas",
           "Filter B base", "Filter B now", "change", "result");
  out += line;
  for (const Check& c : checks) {
    const double change =
        c.expected_bytes == 0
            ? (c.measured_bytes == 0 ? 0.0 : INFINITY)
            : (static_cast<double>(c.measured_bytes) - c.expected_bytes) /
                  c.expected_bytes;
    std::string result = c.ok() ? "ok" : "FAIL:";
    if (!c.fpr_ok) result += " FPR";
    if (!c.bytes_ok) result += " bytes";
    if (!c.shape_ok) result += " shape";
    if (!c.note.empty() && (!c.ok() || c.what == "runs")) {
      result += " (" + c.note + ")";
    }
    if (c.what == "runs") {  // no FPR of its own: L0's files share L0's
      snprintf(line, sizeof(line),
               "%-6s %9s %9s %10s %10s %8s %13" PRIu64 " %13" PRIu64
               " %+7.2f%%  %s\n",
               c.what.c_str(), "-", "-", "-", "-", "-", c.expected_bytes,
               c.measured_bytes, 100 * change, result.c_str());
      out += line;
      continue;
    }
    snprintf(line, sizeof(line),
             "%-6s %9" PRIu64 " %9" PRIu64 " %10s %10s %+8.2f %13" PRIu64
             " %13" PRIu64 " %+7.2f%%  %s\n",
             c.what.c_str(), c.expected_fp, c.measured_fp,
             Pct(c.expected_fpr).c_str(), Pct(c.measured_fpr).c_str(), c.z,
             c.expected_bytes, c.measured_bytes, 100 * change, result.c_str());
    out += line;
  }
  return out;
}

}  // namespace monkey::fpr_check
