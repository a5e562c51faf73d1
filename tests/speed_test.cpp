#include <catch2/catch.hpp>

#include "test_util.hpp"

#include <cmath>

#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/speed/speed.hpp"

namespace speed_test_cases {

using namespace wif;
using Catch::Matchers::WithinRel;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
const Architecture& arch(const char* id) {
  const ModelEntry* m = cat().find_model(id);
  REQUIRE(m != nullptr);
  return m->arch;
}
// An ideal 1 TB/s, 100 TFLOPS GPU: full bandwidth, no launch cost, no quant penalty.
Device ideal_gpu(double gbs = 1000) {
  Device d;
  d.id = "ideal";
  d.kind = DeviceKind::Gpu;
  d.bandwidth_gbs = gbs;
  d.fp16_tflops = 100;
  d.backend = "cuda";
  return d;
}
SpeedCoefficients ideal_coeffs() {
  SpeedCoefficients c;
  c.backends["cuda"] = BackendSpeed{1.0, 0.0, 1.0, true};
  return c;
}
}  // namespace

TEST_CASE("a dense 8B Q4_0 model on a 1 TB/s GPU decodes at bandwidth over the bytes it reads", "[speed]") {
  const Architecture& a = arch("meta-llama/Meta-Llama-3-8B");
  const TensorPlan p = plan_quantization(a, "Q4_0");
  // By hand: every tensor once, except the embedding table, of which one row is looked up.
  double bytes = 0;
  for (const auto& t : p.tensors)
    bytes += t.role == TensorRole::TokenEmbd ? static_cast<double>(t.bytes) / 128256.0 : static_cast<double>(t.bytes);
  const ModelWork w = model_work(a, p);
  CHECK_THAT(w.decode_weight_bytes, WithinRel(bytes, 1e-9));
  // Q4_0 (4.5 bits) body with a Q6_K output head: about 4.3 GB, so about 230 tokens/s.
  CHECK(bytes > 4.0e9);
  CHECK(bytes < 4.6e9);
  const SpeedResult s = estimate_speed(a, p, ideal_gpu(), KvOptions{}, SpeedOptions{}, ideal_coeffs());
  CHECK_THAT(s.decode_tps, WithinRel(1e12 / bytes, 1e-9));
  CHECK(w.layers == 32);
  // Prefill: 2 x (params without embedding and output head) per token; ~7B -> ~14 GFLOP per token.
  CHECK(w.matmul_flops > 13.0e9);
  CHECK(w.matmul_flops < 14.5e9);
}

TEST_CASE("Llama 3 8B reads 128 KiB of f16 KV cache per token of context", "[speed]") {
  const Architecture& a = arch("meta-llama/Meta-Llama-3-8B");
  // 32 layers x 8 KV heads x 128 dims x (K + V) x 2 bytes.
  CHECK(kv_read_bytes(a, KvOptions{}, 4096) == Approx(32.0 * 8 * 128 * 2 * 2 * 4096));
  CHECK(kv_read_bytes(a, KvOptions{}, 0) == 0);
  // Only the layers a device holds: half the layers, half the bytes.
  const double half = kv_read_bytes(a, KvOptions{}, 4096, [](std::int64_t l) { return l < 16; });
  CHECK_THAT(half, WithinRel(kv_read_bytes(a, KvOptions{}, 4096) / 2, 1e-12));
}

TEST_CASE("causal attention FLOPs over a prompt follow the triangle sum", "[speed]") {
  const Architecture& a = arch("meta-llama/Meta-Llama-3-8B");
  // 32 layers x 2 FLOP x 32 heads x (128 + 128) x sum_{p=1..512} p.
  CHECK_THAT(attention_flops(a, 512, 0), WithinRel(32.0 * 2 * 32 * 256 * (512.0 * 513 / 2), 1e-12));
  CHECK(attention_flops(a, 512, 4096) > attention_flops(a, 512, 0));
}

