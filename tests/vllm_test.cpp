#include <catch2/catch.hpp>

#include <cstdio>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/servers/vllm.hpp"

namespace vllm_test_cases {

using namespace wif;
using nlohmann::json;
using Catch::Matchers::WithinRel;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;
const Architecture& arch(const char* id) { return wif_test::catalog_arch(id); }
}  // namespace

TEST_CASE("DeepSeek V3 on 8x H200 under vLLM reports per-GPU weights and concurrency", "[vllm]") {
  const json r = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"},
                           {"hardware", "nvidia-h200-sxm"}, {"count", 8}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["verdict"] == "fits");
  CHECK(r["quant"]["id"] == "FP8");  // the checkpoint's own format
  const auto& v = r["vllm"];
  CHECK(v["settings"]["tensor_parallel"] == 8);
  CHECK(v["settings"]["max_model_len"] == 163840);
  const double w = v["per_gpu"]["weights_bytes"].get<double>() / wif_test::kGiB;
  // 671B main-model parameters at ~1 byte (FP8 + block scales, BF16 embeddings) over 8 ranks.
  CHECK(w > 75);
  CHECK(w < 85);
  // MLA: one 576-wide latent per token per layer in bf16, not split by TP: 61 x 1152 B.
  CHECK(v["kv_bytes_per_token"] == 61 * 1152);
  CHECK(v["max_concurrency"].get<double>() > 2.0);
  CHECK(v["max_concurrency"].get<double>() < 8.0);
  CHECK(r["memory"]["devices"].size() == 8);
  std::printf("  DeepSeek-V3 8xH200: weights/GPU %.2f GiB, activation %.2f GiB, KV %.2f GiB, %lld tokens, "
              "concurrency %.2fx at %lld\n", w, v["per_gpu"]["activation_bytes"].get<double>() / wif_test::kGiB,
              v["per_gpu"]["kv_available_bytes"].get<double>() / wif_test::kGiB, v["kv_tokens"].get<long long>(),
              v["max_concurrency"].get<double>(), v["settings"]["max_model_len"].get<long long>());
}

TEST_CASE("the MLA latent is the same on every rank while GQA heads split across ranks", "[vllm]") {
  const Architecture& ds = arch("deepseek-ai/DeepSeek-V3-0324");
  const TensorPlan fp8 = plan_quantization(ds, "FP8");
  VllmOptions o;
  o.max_model_len = 32768;
  o.tensor_parallel = 4;
  const auto b4 = vllm_budget(ds, fp8, 140, o);
  o.tensor_parallel = 8;
  const auto b8 = vllm_budget(ds, fp8, 140, o);
  CHECK(b4.kv_bytes_per_token == b8.kv_bytes_per_token);
  CHECK(b8.weights_bytes < b4.weights_bytes);

  const Architecture& ll = arch("meta-llama/Llama-3.1-8B-Instruct");
  const TensorPlan bf16 = plan_quantization(ll, "SAFETENSORS-BF16");
  o = VllmOptions{};
  o.max_model_len = 8192;
  const auto t1 = vllm_budget(ll, bf16, 23.65, o);
  o.tensor_parallel = 2;
  const auto t2 = vllm_budget(ll, bf16, 23.65, o);
  CHECK(t1.kv_bytes_per_token == 32u * 2 * 8 * 128 * 2);  // 128 KiB per token
  CHECK(t2.kv_bytes_per_token * 2 == t1.kv_bytes_per_token);
  o.kv_cache_dtype = "fp8";
  CHECK(vllm_budget(ll, bf16, 23.65, o).kv_bytes_per_token * 2 == t2.kv_bytes_per_token);
  o.tensor_parallel = 3;  // 32 heads are not divisible by 3
  CHECK_THROWS_AS(vllm_budget(ll, bf16, 23.65, o), InputError);
}

