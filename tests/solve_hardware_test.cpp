// The hardware solvers (core/src/questions/solve_hardware.cpp): cheapest and the main page's picks. Every
// configuration they name must run when estimated directly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/hardware/device.hpp"

namespace solve_hardware_test_cases {

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

// The picks' four cards, in the order the page shows them.
constexpr const char* kCards[] = {"best_single_gpu", "best_value", "unified_memory", "cheapest_cloud"};

// A card the picks show, with the estimate of its own setup: its device (a cloud offer's GPU) at
// its count, on the request the picks were for.
struct ShownPick {
  std::string card;
  std::string id;
  json pick;
  json estimate;
};

std::vector<ShownPick> estimate_picks(const json& picks, const json& base) {
  std::vector<ShownPick> out;
  for (const char* card : kCards) {
    if (!picks.contains(card)) continue;  // nothing of that kind holds it
    const json& p = picks[card];
    const std::string id = std::string(card) == "cheapest_cloud" ? p["device"] : p["id"];
    out.push_back({card, id, p, estimate(request_for(base, id, p["count"].get<int>()))});
  }
  return out;
}
}  // namespace

TEST_CASE("picks on GLM-4.5-Air give four cards whose hardware each runs the model when estimated", "[solve_hardware]") {
  json q = kAir;
  q["solve"] = "picks";
  const json r = solve(q);
  INFO(r.dump().substr(0, 4000));
  REQUIRE_FALSE(r.contains("error"));
  const auto shown = estimate_picks(r, kAir);
  for (const auto& s : shown) {
    CAPTURE(s.card);
    CHECK(s.pick["why"]["code"].is_string());
    CHECK(s.pick["decode_tps"].get<double>() > 0);
    CHECK(std::isfinite(s.pick["price_usd"].get<double>()));
    CHECK(runs(s.estimate));
    CHECK(s.estimate["verdict"] == s.pick["verdict"]);
  }
  // 68 GiB of weights: the 128 GB unified machines, four used 24 GB cards and an 80 GB cloud GPU hold it.
  CHECK(shown.size() >= 3);
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
    CHECK(o["decode_tps_low"].get<double>() >= 30);  // the floor holds on the range's low end
    CHECK(o["count"].get<int>() <= 8);
    CHECK((o["price_kind"] == "street" || o["price_kind"] == "launch" || o["price_kind"] == "launch_option" || o["price_kind"] == "launch_base_config" ||
           o["price_kind"] == "used"));
    CHECK(runs(estimate(request_for(kAir, o["id"], o["count"]))));
  }
  REQUIRE(r.contains("cloud"));
  CHECK(r["cloud"]["decode_tps_low"].get<double>() >= 30);
}