TEST_CASE("an MoE model's decode reads only the experts it routes to", "[speed]") {
  const Architecture& a = arch("Qwen/Qwen3-30B-A3B");
  const TensorPlan p = plan_quantization(a, "Q8_0");
  double experts = 0, rest = 0, embd_row = 0;
  for (const auto& t : p.tensors) {
    if (t.role == TensorRole::TokenEmbd) embd_row = static_cast<double>(t.bytes) / static_cast<double>(t.ne[1]);
    else if (t.is_expert()) experts += static_cast<double>(t.bytes);
    else rest += static_cast<double>(t.bytes);
  }
  const ModelWork w = model_work(a, p);
  CHECK_THAT(w.decode_weight_bytes, WithinRel(rest + embd_row + experts * 8.0 / 128.0, 1e-9));
  CHECK(w.decode_weight_bytes < 0.15 * static_cast<double>(p.weights_bytes));
  // A prefill micro-batch touches every expert.
  CHECK(w.pass_weight_bytes > 0.95 * (rest + experts));
}

TEST_CASE("sliding-window layers read at most their window however deep the context", "[speed]") {
  const Architecture& a = arch("openai/gpt-oss-20b");
  const double full_per_tok = (kv_read_bytes(a, KvOptions{}, 200000) - kv_read_bytes(a, KvOptions{}, 100000)) / 100000;
  // gpt-oss-20b: 12 of its 24 layers attend fully (8 KV heads x 64 dims x K,V x 2 bytes).
  CHECK_THAT(full_per_tok, WithinRel(12.0 * 8 * 64 * 2 * 2, 1e-9));
}

TEST_CASE("more bandwidth is never slower", "[speed]") {
  const Architecture& a = arch("zai-org/GLM-4.5-Air");
  const TensorPlan p = plan_quantization(a, "Q4_K_M");
  const SpeedCoefficients c = speed_coefficients(cat());
  double last_dec = 0, last_pre = 0;
  for (double gbs : {100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0}) {
    CAPTURE(gbs);
    const SpeedResult s = estimate_speed(a, p, ideal_gpu(gbs), KvOptions{}, SpeedOptions{}, c);
    CHECK(s.decode_tps > last_dec);
    CHECK(s.prefill_tps >= last_pre);
    last_dec = s.decode_tps;
    last_pre = s.prefill_tps;
  }
}

TEST_CASE("a deeper context never decodes faster", "[speed]") {
  for (const char* id : {"meta-llama/Meta-Llama-3-8B", "openai/gpt-oss-20b", "Qwen/Qwen3-Next-80B-A3B-Instruct",
                         "deepseek-ai/DeepSeek-V3-0324"}) {
    CAPTURE(id);
    const Architecture& a = arch(id);
    const SpeedResult s = estimate_speed(a, plan_quantization(a, "Q4_K_M"), ideal_gpu(), KvOptions{},
                                         SpeedOptions{}, speed_coefficients(cat()));
    REQUIRE(s.curve_tps.size() == s.curve_depth.size());
    for (std::size_t i = 1; i < s.curve_tps.size(); ++i) CHECK(s.curve_tps[i] <= s.curve_tps[i - 1]);
  }
}

TEST_CASE("time to first token is the prompt over the prefill rate", "[speed]") {
  const Architecture& a = arch("meta-llama/Meta-Llama-3-8B");
  SpeedOptions o;
  o.prompt = 4096;
  o.gen = 256;
  const SpeedResult s = estimate_speed(a, plan_quantization(a, "Q4_K_M"), ideal_gpu(), KvOptions{}, o,
                                       speed_coefficients(cat()));
  REQUIRE(s.prefill_available);
  CHECK_THAT(s.ttft_ms, WithinRel(4096.0 / s.prefill_tps * 1000.0, 1e-9));
  CHECK(s.total_ms > s.ttft_ms + 256.0 / s.decode_tps * 1000.0 * 0.99);
  CHECK(s.decode_tps_low < s.decode_tps);
  CHECK(s.decode_tps_high > s.decode_tps);
}

