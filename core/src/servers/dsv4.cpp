// DeepSeek V4's caches under vLLM and SGLang (dsv4.hpp has the rules and their sources).
#include "willitfit/servers/dsv4.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "willitfit/base/error.hpp"

namespace wif {
namespace {

std::int64_t v4_cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::uint64_t v4_round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

// vLLM's block sizes for V4 (sparse_swa.py get_preferred_block_size 256; DeepseekV4SWACache 64;
// CompressorStateCache 4 at ratio 4 and 8 at ratio 128).
constexpr std::int64_t kV4Block = 256, kV4SwaBlock = 64, kV4C4StateBlock = 4, kV4C128StateBlock = 8;
// FlashMLA's page alignment for the fp8_ds_mla layout and the compressor states (576 bytes);
// plain bf16 rows and their indexer pages align to 512.
constexpr std::uint64_t kV4AlignDs = 576, kV4AlignPlain = 512;
constexpr std::int64_t kV4QuantBlock = 128;  // indexer keys: one float32 scale per 128 FP8 values

struct V4Counts {
  std::int64_t all = 0, c4 = 0, c128 = 0;
  std::int64_t head_dim = 0, rope = 0, window = 0;
};

V4Counts v4_counts(const Architecture& a) {
  V4Counts c;
  for (const auto& L : a.layers) {
    if (L.is_mtp || L.attn != AttnKind::Compressed) continue;
    c.all += 1;
    if (L.compress_ratio == 4) c.c4 += 1;
    if (L.compress_ratio == 128) c.c128 += 1;
    c.head_dim = L.head_dim_k;
    c.window = L.window;
  }
  c.rope = a.mla.qk_rope_dim > 0 ? a.mla.qk_rope_dim : 64;
  return c;
}

// _approximate_gcd: the d in [lower, max] with the least upward padding, ties to the larger d.
std::int64_t v4_approximate_gcd(const std::vector<std::int64_t>& v, std::int64_t lower) {
  const std::int64_t hi = *std::max_element(v.begin(), v.end());
  const std::int64_t lo = std::max<std::int64_t>(1, lower);
  if (lo > hi) return lo;
  std::int64_t best = lo, best_pad = -1;
  for (std::int64_t d = lo; d <= hi; ++d) {
    std::int64_t pad = 0;
    for (std::int64_t x : v) pad += (d - x % d) % d;
    if (best_pad < 0 || pad < best_pad || (pad == best_pad && d > best)) {
      best_pad = pad;
      best = d;
    }
  }
  return best;
}

}  // namespace

bool is_dsv4(const Architecture& a) {
  return std::any_of(a.layers.begin(), a.layers.end(), [](const LayerSpec& l) { return l.attn == AttnKind::Compressed; });
}

Dsv4VllmLayout dsv4_vllm_layout(const Architecture& a, const std::string& kv) {
  Dsv4VllmLayout l;
  if (kv == "auto" || kv == "fp8" || kv == "fp8_e4m3" || kv == "fp8_e5m2" || kv == "fp8_ds_mla") l.fp8_ds_mla = true;
  else if (kv == "bfloat16" || kv == "float16" || kv == "half") l.fp8_ds_mla = false;
  else
    throw InputError("bad_value", "kv_cache_dtype",
                     "vLLM kv_cache_dtype must be auto, bfloat16, float16, fp8, fp8_e4m3 or fp8_e5m2",
                     {"auto", "bfloat16", "fp8"});
  const V4Counts c = v4_counts(a);
  const std::int64_t idx = a.indexer_head_dim;
  // A key row: 448 FP8 NoPE + 64 BF16 RoPE + 8 scale bytes (sparse_swa.py get_kv_cache_shape;
  // kv_cache_interface.py: "448B NoPE + 128B RoPE + 8B fp8 scale = 584B"); a plain 16-bit row.
  const std::int64_t nope = c.head_dim - c.rope;
  l.key_bytes = l.fp8_ds_mla ? static_cast<std::uint64_t>(nope + c.rope * 2 + 8) : static_cast<std::uint64_t>(c.head_dim * 2);
  l.indexer_bytes = static_cast<std::uint64_t>(idx + idx / kV4QuantBlock * 4);
  const std::uint64_t align = l.fp8_ds_mla ? kV4AlignDs : kV4AlignPlain;
  // Pages (one layer, one block).
  const std::uint64_t swa_page = v4_round_up(static_cast<std::uint64_t>(kV4SwaBlock) * l.key_bytes, align);
  const std::uint64_t c4_page = v4_round_up(static_cast<std::uint64_t>(kV4Block / 4) * l.key_bytes, align);
  const std::uint64_t c128_page = v4_round_up(static_cast<std::uint64_t>(kV4Block / 128) * l.key_bytes, align);
  const std::uint64_t idx_page = v4_round_up(static_cast<std::uint64_t>(kV4Block / 4) * l.indexer_bytes, align);
  // Compressor states: float32 rows of 2 x overlap x width (kv and score), always 576-aligned.
  const std::uint64_t c4_state = v4_round_up(static_cast<std::uint64_t>(kV4C4StateBlock * 2 * 2 * c.head_dim * 4), kV4AlignDs);
  const std::uint64_t c4_idx_state = v4_round_up(static_cast<std::uint64_t>(kV4C4StateBlock * 2 * 2 * idx * 4), kV4AlignDs);
  const std::uint64_t c128_state = v4_round_up(static_cast<std::uint64_t>(kV4C128StateBlock * 2 * 1 * c.head_dim * 4), kV4AlignDs);
  // The compressed group: ratio-4 keys, their indexer keys, ratio-128 keys.
  std::map<std::uint64_t, std::int64_t> mla_sizes;
  if (c.c4 > 0) { mla_sizes[c4_page] += c.c4; mla_sizes[idx_page] += c.c4; }
  if (c.c128 > 0) mla_sizes[c128_page] += c.c128;
  std::int64_t mla_tuples = 0;
  std::uint64_t mla_dense = 0;
  for (const auto& [p, n] : mla_sizes) {
    l.tuple_pages.push_back(p);
    l.tuple_bytes += p;
    mla_tuples = std::max(mla_tuples, n);
    mla_dense += p * static_cast<std::uint64_t>(n);
  }
  if (l.tuple_pages.empty()) return l;  // window-only layers: not a V4 layout vLLM builds
  // A window-group page padded to the nearest larger page of the compressed group.
  auto pad = [&](std::uint64_t p) {
    std::uint64_t best = 0;
    for (std::uint64_t q : l.tuple_pages)
      if (q >= p && (best == 0 || q < best)) best = q;
    return best == 0 ? p : best;
  };
  struct V4Bucket { std::string kind; std::int64_t block, window, tuples; std::uint64_t tuple_bytes; };
  std::vector<V4Bucket> buckets;
  buckets.push_back({"sliding", kV4SwaBlock, c.window, c.all, pad(swa_page)});
  if (c.c4 > 0) buckets.push_back({"compressor_state", kV4C4StateBlock, 2 * 4, c.c4, pad(c4_state) + pad(c4_idx_state)});
  if (c.c128 > 0) buckets.push_back({"compressor_state", kV4C128StateBlock, 128, c.c128, pad(c128_state)});
  std::vector<std::int64_t> tuples = {mla_tuples};
  for (const auto& b : buckets) tuples.push_back(b.tuples);
  const std::int64_t d = v4_approximate_gcd(tuples, mla_tuples);
  l.groups.push_back({"compressed", mla_tuples, kV4Block, 0, mla_dense});
  std::int64_t most = mla_tuples;
  for (const auto& b : buckets) {
    const std::int64_t parts = v4_cdiv(b.tuples, d);
    for (std::int64_t i = 0; i < parts; ++i) {
      // layer_tuples[i::parts]: the i-th of `parts` interleaved slices.
      const std::int64_t n = (b.tuples - i + parts - 1) / parts;
      l.groups.push_back({b.kind, n, b.block, b.window, b.tuple_bytes * static_cast<std::uint64_t>(n)});
      most = std::max(most, n);
    }
  }
  l.layer_tuples = most;
  l.block_bytes = static_cast<std::uint64_t>(most) * l.tuple_bytes;
  l.sparse_bytes_per_token = static_cast<double>(c.c4) * static_cast<double>(l.key_bytes) / 4.0;
  l.dense_bytes_per_token = static_cast<double>(c.c4) * static_cast<double>(l.indexer_bytes) / 4.0 +
                            static_cast<double>(c.c128) * static_cast<double>(l.key_bytes) / 128.0;
  return l;
}

std::int64_t dsv4_vllm_blocks(const Dsv4VllmLayout& l, std::int64_t len, std::int64_t batched) {
  std::int64_t n = 0;
  for (const auto& g : l.groups) {
    if (g.window <= 0) n += v4_cdiv(len, g.block_tokens);  // SlidingWindowSpec.max_admission_blocks_per_request
    else n += v4_cdiv(std::min(g.window - 1 + batched, len), g.block_tokens) + 1;
  }
  return n;
}

Dsv4SglangPool dsv4_sglang_pool(const Architecture& a, double available, std::int64_t max_running) {
  Dsv4SglangPool p;
  const V4Counts c = v4_counts(a);
  const double key = static_cast<double>(c.head_dim - c.rope + c.rope * 2 + 8);  // 584
  const double idx = static_cast<double>(a.indexer_head_dim + a.indexer_head_dim / kV4QuantBlock * 4);  // 132
  const double hd = static_cast<double>(c.head_dim);
  constexpr double kStateBytes = 4;    // SGLANG_DSV4_COMPRESS_STATE_DTYPE default float32
  constexpr double kC4Ring = 8, kC128Ring = 128;  // get_compress_state_ring_size, no drafting
  constexpr std::int64_t kPage = 256;
  const double window = static_cast<double>(c.window > 0 ? c.window : 128);  // swa_page_size
  const double c4_state = 2 * 2 * hd * kStateBytes, c4_idx_state = 2 * 2 * static_cast<double>(a.indexer_head_dim) * kStateBytes;
  const double n_all = static_cast<double>(c.all), n4 = static_cast<double>(c.c4), n128 = static_cast<double>(c.c128);
  p.bytes_per_full_token = p.swa_ratio * key * n_all + key / 4 * n4 + key / 128 * n128 + idx / 4 * n4 +
                           p.swa_ratio * (kC4Ring / window) * (c4_state + c4_idx_state) * n4;
  // _estimate_c128_state_fixed_overhead_bytes: (requests + 1) rings of 128 rows of 2 x head_dim floats.
  p.fixed_bytes = static_cast<std::uint64_t>(static_cast<double>(max_running + 1) * kC128Ring * 2 * hd * kStateBytes * n128);
  const double eff = available - static_cast<double>(p.fixed_bytes);
  const std::int64_t full = eff > 0 ? static_cast<std::int64_t>(eff / p.bytes_per_full_token) : 0;
  p.full_tokens = full / kPage * kPage;
  p.swa_tokens = static_cast<std::int64_t>(static_cast<double>(p.full_tokens) * p.swa_ratio) / kPage * kPage;
  p.sparse_bytes_per_token = key / 4 * n4;
  p.dense_bytes_per_token = idx / 4 * n4 + key / 128 * n128;
  return p;
}

}  // namespace wif
