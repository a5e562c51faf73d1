// The shared bad-input table (tests/golden/bad_inputs.json) through the core's JSON API: each
// case gives the structured error with its code and path. The same table runs through the CLI
// and the wasm module (tests/js) and the page (tests/web); running it here too puts it under
// the ASan+UBSan build.
#include <catch2/catch.hpp>

#include <cctype>
#include <cstring>

#include "result_checks.hpp"
#include "test_util.hpp"
#include "willitfit/api/api.hpp"

using nlohmann::json;

namespace {

// "@nested:N" stands for N nested arrays (kept short in the table, deep in the request), built
// by moving, not copying, so a deep one costs O(N); {"@repeat": N, "of": v} for N copies of v.
json expand(const json& v) {
  if (v.is_string() && v.get<std::string>().rfind("@nested:", 0) == 0) {
    const int depth = std::stoi(v.get<std::string>().substr(8));
    json x = json::array();
    for (int i = 1; i < depth; ++i) {
      json y = json::array();
      y.push_back(std::move(x));
      x = std::move(y);
    }
    return x;
  }
  if (v.is_object() && v.contains("@repeat")) {
    json out = json::array();
    const json one = expand(v["of"]);
    for (int i = 0; i < v["@repeat"].get<int>(); ++i) out.push_back(one);
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& x : v) out.push_back(expand(x));
    return out;
  }
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, x] : v.items()) out[k] = expand(x);
    return out;
  }
  return v;
}

// Placeholders in raw text: "@brackets:N" is N '[' then N ']', "@objects:N" N nested {"a": …}
// around 1, "@spaces:N" N spaces (deep or huge texts that would swell the table).
std::string expand_text(std::string s) {
  for (const char* tag : {"@brackets:", "@objects:", "@spaces:"}) {
    for (std::size_t at; (at = s.find(tag)) != std::string::npos;) {
      std::size_t end = at + std::strlen(tag);
      while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
      const std::size_t n = std::stoul(s.substr(at + std::strlen(tag), end - at - std::strlen(tag)));
      std::string rep;
      if (tag[1] == 'b') rep = std::string(n, '[') + std::string(n, ']');
      else if (tag[1] == 's') rep = std::string(n, ' ');
      else {
        for (std::size_t i = 0; i < n; ++i) rep += "{\"a\":";
        rep += "1" + std::string(n, '}');
      }
      s.replace(at, end - at, rep);
    }
  }
  return s;
}

// The request text of a case, or "" when the case is CLI-only.
std::string request_text(const json& table, const json& c) {
  if (c.contains("text")) return expand_text(c["text"].get<std::string>());
  if (c.contains("request")) return expand(c["request"]).dump();
  if (!c.contains("patch") && !c.contains("config_patch")) return "";
  json r = table["base"];
  if (c.contains("patch")) r.update(c["patch"]);
  if (c.contains("config_patch")) {
    json cfg = table["base_config"];
    for (const auto& [k, v] : c["config_patch"].items()) {
      if (v.is_null()) cfg.erase(k);
      else cfg[k] = v;
    }
    r["model"] = json{{"config", cfg}};
  }
  return expand(r).dump();
}

}  // namespace

TEST_CASE("every request in the bad-input table gives its structured error with the right code and path", "[bad_inputs]") {
  const wif::Catalog& cat = wif_test::catalog();
  const json table = json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/tests/golden/bad_inputs.json"));
  REQUIRE(table["cases"].size() >= 200);
  std::size_t ran = 0;
  for (const auto& c : table["cases"]) {
    const std::string text = request_text(table, c);
    if (text.empty() && !c.contains("text")) continue;
    CAPTURE(c["id"].get<std::string>());
    // "api": "solve" routes a case to the solvers (solve.hpp), "runsOn" to the device list
    // (runs_on.hpp); the rest are estimates.
    const std::string route = c.value("api", "");
    const json doc = json::parse(route == "solve"    ? wif::api_solve(cat, text)
                                 : route == "runsOn" ? wif::api_runs_on(cat, text)
                                                     : wif::api_estimate(cat, text));
    INFO(doc.dump().substr(0, 400));
    CHECK(wif_test::bad_error_doc(doc).empty());
    if (!doc.contains("error")) continue;
    CHECK(doc["error"]["code"] == c["code"]);
    CHECK(doc["error"]["path"] == c["path"]);
    ++ran;
  }
  CHECK(ran >= 150);
}
