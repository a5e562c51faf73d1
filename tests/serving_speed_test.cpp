#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/speed/server_throughput.hpp"

namespace serving_speed_test_cases {

using namespace wif;
using nlohmann::json;
using Catch::Matchers::WithinRel;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;
const Architecture& arch(const char* id) { return wif_test::catalog_arch(id); }
}  // namespace

TEST_CASE("aggregate throughput rises with concurrency while each user's speed falls", "[serving_speed]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"},
                           {"hardware", "nvidia-h100-sxm"}, {"context", 8192}});
  REQUIRE_FALSE(r.contains("error"));
  const auto& t = r["vllm"]["throughput"];
  const auto& c = t["curve"];
  REQUIRE(c["concurrency"].size() >= 5);
  REQUIRE(c["aggregate_tps"].size() == c["concurrency"].size());
  for (std::size_t i = 1; i < c["concurrency"].size(); ++i) {
    CAPTURE(i);
    CHECK(c["concurrency"][i].get<int>() > c["concurrency"][i - 1].get<int>());
    CHECK(c["aggregate_tps"][i].get<double>() > c["aggregate_tps"][i - 1].get<double>());
    CHECK(c["per_user_tps"][i].get<double>() < c["per_user_tps"][i - 1].get<double>());
  }
  // The default concurrency is what the KV cache holds at max_model_len, capped at max_num_seqs.
  const auto& v = r["vllm"];
  const long long cap = std::min<long long>(static_cast<long long>(v["max_concurrency"].get<double>()),
                                            v["settings"]["max_num_seqs"].get<long long>());
  CHECK(t["concurrency"].get<long long>() == cap);
  CHECK(c["concurrency"].back().get<long long>() == cap);
  CHECK_THAT(t["aggregate_tps"].get<double>(), WithinRel(t["per_user_tps"].get<double>() * cap, 1e-9));
  std::printf("  Llama-3.1-8B BF16 on H100, vLLM: 1 user %.0f tok/s, %lld users %.0f tok/s total (%.1f each)\n",
              c["aggregate_tps"][0].get<double>(), cap, t["aggregate_tps"].get<double>(), t["per_user_tps"].get<double>());
}

TEST_CASE("a decode step is never faster than the compute bound", "[serving_speed]") {
  const Architecture& a = arch("meta-llama/Llama-3.1-8B-Instruct");
  const TensorPlan plan = plan_quantization(a, "SAFETENSORS-BF16");
  const Device* d = cat().find_device("nvidia-h100-sxm");
  REQUIRE(d);
  VllmOptions o;
  o.max_model_len = 4096;
  const VllmBudget b = vllm_budget(a, plan, usable_memory(*d).usable_bytes / wif_test::kGiB, o);
  const SpeedCoefficients k = speed_coefficients(cat());
  const DeviceRates rates = device_rates(*d, "", quant_family(plan), k);
  const double active = model_work(a, plan).decode_flops;  // 2 x active parameters
  bool bound_seen = false;
  for (std::int64_t n : {1, 16, 256, 4096}) {
    CAPTURE(n);
    const ServingPoint p = serving_step(a, plan, *d, b, n, 16, k);
    CHECK(p.aggregate_tps <= rates.flops_s / active * (1 + 1e-9));
    CHECK(p.step_ms >= p.compute_ms);
    CHECK(p.step_ms >= p.weights_ms + p.kv_ms + p.overhead_ms);
    bound_seen = bound_seen || p.compute_bound;
  }
  CHECK(bound_seen);  // 4096 short requests on one H100 are compute-bound
  CHECK_FALSE(serving_step(a, plan, *d, b, 1, 16, k).compute_bound);
}

TEST_CASE("tensor parallelism splits the weight reads and a large MoE batch reads every expert", "[serving_speed]") {
  const SpeedCoefficients k = speed_coefficients(cat());
  const Device* d = cat().find_device("nvidia-h100-sxm");
  REQUIRE(d);
  {
    const Architecture& a = arch("meta-llama/Llama-3.1-8B-Instruct");
    const TensorPlan plan = plan_quantization(a, "SAFETENSORS-BF16");
    VllmOptions o;
    o.max_model_len = 4096;
    const VllmBudget b1 = vllm_budget(a, plan, 79, o);
    o.tensor_parallel = 2;
    const VllmBudget b2 = vllm_budget(a, plan, 79, o);
    const ServingPoint p1 = serving_step(a, plan, *d, b1, 1, 1000, k);
    const ServingPoint p2 = serving_step(a, plan, *d, b2, 1, 1000, k);
    CHECK_THAT(p2.weights_ms, WithinRel(p1.weights_ms / 2, 0.05));
    CHECK_THAT(p2.kv_ms, WithinRel(p1.kv_ms / 2, 1e-9));  // 8 KV heads split over 2 ranks
  }
  {
    const Architecture& a = arch("Qwen/Qwen3-30B-A3B");
    const TensorPlan plan = plan_quantization(a, "SAFETENSORS-BF16");
    VllmOptions o;
    o.max_model_len = 4096;
    const VllmBudget b = vllm_budget(a, plan, 79, o);
    const ServingPoint one = serving_step(a, plan, *d, b, 1, 0, k);
    const ServingPoint many = serving_step(a, plan, *d, b, 512, 0, k);
    const DeviceRates rates = device_rates(*d, "", quant_family(plan), k);
    const double all_ms = static_cast<double>(b.weights_bytes) / rates.bw_bytes_s * 1e3;
    CHECK(one.weights_ms < 0.2 * all_ms);            // one token: 8 of 128 experts
    CHECK_THAT(many.weights_ms, WithinRel(all_ms, 0.02));  // 512 tokens touch them all
  }
}

