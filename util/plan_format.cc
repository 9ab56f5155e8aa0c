// Plan tables. See plan_format.h.
#include "monkey/util/plan_format.h"

#include <cstdarg>
#include <cstdio>

namespace monkey {
namespace {

void Append(std::string* out, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

void Append(std::string* out, const char* format, ...) {
  char buf[256];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  out->append(buf);
}

std::string Cell(const LevelShape& level, const LevelPlan& plan) {
  char buf[64];
  if (!level.filtered || plan.millibits_per_key == 0) {
    snprintf(buf, sizeof(buf), "%9s %10s", "none", "100%");
  } else {
    snprintf(buf, sizeof(buf), "%9.3f %9.5f%%", plan.bits_per_key,
             plan.fpr * 100);
  }
  return buf;
}

}  // namespace

std::string FormatPlanTable(const std::vector<LevelShape>& shape,
                            const Plan& plan, const Plan* uniform) {
  double entries = 0;
  for (const LevelShape& level : shape) entries += level.entries;
  std::string out;
  Append(&out, "%-5s %9s %5s | %9s %10s", "level", "keys", "runs", "bits/key",
         "FPR");
  if (uniform != nullptr) {
    Append(&out, " | %9s %10s", "uniform", "FPR");
  }
  out += "\n";
  for (size_t i = 0; i < shape.size(); ++i) {
    const double share = entries > 0 ? shape[i].entries / entries : 0;
    Append(&out, "L%-4zu %8.4f%% %5g | %s", i, share * 100, shape[i].runs,
           Cell(shape[i], plan.levels[i]).c_str());
    if (uniform != nullptr) {
      Append(&out, " | %s", Cell(shape[i], uniform->levels[i]).c_str());
    }
    out += "\n";
  }
  Append(&out, "%-21s | %9.3f %9.5f%%", "avg bits/key, sum FPR",
         plan.bits_per_key(), plan.sum_fpr * 100);
  if (uniform != nullptr) {
    Append(&out, " | %9.3f %9.5f%%", uniform->bits_per_key(),
           uniform->sum_fpr * 100);
  }
  out += "\n";
  return out;
}

}  // namespace monkey
