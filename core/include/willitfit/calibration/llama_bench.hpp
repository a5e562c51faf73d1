// The accuracy report and the fit of data/speed.json, both over the published llama-bench rows in
// data/measurements/llamacpp_bench.jsonl.
//
// Rows are mapped to catalog ids by data/measurements/bench_mapping.json (exact strings for the
// model, hardware, quant and backend; multi-GPU hardware strings carry a `count`). Three groups:
//  * "single": one device holds everything; these rows fit data/speed.json;
//  * "multi_gpu": the row ran on several GPUs (layer split, -ts when given);
//  * "offloaded": part of the model sat in system RAM (-ngl below the layer count, --n-cpu-moe,
//    -ot exps=CPU); RAM bandwidth from the row when it states one.
// Multi-GPU and offloaded rows are predicted through the same path as an estimate request
// (placement.hpp, multi_device_speed.hpp) and never enter the fit. Rows that cannot be predicted are
// counted by reason: unstated test lengths, quants or hardware variants, models or devices not
// in the catalog.
//
// Held-out split: a fixed rule on the catalog device id (held_out_device: FNV-1a hash of the id,
// one device in four). The report refits the coefficients without those devices' rows and
// predicts them with that fit, so the held-out figures show how the model does on hardware it
// was not fitted on.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/speed/speed.hpp"

namespace wif {

struct PlacedBench;  // llama_bench.cpp: a resolved estimate request and its placement

/// One measurement row that maps to a single-device prediction, with the depth-independent work
/// precomputed so predictions for new coefficients are cheap (the fit evaluates them many times).
struct BenchCase {
  std::string row_id, kind;          // kind: "pp" (prefill) or "tg" (decode)
  std::string backend;               // class: cuda, metal, rocm, vulkan …
  std::string model_id, device_id, quant, family, test;
  std::int64_t n = 0, depth = 0, n_ubatch = 512;
  double measured_tps = 0;
  const Device* device = nullptr;
  ModelWork work;
  double file_bytes = 0;             // GGUF file size (for the naive baselines)
  std::vector<double> kv_samples;    // tg: KV bytes at 9 evenly spaced depths over the run
  double attn_flops = 0;             // pp: attention FLOPs of the run
  bool mmq_legacy = false;           // plan_is_mmq_legacy of its plan
  DeviceRateBasis basis;             // the device's side of its rates (device_rate_basis), made once
  std::string group = "single";      // single | multi_gpu | offloaded
  int gpu_count = 1;
  std::string source;                // the row's public source
  std::string settings;              // placement flags used (multi_gpu / offloaded), e.g. "-ngl 99 x4"
  bool held_out = false;             // its device is held out (held_out_device)
  // multi_gpu / offloaded: the resolved request and its placement (predict_case runs placed_speed).
  std::shared_ptr<const PlacedBench> placed;
};

struct BenchSet {
  std::vector<BenchCase> cases;
  std::map<std::string, int> excluded;   // reason -> rows
  int rows_total = 0;
};

/// Map every llama-bench row of the catalog's measurements. Never throws for a bad row: it is
/// counted under a reason instead.
BenchSet map_bench_rows(const Catalog& cat);

/// The fixed held-out rule: FNV-1a (32-bit) of the catalog device id, held out when % 4 == 1.
bool held_out_device(const std::string& device_id);

/// Predicted tokens/s for one case with the given coefficients.
double predict_case(const BenchCase& c, const SpeedCoefficients& k);

/// The accuracy report (accuracy_report.cpp): `table` per test kind (pp / tg) and device class
/// (backend class, plus "all") over the single-device rows with the shipped coefficients: rows,
/// median absolute % error, share within 25%, for our model and for two naive baselines computed
/// on the same rows (bandwidth / file size; and that times one constant per test kind, the
/// median ratio on these rows). `groups`: decode and prefill in-sample, held-out (refit without
/// the held-out devices), multi-GPU and offloaded. `points`: every predicted row for a plot and
/// table. `excluded`: rows left out, by reason.
/// It also holds `sizes` (size_accuracy_report): the memory claim.
nlohmann::json accuracy_report(const Catalog& cat);

/// GGUF file sizes computed from each catalog model's architecture (plan_quantization) against
/// the published files the catalog lists (`gguf` of each model entry), one row per file:
/// {model, name, repo, quant, published_bytes, computed_bytes, error_pct (signed, computed vs
/// published), source, checked, size_differs? (the entry's stated reason; such rows are left out
/// of the statistics)}, and over the compared rows: compared, median / mean / p90 / max absolute
/// error in %, within_1_pct (share of rows within 1 %). Publisher recipes without a llama.cpp
/// rule (UD-… files) are counted in publisher_recipes_skipped.
nlohmann::json size_accuracy_report(const Catalog& cat);

/// Fit the coefficients on the single-device rows (minimising the summed |log(predicted/measured)|,
/// decode terms on tg rows first, then prefill terms on pp rows) and set the ranges from the
/// 10th/90th percentiles of measured/predicted. Starts from `start`; returns the new set.
/// `training_only`: leave out held-out devices' rows (their backends start from the priors).
SpeedCoefficients fit_speed(const BenchSet& set, const SpeedCoefficients& start, bool training_only = false);

}  // namespace wif
