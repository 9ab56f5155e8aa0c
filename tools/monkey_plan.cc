// monkey_plan: Monkey's per-level bits per key and predicted FPR for a static
// tree (level size ratio, number of levels) next to uniform bits per key --
// for a budget (--objective=fpr) or for a Sum FPR target with the least
// bits (--objective=memory) -- or, with --db, advice for an existing
// database read from its table properties (docs/advisor.md).
//
//   monkey_plan --bits_per_key=7 --size_ratio=10 --num_levels=5 --model=bloom
//   monkey_plan --objective=memory --bits_per_key=10 --num_levels=6
//   monkey_plan --objective=memory --max_sum_fpr=0.02 --num_levels=6
//   monkey_plan --db=/path/to/db [--column_family=NAME] [--json]
//               [--cache_bytes=N [--read_latency_bytes=N]]
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gflags/gflags.h"
#include "monkey/tools/advisor/advice_output.h"
#include "monkey/tools/advisor/db_facts.h"
#include "monkey/tools/advisor/tiered_advice_output.h"
#include "monkey/util/advisor.h"
#include "monkey/util/cache_plan.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"
#include "monkey/util/plan_format.h"
#include "nlohmann/json.hpp"

DEFINE_double(bits_per_key, 10,
              "Average budget in real filter bits per key (objective=fpr); "
              "with objective=memory and no --max_sum_fpr, the uniform bits "
              "per key whose Sum FPR is the target");
DEFINE_double(size_ratio, 10, "Level size ratio T");
DEFINE_int32(num_levels, 7, "Number of LSM levels, L0 included");
DEFINE_string(model, "bloom",
              "FPR model: bloom (RocksDB FastLocalBloom), ribbon, or ideal");
DEFINE_bool(last_level_filter, true,
            "false: no filter on the last level; the budget covers the rest");
DEFINE_string(objective, "fpr",
              "fpr: the least Sum FPR for --bits_per_key. memory: the least "
              "bits whose Sum FPR is at most --max_sum_fpr");
DEFINE_double(max_sum_fpr, 0,
              "objective=memory's target, a fraction (0.02 = 2 false "
              "positives per 100 absent-key lookups); default: the Sum FPR "
              "of uniform --bits_per_key on the same shape and filter");
DEFINE_string(db, "",
              "Advise on this RocksDB database instead: opened read-only "
              "(works while another process has it open)");
DEFINE_string(column_family, "",
              "With --db: only this column family (default: all)");
DEFINE_bool(json, false, "With --db: print one JSON object");
DEFINE_int64(cache_bytes, 0,
             "With --db: also the block reads per absent-key lookup its "
             "filters, indexes and data cost through an LRU block cache of "
             "this many bytes (cache_index_and_filter_blocks), by the model "
             "of util/cache_cost.h, and the bits per level that make them "
             "cost the least within the filter memory now, or 0.8 of a "
             "cache that holds more (util/cache_plan.h)");
DEFINE_double(read_latency_bytes, monkey::kReadLatencyBytes,
              "With --cache_bytes: the bytes the device reads in the time a "
              "read takes whatever its size; a read of n bytes costs 1 + n / "
              "this many small reads (the policy's read_latency_bytes)");

