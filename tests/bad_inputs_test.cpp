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

namespace bad_inputs_test_cases {

using nlohmann::json;

namespace {

// {"@repeat": N, "of": v} stands for N copies of v. "@nested:N" (N nested arrays, kept short in
// the table, deep in the request) is left as a string here and written into the request's text
// once it is serialized (nested_text): serializing a value thousands of levels deep recurses once
// per level, which overflows the stack of an unoptimized sanitizer build.
json expand(const json& v) {
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

// Every "@nested:N" string of a serialized request replaced by N '[' then N ']'.
std::string nested_text(std::string s) {
  const std::string tag = "\"@nested:";
  for (std::size_t at; (at = s.find(tag)) != std::string::npos;) {
    const std::size_t close = s.find('"', at + 1);
    const std::size_t n = std::stoul(s.substr(at + tag.size(), close - at - tag.size()));
    s.replace(at, close + 1 - at, std::string(n, '[') + std::string(n, ']'));
  }
  return s;
}

// The request text of a case, or "" when the case is CLI-only.
std::string request_text(const json& table, const json& c) {
  if (c.contains("text")) return expand_text(c["text"].get<std::string>());
  if (c.contains("request")) return nested_text(expand(c["request"]).dump());
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
  return nested_text(expand(r).dump());
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

// A request field no reader knows is never dropped without a word: a near miss of a field the
// request does not give is refused naming the field and the one meant; any other is answered
// with a warning naming it beside the result, which is otherwise the same.
TEST_CASE("unknown request fields: a misspelling is an error naming it, any other a warning", "[bad_inputs][unknown_field]") {
  const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", 8192}};
  auto est = [](const json& q) { return json::parse(wif::api_estimate(wif_test::catalog(), q.dump())); };
  const json plain = est(base);
  REQUIRE_FALSE(plain.contains("error"));
  CHECK_FALSE(plain.contains("warnings"));
  // "ram_gb": 64 meant ram_gib: read as no RAM it would change the answer, so it is refused.
  json typo = base;
  typo["ram_gb"] = 64;
  const json te = est(typo);
  REQUIRE(te.contains("error"));
  CHECK(te["error"]["code"] == "unknown_field");
  CHECK(te["error"]["path"] == "ram_gb");
  CHECK(te["error"]["accepted"] == json::array({"ram_gib"}));
  json ctx = base;
  ctx.erase("context");
  ctx["Contxt"] = 4096;
  CHECK(est(ctx)["error"]["accepted"] == json::array({"context"}));
  // Beside the field it resembles, it is a warning that names both.
  json both = typo;
  both["ram_gib"] = 64;
  const json be = est(both);
  REQUIRE_FALSE(be.contains("error"));
  REQUIRE(be.contains("warnings"));
  CHECK(be["warnings"] == json::parse(R"([{"code":"unknown_field","path":"ram_gb","did_you_mean":"ram_gib"}])"));
  // A field like no other: a warning, and the same answer as without it.
  json other = base;
  other["colour"] = "blue";
  const json oe = est(other);
  REQUIRE_FALSE(oe.contains("error"));
  CHECK(oe["warnings"] == json::parse(R"([{"code":"unknown_field","path":"colour"}])"));
  CHECK(oe["memory"] == plain["memory"]);
  CHECK(oe["verdict"] == plain["verdict"]);
  // Each function knows its own fields: a solve's and a cost's read without a warning, and an
  // estimate's own fields under them too; a solver's field sent to estimate is unknown.
  json sq = base;
  sq["solve"] = "max_context";
  sq["min_context"] = 4096;
  CHECK_FALSE(json::parse(wif::api_solve(wif_test::catalog(), sq.dump())).contains("warnings"));
  json cq = base;
  cq["market"] = "US";
  cq["hours_per_day"] = 4;
  const json ce = json::parse(wif::api_cost(wif_test::catalog(), cq.dump()));
  REQUIRE_FALSE(ce.contains("error"));
  CHECK_FALSE(ce.contains("warnings"));
  json eq = base;
  eq["hours_per_day"] = 4;
  CHECK(est(eq)["warnings"][0]["path"] == "hours_per_day");
  json rq = {{"hardware", "nvidia-rtx-4090"}, {"min_quality", "reduced"}, {"flavour", 1}};
  const json ro = json::parse(wif::api_runs_on(wif_test::catalog(), rq.dump()));
  REQUIRE_FALSE(ro.contains("error"));
  CHECK(ro["warnings"] == json::parse(R"([{"code":"unknown_field","path":"flavour"}])"));
  // estimate_many: each entry its own.
  const json many = json::parse(wif::api_estimate_many(wif_test::catalog(), json::array({base, other, typo}).dump()));
  REQUIRE(many.size() == 3);
  CHECK_FALSE(many[0].contains("warnings"));
  CHECK(many[1]["warnings"][0]["path"] == "colour");
  CHECK(many[2]["error"]["code"] == "unknown_field");
}

TEST_CASE("unknown request fields are bounded for any input: long names, many of them", "[bad_inputs][unknown_field]") {
  json q = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", 8192}};
  // A 100,000-byte name of three-byte characters: quoted cut on a character boundary.
  std::string longname;
  while (longname.size() < 100000) longname += "\xe2\x82\xac";  // the euro sign
  q[longname] = 1;
  for (int i = 0; i < 100; ++i) q["zz_extra_" + std::to_string(1000 + i)] = i;
  const std::string text = wif::api_estimate(wif_test::catalog(), q.dump());
  const json r = json::parse(text);  // valid UTF-8, or parse would throw
  REQUIRE_FALSE(r.contains("error"));
  const json& w = r["warnings"];
  REQUIRE(w.size() == 65);
  CHECK(w[64]["code"] == "warnings_left_out");
  CHECK(w[64]["count"] == 101 - 64);
  for (std::size_t i = 0; i < 64; ++i) CHECK(w[i]["path"].get<std::string>().size() <= 200);
}

}  // namespace bad_inputs_test_cases
