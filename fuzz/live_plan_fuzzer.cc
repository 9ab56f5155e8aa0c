// libFuzzer target: the live plan's pure entry points (util/live_shape.h,
// util/live_plan.h), as the policy calls them from the listener. Random
// live trees -- files at any level with any key ranges, filters known or
// not, L0 backlogs, flushes and compactions in flight -- and random options,
// both objectives, the level sizing known or not. It checks the plan's
// invariants, not crashes alone:
//   - every level's bits are finite and RocksDB-buildable: 0, or within the
//     level's filter's [min_bits, max_bits] (at most 100 bits);
//   - new files are priced within kMaxCorrection (10%) of the budget;
//   - on a settled tree (no L0, no job in flight, every filter built at
//     the plan's bits) the realized average is within the budget, and
//     within 3% under it where the filters' range allows the budget;
//   - objective=memory on a settled tree meets a target its filters can
//     reach.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "monkey/util/filter_fpr_model.h"
#include "monkey/util/live_plan.h"
#include "monkey/util/live_shape.h"
#include "monkey/util/monkey_bpk.h"
#include "monkey/util/monkey_memory.h"

namespace {

using monkey::LiveLevel;
using monkey::LivePlan;
using monkey::LivePlanOptions;

// live_plan.cc's correction bound and budget band (documented there).
constexpr double kMaxCorrection = 0.10;
constexpr double kBand = 0.03;

std::string Describe(const LivePlanOptions& o,
                     const std::vector<LiveLevel>& levels,
                     const LivePlan* plan) {
  char buf[256];
  snprintf(buf, sizeof(buf),
           "bits_per_key=%.17g last_level_filter=%d filter=%d objective=%d "
           "max_sum_fpr=%.17g sizing{dynamic=%d base=%.17g T=%.17g "
           "levels=%d}\n",
           o.bits_per_key, o.last_level_filter, static_cast<int>(o.filter),
           static_cast<int>(o.objective), o.max_sum_fpr, o.sizing.dynamic,
           o.sizing.base_level_entries, o.sizing.multiplier,
           o.sizing.num_levels);
  std::string s = buf;
  for (size_t i = 0; i < levels.size(); ++i) {
    const LiveLevel& l = levels[i];
    snprintf(buf, sizeof(buf),
             "  L%zu entries=%.17g runs=%.17g filter_bits=%.17g "
             "filter_entries=%.17g built=%.17g fluid=%.17g planned=%d\n",
             i, l.entries, l.runs, l.filter_bits, l.filter_entries,
             l.built_entries, l.fluid_entries,
             plan && i < plan->plan.levels.size()
                 ? plan->plan.levels[i].millibits_per_key
                 : -1);
    s += buf;
  }
  return s;
}

[[noreturn]] void Fail(const std::string& what, const LivePlanOptions& o,
                       const std::vector<LiveLevel>& levels,
                       const LivePlan* plan) {
  fprintf(stderr, "live_plan_fuzzer: %s\n%s", what.c_str(),
          Describe(o, levels, plan).c_str());
  abort();
}

// Every level's bits are buildable by its filter, and the plan is finite.
void CheckBuildable(const LivePlan& plan, const LivePlanOptions& o,
                    const std::vector<LiveLevel>& levels) {
  const std::vector<monkey::FprModel> models =
      monkey::ModelsForLevels(o.filter, plan.plan.levels.size());
  for (size_t i = 0; i < plan.plan.levels.size(); ++i) {
    const monkey::LevelPlan& l = plan.plan.levels[i];
    const int m = l.millibits_per_key;
    const int lo = static_cast<int>(std::ceil(models[i].min_bits() * 1000));
    const int hi = static_cast<int>(std::floor(models[i].max_bits() * 1000));
    if (m != 0 && (m < lo || m > hi || m > 100000)) {
      Fail("L" + std::to_string(i) + " gets " + std::to_string(m) +
               " millibits, outside [" + std::to_string(lo) + ", " +
               std::to_string(hi) + "]",
           o, levels, &plan);
    }
    if (!std::isfinite(l.bits_per_key) || !(l.fpr >= 0 && l.fpr <= 1)) {
      Fail("L" + std::to_string(i) + " is not finite", o, levels, &plan);
    }
  }
  for (int level = -1; level < 10; ++level) {
    const int m = monkey::LiveMillibitsForLevel(plan, level, o);
    if (m < 0 || m > 100000) {
      Fail("LiveMillibitsForLevel(" + std::to_string(level) + ") is " +
               std::to_string(m),
           o, levels, &plan);
    }
  }
  if (!std::isfinite(plan.new_file_budget) || plan.new_file_budget < 0 ||
      !std::isfinite(plan.plan.sum_fpr)) {
    Fail("non-finite totals", o, levels, &plan);
  }
  if (o.objective == monkey::Objective::kSumFpr &&
      plan.new_file_budget > o.bits_per_key * (1 + kMaxCorrection) + 1e-9) {
    Fail("new files priced at " + std::to_string(plan.new_file_budget) +
             " bits/key, past the correction bound",
         o, levels, &plan);
  }
}

// The tree `levels` settled: L0 drained into the next level, no job in
// flight, every level's filters built at `plan`'s bits for it.
std::vector<LiveLevel> Settle(const std::vector<LiveLevel>& levels) {
  std::vector<LiveLevel> settled;
  for (size_t i = 0; i < levels.size(); ++i) {
    LiveLevel l;
    l.entries = levels[i].entries;
    l.runs = std::min(1.0, levels[i].runs);
    if (i == 0) {
      l.entries = 0;
      l.runs = 0;
    }
    settled.push_back(l);
  }
  if (!settled.empty() && levels[0].entries > 0) {
    size_t to = 1;
    while (to < settled.size() && !(settled[to].entries > 0)) ++to;
    if (to == settled.size()) settled.push_back(LiveLevel());
    settled[to].entries += levels[0].entries;
    settled[to].runs = 1;
  }
  return settled;
}

void Build(const LivePlan& plan, std::vector<LiveLevel>* levels) {
  for (size_t i = 0; i < levels->size(); ++i) {
    LiveLevel& l = (*levels)[i];
    const int m =
        i < plan.plan.levels.size() ? plan.plan.levels[i].millibits_per_key : 0;
    l.filter_bits = l.filter_entries = l.built_entries = 0;
    l.fluid_entries = 0;
    l.built_entries_by_millibits.clear();
    if (l.entries > 0) {
      l.AddBuilt(l.entries, l.entries * m / 1000.0, m > 0 ? l.entries : 0);
    }
  }
}

// A settled tree built at its own plan, re-planned: the realized average
// holds the budget, and objective=memory meets a reachable target.
void CheckSettled(const std::vector<LiveLevel>& live, LivePlanOptions o) {
  std::vector<LiveLevel> tree = Settle(live);
  LivePlan first;
  if (!monkey::PlanLiveTree(tree, o, &first)) return;
  CheckBuildable(first, o, tree);
  Build(first, &tree);
  LivePlan again;
  if (!monkey::PlanLiveTree(tree, o, &again)) {
    Fail("a settled tree has no plan", o, tree, &first);
  }
  CheckBuildable(again, o, tree);
  const std::vector<monkey::LevelShape>& shape = first.shape;
  const std::vector<monkey::FprModel> models =
      monkey::ModelsForLevels(o.filter, shape.size());
  // `inside`: every level with keys has a filter and could have more bits,
  // so the price, not the ends of RocksDB's range, decides the spending.
  double bits = 0, keys = 0;
  bool any_filter = false, inside = true;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].filtered || !(shape[i].entries > 0)) continue;
    const int m = first.plan.levels[i].millibits_per_key;
    bits += shape[i].entries * m / 1000.0;
    keys += shape[i].entries;
    any_filter |= m > 0;
    inside &= m > 0 && m < models[i].max_bits() * 1000;
  }
  if (!(keys > 0)) return;
  const double realized = bits / keys;
  if (o.objective == monkey::Objective::kSumFpr) {
    if (realized > o.bits_per_key * (1 + 1e-9) + 1e-9 && any_filter) {
      Fail("a settled tree realizes " + std::to_string(realized) +
               " bits/key, over the budget",
           o, tree, &first);
    }
    // Under the band only where every level sits inside its filter's range:
    // a level between no filter and its least one has nothing in between.
    if (realized < o.bits_per_key * (1 - kBand) && inside) {
      Fail("a settled tree realizes " + std::to_string(realized) +
               " bits/key, more than 3% under the budget",
           o, tree, &first);
    }
    return;
  }
  if (!(o.max_sum_fpr > 0)) return;
  const double least = monkey::LeastSumFpr(shape, models);
  if (o.max_sum_fpr < least * 1.01) return;  // out of reach
  if (first.plan.sum_fpr > o.max_sum_fpr * (1 + 1e-9)) {
    Fail("objective=memory misses a reachable target: Sum FPR " +
             std::to_string(first.plan.sum_fpr) + " for " +
             std::to_string(o.max_sum_fpr),
         o, tree, &first);
  }
}

