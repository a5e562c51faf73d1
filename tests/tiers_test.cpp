#include <algorithm>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/questions/tiers.hpp"

namespace tiers_test_cases {

using namespace wif;
using nlohmann::json;
using Catch::Matchers::WithinRel;

namespace {
const Catalog& cat() { return wif_test::catalog(); }

const json& glm_tiers() {
  static const json t = [] {
    const auto t0 = std::chrono::steady_clock::now();
    json r = json::parse(api_tiers(cat(), json{{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"context", 8192}}.dump()));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("  tiers GLM-4.5-Air Q4_K_M 8K: %.0f ms natively\n", ms);
    return r;
  }();
  return t;
}

const json* find(const json& list, const std::string& id) {
  for (const auto& e : list)
    if (e["device"]["id"] == id) return &e;
  return nullptr;
}
}  // namespace

TEST_CASE("GLM-4.5-Air Q4_K_M runs on an RTX 4090 with 64 GB of RAM by offloading, at a finite speed", "[tiers]") {
  const json& t = glm_tiers();
  REQUIRE_FALSE(t.contains("error"));
  const json* e = find(t["gpus"], "nvidia-rtx-4090");
  REQUIRE(e);
  CHECK((*e)["tier"] == "offload");
  CHECK((*e)["ram_gib"].get<double>() <= 64);
  CHECK((*e)["placement"]["n_cpu_moe"].get<int>() > 0);  // experts on the CPU, not fewer layers
  const double tps = (*e)["speed"]["decode_tps"].get<double>();
  CHECK(tps > 1);
  CHECK(tps < 100);
  CHECK((*e)["speed"]["decode_tps_low"].get<double>() < tps);
  CHECK((*e)["speed"]["decode_tps_high"].get<double>() > tps);
  const json* r5090 = find(t["gpus"], "nvidia-rtx-5090");
  REQUIRE(r5090);
  std::printf("  RTX 5090: %s with %.0f GB RAM, %.1f tok/s (%.1f-%.1f), -ngl %d --n-cpu-moe %d\n",
              (*r5090)["tier"].get<std::string>().c_str(), (*r5090)["ram_gib"].get<double>(),
              (*r5090)["speed"]["decode_tps"].get<double>(), (*r5090)["speed"]["decode_tps_low"].get<double>(),
              (*r5090)["speed"]["decode_tps_high"].get<double>(), (*r5090)["placement"]["ngl"].get<int>(),
              (*r5090)["placement"]["n_cpu_moe"].get<int>());
}

TEST_CASE("GLM-4.5-Air Q4_K_M fits a Mac Studio M3 Ultra with 512 GB and not an 8 GB Mac", "[tiers]") {
  const json& t = glm_tiers();
  const json* big = find(t["macs"], "apple-m3-ultra-80c-gpu-512gb");
  REQUIRE(big);
  CHECK((*big)["tier"] == "fits");
  CHECK((*big)["speed"]["decode_tps"].get<double>() > 0);
  CHECK_FALSE(big->contains("placement"));
  const json* small = find(t["macs"], "apple-m1-8c-gpu-8gb");
  REQUIRE(small);
  CHECK((*small)["tier"] == "no_fit");
  for (const auto& e : t["macs"]) CHECK(e["tier"] != "offload");
  for (const auto& e : t["unified"]) CHECK(e["tier"] != "offload");
}

TEST_CASE("every tier entry agrees with a direct estimate of the same request", "[tiers]") {
  const json& t = glm_tiers();
  int checked = 0;
  for (const char* group : {"gpus", "macs", "unified"})
    for (const auto& e : t[group]) {
      CAPTURE(e["device"]["id"]);
      if (e["tier"] == "no_engine") {  // llama.cpp has no backend there: no estimate is made
        const auto& en = e["device"]["engines"];
        CHECK(std::find(en.begin(), en.end(), "llama.cpp") == en.end());
        CHECK_FALSE(e.contains("speed"));
        ++checked;
        continue;
      }
      const json r = json::parse(api_estimate(cat(), e["request"].dump()));
      if (!e.contains("memory")) {  // only a device the core cannot estimate on has no figures
        CHECK(e["tier"] == "no_fit");
        CHECK(r.contains("error"));
        continue;
      }
      REQUIRE_FALSE(r.contains("error"));
      CHECK(r["verdict"] == e["verdict"]);
      CHECK(r["memory"]["total_bytes"] == e["memory"]["total_bytes"]);
      // The parts the page names when "Required" differs between devices are the estimate's.
      for (const char* k : {"weights_bytes", "host_weights_bytes", "kv_cache_bytes", "compute_bytes", "overhead_bytes"})
        CHECK(r["memory"][k] == e["memory"][k]);
      if (e.contains("speed")) {
        CHECK_THAT(r["speed"]["decode_tps"].get<double>(), WithinRel(e["speed"]["decode_tps"].get<double>(), 1e-9));
        CHECK_THAT(r["speed"]["decode_tps_high"].get<double>(), WithinRel(e["speed"]["decode_tps_high"].get<double>(), 1e-9));
      }
      if (e.contains("placement")) {
        CHECK(r["placement"]["ngl"] == e["placement"]["ngl"]);
        CHECK(r["placement"]["n_cpu_moe"] == e["placement"]["n_cpu_moe"]);
      }
      // The tier follows from the verdicts: fits alone, offload with the smallest RAM that works.
      if (e["tier"] == "fits") CHECK((r["verdict"] == "fits" || r["verdict"] == "tight"));
      if (e["tier"] == "offload") {
        CHECK(r["verdict"] == "offload");
        for (double ram : kTierRamGib)
          if (ram < e["ram_gib"].get<double>()) {
            json q = e["request"];
            q["ram_gib"] = ram;
            CHECK(json::parse(api_estimate(cat(), q.dump()))["verdict"] != "offload");
          }
      }
      ++checked;
    }
  CHECK(checked == static_cast<int>(t["gpus"].size() + t["macs"].size() + t["unified"].size()));
}

TEST_CASE("tier lists cover every accelerator and are sorted fits, offload, no_fit", "[tiers]") {
  const json& t = glm_tiers();
  std::size_t gpus = 0, macs = 0, unified = 0;
  for (const auto& d : cat().devices()) {
    gpus += d.kind == DeviceKind::Gpu;
    macs += d.kind == DeviceKind::Apple;
    unified += d.kind == DeviceKind::Unified;
  }
  CHECK(t["gpus"].size() == gpus);
  CHECK(t["macs"].size() == macs);
  CHECK(t["unified"].size() == unified);
  for (const char* group : {"gpus", "macs", "unified"}) {
    const json& l = t[group];
    auto rank = [](const json& e) {
      return e["tier"] == "fits" ? 0 : e["tier"] == "offload" ? 1 : e["tier"] == "no_fit" ? 2 : 3;
    };
    for (std::size_t i = 1; i < l.size(); ++i) {
      CAPTURE(group, i);
      REQUIRE(rank(l[i - 1]) <= rank(l[i]));
      auto tps = [](const json& e) { return e.contains("speed") ? e["speed"]["decode_tps"].get<double>() : 0.0; };
      if (rank(l[i - 1]) == rank(l[i]) && rank(l[i]) < 2) CHECK(tps(l[i - 1]) >= tps(l[i]));
      if (rank(l[i - 1]) == 2 && rank(l[i]) == 2)
        CHECK(l[i - 1]["device"]["memory_gib"].get<double>() >= l[i]["device"]["memory_gib"].get<double>());
    }
  }
  CHECK(t["counts"]["gpus"]["offload"].get<int>() > 0);
  CHECK(t["counts"]["gpus"]["fits"].get<int>() > 0);
}

TEST_CASE("tier lists refuse hardware, RAM and a server engine in the request", "[tiers]") {
  for (const json& q : {json{{"model", "zai-org/GLM-4.5-Air"}, {"hardware", "nvidia-rtx-4090"}},
                        json{{"model", "zai-org/GLM-4.5-Air"}, {"ram_gib", 64}},
                        json{{"model", "zai-org/GLM-4.5-Air"}, {"engine", "vllm"}}}) {
    const json r = json::parse(api_tiers(cat(), q.dump()));
    REQUIRE(r.contains("error"));
    CHECK(r["error"]["code"] == "bad_value");
  }
  const json r = json::parse(api_tiers(cat(), R"({"model": "no/such-model"})"));
  CHECK(r["error"]["code"] == "unknown_model");
  CHECK(json::parse(api_tiers(cat(), "[1]"))["error"]["code"] == "bad_type");
}

TEST_CASE("estimate_many answers each request in order with its result or its error", "[tiers]") {
  const json qs = json::array({json{{"model", "Qwen/Qwen3-8B"}, {"hardware", "nvidia-rtx-4090"}},
                               json{{"model", "no/such"}, {"hardware", "nvidia-rtx-4090"}},
                               json{{"model", "Qwen/Qwen3-8B"}, {"quant", "Q8_0"}, {"hardware", "nvidia-rtx-3090"}}});
  const json r = json::parse(api_estimate_many(cat(), qs.dump()));
  REQUIRE(r.is_array());
  REQUIRE(r.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(r[i] == json::parse(api_estimate(cat(), qs[i].dump())));
  }
  CHECK(r[1]["error"]["code"] == "unknown_model");
  CHECK(json::parse(api_estimate_many(cat(), "{}"))["error"]["code"] == "bad_type");
  CHECK(json::parse(api_estimate_many(cat(), "[]")).empty());
}

TEST_CASE("tier lists give no llama.cpp figures for Gaudi or Cambricon cards, and figures where it runs", "[tiers]") {
  const json& t = glm_tiers();
  int no_engine = 0;
  for (const auto& e : t["gpus"]) {
    const std::string id = e["device"]["id"];
    if (id == "intel-gaudi-3" || id == "intel-gaudi-2" || id == "cambricon-mlu370-x8") {
      CAPTURE(id);
      CHECK(e["tier"] == "no_engine");
      ++no_engine;
    }
    if (id == "nvidia-rtx-4090") CHECK(e["tier"] != "no_engine");
  }
  CHECK(no_engine == 3);
  CHECK(t["counts"]["gpus"]["no_engine"].get<int>() >= 3);
}

TEST_CASE("smallest_fit names, per list, the least-memory device that fits with room to spare (the cheaper of equals), a tight one only when none has room", "[tiers]") {
  const json& t = glm_tiers();
  int tight_passed = 0;
  for (const char* key : {"gpus", "macs", "unified"}) {
    const json& list = t[key];
    const json& pick = t["smallest_fit"][key];
    // The entries it chooses among: those with room to spare (verdict fits), else every one that
    // runs the model on its own (tier fits, verdict fits or tight).
    bool any_room = false;
    for (const auto& e : list) any_room = any_room || (e["tier"] == "fits" && e["verdict"] == "fits");
    auto eligible = [&](const json& e) { return e["tier"] == "fits" && (!any_room || e["verdict"] == "fits"); };
    double least = 1e300, least_any = 1e300;
    for (const auto& e : list) {
      if (eligible(e)) least = std::min(least, e["device"]["memory_gib"].get<double>());
      if (e["tier"] == "fits") least_any = std::min(least_any, e["device"]["memory_gib"].get<double>());
    }
    if (least == 1e300) {
      CHECK(pick.is_null());
      continue;
    }
    INFO(key);
    REQUIRE(pick.is_string());
    const json* e = find(list, pick.get<std::string>());
    REQUIRE(e != nullptr);
    CHECK(eligible(*e));
    CHECK((*e)["device"]["memory_gib"].get<double>() == least);
    tight_passed += least_any < least;
    // No eligible device with the same memory has a lower known price.
    const double p = (*e)["device"]["price_usd"].get<double>();
    for (const auto& o : list)
      if (eligible(o) && o["device"]["memory_gib"].get<double>() == least && o["device"]["price_usd"].get<double>() > 0)
        CHECK((p > 0 && p <= o["device"]["price_usd"].get<double>()));
  }
  CHECK(tight_passed > 0);  // GLM-4.5-Air at 8K: a smaller GPU and a smaller Mac hold it only tight
  // GLM-4.5-Air Q4_K_M (about 70 GiB) needs a Mac with at least 96 GB.
  CHECK(find(t["macs"], t["smallest_fit"]["macs"].get<std::string>())->at("device")["memory_gib"].get<double>() >= 96);
}

// Issue 16: MXFP4_MOE quantizes expert tensors only, so for a dense model the tier lists say it
// is no real choice; for a MoE model (and any other format) they do not.
TEST_CASE("tier lists of MXFP4_MOE on a dense model carry the moe_only_format code", "[tiers][formats]") {
  const json dense = json::parse(api_tiers(cat(), json{{"model", "Qwen/Qwen3-0.6B"}, {"quant", "MXFP4_MOE"}}.dump()));
  REQUIRE_FALSE(dense.contains("error"));
  CHECK(dense["quant_applicability"]["code"] == "moe_only_format");
  CHECK_FALSE(glm_tiers().contains("quant_applicability"));
}

// The A100 80GB PCIe is sold as "80 GB", which its driver may report as 74.5 GiB (the vendor
// figure's low end): at a context where Llama 3.1 70B at Q6_K fits a driver's 80 GiB with room to
// spare but not that low end, the smallest GPU the tier lists name is a larger card that holds it
// with room (an H100 NVL), not the A100; with the same entry stated as a driver's 80 GiB, the
// A100 is the answer. The entry carries its basis and the low end, so a page can mark it.
TEST_CASE("the tier lists' smallest GPU holds the model with room to spare on a vendor figure's low end, a tight one only when none has room", "[tiers][memory_basis]") {
  const auto pair = wif_test::vendor_and_driver("nvidia-a100-80gb-pcie", "nvidia-h100-nvl", {{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q6_K"}});
  REQUIRE(pair.ctx > 0);
  CAPTURE(pair.ctx);
  const Catalog &vendor = pair.vendor, &driver = pair.driver;
  json q = pair.q;
  const json tv = json::parse(api_tiers(vendor, q.dump()));
  const json td = json::parse(api_tiers(driver, q.dump()));
  REQUIRE_FALSE(tv.contains("error"));
  REQUIRE_FALSE(td.contains("error"));
  const json* a100 = find(tv["gpus"], "nvidia-a100-80gb-pcie");
  const json* nvl = find(tv["gpus"], "nvidia-h100-nvl");
  REQUIRE(a100);
  REQUIRE(nvl);
  // The A100 runs it fully, tight; its size is the vendor's figure, with the low end in GiB.
  CHECK((*a100)["tier"] == "fits");
  CHECK((*a100)["verdict"] == "tight");
  CHECK((*a100)["device"]["memory_basis"]["code"] == "vendor_figure");
  CHECK_THAT((*a100)["device"]["memory_basis"]["values"]["low_gib"].get<double>(), WithinRel(80e9 / wif_test::kGiB, 1e-9));
  CHECK((*a100)["memory"]["usable_low_bytes"].get<double>() < (*a100)["memory"]["usable_bytes"].get<double>());
  CHECK((*nvl)["verdict"] == "fits");
  CHECK((*nvl)["device"]["memory_basis"]["code"] == "driver_reported");
  CHECK((*nvl)["memory"]["usable_low_bytes"] == (*nvl)["memory"]["usable_bytes"]);
  CHECK((*nvl)["device"]["memory_gib"].get<double>() > (*a100)["device"]["memory_gib"].get<double>());
  // The pick: the larger card with room on the vendor's figure, the A100 on a driver's total.
  CHECK(tv["smallest_fit"]["gpus"] == "nvidia-h100-nvl");
  const json* a100d = find(td["gpus"], "nvidia-a100-80gb-pcie");
  REQUIRE(a100d);
  CHECK((*a100d)["verdict"] == "fits");
  CHECK((*a100d)["device"]["memory_basis"] == json{{"code", "driver_reported"}});
  CHECK(td["smallest_fit"]["gpus"] == "nvidia-a100-80gb-pcie");
  // Where nothing has room, the tight one is still the smallest that runs it.
  const Catalog alone = wif_test::catalog_of({{"nvidia-a100-80gb-pcie", wif_test::as_vendor_figure}});
  const json ta = json::parse(api_tiers(alone, q.dump()));
  CHECK(ta["smallest_fit"]["gpus"] == "nvidia-a100-80gb-pcie");
}

}  // namespace tiers_test_cases
