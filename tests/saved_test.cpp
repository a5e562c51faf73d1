#include <catch2/catch.hpp>

#include "test_util.hpp"

#include "willitfit/api/saved.hpp"

namespace saved_test_cases {

using nlohmann::json;

namespace {
const wif::Catalog& cat() { return wif_test::catalog(); }
json check(const json& doc) { return json::parse(wif::api_check_saved(cat(), doc.dump())); }
const json kConfig = {{"model_type", "qwen3"}, {"hidden_size", 1024}, {"intermediate_size", 3072},
                      {"num_attention_heads", 16}, {"num_key_value_heads", 8}, {"head_dim", 128},
                      {"num_hidden_layers", 28}, {"vocab_size", 151936}};
const json kDevice = {{"name", "My card"}, {"kind", "gpu"}, {"memory_gib", 16}, {"bandwidth_gbs", 448}};
}  // namespace

TEST_CASE("valid saved models and devices come back unchanged, so they survive a reload", "[saved]") {
  const json doc = {{"version", 1}, {"models", {{{"id", "me/tiny"}, {"name", "Tiny <b>"}, {"config", kConfig}}}},
                    {"devices", {kDevice}}};
  const json r = check(doc);
  CHECK(r["models"] == doc["models"]);
  CHECK(r["devices"] == doc["devices"]);
  CHECK(r["rejected"].empty());
  // And what comes back checks the same way again (a second reload).
  CHECK(check({{"version", 1}, {"models", r["models"]}, {"devices", r["devices"]}})["rejected"].empty());
}

TEST_CASE("a corrupted saved entry is kept aside with its error and the others still load", "[saved]") {
  json bad_cfg = kConfig;
  bad_cfg["num_hidden_layers"] = 1e9;
  json bad_dev = kDevice;
  bad_dev["memory_gib"] = "lots";
  const json doc = {{"version", 1},
                    {"models", {{{"name", "ok"}, {"config", kConfig}}, {{"name", "broken"}, {"config", bad_cfg}}, 17}},
                    {"devices", {bad_dev, kDevice}}};
  const json r = check(doc);
  CHECK(r["models"].size() == 1);
  CHECK(r["devices"].size() == 1);
  REQUIRE(r["rejected"].size() == 3);
  CHECK(r["rejected"][0]["error"]["code"] == "bad_value");
  CHECK(r["rejected"][0]["error"]["path"] == "models[1].config.num_hidden_layers");
  CHECK(r["rejected"][0]["entry"] == doc["models"][1]);
  CHECK(r["rejected"][1]["error"]["path"] == "models[2].config");
  CHECK(r["rejected"][2]["kind"] == "devices");
  CHECK(r["rejected"][2]["error"]["path"] == "devices[0].memory_gib");
}

TEST_CASE("old-format, newer-format and unreadable storage is reported, never dropped", "[saved]") {
  const json old = check({{"models", {{{"config", kConfig}}}}, {"devices", {kDevice}}});
  CHECK(old["models"].empty());
  REQUIRE(old["rejected"].size() == 2);
  CHECK(old["rejected"][0]["error"]["code"] == "old_format");
  CHECK(old["rejected"][0]["entry"]["config"] == kConfig);
  const json newer = check({{"version", 7}, {"devices", {kDevice}}});
  CHECK(newer["rejected"][0]["error"]["code"] == "unsupported_version");
  const json junk = json::parse(wif::api_check_saved(cat(), "{\"version\": 1, \"models\": [tru"));
  REQUIRE(junk["rejected"].size() == 1);
  CHECK(junk["rejected"][0]["error"]["code"] == "bad_json");
  CHECK(junk["rejected"][0]["entry"] == "{\"version\": 1, \"models\": [tru");
}

}  // namespace saved_test_cases
