#include "willitfit/speed/speed.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/speed/speed_basis.hpp"

namespace wif {
namespace {

using text::lower;

bool is_mtp_layer(const Architecture& a, int layer) {
  return layer >= 0 && static_cast<std::size_t>(layer) < a.layers.size() &&
         a.layers[static_cast<std::size_t>(layer)].is_mtp;
}

// Sum over query positions p = d+1 … d+n of the tokens each attends: min(p, w) (w <= 0: all).
double attended_sum(double d, double n, double w) {
  auto full = [](double lo, double hi) {  // sum of p for p in (lo, hi]
    return (hi * (hi + 1) - lo * (lo + 1)) / 2;
  };
  if (w <= 0 || d + n <= w) return full(d, d + n);
  if (d >= w) return n * w;
  return full(d, w) + (d + n - w) * w;
}

double get_or(const std::map<std::string, double>& m, const std::string& k, double dflt) {
  auto it = m.find(k);
  return it == m.end() ? dflt : it->second;
}

}  // namespace

std::string backend_class(const std::string& backend) {
  std::string b = lower(backend);
  if (b.rfind("cuda", 0) == 0) return "cuda";
  if (b.rfind("metal", 0) == 0 || b == "mps" || b == "mlx") return "metal";
  if (b.rfind("rocm", 0) == 0 || b.rfind("hip", 0) == 0) return "rocm";
  if (b.rfind("vulkan", 0) == 0) return "vulkan";
  if (b.rfind("sycl", 0) == 0) return "sycl";
  if (b.rfind("cpu", 0) == 0) return "cpu";
  return b;
}

std::string device_class_key(const Device& d, const std::string& backend) {
  if (backend == "vulkan" || backend == "sycl") return backend + "/" + lower(d.vendor) + "/" + device_kind_name(d.kind);
  return backend + "/" + device_kind_name(d.kind);
}

SpeedRange speed_range(const SpeedCoefficients& c, const std::string& kind, const std::string& group,
                       const std::string& backend) {
  if (!backend.empty())
    if (auto it = c.ranges.find(kind + "/" + group + "/" + backend); it != c.ranges.end()) return it->second;
  if (auto it = c.ranges.find(kind + "/" + group); it != c.ranges.end()) return it->second;
  SpeedRange r;
  r.low = kind == "tg" ? c.decode_low : c.prefill_low;
  r.high = kind == "tg" ? c.decode_high : c.prefill_high;
  return r;
}

std::string quant_family(const TensorPlan& plan) {
  std::map<std::string, std::uint64_t> bytes;
  for (const auto& t : plan.tensors) {
    if (t.n_dims < 2) continue;
    std::string f;
    switch (t.type) {
      case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: f = "f16"; break;
      case GgmlType::Q4_0: case GgmlType::Q4_1: case GgmlType::Q5_0: case GgmlType::Q5_1:
      case GgmlType::Q8_0: case GgmlType::IQ4_NL: f = "legacy"; break;
      case GgmlType::Q2_K: case GgmlType::Q3_K: case GgmlType::Q4_K: case GgmlType::Q5_K:
      case GgmlType::Q6_K: f = "kquant"; break;
      case GgmlType::MXFP4: case GgmlType::NVFP4: f = "mxfp4"; break;
      default: f = "iquant"; break;
    }
    bytes[f] += t.bytes;
  }
  std::string best = "f16";
  std::uint64_t most = 0;
  for (const auto& [f, b] : bytes)
    if (b > most) { most = b; best = f; }
  return best;
}

ModelWork model_work(const Architecture& a, const TensorPlan& plan, const TensorFilter& on_device) {
  ModelWork w;
  const double used_frac = a.is_moe() ? static_cast<double>(a.moe.n_expert_used) / static_cast<double>(a.moe.n_expert) : 1.0;
  std::set<int> layers, linear;
  for (const auto& t : plan.tensors) {
    if (is_mtp_layer(a, t.layer)) continue;  // NextN layers are skipped at load (llama_model::load_tensors, TENSOR_SKIP)
    if (on_device && !on_device(t)) continue;
    if (t.layer >= 0) {
      layers.insert(t.layer);
      if (static_cast<std::size_t>(t.layer) < a.layers.size() &&
          a.layers[static_cast<std::size_t>(t.layer)].attn == AttnKind::Linear)
        linear.insert(t.layer);
    }
    const double bytes = static_cast<double>(t.bytes);
    const double n = static_cast<double>(t.n_elements());
    if (t.role == TensorRole::TokenEmbd) {
      // A lookup reads one row per token; with tied embeddings the same matrix is also the output head.
      w.decode_weight_bytes += bytes / static_cast<double>(std::max<std::int64_t>(1, t.ne[1]));
      if (a.tied_embeddings && is_main_token_table(t)) {
        w.decode_weight_bytes += bytes;
        w.decode_flops += 2 * n;
      }
      continue;
    }
    if (t.role == TensorRole::Output) {
      // Decode computes logits every step; llama-bench prefill only for the last prompt token.
      w.decode_weight_bytes += bytes;
      w.decode_flops += 2 * n;
      continue;
    }
    const double flops = t.n_dims >= 2 ? 2 * n : 0;
    if (t.is_expert()) {
      // A decode step reads only the routed experts' slices (MUL_MAT_ID); a prefill micro-batch of
      // hundreds of tokens touches every expert, so a pass reads them all.
      w.decode_weight_bytes += bytes * used_frac;
      w.pass_weight_bytes += bytes;
      w.expert_pass_bytes += bytes;
      w.matmul_flops += flops * used_frac;
      w.expert_matmul_flops += flops * used_frac;
      w.decode_flops += flops * used_frac;
      continue;
    }
    w.decode_weight_bytes += bytes;
    w.pass_weight_bytes += bytes;
    w.matmul_flops += flops;
    w.decode_flops += flops;
  }
  w.layers = static_cast<std::int64_t>(layers.size());
  w.linear_layers = static_cast<std::int64_t>(linear.size());
  if (a.is_moe()) w.expert_share = used_frac;
  return w;
}

double kv_read_bytes(const Architecture& a, const KvOptions& kv, std::int64_t depth, const LayerFilter& on_device) {
  // Per-token bytes of each layer, from the cache sized for 256 cells (one padded block, one
  // stream): the engine's own cache when it keeps one (KvOptions::engine_layer_bytes_256).
  std::vector<std::uint64_t> own;
  const bool engine = kv.engine_layer_bytes_256.size() == a.layers.size() && !a.layers.empty();
  if (!engine) {
    KvOptions one = kv;
    one.n_ctx = 256;
    one.n_seq = 1;
    one.unified = true;
    one.swa_full = false;
    own = llamacpp_kv_cache(a, one).per_layer;
  }
  const std::vector<std::uint64_t>& per_layer = engine ? kv.engine_layer_bytes_256 : own;
  const double d = static_cast<double>(std::max<std::int64_t>(0, depth));
  double total = 0;
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    const LayerSpec& L = a.layers[il];
    if (L.is_mtp || (on_device && !on_device(static_cast<std::int64_t>(il)))) continue;
    if (L.attn == AttnKind::Compressed) {
      // DeepSeek V4 decode (llama.cpp src/models/deepseek4.cpp): the window's keys, then for
      // ratio 4 every lightning-indexer key (ctx / 4) and the top-k compressed keys it picks, for
      // ratio 128 every compressed key (ctx / 128).
      const double key = static_cast<double>(ggml_row_bytes(kv.type_k, static_cast<std::uint64_t>(L.head_dim_k)));
      total += key * std::min(d, static_cast<double>(L.window));
      if (L.compress_ratio > 0) {
        const double n_c = std::floor(d / static_cast<double>(L.compress_ratio));
        if (L.compress_ratio == 4) {
          const double ikey = static_cast<double>(ggml_row_bytes(kv.type_k, static_cast<std::uint64_t>(a.indexer_head_dim)));
          total += ikey * n_c + key * std::min(n_c, static_cast<double>(a.dsv4.index_topk));
        } else {
          total += key * n_c;
        }
      }
      continue;
    }
    double layer_bytes = static_cast<double>(per_layer[il]);
    // Without flash attention the KQ and KQV matmuls broadcast each KV head over its group of
    // query heads (ggml mul_mat broadcasting over dim 2), so K and V stream once per query head
    // of the group rather than once; the fused flash-attention kernel reads them once.
    if (!kv.flash_attn && L.attn != AttnKind::MLA && L.attn != AttnKind::Linear && L.n_head_kv > 0)
      layer_bytes *= static_cast<double>(L.n_head) / static_cast<double>(L.n_head_kv);
    switch (L.attn) {
      case AttnKind::Linear: total += layer_bytes; break;  // fixed state, read once per step
      case AttnKind::Sliding: case AttnKind::Chunked:
        total += layer_bytes / 256.0 * std::min(d, static_cast<double>(L.window));
        break;
      case AttnKind::MLA:
        if (kv.dsa_gather && a.has_dsa_indexer() && a.indexer_top_k > 0) {
          // Every indexer key is scored; the latent is read for at most index_topk entries.
          const double ikey = engine && kv.engine_indexer_key_bytes > 0
                                  ? static_cast<double>(kv.engine_indexer_key_bytes)
                                  : static_cast<double>(ggml_row_bytes(kv.type_k, static_cast<std::uint64_t>(a.indexer_head_dim)));
          total += ikey * d + (layer_bytes / 256.0 - ikey) * std::min(d, static_cast<double>(a.indexer_top_k));
          break;
        }
        total += layer_bytes / 256.0 * d;  // llama.cpp masks, and reads, the whole latent
        break;
      case AttnKind::Full: total += layer_bytes / 256.0 * d; break;
      case AttnKind::None: case AttnKind::Compressed: break;
    }
  }
  return total;
}

