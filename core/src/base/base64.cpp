#include "willitfit/base/base64.hpp"

#include "willitfit/base/error.hpp"

namespace wif {
namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;   // '-' and '_': the URL-safe alphabet decodes too
  if (c == '/' || c == '_') return 63;
  return -1;
}
}  // namespace

std::vector<std::uint8_t> base64_decode(const std::string& text, const std::string& path) {
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3 + 3);
  std::uint32_t acc = 0;
  int bits = 0, pad = 0;
  std::size_t symbols = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    const int v = sextet(c);
    if (v < 0 || pad > 0)
      throw InputError("bad_base64", path, "not base64: unexpected character at offset " + std::to_string(i));
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    ++symbols;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((acc >> bits) & 0xFF));
    }
  }
  if (symbols % 4 == 1) throw InputError("bad_base64", path, "not base64: the text ends with a lone symbol");
  return out;
}

std::string base64_encode(const std::uint8_t* d, std::size_t n) {
  std::string s;
  s.reserve((n + 2) / 3 * 4);
  for (std::size_t i = 0; i < n; i += 3) {
    const std::uint32_t v = (std::uint32_t{d[i]} << 16) | (i + 1 < n ? std::uint32_t{d[i + 1]} << 8 : 0) |
                            (i + 2 < n ? d[i + 2] : 0);
    s += kAlphabet[(v >> 18) & 63];
    s += kAlphabet[(v >> 12) & 63];
    s += i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    s += i + 2 < n ? kAlphabet[v & 63] : '=';
  }
  return s;
}

}  // namespace wif
