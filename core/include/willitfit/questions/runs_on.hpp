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
// Order, best first: fits, then offload, then no_fit. Within fits and offload: quality band (high
// first), then the model's total parameters (larger first: with the quality held, a larger model
// is the more capable one a person can run), then decode speed (faster first). no_fit entries by
// the memory they need (closest first). Ties keep catalog order.
//
// Result: {device{id,name,kind,memory_gib,bandwidth_gbs,price_usd}, count, ram_gib, context,
//          usable{usable_bytes, physical_bytes, rule, rule_code{code, params}}, counts{fits, offload, no_fit},
//          models[], evaluations}, each entry
//   {model{id,name,params_total_b,params_active_b}, tier, quant, quality (ranking group),
//    quality_band (quality.hpp reading band), ppl_delta_pct (absent
//    when unknown), verdict, memory{total_bytes, usable_bytes, host_ram_bytes},
//    speed{decode_tps, decode_tps_low, decode_tps_high} (absent for no_fit or when the device
//    states no bandwidth), request}
// `request` is the estimate request that reproduces the entry exactly (api_estimate on it gives
// the same verdict, memory and speed). A model the core cannot estimate (e.g. a catalog entry
// with an unsupported layer kind) is left out and counted in counts.skipped.
//
// Bad input throws InputError: model or quant given -> bad_value at that field; engine other than
// llama.cpp -> bad_value at "engine"; hardware, context … as an estimate request reports them.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"

namespace wif {

/// Every catalog model at its best quantization on one device (see above). Throws InputError.
nlohmann::json runs_on(const Catalog& cat, const nlohmann::json& request);

}  // namespace wif
