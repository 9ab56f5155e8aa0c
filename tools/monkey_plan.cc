// monkey_plan: prints Monkey's per-level bits per key and predicted FPR for a
// budget, level size ratio and number of levels, next to uniform allocation
// of the same budget.
//
//   monkey_plan --bits_per_key=7 --size_ratio=10 --num_levels=5 --model=bloom
#include <cstdio>
#include <string>
#include <vector>

#include "gflags/gflags.h"
#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/plan_format.h"

DEFINE_double(bits_per_key, 10, "Average budget in real filter bits per key");
DEFINE_double(size_ratio, 10, "Level size ratio T");
DEFINE_int32(num_levels, 7, "Number of LSM levels, L0 included");
DEFINE_string(model, "bloom",
              "FPR model: bloom (RocksDB FastLocalBloom), ribbon, or ideal");
DEFINE_bool(last_level_filter, true,
            "false: no filter on the last level; the budget covers the rest");

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Prints Monkey's per-level filter plan next to uniform bits per key.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);

  monkey::FprModel model = monkey::FprModel::FastLocalBloom();
  if (FLAGS_model == "ribbon") {
    model = monkey::FprModel::Ribbon();
  } else if (FLAGS_model == "ideal") {
    model = monkey::FprModel::IdealBloom();
  } else if (FLAGS_model != "bloom") {
    fprintf(stderr,
            "monkey_plan: --model must be bloom, ribbon or ideal, "
            "got '%s'\n",
            FLAGS_model.c_str());
    return 1;
  }
  std::vector<monkey::LevelShape> shape;
  std::string error = monkey::StaticShape(FLAGS_size_ratio, FLAGS_num_levels,
                                          FLAGS_last_level_filter, &shape);
  if (error.empty()) {
    error = monkey::ValidatePlanInputs(shape, FLAGS_bits_per_key);
  }
  if (!error.empty()) {
    fprintf(stderr, "monkey_plan: %s\n", error.c_str());
    return 1;
  }
  const monkey::Plan plan =
      monkey::PlanBitsPerKey(shape, FLAGS_bits_per_key, model);
  const monkey::Plan uniform =
      monkey::PlanUniform(shape, FLAGS_bits_per_key, model);
  printf("monkey plan: %g bits/key, model %s, size_ratio %g, %d levels%s\n",
         FLAGS_bits_per_key, model.Name().c_str(), FLAGS_size_ratio,
         FLAGS_num_levels,
         FLAGS_last_level_filter ? "" : ", no filter on the last level");
  fputs(monkey::FormatPlanTable(shape, plan, &uniform).c_str(), stdout);
  printf("sum FPR, monkey / uniform: %.4f\n",
         uniform.sum_fpr > 0 ? plan.sum_fpr / uniform.sum_fpr : 0.0);
  return 0;
}