TEST_CASE("the estimate document carries speed for prompt, gen and depth", "[speed]") {
  const json r = json::parse(api_estimate(cat(), json{{"model", "meta-llama/Meta-Llama-3-8B"}, {"quant", "Q4_0"},
                                                      {"hardware", "nvidia-rtx-4090"}, {"prompt", 1024},
                                                      {"gen", 64}, {"depth", 2048}}.dump()));
  REQUIRE_FALSE(r.contains("error"));
  const json& s = r["speed"];
  CHECK(s["depth"] == 2048);
  for (const char* k : {"decode_tps", "decode_tps_low", "decode_tps_high", "prefill_tps", "prefill_tps_low",
                        "prefill_tps_high", "ttft_ms"}) {
    CAPTURE(k);
    REQUIRE(s.contains(k));
    CHECK(std::isfinite(s[k].get<double>()));
    CHECK(s[k].get<double>() > 0);
  }
  // RTX 4090 (1008 GB/s), Llama 3 8B Q4_0: published llama-bench tg128 runs are 150-190 t/s.
  CHECK(s["decode_tps"].get<double>() > 120);
  CHECK(s["decode_tps"].get<double>() < 220);
  const json bad = json::parse(api_estimate(cat(), json{{"model", "meta-llama/Meta-Llama-3-8B"},
                                                        {"hardware", "nvidia-rtx-4090"}, {"prompt", 0}}.dump()));
  CHECK(bad["error"]["path"] == "prompt");
}

TEST_CASE("speed.json loads with a coefficient set for every backend class", "[speed]") {
  const SpeedCoefficients c = speed_coefficients(cat());
  for (const char* b : {"cuda", "metal", "rocm", "vulkan", "cpu"}) {
    CAPTURE(b);
    CHECK(c.backends.count(b) == 1);
  }
  CHECK(c.decode_low < 1.0);
  CHECK(c.decode_high > 1.0);
  CHECK_THROWS_AS(speed_coefficients_from_json(json{{"backends", json::array({{{"id", "cuda"}}})}}, "speed.json"),
                  InputError);
}

TEST_CASE("linear-attention layers pay their own fixed cost per decode step and per 64-token prefill chunk", "[speed]") {
  const Architecture& a = arch("Qwen/Qwen3-Next-80B-A3B-Instruct");
  const TensorPlan p = plan_quantization(a, "Q4_K_M");
  const ModelWork w = model_work(a, p);
  // Qwen3-Next: 48 layers, a full-attention layer every fourth (full_attention_interval 4).
  CHECK(w.layers == 48);
  CHECK(w.linear_layers == 36);
  SpeedCoefficients c = ideal_coeffs();
  c.backends["cuda"].layer_us = 10;
  const DeviceRates plain = device_rates(ideal_gpu(), "cuda", "kquant", c);
  c.linear_step_layers = 2;
  c.linear_chunk_layers = 3;
  const DeviceRates lin = device_rates(ideal_gpu(), "cuda", "kquant", c);
  // Decode: 36 linear layers x 2 x 10 us more per step.
  const double d0 = decode_step(w, 0, plain).total_s, d1 = decode_step(w, 0, lin).total_s;
  CHECK_THAT(d1 - d0, WithinRel(36 * 2 * 10e-6, 1e-9));
  // Prefill of 1024 tokens in micro-batches of 512: 2 passes x 8 chunks x 36 layers x 3 x 10 us.
  const double p0 = prefill_time(w, 0, 1024, 512, plain).total_s, p1 = prefill_time(w, 0, 1024, 512, lin).total_s;
  CHECK_THAT(p1 - p0, WithinRel(2 * 8 * 36 * 3 * 10e-6, 1e-9));
  // A model without linear-attention layers is unchanged.
  const Architecture& dense = arch("meta-llama/Meta-Llama-3-8B");
  const ModelWork wd = model_work(dense, plan_quantization(dense, "Q4_0"));
  CHECK(wd.linear_layers == 0);
  CHECK(decode_step(wd, 0, plain).total_s == decode_step(wd, 0, lin).total_s);
}