double attention_flops(const Architecture& a, std::int64_t n_tokens, std::int64_t depth, const LayerFilter& on_device) {
  double total = 0;
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    const LayerSpec& L = a.layers[il];
    if (L.is_mtp || (on_device && !on_device(static_cast<std::int64_t>(il)))) continue;
    if (L.attn == AttnKind::Linear || L.attn == AttnKind::None) continue;
    if (L.attn == AttnKind::Compressed) {
      // DeepSeek V4: every head scores and mixes 512-wide keys (also the values) over the window
      // and over the compressed entries (token p sees p / r of them, at most index_topk for
      // ratio 4, whose indexer also scores all p / 4 indexer keys with its own heads).
      const double r = static_cast<double>(L.compress_ratio), dd = static_cast<double>(depth),
                   nn = static_cast<double>(n_tokens);
      double keys = attended_sum(dd, nn, static_cast<double>(L.window));
      if (L.compress_ratio > 0) {
        const double cap = L.compress_ratio == 4 ? static_cast<double>(a.dsv4.index_topk) : 0;
        keys += r * attended_sum(dd / r, nn / r, cap);
        if (L.compress_ratio == 4)
          total += 2.0 * static_cast<double>(a.indexer_heads * a.indexer_head_dim) * r * attended_sum(dd / r, nn / r, 0);
      }
      total += 2.0 * static_cast<double>(L.n_head) * static_cast<double>(2 * L.head_dim_k) * keys;
      continue;
    }
    // QK^T and PV: 2 FLOPs per multiply-add, over the key and value widths of every query head.
    // MLA runs absorbed in llama.cpp: keys are the latent + RoPE part, values the latent.
    double width = static_cast<double>(L.head_dim_k + L.head_dim_v);
    if (L.attn == AttnKind::MLA) width = static_cast<double>(2 * a.mla.kv_lora_rank + a.mla.qk_rope_dim);
    const double w = (L.attn == AttnKind::Sliding || L.attn == AttnKind::Chunked) ? static_cast<double>(L.window) : 0;
    total += 2.0 * static_cast<double>(L.n_head) * width *
             attended_sum(static_cast<double>(depth), static_cast<double>(n_tokens), w);
  }
  return total;
}