namespace {

using monkey::advisor::kBadArguments;

constexpr const char* kUsage =
    "Prints Monkey's per-level filter plan next to uniform bits per key, or "
    "advice for an existing database.\n"
    "\n"
    "  monkey_plan [--objective=fpr|memory] [--bits_per_key=B] "
    "[--max_sum_fpr=F]\n"
    "              [--size_ratio=T] [--num_levels=L] [--model=M] "
    "[--last_level_filter=false]\n"
    "  monkey_plan --db=PATH [--column_family=NAME] [--json] "
    "[--cache_bytes=N [--read_latency_bytes=N]]\n"
    "\n"
    "With --db it opens the database read-only and prints, per column "
    "family: per level\nfiles, runs, keys, filter bytes, realized bits/key, "
    "filter kind and model FPR;\nthe Sum FPR and filter bytes now; Monkey at "
    "the same filter bytes (its Sum FPR);\nMonkey at the same Sum FPR (its "
    "filter bytes and the share saved); and the\noptions string for each.\n"
    "\n"
    "Exit status:\n"
    "  0  success\n"
    "  1  bad flags, or a plan that cannot be made (e.g. an unreachable "
    "--max_sum_fpr)\n"
    "  2  --db: the path does not exist\n"
    "  3  --db: the path is not a RocksDB database\n"
    "  4  --db: no column family named --column_family\n"
    "  5  --db: no SST file (of the column families asked for) has a filter\n"
    "  6  --db: a table's properties are missing or unreadable\n"
    "  7  --db: RocksDB could not open or read the database otherwise\n";

bool IsDefault(const char* flag) {
  return gflags::GetCommandLineFlagInfoOrDie(flag).is_default;
}

int Fail(int code, const std::string& message) {
  fprintf(stderr, "monkey_plan: %s\n", message.c_str());
  return code;
}

int Advise() {
  for (const char* flag : {"bits_per_key", "size_ratio", "num_levels", "model",
                           "last_level_filter", "objective", "max_sum_fpr"}) {
    if (!IsDefault(flag)) {
      return Fail(kBadArguments, std::string("--") + flag +
                                     " does not apply with --db (the "
                                     "database gives the shape and filters)");
    }
  }
  if (!IsDefault("cache_bytes") && FLAGS_cache_bytes < 1) {
    return Fail(kBadArguments, "--cache_bytes must be at least 1, got " +
                                   std::to_string(FLAGS_cache_bytes));
  }
  if (!IsDefault("read_latency_bytes")) {
    if (IsDefault("cache_bytes")) {
      return Fail(kBadArguments,
                  "--read_latency_bytes applies with --cache_bytes");
    }
    if (!(FLAGS_read_latency_bytes > 0 &&
          std::isfinite(FLAGS_read_latency_bytes))) {
      return Fail(kBadArguments,
                  "--read_latency_bytes must be a finite number above 0, got " +
                      std::to_string(FLAGS_read_latency_bytes));
    }
  }
  std::vector<monkey::advisor::ColumnFamilyFacts> facts;
  std::vector<std::string> notes;
  std::string message;
  const int code = monkey::advisor::ReadDbFacts(FLAGS_db, FLAGS_column_family,
                                                &facts, &notes, &message);
  for (const std::string& note : notes) {
    fprintf(stderr, "monkey_plan: note: %s\n", note.c_str());
  }
  if (code != monkey::advisor::kOk) return Fail(code, message);

  nlohmann::json column_families = nlohmann::json::array();
  std::string text;
  bool any_filters = false;
  for (const monkey::advisor::ColumnFamilyFacts& cf : facts) {
    if (cf.compaction_style == "universal") {
      // Sorted runs, not levels (util/tiered_advisor.h).
      monkey::TieredAdvice tiered;
      std::string why =
          cf.files == 0
              ? "no SST files: nothing to advise on"
              : monkey::AdviseTiered(cf.levels, cf.files_with_filters, &tiered);
      if (why == "no filters") {
        why = "no filters in its SST files: nothing to advise on";
      } else if (cf.files > 0 && why.empty()) {
        any_filters = true;
      }
      const monkey::TieredAdvice* got = why.empty() ? &tiered : nullptr;
      if (!text.empty()) text += "\n";
      text += monkey::advisor::TieredAdviceText(cf, got, why);
      if (got != nullptr && FLAGS_cache_bytes > 0) {
        fprintf(stderr,
                "monkey_plan: note: --cache_bytes does not plan column family "
                "'%s' (universal compaction): its block reads are modelled "
                "per level only\n",
                cf.name.c_str());
      }
      if (cf.files == 0) {
        fprintf(stderr,
                "monkey_plan: note: column family '%s' has no SST files\n",
                cf.name.c_str());
      } else {
        column_families.push_back(monkey::advisor::TieredAdviceJson(cf, got));
      }
      continue;
    }
    monkey::Advice advice;
    std::string why = cf.files == 0
                          ? "no SST files: nothing to advise on"
                          : monkey::Advise(cf.levels, cf.live_files, &advice);
    if (why == "no filters") {
      why = "no filters in its SST files: nothing to advise on";
    } else if (cf.files > 0 && why.empty()) {
      any_filters = true;
    }
    const monkey::Advice* got = why.empty() ? &advice : nullptr;
    if (!text.empty()) text += "\n";
    text += monkey::advisor::AdviceText(cf, got, why);
    nlohmann::json cache_json;
    if (got != nullptr && FLAGS_cache_bytes > 0) {
      monkey::CacheLayout cache;
      cache.cache_bytes = static_cast<double>(FLAGS_cache_bytes);
      cache.partition_bytes = cf.filter_partition_bytes;
      cache.read_latency_bytes = FLAGS_read_latency_bytes;
      const monkey::CacheAdvice advised =
          monkey::AdviseForCache(cf.levels, advice, cache);
      text +=
          monkey::advisor::BlockReadsText(cf, cache, advised.now, advised.plan);
      cache_json =
          monkey::advisor::BlockReadsJson(cf, cache, advised.now, advised.plan);
    }
    if (cf.files == 0) {
      fprintf(stderr,
              "monkey_plan: note: column family '%s' has no SST files\n",
              cf.name.c_str());
    } else {
      nlohmann::json one = monkey::advisor::AdviceJson(cf, got);
      if (!cache_json.is_null()) one["block_reads"] = cache_json;
      column_families.push_back(std::move(one));
    }
  }
  if (!any_filters) {
    return Fail(monkey::advisor::kNoFilters,
                FLAGS_db + ": no SST file" +
                    (FLAGS_column_family.empty()
                         ? std::string()
                         : " of column family '" + FLAGS_column_family + "'") +
                    " has a filter: nothing to advise on");
  }
  if (FLAGS_json) {
    puts(nlohmann::json{{"column_families", column_families}}.dump().c_str());
  } else {
    printf("monkey_plan: %s (read-only)\n\n%s", FLAGS_db.c_str(), text.c_str());
    printf(
        "\nThe options strings are Monkey policies (monkey::Install, or "
        "--filter_uri in the\npatched db_bench). The figures are what their "
        "live plan builds on this tree;\nkeys still in memtables are not "
        "counted.\n");
  }
  return monkey::advisor::kOk;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(kUsage);
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc > 1) {
    return Fail(kBadArguments,
                std::string("unexpected argument '") + argv[1] + "'");
  }
  if (!FLAGS_db.empty()) return Advise();
  for (const char* flag :
       {"column_family", "json", "cache_bytes", "read_latency_bytes"}) {
    if (!IsDefault(flag)) {
      return Fail(kBadArguments, std::string("--") + flag + " needs --db");
    }
  }
  if (FLAGS_objective != "fpr" && FLAGS_objective != "memory") {
    return Fail(kBadArguments, "--objective must be fpr or memory, got '" +
                                   FLAGS_objective + "'");
  }
  const bool memory = FLAGS_objective == "memory";
  const bool has_target = !IsDefault("max_sum_fpr");
  if (has_target && !memory) {
    return Fail(kBadArguments, "--max_sum_fpr needs --objective=memory");
  }