TEST_CASE("a backend's own range within a group is used when the fit set one, else the group's", "[speed]") {
  SpeedCoefficients c = ideal_coeffs();
  c.ranges["pp/single"] = SpeedRange{0.7, 1.4, 100};
  c.ranges["pp/single/cuda"] = SpeedRange{0.9, 1.1, 40};
  CHECK(speed_range(c, "pp", "single", "cuda").low == 0.9);
  CHECK(speed_range(c, "pp", "single", "metal").low == 0.7);
  CHECK(speed_range(c, "pp", "single").high == 1.4);
  const Architecture& a = arch("meta-llama/Meta-Llama-3-8B");
  const SpeedResult s = estimate_speed(a, plan_quantization(a, "Q4_0"), ideal_gpu(), KvOptions{}, SpeedOptions{}, c);
  CHECK_THAT(s.prefill_tps_low, WithinRel(0.9 * s.prefill_tps, 1e-12));
  CHECK_THAT(s.prefill_tps_high, WithinRel(1.1 * s.prefill_tps, 1e-12));
}

TEST_CASE("Vulkan and SYCL device classes name the vendor and the device kind", "[speed]") {
  Device d = ideal_gpu();
  d.vendor = "AMD";
  d.kind = DeviceKind::Unified;
  CHECK(device_class_key(d, "vulkan") == "vulkan/amd/unified");
  d.kind = DeviceKind::Gpu;
  CHECK(device_class_key(d, "vulkan") == "vulkan/amd/gpu");
  CHECK(device_class_key(d, "rocm") == "rocm/gpu");
}

TEST_CASE("a GPU without tensor cores prefills at its dp4a or FP32 rate, by backend, compute capability and weights", "[speed]") {
  // Before compute capability 7.0 the tensor rate does not exist: llama.cpp's CUDA MMQ kernels
  // multiply quantized weights with dp4a from 6.1 on, everything else runs in FP32.
  Device d = ideal_gpu();
  d.fp16_tflops = 0.18;
  d.fp32_tflops = 11.76;
  d.int8_tops = 47.0;
  d.cuda_compute_capability = 6.1;
  const SpeedCoefficients c = ideal_coeffs();
  auto [cc, backend, family, peak, kind] = GENERATE(table<double, const char*, const char*, double, const char*>({
      {6.1, "cuda", "legacy", 47.0, "dp4a_int8"},
      {6.1, "cuda", "kquant", 47.0, "dp4a_int8"},
      {6.1, "cuda", "f16", 11.76, "fp32"},       // F16/BF16 weights: FP32 GEMM, not the 1/64 FP16 rate
      {6.1, "vulkan", "legacy", 11.76, "fp32"},  // no dp4a path on Vulkan
      {5.2, "cuda", "legacy", 11.76, "fp32"},    // Maxwell: no dp4a
      {7.5, "cuda", "legacy", 0.18, "tensor"},   // from Turing on, fp16_tflops is the tensor rate
  }));
  CAPTURE(cc, backend, family);
  d.cuda_compute_capability = cc;
  SpeedCoefficients k = c;
  k.backends["vulkan"] = k.backends["cuda"];
  const DeviceRates r = device_rates(d, backend, family, k);
  CHECK_THAT(r.peak_tflops, WithinRel(peak, 1e-12));
  CHECK(r.peak_kind == kind);
  CHECK_THAT(r.flops_s, WithinRel(peak * 1e12, 1e-12));
}

