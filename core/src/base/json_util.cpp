#include "willitfit/base/json_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "willitfit/base/error.hpp"

namespace wif {

std::string join_path(const std::string& base, const std::string& key) {
  if (base.empty()) return key;
  if (key.empty()) return base;
  return base + "." + key;
}

namespace {

const json* find(const json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void bad_type(const std::string& p, const char* want) {
  throw InputError("bad_type", p, "expected " + std::string(want) + " at '" + p + "'");
}

std::int64_t as_int(const json& v, const std::string& p, std::int64_t min, std::int64_t max) {
  std::int64_t x = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw InputError("bad_value", p, "'" + p + "' is too large");
    x = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18)
      throw InputError("bad_value", p, "'" + p + "' must be a whole number");
    x = static_cast<std::int64_t>(d);
  } else {
    bad_type(p, "an integer");
  }
  if (x < min || x > max)
    throw InputError("bad_value", p,
                     "'" + p + "' is " + std::to_string(x) + ", outside " + std::to_string(min) +
                         ".." + std::to_string(max));
  return x;
}

double as_num(const json& v, const std::string& p, double min, double max) {
  if (!v.is_number()) bad_type(p, "a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) throw InputError("bad_value", p, "'" + p + "' must be finite");
  if (d < min || d > max)
    throw InputError("bad_value", p, "'" + p + "' is outside its allowed range");
  return d;
}

}  // namespace

std::int64_t req_int(const json& obj, const std::string& key, const std::string& path,
                     std::int64_t min, std::int64_t max) {
  const std::string p = join_path(path, key);
  const json* v = find(obj, key);
  if (!v) throw InputError("missing_field", p, "'" + p + "' is required");
  return as_int(*v, p, min, max);
}

std::optional<std::int64_t> opt_int(const json& obj, const std::string& key,
                                    const std::string& path, std::int64_t min, std::int64_t max) {
  const json* v = find(obj, key);
  if (!v) return std::nullopt;
  return as_int(*v, join_path(path, key), min, max);
}

double req_num(const json& obj, const std::string& key, const std::string& path, double min,
               double max) {
  const std::string p = join_path(path, key);
  const json* v = find(obj, key);
  if (!v) throw InputError("missing_field", p, "'" + p + "' is required");
  return as_num(*v, p, min, max);
}

std::optional<double> opt_num(const json& obj, const std::string& key, const std::string& path,
                              double min, double max) {
  const json* v = find(obj, key);
  if (!v) return std::nullopt;
  return as_num(*v, join_path(path, key), min, max);
}

std::string req_str(const json& obj, const std::string& key, const std::string& path) {
  const std::string p = join_path(path, key);
  const json* v = find(obj, key);
  if (!v) throw InputError("missing_field", p, "'" + p + "' is required");
  if (!v->is_string()) bad_type(p, "a string");
  return v->get<std::string>();
}

std::optional<std::string> opt_str(const json& obj, const std::string& key,
                                   const std::string& path) {
  const json* v = find(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) bad_type(join_path(path, key), "a string");
  return v->get<std::string>();
}

std::optional<bool> opt_bool(const json& obj, const std::string& key, const std::string& path) {
  const json* v = find(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) bad_type(join_path(path, key), "true or false");
  return v->get<bool>();
}

std::int64_t int_value(const json& v, const std::string& path, std::int64_t min,
                       std::int64_t max) {
  return as_int(v, path, min, max);
}

std::optional<std::int64_t> opt_int_any(const json& obj, std::initializer_list<const char*> keys,
                                        const std::string& path, std::int64_t min,
                                        std::int64_t max) {
  for (const char* k : keys)
    if (auto v = opt_int(obj, k, path, min, max)) return v;
  return std::nullopt;
}

std::int64_t positive_int_or_zero(const json* obj, std::initializer_list<const char*> keys) {
  if (!obj || !obj->is_object()) return 0;
  for (const char* k : keys) {
    auto it = obj->find(k);
    if (it == obj->end()) continue;
    if (!it->is_number_integer() && !it->is_number_unsigned()) return 0;
    const std::int64_t v = it->get<std::int64_t>();
    return v > 0 && v < (1ll << 31) ? v : 0;
  }
  return 0;
}

std::string string_or_empty(const json* obj, const char* key) {
  if (!obj || !obj->is_object()) return "";
  auto it = obj->find(key);
  return it != obj->end() && it->is_string() ? it->get<std::string>() : "";
}

void check_json_bounds(const std::string& text, const std::string& path, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    throw InputError("json_too_large", path,
                     "the JSON text is " + std::to_string(text.size()) + " bytes; the limit is " +
                         std::to_string(max_bytes));
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError("json_too_deep", path,
                         "the JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels (at byte " + std::to_string(i) + ")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

namespace {

/// A direct reader for well-formed JSON: one pass over the bytes, strings copied as runs rather
/// than a character at a time, numbers read whole. It declines (returns false) at anything it
/// does not read exactly as nlohmann's parser does (a byte order mark, a surrogate pair escape, an
/// integer past 64 bits, a number past double's range, invalid UTF-8, any syntax error), and the
/// caller then hands the text to nlohmann's parser, which gives the same value or the error. Its
/// rules are RFC 8259's; the values are nlohmann's: an integer with a minus sign is
/// number_integer, one without number_unsigned, anything with a fraction or an exponent a double
/// by strtod; a key given twice keeps its last value.
class QuickReader {
 public:
  QuickReader(const char* p, const char* end) : p_(p), end_(end) {}

  bool document(json& out) {
    skip_space();
    if (!value(out)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  const char* p_;
  const char* end_;
  std::size_t depth_ = 0;

  bool nest() { return ++depth_ <= kMaxJsonDepth; }
  bool unnest() { --depth_; return true; }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool literal(const char* word, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }

  // The recursion stops at kMaxJsonDepth levels: deeper text is declined, and check_json_bounds
  // then names it.
  bool value(json& out) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return nest() && object(out) && unnest();
      case '[': return nest() && array(out) && unnest();
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't': out = true; return literal("true", 4);
      case 'f': out = false; return literal("false", 5);
      case 'n': out = nullptr; return literal("null", 4);
      default: return number(out);
    }
  }

  bool object(json& out) {
    ++p_;  // {
    out = json::object();
    auto& members = *out.get_ptr<json::object_t*>();
    skip_space();
    if (p_ != end_ && *p_ == '}') { ++p_; return true; }
    for (;;) {
      skip_space();
      if (p_ == end_ || *p_ != '"') return false;
      std::string key;
      if (!string(key)) return false;
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_space();
      json v;
      if (!value(v)) return false;
      members[std::move(key)] = std::move(v);  // a repeated key: the last one, as nlohmann keeps
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '}') { ++p_; return true; }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  bool array(json& out) {
    ++p_;  // [
    out = json::array();
    auto& items = *out.get_ptr<json::array_t*>();
    skip_space();
    if (p_ != end_ && *p_ == ']') { ++p_; return true; }
    for (;;) {
      skip_space();
      items.emplace_back();
      if (!value(items.back())) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ']') { ++p_; return true; }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  /// The length of the well-formed UTF-8 sequence at p (Unicode 15, table 3-7: no overlong
  /// form, no surrogate, nothing past U+10FFFF), or 0.
  std::size_t utf8_length(const unsigned char* p) const {
    const std::size_t left = static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(end_) - p);
    const unsigned char c = p[0];
    auto cont = [&](std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) { return i < left && p[i] >= lo && p[i] <= hi; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
    if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
    if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
    if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    return 0;
  }

  bool string(std::string& out) {
    ++p_;  // "
    for (;;) {
      const char* run = p_;
      while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
             static_cast<unsigned char>(*p_) < 0x80)
        ++p_;
      out.append(run, p_);
      if (p_ == end_) return false;
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') { ++p_; return true; }
      if (c < 0x20) return false;  // a control character must be escaped
      if (c >= 0x80) {
        const std::size_t n = utf8_length(reinterpret_cast<const unsigned char*>(p_));
        if (n == 0) return false;
        out.append(p_, n);
        p_ += n;
        continue;
      }
      // A backslash.
      if (end_ - p_ < 2) return false;
      const char e = p_[1];
      p_ += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (end_ - p_ < 4) return false;
          int cp = 0;
          for (int i = 0; i < 4; ++i) {
            const int d = hex(p_[i]);
            if (d < 0) return false;
            cp = cp * 16 + d;
          }
          p_ += 4;
          if (cp >= 0xD800 && cp <= 0xDFFF) return false;  // surrogates: nlohmann's parser pairs them
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: return false;
      }
    }
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  bool number(json& out) {
    const char* start = p_;
    const bool negative = p_ != end_ && *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !digit(*p_)) return false;
    if (*p_ == '0') ++p_;
    else while (p_ != end_ && digit(*p_)) ++p_;
    const char* int_end = p_;
    bool real = false;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
      real = true;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
      real = true;
    }
    if (!real) {
      // Past 64 bits nlohmann reads a double instead: declined.
      std::uint64_t v = 0;
      for (const char* q = start + (negative ? 1 : 0); q != int_end; ++q) {
        const unsigned d = static_cast<unsigned>(*q - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
      }
      if (!negative) {
        out = v;
      } else {
        if (v > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;
        out = v == static_cast<std::uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<std::int64_t>(v);
      }
      return true;
    }
    // The same conversion as nlohmann's lexer (strtod on the number's own characters).
    char buf[64];
    const std::size_t n = static_cast<std::size_t>(p_ - start);
    if (n >= sizeof buf) return false;
    std::memcpy(buf, start, n);
    buf[n] = '\0';
    char* stop = nullptr;
    const double d = std::strtod(buf, &stop);
    if (stop != buf + n || !std::isfinite(d)) return false;
    out = d;
    return true;
  }
};

}  // namespace

bool parse_json_quick(const std::string& text, json& out) {
  if (text.size() > kMaxRequestBytes) return false;
  json j;
  QuickReader r(text.data(), text.data() + text.size());
  if (!r.document(j)) return false;
  out = std::move(j);
  return true;
}

json parse_json(const std::string& text, const std::string& path, std::size_t max_bytes) {
  if (text.size() <= max_bytes)
    if (json quick; parse_json_quick(text, quick)) return quick;
  check_json_bounds(text, path, max_bytes);  // the size and depth bounds, each with its message
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    // Re-parse with exceptions only to learn where it broke; nlohmann reports the byte offset.
    std::string where;
    try {
      const json again = json::parse(text);  // throws: the text did not parse the first time
      (void)again;
    } catch (const json::parse_error& e) {
      where = " (near byte " + std::to_string(e.byte) + ")";
    } catch (...) {
    }
    throw InputError("bad_json", path, "not valid JSON" + where);
  }
  return j;
}

}  // namespace wif
