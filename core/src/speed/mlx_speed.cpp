// MLX's cache, working buffer and speed (mlx_speed.hpp). Sources: ml-explore/mlx-lm
// mlx_lm/models/cache.py (KVCache.step = 256, QuantizedKVCache), mlx_lm/generate.py
// (prefill_step_size = 2048, wired_limit), ml-explore/mlx mlx/backend/metal/allocator.cpp.
#include "willitfit/speed/mlx_speed.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/stats.hpp"

namespace wif {
namespace {

using nlohmann::json;

// The coefficients speed.hpp reads, set to MLX's: one backend class with the three fitted
// figures, no quant-family or device-class factors, no llama.cpp kernel-shape effects.
SpeedCoefficients mlx_coefficients(const MlxSpeedParams& p, const SpeedCoefficients& base) {
  SpeedCoefficients c;
  c.tflops_per_core = base.tflops_per_core;  // Apple peak FP16 per GPU core where a chip states none
  BackendSpeed b;
  b.bw_eff = p.bw_eff;
  b.layer_us = p.layer_us;
  b.flop_eff = p.flop_eff;
  b.fitted = true;
  c.backends["metal"] = b;
  c.moe_prefill = 1.0;
  c.expert_rows_half = 0;
  c.attn_eff = 1.0;
  return c;
}

struct MlxRow {
  json src;
  std::string kind;
  bool fitted = false;
  double tps = 0;
  // time per token = a / e + l x t (decode: a = bytes / bandwidth, l = layers; prefill:
  // a = FLOP time at e = 1, b = weight reads at the bandwidth share)
  double a = 0, l = 0, b = 0, lm = 0;  // lm: MoE layers (gather_qmm over the routed experts)
  bool ok = false;
  std::string why;
};

double mlx_predict(const MlxRow& r, double bw, double layer_us, double flop, double moe_us = 0) {
  if (r.kind == "tg") return 1.0 / (r.a / bw + r.l * layer_us * 1e-6 + r.lm * moe_us * 1e-6);
  return 1.0 / (r.a / flop + r.b / bw);
}

}  // namespace

namespace {

// What each mlx-lm model file caches on its MLA layers (ml-explore/mlx-lm, mlx_lm/models/<type>.py;
// the commit each was read at is given, checked 2026-12-06). A model_type not listed here that has
// MLA layers is refused under MLX (mlx_mla_layout: Unknown), not given the latent by default.
struct MlaLayoutEntry {
  const char* model_type;
  MlxMlaCache cache;
  bool quantizable;
};
constexpr MlaLayoutEntry kMlxMlaLayouts[] = {
    // deepseek_v3.py (commit 04e6af1): DeepseekV3Attention attends in the latent (embed_q /
    // unembed_out) and caches cache.update_and_fetch(kv_latent, k_pe). Its RoPE scores call
    // k_pe.swapaxes on what the cache returns, which a QuantizedKVCache gives as (packed, scales,
    // biases) tuples: --kv-bits fails with "'list' object has no attribute 'swapaxes'". Reported
    // on main in PR #1323 (2026-05-28), #1558 (2026-07-13) and #1800 (2026-08-28, "main @
    // 96830a6: FAILED"), each closed without being merged.
    {"deepseek_v3", MlxMlaCache::Latent, false},
    // kimi_k2: mlx_lm/utils.py MODEL_REMAPPING loads it with deepseek_v3.py.
    {"kimi_k2", MlxMlaCache::Latent, false},
    // kimi_k25.py (commit 04c161b): its language model is deepseek_v3.py's DeepseekV3Model.
    {"kimi_k25", MlxMlaCache::Latent, false},
    // glm4_moe_lite.py (commit 04e6af1): the same absorbed attention and the same failure with a
    // quantized cache (PR #1800 fixes both files; not merged).
    {"glm4_moe_lite", MlxMlaCache::Latent, false},
    // kimi_k3.py (commits 3b04b9f and b31bb21): KimiK3MLAAttention caches (kv_latent, k_pe) and
    // calls k_pe.swapaxes as deepseek_v3.py does; the crash under --kv-bits was reported on its PR
    // #1626 (2026-08-29) and neither stored version has a quantized branch.
    {"kimi_k3", MlxMlaCache::Latent, false},
    // deepseek_v32.py: make_cache gives every layer CacheList(KVCache(), KVCache()), the latent and
    // RoPE key in the first, the lightning indexer's key (zero-wide values) in the second; CacheList
    // has no to_quantized, so generate.py's kv_bits cannot convert it.
    {"deepseek_v32", MlxMlaCache::LatentIndexed, false},
    // glm_moe_dsa.py (commit 0352b8d): DeepseekV32Attention and the same CacheList on every layer.
    {"glm_moe_dsa", MlxMlaCache::LatentIndexed, false},
    // deepseek_v2.py (commit 04e6af1): DeepseekV2Attention decompresses kv_b_proj's output and
    // caches keys concatenate(k_nope, k_pe repeated to every head) and the values of every head in
    // a plain KVCache, which quantizes (PR #1509, 2026-07-09, which would have cached the latent,
    // was closed without being merged).
    {"deepseek_v2", MlxMlaCache::PerHead, true},
    // minicpm3.py (commit 19c64d6): the same decompressed keys and values of every head.
    {"minicpm3", MlxMlaCache::PerHead, true},
    // kimi_linear.py (commit eb7e535): KimiMLAAttention caches keys concatenate(k_pass, k_rot
    // broadcast to every head) and every head's values (a KVCache per MLA layer, a MambaCache per
    // KDA layer); the attention is the plain one, which quantizes.
    {"kimi_linear", MlxMlaCache::PerHead, true},
};

// The rows a layer caches per token: k_rows keys of k_width and v_rows values of v_width, and an
// indexed latent's indexer key (idx_width; its values are zero wide). Layers other than full
// attention and MLA cache none here.
struct CachedRows {
  std::int64_t k_rows = 0, k_width = 0, v_rows = 0, v_width = 0, idx_width = 0;
};

CachedRows cached_rows(const Architecture& a, const LayerSpec& L, MlxMlaCache c) {
  CachedRows r;
  if (L.is_mtp || !L.has_kv) return r;
  if (L.attn == AttnKind::Full) {
    r.k_rows = r.v_rows = L.n_head_kv;
    r.k_width = L.head_dim_k;
    r.v_width = L.head_dim_v;
  } else if (L.attn == AttnKind::MLA) {
    if (c == MlxMlaCache::PerHead) {
      r.k_rows = r.v_rows = L.n_head;
      r.k_width = a.mla.qk_nope_dim + a.mla.qk_rope_dim;
      r.v_width = a.mla.v_head_dim;
    } else {
      // The normalized latent as the keys, the RoPE key as the values: one row each.
      r.k_rows = r.v_rows = 1;
      r.k_width = a.mla.kv_lora_rank;
      r.v_width = a.mla.qk_rope_dim;
      if (c == MlxMlaCache::LatentIndexed) r.idx_width = a.indexer_head_dim;
    }
  }
  return r;
}

bool has_mla_layers(const Architecture& a) {
  return std::any_of(a.layers.begin(), a.layers.end(),
                     [](const LayerSpec& l) { return !l.is_mtp && l.has_kv && l.attn == AttnKind::MLA; });
}

}  // namespace

MlxMlaLayout mlx_mla_layout(const Architecture& a) {
  MlxMlaLayout l;
  if (!has_mla_layers(a)) return l;
  for (const auto& e : kMlxMlaLayouts)
    if (a.model_type == e.model_type) {
      l.cache = e.cache;
      l.quantizable = e.quantizable;
      return l;
    }
  l.cache = MlxMlaCache::Unknown;
  l.quantizable = false;
  return l;
}

std::string mlx_mla_cache_code(const MlxMlaLayout& l) {
  switch (l.cache) {
    case MlxMlaCache::Latent: case MlxMlaCache::LatentIndexed: return "latent";
    case MlxMlaCache::PerHead: return "per_head";
    case MlxMlaCache::None: case MlxMlaCache::Unknown: break;
  }
  return "";
}

Architecture mlx_attention_view(const Architecture& a) {
  Architecture v = a;
  if (mlx_mla_layout(a).cache != MlxMlaCache::PerHead) return v;
  for (LayerSpec& L : v.layers)
    if (L.attn == AttnKind::MLA) {
      L.attn = AttnKind::Full;
      L.n_head_kv = L.n_head;
      L.head_dim_k = a.mla.qk_nope_dim + a.mla.qk_rope_dim;
      L.head_dim_v = a.mla.v_head_dim;
    }
  return v;
}

namespace {

// DeepSeek V4 under mlx-lm (mlx_lm/models/deepseek_v4.py, commit 014a10b): make_cache gives every
// layer a RotatingKVCache of max_size sliding_window (a layer with a compression ratio holds it in
// a DeepseekV4Cache, as `local`). V4Attention stores its one key row as both the keys and the
// values (update_and_fetch(kv, kv)), so the window holds 2 x window rows of head_dim. A layer with
// ratio r adds its Compressor's pool: one head_dim row per r tokens (update_pool concatenates
// exact rows, no step), and the tokens not yet pooled (accumulate_windows keeps ctx mod r of them)
// as kv and gate rows of out_dim, head_dim x 2 for ratio 4 (overlapping windows) and head_dim for
// 128. Ratio 4 also has the Indexer's own Compressor, with index_head_dim rows. All in the
// activations' 16-bit type; no cache of this model can be quantized (RotatingKVCache.to_quantized
// raises, DeepseekV4Cache has none), which estimate.cpp refuses before this. The NextN layer is
// dropped at load (sanitize skips "mtp."), so it has no cache. `ctx` is exact: nothing pads it.
KvCache mlx_dsv4_cache(const Architecture& a, std::int64_t ctx, KvCache kv) {
  // The waiting rows are at most r - 1 tokens a layer, not cells that grow with the context: a
  // group of their own ("pending"), which the page words as tokens waiting to be compressed.
  KvGroup local{"sliding"}, csa{"compressed"}, hca{"compressed"}, waiting_rows{"pending"};
  std::uint64_t per_token = 0;
  const auto n = static_cast<std::uint64_t>(ctx);
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    const LayerSpec& L = a.layers[il];
    if (L.is_mtp || L.attn == AttnKind::None || !L.has_kv) continue;
    if (L.attn != AttnKind::Compressed)
      throw InputError("engine_cache_not_modelled", "engine",
                       "mlx-lm's cache for a DeepSeek V4 model with other attention layers is not modelled; choose llama.cpp",
                       {"llama.cpp"});
    const auto hd = static_cast<std::uint64_t>(L.head_dim_k);
    const std::uint64_t rows = std::min<std::uint64_t>(n, static_cast<std::uint64_t>(L.window));
    const std::uint64_t lb = 2u * rows * hd * 2u;
    local.layers += 1;
    local.cells = static_cast<std::int64_t>(rows);
    local.bytes_per_token += 2u * hd * 2u;
    local.bytes += lb;
    std::uint64_t pb = 0;
    if (L.compress_ratio > 0) {
      const auto r = static_cast<std::uint64_t>(L.compress_ratio);
      const bool indexed = r == 4;
      const std::uint64_t ih = indexed ? static_cast<std::uint64_t>(a.indexer_head_dim) : 0;
      const std::uint64_t pooled = n / r, waiting = n % r;
      const std::uint64_t width = hd + ih;                  // pooled row: the key, and the indexer's
      const std::uint64_t out = (indexed ? 2u : 1u) * (hd + ih);  // waiting row of each compressor
      const std::uint64_t wb = waiting * out * 2u * 2u;   // kv and gate rows wait
      KvGroup& g = indexed ? csa : hca;
      g.layers += 1;
      g.cells = static_cast<std::int64_t>(pooled);
      g.bytes_per_token += width * 2u;
      g.bytes += pooled * width * 2u;
      per_token += width * 2u / r;
      if (wb > 0) {
        waiting_rows.layers += 1;
        waiting_rows.bytes += wb;
      }
      pb = pooled * width * 2u + wb;
    }
    kv.per_layer[il] = lb + pb;
  }
  kv.n_ctx = ctx;
  kv.groups.clear();
  kv.total_bytes = 0;
  for (const KvGroup* g : {&local, &csa, &hca, &waiting_rows})
    if (g->layers > 0) {
      kv.groups.push_back(*g);
      kv.total_bytes += g->bytes;
    }
  kv.bytes_per_token_full = per_token;
  return kv;
}

}  // namespace