// Issue 19 (accuracy outliers): an AMD GPU without matrix cores (Vega 20, gfx906: Instinct MI50
// and MI60) runs llama.cpp's ROCm MMQ kernels on v_dot4_i32_i8 at its INT8 rate, not its packed
// FP16 rate; dp4a kernels of every backend share one efficiency factor (speed.json peak_kind_eff).
TEST_CASE("a gfx906 GPU prefills quantized weights at its dp4a INT8 rate under ROCm, F16 weights and other targets as before", "[speed]") {
  Device d = ideal_gpu();
  d.vendor = "AMD";
  d.backend = "rocm";
  d.fp16_tflops = 26.8;
  d.int8_tops = 53.6;
  SpeedCoefficients k;
  k.backends["rocm"] = BackendSpeed{1.0, 0.0, 1.0, true};
  k.backends["vulkan"] = k.backends["rocm"];
  k.peak_kind_eff["dp4a_int8"] = 0.5;
  auto [gfx, backend, family, peak, kind, share] = GENERATE(table<const char*, const char*, const char*, double, const char*, double>({
      {"gfx906", "rocm", "legacy", 53.6, "dp4a_int8", 0.5},
      {"gfx906", "rocm", "kquant", 53.6, "dp4a_int8", 0.5},
      {"gfx906", "rocm", "f16", 26.8, "tensor", 1.0},     // F16 weights: hipBLAS at the packed FP16 rate
      {"gfx906", "vulkan", "legacy", 26.8, "tensor", 1.0}, // the rule is ROCm's MMQ path
      {"gfx908", "rocm", "legacy", 26.8, "tensor", 1.0},  // CDNA1: matrix cores (MFMA)
      {"", "rocm", "legacy", 26.8, "tensor", 1.0},        // target not stated: as stated
  }));
  CAPTURE(gfx, backend, family);
  d.facts = nlohmann::json::object();
  if (*gfx) d.facts["amd_gfx_target"] = gfx;
  const DeviceRates r = device_rates(d, backend, family, k);
  CHECK_THAT(r.peak_tflops, WithinRel(peak, 1e-12));
  CHECK(r.peak_kind == kind);
  CHECK_THAT(r.flops_s, WithinRel(peak * 1e12 * share, 1e-12));
}

// Issue 19 (accuracy outliers): on CDNA llama.cpp's ROCm build runs Q4_0, Q4_1, Q5_0 and Q5_1 through
// its MMQ kernels at every batch size, on MFMA i8 instructions; the fitted efficiencies are against
// fp16_tflops on GPUs whose INT8 matrix rate is twice it, and CDNA1/2 run INT8 at their FP16 rate, so
// those weights get int8_tops / 2 there. By hand: MI100 184.6 / 2 = 92.3, MI210 181 / 2 = 90.5.
TEST_CASE("CDNA1/2 prefill Q4_0-family weights at half their INT8 rate under ROCm, other weights and GPUs as before", "[speed]") {
  Device d = ideal_gpu();
  d.vendor = "AMD";
  d.backend = "rocm";
  SpeedCoefficients k;
  k.backends["rocm"] = BackendSpeed{1.0, 0.0, 1.0, true};
  k.backends["vulkan"] = k.backends["rocm"];
  auto [fp16, int8, backend, mmq, peak] = GENERATE(table<double, double, const char*, bool, double>({
      {184.6, 184.6, "rocm", true, 92.3},     // MI100 (CDNA1)
      {181.0, 181.0, "rocm", true, 90.5},     // MI210 (CDNA2)
      {184.6, 184.6, "rocm", false, 184.6},   // K-quants at 512-row batches: FP16 GEMMs (hipBLAS)
      {184.6, 184.6, "vulkan", true, 184.6},  // the rule is ROCm's MMQ path
      {194.6, 389.5, "rocm", true, 194.6},    // RX 9070 XT (RDNA4): INT8 twice FP16, as fitted
      {191.4, 382.7, "rocm", true, 191.4},    // Radeon AI PRO R9700: twice, to the rounding
      {1307.4, 2614.9, "rocm", true, 1307.4}, // MI300X (CDNA3): likewise
      {122.8, 0.0, "rocm", true, 122.8},      // no INT8 rate stated: as stated
  }));
  CAPTURE(fp16, int8, backend, mmq);
  d.fp16_tflops = fp16;
  d.int8_tops = int8;
  const DeviceRates r = device_rates(d, backend, "legacy", k, false, mmq);
  CHECK_THAT(r.peak_tflops, WithinRel(peak, 1e-12));
  CHECK(r.peak_kind == "tensor");
  CHECK_THAT(r.flops_s, WithinRel(peak * 1e12, 1e-12));
}

TEST_CASE("a plan counts as MMQ's legacy types by its matrix bytes: Q4_0 does, Q8_0 and Q4_K_M do not", "[speed]") {
  const Architecture& a = cat().find_model("meta-llama/Llama-2-7b-hf")->arch;
  CHECK(plan_is_mmq_legacy(plan_quantization(a, "Q4_0")));
  CHECK(plan_is_mmq_legacy(plan_quantization(a, "Q5_1")));
  CHECK_FALSE(plan_is_mmq_legacy(plan_quantization(a, "Q8_0")));
  CHECK_FALSE(plan_is_mmq_legacy(plan_quantization(a, "Q4_K_M")));
  CHECK_FALSE(plan_is_mmq_legacy(plan_quantization(a, "F16")));
}