bool plan_is_mmq_legacy(const TensorPlan& plan) {
  std::uint64_t legacy = 0, all = 0;
  for (const auto& t : plan.tensors) {
    if (t.n_dims < 2) continue;
    all += t.bytes;
    if (t.type == GgmlType::Q4_0 || t.type == GgmlType::Q4_1 || t.type == GgmlType::Q5_0 || t.type == GgmlType::Q5_1)
      legacy += t.bytes;
  }
  return all > 0 && 2 * legacy > all;
}

bool plan_is_bf16(const TensorPlan& plan) {
  std::uint64_t bf16 = 0, all = 0;
  for (const auto& t : plan.tensors) {
    if (t.n_dims < 2) continue;
    all += t.bytes;
    if (t.type == GgmlType::BF16) bf16 += t.bytes;
  }
  return all > 0 && 2 * bf16 > all;
}

DeviceRateBasis device_rate_basis(const Device& d, const std::string& backend, const std::string& family, bool bf16,
                                  bool mmq_legacy) {
  DeviceRateBasis b;
  b.backend = backend_class(backend.empty() ? d.backend : backend);
  b.family = family;
  b.class_key = device_class_key(d, b.backend);
  b.bandwidth_gbs = d.bandwidth_gbs;
  // ggml-cuda (ggml_cuda_op_mul_mat_cublas) runs BF16 weights with CUBLAS_COMPUTE_32F; GeForce
  // tensor cores do that at half their FP16-accumulate rate (NVIDIA Ampere/Ada/Blackwell whitepapers).
  b.peak_tflops = bf16 && d.bf16_tflops > 0 ? d.bf16_tflops : d.fp16_tflops;
  if (d.cuda_compute_capability > 0 && d.cuda_compute_capability < 7.0) {
    // No tensor cores before Volta (7.0). llama.cpp's CUDA backend multiplies quantized weights
    // with its MMQ kernels, built on __dp4a from compute capability 6.1 (ggml/src/ggml-cuda/
    // common.cuh GGML_CUDA_CC_DP4A; mmq.cu ggml_cuda_should_use_mmq), and everything else, or every
    // matrix below 6.1, through FP32 GEMMs: a 6.1 part's FP16 rate is 1/64 of FP32 and not used
    // (common.cuh fast_fp16_available). Vulkan has no dp4a path there: FP32 shaders.
    const bool dp4a = b.backend == "cuda" && d.cuda_compute_capability >= 6.1 - 1e-9 && family != "f16" &&
                      d.int8_tops > 0;
    b.peak_tflops = dp4a ? d.int8_tops : d.fp32_tflops;
    b.peak_kind = dp4a ? "dp4a_int8" : "fp32";
  } else if (b.backend == "rocm" && family != "f16" && d.int8_tops > 0 && d.facts.is_object() &&
             d.facts.value("amd_gfx_target", "") == "gfx906") {
    // Vega 20 (Instinct MI50/MI60, Radeon VII) has neither MFMA nor WMMA, so llama.cpp's ROCm
    // build multiplies quantized weights with its MMQ kernels (ggml/src/ggml-cuda/mmq.cu,
    // ggml_cuda_should_use_mmq: MMQ for AMD parts that are not CDNA), whose integer dot products
    // are v_dot4_i32_i8 (common.cuh ggml_cuda_dp4a: __builtin_amdgcn_sdot4 on __gfx906__), at the
    // INT8 rate, twice the packed FP16 rate that fp16_tflops holds
    // (https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/common.cuh).
    b.peak_tflops = d.int8_tops;
    b.peak_kind = "dp4a_int8";
  } else if (b.backend == "rocm" && mmq_legacy && d.int8_tops > 0 && d.int8_tops < 1.5 * b.peak_tflops) {
    // On CDNA (MFMA) parts llama.cpp's ROCm build multiplies Q4_0, Q4_1, Q5_0 and Q5_1 weights with
    // its MMQ kernels at every batch size (K-quants only up to 256 rows, other types up to 128, then
    // FP16 GEMMs through hipBLAS), and MMQ multiplies int8 by int8 with the MFMA i8 instructions
    // (ggml/src/ggml-cuda/mmq.cu, ggml_cuda_should_use_mmq, the amd_mfma_available branch:
    // https://github.com/ggml-org/llama.cpp/blob/027ef8769913a5f665e287c5e1f13d9d633a9d57/ggml/src/ggml-cuda/mmq.cu).
    // The fitted efficiencies are against fp16_tflops on GPUs whose INT8 matrix rate is twice it
    // (NVIDIA since Turing, RDNA4, CDNA3), so MMQ's INT8 peak counts as int8_tops / 2. CDNA1 and
    // CDNA2 run INT8 MFMA at their FP16 rate, not twice it (AMD: MI100 184.6 and 184.6, MI210 181
    // and 181), so these weights get half the FP16 figure there.
    b.peak_tflops = d.int8_tops / 2;
  } else if (b.peak_tflops <= 0 && d.facts.is_object() && d.facts.contains("gpu_cores") &&
             d.facts["gpu_cores"].is_number()) {
    // No stated FP16 rate: cores x the per-core rate of that GPU family (speed.json).
    b.gpu_cores = d.facts["gpu_cores"].get<double>();
    b.core_key = d.kind == DeviceKind::Apple ? "apple" : lower(d.vendor);
  }
  return b;
}

