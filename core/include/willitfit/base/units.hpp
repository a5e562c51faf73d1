// Byte units. Memory is reported in GiB (2^30 bytes) everywhere; vendors' "GB" figures are
// converted where they are read.
#pragma once
#include <cstdint>

namespace wif::units {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::uint64_t kMiB = 1024ull * 1024ull;

}  // namespace wif::units
