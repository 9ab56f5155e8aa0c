// The search for the price of a bit -- the Lagrange multiplier lambda,
// false positives saved per bit and key at the margin -- at which a plan
// meets a target (a budget, or a Sigma FPR), and the band within which a
// tree whose filters keep the bits they were built with is left alone.
// Shared by the leveled live plan (live_plan.h) and the tiered one
// (tiered_plan.h). Pure: no RocksDB in here.
#pragma once

#include <functional>
#include <vector>

#include "monkey/util/filter_fpr_model.h"

namespace monkey {

// How far a tree's filters -- those already built plus those being built
// -- may stray from the budget before the price moves to bring them back,
// and then only to the band's edge. Inside it, files built under earlier
// plans (a level added below, a level that outgrew its target, L0's
// premium) are left to be rewritten in their own time: the bits a sunk
// file holds are memory already spent, and moving new files' bits to make
// up for them -- over or under -- spreads a level's bits over a wider
// range, which costs more false positives than the same bits spread evenly
// (the FPR is convex in the bits). Measured on 8 grow_tree --matrix cells
// (docs/design.md): correcting an underspend past 0.5% spent 1.7% more
// bits for a 2.7% higher Sigma FPR and 1.073x the optimum on average,
// against 1.033x with 3% both ways. In the simulation a 2% band bought
// 1.5x more deviation from the optimum than 3%.
inline constexpr double kOverBand = 0.03;
inline constexpr double kUnderBand = 0.03;
// A correction prices new files at no less than (1 - kMaxCorrection) and no
// more than (1 + kMaxCorrection) times the budget. A large correction
// lands on the few files built while it lasts and spreads one level's bits
// over a wide range, which costs more false positives than the same bits
// spread evenly (the FPR is convex in the bits): at 25% the simulation's
// worst Sigma FPR rose from 1.07x to 1.5x the optimum.
inline constexpr double kMaxCorrection = 0.10;

// What a search solves for: a budget must not be exceeded (kWithin); a
// Sigma FPR target, its measure negated, must be met (kReach).
enum class Meet { kWithin, kReach };

// A price (its log) and the millibits per run it buys.
struct PricedMillibits {
  double log_lambda = 0;
  std::vector<int> millibits;
};

// The millibits per run at a price: fewer (or as many) everywhere as the
// price rises.
using MillibitsAtPrice = std::function<std::vector<int>(double log_lambda)>;
// What a plan is judged by (its spend, or its Sigma FPR negated): rising
// with the millibits.
using PlanMeasure = std::function<double(const std::vector<int>&)>;

// The plan at which `measure` meets `target`: the price found by bisection
// on log(lambda) (a higher price buys fewer bits everywhere), then every
// run moved the same fraction of the way from its bits at that price to
// its bits at the price just below, the fraction at which the measure
// meets the target. Both are optima of the convexified problem, and on a
// hull segment FPR is linear in the bits, so the mix is one too; it
// matters where the hull's vertices are far apart (Ribbon's are 1.045 bits
// apart), and every run moves with the rest. A budget (kWithin) must not be
// exceeded: the mix, rounded down to the millibit, stays under it, and
// where no price is high enough (runs of a fraction of a key find a filter
// worth its bits at any price), no run gets a filter. A target (kReach)
// must be met: where the mix of a convex measure falls short, the vertices
// just below the price, which meet it. models[i] is run i's filter
// (models.size() >= the runs `at` prices).
PricedMillibits SolveForPrice(const MillibitsAtPrice& at,
                              const PlanMeasure& measure, double target,
                              Meet meet, const std::vector<FprModel>& models);

}  // namespace monkey
