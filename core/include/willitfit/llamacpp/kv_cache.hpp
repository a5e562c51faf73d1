// Context memory the way llama.cpp allocates it (src/llama-kv-cache.cpp, llama-kv-cache-iswa.cpp,
// llama-memory-recurrent.cpp, llama-memory-hybrid.cpp; sizes chosen in llama_model::create_memory):
// padded context, unified or per-sequence streams, per-layer kinds (full, sliding-window cells,
// MLA latent, recurrent state) and the K/V cache types.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/model/architecture.hpp"
#include "willitfit/model/ggml_types.hpp"

namespace wif {

struct KvOptions {
  std::int64_t n_ctx = 8192;     // requested context (0 = the model's training context)
  std::int64_t n_seq = 1;        // parallel sequences (llama-server -np)
  bool unified = true;           // one shared cache (-kvu / server default) or a stream per sequence
  std::int64_t n_ubatch = 512;
  GgmlType type_k = GgmlType::F16;
  GgmlType type_v = GgmlType::F16;
  bool flash_attn = true;
  bool swa_full = false;         // --swa-full: sliding layers keep the whole context
  bool mla_v_less = true;        // llama.cpp from PR #19067 (2026-01) keeps no V for MLA
  // DeepSeek sparse attention at decode: read only the index_topk latent rows the indexer picks
  // (vLLM's and SGLang's sparse-MLA kernels gather them) rather than the whole latent, which
  // llama.cpp reads under a -inf mask (src/llama-graph.cpp, build_attn for the k_dsa input).
  // Speed only (kv_read_bytes); the cache's size is the same.
  bool dsa_gather = false;
  // An engine that keeps its own cache rather than llama.cpp's at type_k / type_v (MLX's
  // QuantizedKVCache at kv_bits, vLLM's and SGLang's pages at kv_cache_dtype): each layer's bytes
  // for 256 tokens of context (a recurrent layer's whole state), indexed as Architecture::layers,
  // taken from the same function that sizes that engine's cache. Empty = llama.cpp's own cache.
  // Speed only: kv_read_bytes reads these, so speed and memory count one cache.
  std::vector<std::uint64_t> engine_layer_bytes_256;
  // With those: the bytes of one lightning-indexer key in that cache (vLLM's and SGLang's FP8 key
  // with its scales), which a DeepSeek-sparse-attention decode reads for every token (dsa_gather);
  // 0 = a key at type_k.
  std::uint64_t engine_indexer_key_bytes = 0;
};

/// Bytes for one group of layers that size their cache the same way.
struct KvGroup {
  std::string kind;              // "full", "sliding", "chunked", "mla", "indexer", "recurrent", "compressed",
                                 // "pending" (mlx-lm's DeepSeek V4 rows not yet compressed)
  std::int64_t layers = 0;
  std::int64_t cells = 0;        // tokens kept per stream (0 for recurrent)
  std::uint64_t bytes_per_token = 0;  // all layers of the group, K+V (0 for recurrent)
  std::uint64_t bytes = 0;
};

struct KvCache {
  std::int64_t n_ctx = 0;        // after padding
  std::vector<KvGroup> groups;
  std::uint64_t total_bytes = 0;
  std::uint64_t bytes_per_token_full = 0;  // what each token of context adds to full/MLA layers
  std::vector<std::uint64_t> per_layer;    // bytes per layer index (for placement)
};

/// llama.cpp KV cache and recurrent state. Throws InputError for a quantized V cache without
/// flash attention (llama.cpp refuses it) or a non-positive context.
KvCache llamacpp_kv_cache(const Architecture& arch, const KvOptions& opt);

/// Cache types accepted by -ctk/-ctv.
bool is_kv_cache_type(GgmlType t);

/// Throws InputError("bad_value", "context"/"parallel") when the KV cache or compute buffer for
/// these settings would pass kMaxBytes (model/scale_limits.hpp). Call before llamacpp_kv_cache.
void check_memory_scale(const Architecture& a, const KvOptions& o);

}  // namespace wif