TEST_CASE("cheapest for vLLM and SGLang names only tensor-parallel sizes the engine accepts", "[solve_hardware]") {
  // Llama 3.1 70B has 64 attention heads: 3, 5, 6 and 7 GPUs are refused at start-up. The
  // solver answered with the error of the first refused size (6) instead of skipping it.
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const json r = solve({{"solve", "cheapest"}, {"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"engine", engine}});
    REQUIRE_FALSE(r.contains("error"));
    REQUIRE(r["options"].size() > 0);
    for (const auto& o : r["options"]) {
      const int n = o["count"].get<int>();
      CAPTURE(o["id"].get<std::string>(), n);
      CHECK(64 % n == 0);
      // And each one runs when estimated directly with that engine.
      const json e = estimate({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"hardware", o["id"]}, {"count", n},
                               {"engine", engine}, {"context", r["context"]}});
      REQUIRE_FALSE(e.contains("error"));
      CHECK(runs(e));
    }
    if (r["cloud"].is_object()) CHECK(64 % r["cloud"]["gpu_count"].get<int>() == 0);
  }
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

TEST_CASE("an Apple memory option with its own sourced launch price is priced at it, not at the chip's base configuration", "[solve_hardware]") {
  // data/hardware/apple.json: the M4 Pro (16-core GPU) chip launched at $1,399 with 24 GB; its
  // 64 GB option has its own configured price in option_prices_usd.
  const json file = json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/data/hardware/apple.json"));
  json chip;
  for (const auto& e : file["devices"])
    if (e["id"] == "apple-m4-pro-16c-gpu") chip = e;
  REQUIRE(chip.contains("option_prices_usd"));
  const double base = chip["launch_price_usd"].get<double>();
  const double own = chip["option_prices_usd"]["64"]["usd"].get<double>();
  REQUIRE(own > base);
  const wif::Device* d = nullptr;
  for (const auto& x : cat().devices())
    if (x.id == "apple-m4-pro-16c-gpu-64gb") d = &x;
  REQUIRE(d);
  CHECK(d->price_usd == own);
  // The tier lists carry it, and the unified-memory pick for a 70B model no longer offers this
  // option at the base price (before: "M4 Pro 64 GB, $1,399, launch price of the base model").
  const json t = json::parse(wif::api_tiers(cat(), json{{"model", "meta-llama/Llama-3.3-70B-Instruct"}}.dump()));
  bool seen = false;
  for (const auto& e : t["macs"])
    if (e["device"]["id"] == "apple-m4-pro-16c-gpu-64gb") {
      CHECK(e["device"]["price_usd"].get<double>() == own);
      seen = true;
    }
  CHECK(seen);
  const json p = solve({{"solve", "picks"}, {"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192}});
  REQUIRE(p.contains("unified_memory"));
  const json& u = p["unified_memory"];
  CAPTURE(u.dump());
  CHECK_FALSE((u["id"] == "apple-m4-pro-16c-gpu-64gb" && u["price_usd"].get<double>() == base));
  if (u["id"] == "apple-m4-pro-16c-gpu-64gb") CHECK(u["price_kind"] == "launch_option");
  // The 48 GB option of the same chip, picked for a 32B model at Q8_0, says its price is its own.
  const json p48 = solve({{"solve", "picks"}, {"model", "Qwen/Qwen3-32B"}, {"quant", "Q8_0"}, {"context", 8192}});
  if (p48["unified_memory"]["id"] == "apple-m4-pro-16c-gpu-48gb") {
    CHECK(p48["unified_memory"]["price_kind"] == "launch_option");
    CHECK(p48["unified_memory"]["price_usd"].get<double>() == chip["option_prices_usd"]["48"]["usd"].get<double>());
  }
}

TEST_CASE("an option price for a memory size the chip does not list is refused at its field", "[solve_hardware]") {
  const json chip = {{"id", "x"}, {"memory_options_gib", {24, 48}},
                     {"option_prices_usd", {{"64", {{"usd", 1999}, {"source", "https://example.org"}, {"date", "2024-10"}}}}}};
  try {
    wif::option_price(chip, 24, "apple.json#x");
    FAIL("no error");
  } catch (const wif::InputError& e) {
    CHECK(e.error().path == "apple.json#x.option_prices_usd.64");
  }
  const json ok = {{"id", "x"}, {"memory_options_gib", {24, 48}},
                   {"option_prices_usd", {{"48", {{"usd", 1799}, {"source", "https://example.org"}, {"date", "2024-10"}}}}}};
  CHECK(wif::option_price(ok, 48, "p")["usd"] == 1799);
  CHECK(wif::option_price(ok, 24, "p").is_null());
}

TEST_CASE("a pick that nothing qualifies for says why, with the figures behind it", "[solve_hardware]") {
  // The RTX PRO 6000 Blackwell (96 GB) carries a launch price: GLM-4.5-Air Q4_K_M has a best single GPU.
  json q = kAir;
  q["solve"] = "picks";
  const json air = solve(q);
  REQUIRE(air.contains("best_single_gpu"));
  CHECK(air["missing"].is_object());
  CHECK_FALSE(air["missing"].contains("best_single_gpu"));
  // DeepSeek-V3 at Q4_K_M (about 380 GiB of weights) fits no single card.
  const json big = solve({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"quant", "Q4_K_M"}, {"solve", "picks"}});
  REQUIRE_FALSE(big.contains("error"));
  CHECK_FALSE(big.contains("best_single_gpu"));
  const json& why = big["missing"]["best_single_gpu"];
  CHECK(why["code"] == "no_single_card_fits");
  CHECK(why["largest_memory_gib"].get<double>() >= 96);
  CHECK(why["weights_bytes"].get<double>() > why["largest_memory_gib"].get<double>() * 1073741824.0);
  for (const char* card : {"best_value", "unified_memory", "cheapest_cloud"})
    CHECK((big.contains(card) != big["missing"].contains(card)));
}

// smallest_device against a search by hand over the same list: the catalog's accelerators by
// memory then price, each estimated alone with no system RAM; the first that runs is the answer.
TEST_CASE("smallest_device names the first accelerator, by memory then price, that runs the request alone", "[solve_hardware]") {
  for (const json& base : {json{{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192}},
                           json{{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"context", 32768}},
                           json{{"model", "Qwen/Qwen3-0.6B"}, {"quant", "Q8_0"}}}) {
    CAPTURE(base.dump());
    json q = base;
    q["solve"] = "smallest_device";
    const json r = solve(q);
    INFO(r.dump());
    REQUIRE_FALSE(r.contains("error"));
    REQUIRE(r["found"] == true);
    std::vector<const wif::Device*> devs;
    for (const auto& d : cat().devices())
      if (d.kind != wif::DeviceKind::Cpu) devs.push_back(&d);
    auto price = [](const wif::Device* d) { return d->price_usd > 0 ? d->price_usd : 1e12; };
    std::stable_sort(devs.begin(), devs.end(), [&](const wif::Device* a, const wif::Device* b) {
      return a->memory_gib != b->memory_gib ? a->memory_gib < b->memory_gib : price(a) < price(b);
    });
    // Runs: fits or tight, at the floor of "runs" (3 tokens/s) on the low end of the decode range
    // unless the device has no speed model; a comfortable fit first, the first tight one only
    // when no device fits comfortably.
    // The request names no hardware: a desktop's devices first (no segment, consumer or
    // workstation), the data-centre ones only when none of those runs it.
    auto dc = [](const wif::Device* d) {
      return d->facts.contains("segment") && d->facts["segment"] == "datacenter";
    };
    std::string first, first_tight;
    for (const bool want_dc : {false, true}) {
    if (!first.empty() || !first_tight.empty()) break;
    for (const auto* d : devs) {
      if (dc(d) != want_dc) continue;
      json e = request_for(base, d->id, 1);
      e["ram_gib"] = 0;
      const json x = estimate(e);
      const bool has = x.contains("speed") && x["speed"].is_object() && x["speed"].contains("decode_tps") && x["speed"]["decode_tps"].is_number();
      const double tps = has ? x["speed"]["decode_tps"].get<double>() : 0.0;
      const double low = has && x["speed"].contains("decode_tps_low") && x["speed"]["decode_tps_low"].get<double>() > 0
                             ? x["speed"]["decode_tps_low"].get<double>() : tps;
      if (runs(x) && (tps <= 0 || low >= wif::defaults::kRunsOnMinDecodeTps)) {
        if (x["verdict"] == "fits") { first = d->id; break; }
        if (first_tight.empty()) first_tight = d->id;
      }
    }
    if (!first.empty()) break;
    }
    if (first.empty()) first = first_tight;
    // Devices alike in kind, memory and backend answer alike, so the first of them is the answer.
    CHECK(r["device"]["id"] == first);
    CHECK(r["segment"]["preferred"] == "desktop");
    CHECK(r["segment"]["basis"] == "default");
    CHECK(r["segment"]["left"] == dc(cat().find_device(first)));
    CHECK((r["device"]["verdict"] == "fits" || r["device"]["verdict"] == "tight"));
    CHECK(r["evaluations"].get<int>() < static_cast<int>(devs.size()));
  }
  // Nothing in the catalog holds a 1M-token context of a 405B model at BF16 on one device.
  const json none = solve({{"model", "meta-llama/Llama-3.1-405B-Instruct"}, {"quant", "BF16"}, {"context", 131072}, {"solve", "smallest_device"}});
  INFO(none.dump());
  REQUIRE_FALSE(none.contains("error"));
  CHECK(none["found"] == false);
  CHECK_FALSE(none.contains("device"));
}

// A device that holds the model but decodes slower than a person reads is not "the smallest device
// that runs it": the 64 GB Jetson AGX Orin holds Llama 3.1 70B at Q6_K (57 GiB of its 60 usable)
// at 2.7 tokens/s from 204.8 GB/s. The answer passes it, names it as below the floor, and the
// device it gives decodes at the floor at least.
TEST_CASE("smallest_device passes a device that holds the model below the speed floor, and names it", "[solve_hardware]") {
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q6_K"}, {"context", 8192}};
  json jetson = request_for(base, "nvidia-jetson-agx-orin-64gb", 1);
  jetson["ram_gib"] = 0;
  const json je = estimate(jetson);
  REQUIRE(runs(je));  // it holds the model...
  REQUIRE(je["speed"]["decode_tps"].get<double>() < wif::defaults::kRunsOnMinDecodeTps);  // ...too slowly
  json q = base;
  q["solve"] = "smallest_device";
  const json r = solve(q);
  INFO(r.dump());
  REQUIRE(r["found"] == true);
  CHECK(r["device"]["id"] != "nvidia-jetson-agx-orin-64gb");
  CHECK(r["device"]["decode_tps_low"].get<double>() >= wif::defaults::kRunsOnMinDecodeTps);
  CHECK(r["min_decode_tps"].get<double>() == wif::defaults::kRunsOnMinDecodeTps);
  REQUIRE(r.contains("below_speed_floor"));
  CHECK(r["below_speed_floor"]["decode_tps"].get<double>() < wif::defaults::kRunsOnMinDecodeTps);
  CHECK(r["below_speed_floor"]["memory_gib"].get<double>() <= r["device"]["memory_gib"].get<double>());
  // The answer runs when estimated directly, at its own speed.
  json direct = request_for(base, r["device"]["id"].get<std::string>(), 1);
  direct["ram_gib"] = 0;
  const json de = estimate(direct);
  CHECK(runs(de));
  CHECK(de["speed"]["decode_tps"].get<double>() == Approx(r["device"]["decode_tps"].get<double>()));
  // At Q5_K_M (50 GiB) the Jetson's central figure reaches the floor (3.1 tokens/s) but its range
  // starts below it (2.2): a floor holds on the low end, so it is passed and named, and the
  // answer's own low end is at the floor at least.
  q["quant"] = "Q5_K_M";
  json j5 = jetson;
  j5["quant"] = "Q5_K_M";
  const json je5 = estimate(j5);
  REQUIRE(runs(je5));
  REQUIRE(je5["speed"]["decode_tps"].get<double>() >= wif::defaults::kRunsOnMinDecodeTps);
  REQUIRE(je5["speed"]["decode_tps_low"].get<double>() < wif::defaults::kRunsOnMinDecodeTps);
  const json q5 = solve(q);
  INFO(q5.dump());
  REQUIRE(q5["found"] == true);
  CHECK(q5["device"]["id"] != "nvidia-jetson-agx-orin-64gb");
  CHECK(q5["device"]["decode_tps_low"].get<double>() >= wif::defaults::kRunsOnMinDecodeTps);
  REQUIRE(q5.contains("below_speed_floor"));
  CHECK(q5["below_speed_floor"]["id"] == "nvidia-jetson-agx-orin-64gb");
  CHECK(q5["below_speed_floor"]["decode_tps_low"].get<double>() == Approx(je5["speed"]["decode_tps_low"].get<double>()));
}

// Every speed floor of the core holds on the low end of the estimate's range, never on its central
// figure alone: picks, cheapest (its min_decode_tps), make_it_fit's below_speed_floor and runs_on.
TEST_CASE("speed floors hold on the low end of the decode range", "[solve_hardware][floors]") {
  const double floor = wif::defaults::kRunsOnMinDecodeTps;
  // picks: every card's low end reaches the floor (Llama 3.1 70B, where slow setups hold it).
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q5_K_M"}, {"context", 8192}};
  json pq = base;
  pq["solve"] = "picks";
  const json p = solve(pq);
  INFO(p.dump().substr(0, 3000));
  REQUIRE_FALSE(p.contains("error"));
  for (const char* card : kCards) {
    CAPTURE(card);
    if (!p.contains(card)) continue;
    CHECK(p[card]["decode_tps_low"].get<double>() + 1e-9 >= floor);
  }
  for (const auto& [k, m] : p["missing"].items())
    if (m.value("code", "") == "below_speed_floor") {
      CAPTURE(k);
      CHECK(m["decode_tps_low"].get<double>() < floor);
    }
  // cheapest with a stated floor: each option's low end reaches it, and a floor between one
  // option's low end and its central figure leaves that option out.
  json cq = base;
  cq["solve"] = "cheapest";
  cq["min_decode_tps"] = 5;
  const json c = solve(cq);
  REQUIRE_FALSE(c.contains("error"));
  REQUIRE(c["options"].size() > 0);
  for (const auto& o : c["options"]) CHECK(o["decode_tps_low"].get<double>() + 1e-9 >= 5);
  if (c.contains("cloud")) CHECK(c["cloud"]["decode_tps_low"].get<double>() + 1e-9 >= 5);
  // runs_on on the Jetson: a row that runs has its low end at the floor; one passed for speed
  // names its low end below it.
  const json ro = json::parse(wif::api_runs_on(cat(), json{{"hardware", "nvidia-jetson-agx-orin-64gb"}, {"context", 8192}}.dump()));
  REQUIRE_FALSE(ro.contains("error"));
  int slow = 0;
  for (const auto& m : ro["models"]) {
    if (m.contains("below_floor") && m["below_floor"] == "speed") {
      ++slow;
      CHECK(m["needs"][0]["decode_tps_low"].get<double>() < floor);
    } else if (m["tier"] != "no_fit" && m.contains("speed")) {
      CHECK(m["speed"]["decode_tps_low"].get<double>() + 1e-9 >= floor);
    }
  }
  CHECK(slow > 0);
  // make_it_fit: a change is below the floor exactly when its low end is.
  const json mf = solve({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192},
                         {"hardware", "nvidia-rtx-4090"}, {"solve", "make_it_fit"}});
  REQUIRE_FALSE(mf.contains("error"));
  REQUIRE(mf["items"].size() > 0);
  for (const auto& it : mf["items"]) {
    if (it["decode_tps_after"].get<double>() <= 0) continue;
    CHECK(it["below_speed_floor"].get<bool>() == (it["decode_tps_after_low"].get<double>() + 1e-9 < floor));
  }
}

// MLX runs on Apple silicon only: its picks are worked out (not refused on the first GPU of the
// catalog), the GPU card says the engine runs on no card, and the cloud card says no offer runs it
// and gives the nearest answer, the same model with llama.cpp at the GGUF type of the same quality.
TEST_CASE("picks under MLX: the Mac cards, and codes with the nearest cloud answer for the rest", "[solve_hardware]") {
  const json r = solve({{"model", "Qwen/Qwen3-30B-A3B"}, {"engine", "mlx"}, {"context", 32768}, {"solve", "picks"}});
  INFO(r.dump().substr(0, 3000));
  REQUIRE_FALSE(r.contains("error"));
  REQUIRE(r.contains("unified_memory"));
  CHECK(r["unified_memory"]["id"].get<std::string>().rfind("apple-", 0) == 0);
  CHECK_FALSE(r.contains("best_single_gpu"));
  CHECK(r["missing"]["best_single_gpu"]["code"] == "engine_not_on_gpu");
  CHECK(r["missing"]["best_single_gpu"]["engine"] == "mlx");
  CHECK_FALSE(r.contains("cheapest_cloud"));
  const json& cloud = r["missing"]["cheapest_cloud"];
  CHECK(cloud["code"] == "engine_not_on_cloud");
  REQUIRE(cloud.contains("alternative"));
  const json& alt = cloud["alternative"];
  CHECK(alt["engine"] == "llama.cpp");
  CHECK(alt["quant"] == "Q4_K_M");
  CHECK(alt["decode_tps_low"].get<double>() >= wif::defaults::kRunsOnMinDecodeTps);
  // It is the llama.cpp picks' own cloud card.
  const json ll = solve({{"model", "Qwen/Qwen3-30B-A3B"}, {"quant", "Q4_K_M"}, {"context", 32768}, {"solve", "picks"}});
  REQUIRE(ll.contains("cheapest_cloud"));
  CHECK(alt["id"] == ll["cheapest_cloud"]["id"]);
  CHECK(alt["decode_tps"].get<double>() == Approx(ll["cheapest_cloud"]["decode_tps"].get<double>()));
  // smallest_device under MLX names a Mac.
  const json sd = solve({{"model", "Qwen/Qwen3-30B-A3B"}, {"engine", "mlx"}, {"context", 32768}, {"solve", "smallest_device"}});
  REQUIRE_FALSE(sd.contains("error"));
  REQUIRE(sd["found"] == true);
  CHECK(sd["device"]["kind"] == "apple");
}

// The picks' "weights take …" figure is the weights on ONE device, and says so: DeepSeek-V3 under
// vLLM on 8 GPUs holds more in all (every rank keeps the replicated tensors: 634 GiB against 625
// GiB on one device), so the page's two figures are of two setups and the document names which.
TEST_CASE("the picks' missing weights are one device's, whatever count the request names, and say so", "[solve_hardware]") {
  const json base = {{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"}, {"context", 32768}};
  const json eight = estimate(request_for(base, "nvidia-h200-sxm", 8));
  const json one = estimate(request_for(base, "nvidia-h200-sxm", 1));
  REQUIRE_FALSE(eight.contains("error"));
  REQUIRE_FALSE(one.contains("error"));
  const double w8 = eight["memory"]["weights_bytes"].get<double>(), w1 = one["memory"]["weights_bytes"].get<double>();
  CHECK(w8 > w1 * 1.005);  // replicated per rank: more than one device's
  for (const int count : {1, 8}) {
    CAPTURE(count);
    json q = request_for(base, "nvidia-h200-sxm", count);
    q["solve"] = "picks";
    const json r = solve(q);
    REQUIRE_FALSE(r.contains("error"));
    const json& why = r["missing"]["best_single_gpu"];
    REQUIRE(why["code"] == "no_single_card_fits");
    CHECK(why["weights_devices"] == 1);
    CHECK(why["weights_bytes"].get<double>() == Approx(w1));
  }
}

// Issue 16: every hardware search offers only devices the request's engine runs on. vLLM and
// SGLang have no Metal backend (data/backends.json: metal runs llama.cpp only), so no Mac is
// picked for them, and the unified card's reason names the machines they do run on.
TEST_CASE("picks and cheapest offer only devices the engine runs on, with the deciding figures", "[solve_hardware][engine_runs]") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"engine", engine}};
    json q = base;
    q["solve"] = "picks";
    const json r = solve(q);
    INFO(r.dump().substr(0, 3000));
    REQUIRE_FALSE(r.contains("error"));
    for (const char* card : {"best_single_gpu", "best_value", "unified_memory"}) {
      if (!r.contains(card)) continue;
      const wif::Device* d = cat().find_device(r[card]["id"].get<std::string>());
      REQUIRE(d != nullptr);
      CHECK(d->kind != wif::DeviceKind::Apple);
      const auto e = cat().device_engines(*d);
      CHECK(std::find(e.begin(), e.end(), engine) != e.end());
    }
    // The Macs are counted as left out, by kind.
    bool apple = false;
    for (const auto& k : r["engine_left_out"]["kinds"]) apple = apple || (k["kind"] == "apple" && k["devices"].get<int>() > 0);
    CHECK(apple);
    // 131 GiB of BF16 weights: no unified machine the engine runs on holds them, and the figure
    // is the largest of those (128 GiB), not a 512 GiB Mac.
    if (r["missing"].contains("unified_memory")) {
      const json& m = r["missing"]["unified_memory"];
      CHECK(m["code"] == "no_unified_fits");
      CHECK(m["largest_memory_gib"].get<double>() < 512);
      CHECK(m["weights_bytes"].get<double>() > m["largest_memory_gib"].get<double>() * 1073741824.0);
    }
    q["solve"] = "cheapest";
    const json c = solve(q);
    for (const auto& o : c["options"]) CHECK(o["kind"] != "apple");
  }
  // llama.cpp keeps the Macs.
  const json l = solve({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"solve", "picks"}});
  REQUIRE(l.contains("unified_memory"));
  CHECK(l["engine_left_out"]["engine"] == "llama.cpp");
}