  monkey::FprModel model = monkey::FprModel::FastLocalBloom();
  if (FLAGS_model == "ribbon") {
    model = monkey::FprModel::Ribbon();
  } else if (FLAGS_model == "ideal") {
    model = monkey::FprModel::IdealBloom();
  } else if (FLAGS_model != "bloom") {
    return Fail(kBadArguments, "--model must be bloom, ribbon or ideal, got '" +
                                   FLAGS_model + "'");
  }
  std::vector<monkey::LevelShape> shape;
  std::string error = monkey::StaticShape(FLAGS_size_ratio, FLAGS_num_levels,
                                          FLAGS_last_level_filter, &shape);
  if (error.empty()) {
    error = monkey::ValidatePlanInputs(shape, FLAGS_bits_per_key);
  }
  if (!error.empty()) return Fail(kBadArguments, error);
  const std::vector<monkey::FprModel> models(shape.size(), model);
  const monkey::Plan uniform =
      monkey::PlanUniform(shape, FLAGS_bits_per_key, models);
  const char* last =
      FLAGS_last_level_filter ? "" : ", no filter on the last level";

  if (!memory) {
    const monkey::Plan plan =
        monkey::PlanBitsPerKey(shape, FLAGS_bits_per_key, models);
    printf("monkey plan: %g bits/key, model %s, size_ratio %g, %d levels%s\n",
           FLAGS_bits_per_key, model.Name().c_str(), FLAGS_size_ratio,
           FLAGS_num_levels, last);
    fputs(monkey::FormatPlanTable(shape, plan, &uniform).c_str(), stdout);
    printf("sum FPR, monkey / uniform: %.4f\n",
           uniform.sum_fpr > 0 ? plan.sum_fpr / uniform.sum_fpr : 0.0);
    return 0;
  }

  const double target = has_target ? FLAGS_max_sum_fpr : uniform.sum_fpr;
  monkey::Plan plan;
  error = monkey::PlanLeastBits(shape, target, models, &plan);
  if (!error.empty()) return Fail(kBadArguments, error);
  printf(
      "monkey plan (objective=memory): sum FPR at most %.6g%s, model %s, "
      "size_ratio %g, %d levels%s\n",
      target, has_target ? "" : " (uniform --bits_per_key's)",
      model.Name().c_str(), FLAGS_size_ratio, FLAGS_num_levels, last);
  fputs(monkey::FormatPlanTable(shape, plan, &uniform).c_str(), stdout);
  printf("bits/key, monkey / uniform: %.4f\n",
         uniform.bits_per_key() > 0
             ? plan.bits_per_key() / uniform.bits_per_key()
             : 0.0);
  return 0;
}
