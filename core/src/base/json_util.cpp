#include "willitfit/base/json_util.hpp"

#include <cmath>

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

json parse_json(const std::string& text, const std::string& path, std::size_t max_bytes) {
  check_json_bounds(text, path, max_bytes);
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
