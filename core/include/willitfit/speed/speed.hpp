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
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

class Catalog;
struct SpeedBasisIndex;  // speed_basis.hpp

/// Efficiency of one backend class (cuda, metal, rocm, vulkan, sycl, cpu).
struct BackendSpeed {
  double bw_eff = 0.7;        // share of peak bandwidth reached by decode weight reads
  double layer_us = 10;       // fixed cost per layer per decode step (launches, sync), microseconds
  double flop_eff = 0.4;      // share of peak dense FP16 FLOPs reached by prefill matrix work
  double moe_eff = 0;         // factor on flop_eff for routed-expert matmuls (0 = the shared moe_prefill)
  bool fitted = false;        // false when no calibration row covered it (value is a prior)
};

/// A speed range: measured / predicted quantiles (p10, p90) of one group of rows.
struct SpeedRange { double low = 0.8, high = 1.2; int rows = 0; };

struct SpeedCoefficients {
  std::map<std::string, BackendSpeed> backends;     // by class
  std::map<std::string, double> decode_quant;       // family -> factor on bw_eff (legacy = 1)
  std::map<std::string, double> prefill_quant;      // family -> factor on flop_eff (f16 = 1)
  double moe_prefill = 1.0;                         // factor on flop_eff for MoE expert matmuls (prior)
  // Prefill kernel shapes. Routed-expert matmuls run one small GEMM per expert with about
  // ubatch x k / n_expert rows each (MUL_MAT_ID); their rate falls as rows / (rows + half).
  double expert_rows_half = 0;                      // 0 = no shape effect
  double attn_eff = 1.0;                            // factor on the FLOP rate for attention (QK^T, PV)
  // Linear-attention (recurrent) layers, e.g. Qwen3-Next's gated delta net: llama.cpp builds
  // them from many small ops (src/models/qwen3next.cpp; prefill in chunks of 64 tokens,
  // build_delta_net_chunking), so each costs more fixed time than an attention layer. Extra
  // fixed cost, in units of the backend's layer_us: per decode step, and per 64-token chunk
  // of a prefill. 0 = none (no such rows fitted).
  double linear_step_layers = 0;
  double linear_chunk_layers = 0;
  // Device class factors on flop_eff: "backend/kind" ("cuda/unified") or, for backends that run on
  // several vendors' GPUs, "backend/vendor/kind" ("vulkan/amd/unified"); see device_class_key.
  std::map<std::string, double> flop_class;
  // Factor on flop_eff by the arithmetic a device's prefill runs on (DeviceRates::peak_kind):
  // "dp4a_int8", the integer dot-product kernels of GPUs without matrix units, reaches another
  // share of its peak than tensor-core kernels do of theirs. Absent = 1 (fitted once a kind has
  // at least 2 training rows).
  std::map<std::string, double> peak_kind_eff;
  // Host part of an offloaded prefill: CPU-resident weights copied to the GPU per micro-batch are
  // capped at this rate (GB/s) besides the PCIe link (0 = the link only).
  double host_copy_gbs = 0;
  // Copy rate from pageable host memory as a share of the pinned rate (not fitted: from a
  // published llama-bench pair, see speed.json). 1 = no difference.
  double pageable_copy_share = 1.0;
  // Range from the spread of calibration errors: measured/predicted quantiles (p10, p90).
  double decode_low = 0.8, decode_high = 1.2, prefill_low = 0.7, prefill_high = 1.3;
  // Per group ("tg/single", "pp/offloaded", ...): set by the fit from rows not used to fit the
  // figures they bound (out-of-fold for single-device rows); falls back to the pair above.
  std::map<std::string, SpeedRange> ranges;
  // Peak FP16 rate when a device entry states none: per GPU core (Apple) or compute unit (AMD iGPU).
  std::map<std::string, double> tflops_per_core;    // by vendor key: "apple", "amd"
  std::string source, checked, fitted_on;
  // Which rows and engines stand behind a speed (speed_basis.hpp); set by speed_coefficients(cat).
  std::shared_ptr<const SpeedBasisIndex> basis;
};

/// Coefficients from data/speed.json (Catalog::document("speed.json")), or built-in priors when
/// the file is absent. Throws InputError on a malformed file.
SpeedCoefficients speed_coefficients(const Catalog& cat);
SpeedCoefficients speed_coefficients_from_json(const nlohmann::json& doc, const std::string& path);
nlohmann::json speed_coefficients_to_json(const SpeedCoefficients& c);

/// Backend class for a backend id or llama-bench backend string ("HIP" -> rocm, "Vulkan" -> vulkan).
std::string backend_class(const std::string& backend);

/// The key of flop_class for a device under a backend class: "vulkan/<vendor>/<kind>" and
/// "sycl/<vendor>/<kind>" (one API over several vendors' drivers, discrete and integrated GPUs),
/// otherwise "<backend>/<kind>" (gpu, apple, unified, cpu).
std::string device_class_key(const Device& d, const std::string& backend_class);

/// The range of a group ("tg/single" …), or the shipped pair when the group has none. With a
/// backend class, that backend's own range within the group ("pp/single/cuda") when the fit set
/// one (enough out-of-fold rows), else the group's.
SpeedRange speed_range(const SpeedCoefficients& c, const std::string& kind, const std::string& group,
                       const std::string& backend = "");

/// Quant family of a plan: the type family holding most weight bytes:
/// "f16" (F16/BF16/F32), "legacy" (Q4_0…Q8_0, IQ4_NL), "kquant" (Q2_K…Q6_K), "iquant", "mxfp4".
std::string quant_family(const TensorPlan& plan);

