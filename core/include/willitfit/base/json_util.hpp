// Typed reads from JSON documents that report the exact path of a bad or missing field.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wif {

using json = nlohmann::json;

/// A figure for a result document: NaN and Infinity are written as 0, never reach the output.
inline double finite_or_zero(double x) { return std::isfinite(x) ? x : 0.0; }

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

/// For readers that never throw (a config's optional towers): the first of `keys` present in
/// `obj` as a positive integer below 2^31, else 0 (absent, not an integer, or out of range).
std::int64_t positive_int_or_zero(const json* obj, std::initializer_list<const char*> keys);

/// For the same readers: `obj[key]` when it is a string, else "".
std::string string_or_empty(const json* obj, const char* key);

/// A JSON value (not a field) as an integer; `path` names it in errors.
std::int64_t int_value(const json& v, const std::string& path, std::int64_t min = INT64_MIN,
                       std::int64_t max = INT64_MAX);

/// Bounds on JSON text from outside, checked on the raw text *before* any parser sees it, so no
/// input can drive the parser (or any recursive copy, dump or destructor of the value) deeper
/// than kMaxJsonDepth, nor make it allocate for more than max_bytes of text.
///  * depth 64: the deepest real request is about 6 (request > model > config > rope_scaling >
///    list), an estimateMany list adds one; 64 leaves room for any config.json seen on the Hub.
///  * 32 MiB of request text: a GGUF header in base64 is the largest legitimate field (the
///    262,144-token tokenizer of Gemma 3 is a ~6 MB header, ~8 MB as base64); parsing 32 MiB
///    takes well under a second natively.
constexpr std::size_t kMaxJsonDepth = 64;
constexpr std::size_t kMaxRequestBytes = std::size_t{32} << 20;

/// Throws InputError("json_too_large", path) when text is longer than max_bytes, and
/// InputError("json_too_deep", path) when arrays/objects nest deeper than kMaxJsonDepth (strings
/// are skipped correctly, so brackets inside them do not count). Both messages state the bound.
/// Linear in the text, no allocation.
void check_json_bounds(const std::string& text, const std::string& path,
                       std::size_t max_bytes = kMaxRequestBytes);

/// Reads well-formed JSON directly into out and returns true, or returns false, leaving out as it
/// was, where nlohmann's parser is to decide (an error, a byte order mark, a surrogate pair, an
/// integer past 64 bits, nesting past kMaxJsonDepth, text past kMaxRequestBytes). Where it reads,
/// its value equals nlohmann::json::parse's (the fuzz target fuzz_api_estimate and
/// tests/json_util_test.cpp check both against each other).
bool parse_json_quick(const std::string& text, json& out);

/// Parse text as JSON within check_json_bounds's bounds; throws their errors, or
/// InputError("bad_json", path) with the parser's position. Well-formed text within the bounds is
/// read by parse_json_quick (the catalog's 1.2 MB of JSON in less than half the instructions of
/// nlohmann's parser); the rest is bounds-checked and given to nlohmann's parser.
json parse_json(const std::string& text, const std::string& path,
                std::size_t max_bytes = kMaxRequestBytes);

}  // namespace wif
