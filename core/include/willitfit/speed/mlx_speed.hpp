// MLX (mlx-lm) on Apple silicon: the memory it holds besides the weights, and its speed.
//
// Memory (ml-explore/mlx-lm mlx_lm/models/cache.py, mlx_lm/generate.py):
//  * KVCache keeps K and V in the model's float type and grows in chunks of `step` = 256 tokens
//    (update_and_fetch rounds each growth up to a multiple of 256): a context of n tokens holds
//    ceil(n / 256) x 256 cells, the same padding llama.cpp gives its context, so the cache is
//    llama.cpp's F16 cache at that context. Sliding-window layers use RotatingKVCache (at most the
//    window); recurrent layers keep their state. QuantizedKVCache (--kv-bits, --kv-group-size 64)
//    holds each row of d elements in d / (32 / bits) uint32 words plus a scale and a bias per
//    group in the 16-bit float type (8 bits, group 64: 8.5 bits per element); full-attention
//    layers and the MLA layouts whose attention takes it are converted, chunked layers stay
//    16-bit, sliding ones cannot be. MLA layers hold what the model's own mlx-lm file caches
//    (mlx_mla_layout), which is not always llama.cpp's latent.
//  * Prefill runs in chunks of prefill_step_size = 2048 tokens (generate_step): the activations
//    of one chunk through the widest feed-forward are the working buffer.
//  * The cap is Metal's recommendedMaxWorkingSetSize: mlx-lm wires that much for generation
//    (generate.py wired_limit, mx.set_wired_limit) and warns when the weights pass 90 % of it;
//    mlx's allocator (mlx/backend/metal/allocator.cpp MetalAllocator) fails allocations past
//    1.5 x of it and pages long before. The same cap llama.cpp on Metal reports as the device's
//    memory (hardware/device.hpp usable_memory, iogpu.wired_limit_mb included).
//
// Speed: llama.cpp's speed model (speed.hpp: decode reads the active weights and the cache over
// the bandwidth plus a fixed cost per layer; prefill is matrix FLOPs over the peak plus one weight
// read per chunk) with MLX's own four coefficients (bandwidth share, per-layer cost, the extra
// cost of a MoE layer, FLOP share),
// fitted when the catalog loads on the `fitted` rows of data/measurements/mlx.json and checked on
// the held-out ones; every figure carries the held-out spread as its range.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/speed/speed.hpp"

