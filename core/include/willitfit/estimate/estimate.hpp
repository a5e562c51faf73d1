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

/// The result document (contract: memory.*_bytes integers, verdict, model, hardware …).
nlohmann::json estimate_to_json(const EstimateRequest& r, const Estimate& e);


/// The tensor plan an estimate of `m` at `quant` uses: the model's own (a GGUF header, or one a
/// caller set), the catalog's shared one (catalog_memo.hpp), or a fresh plan for a custom config.
std::shared_ptr<const TensorPlan> model_plan(const Catalog& cat, const ResolvedModel& m, const std::string& quant,
                                             const QuantOptions& opt);

}  // namespace wif
