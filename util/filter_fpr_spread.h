// How far one built filter's FPR strays from the model's expectation.
//
// FprModel gives the FPR expected of a filter with b bits per key. A real
// filter is a handful of 512-bit cache lines (FastLocalBloom), and its FPR is
// the average over them of what its keys happened to set: a 500-key filter at
// 10 bits per key is 10 lines, and its FPR strays from the expectation by
// several percent. A measurement that probes such a filter many times sees
// that spread on top of the binomial error of its probes, so the filter
// report's agreement test counts both (report/filter_report.cc).
#pragma once

#include "monkey/util/filter_fpr_model.h"

namespace monkey {

// The standard deviation of the FPR of one filter of `keys` keys built at
// `bits_per_key` (its body's bits), over the ways its keys can fall:
//   - within a line of L keys, the bits set by its L*k probes (occupancy:
//     the FPR of a line with S of m bits set is (S/m)^k);
//   - across lines, the keys each line draws. The filter's keys are fixed,
//     so the lines' loads sum to them: what a load above the mean adds to
//     one line's FPR, linearly, a load below takes from another's, and only
//     the curvature of FPR in the load is left.
// 0 for ideal Bloom and Ribbon, whose spread is not modelled (Ribbon's FPR is
// a fingerprint's, with little spread), and for no filter.
double FilterFprStddev(const FprModel& model, double bits_per_key, double keys);

}  // namespace monkey