TEST_CASE("a max_model_len that does not fit comes back with the longest one that does", "[vllm]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"},
                           {"hardware", "nvidia-rtx-3090"}, {"context", 131072}, {"gpu_memory_utilization", 0.9}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["verdict"] == "no_fit");
  const auto& v = r["vllm"];
  CHECK(v["max_concurrency"].get<double>() < 1.0);
  REQUIRE(v.contains("fit"));
  const auto fit_len = v["fit"]["settings"]["max_model_len"].get<std::int64_t>();
  CHECK(fit_len <= v["max_model_len_fit"].get<std::int64_t>());
  CHECK(v["fit"]["max_concurrency"].get<double>() >= 1.0);
  // The command carries the length that fits.
  CHECK(r["commands"]["vllm"].get<std::string>().find("--max-model-len " + std::to_string(fit_len)) != std::string::npos);
}

// Calibration: rows of calibration/vllm_memory.jsonl that name a catalog model and a GPU (or
// state the KV bytes directly). Each row's error is printed; all must be within 10%.
TEST_CASE("vLLM KV capacity is within 10% of the mappable calibration rows", "[vllm][calibration]") {
  const auto rows = wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/vllm_memory.jsonl");
  auto row = [&](const char* id) {
    for (const auto& r : rows)
      if (r["row_id"] == id) return r;
    FAIL("row " << id << " missing");
    return json{};
  };
  struct Case { const char* row; const char* model; const char* gpu; double util; std::int64_t len; bool v0; const char* field; };
  const Case cases[] = {
      {"vllm-0001", "meta-llama/Llama-3.1-8B-Instruct", "nvidia-rtx-3090", 0.9, 20000, true, "gpu_blocks"},
      {"vllm-0002", "meta-llama/Llama-3.1-8B-Instruct", "nvidia-rtx-3090", 0.9, 29000, true, "gpu_blocks"},
      {"vllm-0012", "Qwen/Qwen3-8B", "nvidia-rtx-5090", 0.92, 32768, false, "kv_cache_tokens"},
      {"vllm-0020", "meta-llama/Llama-2-7b-hf", "nvidia-a100-80gb-sxm", 0.9, 4096, true, "gpu_blocks"},
      {"vllm-0021", "meta-llama/Llama-2-7b-hf", "nvidia-a100-80gb-sxm", 0.9, 4096, true, "gpu_blocks"},
  };
  double worst = 0;
  for (const auto& c : cases) {
    CAPTURE(c.row);
    const json r = row(c.row);
    const Architecture& a = arch(c.model);
    const TensorPlan plan = plan_quantization(a, a.native_dtype == "fp16" ? "SAFETENSORS-FP16" : "SAFETENSORS-BF16");
    VllmOptions o;
    o.gpu_memory_utilization = c.util;
    o.max_model_len = c.len;
    o.v0_profile = c.v0;
    const Device* d = cat().find_device(c.gpu);
    REQUIRE(d);
    const auto b = vllm_budget(a, plan, usable_memory(*d).usable_bytes / wif_test::kGiB, o);
    const double measured = r[c.field].get<double>();
    const double predicted = std::string(c.field) == "gpu_blocks" ? static_cast<double>(b.num_blocks) : static_cast<double>(b.kv_tokens);
    const double err = (predicted - measured) / measured;
    std::printf("  %s %-34s %-22s measured %9.0f %-15s predicted %9.0f  error %+6.2f%%\n", c.row, c.model, c.gpu,
                measured, c.field, predicted, 100 * err);
    worst = std::max(worst, std::abs(err));
    CHECK(std::abs(err) < 0.10);
  }
  // Rows that only state KV bytes and tokens: the page arithmetic itself.
  {
    const json r = row("vllm-0004");  // Qwen3-14B: 6.51 GiB hold 42656 tokens
    VllmOptions o;
    o.max_model_len = 32768;
    const auto b = vllm_budget(arch("Qwen/Qwen3-14B"), plan_quantization(arch("Qwen/Qwen3-14B"), "SAFETENSORS-BF16"), 80, o);
    const double predicted = r["available_kv_cache_gib"].get<double>() * wif_test::kGiB / static_cast<double>(b.kv_bytes_per_token);
    const double err = (predicted - r["kv_cache_tokens"].get<double>()) / r["kv_cache_tokens"].get<double>();
    std::printf("  vllm-0004 Qwen3-14B tokens in 6.51 GiB: measured %.0f predicted %.0f error %+.2f%%\n",
                r["kv_cache_tokens"].get<double>(), predicted, 100 * err);
    worst = std::max(worst, std::abs(err));
    CHECK(std::abs(err) < 0.01);
  }
  {
    const json r = row("vllm-0015");  // SGLang Qwen3-30B-A3B: K pool 76.44 (GiB) for 1669816 tokens
    VllmOptions o;
    o.max_model_len = 32768;
    const auto b = vllm_budget(arch("Qwen/Qwen3-30B-A3B"), plan_quantization(arch("Qwen/Qwen3-30B-A3B"), "SAFETENSORS-BF16"), 280, o);
    const double predicted_k = static_cast<double>(b.kv_bytes_per_token) / 2 * r["kv_cache_tokens"].get<double>() / wif_test::kGiB;
    const double err = (predicted_k - r["k_size_gb"].get<double>()) / r["k_size_gb"].get<double>();
    std::printf("  vllm-0015 Qwen3-30B-A3B K pool: measured %.2f predicted %.2f GiB error %+.2f%%\n",
                r["k_size_gb"].get<double>(), predicted_k, 100 * err);
    worst = std::max(worst, std::abs(err));
    CHECK(std::abs(err) < 0.01);
  }
  std::printf("  vLLM rows: worst KV capacity error %.2f%%\n", 100 * worst);
}