KvCache mlx_kv_cache(const Architecture& a, std::int64_t n_ctx, int kv_bits, int kv_group) {
  const MlxMlaLayout lay = mlx_mla_layout(a);
  if (lay.cache == MlxMlaCache::Unknown)
    throw InputError("engine_cache_not_modelled", "engine",
                     "what mlx-lm caches on the MLA layers of model_type '" + a.model_type.substr(0, 100) +
                         "' is not stated here; choose llama.cpp",
                     {"llama.cpp"});
  KvOptions o;
  const std::int64_t ctx = n_ctx > 0 ? n_ctx : a.n_ctx_train;
  o.n_ctx = (ctx + kMlxKvStep - 1) / kMlxKvStep * kMlxKvStep;  // KVCache grows by `step` cells
  o.n_seq = 1;
  o.unified = true;
  o.n_ubatch = 1;           // RotatingKVCache keeps at most the window
  o.type_k = o.type_v = GgmlType::F16;
  o.flash_attn = true;
  o.swa_full = false;
  o.mla_v_less = true;
  KvCache kv = llamacpp_kv_cache(a, o);
  if (a.recurrent.kind == "kda") {
    // Kimi Delta Attention under mlx-lm (mlx_lm/models/kimi_k3.py make_cache: an ArraysCache of
    // two per KDA layer): the short-convolution window of the q, k and v projections, d_conv - 1
    // rows of 3 x heads x head_dim in the activations' 16-bit type (ShortConv1d in
    // mlx_lm/models/kimi_linear.py keeps the tail of its input), and the delta-rule state, heads x
    // head_dim x head_dim in float32 (kimi_k3.py allocates it so; gated_delta.py's
    // gated_delta_update starts a missing state as float32 zeros and returns it in its own type).
    // llama.cpp keeps the window in f32 too, so only that part changes.
    const auto& rc = a.recurrent;
    const std::uint64_t inner = static_cast<std::uint64_t>(rc.n_v_heads * rc.k_head_dim);
    const std::uint64_t state = 2u * 3u * static_cast<std::uint64_t>(rc.d_conv - 1) * inner +
                                4u * static_cast<std::uint64_t>(rc.k_head_dim * rc.v_head_dim * rc.n_v_heads);
    for (auto& g : kv.groups)
      if (g.kind == "recurrent") {
        g.bytes = state * static_cast<std::uint64_t>(g.layers);
        for (std::size_t il = 0; il < a.layers.size(); ++il)
          if (!a.layers[il].is_mtp && a.layers[il].attn == AttnKind::Linear) kv.per_layer[il] = state;
      }
  }
  if (std::any_of(a.layers.begin(), a.layers.end(), [](const LayerSpec& l) { return l.attn == AttnKind::Compressed; }))
    return mlx_dsv4_cache(a, ctx, kv);
  // Full-attention and MLA layers: the rows mlx-lm's KVCache holds in the 16-bit type, or
  // QuantizedKVCache (mlx_lm/models/cache.py) at kv_bits: per row of d elements d / (32 / bits)
  // uint32 words (el_per_int = 32 // bits elements each) and a scale and a bias per group of
  // `group_size` elements in the keys' 16-bit type. maybe_quantize_kv_cache (mlx_lm/generate.py)
  // converts every layer cache that has to_quantized: KVCache; ChunkedKVCache has none and stays
  // 16-bit; recurrent layers keep their state. RotatingKVCache.to_quantized raises and CacheList
  // has none, so those models are refused before this (estimate.cpp), as are MLA layouts whose
  // attention fails on a quantized cache (mlx_mla_layout).
  auto row_bytes = [&](std::int64_t dim) -> std::uint64_t {
    if (dim <= 0) return 0;
    if (kv_bits <= 0) return static_cast<std::uint64_t>(2 * dim);
    const std::int64_t el_per_int = 32 / kv_bits;
    return static_cast<std::uint64_t>(4 * (dim / el_per_int) + 2 * 2 * (dim / kv_group));
  };
  const std::int64_t cells = kv.n_ctx;
  KvGroup full{"full"}, mla{"mla"}, idx{"indexer"};
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    const LayerSpec& L = a.layers[il];
    const CachedRows r = cached_rows(a, L, lay.cache);
    if (r.k_rows == 0 && r.v_rows == 0) continue;
    const std::uint64_t t = static_cast<std::uint64_t>(r.k_rows) * row_bytes(r.k_width) +
                            static_cast<std::uint64_t>(r.v_rows) * row_bytes(r.v_width);
    const std::uint64_t ti = row_bytes(r.idx_width);
    KvGroup& g = L.attn == AttnKind::MLA ? mla : full;
    g.layers += 1;
    g.bytes_per_token += t;
    if (ti > 0) {
      idx.layers += 1;
      idx.bytes_per_token += ti;
    }
    kv.per_layer[il] = (t + ti) * static_cast<std::uint64_t>(cells);
  }
  // llama.cpp's groups of those kinds give way to these, in their places; an indexer group llama.cpp
  // does not make (GLM-5's glm-dsa) comes last.
  std::uint64_t old_growing = 0;
  std::vector<KvGroup> groups;
  auto place = [&](KvGroup g) {
    if (g.layers == 0) return;
    g.cells = cells;
    g.bytes = g.bytes_per_token * static_cast<std::uint64_t>(cells);
    groups.push_back(g);
  };
  bool placed_full = false, placed_mla = false, placed_idx = false;
  for (const auto& g : kv.groups) {
    if (g.kind == "full" || g.kind == "mla" || g.kind == "indexer") {
      old_growing += g.bytes_per_token;
      if (g.kind == "full" && !placed_full) place(full), placed_full = true;
      if (g.kind == "mla" && !placed_mla) place(mla), placed_mla = true;
      if (g.kind == "indexer" && !placed_idx) place(idx), placed_idx = true;
      continue;
    }
    groups.push_back(g);
  }
  if (!placed_full) place(full);
  if (!placed_mla) place(mla);
  if (!placed_idx) place(idx);
  kv.groups = groups;
  kv.total_bytes = 0;
  for (const auto& g : kv.groups) kv.total_bytes += g.bytes;
  kv.bytes_per_token_full = kv.bytes_per_token_full - old_growing + full.bytes_per_token + mla.bytes_per_token + idx.bytes_per_token;
  return kv;
}

