// Typed reads from JSON documents that report the exact path of a bad or missing field.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wif {

using json = nlohmann::json;

/// "a" + "b" -> "a.b"; "" + "b" -> "b".
std::string join_path(const std::string& base, const std::string& key);

/// Integer field; throws InputError("missing_field"/"bad_type"/"bad_value") naming path.key.
std::int64_t req_int(const json& obj, const std::string& key, const std::string& path,
                     std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);
std::optional<std::int64_t> opt_int(const json& obj, const std::string& key,
                                    const std::string& path, std::int64_t min = INT64_MIN,
                                    std::int64_t max = INT64_MAX);
double req_num(const json& obj, const std::string& key, const std::string& path,
               double min = -1e300, double max = 1e300);
std::optional<double> opt_num(const json& obj, const std::string& key, const std::string& path,
                              double min = -1e300, double max = 1e300);
std::string req_str(const json& obj, const std::string& key, const std::string& path);
std::optional<std::string> opt_str(const json& obj, const std::string& key,
                                   const std::string& path);
std::optional<bool> opt_bool(const json& obj, const std::string& key, const std::string& path);

/// First present key among `keys` as an integer (HF configs name the same fact differently).
std::optional<std::int64_t> opt_int_any(const json& obj, std::initializer_list<const char*> keys,
                                        const std::string& path, std::int64_t min = 0,
                                        std::int64_t max = INT64_MAX);

/// A JSON value (not a field) as an integer; `path` names it in errors.
std::int64_t int_value(const json& v, const std::string& path, std::int64_t min = INT64_MIN,
                       std::int64_t max = INT64_MAX);

/// Parse text as JSON; throws InputError("bad_json", path) with the parser's position.
json parse_json(const std::string& text, const std::string& path);

}  // namespace wif