TEST_CASE("DeepSeek V3 on 8x H200: the weights over the GPUs exceed the checkpoint by what every GPU keeps whole", "[vllm][replicated]") {
  const json r = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"},
                           {"hardware", "nvidia-h200-sxm"}, {"count", 8}});
  REQUIRE_FALSE(r.contains("error"));
  const json& v = r["vllm"];
  const double per = v["per_gpu"]["weights_bytes"].get<double>();
  const double rep = v["per_gpu"]["replicated_weights_bytes"].get<double>();
  const double loaded = v["weights"]["loaded_bytes"].get<double>();
  const double extra = v["weights"]["extra_copies_bytes"].get<double>();
  // The split part once plus the replicated part on each of 8 ranks: 8 x per = loaded + 7 x rep.
  CHECK_THAT(8 * per, WithinRel(loaded + 7 * rep, 1e-6));
  CHECK_THAT(extra, WithinRel(8 * per - loaded, 1e-6));
  CHECK_THAT(r["memory"]["weights_bytes"].get<double>(), WithinRel(loaded + extra, 1e-6));
  // No MTP layer in this catalog entry: the checkpoint is what loads.
  CHECK(r["checkpoint_unloaded_bytes"] == 0);
  CHECK_THAT(r["checkpoint_bytes"].get<double>(), WithinRel(loaded, 1e-9));
  // The parts add up to the replicated figure; MLA's down projections (q_a 7168x1536 and
  // kv_a_mqa 7168x576 per layer, FP8) are most of it, the MoE routers next.
  double sum = 0;
  for (const auto& [k, b] : v["weights"]["replicated_parts"].items()) sum += b.get<double>();
  CHECK_THAT(sum, WithinRel(rep, 1e-6));
  const double mla = v["weights"]["replicated_parts"]["mla_down"].get<double>();
  CHECK(mla > 61.0 * 7168 * 2112 * 0.99);  // at least one byte a weight
  CHECK(mla / rep > 0.7);
  CHECK(v["weights"]["replicated_parts"].contains("router"));
  // The reviewers' 7.4 GiB: the seven extra copies of those parts.
  CHECK(extra / wif_test::kGiB > 7.0);
  CHECK(extra / wif_test::kGiB < 8.0);
  std::printf("  DeepSeek-V3 8xH200 weights: %.2f GiB per GPU, %.3f GiB replicated (mla_down %.3f), checkpoint %.2f GiB, "
              "+%.2f GiB over 8 GPUs\n", per / wif_test::kGiB, rep / wif_test::kGiB, mla / wif_test::kGiB,
              loaded / wif_test::kGiB, extra / wif_test::kGiB);
}

