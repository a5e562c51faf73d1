#include <catch2/catch.hpp>

#include <cstdio>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/speed/server_throughput.hpp"

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