TEST_CASE("an accelerator's cpu backend does not make a server engine run on it", "[solve_hardware][engine_runs]") {
  // An Apple chip lists cpu beside metal (llama.cpp's CPU backend); vLLM's CPU build would run on
  // its cores, not the GPU the estimate sizes.
  const wif::Device* mac = cat().find_device("apple-m3-ultra-60c-gpu-256gb");
  REQUIRE(mac != nullptr);
  const auto e = cat().device_engines(*mac);
  CHECK(std::find(e.begin(), e.end(), "llama.cpp") != e.end());
  CHECK(std::find(e.begin(), e.end(), "vllm") == e.end());
  CHECK(std::find(e.begin(), e.end(), "sglang") == e.end());
  const json est = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", mac->id}, {"engine", "vllm"}});
  CHECK(est["hardware"]["engine_runs"] == false);
  // A CUDA unified machine runs vLLM: smallest_device may name it.
  const wif::Device* spark = cat().find_device("nvidia-dgx-spark");
  REQUIRE(spark != nullptr);
  const auto se = cat().device_engines(*spark);
  CHECK(std::find(se.begin(), se.end(), "vllm") != se.end());
  const json sd = solve({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "sglang"}, {"solve", "smallest_device"}});
  REQUIRE(sd["found"] == true);
  CHECK(sd["device"]["kind"] != "apple");
}