TEST_CASE("the catalog's MI50 and MI60 are gfx906 parts, and the shipped fit has a dp4a factor below the tensor kernels' 1", "[speed]") {
  const SpeedCoefficients k = speed_coefficients(cat());
  REQUIRE(k.peak_kind_eff.count("dp4a_int8") == 1);
  const double f = k.peak_kind_eff.at("dp4a_int8");
  CHECK(f > 0.3);
  CHECK(f < 1.0);
  for (const char* id : {"amd-mi50-32gb", "amd-mi60"}) {
    CAPTURE(id);
    const Device* d = cat().find_device(id);
    REQUIRE(d != nullptr);
    CHECK(d->facts.value("amd_gfx_target", "") == "gfx906");
    const DeviceRates r = device_rates(*d, "rocm", "legacy", k);
    CHECK(r.peak_kind == "dp4a_int8");
    CHECK_THAT(r.peak_tflops, WithinRel(d->int8_tops, 1e-12));
    CHECK_THAT(r.peak_tflops, WithinRel(2 * d->fp16_tflops, 0.01));  // v_dot4 at twice packed FP16
  }
  // The coefficients round-trip through speed.json's form.
  const SpeedCoefficients back = speed_coefficients_from_json(speed_coefficients_to_json(k), "speed.json");
  CHECK(back.peak_kind_eff == k.peak_kind_eff);
}

TEST_CASE("the Tesla P40 and M40 prefill a Q4_0 7B from their own dp4a and FP32 rates, not a tensor rate", "[speed]") {
  // The catalog entries state the rates the speed model reads: a P40's quantized prefill runs on
  // dp4a (4x FP32), an M40's (no dp4a) on FP32, so the P40 prefills about 4x/1.68 faster per FLOP.
  const Device* p40 = cat().find_device("nvidia-tesla-p40");
  const Device* m40 = cat().find_device("nvidia-tesla-m40-24gb");
  REQUIRE(p40 != nullptr);
  REQUIRE(m40 != nullptr);
  const SpeedCoefficients k = speed_coefficients(cat());
  const DeviceRates rp = device_rates(*p40, "cuda", "legacy", k), rm = device_rates(*m40, "cuda", "legacy", k);
  CHECK(rp.peak_kind == "dp4a_int8");
  CHECK(rm.peak_kind == "fp32");
  CHECK_THAT(rp.peak_tflops, WithinRel(p40->int8_tops, 1e-12));
  CHECK_THAT(rm.peak_tflops, WithinRel(m40->fp32_tflops, 1e-12));
  // Both on CUDA, so only the rates and the dp4a kernels' own share (speed.json peak_kind_eff;
  // FP32 GEMMs have none) set them apart.
  const double dp4a_share = k.peak_kind_eff.count("dp4a_int8") ? k.peak_kind_eff.at("dp4a_int8") : 1.0;
  CHECK(k.peak_kind_eff.count("fp32") == 0);
  CHECK_THAT(rp.flops_s / rm.flops_s, WithinRel(p40->int8_tops / m40->fp32_tflops * dp4a_share, 1e-9));
  // The estimate document names which rate it used.
  const json est = json::parse(api_estimate(cat(), json{{"model", "meta-llama/Meta-Llama-3-8B"}, {"quant", "Q4_0"},
                                                        {"hardware", "nvidia-tesla-p40"}, {"context", 4096}}.dump()));
  REQUIRE_FALSE(est.contains("error"));
  REQUIRE(est.contains("speed"));
  CHECK(est["speed"]["terms"]["peak_kind"] == "dp4a_int8");
  CHECK_THAT(est["speed"]["terms"]["peak_tflops"].get<double>(), WithinRel(47.0, 1e-9));
}

}  // namespace speed_test_cases
