// Speed from first principles: decode (llama-bench `tg`), prefill (`pp`) and time to first token.
//
// Decode is memory-bound: each generated token reads every weight the token touches (for MoE only
// the routed experts it uses, plus shared experts and dense parts; one row of the token
// embedding; the whole output matrix) and the KV cache up to the current depth (sliding-window
// layers at most their window), over the device's effective bandwidth, plus a fixed cost per
// layer (kernel launches, synchronisation).
// Prefill is compute-bound: 2 x active parameters FLOPs per prompt token plus attention FLOPs that
// grow with depth, over the device's effective FLOP rate for the quant family's kernels, plus one
// read of the weights per micro-batch (which dominates for small batches).
//
// The efficiencies are few coefficients per backend class and quant family, kept in
// data/speed.json and fitted on data/measurements/llamacpp_bench.jsonl (see calibration/llama_bench.hpp).
//
// Placement-ready: the work terms are computed for a subset of tensors / layers (a filter), so a
// placement can ask "bytes read per token" and "FLOPs per token" per device and combine the
// per-device times itself. Everything here is single-device unless a filter is given.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

class Catalog;

/// Efficiency of one backend class (cuda, metal, rocm, vulkan, sycl, cpu).
struct BackendSpeed {
  double bw_eff = 0.7;        // share of peak bandwidth reached by decode weight reads
  double layer_us = 10;       // fixed cost per layer per decode step (launches, sync), microseconds
  double flop_eff = 0.4;      // share of peak dense FP16 FLOPs reached by prefill matrix work
  bool fitted = false;        // false when no calibration row covered it (value is a prior)
};

struct SpeedCoefficients {
  std::map<std::string, BackendSpeed> backends;     // by class
  std::map<std::string, double> decode_quant;       // family -> factor on bw_eff (legacy = 1)
  std::map<std::string, double> prefill_quant;      // family -> factor on flop_eff (f16 = 1)
  double moe_prefill = 1.0;                         // factor on flop_eff for MoE expert matmuls
  // Range from the spread of calibration errors: measured/predicted quantiles (p10, p90).
  double decode_low = 0.8, decode_high = 1.2, prefill_low = 0.7, prefill_high = 1.3;
  // Peak FP16 rate when a device entry states none: per GPU core (Apple) or compute unit (AMD iGPU).
  std::map<std::string, double> tflops_per_core;    // by vendor key: "apple", "amd"
  std::string source, checked, fitted_on;
};

/// Coefficients from data/speed.json (Catalog::document("speed.json")), or built-in priors when
/// the file is absent. Throws InputError on a malformed file.
SpeedCoefficients speed_coefficients(const Catalog& cat);
SpeedCoefficients speed_coefficients_from_json(const nlohmann::json& doc, const std::string& path);
nlohmann::json speed_coefficients_to_json(const SpeedCoefficients& c);

/// Backend class for a backend id or llama-bench backend string ("HIP" -> rocm, "Vulkan" -> vulkan).
std::string backend_class(const std::string& backend);

/// Quant family of a plan: the type family holding most weight bytes:
/// "f16" (F16/BF16/F32), "legacy" (Q4_0…Q8_0, IQ4_NL), "kquant" (Q2_K…Q6_K), "iquant", "mxfp4".
std::string quant_family(const TensorPlan& plan);

/// Which tensors / layers a device holds (nullptr = all of them).
using TensorFilter = std::function<bool(const Tensor&)>;
using LayerFilter = std::function<bool(std::int64_t layer)>;

/// Work that does not depend on depth, for the tensors `on_device` selects.
struct ModelWork {
  double decode_weight_bytes = 0;   // weights read per decoded token
  double pass_weight_bytes = 0;     // weights read once per prefill micro-batch (all experts)
  double matmul_flops = 0;          // prefill FLOPs per prompt token (2 x active, no output head)
  double expert_matmul_flops = 0;   // the part of matmul_flops in routed experts
  double decode_flops = 0;          // FLOPs per decoded token (2 x active incl. output head)
  std::int64_t layers = 0;          // repeating layers held (MTP layers excluded)
};
ModelWork model_work(const Architecture& a, const TensorPlan& plan, const TensorFilter& on_device = nullptr);

