// Solvers: questions answered by looping over the estimate (estimate.hpp), never by a formula of
// their own. Each takes an ordinary estimate request plus "solve": "<kind>" and kind-specific
// fields, and returns one JSON document. Every estimate of one solve shares the parsed speed
// coefficients and one TensorPlan per quantization (EstimateContext, ResolvedModel::plan), so a
// solve costs a few dozen to a few hundred estimates, not catalog re-reads.
//
// "Runs" below means the verdict is fits or tight (everything on the accelerators); with
// "allow_offload": true an "offload" verdict (layers or experts in system RAM) counts as well
// (max_context and best_quant; its default is true when the request gives ram_gib).
//
// Kinds and their extra request fields:
//  * max_context   [min_context = 512, allow_offload]
//      The longest context that runs, a multiple of 256 found by binary search over the estimate,
//      capped at the model's maximum context (returned exactly when that runs). Result:
//      max_context (0 when even min_context does not run), fits_at_min, min_context,
//      model_max_context, capped (limited by the model, not memory), verdict / total_bytes /
//      usable_bytes / decode_tps at max_context, evaluations.
//  * best_quant    [allow_offload]   (engine llama.cpp)
//      Every GGUF file type in quality order (catalog quants.json `rank`, then `ppl_delta_pct`;
//      F32 and ternary TQ types left out) with fits / verdict / total_bytes / decode_tps /
//      ppl_delta_pct, `best`: the first that runs (absent when none does) and fits_any.
//  * make_it_fit   [max_count = 8]   (engine llama.cpp)
//      When the request already runs fully on its accelerators: already_fits true, items [].
//      Otherwise the single changes that make it run, each tried through the estimate:
//      context (the max_context), kv_type q8_0 / q4_0, flash_attn on, quant (the first lower one
//      in quality order that runs), n_cpu_moe / ngl (automatic offload with the request's
//      ram_gib, or 64 / 128 GiB when none is given), parallel (the most slots that run), count
//      (the fewest identical GPUs up to max_count). Each item: change {field, value}, request
//      (the fields to merge into the request), saved_bytes (accelerator bytes saved against
//      the request's all-on-GPU total; 0 when it adds), total_bytes / usable_bytes / verdict after, decode
//      tokens/s before (the request as if it fit: its all-on-accelerator placement) and after,
//      ppl_delta_pct (quality cost from quants.json; absent when not a quant change or unknown),
//      extra_price_usd (count), and harm. Items are sorted by harm, an ordering aid and not a
//      measurement: speed lost in %, + 10 x perplexity points lost, + half the context or
//      slots lost in %, + 30 per extra GPU, + 2 / 10 for a q8_0 / q4_0 KV cache (no quality
//      figure in the catalog), + 100 when the result is only an offload, + 1000 when its decode
//      speed is below the floor of "runs" (min_decode_tps, defaults.hpp kRunsOnMinDecodeTps = 3
//      tokens/s): such an item carries below_speed_floor true and is no fix, only a figure.
//      Also state_now: runs_offloaded (the request runs with layers or experts in RAM) or
//      does_not_run, and decode_tps_now (0 when it does not run).
//  * cheapest      [min_decode_tps, max_count = 8, ram_tiers_gib = [0], allow_offload]
//      Over catalog devices with a price (discrete GPUs up to max_count identical cards, Apple
//      and unified machines alone; CPU entries are left out, their price is the processor only),
//      the cheapest configuration of each device and RAM tier that runs and reaches
//      min_decode_tps. Top 10 by price: id, name, count, ram_gib, price_usd, price_kind
//      (street | launch | launch_option: the Apple memory option's own launch price |
//      launch_base_config: the chip's base-memory launch price shown for a larger option),
//      verdict, decode_tps. RAM is not priced. Also `cloud`: the cheapest offer per hour in
//      data/clouds.json whose GPUs run the model (estimated on the offer's device and count;
//      absent when none does): the cheapest with room to spare (verdict fits, judged on the low
//      end of a vendor's memory figure), the cheapest tight one only when none has room (the
//      picks' cheapest_cloud card alike). Results never hold null: a missing answer is an absent key.
//  * picks         (no hardware needed)
//      Four cards: best_single_gpu (fastest single GPU with a launch price, i.e. consumer or
//      workstation, that fits fully), best_value (lowest price per decode token/s among the
//      configurations that fit, using the used price when the catalog has a lower one),
//      unified_memory (cheapest Apple or unified-memory machine that fits), cheapest_cloud.
//      Each: id, name, count, price_usd (per hour for clouds), price_kind, verdict, decode_tps,
//      why {code, ...figures}; a card is absent when nothing qualifies, and then
//      missing.<card> says why: {code, weights_bytes, largest_memory_gib?} with code
//      no_single_card_fits (largest_memory_gib: the largest priced consumer/workstation card),
//      no_priced_option_runs, no_unified_fits (largest_memory_gib: the largest priced Apple or
//      unified machine) or no_cloud_offer_runs, or engine_not_on_unified {engine} when the engine
//      runs on no priced unified machine, engine_not_on_gpu {engine} when it runs on no priced
//      card, engine_not_on_cloud {engine, alternative?} when it runs on no cloud offer's device
//      (MLX; alternative: the cheapest_cloud card for the same model under llama.cpp at the GGUF
//      type of the same quality rank, engine_fit.hpp cloud_fallback_request, with its engine and
//      quant; absent when none runs it at the floor), or below_speed_floor {id, name, count, decode_tps,
//      min_decode_tps} when only setups decoding below the floor of "runs" (3 tokens/s,
//      defaults.hpp kRunsOnMinDecodeTps) would fill the card: every pick, the cloud one too,
//      decodes at the floor at least. Every card only considers devices the request's engine
//      runs on (solve_detail.hpp engine_runs: no Mac for vLLM or SGLang), and the largest-memory
//      figures are of those devices; engine_left_out {engine, kinds[{kind, devices}]} counts the
//      priced devices left out by kind; format_left_out {quant, code: fp4_no_kernel, devices}
//      counts those where the engine runs but the format has no kernel (NVFP4 on AMD cards).
//      `missing` is always present (empty when all four are).
//  * smallest_device   (no hardware needed)
//      The catalog accelerator (CPU entries left out; only devices the engine runs on)
//      with the least memory, then the lowest price (an unknown price last), on which one device
//      with no system RAM runs the request fully (fits or tight) at the floor of "runs" at least
//      (min_decode_tps: defaults.hpp kRunsOnMinDecodeTps, 3 tokens/s, as the picks; a device with
//      no speed model is judged on memory alone); a device that runs it with room to spare
//      (verdict fits, judged on the low end of a vendor's memory figure) is the answer over a
//      smaller one that runs it only tight, which is the answer only when none has room. Devices
//      below what the weights and KV cache alone need are not estimated; of devices alike in kind,
//      usable memory and its low end, backend, backend overhead and bandwidth one is. With a count above one the request's count is the basis:
//      the smallest graphics card of which that many run it (count in the result and device),
//      so its figures compare with the request's own whole-setup total.
//      Segments: the search stays first in the person's segment, a desktop (consumer and
//      workstation cards, Macs, unified-memory machines, anything without a segment) or a data
//      centre (data/segments.json "datacenter"): that of the device the request names, a desktop
//      when it names none. Only when nothing there runs the request does it look at the other
//      segment's devices, and segment {preferred: desktop | datacenter, basis: hardware | default,
//      left: true when the answer is from the other segment} says so.
//      Result: found, count, segment, device {id, name, kind, count, memory_gib, memory_basis,
//      price_usd, verdict, total_bytes, usable_bytes, decode_tps, decode_tps_low, segment} (absent when none runs it),
//      below_speed_floor (the same fields for the first smaller device that holds the request
//      but decodes below the floor; absent when none), min_decode_tps, context, quant, evaluations.
//
// For cheapest, picks and smallest_device the request's hardware is optional (it is replaced per candidate).
// Bad input throws InputError: unknown kind -> bad_value at "solve"; bad extra fields at their
// own paths; make_it_fit / best_quant with engine vllm -> bad_value at "engine".
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"

namespace wif {

/// Run the solver named by request["solve"]. Throws InputError.
nlohmann::json run_solve(const Catalog& cat, const nlohmann::json& request);

/// The fields a solve request reads beyond an estimate request's (solve, min_context …).
const std::vector<std::string>& solve_request_fields();

}  // namespace wif