// Keys are 4-digit decimals, so that ranges overlap, nest and touch.
std::string Key(FuzzedDataProvider& in) {
  char buf[8];
  snprintf(buf, sizeof(buf), "%04u",
           in.ConsumeIntegralInRange<unsigned>(0, 9999));
  return buf;
}

double LogUniform(FuzzedDataProvider& in, double max) {
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) return 0;
  return std::exp(in.ConsumeFloatingPointInRange<double>(0, std::log(max)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  LivePlanOptions o;
  static constexpr double kBudgets[] = {0, 0.4, 0.5, 1, 5, 7, 10, 16, 40, 100};
  o.bits_per_key = in.ConsumeBool()
                       ? in.PickValueInArray(kBudgets)
                       : in.ConsumeFloatingPointInRange<double>(0, 100);
  o.last_level_filter = in.ConsumeBool();
  o.filter = static_cast<monkey::FilterChoice>(in.ConsumeIntegralInRange(0, 2));
  o.objective = in.ConsumeBool() ? monkey::Objective::kMemory
                                 : monkey::Objective::kSumFpr;
  if (in.ConsumeBool()) {
    o.max_sum_fpr = std::exp(
        in.ConsumeFloatingPointInRange<double>(std::log(1e-6), std::log(20.0)));
  }
  if (in.ConsumeBool()) {
    o.sizing.dynamic = in.ConsumeBool();
    o.sizing.base_level_entries = LogUniform(in, 1e9);
    o.sizing.multiplier = in.ConsumeFloatingPointInRange<double>(1.0, 20);
    o.sizing.num_levels = in.ConsumeIntegralInRange(1, 10);
  }

  // Files, numbered from 1, at levels 0..7.
  std::vector<monkey::LiveFile> files(in.ConsumeIntegralInRange(0, 120));
  for (size_t i = 0; i < files.size(); ++i) {
    monkey::LiveFile& f = files[i];
    f.number = i + 1;
    f.level = in.ConsumeIntegralInRange(0, 7);
    f.entries = LogUniform(in, 1e9);
    f.bytes = in.ConsumeBool() ? f.entries * 100 : LogUniform(in, 1e11);
    f.smallest = Key(in);
    f.largest = in.ConsumeBool() ? f.smallest : Key(in);
    if (f.largest < f.smallest) std::swap(f.smallest, f.largest);
    f.flushed = f.level == 0 && in.ConsumeBool();
    f.filter_known = in.ConsumeBool();
    if (f.filter_known && in.ConsumeBool()) {
      f.filter_entries = f.entries;
      f.filter_bits =
          f.entries * in.ConsumeFloatingPointInRange<double>(0.5, 40);
    }
  }
  // Jobs in flight: flushes, and compactions of some of the files.
  std::vector<monkey::LiveJob> jobs(in.ConsumeIntegralInRange(0, 4));
  for (monkey::LiveJob& job : jobs) {
    job.flush = in.ConsumeBool();
    if (job.flush) {
      job.flush_entries = LogUniform(in, 1e8);
      continue;
    }
    job.output_level = in.ConsumeIntegralInRange(0, 7);
    for (size_t n = in.ConsumeIntegralInRange<size_t>(0, 8); n > 0; --n) {
      if (files.empty()) break;
      job.input_files.push_back(
          in.ConsumeIntegralInRange<uint64_t>(1, files.size() + 2));
    }
  }

  const std::vector<LiveLevel> levels = monkey::ProjectLiveShape(files, jobs);
  for (size_t i = 0; i < levels.size(); ++i) {
    const LiveLevel& l = levels[i];
    if (!std::isfinite(l.entries) || l.entries < 0 || !std::isfinite(l.runs) ||
        l.runs < 0 || !std::isfinite(l.filter_bits) || l.filter_bits < 0) {
      Fail("ProjectLiveShape: L" + std::to_string(i) + " is not finite", o,
           levels, nullptr);
    }
  }
  LivePlan plan;
  if (monkey::PlanLiveTree(levels, o, &plan)) CheckBuildable(plan, o, levels);
  CheckSettled(levels, o);
  return 0;
}
