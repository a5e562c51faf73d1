// Small statistics shared by the accuracy reports and the fits.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace wif {

/// The median of a list (the mean of the middle two for an even count); 0 for an empty list.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace wif
