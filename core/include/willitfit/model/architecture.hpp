// What a model *is*, layer by layer, independent of any file format.
// Built from a catalog entry / Hugging Face config.json (hf_config.cpp) or from a GGUF header
// (gguf.hpp); everything downstream (tensors, KV cache, speed) takes an Architecture.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wif {

/// How a layer attends, which decides what it keeps per token (see kv_cache.hpp).
enum class AttnKind {
  Full,      // standard (MHA / GQA / MQA) attention over the whole context
  Sliding,   // sliding window of `window` tokens (Gemma, gpt-oss, Cohere2 …)
  Chunked,   // chunked local attention (Llama 4): behaves like a window of `window`
  MLA,       // multi-head latent attention (DeepSeek V2/V3, Kimi K2): caches a compressed latent
  Linear,    // recurrent / linear attention / SSM: fixed-size state, no per-token cache
  None,      // no token mixing that keeps state (e.g. Nemotron-H MLP-only blocks)
  // DeepSeek V4 (llama.cpp src/models/deepseek4.cpp, src/llama-kv-cache-dsv4.cpp): one 512-wide
  // key that is also the value, kept over a sliding window of `window` tokens; a layer with
  // compress_ratio r > 0 also keeps one compressed key per r tokens (r = 4 adds a lightning
  // indexer key per entry and attends to its top-k entries).
  Compressed,
};

enum class FfnKind { Dense, MoE, None };

/// Recurrent state shape (for AttnKind::Linear layers), in llama.cpp's terms
/// (n_embd_r = conv state per sequence, n_embd_s = SSM / delta-rule state per sequence).
struct RecurrentSpec {
  std::string kind;            // "mamba2", "gated_delta_net", "shortconv", "mamba", "kda" (Kimi Delta Attention)
  std::int64_t d_conv = 0;     // conv kernel size
  std::int64_t d_inner = 0;    // inner size (value heads x value head dim for delta nets)
  std::int64_t d_state = 0;    // state size (key head dim for delta nets)
  std::int64_t n_group = 0;    // groups (key heads for delta nets)
  std::int64_t n_v_heads = 0;  // delta-net value heads
  std::int64_t n_k_heads = 0;  // delta-net key heads
  std::int64_t k_head_dim = 0;
  std::int64_t v_head_dim = 0;
  std::int64_t l_cache = 0;    // short-conv cache length (LFM2)
  bool full_rank_gate = false; // KDA output gate as one E x d_inner projection (Kimi K3's ssm_g)
                               // instead of Kimi Linear's low-rank ssm_g_a / ssm_g_b pair
};

struct LayerSpec {
  AttnKind attn = AttnKind::Full;
  std::int64_t n_head = 0;     // query heads
  std::int64_t n_head_kv = 0;  // key/value heads (0 for Linear/None layers)
  std::int64_t head_dim_k = 0;
  std::int64_t head_dim_v = 0;
  std::int64_t window = 0;     // tokens, for Sliding / Chunked
  bool has_kv = true;          // false for layers that reuse another layer's cache (Gemma 3n)
  bool v_from_k = false;       // no V projection: the K projection is reused as V (Gemma 4 global layers)
  FfnKind ffn = FfnKind::Dense;
  std::int64_t n_ff = 0;       // dense intermediate size (Dense layers)
  bool is_mtp = false;         // extra next-token-prediction layer (not used for normal decode)
  // A "shared" sparse-attention indexer (GLM-5.2's indexer_types): the layer reuses the previous
  // full indexer layer's top-k, so llama.cpp keeps no indexer keys for it (kv_cache.hpp).
  bool indexer_shared = false;
  std::int64_t compress_ratio = 0;  // Compressed layers: tokens per compressed entry (0: window only)
};

struct MoeSpec {
  std::int64_t n_expert = 0;
  std::int64_t n_expert_used = 0;
  std::int64_t n_ff_exp = 0;       // per-expert intermediate size
  std::int64_t n_shared = 0;       // shared experts (always active)
  std::int64_t n_ff_shexp = 0;     // intermediate size of one shared expert
  bool has_router_bias = false;    // exp_probs_b (DeepSeek V3 / GLM-4.5 style)
  bool expert_bias = false;        // biases on expert projections (gpt-oss)
  std::int64_t n_latent = 0;       // LatentMoE (Nemotron 3 Super): routed experts work in this width,
                                   // between a down- and an up-projection from and to hidden_size
  bool latent_norm = false;        // an RMSNorm on the latent experts' output (Kimi K3 ffn_routed_norm)
};

struct MlaSpec {
  std::int64_t q_lora_rank = 0;    // 0 = queries are not compressed (DeepSeek V2 Lite)
  std::int64_t kv_lora_rank = 0;   // latent width cached per token
  std::int64_t qk_rope_dim = 0;    // shared RoPE key width cached per token
  std::int64_t qk_nope_dim = 0;
  std::int64_t v_head_dim = 0;
};

/// DeepSeek V4 shapes beside the heads (config.json keys; llama.cpp LLM_ARCH_DEEPSEEK4 hparams).
struct Dsv4Spec {
  std::int64_t hc_mult = 0;        // hyper-connection streams (hc_mult)
  std::int64_t q_lora_rank = 0;    // query down-projection width
  std::int64_t o_groups = 0;       // grouped output LoRA: groups (o_groups)
  std::int64_t o_lora_rank = 0;    // and rank per group (o_lora_rank)
  std::int64_t hash_layers = 0;    // leading layers routed by a token-id table (num_hash_layers)
  std::int64_t index_topk = 0;     // compressed entries a ratio-4 layer attends to (index_topk)
};

