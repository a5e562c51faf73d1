#include "willitfit/estimate/defaults.hpp"

#include <algorithm>

#include "willitfit/base/error.hpp"
#include "willitfit/estimate/request.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/speed/mlx_speed.hpp"

namespace wif {

namespace defaults {

std::string server_quant(const Architecture& a) {
  // Checkpoints published with MXFP4 routed experts are served as published: DeepSeek V4's FP8 +
  // MXFP4 (its config's expert_dtype fp4, vLLM's default when unstated), and the BF16 + MXFP4 ones
  // (gpt-oss, Kimi K3: native_dtype mxfp4 in the catalog).
  if (a.gguf_arch == "deepseek4" && a.native_dtype == "fp8") return "FP8-MXFP4-MOE";
  if (a.native_dtype == "mxfp4") return "BF16-MXFP4-MOE";
  if (a.native_dtype == "fp8") return "FP8";
  if (a.native_dtype == "fp16") return "SAFETENSORS-FP16";
  return "SAFETENSORS-BF16";
}

std::string quant_for(const std::string& engine, const Architecture& a) {
  if (engine == "mlx") return kQuantMlx;
  return engine == "vllm" || engine == "sglang" ? server_quant(a) : kQuantGguf;
}

std::string engine_name(const std::string& engine) {
  if (engine == "vllm") return "vLLM";
  if (engine == "sglang") return "SGLang";
  if (engine == "mlx") return "MLX";
  return engine;
}

std::vector<std::string> common_formats(const std::string& engine) {
  // GGUF: the types the big GGUF publishers put in nearly every repo (e.g. the file lists of
  // https://huggingface.co/unsloth/Qwen3-30B-A3B-GGUF and
  // https://huggingface.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF), best first.
  if (engine == "llama.cpp") return {"BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K"};
  // MLX: the formats mlx-community publishes per model (bf16, 8bit, 6bit, 5bit, 4bit, 3bit; e.g.
  // https://huggingface.co/mlx-community/Qwen3-30B-A3B-4bit and its siblings), best first.
  if (engine == "mlx") return {"MLX-BF16", "MLX-8bit", "MLX-6bit", "MLX-5bit", "MLX-4bit", "MLX-3bit", "MLX-MXFP4"};
  // Servers: the native checkpoint and the quantized checkpoints vLLM and SGLang document
  // (https://docs.vllm.ai/en/latest/features/quantization/index.html).
  return {"SAFETENSORS-BF16", "FP8", "AWQ-4bit", "GPTQ-4bit"};
}

std::vector<std::string> server_formats(const Architecture& a, const ModelEntry* entry) {
  // Best first: 16-bit, 8-bit, then the 4-bit ones (NVFP4 before the integer formats: its
  // published checkpoints are the vendor's own).
  static const char* const kOrder[] = {"SAFETENSORS-BF16", "SAFETENSORS-FP16", "FP8", "GPTQ-8bit", "NVFP4", "AWQ-4bit", "GPTQ-4bit"};
  std::vector<std::string> out{server_quant(a)};
  const auto common = common_formats("vllm");
  for (const char* id : kOrder) {
    const bool offered = std::find(common.begin(), common.end(), id) != common.end() ||
                         (entry && entry->checkpoint(id) != nullptr);
    if (offered && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

std::string counterpart_quant(const std::string& quant, const std::string& engine) {
  // Pairs of like size: GGUF types' bits per weight (ggml-common.h blocks, about 4.8 for Q4_K_M
  // with its Q6_K rows) against MLX's bits + 32 / group (4.5 for 4-bit g64). The first pair of a
  // format is its counterpart; MLX group variants pair as their group-64 format.
  static const std::pair<const char*, const char*> pairs[] = {
      {"BF16", "MLX-BF16"},   {"F16", "MLX-FP16"},    {"Q8_0", "MLX-8bit"},     {"Q6_K", "MLX-6bit"},
      {"Q5_K_M", "MLX-5bit"}, {"Q4_K_M", "MLX-4bit"}, {"Q3_K_M", "MLX-3bit"},   {"Q2_K", "MLX-2bit"},
      {"MXFP4_MOE", "MLX-MXFP4"}, {"F32", "MLX-BF16"}, {"Q5_K_S", "MLX-5bit"}, {"Q5_1", "MLX-5bit"},
      {"Q5_0", "MLX-5bit"},   {"Q4_K_S", "MLX-4bit"}, {"Q4_1", "MLX-4bit"},     {"Q4_0", "MLX-4bit"},
      {"IQ4_XS", "MLX-4bit"}, {"IQ4_NL", "MLX-4bit"}, {"Q3_K_L", "MLX-3bit"},   {"Q3_K_S", "MLX-3bit"},
      {"IQ3_M", "MLX-3bit"},  {"IQ3_S", "MLX-3bit"},  {"IQ3_XS", "MLX-3bit"},   {"IQ3_XXS", "MLX-3bit"},
      {"Q2_K_S", "MLX-2bit"}, {"IQ2_M", "MLX-2bit"},  {"IQ2_S", "MLX-2bit"},    {"IQ2_XS", "MLX-2bit"},
      {"IQ2_XXS", "MLX-2bit"}, {"MLX-NVFP4", "MLX-MXFP4"}, {"MLX-MXFP8", "MLX-8bit"}};
  const auto f = find_quant(quant);
  if (!f) return engine == "mlx" ? kQuantMlx : kQuantGguf;
  if (engine == "mlx") {
    if (f->container == "mlx") return f->id;
    for (const auto& [g, m] : pairs)
      if (f->id == g) return m;
    return kQuantMlx;
  }
  if (f->container != "mlx") return f->gguf ? f->id : kQuantGguf;
  std::string id = f->id;
  const auto cut = id.find("-g");
  if (cut != std::string::npos) id = id.substr(0, cut);   // MLX-4bit-g32 pairs as MLX-4bit
  if (id == "MLX-NVFP4") id = "MLX-MXFP4";
  if (id == "MLX-MXFP8") id = "MLX-8bit";
  for (const auto& [g, m] : pairs)
    if (id == m) return g;
  return kQuantGguf;
}

}  // namespace defaults

namespace {

// The prompt lengths the page's speed simulator offers, and the one it starts on: the lengths
// that fit the request's context (all of them without one), at least one.
nlohmann::json simulator_json(const nlohmann::json& request) {
  namespace d = defaults;
  std::int64_t ctx = 0;
  if (request.is_object() && request.contains("context") && request["context"].is_number_integer())
    ctx = request["context"].get<std::int64_t>();
  nlohmann::json prompts = nlohmann::json::array();
  for (std::int64_t p : d::kSimulatorPrompts)
    if (ctx <= 0 || p <= ctx) prompts.push_back(p);
  if (prompts.empty()) prompts.push_back(ctx);
  std::int64_t start = prompts.front().get<std::int64_t>();
  for (const auto& p : prompts)
    if (p.get<std::int64_t>() <= d::kSimulatorPrompt) start = p.get<std::int64_t>();
  return {{"prompts", prompts}, {"prompt", start}};
}

// The contexts of a memory-over-context chart: 4K doubling up to the model's maximum (and the
// maximum itself), capped at 2M; kChartContextUnknown when the maximum is not known.
nlohmann::json context_steps(std::int64_t max_ctx) {
  namespace d = defaults;
  const std::int64_t top = max_ctx > 0 ? std::min<std::int64_t>(max_ctx, d::kChartContextCap) : d::kChartContextUnknown;
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t c = d::kChartContextFirst; c < top; c *= 2) out.push_back(c);
  out.push_back(top);
  return out;
}

// The page's context input: the slider's steps (1K doubling to 1M, the range llama.cpp's -c takes
// in practice for the catalog's models) and the presets beside it (4K, 8K, 32K, 128K: a short
// chat, the default, a long document, the common model maximum), each a step of the slider.
nlohmann::json context_input() {
  nlohmann::json steps = nlohmann::json::array();
  for (std::int64_t c = 1024; c <= (std::int64_t{1} << 20); c *= 2) steps.push_back(c);
  return {{"steps", steps}, {"presets", {4096, defaults::kContext, 32768, 131072}}};
}

// The sequence lengths a page offers for fine-tuning: 512 doubling to 32K (the default among them).
nlohmann::json train_seq_choices() {
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t s = 512; s <= 32768; s *= 2) out.push_back(s);
  return out;
}

// The RAM choices of the main form and of a device page (none, then the model page's tiers).
nlohmann::json ram_input() {
  nlohmann::json choices = nlohmann::json::array(), device = nlohmann::json::array({0});
  for (double g : defaults::kRamChoicesGib) choices.push_back(g);
  for (double g : defaults::kRamTiersGib) device.push_back(g);
  return {{"choices", choices}, {"device_page", device}};
}

// The welcome's examples: a stated rule, not a popularity claim. One setup of each kind the page
// estimates, each a catalog model and device: a model whole on one consumer GPU, on a Mac, on a
// unified-memory PC, on several GPUs, with experts in system RAM, and a server engine on a
// datacenter node. The first is what the welcome opens on (its `model` and `hardware`);
// tests/defaults_test.cpp checks each is in the catalog and answers as its kind says.
nlohmann::json welcome_json() {
  using nlohmann::json;
  struct Ex { const char* kind; const char* model; const char* quant; const char* hw; int count; double ram; const char* engine; };
  static constexpr Ex kExamples[] = {
      {"one_gpu", "Qwen/Qwen3-30B-A3B", "Q4_K_M", "nvidia-rtx-4090", 1, 0, "llama.cpp"},
      {"mac", "zai-org/GLM-4.5-Air", "Q4_K_M", "apple-m3-ultra-80c-gpu-512gb", 1, 0, "llama.cpp"},
      {"unified_pc", "openai/gpt-oss-120b", "MXFP4_MOE", "amd-ryzen-ai-max-plus-395-128gb", 1, 0, "llama.cpp"},
      {"several_gpus", "meta-llama/Llama-3.3-70B-Instruct", "Q4_K_M", "nvidia-rtx-3090", 2, 0, "llama.cpp"},
      {"ram_offload", "zai-org/GLM-4.5-Air", "Q4_K_M", "nvidia-rtx-4090", 1, 64, "llama.cpp"},
      {"server", "deepseek-ai/DeepSeek-V3-0324", "FP8", "nvidia-h200-sxm", 8, 0, "vllm"},
  };
  json list = json::array();
  for (const Ex& e : kExamples)
    list.push_back({{"kind", e.kind}, {"model", e.model}, {"quant", e.quant}, {"hardware", e.hw},
                    {"count", e.count}, {"ram_gib", e.ram}, {"engine", e.engine}});
  return {{"rule", "one_per_kind"}, {"model", kExamples[0].model}, {"hardware", kExamples[0].hw}, {"examples", list}};
}

}  // namespace

nlohmann::json defaults_json(const Catalog& cat, const nlohmann::json& request) {
  using nlohmann::json;
  namespace d = defaults;
  if (!request.is_null() && !request.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  // With a model the server engines' default is that model's native checkpoint.
  std::optional<Architecture> arch;
  json candidates = json::array();  // catalog models that can draft for it (speculative.hpp)
  if (request.is_object() && request.contains("model") && !request["model"].is_null()) {
    const ResolvedModel m = resolve_model(cat, request["model"], "model");
    arch = m.arch;
    if (m.entry)
      for (const auto& id : draft_candidates(cat, m.id)) {
        const ModelEntry* c = cat.find_model(id);
        candidates.push_back({{"id", id}, {"name", c ? c->name : id}, {"params_total_b", c ? c->params_total_b : 0.0}});
      }
  }
  auto engine = [&](const char* id) {
    json e = {{"name", d::engine_name(id)}, {"formats", engine_formats(id)}, {"common_formats", d::common_formats(id)}};
    if (arch) e["quant"] = d::quant_for(id, *arch);
    else e["quant"] = std::string(id) == "llama.cpp" ? d::kQuantGguf : std::string(id) == "mlx" ? d::kQuantMlx : "SAFETENSORS-BF16";
    return e;
  };
  json llama = engine("llama.cpp");
  llama.update({{"parallel", d::kParallel}, {"ubatch", d::kUbatch}, {"flash_attn", d::kFlashAttn},
                {"kv_unified", d::kKvUnified}, {"swa_full", d::kSwaFull}, {"kv_type", d::kKvType},
                {"mmap", d::kMmap}, {"rules", d::kRules}, {"imatrix", d::kImatrix}, {"mla_v_less", d::kMlaVLess},
                // The cache types a page offers (-ctk/-ctv): the default and the two quantized
                // caches llama.cpp's flash-attention kernels are built for by default (ggml-cuda
                // fattn: F16, Q8_0 and Q4_0 without GGML_CUDA_FA_ALL_QUANTS).
                {"kv_types", {"f16", "q8_0", "q4_0"}}});
  json vllm = engine("vllm");
  // The cache dtypes a page offers the servers (--kv-cache-dtype): the model's own and fp8.
  const json server_kv = {d::kKvCacheDtype, "fp8"};
  vllm.update({{"gpu_memory_utilization", d::kGpuMemoryUtilization}, {"kv_cache_dtype", d::kKvCacheDtype}, {"kv_cache_dtypes", server_kv},
               {"enforce_eager", d::kEnforceEager}, {"tensor_parallel", "count"},
               {"max_num_seqs", nullptr}, {"max_num_batched_tokens", nullptr}, {"block_size", nullptr}});
  json mlx = engine("mlx");
  mlx.update({{"kv_bits", 0}, {"kv_group_size", 64}, {"kv_step", 256}, {"prefill_step", 2048},
              {"backends", {"metal"}}});
  // The caches a page offers mlx-lm (--kv-bits at the default group of 64): 16-bit and the two
  // widths llama.cpp's page offers too, 8 and 4 bits, each type with the kv_bits it is sent as;
  // only 16-bit for a model with sliding-window layers, whose cache mlx-lm cannot quantize
  // (mlx_lm/models/cache.py RotatingKVCache.to_quantized raises; estimate.cpp refuses it).
  {
    const bool sliding = arch && std::any_of(arch->layers.begin(), arch->layers.end(),
                                             [](const LayerSpec& l) { return l.attn == AttnKind::Sliding && !l.is_mtp; });
    json types = json::array(), bits = json::object();
    // Nor for a cache whose rows the group of 64 does not divide (mlx_kv_group_divides), nor for
    // MLA layers whose mlx-lm cache cannot be quantized (mlx_mla_layout: the absorbed attention of
    // deepseek_v3.py and its kin, DeepSeek V3.2's CacheList); estimate.cpp refuses kv_bits for both.
    const bool plain_only = sliding || (arch && (!mlx_kv_group_divides(*arch, 64) || !mlx_mla_layout(*arch).quantizable));
    for (int b : {0, 8, 4}) {
      if (b > 0 && plain_only) continue;
      const std::string t = mlx_kv_cache_type(b, 64);
      types.push_back(t);
      bits[t] = b;
    }
    mlx["kv_types"] = types;
    mlx["kv_bits_by_type"] = bits;
  }
  json sglang = engine("sglang");
  sglang.update({{"mem_fraction_static", nullptr}, {"kv_cache_dtype", d::kKvCacheDtype}, {"kv_cache_dtypes", server_kv},
                 {"tensor_parallel", "count"}, {"chunked_prefill_size", nullptr}, {"max_running_requests", nullptr}});
  return {
      {"estimate", {{"engine", d::kEngine}, {"context", d::kContext}, {"count", d::kCount}, {"ram_gib", d::kRamGib},
                    {"display", d::kDisplay}, {"prompt", d::kPrompt}, {"gen", d::kGen}, {"depth", d::kDepth},
                    {"ram_bandwidth_gbs", d::kRamBandwidthGbs}, {"pcie_gbs", d::kPcieGbs}, {"detail", d::kDetail},
                    {"mtp", d::kMtp}, {"draft_max", d::kDraftMax}, {"workload", d::kWorkload},
                    {"images", d::kImages}, {"image_width", d::kImageWidth}, {"image_height", d::kImageHeight},
                    {"audio_seconds", d::kAudioSeconds},
                    {"mmproj_offload", d::kMmprojOffload}, {"mmproj_type", d::kMmprojType},
                    {"concurrency", nullptr}}},
      {"engines", {{"llama.cpp", llama}, {"vllm", vllm}, {"sglang", sglang}, {"mlx", mlx}}},
      {"cost", {{"market", d::kMarket}, {"hours_per_day", d::kHoursPerDay},
                {"amortization_months", d::kAmortizationMonths}, {"months", d::kMonths},
                {"concurrency", d::kConcurrency}, {"power_w", "device_tdp_x_count"},
                {"purchase_usd", "device_price_x_count"}}},
      {"training", {{"method", d::kTrainMethod}, {"optimizer", d::kOptimizer}, {"precision", d::kPrecision},
                    {"loss", d::kLoss}, {"offload", d::kOffload}, {"batch", d::kBatch}, {"seq", d::kSeq},
                    {"checkpointing", d::kCheckpointing}, {"offload_activations", d::kOffloadActivations},
                    {"flash_attn", d::kFlashAttn}, {"double_quant", d::kDoubleQuant},
                    {"adapter_precision", d::kAdapterPrecision}, {"kbit_prep_fp32", d::kKbitPrepFp32},
                    {"lora_rank", d::kLoraRank}, {"lora_targets", {"q", "k", "v", "o", "gate", "up", "down"}},
                    {"gpus", d::kGpus}, {"zero", d::kZero}, {"seq_choices", train_seq_choices()}}},
      {"solve", {{"min_context", d::kMinContext}, {"max_count", d::kMaxCount}, {"min_decode_tps", d::kMinDecodeTps},
                 {"allow_offload", "when_ram_gib"}}},
      {"runs_on", {{"min_decode_tps", d::kRunsOnMinDecodeTps}, {"min_quality", d::kRunsOnMinQuality}}},
      {"speculative", {{"draft_candidates", candidates}, {"draft_max_model", d::kDraftMaxModel},
                       {"draft_kv_type", d::kDraftKvType}, {"draft_max_limit", 16}}},
      {"simulator", simulator_json(request)},
      {"context_steps", context_steps(arch ? arch->n_ctx_train : 0)},
      {"context_input", context_input()},
      {"reference_device", {{"id", d::kReferenceDevice}, {"code", d::kReferenceDeviceCode}}},
      {"limit_formats", {{"high", d::kLimitQuantHigh}, {"smallest", d::kLimitQuantSmallest}}},
      {"ram_input", ram_input()},
      {"welcome", welcome_json()},
  };
}

}  // namespace wif
