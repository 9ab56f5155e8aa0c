// Renders a plan as the table that the policy, monkey_plan and the docs show:
// per level, the share of keys, runs, bits per key and predicted FPR, with an
// optional second plan (uniform bits) side by side.
#pragma once

#include <string>
#include <vector>

#include "monkey/util/monkey_bpk.h"

namespace monkey {

std::string FormatPlanTable(const std::vector<LevelShape>& shape,
                            const Plan& plan, const Plan* uniform = nullptr);

}  // namespace monkey