std::string mlx_kv_cache_type(int kv_bits, int kv_group) {
  return kv_bits > 0 ? "q" + std::to_string(kv_bits) + "_g" + std::to_string(kv_group) : "f16";
}

bool mlx_kv_group_divides(const Architecture& a, int kv_group) {
  if (kv_group <= 0) return false;
  const MlxMlaLayout lay = mlx_mla_layout(a);
  if (lay.cache == MlxMlaCache::Unknown) return false;
  auto ok = [kv_group](std::int64_t w) { return w <= 0 || w % kv_group == 0; };
  for (const LayerSpec& L : a.layers) {
    const CachedRows r = cached_rows(a, L, lay.cache);
    if (!(ok(r.k_width) && ok(r.v_width) && ok(r.idx_width))) return false;
  }
  return true;
}

std::int64_t mlx_moe_layers(const Architecture& a) {
  std::int64_t n = 0;
  for (const auto& l : a.layers) n += l.ffn == FfnKind::MoE && !l.is_mtp ? 1 : 0;
  return n;
}

std::uint64_t mlx_activation_bytes(const Architecture& a) {
  std::int64_t widest = 0, attn = 0;
  const std::int64_t routed = a.moe.n_ff_exp * std::max<std::int64_t>(1, a.moe.n_expert_used) + a.moe.n_shared * a.moe.n_ff_shexp;
  for (const auto& l : a.layers) {
    widest = std::max(widest, l.ffn == FfnKind::Dense ? l.n_ff : routed);
    attn = std::max(attn, l.n_head * l.head_dim_k + 2 * l.n_head_kv * std::max(l.head_dim_k, l.head_dim_v));
  }
  // Residual and normed stream (2 x n_embd), the attention projections, gate / up / their
  // product in the feed-forward (3 x widest); 16-bit elements.
  double per_token = 2.0 * static_cast<double>(a.n_embd) + static_cast<double>(attn) + 3.0 * static_cast<double>(widest);
  if (a.attn_res_block > 0) {
    // Kimi K3's attention residuals (mlx_lm/models/kimi_k3.py ResidualBlocks): the stream at the
    // start of every block of attn_res_block layers stays held until the output mix, 16-bit,
    // with a float32 inverse RMS per token (two 16-bit elements' worth).
    const auto blocks = static_cast<double>((a.n_layer_main() + a.attn_res_block - 1) / a.attn_res_block);
    per_token += blocks * (static_cast<double>(a.n_embd) + 2.0);
  }
  return static_cast<std::uint64_t>(per_token * 2.0 * static_cast<double>(kMlxPrefillStep));
}

