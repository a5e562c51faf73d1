// Checks every result document must pass, shared by the fuzz targets, the invariants test and
// the hardening tests: numbers a person can use (finite, never negative except a margin), no
// null where a figure belongs, and errors that carry a code a caller can branch on.
#pragma once
#include <cmath>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

namespace wif_test {

/// Figures that may legitimately be negative: a deficit is a negative margin, a quality delta
/// (quants.json "ppl_delta_pct") can be below zero (found by the catalog fuzz target), and a
/// difference is signed: placement.over_full_bytes (a plan against the all-on-GPU total) and
/// gguf_file_published_diff_pct (our file against the published one), speed.decode_measured's
/// difference (our estimate against a published run of the same setup).
inline bool may_be_negative(const std::string& key) {
  // room_bytes / room_sequences: a server pool's room beyond the stated sequences, negative when they need more
  // than the pool (as margin_bytes is for the whole budget).
  return key == "margin_bytes" || key == "room_bytes" || key == "room_sequences" || key == "over_full_bytes" || key == "gguf_file_published_diff_pct" ||
         key == "difference" ||
         key.find("delta") != std::string::npos;
}

/// Figures the core reports as null when they are unknown (issue 19: an unknown printed as 0
/// reads as a value): a model that states no maximum context or published count, a hybrid
/// without attention heads in a shape.
inline bool may_be_unknown(const std::string& key) {
  return key == "max_context" || key == "params_total_published_b" || key == "params_active_published_b" ||
         key == "n_head_kv" || key == "head_dim" || key == "n_head" || key == "params_total_b" ||
         key == "params_active_b" || key == "price_usd" || key == "fp16_tflops" || key == "fp32_tflops" ||
         key == "chip" || key == "gpu_cores" || key == "cpu_cores" ||  // a device the catalog names no chip for
         key == "order" ||  // a device the hardware list does not rank among the accelerators (a CPU)
         key == "repo";     // a server format with no published checkpoint (checkpoint, server_formats)
}

/// Empty when `doc` is sane; otherwise the JSON path of the first bad value and why.
/// nlohmann writes NaN and Infinity as null, so a null counts as a lost number, except where
/// the core says "unknown" with it (may_be_unknown).
inline std::string first_bad_value(const nlohmann::json& doc, const std::string& path = "",
                                   const std::string& key = "") {
  if (doc.is_null() && may_be_unknown(key)) return "";
  if (doc.is_null()) return path + ": null (a NaN or Infinity was written)";
  if (doc.is_number_float()) {
    const double d = doc.get<double>();
    if (!std::isfinite(d)) return path + ": not finite";
    if (d < 0 && !may_be_negative(key)) return path + ": negative";
  }
  if (doc.is_number_integer() && !doc.is_number_unsigned() && doc.get<std::int64_t>() < 0 &&
      !may_be_negative(key))
    return path + ": negative";
  if (doc.is_object())
    for (const auto& [k, v] : doc.items())
      if (auto bad = first_bad_value(v, path.empty() ? k : path + "." + k, k); !bad.empty()) return bad;
  if (doc.is_array())
    for (std::size_t i = 0; i < doc.size(); ++i)
      if (auto bad = first_bad_value(doc[i], path + "[" + std::to_string(i) + "]", key); !bad.empty())
        return bad;
  return "";
}

/// Empty when `doc` is a well-formed error document with a caller-facing code.
/// "internal_error" means the core threw something that is not an InputError: always a bug.
inline std::string bad_error_doc(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("error")) return "not an error document";
  const auto& e = doc["error"];
  if (!e.is_object() || !e.contains("code") || !e["code"].is_string() || !e.contains("path") ||
      !e["path"].is_string() || !e.contains("message") || !e["message"].is_string())
    return "error without string code, path and message";
  const std::string code = e["code"].get<std::string>();
  if (code.empty()) return "empty error code";
  if (code == "internal_error") return "internal_error: " + e["message"].get<std::string>();
  return "";
}

/// Equal values of equal types, all the way down: object keys in order, 5 unsigned apart from 5
/// signed (json's own == takes them as one and would not see a reader that typed them
/// differently), and -0.0 apart from 0.0. The quick JSON reader against nlohmann's parser, in the
/// json tests and the api fuzz target.
inline bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
  using t = nlohmann::json::value_t;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case t::object: {
      if (a.size() != b.size()) return false;
      for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
        if (i.key() != j.key() || !same_json(*i, *j)) return false;
      return true;
    }
    case t::array:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!same_json(a[i], b[i])) return false;
      return true;
    case t::number_float: {
      const double x = a.get<double>(), y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default:
      return a == b;
  }
}

}  // namespace wif_test
