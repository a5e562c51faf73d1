// Small string tests the core uses on ids, file paths and tensor names (ASCII only).
#pragma once
#include <algorithm>
#include <cctype>
#include <string>

namespace wif::text {

/// ASCII lower case ("Q4_K_M" -> "q4_k_m"); ids are compared this way.
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// ASCII upper case ("q4_k_m" -> "Q4_K_M"); quant and type names are compared this way.
inline std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

/// ASCII case-insensitive equality (upper(a) == upper(b) without building either string): the
/// format look-ups run it for every catalog format of every row of a runs-on list.
inline bool iequals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

inline bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

inline bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// `sub` occurs somewhere in `s`.
inline bool has(const std::string& s, const char* sub) { return s.find(sub) != std::string::npos; }

}  // namespace wif::text