MlxSpeedParams fit_mlx_speed(const Catalog& cat) {
  MlxSpeedParams p;
  const json* doc = cat.document("measurements/mlx.json");
  if (!doc || !doc->contains("runs") || !(*doc)["runs"].is_array()) return p;
  const SpeedCoefficients base = speed_coefficients(cat);
  MlxSpeedParams unit;
  unit.bw_eff = 1.0;
  unit.layer_us = 0.0;
  unit.flop_eff = 1.0;
  const SpeedCoefficients one = mlx_coefficients(unit, base);
  std::vector<MlxRow> rows;
  for (const auto& r : (*doc)["runs"]) {
    MlxRow row;
    row.src = r;
    row.kind = r.value("kind", "");
    row.fitted = r.value("fitted", false);
    row.tps = r.value("tps", 0.0);
    const ModelEntry* m = cat.find_model(r.value("model", ""));
    const Device* d = cat.find_device(r.value("device", ""));
    const auto q = find_quant(r.value("quant", ""));
    if (!m || !d || !q || q->container != "mlx" || row.tps <= 0 || (row.kind != "tg" && row.kind != "pp")) {
      row.why = !m ? "unknown_model" : !d ? "unknown_device" : !q ? "unknown_quant" : "bad_row";
      rows.push_back(row);
      continue;
    }
    const TensorPlan plan = plan_quantization(m->arch, q->id);
    KvOptions kv;  // F16 cache, flash attention: what kv_read_bytes needs
    // The runs are at mlx-lm's default 16-bit cache, read as mlx_speed reads it.
    if (mlx_mla_layout(m->arch).cache != MlxMlaCache::Unknown) kv.engine_layer_bytes_256 = mlx_speed_layer_bytes(m->arch, 0, 64);
    SpeedOptions o;
    o.prompt = std::max<std::int64_t>(1, r.value("prompt", 512));
    o.gen = std::max<std::int64_t>(1, r.value("gen", 128));
    o.n_ubatch = kMlxPrefillStep;
    o.curve = false;
    o.backend = "metal";
    if (row.kind == "tg") {
      // The mean step over the generated tokens: the step in the middle of them.
      o.depth = o.prompt + o.gen / 2;
      const SpeedResult s = estimate_speed(m->arch, plan, *d, kv, o, one);
      row.a = s.decode.weights_s + s.decode.kv_s;
      row.l = static_cast<double>(s.work.layers);
      row.lm = static_cast<double>(mlx_moe_layers(m->arch));
    } else {
      o.depth = 0;
      const SpeedResult s = estimate_speed(m->arch, plan, *d, kv, o, one);
      if (!s.prefill.available) {
        row.why = "no_flop_rate";
        rows.push_back(row);
        continue;
      }
      row.a = (s.prefill.matmul_s + s.prefill.attention_s) / static_cast<double>(o.prompt);
      row.b = s.prefill.weights_s / static_cast<double>(o.prompt);
    }
    row.ok = true;
    rows.push_back(row);
  }
  // Least squares on log(measured / predicted) over the fitted rows, by grid search (three
  // coefficients, a handful of rows).
  auto loss_tg = [&](double bw, double lu, double mu) {
    double s = 0;
    for (const auto& r : rows)
      if (r.ok && r.fitted && r.kind == "tg") s += std::pow(std::log(r.tps / mlx_predict(r, bw, lu, 1, mu)), 2);
    return s;
  };
  double best = 1e300;
  for (int i = 30; i <= 100; ++i)
    for (int j = 0; j <= 150; ++j)
      for (int k = 0; k <= 200; k += 2) {
        const double bw = i / 100.0, lu = j, mu = k;
        const double l = loss_tg(bw, lu, mu);
        if (l < best) { best = l; p.bw_eff = bw; p.layer_us = lu; p.moe_layer_us = mu; }
      }
  best = 1e300;
  for (int i = 5; i <= 100; ++i) {
    const double fe = i / 100.0;
    double s = 0;
    for (const auto& r : rows)
      if (r.ok && r.fitted && r.kind == "pp") s += std::pow(std::log(r.tps / mlx_predict(r, p.bw_eff, p.layer_us, fe)), 2);
    if (s < best) { best = s; p.flop_eff = fe; }
  }
  std::vector<double> tg_ratio, pp_ratio, tg_ape, pp_ape;
  for (auto& r : rows) {
    json j = r.src;
    if (!r.ok) {
      j["used"] = false;
      j["why"] = r.why;
      p.rows.push_back(j);
      continue;
    }
    const double pred = mlx_predict(r, p.bw_eff, p.layer_us, p.flop_eff, p.moe_layer_us);
    const double ratio = r.tps / pred;
    j["used"] = true;
    // The row's terms at unit coefficients (seconds per token): a / share + layers x cost (decode),
    // a / FLOP share + b / bandwidth share (prefill).
    j["terms"] = {{"a_s", r.a}, {"b_s", r.b}, {"layers", r.l}, {"moe_layers", r.lm}};
    j["predicted_tps"] = pred;
    j["error_pct"] = 100.0 * (pred / r.tps - 1.0);
    p.rows.push_back(j);
    (r.kind == "tg" ? (r.fitted ? p.fitted_tg : p.held_tg) : (r.fitted ? p.fitted_pp : p.held_pp)) += 1;
    if (!r.fitted) {
      (r.kind == "tg" ? tg_ratio : pp_ratio).push_back(ratio);
      (r.kind == "tg" ? tg_ape : pp_ape).push_back(100.0 * std::fabs(pred / r.tps - 1.0));
    }
  }
  // The range of a figure: the held-out rows' lowest and highest measured / predicted, never
  // narrower than +-15 %.
  auto range = [](const std::vector<double>& v, double& lo, double& hi) {
    lo = 0.85;
    hi = 1.15;
    for (double x : v) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  };
  range(tg_ratio, p.tg_low, p.tg_high);
  range(pp_ratio, p.pp_low, p.pp_high);
  p.tg_held_median_ape = median(tg_ape);
  p.pp_held_median_ape = median(pp_ape);
  p.tg_held_max_ape = tg_ape.empty() ? 0 : *std::max_element(tg_ape.begin(), tg_ape.end());
  p.pp_held_max_ape = pp_ape.empty() ? 0 : *std::max_element(pp_ape.begin(), pp_ape.end());
  return p;
}

