#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <map>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/questions/runs_on.hpp"

namespace runs_on_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }

json timed(const json& q, const char* label) {
  const auto t0 = std::chrono::steady_clock::now();
  json r = json::parse(api_runs_on(cat(), q.dump()));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  runs-on %s: %.0f ms natively, %d estimates over %zu models\n", label, ms,
              r.value("evaluations", 0), r.contains("models") ? r["models"].size() : 0);
  return r;
}

const json& mac512() {
  static const json r = timed({{"hardware", "apple-m3-ultra-80c-gpu-512gb"}, {"context", 8192}}, "M3 Ultra 512 GB 8K");
  return r;
}

const json& rtx4090_ram() {
  static const json r = timed({{"hardware", "nvidia-rtx-4090"}, {"ram_gib", 64}, {"context", 8192}}, "RTX 4090 + 64 GB 8K");
  return r;
}

const json* find(const json& list, const std::string& id) {
  for (const auto& e : list)
    if (e["model"]["id"] == id) return &e;
  return nullptr;
}

int tier_rank(const json& e) { return e["tier"] == "fits" ? 0 : e["tier"] == "offload" ? 1 : 2; }
}  // namespace

TEST_CASE("every catalog model appears once in the list, and a 512 GB Mac runs GLM-4.5-Air at a high-quality quantization", "[runs_on]") {
  const json& r = mac512();
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["models"].size() + r["counts"]["skipped"].get<std::size_t>() == cat().models().size());
  std::map<std::string, int> seen;
  for (const auto& e : r["models"]) ++seen[e["model"]["id"].get<std::string>()];
  for (const auto& [id, n] : seen) {
    CAPTURE(id);
    CHECK(n == 1);
  }
  const json* glm = find(r["models"], "zai-org/GLM-4.5-Air");
  REQUIRE(glm);
  CHECK((*glm)["tier"] == "fits");
  CHECK((*glm)["quality"] == "high");
  CHECK((*glm)["speed"]["decode_tps"].get<double>() > 0);
  CHECK(r["counts"]["offload"] == 0);  // no RAM given: nothing offloads
  CHECK(r["usable"]["usable_bytes"].get<double>() < r["usable"]["physical_bytes"].get<double>());
  CHECK_FALSE(r["usable"]["rule_code"]["code"].get<std::string>().empty());
  CHECK_FALSE(r["usable"].contains("rule"));   // the rule is a code, no English sentence
}

