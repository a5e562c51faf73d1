// Golden journeys (tests/golden/journeys/README.md): the core gives each expected document after
// canonical formatting, and every document validates against core/schema/result.schema.json with
// a small validator for the part of JSON Schema the schema uses (type, const, enum, required,
// properties, additionalProperties, items, minimum, minLength, minItems, anyOf, allOf, if/then, $ref;
// type as one name or a list of names).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"

namespace golden_test_cases {

using nlohmann::json;

namespace {

const std::string kDir = std::string(WIF_SOURCE_DIR) + "/tests/golden/journeys";

// tests/golden/canonical.mjs in C++: integral numbers as integers, others to 8 significant digits.
json canonical(const json& v) {
  if (v.is_object()) {
    json o = json::object();
    for (const auto& [k, x] : v.items()) o[k] = canonical(x);
    return o;
  }
  if (v.is_array()) {
    json a = json::array();
    for (const auto& x : v) a.push_back(canonical(x));
    return a;
  }
  if (v.is_number()) {  // integers past 2^53 become doubles on both sides, as in JavaScript
    double d = v.get<double>();
    if (std::isfinite(d) && d != std::floor(d)) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.8g", d);
      d = std::stod(buf);
    }
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740991.0) return static_cast<std::int64_t>(d);
    return d;
  }
  return v;
}

bool is_type(const json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()));
  if (t == "number") return v.is_number();
  return false;
}

struct Validator {
  const json& root;
  const json& resolve(const json& s) const {
    if (!s.contains("$ref")) return s;
    std::string ref = s["$ref"].get<std::string>();  // "#/$defs/name"
    return root["$defs"][ref.substr(ref.rfind('/') + 1)];
  }
  bool ok(const json& v, const json& s0) const {
    const json& s = resolve(s0);
    if (s.contains("type")) {
      // One type name, or a list of them (any may match).
      bool any = false;
      if (s["type"].is_array())
        for (const auto& t : s["type"]) any = any || is_type(v, t.get<std::string>());
      else
        any = is_type(v, s["type"].get<std::string>());
      if (!any) return false;
    }
    if (s.contains("const") && canonical(v) != canonical(s["const"])) return false;
    if (s.contains("enum")) {
      bool any = false;
      for (const auto& e : s["enum"]) any = any || e == v;
      if (!any) return false;
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>()) return false;
    if (s.contains("minLength") && v.is_string() && v.get<std::string>().size() < s["minLength"].get<std::size_t>()) return false;
    if (s.contains("minItems") && v.is_array() && v.size() < s["minItems"].get<std::size_t>()) return false;
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& k : s["required"])
          if (!v.contains(k.get<std::string>())) return false;
      for (const auto& [k, x] : v.items()) {
        if (s.contains("properties") && s["properties"].contains(k)) {
          if (!ok(x, s["properties"][k])) return false;
        } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object() &&
                   !ok(x, s["additionalProperties"])) {
          return false;
        }
      }
    }
    if (v.is_array() && s.contains("items"))
      for (const auto& x : v)
        if (!ok(x, s["items"])) return false;
    if (s.contains("allOf"))
      for (const auto& sub : s["allOf"])
        if (!ok(v, sub)) return false;
    if (s.contains("anyOf")) {
      bool any = false;
      for (const auto& sub : s["anyOf"]) any = any || ok(v, sub);
      if (!any) return false;
    }
    if (s.contains("if") && ok(v, s["if"]) && s.contains("then") && !ok(v, s["then"])) return false;
    return true;
  }
};

std::string call(const std::string& api, const json& req) {
  const auto& c = wif_test::catalog();
  const std::string t = req.dump();
  if (api == "estimate") return wif::api_estimate(c, t);
  if (api == "solve") return wif::api_solve(c, t);
  if (api == "train") return wif::api_train(c, t);
  if (api == "cost") return wif::api_cost(c, t);
  if (api == "tiers") return wif::api_tiers(c, t);
  if (api == "runs_on") return wif::api_runs_on(c, t);
  if (api == "defaults") return wif::api_defaults(c, t);
  FAIL("unknown api " << api);
  return "";
}

}  // namespace

TEST_CASE("every golden journey gives its expected document, and every document validates", "[golden]") {
  const json schema = json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/core/schema/result.schema.json"));
  const Validator val{schema};
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(kDir)) {
    const std::string p = f.path().string();
    if (f.path().extension() != ".json" || p.size() > 14 && p.compare(p.size() - 14, 14, ".expected.json") == 0) continue;
    ++n;
    CAPTURE(p);
    const json j = json::parse(wif_test::read_text(p));
    const std::string exp = p.substr(0, p.size() - 5) + ".expected.json";
    const json want = json::parse(wif_test::read_text(exp))["result"];
    const json got = json::parse(call(j["api"], j["request"]));
    CHECK(canonical(got).dump(1) == canonical(want).dump(1));
    CHECK(val.ok(got, schema));
    CHECK(got["schema_version"] == 1);
  }
  CHECK(n >= 20);
}

TEST_CASE("the schema validator rejects what the schema forbids", "[golden]") {
  const json schema = json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/core/schema/result.schema.json"));
  const Validator val{schema};
  json e = wif_test::estimate({{"model", "Qwen/Qwen3-8B"}, {"hardware", "nvidia-rtx-4090"}});
  REQUIRE(val.ok(e, schema));
  json bad = e;
  bad["verdict"] = "maybe";
  CHECK_FALSE(val.ok(bad, schema));
  bad = e;
  bad.erase("schema_version");
  CHECK_FALSE(val.ok(bad, schema));
  bad = e;
  bad["memory"]["usable_rule_code"]["code"] = "VRAM less 0.35 GiB the driver keeps";
  CHECK_FALSE(val.ok(bad, schema));
  bad = e;
  bad["notes"] = json::array({{{"code", "made_up"}, {"values", json::object()}}});
  CHECK_FALSE(val.ok(bad, schema));
}

}  // namespace golden_test_cases
