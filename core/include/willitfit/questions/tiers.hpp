// Tier lists for one model, quantization and context: "which hardware runs it, and how fast?",
// the lists the reference pages show ("RTX 5090 with 64 GB of RAM: possible but slow, 3.5-7 tok/s").
//
// Request: the fields of an estimate request (estimate.hpp) without hardware, count or ram_gib,
// which the tiering chooses itself; engine must be llama.cpp (the placement planner is
// llama.cpp's). Defaults as for an estimate (quant Q4_K_M, context 8192).
//
// Every catalog device of kind gpu is asked alone, then with 128 GiB of system RAM, then with the
// smallest of 32 and 64 GiB that holds what that plan keeps in RAM:
//   fits     the automatic plan holds every layer on the GPU (estimate verdict fits or tight);
//   offload  it runs with layers or MoE experts in system RAM ("possible but slow"); ram_gib is
//            the smallest of 32/64/128 GiB with which it does, flags ngl / n_cpu_moe are the
//            placement planner's;
//   no_fit   not even with 128 GiB of RAM;
//   no_engine llama.cpp has no backend for the device (data/backends.json `engines`, e.g. Intel
//            Gaudi, Cambricon): no estimate is made, the entry has device and tier only
//            (verdict no_fit), sorted last.
// Every Apple device (one entry per memory option) and unified-memory PC is fits or no_fit.
// Lists are sorted: fits by decode speed (fastest first), then offload by speed, then no_fit by
// device memory (largest first). Each entry carries `request`, the estimate request that
// reproduces it exactly (api_estimate on it gives the same verdict, memory, speed and flags).
//
// Result: {model, quant, context, ram_tiers_gib, counts{gpus{fits,offload,no_fit,no_engine},macs,unified},
//          gpus[], macs[], unified[], quant_applicability{code} (moe_only_format: MXFP4_MOE
//          on a dense model, estimate.hpp format_applicability; absent otherwise)}, each entry
//   {device{id,name,kind,memory_gib,memory_basis,bandwidth_gbs,price_usd,engines[]}, tier, ram_gib, verdict,
//    memory{total_bytes, usable_bytes, usable_low_bytes, host_ram_bytes}, speed{decode_tps, decode_tps_low,
//    decode_tps_high} (absent when it does not run or the device states no bandwidth),
//    placement{ngl, n_cpu_moe, n_layer} (gpus), request}. memory_basis is the device's
//   (hardware/device.hpp memory_basis_json: a vendor's figure with its low end); the verdict of a
//   "fits" entry is fits only with room to spare on usable_low_bytes, tight otherwise.
// smallest_fit{gpus, macs, unified}: per list, the id of the device with the least memory (the
//   cheaper of equals) whose verdict is fits; where none has room to spare, the least of those
//   that hold it tight; null when nothing in the list runs it on its own.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/defaults.hpp"

namespace wif {

/// System RAM sizes (GiB) the offload tier tries, smallest first (defaults.hpp, which also offers
/// them on a device page).
inline constexpr const auto& kTierRamGib = defaults::kRamTiersGib;

/// The tier lists for a request document (see above). Throws InputError.
nlohmann::json tier_lists(const Catalog& cat, const nlohmann::json& request);

}  // namespace wif
