// Every default a request reader applies, in one place. The readers (estimate, serving, cost,
// training, solvers) take their fallbacks from here, and api_defaults() publishes the same values
// so a surface (the page, the widget, the CLI) asks for them instead of copying them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/model/architecture.hpp"
#include "willitfit/catalog/catalog.hpp"

namespace wif::defaults {

// Estimate (every engine).
inline constexpr std::int64_t kContext = 8192;      // tokens; 0 in a request = the model's own
inline constexpr const char* kEngine = "llama.cpp";
inline constexpr int kCount = 1;
inline constexpr std::int64_t kParallel = 1;        // llama.cpp -np
inline constexpr std::int64_t kUbatch = 512;        // llama.cpp -ub
inline constexpr bool kFlashAttn = true;
inline constexpr bool kKvUnified = true;
inline constexpr bool kSwaFull = false;
inline constexpr const char* kKvType = "f16";
inline constexpr const char* kRules = "2025-12";
inline constexpr bool kImatrix = true;
inline constexpr bool kMlaVLess = true;
inline constexpr double kRamGib = 0;                // 0 = no offload to system RAM considered
inline constexpr bool kDisplay = false;
inline constexpr bool kMmap = true;
inline constexpr std::int64_t kPrompt = 512;        // llama-bench -p
inline constexpr std::int64_t kGen = 128;           // llama-bench -n
// The speed simulator's prompt lengths (a short question to a long document or codebase) and
// the one it starts on: a typical chat turn with some history.
inline constexpr std::int64_t kSimulatorPrompts[] = {1024, 4096, 16384, 32768, 131072};
inline constexpr std::int64_t kSimulatorPrompt = 4096;
// A memory-over-context chart: from 4K, doubling up to the model's maximum (capped at 2M);
// to 128K for a model whose maximum is not known.
inline constexpr std::int64_t kChartContextFirst = 4096;
inline constexpr std::int64_t kChartContextCap = std::int64_t{1} << 21;
inline constexpr std::int64_t kChartContextUnknown = 131072;
// The cache outlook (solve kv_outlook): from the default context to a long-document one.
inline constexpr std::int64_t kOutlookFrom = 8192;
inline constexpr std::int64_t kOutlookTo = 32768;
inline constexpr std::int64_t kDepth = 0;           // llama-bench -d
inline constexpr double kRamBandwidthGbs = 60;      // dual-channel DDR5 class
inline constexpr double kPcieGbs = 0;               // 0 = from the device
inline constexpr const char* kDetail = "full";
inline constexpr bool kMtp = false;               // speculative decoding on the MTP layers (speculative.hpp)
inline constexpr int kDraftMax = 1;                // tokens drafted per step (vLLM GLM recipe: 1)
inline constexpr const char* kWorkload = "prose";
// Tokens a separate draft model drafts per step: llama.cpp's default (common/common.h
// common_params_speculative_draft::n_max = 3; --spec-draft-n-max, which replaced --draft-max).
inline constexpr int kDraftMaxModel = 3;
// The draft's KV cache type: llama.cpp's default for it (common_params_speculative cache_type_k/v = F16).
inline constexpr const char* kDraftKvType = "f16";
// Images per prompt (projector.hpp): 0 = text only, the vision projector not loaded. The image
// size (pixels) sets the token count of the families with dynamic resolution (Qwen, Pixtral).
inline constexpr int kImages = 0;
inline constexpr std::int64_t kImageWidth = 1024;
inline constexpr std::int64_t kImageHeight = 1024;
inline constexpr bool kMmprojOffload = true;        // libmtmd: the encoder on the GPU (mtmd_context_params.use_gpu)
inline constexpr const char* kMmprojType = "f16";   // convert_hf_to_gguf.py --mmproj writes F16 by default
// Seconds of audio per prompt (audio.hpp): 0 = none, the audio tower not loaded. At most 4 hours,
// several times what any audio model's context holds (Voxtral: about 40 min in 32k tokens).
inline constexpr double kAudioSeconds = 0;
inline constexpr double kMaxAudioSeconds = 14400;

// llama.cpp: a GGUF file type.
inline constexpr const char* kQuantGguf = "Q4_K_M";
inline constexpr const char* kQuantMlx = "MLX-4bit";   // mlx_lm.convert -q: 4 bits, group 64

// vLLM (vllm/engine/arg_utils.py defaults) and SGLang (server_args.py); 0 = the engine decides.
inline constexpr double kGpuMemoryUtilization = 0.92;
inline constexpr const char* kKvCacheDtype = "auto";
inline constexpr bool kEnforceEager = false;

// Cost.
inline constexpr const char* kMarket = "US";
inline constexpr double kHoursPerDay = 8;
inline constexpr double kAmortizationMonths = 36;
inline constexpr int kMonths = 36;
// months "auto": the series runs to 1.5 x the break-even point, within 24 to 240 months (36
// when renting never costs more than owning).
inline constexpr double kMonthsAutoPastBreakEven = 1.5;
inline constexpr int kMonthsAutoMin = 24;
inline constexpr int kMonthsAutoMax = 240;
inline constexpr int kConcurrency = 1;

// Training.
inline constexpr const char* kTrainMethod = "lora";
inline constexpr const char* kOptimizer = "adamw";
inline constexpr const char* kPrecision = "mixed";
inline constexpr const char* kLoss = "standard";
inline constexpr const char* kOffload = "none";
inline constexpr std::int64_t kBatch = 1;
inline constexpr std::int64_t kSeq = 2048;
inline constexpr bool kCheckpointing = true;
inline constexpr bool kOffloadActivations = false;
inline constexpr bool kDoubleQuant = true;
inline constexpr const char* kAdapterPrecision = "fp32";
inline constexpr bool kKbitPrepFp32 = true;
inline constexpr int kLoraRank = 16;
inline constexpr int kGpus = 1;
inline constexpr int kZero = 0;

// Solvers.
inline constexpr std::int64_t kMinContext = 512;
inline constexpr int kMaxCount = 8;
inline constexpr double kMinDecodeTps = 0;

// Runs-on floors (runs_on.hpp): what counts as running on a device. Decode below 3 tokens/s is
// slower than a person reads; "reduced" keeps the 1- to 2-bit formats (perplexity +20 % and more
// in quants.json) out of "runs".
inline constexpr double kRunsOnMinDecodeTps = 3.0;
inline constexpr const char* kRunsOnMinQuality = "reduced";

// The device a model's page sizes its formats on (its quantization table, the gap between file
// and memory, the cheapest-setup solve and the cache outlook): the 24 GiB consumer GPU, the most
// memory a single consumer card of its generation has, and a discrete GPU, where llama.cpp keeps
// the token embeddings in system RAM (so memory can be below the file size). The code names why.
inline constexpr const char* kReferenceDevice = "nvidia-rtx-4090";
inline constexpr const char* kReferenceDeviceCode = "consumer_discrete_gpu";
// The formats a model's page states its limits with: the near-lossless one people step down
// from (Q8_0, +0.0x % perplexity in quants.json) and the smallest common one (IQ2_XXS), past
// which a smaller model of the family is the better choice.
inline constexpr const char* kLimitQuantHigh = "Q8_0";
inline constexpr const char* kLimitQuantSmallest = "IQ2_XXS";

// The system RAM a person can state (GiB; 0 = none considered): the main form's choices, the
// sizes desktop PCs and workstations ship with. The RAM tiers a model page lists GPUs with
// (tiers.hpp), smallest first; a device page offers none and these, so its answers match that list's.
inline constexpr double kRamChoicesGib[] = {0, 16, 32, 64, 128, 256};
inline constexpr double kRamTiersGib[] = {32, 64, 128};

// The devices a page offers to compare a model on: ones with a price to weigh, and among the
// unified-memory machines (Macs, mini PCs) only those with at least 32 GiB: with less, the share
// the GPU may use leaves room for the small models any listed GPU runs, so such a machine is no
// alternative a person weighs against a graphics card.
inline constexpr double kCompareMinUnifiedGib = 32;

/// Whether a device is offered among the devices to compare a model on, with the reason as a code:
/// "priced_gpu" and "priced_large_memory" (offered), "no_price", "cpu" or "small_memory" (not).
struct CompareOffer {
  bool offered;
  const char* code;
};
inline CompareOffer compare_offer(const Device& d) {
  if (d.kind == DeviceKind::Cpu) return {false, "cpu"};
  if (!(d.price_usd > 0)) return {false, "no_price"};
  if (d.kind == DeviceKind::Gpu) return {true, "priced_gpu"};
  if (d.memory_gib >= kCompareMinUnifiedGib) return {true, "priced_large_memory"};
  return {false, "small_memory"};
}

/// The checkpoint a server engine (vLLM, SGLang) loads when the request names no format, or one
/// it cannot serve: the checkpoint as published, by the model's native dtype ("FP8-MXFP4-MOE" for
/// DeepSeek V4, "BF16-MXFP4-MOE" for mxfp4, "FP8", "SAFETENSORS-FP16", else "SAFETENSORS-BF16"). The dtype of a config read
/// alone comes from its quantization_config when it has one (hf_config.cpp), as the catalog's does.
std::string server_quant(const Architecture& a);

/// The default quantization for `engine` ("llama.cpp" | "vllm" | "sglang") and model `a`.
std::string quant_for(const std::string& engine, const Architecture& a);

/// The engine's own spelling ("llama.cpp", "vLLM", "SGLang") for an engine id.
std::string engine_name(const std::string& engine);

/// The formats most repos publish for `engine`, best first (a model's format table lists these).
std::vector<std::string> common_formats(const std::string& engine);

/// The formats a server engine (vLLM, SGLang) offers for a model, best first: its checkpoint as
/// published (server_quant), the common formats (common_formats), and every format the catalog
/// entry has a published checkpoint of (ModelEntry::checkpoints: FP8, NVFP4, AWQ, GPTQ),
/// each once. `entry` is null for an imported config.
std::vector<std::string> server_formats(const Architecture& a, const ModelEntry* entry);

/// The format of `engine` ("llama.cpp" or "mlx") nearest in bits per weight to `quant` of the
/// other one: Q4_K_M <-> MLX-4bit, Q8_0 <-> MLX-8bit, BF16 <-> MLX-BF16 … (the side-by-side of a
/// Mac result, estimate_to_json `engine_compare`). `quant` itself when it is already the engine's.
std::string counterpart_quant(const std::string& quant, const std::string& engine);

}  // namespace wif::defaults

namespace wif {

/// The defaults document (api_defaults): every default above, grouped by what reads it, and per
/// engine the default format for the request's model (when the request names one) with the
/// formats that engine accepts. `request` may be empty or {"model": id|config, "engine": …}.
nlohmann::json defaults_json(const Catalog& cat, const nlohmann::json& request);

}  // namespace wif