std::vector<std::uint64_t> mlx_speed_layer_bytes(const Architecture& a, int kv_bits, int kv_group) {
  static_assert(kMlxKvStep == 256, "mlx_kv_cache at 256 tokens holds exactly 256 cells");
  return mlx_kv_cache(a, kMlxKvStep, kv_bits, kv_group).per_layer;
}

SpeedResult mlx_speed(const MlxSpeedParams& p, const SpeedCoefficients& base, const Architecture& a,
                      const TensorPlan& plan, const Device& d, const KvOptions& kv, int kv_bits, int kv_group,
                      const SpeedOptions& o, const std::string& model_id) {
  const SpeedCoefficients c = mlx_coefficients(p, base);
  SpeedOptions mo = o;
  mo.n_ubatch = kMlxPrefillStep;
  mo.backend = "metal";
  KvOptions k = kv;
  k.flash_attn = true;  // mx.fast.scaled_dot_product_attention reads K and V once per step
  // The cache mlx-lm holds (QuantizedKVCache's packed values with their scales and biases at
  // kv_bits), not llama.cpp's at -ctk / -ctv: the bytes the memory figure counts.
  k.engine_layer_bytes_256 = mlx_speed_layer_bytes(a, kv_bits, kv_group);
  // MLA layers mlx-lm decompresses (mlx_mla_layout PerHead) read and attend over every head's keys
  // and values, as full attention does.
  SpeedResult s = estimate_speed(mlx_attention_view(a), plan, d, k, mo, c);
  // MoE layers: mlx's gather_qmm over the chosen experts costs a fixed time per layer on top of
  // the reads (fitted as moe_layer_us); every decode figure takes it.
  const double extra = static_cast<double>(mlx_moe_layers(a)) * p.moe_layer_us * 1e-6;
  if (extra > 0 && s.decode.total_s > 0) {
    s.decode.overhead_s += extra;
    s.decode.total_s += extra;
    s.decode_tps = 1.0 / s.decode.total_s;
    if (s.gen_avg_tps > 0) s.gen_avg_tps = 1.0 / (1.0 / s.gen_avg_tps + extra);
    for (auto& v : s.curve_tps)
      if (v > 0) v = 1.0 / (1.0 / v + extra);
    s.total_ms = s.ttft_ms + (s.gen_avg_tps > 0 ? 1000.0 * static_cast<double>(mo.gen) / s.gen_avg_tps : 0);
  }
  s.decode_tps_low = s.decode_tps * p.tg_low;
  s.decode_tps_high = s.decode_tps * p.tg_high;
  if (s.prefill_available) {
    s.prefill_tps_low = s.prefill_tps * p.pp_low;
    s.prefill_tps_high = s.prefill_tps * p.pp_high;
  }
  s.group = "mlx";
  // A published run of this very model, format and device, when there is one.
  json measured = json::array();
  bool tg = false, pp = false;
  for (const auto& r : p.rows)
    if (r.value("model", "") == model_id && r.value("quant", "") == plan.quant && r.value("device", "") == d.id) {
      const std::string kind = r.value("kind", "");
      measured.push_back({{"kind", kind}, {"test", kind + std::to_string(r.value("prompt", 0))}, {"tps", r.value("tps", 0.0)},
                          {"row_id", r.value("row_id", "")}, {"source", r.value("source", "")}, {"date", r.value("date", "")}});
      (kind == "tg" ? tg : pp) = true;
    }
  json basis = {{"code", tg ? "measured" : "mlx_fitted"}, {"backend", "metal"}, {"engine", "mlx"},
                {"mlx", {{"bw_eff", p.bw_eff}, {"layer_us", p.layer_us}, {"moe_layer_us", p.moe_layer_us}, {"flop_eff", p.flop_eff},
                         {"fitted_rows", p.fitted_tg + p.fitted_pp}, {"held_out_rows", p.held_tg + p.held_pp},
                         {"held_out_median_error_pct", p.tg_held_median_ape},
                         {"held_out_prefill_median_error_pct", p.pp_held_median_ape}}},
                {"accuracy_group", {{"split", "mlx"}, {"backend", "metal"}, {"device_kind", device_kind_name(d.kind)},
                                    {"moe", a.is_moe()}, {"report_group", "mlx"}}}};
  if (!measured.empty()) basis["measured"] = measured;
  s.basis = {{"decode_label", tg ? "measured" : "mlx_fitted"}, {"basis", basis}};
  if (s.prefill_available) s.basis["prefill_label"] = pp ? "measured" : "mlx_fitted";
  return s;
}