/// KV cache (and recurrent state) bytes read by one decode step at `depth` tokens of context,
/// for the layers `on_device` selects. Sliding / chunked layers read at most their window.
/// Without flash attention (kv.flash_attn false) K and V are read once per query head of each
/// GQA group (the broadcast KQ / KQV matmuls), with it once.
double kv_read_bytes(const Architecture& a, const KvOptions& kv, std::int64_t depth,
                     const LayerFilter& on_device = nullptr);

/// Attention FLOPs (QK^T and PV) for `n_tokens` new tokens appended after `depth` cached ones,
/// causal, per the layers' kinds (sliding layers attend at most `window` tokens).
double attention_flops(const Architecture& a, std::int64_t n_tokens, std::int64_t depth,
                       const LayerFilter& on_device = nullptr);

/// Effective rates of one device for a backend class and quant family.
struct DeviceRates {
  double bw_bytes_s = 0;        // effective bandwidth for weight reads
  double kv_bw_bytes_s = 0;     // effective bandwidth for KV reads (no quant factor)
  double flops_s = 0;           // effective FLOP rate for dense matmuls (0 = unknown)
  double moe_flops_s = 0;       // for routed-expert matmuls
  double layer_s = 0;           // fixed cost per layer per step
  std::string backend;          // class used
  double peak_tflops = 0;       // the peak the FLOP rate came from (0 = unknown)
};
DeviceRates device_rates(const Device& d, const std::string& backend, const std::string& family,
                         const SpeedCoefficients& c);

/// Seconds for one decode step at `depth` (terms filled when non-null).
struct DecodeTerms { double weights_s = 0, kv_s = 0, overhead_s = 0, total_s = 0; };
DecodeTerms decode_step(const ModelWork& w, double kv_bytes, const DeviceRates& r);

/// Seconds to prefill `n_tokens` after `depth` tokens, in micro-batches of `n_ubatch`.
/// Matrix and attention time (compute) plus one weight read per micro-batch (memory).
struct PrefillTerms { double matmul_s = 0, attention_s = 0, weights_s = 0, total_s = 0; bool available = false; };
PrefillTerms prefill_time(const ModelWork& w, double attn_flops, std::int64_t n_tokens, std::int64_t n_ubatch,
                          const DeviceRates& r);

struct SpeedOptions {
  std::int64_t prompt = 512;    // llama-bench -p
  std::int64_t gen = 128;       // llama-bench -n
  std::int64_t depth = 0;       // llama-bench -d
  std::int64_t n_ubatch = 512;
  std::string backend;          // backend id/class; empty = the device's primary backend
  std::int64_t curve_max_depth = 0;  // decode curve up to this depth (0 = the model's context, max 131072)
  bool curve = true;            // false: leave the decode curve out (summary estimates)
};

/// One device, whole model: every figure and named term, with low/high ranges.
struct SpeedResult {
  std::string backend, family;
  double decode_tps = 0, decode_tps_low = 0, decode_tps_high = 0;        // at `depth`
  double gen_avg_tps = 0;            // average over `gen` tokens from depth (llama-bench tgN @ dD)
  bool prefill_available = false;
  double prefill_tps = 0, prefill_tps_low = 0, prefill_tps_high = 0;     // `prompt` tokens at `depth`
  double ttft_ms = 0;                // prefill of `prompt` tokens after `depth`
  double total_ms = 0;               // ttft + `gen` decode steps
  DecodeTerms decode;                // at depth
  PrefillTerms prefill;
  ModelWork work;
  double kv_bytes_at_depth = 0;
  DeviceRates rates;
  std::vector<double> curve_depth, curve_tps;   // decode tokens/s over depth (columnar)
};
SpeedResult estimate_speed(const Architecture& a, const TensorPlan& plan, const Device& d,
                           const KvOptions& kv, const SpeedOptions& o, const SpeedCoefficients& c);

/// Average decode tokens/s while generating `n` tokens starting at `depth`.
double average_decode_tps(const ModelWork& w, const Architecture& a, const KvOptions& kv,
                          std::int64_t depth, std::int64_t n, const DeviceRates& r);

nlohmann::json speed_to_json(const SpeedResult& s, const SpeedOptions& o);

}  // namespace wif