DeviceRates device_rates(const DeviceRateBasis& b, const SpeedCoefficients& c) {
  DeviceRates r;
  r.backend = b.backend;
  BackendSpeed bs;
  if (auto it = c.backends.find(r.backend); it != c.backends.end()) bs = it->second;
  const double bw = b.bandwidth_gbs * 1e9;
  r.kv_bw_bytes_s = bw * bs.bw_eff;
  r.bw_bytes_s = r.kv_bw_bytes_s * get_or(c.decode_quant, b.family, 1.0);
  r.layer_s = bs.layer_us * 1e-6;
  r.linear_step_s = r.layer_s * c.linear_step_layers;
  r.linear_chunk_s = r.layer_s * c.linear_chunk_layers;
  const double peak = b.peak_tflops > 0 ? b.peak_tflops
                      : b.gpu_cores > 0 ? b.gpu_cores * get_or(c.tflops_per_core, b.core_key, 0.0)
                                        : 0.0;
  r.peak_kind = b.peak_kind;
  r.peak_tflops = peak;
  if (peak > 0) {
    r.flops_s = peak * 1e12 * bs.flop_eff * get_or(c.prefill_quant, b.family, 1.0) *
                get_or(c.flop_class, b.class_key, 1.0) * get_or(c.peak_kind_eff, b.peak_kind, 1.0);
    r.moe_flops_s = r.flops_s * (bs.moe_eff > 0 ? bs.moe_eff : c.moe_prefill);
    r.attn_flops_s = r.flops_s * c.attn_eff;
    r.expert_rows_half = c.expert_rows_half;
  }
  return r;
}

