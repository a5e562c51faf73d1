#include "willitfit/model/scale_limits.hpp"

#include <algorithm>

#include "willitfit/base/error.hpp"

namespace wif {
namespace {
using LD = long double;
LD as_ld(std::int64_t x) { return static_cast<LD>(x); }
}  // namespace

long double recurrent_state_upper_bound(const Architecture& a) {
  const auto& r = a.recurrent;
  // conv state (d_conv x channels) + SSM / delta-rule state + short-conv cache (kv_cache.cpp).
  return as_ld(r.d_conv) * (as_ld(r.d_inner) + 2 * as_ld(r.n_group) * as_ld(r.d_state)) + as_ld(r.d_state) * as_ld(r.d_inner) +
         as_ld(a.n_embd) * as_ld(r.l_cache);
}

long double weights_upper_bound(const Architecture& a) {
  const LD E = as_ld(a.n_embd);
  const auto& m = a.mla;
  const auto& r = a.recurrent;
  const auto& moe = a.moe;
  LD w = 2 * E * as_ld(a.n_vocab) + 4 * E * E;  // embeddings, output head, NextN projections
  for (const auto& L : a.layers) {
    const LD hd = as_ld(std::max(L.head_dim_k, L.head_dim_v));
    w += E * (3 * as_ld(L.n_head) * hd + 2 * as_ld(L.n_head_kv) * hd) + as_ld(L.n_head) * hd * E;
    w += (E + as_ld(L.n_head) * as_ld(m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim)) *
         (as_ld(m.q_lora_rank) + as_ld(m.kv_lora_rank) + as_ld(m.qk_rope_dim) + E);
    w += (E + as_ld(m.q_lora_rank)) * as_ld(a.indexer_heads) * as_ld(a.indexer_head_dim);
    const LD key = as_ld(r.n_k_heads) * as_ld(r.k_head_dim), val = as_ld(r.n_v_heads) * as_ld(r.v_head_dim);
    w += (E + as_ld(r.d_conv) + 1) *
         (3 * as_ld(r.d_inner) + 2 * as_ld(r.n_group) * as_ld(r.d_state) + 2 * key + val + 2 * as_ld(r.n_v_heads)) +
         3 * E * E;
    w += 3 * E * as_ld(L.n_ff);
    w += 3 * E * (as_ld(moe.n_ff_exp) * as_ld(moe.n_expert) + as_ld(moe.n_ff_shexp) * as_ld(moe.n_shared)) + E * as_ld(moe.n_expert);
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