// Issue 16: a pick decodes at the floor of "runs" at least. Llama 3.1 405B at Q4_K_M fits a
// 512 GB Mac at about 2.6 tokens/s: no unified card then, and the reason is the speed, with the
// figures (not "no unified machine holds it", which is false).
TEST_CASE("picks never recommend a setup below the speed floor and say so when only such setups hold it", "[solve_hardware][speed_floor]") {
  const json r = solve({{"model", "meta-llama/Llama-3.1-405B-Instruct"}, {"quant", "Q4_K_M"}, {"solve", "picks"}});
  INFO(r.dump().substr(0, 3000));
  REQUIRE_FALSE(r.contains("error"));
  for (const char* card : kCards)
    if (r.contains(card)) CHECK(r[card]["decode_tps_low"].get<double>() >= wif::defaults::kRunsOnMinDecodeTps);
  REQUIRE_FALSE(r.contains("unified_memory"));
  const json& m = r["missing"]["unified_memory"];
  CHECK(m["code"] == "below_speed_floor");
  CHECK(m["decode_tps"].get<double>() > 0);
  CHECK(m["decode_tps_low"].get<double>() < m["min_decode_tps"].get<double>());
  const json e = estimate(request_for({{"model", "meta-llama/Llama-3.1-405B-Instruct"}, {"quant", "Q4_K_M"}}, m["id"], m["count"].get<int>()));
  CHECK(runs(e));
  CHECK(e["speed"]["decode_tps"].get<double>() == Approx(m["decode_tps"].get<double>()).epsilon(0.01));
}