DeviceRates device_rates(const Device& d, const std::string& backend, const std::string& family,
                         const SpeedCoefficients& c, bool bf16, bool mmq_legacy) {
  return device_rates(device_rate_basis(d, backend, family, bf16, mmq_legacy), c);
}

DecodeTerms decode_step(const ModelWork& w, double kv_bytes, const DeviceRates& r) {
  DecodeTerms t;
  t.weights_s = r.bw_bytes_s > 0 ? w.decode_weight_bytes / r.bw_bytes_s : 0;
  t.kv_s = r.kv_bw_bytes_s > 0 ? kv_bytes / r.kv_bw_bytes_s : 0;
  t.overhead_s = static_cast<double>(w.layers) * r.layer_s + static_cast<double>(w.linear_layers) * r.linear_step_s;
  t.total_s = t.weights_s + t.kv_s + t.overhead_s;
  return t;
}

PrefillTerms prefill_time(const ModelWork& w, double attn_flops, std::int64_t n_tokens, std::int64_t n_ubatch,
                          const DeviceRates& r) {
  PrefillTerms t;
  if (r.flops_s <= 0 || r.bw_bytes_s <= 0 || n_tokens <= 0) return t;
  t.available = true;
  const double n = static_cast<double>(n_tokens);
  const double dense = w.matmul_flops - w.expert_matmul_flops;
  const double ub = std::min(n, static_cast<double>(std::max<std::int64_t>(1, n_ubatch)));
  // MUL_MAT_ID runs one GEMM per expert over the tokens routed to it, about ub x k / n_expert rows
  // (llama.cpp ggml/src/ggml-cuda/mmq.cu and ggml-metal mul_mm_id group rows by expert): small
  // expert batches reach a lower share of the matmul rate.
  double moe_rate = r.moe_flops_s;
  if (r.expert_rows_half > 0 && w.expert_share > 0) {
    const double rows = ub * w.expert_share;
    moe_rate *= rows / (rows + r.expert_rows_half);
  }
  t.matmul_s = n * (dense / r.flops_s + (w.expert_matmul_flops > 0 ? w.expert_matmul_flops / moe_rate : 0));
  t.attention_s = attn_flops / (r.attn_flops_s > 0 ? r.attn_flops_s : r.flops_s);
  // Each micro-batch streams the weights once and pays the per-layer launch cost once.
  const double passes = std::ceil(n / ub);
  t.weights_s = passes * (w.pass_weight_bytes / r.bw_bytes_s + static_cast<double>(w.layers) * r.layer_s);
  // Linear-attention layers run their recurrence in 64-token chunks (llama.cpp
  // src/models/qwen3next.cpp CHUNK_SIZE, build_delta_net_chunking), a fixed cost per chunk.
  if (w.linear_layers > 0)
    t.weights_s += passes * std::ceil(ub / 64.0) * static_cast<double>(w.linear_layers) * r.linear_chunk_s;
  t.total_s = t.matmul_s + t.attention_s + t.weights_s;
  return t;
}

