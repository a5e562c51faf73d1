// The accuracy report and the fit of data/speed.json, both over the published llama-bench rows in
// data/measurements/llamacpp_bench.jsonl.
//
// Rows are mapped to catalog ids by data/measurements/bench_mapping.json (exact strings for the
// model, hardware, quant and backend). Rows that cannot be predicted for one device are left out
// and counted by reason: runs split over several GPUs or partly offloaded (another module places
// those), unstated test lengths, quants or hardware variants, models or devices not in the catalog.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog.hpp"
#include "willitfit/speed.hpp"

namespace wif {

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
};

struct BenchSet {
  std::vector<BenchCase> cases;
  std::map<std::string, int> excluded;   // reason -> rows
  int rows_total = 0;
};

/// Map every llama-bench row of the catalog's measurements. Never throws for a bad row: it is
/// counted under a reason instead.
BenchSet map_bench_rows(const Catalog& cat);

/// Predicted tokens/s for one case with the given coefficients.
double predict_case(const BenchCase& c, const SpeedCoefficients& k);

/// The accuracy report: per test kind (pp / tg) and device class (backend class, plus "all"):
/// rows, median absolute % error, share within 25%, for our model and for two naive baselines
/// computed on the same rows (bandwidth / file size; and that times one constant per test kind,
/// the median ratio on these rows). Also every point (measured, predicted) for a plot, and the
/// excluded rows by reason.
nlohmann::json accuracy_report(const Catalog& cat);

/// Fit the coefficients on the mapped rows (minimising the summed |log(predicted/measured)|,
/// decode terms on tg rows first, then prefill terms on pp rows) and set the ranges from the
/// 10th/90th percentiles of measured/predicted. Starts from `start`; returns the new set.
SpeedCoefficients fit_speed(const BenchSet& set, const SpeedCoefficients& start);

}  // namespace wif
