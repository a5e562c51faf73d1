// "What runs on this device?": every catalog model at the best GGUF quantization that runs on one
// device (optionally several of it, optionally with system RAM for offload), the list a device
// page shows. A loop over the estimate (estimate.hpp), never a formula of its own.
//
// Request: the fields of an estimate request without model or quant, which the list chooses
// itself: hardware (required; a catalog id or a custom device object), count, ram_gib, context
// (default 8192), kv_type, parallel, flash_attn … engine must be llama.cpp (GGUF quantizations).
//
// Per model, the quantizations are tried in quality order (solve.hpp best_quant: catalog
// quants.json `rank`, then `ppl_delta_pct`; F32 and ternary types left out):
//   fits     the best quantization whose estimate keeps everything on the device (verdict fits
//            or tight);
//   offload  only when ram_gib is given: the best quantization that runs with layers or experts
//            in system RAM, chosen instead of `fits` when nothing fits fully or when it is in a
//            better quality band than the best that fits (a 106B MoE at Q4_K_M with experts in RAM
//            rather than at IQ1_S on the GPU: what people run);
//   no_fit   nothing runs; the entry reports the smallest quantization's figures (how far off).
// Quality groups, from quants.json `ppl_delta_pct` and the cut points of its "quality_bands"
// "ranking" (quality.hpp): high <= 5 % (Q4_K_S and better), reduced <= 20 % (down to IQ3_XXS),
// low beyond (Q3_K_S, 2- and 1-bit types), unknown when the catalog states no figure.
//
// Floors (request fields, both returned in `floors`): min_quality (high | reduced | low | any,
// default defaults::kRunsOnMinQuality, reduced: a 1- or 2-bit quantization is not counted as running) and min_decode_tps
// (default defaults::kRunsOnMinDecodeTps, 3 tokens/s: slower than a person reads; 0 turns it off; not applied when the device states no bandwidth).
// Only quantizations in the min_quality band or better are candidates for fits/offload. A model
// that runs only below a floor is tier no_fit with below_floor "quality" (quant/quality/verdict:
// the best quantization that does run, below the floor) or "speed" (the best acceptable one
// that runs, with its speed, after trying the smaller acceptable ones), and `needs`, what would
// be needed instead, each {code, ...numbers}:
//   {code "more_memory", quant, memory_bytes, usable_bytes}  the smallest acceptable quantization
//       (quality) or the same one (speed, offloaded) with everything on the device;
//   {code "faster_device", decode_tps, min_decode_tps}        (speed).
// counts.below_quality_floor / below_speed_floor count them (they are inside counts.no_fit).
// A device llama.cpp does not run on (data/backends.json `engines`) but a server engine does
// (Gaudi, Cambricon MLU, MetaX, Kunlunxin: vLLM through the vendor's plugin): the list is that
// engine's (`engine` "vllm", the first of vLLM and SGLang the device runs), each model as its
// publisher's checkpoint (defaults.hpp server_quant, quality "high": the reference the bands are
// measured against) on the device alone under the engine's budget: fits (verdict fits or tight, at
// the speed floor), no_fit with below_floor "speed" and needs [faster_device], or no_fit. No
// offload and no smaller format (which quantized formats a vendor plugin has kernels for differs
// by plugin). Each entry then names its `engine`, its speed its `decode_label` (device_figures:
// engine_fit.hpp server_speed_from_device_figures), and `request` carries the engine.
// A device no engine runs on: engine_runs false, engine null, no models.
//
// Order, best first: fits, then offload, then no_fit. Within fits and offload: quality band (high
// first), then the model's total parameters (larger first: with the quality held, a larger model
// is the more capable one a person can run), then decode speed (faster first). no_fit entries by
// the memory they need (closest first). Ties keep catalog order.
//
// Result: {device{id,name,kind,memory_gib,memory_basis,bandwidth_gbs,price_usd,engines[]}, engine_runs,
//          engine (llama.cpp | vllm | sglang | null), llamacpp_runs, count,
//          ram_gib, context, floors{min_quality, min_decode_tps},
//          usable{usable_bytes, usable_low_bytes, physical_bytes, rule, rule_code{code, params}}, counts{fits, offload, no_fit, skipped,
//          below_quality_floor, below_speed_floor},
//          models[], evaluations}, each entry
//   {model{id,name,params_total,params_active (counts as the estimate computes them)}, tier, quant, quality (ranking group),
//    quality_band (quality.hpp reading band), ppl_delta_pct (absent
//    when unknown), verdict (fits only with room to spare on usable_low_bytes, the low end of a
//    vendor's memory figure: device.memory_basis), memory{total_bytes, usable_bytes, host_ram_bytes},
//    speed{decode_tps, decode_tps_low, decode_tps_high} (absent for no_fit, except below the
//    speed floor, or when the device states no bandwidth), below_floor?, needs[]?, request}
// `request` is the estimate request that reproduces the entry exactly (api_estimate on it gives
// the same verdict, memory and speed). A model the core cannot estimate (e.g. a catalog entry
// with an unsupported layer kind) is left out and counted in counts.skipped.
//
// Bad input throws InputError: model or quant given -> bad_value at that field; engine other than
// llama.cpp -> bad_value at "engine"; hardware, context … as an estimate request reports them.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"

namespace wif {

/// Every catalog model at its best quantization on one device (see above). Throws InputError.
nlohmann::json runs_on(const Catalog& cat, const nlohmann::json& request);

/// The fields a runs-on request reads beyond an estimate request's (its floors).
const std::vector<std::string>& runs_on_request_fields();

}  // namespace wif