double average_decode_tps(const ModelWork& w, const Architecture& a, const KvOptions& kv, std::int64_t depth,
                          std::int64_t n, const DeviceRates& r) {
  // Step time is linear in depth (piecewise, for windows): a trapezoid over 8 spans is exact enough.
  const int spans = n > 1 ? 8 : 1;
  double sum = 0;
  for (int i = 0; i <= spans; ++i) {
    const std::int64_t d = depth + (n > 1 ? (n - 1) * i / spans : 0);
    const double s = decode_step(w, kv_read_bytes(a, kv, d), r).total_s;
    sum += (i == 0 || i == spans) ? s / 2 : s;
  }
  const double avg = sum / spans;
  return avg > 0 ? 1.0 / avg : 0;
}

SpeedResult estimate_speed(const Architecture& a, const TensorPlan& plan, const Device& d, const KvOptions& kv,
                           const SpeedOptions& o, const SpeedCoefficients& c) {
  SpeedResult s;
  s.family = quant_family(plan);
  s.work = model_work(a, plan);
  s.rates = device_rates(d, o.backend, s.family, c, plan_is_bf16(plan), plan_is_mmq_legacy(plan));
  s.backend = s.rates.backend;
  if (s.rates.bw_bytes_s <= 0)
    throw InputError("bad_value", "hardware.bandwidth_gbs", "the device needs a memory bandwidth for a speed estimate");
  s.kv_bytes_at_depth = kv_read_bytes(a, kv, o.depth);
  s.decode = decode_step(s.work, s.kv_bytes_at_depth, s.rates);
  s.decode_tps = 1.0 / s.decode.total_s;
  const SpeedRange dr = speed_range(c, "tg", "single", s.backend), pr = speed_range(c, "pp", "single", s.backend);
  s.decode_tps_low = s.decode_tps * dr.low;
  s.decode_tps_high = s.decode_tps * dr.high;
  s.gen_avg_tps = average_decode_tps(s.work, a, kv, o.depth + o.prompt, std::max<std::int64_t>(1, o.gen), s.rates);
  s.prefill = prefill_time(s.work, attention_flops(a, o.prompt, o.depth), o.prompt, o.n_ubatch, s.rates);
  s.prefill_available = s.prefill.available;
  if (s.prefill.available) {
    s.prefill_tps = static_cast<double>(o.prompt) / s.prefill.total_s;
    s.prefill_tps_low = s.prefill_tps * pr.low;
    s.prefill_tps_high = s.prefill_tps * pr.high;
    s.ttft_ms = s.prefill.total_s * 1000.0;
  }
  s.total_ms = s.ttft_ms + (s.gen_avg_tps > 0 ? 1000.0 * static_cast<double>(o.gen) / s.gen_avg_tps : 0);
  std::int64_t max_d = o.curve_max_depth > 0 ? o.curve_max_depth : (a.n_ctx_train > 0 ? a.n_ctx_train : 32768);
  max_d = std::min<std::int64_t>(max_d, 131072);
  for (int i = 0; o.curve && i <= 16; ++i) {
    const std::int64_t dd = max_d * i / 16;
    s.curve_depth.push_back(static_cast<double>(dd));
    s.curve_tps.push_back(1.0 / decode_step(s.work, kv_read_bytes(a, kv, dd), s.rates).total_s);
  }
  return s;
}