// Issue 16: a format with no kernel on a device is no candidate there: NVFP4 under vLLM is not
// recommended on AMD hardware (no CUDA), while NVIDIA cards without FP4 tensor cores stay
// candidates (weight-only Marlin path).
std::string fp4_code(const json& e) {
  const json& q = e.at("quant");
  return q.contains("applicability") ? q["applicability"]["code"].get<std::string>() : "";
}

TEST_CASE("picks and smallest_device for NVFP4 name only devices with an FP4 kernel", "[solve_hardware][formats]") {
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"engine", "vllm"}, {"quant", "NVFP4"}};
  json q = base;
  q["solve"] = "picks";
  const json r = solve(q);
  INFO(r.dump().substr(0, 3000));
  REQUIRE_FALSE(r.contains("error"));
  for (const auto& s : estimate_picks(r, base)) {
    CAPTURE(s.card, s.id, s.estimate.dump().substr(0, 400));
    REQUIRE_FALSE(s.estimate.contains("error"));
    CHECK(fp4_code(s.estimate) != "fp4_no_kernel");
  }
  REQUIRE(r.contains("format_left_out"));
  CHECK(r["format_left_out"]["devices"].get<int>() > 0);
  q["solve"] = "smallest_device";
  q["model"] = "meta-llama/Llama-3.1-8B-Instruct";
  const json sd = solve(q);
  REQUIRE(sd["found"] == true);
  const json e = estimate(request_for({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"quant", "NVFP4"}}, sd["device"]["id"], 1));
  REQUIRE_FALSE(e.contains("error"));
  CHECK(fp4_code(e) != "fp4_no_kernel");
}

// Issue 16: hardware picks for a bitsandbytes checkpoint under vLLM name only devices whose
// backend has its kernels (CUDA, ROCm), and say how many were left out and why, as a code.
TEST_CASE("picks for a bitsandbytes format leave out devices without its kernels", "[solve_hardware][formats]") {
  const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"quant", "BNB-NF4"}};
  json q = base;
  q["solve"] = "picks";
  const json r = solve(q);
  INFO(r.dump().substr(0, 3000));
  REQUIRE_FALSE(r.contains("error"));
  for (const auto& s : estimate_picks(r, base)) {
    CAPTURE(s.card, s.id);
    REQUIRE_FALSE(s.estimate.contains("error"));
    CHECK_FALSE(s.estimate["quant"].contains("applicability"));
  }
  REQUIRE(r.contains("format_left_out"));
  CHECK(r["format_left_out"]["code"] == "backend_no_kernel");
  CHECK(r["format_left_out"]["devices"].get<int>() > 0);
}

// Issue 16: on a several-GPU page the format table's "Smallest device" stood on one device while
// "Required" was the whole setup's. With a count the answer is the smallest card of which that
// many run it: a graphics card, the count in the answer, and smaller than the one-device answer.
TEST_CASE("smallest_device at a count names the smallest card of which that many run it", "[solve_hardware]") {
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192}, {"solve", "smallest_device"}};
  const json one = solve(base);
  json q2 = base;
  q2["count"] = 2;
  const json two = solve(q2);
  INFO(one.dump() << "\n" << two.dump());
  REQUIRE(one["found"] == true);
  REQUIRE(two["found"] == true);
  CHECK(one["count"] == 1);
  CHECK(two["count"] == 2);
  CHECK(two["device"]["count"] == 2);
  CHECK(two["device"]["kind"] == "gpu");
  CHECK(two["device"]["memory_gib"].get<double>() < one["device"]["memory_gib"].get<double>());
  // That many of it run it, and its figure is the whole setup's, as the request's own total is.
  json e = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192},
            {"hardware", two["device"]["id"]}, {"count", 2}, {"ram_gib", 0}};
  const json x = estimate(e);
  CHECK(runs(x));
  CHECK(x["memory"]["total_bytes"] == two["device"]["total_bytes"]);
}

