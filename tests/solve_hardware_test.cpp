// The hardware solvers (core/src/solve_hardware.cpp): cheapest and the main page's picks. Every
// configuration they name must run when estimated directly.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_util.hpp"
#include "willitfit/api.hpp"

using nlohmann::json;

namespace {
const wif::Catalog& cat() { return wif_test::catalog(); }
json estimate(const json& req) { return json::parse(wif::api_estimate(cat(), req.dump())); }
json solve(const json& req) { return json::parse(wif::api_solve(cat(), req.dump())); }
bool runs(const json& e) { return e["verdict"] == "fits" || e["verdict"] == "tight"; }
const json kAir = {{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"context", 32768}};

json request_for(const json& base, const std::string& id, int count) {
  json q = base;
  q["hardware"] = id;
  q["count"] = count;
  return q;
}
}  // namespace

TEST_CASE("picks on GLM-4.5-Air give four cards whose hardware each runs the model when estimated", "[solve_hardware]") {
  json q = kAir;
  q["solve"] = "picks";
  const json r = solve(q);
  INFO(r.dump().substr(0, 4000));
  REQUIRE_FALSE(r.contains("error"));
  int shown = 0;
  for (const char* card : {"best_single_gpu", "best_value", "unified_memory", "cheapest_cloud"}) {
    CAPTURE(card);
    if (!r.contains(card)) continue;  // nothing of that kind holds it
    ++shown;
    const json& p = r[card];
    CHECK(p["why"]["code"].is_string());
    CHECK(p["decode_tps"].get<double>() > 0);
    CHECK(std::isfinite(p["price_usd"].get<double>()));
    const std::string dev = std::string(card) == "cheapest_cloud" ? p["device"] : p["id"];
    const json e = estimate(request_for(kAir, dev, p["count"].get<int>()));
    CHECK(runs(e));
    CHECK(e["verdict"] == p["verdict"]);
  }
  // 68 GiB of weights: the 128 GB unified machines, four used 24 GB cards and an 80 GB cloud GPU hold it.
  CHECK(shown >= 3);
  REQUIRE(r.contains("unified_memory"));
  CHECK(r["unified_memory"]["memory_gib"].get<double>() >= 96);
  REQUIRE(r.contains("best_value"));
}

TEST_CASE("picks on a small model name a single consumer GPU that is the fastest of those that fit", "[solve_hardware]") {
  const json r = solve({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"solve", "picks"}});
  REQUIRE(r.contains("best_single_gpu"));
  const json& g = r["best_single_gpu"];
  CHECK(g["count"] == 1);
  CHECK(cat().find_device(g["id"].get<std::string>())->facts.contains("launch_price_usd"));
  // No other priced consumer card that fits decodes faster (checked against the RTX 4090 here).
  const json e = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(g["decode_tps"].get<double>() >= e["speed"]["decode_tps"].get<double>() - 1e-9);
}

TEST_CASE("cheapest lists configurations by price that each run and reach the wanted speed", "[solve_hardware]") {
  json q = kAir;
  q["solve"] = "cheapest";
  q["min_decode_tps"] = 30;
  const json r = solve(q);
  INFO(r.dump().substr(0, 4000));
  REQUIRE(r["options"].is_array());
  REQUIRE_FALSE(r["options"].empty());
  CHECK(r["options"].size() <= 10);
  double last = 0;
  for (const auto& o : r["options"]) {
    CHECK(o["price_usd"].get<double>() >= last);
    last = o["price_usd"];
    CHECK(o["decode_tps"].get<double>() >= 30);
    CHECK(o["count"].get<int>() <= 8);
    CHECK((o["price_kind"] == "street" || o["price_kind"] == "launch" || o["price_kind"] == "launch_base_config" ||
           o["price_kind"] == "used"));
    CHECK(runs(estimate(request_for(kAir, o["id"], o["count"]))));
  }
  REQUIRE(r.contains("cloud"));
  CHECK(r["cloud"]["decode_tps"].get<double>() >= 30);
}

TEST_CASE("cheapest with RAM tiers adds offloaded configurations and checks the tiers it is given", "[solve_hardware]") {
  json q = kAir;
  q["solve"] = "cheapest";
  q["ram_tiers_gib"] = {0, 64, 128};
  const json r = solve(q);
  bool offload = false;
  for (const auto& o : r["options"])
    if (o["verdict"] == "offload") {
      offload = true;
      CHECK(o["ram_gib"].get<double>() > 0);
    }
  CHECK(offload);  // one cheap GPU plus 64 GiB of RAM undercuts four GPUs
  q["ram_tiers_gib"] = {0, -1};
  CHECK(solve(q)["error"]["path"] == "ram_tiers_gib[1]");
  q["ram_tiers_gib"] = 64;
  CHECK(solve(q)["error"]["path"] == "ram_tiers_gib");
}