struct Architecture {
  std::string model_type;    // HF model_type, e.g. "glm4_moe"
  std::string gguf_arch;     // llama.cpp arch name, e.g. "glm4moe"
  std::int64_t n_embd = 0;
  std::int64_t n_vocab = 0;
  std::int64_t n_ctx_train = 0;
  bool tied_embeddings = false;
  std::vector<LayerSpec> layers;   // main layers first, then MTP layers (is_mtp)
  MoeSpec moe;
  MlaSpec mla;
  RecurrentSpec recurrent;
  Dsv4Spec dsv4;
  // Tensor-shape details that change sizes or quantization rules.
  bool qkv_bias = false;        // biases on q/k/v (Qwen2, GLM-4.5)
  bool out_bias = false;        // bias on attn_output (gpt-oss)
  bool qk_norm = false;         // per-head q/k RMSNorm weights (Qwen3, GLM-4.5 when enabled)
  bool fused_qkv = false;       // one attn_qkv tensor (Phi-3)
  bool attn_sinks = false;      // per-head sink logits (gpt-oss)
  bool ffn_gated = true;        // SwiGLU-style gate projection (false: Nemotron-H squared-ReLU MLPs)
  bool attn_out_gate = false;   // queries carry an output gate: attn_q is twice as wide (Qwen3-Next/3.5)
  bool attn_head_gate = false;  // one sigmoid gate per head from its own projection, attn_gate E x n_head (Step 3.5)
  bool mla_out_gate = false;    // MLA layers gate their output per channel, attn_gate E x (heads x v_head_dim) (Kimi K3)
  // Kimi K3's attention residuals (llama.cpp src/models/kimi-k3.cpp): every layer scores the banked
  // residual checkpoints with two E-wide vectors (attn_res_score, ffn_res_score), the output with one;
  // a checkpoint is banked every attn_res_block layers. 0: none.
  std::int64_t attn_res_block = 0;
  std::int64_t indexer_heads = 0;   // DeepSeek sparse attention indexer (V3.2, GLM-5): heads
  std::int64_t indexer_head_dim = 0;
  std::int64_t indexer_top_k = 0;   // entries each query attends to (index_topk; llama.cpp deepseek32)
  bool post_norms = false;      // extra post-attention / post-FFN norms (Gemma 2/3)
  // Gemma 3n (llama.cpp src/llama-model.cpp, LLM_ARCH_GEMMA3N): a per-layer embedding table of
  // n_embd_per_layer x n_layer columns (an input-layer lookup, kept on the CPU like token_embd),
  // n_altup AltUp streams and LAuReL low-rank blocks of laurel_rank.
  std::int64_t n_embd_per_layer = 0;
  std::int64_t n_altup = 0;
  std::int64_t laurel_rank = 0;
  std::string native_dtype = "bf16";
  /// The checkpoint's MTP block holds its own copies of the token embedding and the output head,
  /// which llama.cpp's converter writes as nextn.embed_tokens and nextn.shared_head_head: GLM-4.5
  /// and GLM-4.5-Air do (their catalog entries say so), GLM-4.6 does not (llama.cpp PR #16359 made
  /// the two tensors optional for it), DeepSeek V3.2's converter always writes them.
  bool mtp_embed_head_copies = false;
  /// Empty when the shapes are exact; otherwise the code of why they are an approximation
  /// ("unsupported_model_type": a config of a type the importer does not know, read as a
  /// llama-style decoder from its standard keys).
  std::string approximate;

  std::int64_t n_layer_main() const;   // layers without the MTP ones
  std::int64_t n_layer_all() const { return static_cast<std::int64_t>(layers.size()); }
  bool is_moe() const { return moe.n_expert > 1; }
  bool is_mla() const { return mla.kv_lora_rank > 0; }
  /// DeepSeek sparse attention (DSA) beside MLA: DeepSeek V3.2 (`deepseek32`) and GLM-5
  /// (`glm-dsa`), whose lightning indexer keeps a key per token per layer in every engine's cache.
  bool has_dsa_indexer() const { return (gguf_arch == "deepseek32" || gguf_arch == "glm-dsa") && indexer_head_dim > 0; }
  /// Short human summary: "MoE 128x8 + GQA", "dense + sliding window" …
  std::string topology() const;
  /// The same facts as codes, for surfaces that word them in their own language:
  /// {"ffn": "dense"|"moe", "experts", "experts_used" (MoE only), "attention":
  /// "mla"|"hybrid_linear"|"mha"|"mqa"|"gqa", "window": "none"|"some_layers"|"all_layers"}.
  nlohmann::json topology_code() const;
};

/// Build an Architecture from a Hugging Face config.json document. `path` prefixes error paths
/// (e.g. "model.config"). Throws InputError (code "unsupported_model_type", "missing_field",
/// "bad_value", "unsupported_value") with the offending key. An unknown model_type is an error
/// naming it, unless `allow_approximate` is set and the config has the standard decoder keys
/// (hidden_size, num_hidden_layers, num_attention_heads, vocab_size, intermediate_size): then the
/// result is read as a llama-style decoder and marked `approximate = "unsupported_model_type"`.
/// The catalog never allows it; a person's own config does.
Architecture architecture_from_hf_config(const nlohmann::json& config, const std::string& path,
                                         bool allow_approximate = false);

/// model_type values the importer understands.
std::vector<std::string> supported_model_types();

const char* attn_kind_name(AttnKind k);

}  // namespace wif