namespace wif {

constexpr std::int64_t kMlxKvStep = 256;        // mlx_lm/models/cache.py KVCache.step
constexpr std::int64_t kMlxPrefillStep = 2048;  // mlx_lm/generate.py prefill_step_size

/// What mlx-lm's model file (chosen by the config's model_type) caches on an MLA layer. The
/// files differ: some attend in the latent (absorbed; the cache holds the latent), others
/// decompress every head's keys and values first and cache those (about 18x the latent's bytes
/// on Kimi Linear: 32 heads of 192 + 128 against 512 + 64).
enum class MlxMlaCache {
  None,           // the model has no MLA layers
  Latent,         // a KVCache of the normalized kv_lora_rank latent (keys) and the qk_rope_dim RoPE key (values)
  LatentIndexed,  // CacheList(KVCache, KVCache): that latent, plus the lightning indexer's index_head_dim key
  PerHead,        // a KVCache of every head's key (qk_nope + qk_rope wide) and value (v_head_dim wide)
  Unknown,        // MLA layers of a model_type whose mlx-lm cache is not stated here
};

/// The layout of a model's MLA layers under mlx-lm and whether its --kv-bits runs on them.
struct MlxMlaLayout {
  MlxMlaCache cache = MlxMlaCache::None;
  bool quantizable = true;  // false: mlx-lm's attention errors on a QuantizedKVCache (or has none)
};

/// The stated layout for this model's model_type (mlx_speed.cpp kMlxMlaLayouts, each entry with
/// the upstream file it was read from); None without MLA layers, Unknown for an unstated type.
MlxMlaLayout mlx_mla_layout(const Architecture& a);

/// The layout's code in the result (mlx.mla_cache): "latent" (also with the indexer beside it,
/// which is a cache group of its own) or "per_head"; empty for None and Unknown.
std::string mlx_mla_cache_code(const MlxMlaLayout& l);

/// mlx-lm's cache for one request of `n_ctx` tokens (0 = the model's own), with K/V in 16-bit
/// floats, or quantized to `kv_bits` (0 = not quantized; 2..8) in groups of `kv_group`. MLA layers
/// hold what mlx_mla_layout states; throws InputError engine_cache_not_modelled (path engine) for
/// MLA layers whose layout is Unknown, never a silent guess.
KvCache mlx_kv_cache(const Architecture& a, std::int64_t n_ctx, int kv_bits = 0, int kv_group = 64);

/// The model as mlx-lm's attention runs it, for the speed model: MLA layers it caches per head
/// become full-attention layers of n_head heads (keys qk_nope + qk_rope wide, values v_head_dim),
/// so the cache reads and attention FLOPs are those of the decompressed heads; otherwise `a`.
Architecture mlx_attention_view(const Architecture& a);

/// The name of that cache's type: "f16" (16-bit; 0 bits), else "q<bits>_g<group>" (q8_g64:
/// 8-bit elements with a scale and a bias per 64).
std::string mlx_kv_cache_type(int kv_bits, int kv_group);

/// Whether mlx-lm can quantize this model's cache in groups of kv_group: QuantizedKVCache quantizes
/// each cached row with mx.quantize, which needs the row's width to be a multiple of the group
/// (mlx/ops.cpp quantize). The rows: each full-attention layer's key and value heads, each MLA
/// layer's rows as mlx_mla_layout states them (the latent and the RoPE key, or every head's key
/// and value). Sliding-window layers, and MLA layouts mlx-lm cannot quantize, are refused apart
/// (estimate.cpp); an Unknown layout divides nothing.
bool mlx_kv_group_divides(const Architecture& a, int kv_group);

/// Activations of one prefill chunk (kMlxPrefillStep tokens, 16-bit): the residual stream, the
/// attention projections and the widest feed-forward (for MoE, the routed rows of every chosen
/// expert).
std::uint64_t mlx_activation_bytes(const Architecture& a);

/// Layers whose feed-forward is routed experts (MTP layers left out).
std::int64_t mlx_moe_layers(const Architecture& a);

/// The fitted coefficients and how well they hold.
struct MlxSpeedParams {
  double bw_eff = 0.7;         // share of peak bandwidth decode reaches
  double layer_us = 10;        // fixed cost per layer per decode step, microseconds
  double moe_layer_us = 0;     // extra per MoE layer per decode step (gather_qmm), microseconds
  double flop_eff = 0.5;       // share of the device's peak FP16 rate prefill reaches
  int fitted_tg = 0, fitted_pp = 0, held_tg = 0, held_pp = 0;
  // measured / predicted over the held-out rows (the range of every figure)
  double tg_low = 0.8, tg_high = 1.2, pp_low = 0.7, pp_high = 1.3;
  double tg_held_median_ape = 0, pp_held_median_ape = 0, tg_held_max_ape = 0, pp_held_max_ape = 0;
  nlohmann::json rows = nlohmann::json::array();  // every row with its prediction (the report)
};

/// Fit on data/measurements/mlx.json (`runs`, fitted rows) and check on the held-out ones
/// (estimate/catalog_memo.hpp memo_mlx_speed keeps one per catalog).
MlxSpeedParams fit_mlx_speed(const Catalog& cat);

/// Speed of one request on one Apple device: the speed.hpp result with MLX's coefficients, its
/// range from the held-out spread, and `basis` {code: "mlx_fitted"|"measured", rows …}. The cache
/// each decode step reads is mlx_kv_cache's at `kv_bits` / `kv_group` (mlx_speed_layer_bytes),
/// the one the memory figure holds.
SpeedResult mlx_speed(const MlxSpeedParams& p, const SpeedCoefficients& base, const Architecture& a, const TensorPlan& plan, const Device& d,
                      const KvOptions& kv, int kv_bits, int kv_group, const SpeedOptions& o, const std::string& model_id);

/// Each layer's bytes in mlx_kv_cache for 256 tokens (KvOptions::engine_layer_bytes_256): what
/// the speed model reads per token of context under MLX, quantized or not.
std::vector<std::uint64_t> mlx_speed_layer_bytes(const Architecture& a, int kv_bits, int kv_group);

/// The accuracy report's `mlx` block: coefficients, fitted / held-out counts and errors, rows.
nlohmann::json mlx_accuracy_json(const MlxSpeedParams& p);

/// `sizes` of data/measurements/mlx.json against the planned checkpoint bytes (each row with
/// ours, published and the difference in percent).
nlohmann::json mlx_size_report(const Catalog& cat);

}  // namespace wif