TEST_CASE("a requested concurrency is honoured and flagged when the cache cannot hold it", "[serving_speed]") {
  const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"},
                     {"hardware", "nvidia-rtx-4090"}, {"context", 8192}};
  json q = base;
  q["concurrency"] = 2;
  const json r = estimate(q);
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["vllm"]["throughput"]["concurrency"] == 2);
  CHECK(r["vllm"]["throughput"]["exceeds_capacity"] == false);
  q["concurrency"] = 500;
  const json over = estimate(q);
  CHECK(over["vllm"]["throughput"]["exceeds_capacity"] == true);
  json qs = base;
  qs["engine"] = "sglang";
  const json s = estimate(qs);
  REQUIRE_FALSE(s.contains("error"));
  CHECK(s["sglang"]["throughput"]["aggregate_tps"].get<double>() > 0);
  q["concurrency"] = 0;
  CHECK(estimate(q)["error"]["path"] == "concurrency");
}

// vLLM on a device llama.cpp has no backend for (engine_fit.hpp server_speed_from_device_figures):
// the device's own bandwidth at each calibrated discrete-GPU backend's efficiencies. Expected by
// hand for Llama 3.1 8B in BF16 on one Gaudi 3 (3670 GB/s) at depth 0: a decode step reads every
// weight once except the token embedding, of which it reads one row, so
//   W = (8,030,261,248 - 128,256 x 4,096) x 2 bytes = 15,009,849,344 bytes,
// and takes W / (bandwidth x bw_eff x decode_quant[f16]) + 32 layers x layer_us.
TEST_CASE("vLLM on Gaudi 3 decodes at the device's bandwidth over the calibrated backends' efficiencies", "[serving_speed]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"},
                           {"hardware", "intel-gaudi-3"}, {"context", 8192}});
  INFO(r.dump().substr(0, 4000));
  REQUIRE_FALSE(r.contains("error"));
  CHECK_FALSE(r.contains("speed_unavailable"));
  REQUIRE(r.contains("speed"));
  const json& s = r["speed"];
  CHECK(s["decode_label"] == "device_figures");
  CHECK(s["prefill_label"] == "device_figures");  // the Gaudi 3 states an FP16 rate
  const json& b = s["basis"];
  CHECK(b["code"] == "device_figures");
  CHECK(b["engine"] == "vllm");
  CHECK(b["engine_status"] == "plugin");
  CHECK(b["backend"] == "synapseai");
  CHECK(b["source"].get<std::string>().rfind("https://", 0) == 0);
  CHECK(b["uncertain"].empty());  // no figure of the Gaudi 3 entry is marked uncertain

  const json& doc = *cat().document("speed.json");
  const double q = doc["decode_quant"]["f16"].get<double>();
  const double W = (8030261248.0 - 128256.0 * 4096.0) * 2.0;
  std::map<std::string, json> coef;
  for (const auto& x : doc["backends"])
    if (x["fitted"] == true && x["id"] != "metal" && x["id"] != "cpu") coef[x["id"].get<std::string>()] = x;
  REQUIRE(coef.size() >= 2);
  REQUIRE(b["from_backends"].size() == coef.size());
  double lo = 1e300, hi = 0;
  std::vector<double> each;
  for (const auto& f : b["from_backends"]) {
    const std::string id = f["id"];
    CAPTURE(id);
    REQUIRE(coef.count(id) == 1);
    const json& c = coef[id];
    const double hand = 1.0 / (W / (3670e9 * c["bw_eff"].get<double>() * q) + 32 * c["layer_us"].get<double>() * 1e-6);
    CHECK_THAT(f["decode_tps"].get<double>(), WithinRel(hand, 0.01));
    const json& g = doc["range"]["groups"];
    const std::string key = "tg/single/" + id;
    const double glo = g.contains(key) ? g[key]["low"].get<double>() : g["tg/single"]["low"].get<double>();
    const double ghi = g.contains(key) ? g[key]["high"].get<double>() : g["tg/single"]["high"].get<double>();
    lo = std::min(lo, f["decode_tps"].get<double>() * glo);
    hi = std::max(hi, f["decode_tps"].get<double>() * ghi);
    each.push_back(f["decode_tps"].get<double>());
  }
  // The central figure is the median backend's; the range runs over every backend's own range.
  std::sort(each.begin(), each.end());
  CHECK_THAT(s["decode_tps"].get<double>(), WithinRel(each[(each.size() - 1) / 2], 1e-9));
  CHECK_THAT(s["decode_tps_low"].get<double>(), WithinRel(lo, 1e-9));
  CHECK_THAT(s["decode_tps_high"].get<double>(), WithinRel(hi, 1e-9));
  // Wider than the CUDA estimate's own range, on both sides.
  const json& cu = doc["range"]["groups"]["tg/single/cuda"];
  CHECK(s["decode_tps_low"].get<double>() / s["decode_tps"].get<double>() < cu["low"].get<double>());
  CHECK(s["decode_tps_high"].get<double>() / s["decode_tps"].get<double>() > cu["high"].get<double>());
  // The batched figures rest on the same efficiencies and never promise a user more than one user alone.
  const json& t = r["vllm"]["throughput"];
  CHECK(t["curve"]["per_user_tps"][0].get<double>() <= s["gen_avg_tps"].get<double>() * (1 + 1e-9));
  CHECK(t["aggregate_tps"].get<double>() > s["decode_tps"].get<double>());
  // llama.cpp on the same device still has no speed, and says why.
  const json l = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "intel-gaudi-3"}});
  CHECK_FALSE(l.contains("speed"));
  CHECK(l["speed_unavailable"]["engine"] == "llama.cpp");
}