json mlx_accuracy_json(const MlxSpeedParams& p) {
  return {{"coefficients", {{"bw_eff", p.bw_eff}, {"layer_us", p.layer_us}, {"moe_layer_us", p.moe_layer_us}, {"flop_eff", p.flop_eff}}},
          {"fitted", {{"tg", p.fitted_tg}, {"pp", p.fitted_pp}}},
          {"held_out", {{"tg", p.held_tg}, {"pp", p.held_pp},
                        {"tg_median_ape_pct", p.tg_held_median_ape}, {"pp_median_ape_pct", p.pp_held_median_ape},
                        {"tg_max_ape_pct", p.tg_held_max_ape}, {"pp_max_ape_pct", p.pp_held_max_ape}}},
          {"range", {{"tg_low", p.tg_low}, {"tg_high", p.tg_high}, {"pp_low", p.pp_low}, {"pp_high", p.pp_high}}},
          {"rule", "rows marked fitted set the four coefficients (least squares on log error); the others are held out"},
          {"rows", p.rows}};
}

json mlx_size_report(const Catalog& cat) {
  json out = json::array();
  const json* doc = cat.document("measurements/mlx.json");
  if (!doc || !doc->contains("sizes") || !(*doc)["sizes"].is_array()) return out;
  for (const auto& r : (*doc)["sizes"]) {
    json j = r;
    const ModelEntry* m = cat.find_model(r.value("model", ""));
    const auto q = find_quant(r.value("quant", ""));
    const double pub = r.value("bytes", 0.0);
    if (!m || !q || q->container != "mlx" || pub <= 0) {
      j["used"] = false;
      out.push_back(j);
      continue;
    }
    const TensorPlan plan = plan_quantization(m->arch, q->id);
    j["used"] = true;
    j["ours_bytes"] = plan.file_bytes;
    j["diff_pct"] = 100.0 * (static_cast<double>(plan.file_bytes) / pub - 1.0);
    out.push_back(j);
  }
  return out;
}

}  // namespace wif
