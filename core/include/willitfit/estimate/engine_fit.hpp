// The glue between a request and the placement / vLLM / launch-command concerns, so estimate.cpp
// stays a thin driver. Request fields read here (all optional):
//   hardware: id | object | [id|object, ...]   several (possibly different) accelerators
//   ngl, n_cpu_moe, tensor_split: [shares]    llama.cpp flags; any of them = no automatic plan
//   mmap: bool                                 false = --no-mmap
//   tensor_parallel, gpu_memory_utilization, max_num_seqs, max_num_batched_tokens,
//   kv_cache_dtype, block_size, enforce_eager  vLLM (engine "vllm"); max_model_len = context
//   mem_fraction_static, and the same names      SGLang (engine "sglang"); context_length = context
// Result fields written: placement{...}, memory.devices[], memory.host{...}, vllm{...} or
// sglang{...} (the engine's own key), commands{...}.
#pragma once
#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/request.hpp"

namespace wif {

/// Read the fields above into `r` (after the base request is parsed). Throws InputError.
void parse_serving(const Catalog& cat, const nlohmann::json& q, EstimateRequest& r);

/// vLLM and SGLang: they serve safetensors checkpoints on discrete GPUs with tensor parallelism.
bool server_engine(const std::string& engine);

/// The cache options the speed model reads for `r` once `e` is fitted: the request's, with the
/// engine's own cache where it keeps one (vLLM's and SGLang's pages at their kv_cache_dtype:
/// vllm_speed_layer_bytes), so a decode step reads the bytes the memory figure holds. MLX's is set
/// by mlx_speed itself.
KvOptions speed_kv_options(const EstimateRequest& r, const Estimate& e);

/// Place or budget the model with the request's engine step (engine_step.hpp) and fill the
/// memory terms and verdict of `e` (plan, params, kv and compute must be set).
void place_estimate(const Catalog& cat, const EstimateRequest& r, Estimate& e);

/// vLLM and SGLang with tensor parallelism (2 or more GPUs): replace the decode figures of
/// e.speed (computed for llama.cpp's layer split) by the tensor-parallel step of the budget
/// (server_throughput.hpp serving_step at one request, tensor_parallel.hpp): every rank reads its
/// slice at once, plus two all-reduces per layer. The range, label and basis come from
/// data/tensor_parallel.json. Prefill and time to first token are left as computed. Dense
/// models only (MoE keeps the layer-split figure: no public single-request MoE row to check it).
void server_decode_speed(const Catalog& cat, const EstimateRequest& r, Estimate& e, const SpeedCoefficients& c);

/// vLLM and SGLang on a device llama.cpp has no backend for (Gaudi, Cambricon MLU, MetaX,
/// Kunlunxin: data/engines.json), where no published run calibrates a speed: the speed model on
/// the device's own figures (bandwidth for decode, FP16 rate for prefill) at the efficiencies each
/// calibrated discrete-GPU backend of data/speed.json reaches (cuda, rocm, vulkan: `fitted`).
/// The central figure is the median of those backends' estimates; the range runs from the lowest
/// backend's estimate at its own range's low end to the highest's at its high end, so it is wider
/// than any one calibrated backend's. Tensor parallelism (2 or more devices, dense models) goes
/// through server_decode_speed with the same coefficients; the batched throughput is recomputed
/// with the central backend's. Labels: decode_label / prefill_label "device_figures", basis
/// {code "device_figures", backend, engine, engine_status, via, source, checked, device_rows 0,
///  from_backends[{id, decode_tps}], uncertain[] (the device figures it rests on that the catalog
///  marks uncertain: bandwidth_gbs, fp16_tflops)}.
/// When it cannot: e.speed.unavailable = {code "engine_not_supported", engine, backend, source,
/// checked, engines[]} (the engine table says the request's engine does not run there) or
/// {code "no_bandwidth", engine} (the device states no memory bandwidth). Nothing for no_fit.
void server_speed_from_device_figures(const Catalog& cat, const EstimateRequest& r, Estimate& e,
                                      const SpeedCoefficients& c, const SpeedOptions& o);

/// Whether any offer of data/clouds.json is on a catalog device `engine` runs on (the device's
/// backends, Catalog::device_engines). MLX runs on Apple silicon, which no cloud offer rents.
bool engine_on_any_cloud(const Catalog& cat, const std::string& engine);

/// The nearest request a rented GPU runs when the request's engine runs on no cloud offer: the
/// same model, context and settings under llama.cpp (it runs on every catalog GPU), with the GGUF
/// type of the same quality rank as the request's format (quants.json `rank`: MLX-8bit -> Q8_0),
/// else llama.cpp's default type; the engine's own fields (kv_bits, kv_group_size) dropped.
/// Returns {request, engine, quant} with the hardware left as given. Used by the cost answer's
/// cloud table and the picks' cloud card, each of which says it is this other setup.
nlohmann::json cloud_fallback_request(const Catalog& cat, const nlohmann::json& request);

/// Add the engine step's part (placement or server budget, per-device memory) and the launch
/// commands to the result document.
void serving_to_json(const EstimateRequest& r, const Estimate& e, nlohmann::json& out);

}  // namespace wif