TEST_CASE("an uncertain bandwidth widens the device-figures range and is named in its basis", "[serving_speed]") {
  // MetaX C500: the catalog marks its bandwidth and FP16 rate uncertain, with a low and high.
  const wif::Device* d = cat().find_device("metax-c500");
  REQUIRE(d);
  REQUIRE(d->facts["uncertain"].contains("bandwidth_gbs"));
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"},
                           {"hardware", "metax-c500"}, {"context", 8192}});
  REQUIRE(r.contains("speed"));
  const json& s = r["speed"];
  CHECK(s["decode_label"] == "device_figures");
  const json& u = s["basis"]["uncertain"];
  CHECK(std::find(u.begin(), u.end(), "bandwidth_gbs") != u.end());
  bool widened = false;
  for (const auto& w : s["device_uncertain"]) widened = widened || (w["field"] == "bandwidth_gbs" && w["range"] == "decode");
  const json& f = d->facts["uncertain"]["bandwidth_gbs"];
  if (f.contains("low") && f["low"].get<double>() < d->bandwidth_gbs) CHECK(widened);
  // Without the widening the low end would be the lowest backend's at its own range.
  double lo = 1e300;
  for (const auto& x : s["basis"]["from_backends"]) lo = std::min(lo, x["decode_tps"].get<double>());
  CHECK(s["decode_tps_low"].get<double>() < lo);
}

TEST_CASE("a server engine that does not run on the device gets a coded reason, not a speed", "[serving_speed]") {
  // SGLang on a MetaX C500: the engine table says no (data/engines.json), so either the request is
  // refused as an engine the device does not run, or the estimate says why it has no speed.
  const json r = json::parse(wif::api_estimate(cat(), json{{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "sglang"},
                                                             {"hardware", "metax-c500"}, {"context", 8192}}.dump()));
  INFO(r.dump().substr(0, 2000));
  if (r.contains("error")) {
    CHECK(r["error"]["code"].get<std::string>().find("engine") != std::string::npos);
  } else {
    CHECK_FALSE(r.contains("speed"));
    REQUIRE(r.contains("speed_unavailable"));
    CHECK(r["speed_unavailable"]["code"] == "engine_not_supported");
    CHECK(r["speed_unavailable"]["engine"] == "sglang");
  }
}

TEST_CASE("the cost of a token under vLLM on Gaudi 3 is priced on the device-figures speed", "[serving_speed]") {
  const json q = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"hardware", "intel-gaudi-3"},
                  {"context", 8192}, {"power_w", 900}, {"price_kwh_usd", 0.2}, {"hours_per_day", 24},
                  {"purchase_usd", 0}};
  const json c = json::parse(wif::api_cost(cat(), q.dump()));
  INFO(c.dump().substr(0, 3000));
  REQUIRE_FALSE(c.contains("error"));
  const json e = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"hardware", "intel-gaudi-3"}, {"context", 8192}});
  const double tps = e["speed"]["decode_tps"].get<double>();
  const json& o = c["owned"];
  CHECK_THAT(o["decode_tps"].get<double>(), WithinRel(tps, 1e-9));
  // 0.9 kW x 0.20 USD/kWh = 0.18 USD an hour, over tps x 3600 tokens an hour, per million.
  CHECK_THAT(o["electricity_only_per_million_tokens_usd"]["single"].get<double>(), WithinRel(0.18 / (tps * 3600.0) * 1e6, 1e-6));
}

}  // namespace serving_speed_test_cases
