// The precision result figures are shown at (GiB with two decimals, a percentage with one,
// tokens/s with one decimal below 100 and none from 100), so the core can say, as a code, that
// two figures read the same or that a difference reads as zero: a page then omits or rewords
// "X of X", "X -> X" and "differs by 0.0 %" instead of printing them.
#pragma once
#include <cmath>

#include "willitfit/base/units.hpp"

namespace wif::shown {

/// Two byte counts that read the same in GiB at two decimals.
inline bool same_gib(double a_bytes, double b_bytes) {
  return std::llround(a_bytes / units::kGiB * 100.0) == std::llround(b_bytes / units::kGiB * 100.0);
}

/// A percentage that reads as zero at `digits` decimals (0.0 % at one).
inline bool zero_pct(double pct, int digits = 1) { return std::llround(pct * std::pow(10.0, digits)) == 0; }

/// Two decode speeds that read the same in tokens/s (one decimal below 100, none from 100).
inline bool same_tps(double a, double b) {
  auto q = [](double x) { return x < 100.0 ? std::llround(x * 10.0) : std::llround(x) * 10; };
  return q(a) == q(b);
}

}  // namespace wif::shown