// The smallest device is one the request fits with room to spare, on the Required column's own
// rule (the estimate's verdict): Llama 3.1 70B at Q4_K_M and 8K needs 42.25 GiB, which a 48 GB
// Radeon PRO W7900 only just holds ("tight"); the answer is the first device that fits it
// comfortably, and "tight" is the answer only when no device does.
TEST_CASE("smallest_device answers with a comfortable fit, and with a tight one only when nothing fits comfortably", "[solve_hardware][decisions]") {
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192}};
  json w = request_for(base, "amd-radeon-pro-w7900", 1);
  w["ram_gib"] = 0;
  REQUIRE(estimate(w)["verdict"] == "tight");
  json q = base;
  q["solve"] = "smallest_device";
  const json r = solve(q);
  INFO(r.dump());
  REQUIRE(r["found"] == true);
  CHECK(r["device"]["verdict"] == "fits");
  CHECK(r["device"]["memory_gib"].get<double>() > 48);
  json direct = request_for(base, r["device"]["id"].get<std::string>(), 1);
  direct["ram_gib"] = 0;
  CHECK(estimate(direct)["verdict"] == "fits");
  // Every device of the answer's segment (a desktop's: the request names no hardware) with less
  // memory than the answer that runs it at the floor runs it only tight.
  REQUIRE(r["segment"]["left"] == false);
  std::vector<const wif::Device*> devs;
  for (const auto& d : cat().devices())
    if (d.kind != wif::DeviceKind::Cpu && d.memory_gib < r["device"]["memory_gib"].get<double>() &&
        !(d.facts.contains("segment") && d.facts["segment"] == "datacenter"))
      devs.push_back(&d);
  int checked = 0;
  for (const auto* d : devs) {
    json e = request_for(base, d->id, 1);
    e["ram_gib"] = 0;
    const json x = estimate(e);
    CAPTURE(d->id);
    const bool at_floor = !x.contains("speed") || x["speed"]["decode_tps_low"].get<double>() >= wif::defaults::kRunsOnMinDecodeTps;
    if (!runs(x) || !at_floor) continue;
    ++checked;
    CHECK(x["verdict"] != "fits");
  }
  CHECK(checked > 0);  // the W7900 at least
}

// The estimate says whether the setup runs, on the solvers' rule (runs(): fits or tight, at the
// floor of "runs" on the speed range's low end), so no page decides it from the verdict itself.
TEST_CASE("the estimate's run_state is the solvers' runs(), speed floor included", "[solve_hardware][decisions]") {
  json fits = request_for({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192}}, "nvidia-rtx-4090", 1);
  CHECK(estimate(fits)["run_state"] == "runs");
  // The 64 GB Jetson AGX Orin holds Llama 3.1 70B at Q6_K, at 2.7 tokens/s: it fits, too slowly.
  json slow = request_for({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q6_K"}, {"context", 8192}}, "nvidia-jetson-agx-orin-64gb", 1);
  slow["ram_gib"] = 0;
  const json s = estimate(slow);
  REQUIRE(runs(s));
  CHECK(s["run_state"] == "too_slow");
  json off = request_for(kAir, "nvidia-rtx-4090", 1);
  off["ram_gib"] = 64;
  const json o = estimate(off);
  REQUIRE(o["verdict"] == "offload");
  CHECK(o["run_state"] == "runs_offloaded");
  json none = request_for({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 8192}}, "nvidia-rtx-4060", 1);
  const json n = estimate(none);
  REQUIRE(n["verdict"] == "no_fit");
  CHECK(n["run_state"] == "does_not_run");
}

// A launch command is offered only for an engine the catalog says runs on the device: the MetaX
// C500 runs vLLM (data/backends.json) and nothing says SGLang does, so its estimate under vLLM
// carries vLLM's command alone and says SGLang's was left out; an RTX 4090 gets both.
TEST_CASE("launch commands leave out a server engine with no support evidence on the device, and say so", "[solve_hardware][decisions]") {
  const json base = {{"model", "Qwen/Qwen3-8B"}, {"engine", "vllm"}, {"context", 8192}};
  const json c = estimate(request_for(base, "metax-c500", 1));
  INFO(c.dump().substr(0, 3000));
  REQUIRE_FALSE(c.contains("error"));
  CHECK(c["commands"].contains("vllm"));
  CHECK_FALSE(c["commands"].contains("sglang"));
  REQUIRE(c.contains("commands_left_out"));
  CHECK(c["commands_left_out"] == json::array({{{"engine", "sglang"}, {"code", "engine_not_on_device"}}}));
  const json g = estimate(request_for(base, "nvidia-rtx-4090", 1));
  CHECK(g["commands"].contains("vllm"));
  CHECK(g["commands"].contains("sglang"));
  CHECK_FALSE(g.contains("commands_left_out"));
}

// Ollama ships CUDA, ROCm, Metal, Vulkan and CPU builds (data/backends.json `ollama`) and none for
// Huawei's CANN: on an Ascend 910B llama.cpp runs, but an Ollama Modelfile with num_gpu would not
// use the NPU, so the estimate offers llama-server alone and names Ollama as left out. An RTX 4090
// and a Mac keep the Ollama commands; a catalog whose backend claims Ollama with no source is refused.
TEST_CASE("Ollama's commands only where one of its builds runs on the device, and said when left out", "[solve_hardware][decisions]") {
  const json base = {{"model", "Qwen/Qwen3-8B"}, {"quant", "Q4_K_M"}, {"context", 8192}};
  const json npu = estimate(request_for(base, "huawei-ascend-910b", 1));
  INFO(npu.dump().substr(0, 3000));
  REQUIRE_FALSE(npu.contains("error"));
  CHECK(npu["commands"].contains("llama_server"));
  CHECK_FALSE(npu["commands"].contains("ollama"));
  CHECK_FALSE(npu["commands"].contains("ollama_modelfile"));
  REQUIRE(npu.contains("commands_left_out"));
  CHECK(npu["commands_left_out"] == json::array({{{"engine", "ollama"}, {"code", "engine_not_on_device"}}}));
  for (const char* id : {"nvidia-rtx-4090", "apple-m4-max-40c-gpu-128gb"}) {
    CAPTURE(id);
    const json g = estimate(request_for(base, id, 1));
    CHECK(g["commands"].contains("ollama"));
    CHECK(g["commands"].contains("ollama_modelfile"));
    CHECK_FALSE(g.contains("commands_left_out"));
  }
  const wif::Device* d = wif_test::catalog().find_device("huawei-ascend-910b");
  REQUIRE(d != nullptr);
  CHECK_FALSE(wif_test::catalog().device_ollama(*d));
  // The claim needs its own source and date, as every cited field does.
  const wif::Catalog bad = wif::Catalog::load({{"backends.json", R"({"backends": [{"id": "cann", "name": "CANN", "overhead_mib": 1024,
    "source": "https://example.org/", "checked": "2026-12-06", "ollama": "runs"}]})"}});
  const bool refused = std::any_of(bad.errors().begin(), bad.errors().end(), [](const auto& e) { return e.path.find("ollama_source") != std::string::npos; });
  CHECK(refused);
}

