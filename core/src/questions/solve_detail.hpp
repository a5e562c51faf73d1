// Internals shared by solve.cpp (context, quant, make-it-fit) and solve_hardware.cpp (cheapest,
// picks): one Solver per request holds the parsed speed coefficients and one TensorPlan per
// quantization, and counts the estimates it ran.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/estimate.hpp"

namespace wif {
namespace solve_detail {

constexpr std::int64_t kStep = 256;            // llama.cpp pads n_ctx to 256 (llama-context.cpp, PR #17046)
constexpr std::int64_t kSearchLimit = 1 << 20; // context cap when the model states none

/// fits / tight, or offload too when allowed.
bool runs(const std::string& verdict, bool allow_offload);

/// The decode figure a speed floor is held against (smallest_device, picks, cheapest, make_it_fit,
/// runs_on): the low end of the estimate's range, so a setup whose range reaches below the floor is
/// never passed on its central figure (a Jetson at 3.1 tokens/s whose range starts at 2.2 does not
/// run a model "at 3 tokens/s"); the central figure where the estimate gives no range.
double floor_decode_tps(const Estimate& e);

/// A GGUF file type as quants.json ranks it (lower rank = higher quality).
struct QuantRank {
  std::string id;
  int rank = 0;
  std::optional<double> ppl;   // ppl_delta_pct
};
std::vector<QuantRank> gguf_quality_order(const Catalog& cat);

struct ContextFit {
  std::int64_t best = 0;       // 0 = not even the minimum runs
  bool fits_at_min = false;
  bool capped = false;         // the model's own maximum runs
  std::int64_t cap = 0;
};

void set_context(EstimateRequest& r, std::int64_t ctx);

/// The one rule of every count search (make it fit, cheapest, picks): how many identical cards of
/// `d` a normal machine holds. A catalog GPU names its `segment` (consumer, workstation,
/// datacenter) and data/segments.json gives each segment's `max_count` (four cards on a four-slot
/// desktop or workstation board, eight on an HGX baseboard). `limit` is the search's own bound.
struct CountCap {
  int max_count = 1;          // what the search may offer: min(limit, segment max) for GPUs, 1 otherwise
  std::string segment;        // empty: the device names none (then only `limit` applies)
  int segment_max_count = 0;  // 0 when unknown
  bool capped = false;        // the segment's maximum is below `limit`
};
CountCap count_cap(const Catalog& cat, const Device& d, int limit);
/// {code: "segment_max_count", segment, segment_max_count, max_count (the search's own bound)}.
nlohmann::json count_cap_json(const CountCap& c, int limit);
/// One entry per segment whose maximum is below `limit` (a hardware-free search over the catalog).
nlohmann::json catalog_count_caps(const Catalog& cat, int limit);
void set_devices(EstimateRequest& r, const Device& d, int count);
/// The one rule of every hardware search (cheapest, picks, smallest_device, the cloud offers):
/// a device is a candidate only when the request's engine runs on one of its accelerator
/// backends (Catalog::device_engines, data/backends.json `engines`). vLLM and SGLang have no
/// Metal backend, so no Mac is offered for them.
bool engine_runs(const Catalog& cat, const Device& d, const std::string& engine);
/// engine_runs, and the request's format has a kernel there (estimate.hpp format_applicability:
/// no NVFP4 on an AMD card or a pre-Turing GPU).
bool candidate(const Catalog& cat, const Device& d, const EstimateRequest& r);
std::int64_t context_of(const EstimateRequest& r);

class Solver {
 public:
  Solver(const Catalog& cat, EstimateRequest base);
  const Catalog& catalog() const { return cat_; }
  const EstimateRequest& base() const { return base_; }
  bool file_plan() const { return file_plan_; }
  int evaluations() const { return evaluations_; }
  /// The estimate of `r` (its quant's plan cached); `speed` = false skips the speed model.
  Estimate run(EstimateRequest r, bool speed);
  /// Decode tokens/s of e's all-on-accelerator placement, whether or not it fits (0 if unknown).
  double full_speed(const EstimateRequest& r, const Estimate& e) const;
  ContextFit max_context(const EstimateRequest& base, std::int64_t min_ctx, bool allow_offload);

 private:
  std::shared_ptr<const TensorPlan> plan(const std::string& quant);
  const Catalog& cat_;
  EstimateRequest base_;
  SpeedCoefficients coef_;
  bool file_plan_ = false;
  int evaluations_ = 0;
  std::map<std::string, std::shared_ptr<const TensorPlan>> plans_;
};

nlohmann::json cheapest_json(Solver& s, const nlohmann::json& q);
nlohmann::json picks_json(Solver& s, const nlohmann::json& q);
nlohmann::json smallest_device_json(Solver& s, const nlohmann::json& q);

}  // namespace solve_detail
}  // namespace wif