/// True when Q4_0, Q4_1, Q5_0 or Q5_1 hold most of the plan's matrix bytes: the types llama.cpp's
/// ROCm build multiplies with its MMQ kernels on CDNA at every batch size (device_rate_basis).
bool plan_is_mmq_legacy(const TensorPlan& plan);

/// Which tensors / layers a device holds (nullptr = all of them).
using TensorFilter = std::function<bool(const Tensor&)>;
using LayerFilter = std::function<bool(std::int64_t layer)>;

/// Work that does not depend on depth, for the tensors `on_device` selects.
struct ModelWork {
  double decode_weight_bytes = 0;   // weights read per decoded token
  double pass_weight_bytes = 0;     // weights read once per prefill micro-batch (all experts)
  double expert_pass_bytes = 0;     // the routed experts' part of pass_weight_bytes
  double matmul_flops = 0;          // prefill FLOPs per prompt token (2 x active, no output head)
  double expert_matmul_flops = 0;   // the part of matmul_flops in routed experts
  double expert_share = 0;          // n_expert_used / n_expert (0 = dense)
  double decode_flops = 0;          // FLOPs per decoded token (2 x active incl. output head)
  std::int64_t layers = 0;          // repeating layers held (MTP layers excluded)
  std::int64_t linear_layers = 0;   // of those, linear-attention (recurrent) layers
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
  double moe_flops_s = 0;       // for routed-expert matmuls at full expert batches
  double attn_flops_s = 0;      // for attention
  double expert_rows_half = 0;  // shape effect of small expert batches (SpeedCoefficients)
  double layer_s = 0;           // fixed cost per layer per step
  double linear_step_s = 0;     // extra per linear-attention layer per decode step
  double linear_chunk_s = 0;    // extra per linear-attention layer per 64-token prefill chunk
  std::string backend;          // class used
  double peak_tflops = 0;       // the peak the FLOP rate came from (0 = unknown)
  // Which of the device's rates that peak is: "tensor" (fp16_tflops / bf16_tflops, or a per-core
  // figure), and before NVIDIA compute capability 7.0, which has no tensor cores, "dp4a_int8"
  // (quantized weights on CUDA from 6.1 on) or "fp32" (everything else); "dp4a_int8" too for
  // quantized weights under ROCm on AMD's Vega 20 (gfx906), which has no matrix cores.
  std::string peak_kind = "tensor";
};
/// What device_rates reads from the device, backend and quant family, apart from the
/// coefficients: made once where the same rates are asked for many times with changing
/// coefficients (the speed fit predicts every calibration row at each of its steps).
struct DeviceRateBasis {
  std::string backend;          // class (backend_class)
  std::string family;           // quant family (quant_family)
  std::string class_key;        // device_class_key, for the per-class FLOP factor
  double bandwidth_gbs = 0;
  double peak_tflops = 0;       // the stated peak used (0 = none stated)
  double gpu_cores = 0;         // with no stated peak: cores x the family's per-core rate
  std::string core_key;         // that family: "apple" or the vendor in lower case
  std::string peak_kind = "tensor";
};
/// `bf16`: the plan's float weights are BF16, which GeForce tensor cores run only with FP32
/// accumulate (Device::bf16_tflops); llama.cpp's cuBLAS path computes BF16 GEMMs in FP32.
/// `mmq_legacy`: plan_is_mmq_legacy (the INT8 peak of MMQ on AMD parts whose INT8 matrix rate is
/// below twice their FP16 one).
DeviceRateBasis device_rate_basis(const Device& d, const std::string& backend, const std::string& family,
                                  bool bf16 = false, bool mmq_legacy = false);
DeviceRates device_rates(const DeviceRateBasis& b, const SpeedCoefficients& c);
DeviceRates device_rates(const Device& d, const std::string& backend, const std::string& family,
                         const SpeedCoefficients& c, bool bf16 = false, bool mmq_legacy = false);

/// True when BF16 tensors hold most of the plan's matrix bytes.
bool plan_is_bf16(const TensorPlan& plan);

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
  double ttft_ms = 0;                // prefill of `prompt` tokens after `depth` (text only; the result's
                                     // speed.first_token adds the request's images and audio)
  double total_ms = 0;               // ttft + `gen` decode steps
  DecodeTerms decode;                // at depth
  PrefillTerms prefill;
  ModelWork work;
  double kv_bytes_at_depth = 0;
  DeviceRates rates;
  std::vector<double> curve_depth, curve_tps;   // decode tokens/s over depth (columnar)
  std::string group = "single";      // single | multi_gpu | offloaded (the accuracy report's groups)
  nlohmann::json basis;              // labels and basis (attach_speed_basis), merged into the JSON
  nlohmann::json unavailable;        // set instead of figures when the engine does not run there
};
SpeedResult estimate_speed(const Architecture& a, const TensorPlan& plan, const Device& d,
                           const KvOptions& kv, const SpeedOptions& o, const SpeedCoefficients& c);

/// Average decode tokens/s while generating `n` tokens starting at `depth`.
double average_decode_tps(const ModelWork& w, const Architecture& a, const KvOptions& kv,
                          std::int64_t depth, std::int64_t n, const DeviceRates& r);

nlohmann::json speed_to_json(const SpeedResult& s, const SpeedOptions& o);

/// Labels every figure of `s` (speed_basis.hpp) for `model_id` × `quant` on `count` × `d`.
void attach_speed_basis(SpeedResult& s, const SpeedCoefficients& c, const std::string& model_id,
                        const std::string& quant, const Device& d, int count, bool moe);

/// False when the coefficients' engine table says llama.cpp has no backend for the device; then
/// `why` is {code: "engine_not_supported", engine, backend, source, checked}.
bool llamacpp_runs_on(const SpeedCoefficients& c, const Device& d, nlohmann::json* why);

}  // namespace wif