TEST_CASE("MLA's cache is kept whole on every tensor-parallel rank; GQA's only past its KV heads", "[vllm][replicated]") {
  const json ds = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"},
                            {"hardware", "nvidia-h200-sxm"}, {"count", 8}});
  REQUIRE_FALSE(ds.contains("error"));
  CHECK(ds["vllm"]["kv_copies"] == 8);
  CHECK(ds["vllm"]["kv_copies_code"] == "mla_latent");
  // The pool on the page: per GPU, and the 8 copies in all.
  CHECK(ds["memory"]["kv_pool_bytes"].get<double>() == 8 * ds["vllm"]["per_gpu"]["kv_available_bytes"].get<double>());
  // SGLang keeps the same latent on every rank.
  const json sg = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "sglang"},
                            {"hardware", "nvidia-h200-sxm"}, {"count", 8}});
  REQUIRE_FALSE(sg.contains("error"));
  CHECK(sg["sglang"]["kv_copies"] == 8);

  // Llama 3.3 70B has 8 KV heads: split over 4 GPUs, two copies of each over 16.
  const json l4 = estimate({{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"engine", "vllm"}, {"quant", "FP8"},
                            {"hardware", "nvidia-h100-sxm"}, {"count", 4}, {"context", 32768}});
  REQUIRE_FALSE(l4.contains("error"));
  CHECK(l4["vllm"]["kv_copies"] == 1);
  CHECK(l4["vllm"]["kv_copies_code"] == "none");
  const Architecture& ll = arch("meta-llama/Llama-3.3-70B-Instruct");
  VllmOptions o;
  o.max_model_len = 8192;
  o.tensor_parallel = 16;
  const auto b16 = vllm_budget(ll, plan_quantization(ll, "FP8"), 80, o);
  CHECK(b16.kv_copies == 2);
  CHECK(b16.kv_copies_code == "kv_heads_below_tp");
  // …and the K/V projections join what every rank keeps (in part).
  bool kv_part = false;
  for (const auto& [k, b] : b16.weights.parts) kv_part = kv_part || (k == "kv_heads" && b > 0);
  CHECK(kv_part);
}

TEST_CASE("batched throughput never gives a user more than the one-user estimate beside it", "[vllm][throughput]") {
  // DeepSeek-V3 keeps the layer-split one-user figure (no MoE tensor-parallel row to check a
  // step); the serving model alone gave each of 4 users 128 tok/s beside a 78 tok/s one-user
  // estimate. Capped: every per-user figure is at most the estimate, aggregates follow.
  const json r = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"},
                           {"hardware", "nvidia-h200-sxm"}, {"count", 8}});
  REQUIRE_FALSE(r.contains("error"));
  const json& t = r["vllm"]["throughput"];
  const double one = r["speed"]["gen_avg_tps"].get<double>();
  REQUIRE(t.contains("single_user_cap_tps"));
  CHECK(t["single_user_cap_tps"] == one);
  CHECK(t["per_user_tps"].get<double>() <= one);
  CHECK(t["capped"] == (t["per_user_tps"].get<double>() == one));
  // At 32K the pool holds 20 requests, each slower than one alone: the curve's first points are
  // capped, the requested point is not, and the card must not say it is.
  const json r32 = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"},
                             {"hardware", "nvidia-h200-sxm"}, {"count", 8}, {"context", 32768}});
  CHECK(r32["vllm"]["throughput"]["capped"] == false);
  CHECK(r32["vllm"]["throughput"]["curve"]["per_user_tps"][0] == r32["vllm"]["throughput"]["single_user_cap_tps"]);
  for (std::size_t i = 0; i < t["curve"]["per_user_tps"].size(); ++i) {
    CHECK(t["curve"]["per_user_tps"][i].get<double>() <= one);
    CHECK_THAT(t["curve"]["aggregate_tps"][i].get<double>(),
               WithinRel(t["curve"]["per_user_tps"][i].get<double>() * t["curve"]["concurrency"][i].get<double>(), 1e-9));
  }
  // A dense model under tensor parallelism: its one-user figure is the same serving step, no cap.
  const json l = estimate({{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"engine", "vllm"}, {"quant", "FP8"},
                           {"hardware", "nvidia-h100-sxm"}, {"count", 4}, {"context", 32768}});
  REQUIRE_FALSE(l.contains("error"));
  CHECK_FALSE(l["vllm"]["throughput"].contains("single_user_cap_tps"));
}

