// Quantization: which type llama-quantize gives each tensor for a file type (llama.cpp
// src/llama-quant.cpp),
// and the bytes of non-GGUF formats (safetensors BF16/FP8, AWQ/GPTQ, NF4, MLX, NVFP4).
// The result is a TensorPlan: every tensor with its stored type and bytes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "willitfit/model/architecture.hpp"
#include "willitfit/model/tensors.hpp"

namespace wif {

enum class QuantRules {
  Dec2025,  // llama_tensor_get_type up to the early-2026 builds (llama.cpp ec98e2002)
  Y2026,    // after PR #19770: attn_qkv / attn_kv_b follow attn_v rules, new fallbacks
};

struct QuantOptions {
  bool imatrix = true;      // published IQ/Q quants are usually made with an importance matrix
  QuantRules rules = QuantRules::Dec2025;
  // > 0: the stored bits per quantized linear weight of a published safetensors checkpoint
  // (checkpoint_linear_bits), in place of the format's own figure; the token table, the output
  // head, norms and biases stay 16-bit as in every such checkpoint.
  double linear_bits = 0;
};

/// What a published safetensors checkpoint stores per quantized linear weight, in bits, from its
/// quantization_config: `bits` per value plus a 16-bit scale (and, with `zero_point`, a `bits`-wide
/// zero) per `group_size` values for AWQ and GPTQ (AutoAWQ's qzeros/scales, GPTQ's
/// qzeros/scales; compressed-tensors' symmetric pack-quantized keeps no zeros); FP8 with a fp32 scale
/// per group_size x group_size block (group_size 0: one scale per tensor or row, under 0.01 bit);
/// NVFP4 with one FP8 scale per group_size (16) values. Throws InputError(bad_value, path) when
/// the bits or the group do not fit the format.
double checkpoint_linear_bits(const std::string& quant, int bits, int group_size, bool zero_point,
                              const std::string& path);

/// A quantization people can ask for.
struct QuantFormat {
  std::string id;           // "Q4_K_M", "BF16", "FP8", "AWQ-4bit", "MLX-4bit" …
  std::string container;    // "gguf" | "safetensors" | "mlx"
  bool gguf = false;
};

/// Every quantization id the planner accepts, GGUF file types first.
const std::vector<QuantFormat>& quant_formats();
std::optional<QuantFormat> find_quant(const std::string& id);

/// One vocabulary of formats for every engine. What a person types ("bf16", "Q4_K", "AWQ",
/// "fp8") resolved to a format id for `engine` ("llama.cpp" | "vllm" | "sglang"): exact ids in
/// any case, then aliases. On llama.cpp "BF16"/"FP16" are the GGUF types and "Q4_K"/"Q5_K"/"Q3_K"
/// the _M mixes (llama-quantize's own aliases, tools/quantize/quantize.cpp); on the servers
/// "BF16"/"FP16" are the safetensors checkpoints, "AWQ"/"GPTQ" the 4-bit ones, "NF4" bitsandbytes.
/// nullopt when the text names no format at all.
std::optional<QuantFormat> resolve_format(const std::string& text, const std::string& engine);

/// Whether `engine` can run a file of this format: vLLM and SGLang serve safetensors
/// checkpoints; llama.cpp is estimated for every format (GGUF files, and checkpoints as sizes).
bool engine_accepts(const std::string& engine, const QuantFormat& q);

/// The format ids `engine` accepts, in quant_formats() order (for errors and api_defaults).
std::vector<std::string> engine_formats(const std::string& engine);

struct TensorPlan {
  std::string quant;                 // the requested id
  std::vector<Tensor> tensors;       // with type (GGUF) and bytes set
  std::uint64_t weights_bytes = 0;   // sum of tensor bytes
  std::uint64_t file_bytes = 0;      // exact GGUF file size (header estimated), or checkpoint size
  std::uint64_t header_bytes = 0;    // GGUF metadata + tensor infos (estimated from vocab)
  bool from_file = false;            // true when read from a real GGUF header
  double bits_per_weight() const;
};

/// Plan the tensors of `arch` for quantization `quant`. Throws InputError("unknown_quant").
TensorPlan plan_quantization(const Architecture& arch, const std::string& quant,
                             const QuantOptions& opt = {});

/// What a plan of `arch` takes from the architecture alone, the same for every GGUF or
/// safetensors format: the converter's tensors (enumerate_tensors in the checkpoint's float type),
/// the order llama-quantize visits them in, and its count of attention value tensors. A caller
/// that plans several formats of one model (the catalog's memo) makes it once.
struct TensorSkeleton {
  std::vector<Tensor> tensors;
  std::vector<std::size_t> order;      // by layer, then by name (llama.cpp weight_name_comparer)
  std::int64_t n_attention_wv = 0;     // attn_v / attn_qkv / attn_kv_b weights
};
TensorSkeleton tensor_skeleton(const Architecture& arch);

/// plan_quantization with the skeleton made beforehand from the same `arch` (MLX formats, which
/// lay out their own tensors, do not use it). Gives the same plan.
TensorPlan plan_quantization(const Architecture& arch, const std::string& quant, const QuantOptions& opt,
                             const TensorSkeleton& skeleton);

/// GGUF type llama-quantize's rules give one tensor (exposed for tests).
GgmlType gguf_default_type(const std::string& ftype);

}  // namespace wif
