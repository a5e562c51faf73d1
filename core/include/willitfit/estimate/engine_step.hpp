// One fit step per serving engine, behind one interface. run_estimate (estimate.cpp) computes
// what every engine shares (the tensor plan, the KV cache, the compute buffer, the speed model)
// and hands the placement to the step of the request's engine, chosen here by its id:
//   * fit():   place or budget the model on the request's devices and set the verdict (and the
//              engine's own budget in the Estimate);
//   * write(): put the engine's part of the result document (placement or server budget,
//              memory.devices[], memory.* for a server's pool, settings.context).
//
// Adding an engine: write core/src/estimate/engines/<engine>.cpp defining
// `const EngineStep& <engine>_step()` (a static instance of a class deriving from EngineStep), and
// add its name to WIF_ENGINE_STEPS in core/src/estimate/engine_step.cpp (one line). The request
// reader accepts an engine exactly when a step has its id.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/request.hpp"

namespace wif {

class EngineStep {
 public:
  virtual ~EngineStep() = default;
  /// The request's "engine" value ("llama.cpp", "vllm", "sglang").
  virtual const char* id() const = 0;
  /// Fill the memory terms, placement and verdict of `e` (plan, params, kv and compute are set).
  virtual void fit(const Catalog& cat, const EstimateRequest& r, Estimate& e) const = 0;
  /// Write the engine's part of the result document `out` (which holds the common part).
  virtual void write(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) const = 0;
};

/// The step of an engine id, or nullptr when no step has that id.
const EngineStep* find_engine_step(const std::string& id);
/// Every engine id, in registration order.
std::vector<std::string> engine_step_ids();

}  // namespace wif
