// The one rule of every count search (core/src/questions/solve_detail.hpp count_cap): no more
// identical cards than a machine of the card's segment holds (data/segments.json: consumer and
// workstation 4, datacenter 8), and a capped search says so in `count_caps`.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"

namespace count_cap_test_cases {

using nlohmann::json;

namespace {
const wif::Catalog& cat() { return wif_test::catalog(); }
json solve(const json& req) { return json::parse(wif::api_solve(cat(), req.dump())); }

// Segment caps as the catalog states them, and each device's segment.
std::map<std::string, int> caps() {
  std::map<std::string, int> m;
  for (const auto& s : (*cat().document("segments.json"))["segments"]) m[s["id"]] = s["max_count"];
  return m;
}
int cap_of(const std::string& id) {
  const wif::Device* d = cat().find_device(id);
  REQUIRE(d != nullptr);
  if (d->kind != wif::DeviceKind::Gpu) return 1;
  return caps().at(d->facts["segment"].get<std::string>());
}
// The GPU count of one answer (cheapest option, pick) is within its segment's cap.
void check_option(const json& o) {
  const std::string id = o.contains("device") && o["device"].is_string() && !o.contains("kind") ? o["device"] : o["id"];
  INFO(o.dump());
  CHECK(o["count"].get<int>() <= cap_of(id));
}
}  // namespace

TEST_CASE("no solver answer holds more cards than their segment's cap, for a sample of models", "[count_cap]") {
  // From 8B to 671B: small models find one card, the large ones hit the caps.
  const char* models[] = {"meta-llama/Llama-3.3-70B-Instruct", "zai-org/GLM-4.5-Air", "Qwen/Qwen3-235B-A22B-Instruct-2507",
                          "deepseek-ai/DeepSeek-V3-0324"};
  int consumer_multi = 0;
  for (const char* m : models) {
    CAPTURE(m);
    const json base = {{"model", m}, {"quant", "Q4_K_M"}, {"context", 8192}};
    json q = base;
    q["solve"] = "cheapest";
    q["max_count"] = 8;
    const json ch = solve(q);
    REQUIRE_FALSE(ch.contains("error"));
    for (const auto& o : ch["options"]) {
      check_option(o);
      if (o["kind"] == "gpu" && cap_of(o["id"]) == 4 && o["count"].get<int>() > 1) ++consumer_multi;
    }
    // The search bound 8 is above the consumer and workstation caps: both are said, datacenter not.
    REQUIRE(ch["count_caps"].is_array());
    std::map<std::string, int> said;
    for (const auto& c : ch["count_caps"]) {
      CHECK(c["code"] == "segment_max_count");
      CHECK(c["max_count"] == 8);
      said[c["segment"]] = c["segment_max_count"];
    }
    CHECK(said == std::map<std::string, int>{{"consumer", 4}, {"workstation", 4}});
    q["solve"] = "picks";
    q.erase("max_count");
    const json pk = solve(q);
    REQUIRE_FALSE(pk.contains("error"));
    for (const char* card : {"best_single_gpu", "best_value", "unified_memory"})
      if (pk.contains(card)) check_option(pk[card]);
  }
  CHECK(consumer_multi > 0);  // the caps are reached from below, not just never tried
}

TEST_CASE("make it fit offers no fifth RTX 4060 for a 70B model and says the count was capped", "[count_cap]") {
  const json r = solve({{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192},
                        {"hardware", "nvidia-rtx-4060"}, {"solve", "make_it_fit"}});
  REQUIRE_FALSE(r.contains("error"));
  INFO(r.dump().substr(0, 3000));
  CHECK(r["already_fits"] == false);
  for (const auto& it : r["items"])
    if (it["change"]["field"] == "count") CHECK(it["change"]["value"].get<int>() <= 4);
  // 40 GiB of weights on 8 GB cards needs six: the search stopped at four and says why.
  REQUIRE(r.contains("count_caps"));
  REQUIRE(r["count_caps"].size() == 1);
  CHECK(r["count_caps"][0] == json({{"code", "segment_max_count"}, {"segment", "consumer"}, {"segment_max_count", 4}, {"max_count", 8}}));
}

TEST_CASE("make it fit still offers more data-centre cards up to eight, and says nothing when no cap bound", "[count_cap]") {
  // DeepSeek-V3 at Q4_K_M (about 380 GiB) needs five or six 80 GB H100s: within the HGX cap of 8.
  const json r = solve({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"quant", "Q4_K_M"}, {"context", 8192},
                        {"hardware", "nvidia-h100-sxm"}, {"solve", "make_it_fit"}});
  REQUIRE_FALSE(r.contains("error"));
  INFO(r.dump().substr(0, 3000));
  int count = 0;
  for (const auto& it : r["items"])
    if (it["change"]["field"] == "count") count = it["change"]["value"];
  CHECK(count > 4);
  CHECK(count <= 8);
  CHECK_FALSE(r.contains("count_caps"));
  // Four consumer cards that hold a model are offered as before: the 4090 pair for a 70B model.
  const json g = solve({{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192},
                        {"hardware", "nvidia-rtx-4090"}, {"solve", "make_it_fit"}});
  int n4090 = 0;
  for (const auto& it : g["items"])
    if (it["change"]["field"] == "count") n4090 = it["change"]["value"];
  CHECK(n4090 == 2);
  CHECK_FALSE(g.contains("count_caps"));
}

TEST_CASE("a search bound at or below every cap reports no cap", "[count_cap]") {
  const json r = solve({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"context", 8192}, {"solve", "cheapest"}, {"max_count", 4}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["count_caps"].empty());
}

TEST_CASE("the fine-tuning estimate's cheapest GPU set holds no more cards than its segment's cap", "[count_cap]") {
  // LoRA on a 70B model: eight 32 GB workstation cards were the cheapest set before the cap.
  const json r = json::parse(wif::api_train(cat(), json({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"hardware", "nvidia-rtx-4060"},
                                                         {"method", "lora"}}).dump()));
  REQUIRE_FALSE(r.contains("error"));
  INFO(r.dump().substr(0, 2000));
  REQUIRE(r["cheapest"].is_object());
  CHECK(r["cheapest"]["count"].get<int>() <= cap_of(r["cheapest"]["id"]));
  REQUIRE(r.contains("count_caps"));
  CHECK(r["count_caps"][0]["code"] == "segment_max_count");
  for (const char* m : {"full", "qlora"}) {
    const json x = json::parse(wif::api_train(cat(), json({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"hardware", "nvidia-rtx-4060"},
                                                           {"method", m}}).dump()));
    if (x["cheapest"].is_object()) CHECK(x["cheapest"]["count"].get<int>() <= cap_of(x["cheapest"]["id"]));
  }
}

}  // namespace count_cap_test_cases