nlohmann::json speed_to_json(const SpeedResult& s, const SpeedOptions& o) {
  using nlohmann::json;
  auto ms = [](double sec) { return sec * 1000.0; };
  json j = {
      {"backend", s.backend}, {"quant_family", s.family},
      {"prompt", o.prompt}, {"gen", o.gen}, {"depth", o.depth},
      {"decode_tps", s.decode_tps}, {"decode_tps_low", s.decode_tps_low}, {"decode_tps_high", s.decode_tps_high},
      {"gen_avg_tps", s.gen_avg_tps},
      {"prefill_available", s.prefill_available},
      {"total_ms", s.total_ms},
      {"terms", {{"decode_weights_ms", ms(s.decode.weights_s)}, {"decode_kv_ms", ms(s.decode.kv_s)},
                 {"decode_overhead_ms", ms(s.decode.overhead_s)}, {"decode_step_ms", ms(s.decode.total_s)},
                 {"prefill_matmul_ms", ms(s.prefill.matmul_s)}, {"prefill_attention_ms", ms(s.prefill.attention_s)},
                 {"prefill_weights_ms", ms(s.prefill.weights_s)},
                 {"weight_bytes_per_token", s.work.decode_weight_bytes}, {"kv_bytes_per_token", s.kv_bytes_at_depth},
                 {"flops_per_prompt_token", s.work.matmul_flops}, {"layers", s.work.layers},
                 {"effective_bandwidth_gbs", s.rates.bw_bytes_s / 1e9},
                 {"effective_tflops", s.rates.flops_s / 1e12}, {"peak_tflops", s.rates.peak_tflops},
                 {"peak_kind", s.rates.peak_kind}}},
      {"curve", {{"depth", s.curve_depth}, {"decode_tps", s.curve_tps}}},
  };
  if (s.basis.is_object()) j.update(s.basis);
  if (s.prefill_available) {
    j["prefill_tps"] = s.prefill_tps;
    j["prefill_tps_low"] = s.prefill_tps_low;
    j["prefill_tps_high"] = s.prefill_tps_high;
    j["ttft_ms"] = s.ttft_ms;
    // The time to first token is the prompt at the prefill rate, so its range is the prefill
    // range read the other way: the fastest prefill gives the shortest wait.
    if (s.prefill_tps > 0 && s.prefill_tps_low > 0 && s.prefill_tps_high > 0) {
      j["ttft_ms_low"] = s.ttft_ms * s.prefill_tps / s.prefill_tps_high;
      j["ttft_ms_high"] = s.ttft_ms * s.prefill_tps / s.prefill_tps_low;
    }
  }
  return j;
}

// ---- coefficients ----------------------------------------------------------------------------

SpeedCoefficients speed_coefficients_from_json(const nlohmann::json& doc, const std::string& path) {
  SpeedCoefficients c;
  if (!doc.is_object()) throw InputError("bad_type", path, "speed.json holds one object");
  c.source = opt_str(doc, "source", path).value_or("");
  c.checked = opt_str(doc, "checked", path).value_or("");
  c.fitted_on = opt_str(doc, "fitted_on", path).value_or("");
  if (doc.contains("backends")) {
    const auto& arr = doc["backends"];
    if (!arr.is_array()) throw InputError("bad_type", join_path(path, "backends"), "expected a list");
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const std::string p = join_path(path, "backends") + "[" + std::to_string(i) + "]";
      BackendSpeed b;
      const std::string id = req_str(arr[i], "id", p);
      b.bw_eff = req_num(arr[i], "bw_eff", p, 0.01, 1.5);
      b.layer_us = req_num(arr[i], "layer_us", p, 0, 10000);
      b.flop_eff = req_num(arr[i], "flop_eff", p, 0.001, 1.5);
      b.moe_eff = opt_num(arr[i], "moe_eff", p, 0, 10).value_or(0);
      b.fitted = opt_bool(arr[i], "fitted", p).value_or(false);
      c.backends[id] = b;
    }
  }
  auto table = [&](const char* key, std::map<std::string, double>& out) {
    if (!doc.contains(key)) return;
    if (!doc[key].is_object()) throw InputError("bad_type", join_path(path, key), "expected an object");
    for (const auto& [k, v] : doc[key].items()) {
      if (v.is_object()) out[k] = req_num(v, "value", join_path(join_path(path, key), k), 1e-6, 1e6);
      else out[k] = req_num(doc[key], k, join_path(path, key), 1e-6, 1e6);
    }
  };
  table("decode_quant", c.decode_quant);
  table("prefill_quant", c.prefill_quant);
  table("tflops_per_core", c.tflops_per_core);
  table("flop_class", c.flop_class);
  table("peak_kind_eff", c.peak_kind_eff);
  c.moe_prefill = opt_num(doc, "moe_prefill", path, 0.01, 10).value_or(1.0);
  c.expert_rows_half = opt_num(doc, "expert_rows_half", path, 0, 4096).value_or(0);
  c.attn_eff = opt_num(doc, "attn_eff", path, 0.01, 10).value_or(1.0);
  c.linear_step_layers = opt_num(doc, "linear_step_layers", path, 0, 1000).value_or(0);
  c.linear_chunk_layers = opt_num(doc, "linear_chunk_layers", path, 0, 1000).value_or(0);
  c.host_copy_gbs = opt_num(doc, "host_copy_gbs", path, 0, 1000).value_or(0);
  if (doc.contains("pageable_copy_share") && doc["pageable_copy_share"].is_object())
    c.pageable_copy_share = req_num(doc["pageable_copy_share"], "value", join_path(path, "pageable_copy_share"), 0.05, 1);
  if (doc.contains("range")) {
    const auto& r = doc["range"];
    const std::string p = join_path(path, "range");
    c.decode_low = req_num(r, "decode_low", p, 0.01, 1);
    c.decode_high = req_num(r, "decode_high", p, 1, 100);
    c.prefill_low = req_num(r, "prefill_low", p, 0.01, 1);
    c.prefill_high = req_num(r, "prefill_high", p, 1, 100);
    if (r.contains("groups")) {
      const auto& g = r["groups"];
      const std::string gp = join_path(p, "groups");
      if (!g.is_object()) throw InputError("bad_type", gp, "expected an object");
      for (const auto& [k, v] : g.items()) {
        SpeedRange x;
        x.low = req_num(v, "low", join_path(gp, k), 0.01, 1);
        x.high = req_num(v, "high", join_path(gp, k), 1, 100);
        x.rows = static_cast<int>(opt_num(v, "rows", join_path(gp, k), 0, 1e6).value_or(0));
        c.ranges[k] = x;
      }
    }
  }
  return c;
}

