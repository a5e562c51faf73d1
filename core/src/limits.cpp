#include "willitfit/limits.hpp"

#include <algorithm>

#include "willitfit/error.hpp"

namespace wif {
namespace {
using LD = long double;
LD d(std::int64_t x) { return static_cast<LD>(x); }
}  // namespace

long double recurrent_state_upper_bound(const Architecture& a) {
  const auto& r = a.recurrent;
  // conv state (d_conv x channels) + SSM / delta-rule state + short-conv cache (kv_cache.cpp).
  return d(r.d_conv) * (d(r.d_inner) + 2 * d(r.n_group) * d(r.d_state)) + d(r.d_state) * d(r.d_inner) +
         d(a.n_embd) * d(r.l_cache);
}

long double weights_upper_bound(const Architecture& a) {
  const LD E = d(a.n_embd);
  const auto& m = a.mla;
  const auto& r = a.recurrent;
  const auto& moe = a.moe;
  LD w = 2 * E * d(a.n_vocab) + 4 * E * E;  // embeddings, output head, NextN projections
  for (const auto& L : a.layers) {
    const LD hd = d(std::max(L.head_dim_k, L.head_dim_v));
    w += E * (3 * d(L.n_head) * hd + 2 * d(L.n_head_kv) * hd) + d(L.n_head) * hd * E;
    w += (E + d(L.n_head) * d(m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim)) *
         (d(m.q_lora_rank) + d(m.kv_lora_rank) + d(m.qk_rope_dim) + E);
    w += (E + d(m.q_lora_rank)) * d(a.indexer_heads) * d(a.indexer_head_dim);
    const LD key = d(r.n_k_heads) * d(r.k_head_dim), val = d(r.n_v_heads) * d(r.v_head_dim);
    w += (E + d(r.d_conv) + 1) *
         (3 * d(r.d_inner) + 2 * d(r.n_group) * d(r.d_state) + 2 * key + val + 2 * d(r.n_v_heads)) +
         3 * E * E;
    w += 3 * E * d(L.n_ff);
    w += 3 * E * (d(moe.n_ff_exp) * d(moe.n_expert) + d(moe.n_ff_shexp) * d(moe.n_shared)) + E * d(moe.n_expert);
  }
  return w;
}

void check_architecture_scale(const Architecture& a, const std::string& path) {
  if (weights_upper_bound(a) > kMaxWeights)
    throw InputError("bad_value", path,
                     "this config describes more than 10^15 weights, beyond any model this tool can estimate");
  if (recurrent_state_upper_bound(a) > kMaxWeights)
    throw InputError("bad_value", path, "this config's recurrent state is too large to estimate");
}

void check_memory_scale(const Architecture& a, const KvOptions& o) {
  auto kv_bound = [&a](LD n_ctx, LD n_seq) {
    const LD ctx = n_ctx + 256 * n_seq;  // llama.cpp pads each stream to 256 cells
    LD kv = 0;
    for (const auto& L : a.layers)  // f32 is the widest cache type: 4 bytes per element
      kv += 4 * ctx * (d(L.n_head_kv) * d(L.head_dim_k + L.head_dim_v) + d(a.mla.kv_lora_rank + a.mla.qk_rope_dim)) +
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
