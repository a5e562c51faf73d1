#include "willitfit/llamacpp/kv_cache.hpp"

#include <algorithm>

#include "willitfit/base/error.hpp"
#include "willitfit/model/scale_limits.hpp"

namespace wif {
namespace {

std::int64_t pad_to(std::int64_t x, std::int64_t a) { return (x + a - 1) / a * a; }

std::uint64_t row(GgmlType t, std::int64_t n) {
  // Cache rows are padded up to the block size only in the sense that n must divide; every head
  // width we meet (64..576) is a multiple of 32.
  const auto bs = ggml_info(t).block_size;
  const std::int64_t n_pad = pad_to(n, bs);
  return ggml_row_bytes(t, static_cast<std::uint64_t>(n_pad));
}

// One layer's cache joins its group: `per_token` bytes a cell, `cells` cells in each of `streams`;
// returns the layer's bytes.
std::uint64_t add_layer(KvGroup& g, std::int64_t cells, std::uint64_t per_token, std::int64_t streams) {
  const std::uint64_t b = per_token * static_cast<std::uint64_t>(cells) * static_cast<std::uint64_t>(streams);
  g.layers += 1;
  g.cells = cells;
  g.bytes_per_token += per_token;
  g.bytes += b;
  return b;
}

// Recurrent state per sequence per layer, in f32 (llama.cpp src/llama-memory-recurrent.cpp; both
// types fixed to F32 in llama_model::create_memory).
std::uint64_t recurrent_bytes(const Architecture& a) {
  const auto& r = a.recurrent;
  std::int64_t n_r = 0, n_s = 0;
  if (r.kind == "mamba2" || r.kind == "gated_delta_net") {
    n_r = (r.d_conv - 1) * (r.d_inner + 2 * r.n_group * r.d_state);
    n_s = r.d_state * r.d_inner;
    if (r.kind == "mamba2") n_s = r.d_state * r.d_inner;
  } else if (r.kind == "shortconv") {
    n_r = a.n_embd * (r.l_cache - 1);
  } else if (r.kind == "kda") {
    // llama_hparams::n_embd_r / n_embd_s for Kimi KDA: the q, k and v short convolutions keep
    // d_conv - 1 columns each; the delta-rule state is head_dim x head_dim per head.
    const std::int64_t inner = r.n_v_heads * r.k_head_dim;
    n_r = 3 * (r.d_conv - 1) * inner;
    n_s = r.k_head_dim * r.v_head_dim * r.n_v_heads;
  }
  return 4u * static_cast<std::uint64_t>(n_r + n_s);
}

}  // namespace

bool is_kv_cache_type(GgmlType t) {
  switch (t) {
    case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: case GgmlType::Q8_0:
    case GgmlType::Q4_0: case GgmlType::Q4_1: case GgmlType::IQ4_NL: case GgmlType::Q5_0:
    case GgmlType::Q5_1:
      return true;
    default:
      return false;
  }
}

KvCache llamacpp_kv_cache(const Architecture& a, const KvOptions& o) {
  std::int64_t n_ctx = o.n_ctx == 0 ? a.n_ctx_train : o.n_ctx;
  if (n_ctx <= 0) throw InputError("bad_value", "context", "the context must be at least 1 token");
  if (o.n_seq < 1) throw InputError("bad_value", "parallel", "parallel sequences must be at least 1");
  const bool quant_v = o.type_v != GgmlType::F16 && o.type_v != GgmlType::F32 && o.type_v != GgmlType::BF16;
  if (quant_v && !o.flash_attn)
    throw InputError("bad_value", "kv_type",
                     "llama.cpp needs flash attention for a quantized V cache (-fa on)");
  // llama.cpp pads n_ctx to 256 (PR #17046); without a unified cache each stream gets its own
  // padded share and n_ctx becomes n_ctx_seq * n_seq.
  std::int64_t n_ctx_seq = pad_to(n_ctx, 256);
  std::int64_t streams = 1;
  if (!o.unified && o.n_seq > 1) {
    n_ctx_seq = pad_to(n_ctx / o.n_seq, 256);
    streams = o.n_seq;
  }
  KvCache kv;
  kv.n_ctx = n_ctx_seq * streams;
  kv.per_layer.assign(a.layers.size(), 0);

  KvGroup full{"full"}, swa{"sliding"}, chunk{"chunked"}, mla{"mla"}, rec{"recurrent"};
  // DeepSeek V3.2's and GLM-5's lightning-indexer keys (llama.cpp llama_kv_cache_dsa: a second
  // K-only cache beside the MLA one, same cells, one key of indexer_head_dim per layer, type -ctk).
  // src/llama-model.cpp create_memory builds it for LLM_ARCH_DEEPSEEK32 and LLM_ARCH_GLM_DSA alike;
  // for GLM_DSA its filter_lid keeps only the layers whose indexer is "full" (PR #26474, merged
  // 2026-08-02; GLM-5.2's shared layers reuse an earlier layer's top-k).
  KvGroup idx{"indexer"};
  const bool dsa = a.has_dsa_indexer();
  // DeepSeek V4: ratio-4 (CSA, with indexer keys) and ratio-128 (HCA) compressed caches.
  KvGroup csa{"compressed"}, hca{"compressed"};
  std::uint64_t dsv4_compressed_per_token = 0;
  const std::int64_t swa_unified = o.unified ? o.n_seq : 1;
  const std::uint64_t rec_layer = recurrent_bytes(a) * static_cast<std::uint64_t>(std::max<std::int64_t>(1, o.n_seq));
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    const LayerSpec& L = a.layers[il];
    if (L.is_mtp) continue;  // NextN layers get no cache (has_kv is false past n_layer_kv)
    if (L.attn == AttnKind::Linear) {
      rec.layers += 1;
      rec.bytes += rec_layer;
      kv.per_layer[il] = rec_layer;
      continue;
    }
    if (L.attn == AttnKind::None || !L.has_kv) continue;
    if (L.attn == AttnKind::Compressed) {
      // DeepSeek V4 (llama.cpp src/llama-kv-cache-dsv4.cpp, llama_kv_cache_dsv4 constructor): all
      // caches are K-only (the key is also the value). Every layer keeps its keys over the sliding
      // window in llama_kv_cache_iswa (set_swa_pattern(0): all layers slide); a layer with ratio r
      // adds pad256(ceil(ctx / r)) compressed keys, ratio 4 also lightning-indexer keys of
      // indexer_head_dim for the same cells; the compressors' running kv and score rows are F32.
      const std::uint64_t key = row(o.type_k, L.head_dim_k);
      const std::int64_t wc = o.swa_full ? n_ctx_seq : std::min(n_ctx_seq, pad_to(L.window * swa_unified + o.n_ubatch, 256));
      std::uint64_t b = add_layer(swa, wc, key, streams);
      const std::int64_t r = L.compress_ratio;
      if (r > 0) {
        const std::int64_t cc = pad_to(std::max<std::int64_t>(1, (n_ctx_seq + r - 1) / r), 256);
        const bool indexed = r == 4;
        const std::uint64_t cell = key + (indexed ? row(o.type_k, a.indexer_head_dim) : 0);
        b += add_layer(indexed ? csa : hca, cc, cell, streams);
        dsv4_compressed_per_token += cell / static_cast<std::uint64_t>(r);
        // Compressor state rows (llama_dsv4_comp_state: kv and score, F32, one set per stream):
        // ratio 4 pools overlapping windows, 2r rows of 2 x head_dim, and its indexer 2r rows of
        // 2 x indexer_head_dim; ratio 128 keeps r rows of head_dim.
        const std::int64_t st = indexed ? 2 * r * 2 * L.head_dim_k + 2 * r * 2 * a.indexer_head_dim
                                        : r * L.head_dim_k;
        const std::uint64_t sb = 4u * 2u * static_cast<std::uint64_t>(st) * static_cast<std::uint64_t>(streams);
        rec.layers += 1;
        rec.bytes += sb;
        b += sb;
      }
      kv.per_layer[il] = b;
      continue;
    }
    KvGroup* g = &full;
    std::uint64_t per_tok = 0;
    std::int64_t cells = n_ctx_seq;
    if (L.attn == AttnKind::MLA) {
      g = &mla;
      const std::int64_t k = a.mla.kv_lora_rank + a.mla.qk_rope_dim;
      per_tok = row(o.type_k, k) + (o.mla_v_less ? 0 : row(o.type_v, a.mla.kv_lora_rank));
    } else {
      per_tok = row(o.type_k, L.head_dim_k * L.n_head_kv) + row(o.type_v, L.head_dim_v * L.n_head_kv);
      if ((L.attn == AttnKind::Sliding || L.attn == AttnKind::Chunked) && !o.swa_full) {
        g = L.attn == AttnKind::Sliding ? &swa : &chunk;
        cells = std::min(n_ctx_seq, pad_to(L.window * swa_unified + o.n_ubatch, 256));
      }
    }
    std::uint64_t b = add_layer(*g, cells, per_tok, streams);
    if (dsa && L.attn == AttnKind::MLA && !L.indexer_shared) {
      // llama_kv_cache_dsa's constructor builds the indexer cache with the MLA cache's kv_size,
      // n_seq_max and type_k: ggml_new_tensor_3d(type_k, indexer_head_size, kv_size, n_stream).
      b += add_layer(idx, cells, row(o.type_k, a.indexer_head_dim), streams);
    }
    kv.per_layer[il] = b;
  }
  for (KvGroup* g : {&full, &mla, &idx, &swa, &chunk, &csa, &hca, &rec})
    if (g->layers > 0) {
      kv.groups.push_back(*g);
      kv.total_bytes += g->bytes;
    }
  // DeepSeek V4's compressed caches grow by cell / ratio per token of context.
  kv.bytes_per_token_full = full.bytes_per_token + mla.bytes_per_token + idx.bytes_per_token + dsv4_compressed_per_token;
  return kv;
}