// Issue 16: the model page named "the cheapest setup in GPU memory" and "the cheapest with system
// RAM" by reading the options' verdicts in JavaScript. The core names them, each with its code:
// the first option (cheapest) of each kind, and each runs as its code says when estimated.
TEST_CASE("cheapest names the cheapest setup in device memory and the cheapest with system RAM", "[solve_hardware][decisions]") {
  json q = kAir;
  q["solve"] = "cheapest";
  q["ram_tiers_gib"] = {0, 64, 128};
  q["min_decode_tps"] = wif::defaults::kRunsOnMinDecodeTps;
  const json r = solve(q);
  INFO(r.dump().substr(0, 4000));
  REQUIRE(r["setups"].is_array());
  REQUIRE(r["setups"].size() == 2);  // GLM-4.5-Air: whole on larger cards, offloaded on 24 GB ones
  const char* codes[] = {"in_device_memory", "with_system_ram"};
  for (std::size_t i = 0; i < r["setups"].size(); ++i) {
    const json& s = r["setups"][i];
    CAPTURE(i, s.dump());
    CHECK(s["code"] == codes[i]);
    const bool in_memory = s["code"] == "in_device_memory";
    CHECK((in_memory ? runs(s) : s["verdict"] == "offload"));
    // No cheaper listed option is of the same kind.
    for (const auto& o : r["options"]) {
      if (o["price_usd"].get<double>() >= s["price_usd"].get<double>()) break;
      CHECK_FALSE((in_memory ? runs(o) : o["verdict"] == "offload"));
    }
    // Estimated on its own, the setup gives the verdict it was named for.
    json e = request_for(kAir, s["id"], s["count"]);
    e["ram_gib"] = s["ram_gib"];
    const json est = estimate(e);
    REQUIRE_FALSE(est.contains("error"));
    CHECK(est["verdict"] == s["verdict"]);
  }
  // Only GPUs with their own memory asked for: no setup with system RAM to name.
  q["ram_tiers_gib"] = {0};
  const json none = solve(q);
  REQUIRE(none["setups"].size() == 1);
  CHECK(none["setups"][0]["code"] == "in_device_memory");
}

// The person's segment first (solve.hpp smallest_device): a desktop owner is not pointed at a
// data-centre card while a desktop one runs the request, a data-centre request stays among
// data-centre cards, and leaving the segment is said.
TEST_CASE("smallest_device stays in the person's segment first and says when it had to leave it", "[solve_hardware]") {
  auto seg = [](const json& r) { return r["device"]["segment"].get<std::string>(); };
  auto is_dc = [](const std::string& id) {
    const wif::Device* d = cat().find_device(id);
    return d && d->facts.contains("segment") && d->facts["segment"] == "datacenter";
  };
  // Llama 3.1 70B at Q6_K needs about 57 GiB: the smallest accelerators that hold it at the speed
  // floor include 64 GB data-centre cards (an Instinct MI210 is 64 GB), yet desktops hold it too
  // (a 96 GB RTX PRO 6000, a 128 GB unified machine or a Mac).
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q6_K"}, {"context", 8192}, {"solve", "smallest_device"}};
  const json desk = solve(base);
  INFO(desk.dump());
  REQUIRE(desk["found"] == true);
  CHECK(seg(desk) == "desktop");
  CHECK_FALSE(is_dc(desk["device"]["id"].get<std::string>()));
  CHECK(desk["segment"] == json{{"preferred", "desktop"}, {"basis", "default"}, {"left", false}});
  // The same question from an RTX 4090 owner: a desktop's answer too, named as the hardware's.
  json from4090 = base;
  from4090["hardware"] = "nvidia-rtx-4090";
  const json d2 = solve(from4090);
  CHECK(d2["device"]["id"] == desk["device"]["id"]);
  CHECK(d2["segment"]["basis"] == "hardware");
  // From an H100 (data centre): the smallest data-centre card, which is no larger than the desktop
  // answer here (64 and 80 GB cards hold 57 GiB), and the segment is kept.
  json fromH100 = base;
  fromH100["hardware"] = "nvidia-h100-sxm";
  const json dc = solve(fromH100);
  INFO(dc.dump());
  REQUIRE(dc["found"] == true);
  CHECK(seg(dc) == "datacenter");
  CHECK(is_dc(dc["device"]["id"].get<std::string>()));
  CHECK(dc["segment"] == json{{"preferred", "datacenter"}, {"basis", "hardware"}, {"left", false}});
  CHECK(dc["device"]["memory_gib"].get<double>() <= desk["device"]["memory_gib"].get<double>());
  // Llama 3.1 70B at BF16 under vLLM (141 GB of weights): no desktop device vLLM runs on holds it
  // (no Mac; the largest desktop GPU and unified machines have 96 to 128 GB), so the answer leaves
  // the desktop segment and says so.
  const json big = solve({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"engine", "vllm"}, {"context", 8192}, {"solve", "smallest_device"}});
  INFO(big.dump());
  REQUIRE(big["found"] == true);
  CHECK(seg(big) == "datacenter");
  CHECK(big["segment"] == json{{"preferred", "desktop"}, {"basis", "default"}, {"left", true}});
  CHECK(big["device"]["memory_gib"].get<double>() * 1073741824.0 > 141e9);
}

