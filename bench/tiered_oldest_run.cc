// The cost, in the model, of an oldest sorted run whose bits were fixed
// when it was built: for a universal tree of given runs (newest first, the
// last the oldest), the expected false positives per absent-key lookup with
// the oldest run at each of --oldest_bits and the runs above it at their
// optimum for the bytes left, over the optimum with every run rebuilt, at
// each total of --bytes (times the budget). A full merge builds its run
// alone in the tree, where the budget bar wants it at the budget; the runs
// that grow back above it want it lower. This prints how far apart the two
// are (docs/math.md#tiered-trees).
//
//   tiered_oldest_run --runs=0:10044x7,3:122140,4:135357,5:148256,6:1068370
//                     [--bits_per_key=10] [--oldest_bits=8,9,9.5,9.7,10]
//                     [--bytes=1,1.03,1.05] [--json]
#include <gflags/gflags.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/tiered_plan.h"

DEFINE_string(runs, "",
              "Sorted runs, newest first: level:entries[xcount], comma "
              "separated; the last is the oldest");
DEFINE_double(bits_per_key, 10, "The budget, in bits per key");
DEFINE_string(oldest_bits, "8,8.5,9,9.5,9.7,10",
              "The oldest run's bits per key, comma separated");
DEFINE_string(bytes, "1,1.03,1.05",
              "The tree's filter bytes, in budgets, comma separated");
DEFINE_bool(json, false, "Print JSON instead of a table");

namespace {

using monkey::SortedRun;

std::vector<double> Numbers(const std::string& list) {
  std::vector<double> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    out.push_back(std::stod(item));
  }
  return out;
}

bool ParseRuns(const std::string& spec, std::vector<SortedRun>* runs) {
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ',');) {
    int level = 0, count = 1;
    double entries = 0;
    if (sscanf(item.c_str(), "%d:%lfx%d", &level, &entries, &count) < 2 ||
        entries <= 0 || count < 1) {
      return false;
    }
    for (int i = 0; i < count; ++i) runs->push_back({level, entries, 1, true});
  }
  return runs->size() >= 2;
}

// The least false positives per lookup for `runs`, all rebuilt, at
// `bits_per_key`; -1 where nothing can be planned.
double Optimum(const std::vector<SortedRun>& runs, double bits_per_key) {
  monkey::TieredPlanOptions options;
  options.bits_per_key = bits_per_key;
  monkey::TieredPlan plan;
  if (!PlanTieredTree(runs, options, &plan)) return -1;
  return plan.false_positives;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "the model's cost of an oldest sorted run built at fixed bits");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::vector<SortedRun> runs;
  if (!ParseRuns(FLAGS_runs, &runs)) {
    fprintf(stderr,
            "tiered_oldest_run: --runs needs two or more "
            "level:entries[xcount] runs\n");
    return 1;
  }
  const SortedRun oldest = runs.back();
  const std::vector<SortedRun> upper(runs.begin(), runs.end() - 1);
  double keys = 0, upper_keys = 0;
  for (const SortedRun& run : runs) keys += run.entries;
  for (const SortedRun& run : upper) upper_keys += run.entries;
  const monkey::FprModel model =
      monkey::ModelForLevel(monkey::FilterChoice::kBloom, oldest.level);
  nlohmann::json rows = nlohmann::json::array();
  if (!FLAGS_json) {
    printf("%6s %7s %8s %10s %10s %8s\n", "bytes", "oldest", "upper",
           "fp/lookup", "optimum", "ratio");
  }
  for (double bytes : Numbers(FLAGS_bytes)) {
    const double budget = bytes * FLAGS_bits_per_key;
    const double optimum = Optimum(runs, budget);
    for (double bits : Numbers(FLAGS_oldest_bits)) {
      const double upper_bits =
          (budget * keys - bits * oldest.entries) / upper_keys;
      const double upper_fp = Optimum(upper, upper_bits);
      if (optimum < 0 || upper_fp < 0) continue;
      const double fp = oldest.reach * model.FalsePositiveRate(bits) + upper_fp;
      rows.push_back({{"bytes", bytes},
                      {"oldest_bits_per_key", bits},
                      {"upper_bits_per_key", upper_bits},
                      {"fp_per_lookup", fp},
                      {"optimum", optimum},
                      {"ratio", fp / optimum}});
      if (!FLAGS_json) {
        printf("%6.2f %7.2f %8.2f %10.4f %10.4f %7.3fx\n", bytes, bits,
               upper_bits, fp, optimum, fp / optimum);
      }
    }
  }
  if (FLAGS_json) {
    std::cout << nlohmann::json{{"runs", FLAGS_runs},
                                {"bits_per_key", FLAGS_bits_per_key},
                                {"rows", rows}}
                     .dump(2)
              << "\n";
  }
  return 0;
}