// Issue 16: under vLLM with an fp8 cache the spec card showed llama.cpp's f16 per-token figure.
// memory.kv.bytes_per_token is the engine's own at its cache dtype, and agrees with the KV row
// (the stated sequences' need); with sliding-window layers it covers the layers that grow.
TEST_CASE("the per-token cache figure is the server engine's own at its cache dtype", "[vllm][kv]") {
  const auto run = [](const char* model, const char* engine, const char* dtype) {
    json q = {{"model", model}, {"hardware", "nvidia-h100-sxm"}, {"engine", engine}, {"context", 8192}};
    if (dtype) q["kv_cache_dtype"] = dtype;
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    return r;
  };
  // Llama 3.1 8B: 32 full-attention layers x 8 KV heads x 128 x (K + V).
  const json lcpp = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-h100-sxm"}, {"quant", "Q4_K_M"}, {"context", 8192}});
  const json aut = run("meta-llama/Llama-3.1-8B-Instruct", "vllm", nullptr);
  const json fp8 = run("meta-llama/Llama-3.1-8B-Instruct", "vllm", "fp8");
  CHECK(aut["memory"]["kv"]["bytes_per_token"] == 32 * 8 * 128 * 2 * 2);
  CHECK(aut["memory"]["kv"]["bytes_per_token"] == lcpp["memory"]["kv"]["bytes_per_token"]);  // bf16 = f16 in size
  CHECK(fp8["memory"]["kv"]["bytes_per_token"].get<double>() == aut["memory"]["kv"]["bytes_per_token"].get<double>() / 2);
  CHECK(fp8["memory"]["kv"]["element_bytes"] == 1);
  CHECK(fp8["memory"]["kv"]["cache_type"] == "fp8");
  CHECK(aut["memory"]["kv"]["cache_type"] == "bfloat16");
  CHECK(lcpp["memory"]["kv"]["cache_type"] == "f16");
  CHECK(fp8["memory"]["kv"]["bytes_per_token_covers"] == "all_layers");
  // The card agrees with the KV row: per token x context x sequences is the sequences' need.
  for (const json* r : {&aut, &fp8}) {
    const json& dem = (*r)["vllm"]["demand"];
    const double per = (*r)["memory"]["kv"]["bytes_per_token"].get<double>();
    CHECK_THAT(per * dem["context"].get<double>() * dem["sequences"].get<double>(),
               WithinRel((*r)["memory"]["kv_cache_bytes"].get<double>(), 0.01));
  }
  // gpt-oss-20b: 12 of its 24 layers keep a 128-token window under vLLM; the figure covers the
  // 12 full-attention layers and says so. SGLang's cell keeps every token on all 24.
  const json oss = run("openai/gpt-oss-20b", "vllm", nullptr);
  CHECK(oss["memory"]["kv"]["bytes_per_token_covers"] == "growing_layers");
  CHECK(oss["memory"]["kv"]["fixed_layers"] == 12);
  CHECK(oss["memory"]["kv"]["bytes_per_token"] == 12 * 8 * 64 * 2 * 2);
  const json osg = run("openai/gpt-oss-20b", "sglang", nullptr);
  CHECK(osg["memory"]["kv"]["bytes_per_token_covers"] == "all_layers");
  CHECK(osg["memory"]["kv"]["bytes_per_token"] == osg["sglang"]["kv_bytes_per_token"]);
  CHECK(osg["memory"]["kv"]["bytes_per_token"] == 24 * 8 * 64 * 2 * 2);
}

}  // namespace vllm_test_cases