nlohmann::json speed_coefficients_to_json(const SpeedCoefficients& c) {
  using nlohmann::json;
  json backends = json::array();
  for (const auto& [id, b] : c.backends)
    backends.push_back({{"id", id}, {"bw_eff", b.bw_eff}, {"layer_us", b.layer_us}, {"flop_eff", b.flop_eff},
                        {"moe_eff", b.moe_eff}, {"fitted", b.fitted}});
  json groups = json::object();
  for (const auto& [k, r] : c.ranges) groups[k] = {{"low", r.low}, {"high", r.high}, {"rows", r.rows}};
  return {{"backends", backends}, {"decode_quant", c.decode_quant}, {"prefill_quant", c.prefill_quant},
          {"moe_prefill", c.moe_prefill}, {"expert_rows_half", c.expert_rows_half}, {"attn_eff", c.attn_eff},
          {"flop_class", c.flop_class}, {"peak_kind_eff", c.peak_kind_eff}, {"host_copy_gbs", c.host_copy_gbs},
          {"linear_step_layers", c.linear_step_layers}, {"linear_chunk_layers", c.linear_chunk_layers},
          {"range", {{"decode_low", c.decode_low}, {"decode_high", c.decode_high},
                     {"prefill_low", c.prefill_low}, {"prefill_high", c.prefill_high}, {"groups", groups}}},
          {"tflops_per_core", c.tflops_per_core}};
}

SpeedCoefficients speed_coefficients(const Catalog& cat) {
  SpeedCoefficients c;
  if (const nlohmann::json* doc = cat.document("speed.json")) {
    c = speed_coefficients_from_json(*doc, "speed.json");
  } else {  // priors only (no data file)
    for (const char* b : {"cuda", "metal", "rocm", "vulkan", "sycl", "cpu"}) c.backends[b] = BackendSpeed{};
  }
  c.basis = std::make_shared<const SpeedBasisIndex>(speed_basis_index(cat));
  return c;
}

void attach_speed_basis(SpeedResult& s, const SpeedCoefficients& c, const std::string& model_id,
                        const std::string& quant, const Device& d, int count, bool moe) {
  if (!c.basis) return;
  s.basis = speed_basis_json(*c.basis, model_id, quant, d, count, s.backend, s.group, moe, s.prefill_available);
}

bool llamacpp_runs_on(const SpeedCoefficients& c, const Device& d, nlohmann::json* why) {
  if (!c.basis || llamacpp_status(*c.basis, d) != "no") return true;
  if (why) {
    *why = {{"code", "engine_not_supported"}, {"engine", "llama.cpp"}, {"backend", d.backend}};
    for (const auto& e : c.basis->engines)
      if (e.engine == "llama.cpp" && e.backend == d.backend) {
        (*why)["source"] = e.source;
        (*why)["checked"] = e.checked;
      }
    (*why)["engines"] = device_engines_json(*c.basis, d);
  }
  return false;
}

}  // namespace wif