TEST_CASE("each entry's quantization is the best in quality order that fits: the next better one does not", "[runs_on]") {
  const json& r = mac512();
  int checked = 0;
  for (const auto& e : r["models"]) {
    if (e["tier"] != "fits" || e["quant"] == "BF16" || checked >= 6) continue;
    CAPTURE(e["model"]["id"], e["quant"]);
    // The quant just above in the page's usual ladder must not fit (or be the same quant).
    const json best = json::parse(api_solve(cat(), json{{"solve", "best_quant"}, {"model", e["model"]["id"]},
                                                       {"hardware", "apple-m3-ultra-80c-gpu-512gb"}, {"context", 8192}}.dump()));
    REQUIRE(best.contains("best"));
    CHECK(best["best"]["id"] == e["quant"]);
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("every entry's request reproduces its verdict, memory and speed through a plain estimate", "[runs_on]") {
  for (const json* r : {&mac512(), &rtx4090_ram()}) {
    std::size_t i = 0;
    for (const auto& e : (*r)["models"]) {
      if (i++ % 7) continue;  // a spread over the list, fits to no_fit
      CAPTURE(e["model"]["id"], e["quant"]);
      const json d = json::parse(api_estimate(cat(), e["request"].dump()));
      REQUIRE_FALSE(d.contains("error"));
      CHECK(d["verdict"] == e["verdict"]);
      CHECK(d["memory"]["total_bytes"] == e["memory"]["total_bytes"]);
      if (e.contains("speed")) CHECK(d["speed"]["decode_tps"] == e["speed"]["decode_tps"]);
    }
  }
}

TEST_CASE("each row's parameter counts are the estimate's (Llama 3.1 70B: 70.6B, not the published 70B), as in the model listing", "[runs_on]") {
  const json models = json::parse(api_list(cat(), "models"));
  std::map<std::string, json> listed;
  for (const auto& m : models["models"]) listed[m["id"].get<std::string>()] = m;
  int checked = 0;
  for (const json* r : {&mac512(), &rtx4090_ram()}) {
    for (const auto& e : (*r)["models"]) {
      const std::string id = e["model"]["id"];
      if (id != "meta-llama/Llama-3.1-70B-Instruct" && id != "zai-org/GLM-4.5-Air" && id != "Qwen/Qwen3-0.6B") continue;
      CAPTURE(id);
      const json d = json::parse(api_estimate(cat(), e["request"].dump()));
      REQUIRE_FALSE(d.contains("error"));
      CHECK(e["model"]["params_total"] == d["model"]["params_total"]);
      CHECK(e["model"]["params_active"] == d["model"]["params_active"]);
      REQUIRE(listed.count(id));
      CHECK(listed[id]["params_total"] == d["model"]["params_total"]);
      CHECK(listed[id]["params_active"] == d["model"]["params_active"]);
      ++checked;
    }
  }
  CHECK(checked == 6);
  // The case the device page showed: the published figure is 70, the computed count is not.
  const json* llama = find(mac512()["models"], "meta-llama/Llama-3.1-70B-Instruct");
  REQUIRE(llama);
  const double b = (*llama)["model"]["params_total"].get<double>() / 1e9;
  CHECK(b > 70.3);
  CHECK(b < 71.0);
  // A server engine's row (vLLM on a MetaX C500) carries the estimate's counts too.
  const json mx = json::parse(api_runs_on(cat(), json{{"hardware", "metax-c500"}}.dump()));
  REQUIRE_FALSE(mx.contains("error"));
  REQUIRE_FALSE(mx["models"].empty());
  const json& first = mx["models"][0];
  const json d = json::parse(api_estimate(cat(), first["request"].dump()));
  REQUIRE_FALSE(d.contains("error"));
  CHECK(first["model"]["params_total"] == d["model"]["params_total"]);
}

TEST_CASE("the list is sorted: fits before offload before no_fit, and by quality band then model size within a tier", "[runs_on]") {
  for (const json* r : {&mac512(), &rtx4090_ram()}) {
    const json& ms = (*r)["models"];
    const std::map<std::string, int> band = {{"high", 0}, {"reduced", 1}, {"low", 2}, {"unknown", 3}};
    for (std::size_t i = 1; i < ms.size(); ++i) {
      const json& a = ms[i - 1];
      const json& b = ms[i];
      CAPTURE(a["model"]["id"], b["model"]["id"]);
      REQUIRE(tier_rank(a) <= tier_rank(b));
      if (tier_rank(a) != tier_rank(b)) continue;
      if (tier_rank(a) == 2) {
        CHECK(a["memory"]["total_bytes"].get<double>() <= b["memory"]["total_bytes"].get<double>());
        continue;
      }
      const int ba = band.at(a["quality"]), bb = band.at(b["quality"]);
      CHECK(ba <= bb);
      if (ba == bb) CHECK(a["model"]["params_total"].get<double>() >= b["model"]["params_total"].get<double>());
    }
  }
}

TEST_CASE("with 64 GB of RAM an RTX 4090 runs GLM-4.5-Air at Q4-class quality by offloading experts, not at 1 bit on the GPU", "[runs_on]") {
  const json& r = rtx4090_ram();
  const json* glm = find(r["models"], "zai-org/GLM-4.5-Air");
  REQUIRE(glm);
  CHECK((*glm)["tier"] == "offload");
  CHECK((*glm)["verdict"] == "offload");
  CHECK((*glm)["quality"] == "high");
  CHECK((*glm)["memory"]["host_ram_bytes"].get<double>() > 0);
  CHECK(r["counts"]["offload"].get<int>() > 0);
  // Without RAM the same model either fits at a lower quality or does not run at all.
  const json alone = json::parse(api_runs_on(cat(), json{{"hardware", "nvidia-rtx-4090"}}.dump()));
  const json* g2 = find(alone["models"], "zai-org/GLM-4.5-Air");
  REQUIRE(g2);
  CHECK((*g2)["tier"] != "offload");
  if ((*g2)["tier"] == "fits") CHECK((*g2)["quality"] != "high");
}

TEST_CASE("runs-on refuses a model, an unknown device and a negative context with the field's path", "[runs_on]") {
  auto err = [](const json& q) { return json::parse(api_runs_on(cat(), q.dump()))["error"]; };
  CHECK(err({{"hardware", "nvidia-rtx-4090"}, {"model", "zai-org/GLM-4.5-Air"}})["path"] == "model");
  CHECK(err({{"hardware", "no-such-gpu"}})["path"] == "hardware");
  CHECK(err({{"hardware", "nvidia-rtx-4090"}, {"context", -1}})["path"] == "context");
  CHECK(err({{"hardware", "nvidia-rtx-4090"}, {"engine", "vllm"}})["path"] == "engine");
  CHECK(err(json::object())["path"] == "hardware");
}

TEST_CASE("a setup below the quality or speed floor is not counted as running, and says what it would need", "[runs_on]") {
  // Default floors: quality band reduced or better, decode at least 3 tokens/s.
  const json& r = rtx4090_ram();
  REQUIRE(r["floors"]["min_quality"] == "reduced");
  const double min_tps = r["floors"]["min_decode_tps"].get<double>();
  CHECK(min_tps == defaults::kRunsOnMinDecodeTps);
  int below = 0;
  for (const auto& e : r["models"]) {
    CAPTURE(e["model"]["id"], e["quant"], e["tier"]);
    if (e["tier"] != "no_fit") {
      CHECK((e["quality"] == "high" || e["quality"] == "reduced"));
      if (e.contains("speed")) CHECK(e["speed"]["decode_tps"].get<double>() >= min_tps - 1e-9);
      CHECK_FALSE(e.contains("below_floor"));
      continue;
    }
    if (!e.contains("below_floor")) continue;
    ++below;
    REQUIRE(e["needs"].is_array());
    REQUIRE_FALSE(e["needs"].empty());
    for (const auto& n : e["needs"]) {
      CHECK((n["code"] == "more_memory" || n["code"] == "faster_device"));
      if (n["code"] == "more_memory") CHECK(n["memory_bytes"].get<double>() > n["usable_bytes"].get<double>() * 0.5);
      // The floor holds on the low end of the range (its central figure may be above it).
      if (n["code"] == "faster_device") CHECK(n["decode_tps_low"].get<double>() < n["min_decode_tps"].get<double>());
    }
    if (e["below_floor"] == "speed") CHECK(e["speed"]["decode_tps_low"].get<double>() < min_tps);
    if (e["below_floor"] == "quality") CHECK(e["quality"] == "low");
  }
  CHECK(below == r["counts"]["below_quality_floor"].get<int>() + r["counts"]["below_speed_floor"].get<int>());
  CHECK(r["counts"]["below_speed_floor"].get<int>() > 0);  // 70B dense models through PCIe

  // Without the RTX 4090's RAM, Llama 4 Scout (109B) only fits at 1-2 bits: below the quality floor.
  const json alone = json::parse(api_runs_on(cat(), json{{"hardware", "nvidia-rtx-4090"}}.dump()));
  const json* scout = find(alone["models"], "meta-llama/Llama-4-Scout-17B-16E-Instruct");
  REQUIRE(scout);
  CHECK((*scout)["tier"] == "no_fit");
  CHECK((*scout)["below_floor"] == "quality");
  CHECK((*scout)["quality"] == "low");
  REQUIRE((*scout)["needs"].size() >= 1);
  CHECK((*scout)["needs"][0]["code"] == "more_memory");
  // The floors are request fields: switched off, the same model counts as running at low quality.
  const json any = json::parse(api_runs_on(cat(), json{{"hardware", "nvidia-rtx-4090"}, {"min_quality", "any"},
                                                       {"min_decode_tps", 0}}.dump()));
  CHECK(any["floors"]["min_quality"] == "any");
  const json* scout_any = find(any["models"], "meta-llama/Llama-4-Scout-17B-16E-Instruct");
  REQUIRE(scout_any);
  CHECK((*scout_any)["tier"] == "fits");
  CHECK((*scout_any)["quality"] == "low");
  CHECK(any["counts"]["fits"].get<int>() > alone["counts"]["fits"].get<int>());
  // A bad floor is a coded error at its field.
  const json bad = json::parse(api_runs_on(cat(), json{{"hardware", "nvidia-rtx-4090"}, {"min_quality", "great"}}.dump()));
  CHECK(bad["error"]["code"] == "bad_value");
  CHECK(bad["error"]["path"] == "min_quality");
}

TEST_CASE("a device llama.cpp does not run on lists what vLLM runs there, each model as its checkpoint", "[runs_on]") {
  const json& g = timed({{"hardware", "intel-gaudi-3"}}, "Gaudi 3 (vLLM)");
  REQUIRE_FALSE(g.contains("error"));
  CHECK(g["engine_runs"] == true);
  CHECK(g["engine"] == "vllm");
  CHECK(g["llamacpp_runs"] == false);
  CHECK(g["device"]["engines"] == json::array({"vllm"}));
  CHECK(g["models"].size() + g["counts"]["skipped"].get<std::size_t>() == cat().models().size());
  // Llama 3.1 8B's BF16 checkpoint (16 GB) fits a 128 GB Gaudi 3; Llama 3.1 405B's (810 GB) does not.
  const json* small = find(g["models"], "meta-llama/Llama-3.1-8B-Instruct");
  REQUIRE(small);
  CHECK((*small)["tier"] == "fits");
  CHECK((*small)["engine"] == "vllm");
  CHECK((*small)["quality"] == "high");
  CHECK((*small)["request"]["engine"] == "vllm");
  CHECK((*small)["speed"]["decode_label"] == "device_figures");
  const json* big = find(g["models"], "meta-llama/Llama-3.1-405B-Instruct");
  REQUIRE(big);
  CHECK((*big)["tier"] == "no_fit");
  CHECK_FALSE(big->contains("speed"));
  // Each entry's request reproduces it: the same verdict, memory and speed from the estimate.
  int checked = 0;
  for (const auto& e : g["models"]) {
    if (e["tier"] != "fits" || checked >= 3) continue;
    ++checked;
    CAPTURE(e["model"]["id"]);
    const json x = json::parse(api_estimate(cat(), e["request"].dump()));
    REQUIRE_FALSE(x.contains("error"));
    CHECK(x["verdict"] == e["verdict"]);
    CHECK(x["memory"]["total_bytes"] == e["memory"]["total_bytes"]);
    CHECK(x["quant"]["id"] == e["quant"]);
    CHECK_THAT(x["speed"]["decode_tps"].get<double>(), Catch::Matchers::WithinRel(e["speed"]["decode_tps"].get<double>(), 1e-12));
  }
  CHECK(checked == 3);
  // Order: fits first, larger models first among them.
  for (std::size_t i = 1; i < g["models"].size(); ++i) {
    const json &a = g["models"][i - 1], &b = g["models"][i];
    CHECK(tier_rank(a) <= tier_rank(b));
    if (a["tier"] == "fits" && b["tier"] == "fits")
      CHECK(a["model"]["params_total"].get<double>() >= b["model"]["params_total"].get<double>());
  }
  // MetaX C500 (vLLM through vLLM-metax): a list too, under vLLM.
  const json m = json::parse(api_runs_on(cat(), json{{"hardware", "metax-c500"}}.dump()));
  CHECK(m["engine"] == "vllm");
  CHECK(m["counts"]["fits"].get<int>() > 0);
  // Hygon's DTK lists no engine: no list.
  const json h = json::parse(api_runs_on(cat(), json{{"hardware", "hygon-dcu-k100-ai"}}.dump()));
  REQUIRE_FALSE(h.contains("error"));
  CHECK(h["engine_runs"] == false);
  CHECK(h["engine"].is_null());
  CHECK(h["models"].empty());
  CHECK(h["device"]["engines"].empty());
  CHECK(mac512()["engine_runs"] == true);
  CHECK(mac512()["engine"] == "llama.cpp");
}

}  // namespace runs_on_test_cases
