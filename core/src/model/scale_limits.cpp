#include "willitfit/model/scale_limits.hpp"

#include <algorithm>

#include "willitfit/base/error.hpp"

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

}  // namespace wif
