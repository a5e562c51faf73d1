// One estimate: a model, a quantization, a device (or several) and the engine settings in;
// memory by term, the verdict and its margin out. The request and result are JSON documents so
// the CLI, the wasm module and the page share one contract (see README "CLI contract").
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/estimate/request.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/compute_buffer.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/multi_device_speed.hpp"
#include "willitfit/speed/server_throughput.hpp"
#include "willitfit/speed/speed.hpp"

namespace wif {

/// Resolve a request document against the catalog. Throws InputError with the field's path.
EstimateRequest parse_request(const Catalog& cat, const nlohmann::json& req);

/// Every top-level field parse_request reads (the API's check of unknown fields, api.cpp, starts
/// from these; solve, cost and runs_on add their own).
const std::vector<std::string>& estimate_request_fields();

/// The speed model's options for `r`: its own, with the decode curve running to the request's
/// context (the model's own when 0). Derived from the one context, never stored beside it.
SpeedOptions speed_options(const EstimateRequest& r);

Estimate run_estimate(const Catalog& cat, const EstimateRequest& r);

/// What many estimates of one request can share (the solvers in solve.hpp loop over this):
/// the speed coefficients parsed once, and whether to run the speed model at all (a search over
/// context only needs memory and the verdict). Same result as run_estimate otherwise.
struct EstimateContext {
  const SpeedCoefficients* coefficients = nullptr;  // nullptr = read data/speed.json
  bool speed = true;
};
Estimate run_estimate(const Catalog& cat, const EstimateRequest& r, const EstimateContext& ctx);

/// "Fits with room to spare" (verdict fits) against "fits, but tight" (tight) on one device: the
/// upper bound of its total (the estimate plus its uncertainty) must stay at or below this share
/// of the usable memory. At least 15 % stays free because the KV cache grows with every longer
/// prompt the person tries, and a browser or desktop compositor on the same GPU takes a GiB or
/// two that no estimate sees; a total at 91 % of the usable memory leaves room for neither.
inline constexpr double kRoomToSpareShare = 0.85;

/// The verdict of a device on every engine's estimate: fits when high_bytes <= kRoomToSpareShare x
/// the low end of its usable memory (UsableMemory::usable_low_bytes: below usable_bytes only
/// where the device's size is the vendor's figure, memory_basis vendor_figure), tight when only
/// the estimate itself (total_bytes) is within usable_bytes. So a setup that fits only in the
/// upper part of a vendor's figure is tight, never fits.
bool room_to_spare(std::uint64_t high_bytes, std::uint64_t usable_low_bytes);

/// The verdict of one memory pool on that rule: "fits", "tight" or "no_fit" from the estimate
/// (total_bytes), its upper bound (high_bytes) and the pool's UsableMemory figures.
const char* memory_verdict(std::uint64_t total_bytes, std::uint64_t high_bytes, std::uint64_t usable_bytes,
                           std::uint64_t usable_low_bytes);

/// Whether a format is a meaningful choice for this model on this device: "" when it is, else a
/// code (the result's quant.applicability, absent when "").
///  * moe_only_format: MXFP4_MOE on a model without experts. llama-quantize's MXFP4_MOE type
///    (tools/quantize, llama-quant.cpp llama_tensor_get_type) gives MXFP4 to expert tensors only
///    and Q8_0 to the rest, so for a dense model it is a Q8_0 file under another name.
///  * fp4_weight_only: NVFP4 on a CUDA GPU without Blackwell FP4 tensor cores (its overhead class
///    is not cuda-blackwell). vLLM and SGLang then run it as weight-only FP4 through their Marlin
///    kernels (vLLM docs/features/quantization/modelopt.md, SGLang PR #19652, compute capability
///    7.5 and newer): decode reads the same bytes, the matrix products run in bf16.
///  * fp4_no_kernel: NVFP4 on a device with no CUDA backend or older than Turing: no engine has a
///    kernel for it there.
///  * backend_no_kernel: a format whose data/quants.json entry lists the backends its kernels run on
///    (`backends`: bitsandbytes under vLLM on CUDA and ROCm; AWQ and GPTQ also on SYCL and CPU;
///    FP8 on CUDA and ROCm) on a device with none of them.
///  * cc_no_kernel: a CUDA device whose compute capability is below the format's
///    `min_cuda_compute_capability` (vLLM's quantization hardware table: AWQ 7.5, GPTQ 7.0, FP8
///    through Marlin 7.5).
///  * fp8_weight_only: FP8 on a CUDA GPU without FP8 tensor cores (below the format's
///    `native_min_cuda_compute_capability`, 8.9, and no stated FP8 rate): vLLM runs the FP8 weights
///    through its Marlin kernel with 16-bit math; memory is the same, the FP8 speed-up is not there.
///  * fp8_no_kernel: FP8 on a ROCm device without FP8 math (no stated FP8 rate): vLLM's ROCm
///    platform serves FP8 only on gfx94x/gfx95x/gfx12 and has no weight-only fallback.
std::string format_applicability(const Catalog& cat, const Architecture& a, const Device& d, const std::string& quant);

/// The codes of format_applicability under which no engine can run the format on the device at
/// all (a device list for that format leaves the device out).
bool format_has_no_kernel(const std::string& code);

/// The result document (contract: memory.*_bytes integers, verdict, model, hardware …).
nlohmann::json estimate_to_json(const EstimateRequest& r, const Estimate& e);


/// The tensor plan an estimate of `m` at `quant` uses: the model's own (a GGUF header, or one a
/// caller set), the catalog's shared one (catalog_memo.hpp), or a fresh plan for a custom config.
std::shared_ptr<const TensorPlan> model_plan(const Catalog& cat, const ResolvedModel& m, const std::string& quant,
                                             const QuantOptions& opt);

}  // namespace wif
