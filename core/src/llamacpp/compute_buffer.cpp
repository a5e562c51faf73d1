#include "willitfit/llamacpp/compute_buffer.hpp"

#include <algorithm>

namespace wif {

ComputeBuffer llamacpp_compute_buffer(const Architecture& a, const KvCache& kv,
                                      std::int64_t n_ubatch, bool flash_attn, std::int64_t n_seq) {
  ComputeBuffer c;
  const std::uint64_t ub = static_cast<std::uint64_t>(std::min<std::int64_t>(n_ubatch, kv.n_ctx));
  c.logits_bytes = 4 * ub * static_cast<std::uint64_t>(a.n_vocab + a.n_embd);
  std::uint64_t widest_ffn = 0, attn = 0;
  for (const auto& L : a.layers) {
    if (L.is_mtp) continue;
    std::uint64_t ff = 0;
    if (L.ffn == FfnKind::Dense) ff = 2 * static_cast<std::uint64_t>(L.n_ff);
    if (L.ffn == FfnKind::MoE)  // Gemma 4's dense MLP beside the experts runs before them
      ff = std::max(2 * static_cast<std::uint64_t>(a.moe.n_expert_used * a.moe.n_ff_exp +
                                                   a.moe.n_shared * a.moe.n_ff_shexp),
                    2 * static_cast<std::uint64_t>(L.n_ff));
    widest_ffn = std::max(widest_ffn, ff);
    if (!flash_attn && L.attn != AttnKind::Linear && L.attn != AttnKind::None) {
      // The KQ matrix spans every cell of the layer's cache (n_kv) for each query head.
      std::uint64_t cells = static_cast<std::uint64_t>(kv.n_ctx);
      if (L.attn == AttnKind::Sliding || L.attn == AttnKind::Chunked)
        cells = std::min<std::uint64_t>(cells, static_cast<std::uint64_t>(L.window + n_ubatch));
      if (L.attn == AttnKind::Compressed)  // DeepSeek V4: the window and the compressed entries
        cells = std::min<std::uint64_t>(cells, static_cast<std::uint64_t>(L.window + n_ubatch)) +
                (L.compress_ratio > 0 ? cells / static_cast<std::uint64_t>(L.compress_ratio) : 0);
      attn = std::max(attn, cells * static_cast<std::uint64_t>(L.n_head));
    }
  }
  c.ffn_bytes = 4 * ub * widest_ffn;
  c.attention_bytes = 4 * ub * attn;
  (void)n_seq;
  c.total_bytes = std::max(c.logits_bytes, c.attention_bytes + c.ffn_bytes);
  return c;
}

std::uint64_t device_compute_bytes(const ComputeBuffer& c, bool has_layers, bool has_output) {
  const std::uint64_t layer = has_layers ? c.attention_bytes + c.ffn_bytes : 0;
  return std::max(layer, has_output ? c.logits_bytes : 0);
}

}  // namespace wif
