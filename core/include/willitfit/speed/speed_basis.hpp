// What a speed figure stands on, and whether the engine runs on the device at all.
//
// Every speed in a result carries a label:
//  * "measured": a published llama-bench run of this model, quant, device (and count) and backend
//    exists; its figures, source and date are listed next to ours;
//  * "calibrated": the device and backend have published rows (other models), so the fit saw it;
//  * "extrapolated": they do not; the figure comes from the backend's coefficients fitted on
//    other devices (their ids are listed), or from its prior when no device of that backend has
//    rows.
// The index is built from data/measurements (bench_mapping.json maps the rows' strings to
// catalog ids; no planning) and data/engines.json (which engine runs on which backend).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/hardware/device.hpp"

namespace wif {

class Catalog;

struct BasisRow {
  std::string row_id, kind, test, model_id, quant, device_id, backend, group, source, date;
  int gpu_count = 1;
  double tps = 0;
};

struct EngineRow {
  std::string engine, backend, status, via, source, checked, notes;
  double min_cc = 0;        // lowest CUDA compute capability (engines.json min_cuda_compute_capability)
  std::string min_source;   // the page that states it
};

struct SpeedBasisIndex {
  std::vector<BasisRow> rows;     // every llama-bench row that maps to catalog ids
  std::vector<EngineRow> engines;
};

/// Built from the catalog's documents; never throws for a bad row (it is skipped).
SpeedBasisIndex speed_basis_index(const Catalog& cat);

/// llama.cpp status on a device: "runs" when any of its backends runs llama.cpp, else "no" when
/// the table says no for its primary backend, else "unverified".
std::string llamacpp_status(const SpeedBasisIndex& idx, const Device& d);

/// The engine rows for a device's backends (for the device page).
nlohmann::json device_engines_json(const SpeedBasisIndex& idx, const Device& d);

/// {decode_label, prefill_label, basis{…}} for a speed of `model_id` × `quant` on `count` × `d`
/// under `backend` (class), in placement group "single" | "multi_gpu" | "offloaded".
nlohmann::json speed_basis_json(const SpeedBasisIndex& idx, const std::string& model_id, const std::string& quant,
                                const Device& d, int count, const std::string& backend, const std::string& group,
                                bool moe, bool prefill_available);

}  // namespace wif