// A vendor's "80 GB" (the A100 80GB PCIe, whose driver may report 74.5 GiB) and a driver's 80 GiB
// (the A800 80GB PCIe: the same usable memory, backend and bandwidth, no price for either) used to
// be one class of device for smallest_device, so the second was never estimated: the answer was
// the A100, tight, though the A800 holds the request with room to spare.
TEST_CASE("smallest_device tells a vendor's figure from a driver's total of the same size and names the one with room to spare", "[solve_hardware][memory_basis]") {
  auto unpriced = [](json& d) {
    for (const char* k : {"street_price", "launch_price_usd", "used_price"}) d.erase(k);
  };
  auto unpriced_driver = [&](json& d) {
    unpriced(d);
    wif_test::as_driver_total(d);
  };
  auto unpriced_vendor = [&](json& d) {
    unpriced(d);
    wif_test::as_vendor_figure(d);
  };
  const wif::Catalog two = wif_test::catalog_of({{"nvidia-a100-80gb-pcie", unpriced_vendor}, {"nvidia-a800-80gb-pcie", unpriced_driver}});
  const wif::Catalog driver = wif_test::catalog_of({{"nvidia-a100-80gb-pcie", unpriced_driver}});
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q6_K"}};
  const std::int64_t ctx = wif_test::tight_on_vendor_figure(two, driver, "nvidia-a100-80gb-pcie", base);
  REQUIRE(ctx > 0);
  CAPTURE(ctx);
  json q = base;
  q["context"] = ctx;
  q["hardware"] = "nvidia-a800-80gb-pcie";
  q["ram_gib"] = 0;
  const json a800 = json::parse(wif::api_estimate(two, q.dump()));
  REQUIRE(a800["verdict"] == "fits");
  // The two sort as one size at one (unknown) price, the A100 first in catalog order.
  REQUIRE(two.find_device("nvidia-a100-80gb-pcie")->memory_gib == two.find_device("nvidia-a800-80gb-pcie")->memory_gib);
  REQUIRE(two.find_device("nvidia-a100-80gb-pcie")->price_usd == 0);
  REQUIRE(two.find_device("nvidia-a800-80gb-pcie")->price_usd == 0);
  q.erase("hardware");
  q.erase("ram_gib");
  q["solve"] = "smallest_device";
  const json r = json::parse(wif::api_solve(two, q.dump()));
  INFO(r.dump());
  REQUIRE(r["found"] == true);
  CHECK(r["device"]["id"] == "nvidia-a800-80gb-pcie");
  CHECK(r["device"]["verdict"] == "fits");
  CHECK(r["device"]["memory_basis"] == json{{"code", "driver_reported"}});
  // With the A100 alone it is the answer, tight, and says its size is the vendor's figure.
  const json a = json::parse(wif::api_solve(wif_test::catalog_of({{"nvidia-a100-80gb-pcie", unpriced_vendor}}), q.dump()));
  REQUIRE(a["found"] == true);
  CHECK(a["device"]["verdict"] == "tight");
  CHECK(a["device"]["memory_basis"]["code"] == "vendor_figure");
}

// The cheapest cloud offer (the cheapest solve's `cloud`, the picks' card) is one that holds the
// request with room to spare: RunPod's A100 80GB PCIe at $1.19 an hour holds Llama 3.1 70B at Q6_K
// only tight on the vendor's "80 GB" at this context, so the answer is the cheapest H100 NVL
// offer; with the A100's size stated as a driver's 80 GiB it fits, and the A100 offer is the answer.
TEST_CASE("the cheapest cloud offer holds the request with room to spare on a vendor figure's low end, a tight one only when none has room", "[solve_hardware][memory_basis][clouds]") {
  const wif::Catalog vendor = wif_test::catalog_of({{"nvidia-a100-80gb-pcie", wif_test::as_vendor_figure}, {"nvidia-h100-nvl", nullptr}});
  const wif::Catalog driver = wif_test::catalog_of({{"nvidia-a100-80gb-pcie", wif_test::as_driver_total}, {"nvidia-h100-nvl", nullptr}});
  const json base = {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q6_K"}};
  const std::int64_t ctx = wif_test::tight_on_vendor_figure(vendor, driver, "nvidia-a100-80gb-pcie", base);
  REQUIRE(ctx > 0);
  CAPTURE(ctx);
  // The offers of each device, cheapest first, from the catalog.
  auto cheapest_of = [&](const std::string& dev) {
    const json* best = nullptr;
    for (const auto& o : vendor.clouds())
      if (o.value("device", "") == dev && o.value("gpu_count", 1) == 1 &&
          (!best || o["price_hour_usd"].get<double>() < (*best)["price_hour_usd"].get<double>()))
        best = &o;
    REQUIRE(best);
    return *best;
  };
  const json a100 = cheapest_of("nvidia-a100-80gb-pcie"), nvl = cheapest_of("nvidia-h100-nvl");
  REQUIRE(a100["price_hour_usd"].get<double>() < nvl["price_hour_usd"].get<double>());
  json q = base;
  q["context"] = ctx;
  q["solve"] = "cheapest";
  const json cv = json::parse(wif::api_solve(vendor, q.dump()));
  const json cd = json::parse(wif::api_solve(driver, q.dump()));
  INFO(cv.dump());
  REQUIRE(cv.contains("cloud"));
  REQUIRE(cd.contains("cloud"));
  CHECK(cv["cloud"]["id"] == nvl["id"]);
  CHECK(cv["cloud"]["verdict"] == "fits");
  // The cheaper A100, tight, is named beside it with its price; an answer with nothing cheaper
  // that runs it names none.
  REQUIRE(cv["cloud"].contains("tight_cheaper"));
  CHECK(cv["cloud"]["tight_cheaper"]["id"] == a100["id"]);
  CHECK(cv["cloud"]["tight_cheaper"]["price_hour_usd"].get<double>() == a100["price_hour_usd"].get<double>());
  CHECK(cv["cloud"]["tight_cheaper"]["price_hour_usd"].get<double>() < cv["cloud"]["price_hour_usd"].get<double>());
  CHECK(cd["cloud"]["id"] == a100["id"]);
  CHECK(cd["cloud"]["verdict"] == "fits");
  CHECK_FALSE(cd["cloud"].contains("tight_cheaper"));
  // The picks' card is the same answer.
  q["solve"] = "picks";
  CHECK(json::parse(wif::api_solve(vendor, q.dump()))["cheapest_cloud"]["id"] == nvl["id"]);
  CHECK(json::parse(wif::api_solve(driver, q.dump()))["cheapest_cloud"]["id"] == a100["id"]);
  // With the A100's offers alone, four of them (an Azure instance) hold it with room: that is
  // the answer, however much dearer. With only single A100s offered, none has room, and the
  // cheapest of them, tight, is the answer.
  q["solve"] = "cheapest";
  const json four = json::parse(wif::api_solve(wif_test::catalog_of({{"nvidia-a100-80gb-pcie", wif_test::as_vendor_figure}}), q.dump()));
  REQUIRE(four.contains("cloud"));
  CHECK(four["cloud"]["verdict"] == "fits");
  CHECK(four["cloud"]["gpu_count"].get<int>() > 1);
  REQUIRE(four["cloud"].contains("tight_cheaper"));
  CHECK(four["cloud"]["tight_cheaper"]["gpu_count"] == 1);
  CHECK(four["cloud"]["tight_cheaper"]["device"] == "nvidia-a100-80gb-pcie");
  const json only = json::parse(wif::api_solve(
      wif_test::catalog_of({{"nvidia-a100-80gb-pcie", wif_test::as_vendor_figure}}, [](const json& o) { return o.value("gpu_count", 1) == 1; }), q.dump()));
  REQUIRE(only.contains("cloud"));
  CHECK(only["cloud"]["id"] == a100["id"]);
  CHECK(only["cloud"]["verdict"] == "tight");
  CHECK_FALSE(only["cloud"].contains("tight_cheaper"));
}

}  // namespace solve_hardware_test_cases