namespace {
using LD = long double;
LD d(std::int64_t x) { return static_cast<LD>(x); }
}  // namespace

void check_memory_scale(const Architecture& a, const KvOptions& o) {
  auto kv_bound = [&a](LD n_ctx, LD n_seq) {
    const LD ctx = n_ctx + 256 * n_seq;  // llama.cpp pads each stream to 256 cells
    LD kv = 0;
    for (const auto& L : a.layers)  // f32 is the widest cache type: 4 bytes per element
      kv += 4 * ctx * (d(L.n_head_kv) * d(L.head_dim_k + L.head_dim_v) + d(a.mla.kv_lora_rank + a.mla.qk_rope_dim) +
                       d(a.indexer_head_dim)) +
            4 * n_seq * recurrent_state_upper_bound(a);
    return kv;
  };
  const LD n_ctx = d(o.n_ctx == 0 ? a.n_ctx_train : o.n_ctx);
  if (kv_bound(n_ctx, d(o.n_seq)) > kMaxBytes)
    throw InputError("bad_value", o.n_seq > 1 && kv_bound(n_ctx, 1) <= kMaxBytes ? "parallel" : "context",
                     "the KV cache for this context would pass 1 EiB; ask for a smaller context");
  const LD ctx = n_ctx + 256 * d(o.n_seq);
  LD widest_head = 0;
  for (const auto& L : a.layers) widest_head = std::max(widest_head, d(L.n_head));
  const LD ffn = 2 * (d(a.moe.n_expert_used) * d(a.moe.n_ff_exp) + d(a.moe.n_shared) * d(a.moe.n_ff_shexp));
  LD widest_ff = ffn;
  for (const auto& L : a.layers) widest_ff = std::max(widest_ff, 2 * d(L.n_ff));
  const LD compute = 4 * d(o.n_ubatch) * (d(a.n_vocab) + d(a.n_embd) + widest_ff + ctx * widest_head);
  if (compute > kMaxBytes)
    throw InputError("bad_value", "ubatch", "the compute buffer for this batch would pass 1 EiB; use a smaller ubatch");
}

}  // namespace wif
