#include "willitfit/estimate/engine_step.hpp"

#include <array>

namespace wif {
namespace engines {

// The engines, in the order they are listed: each name is a function `const EngineStep& name()`
// defined in core/src/estimate/engines/<engine>.cpp. A new engine is one more name here.
#define WIF_ENGINE_STEPS(X) X(llamacpp_step) X(vllm_step) X(sglang_step) X(mlx_step)

#define WIF_DECLARE_STEP(name) const EngineStep& name();
WIF_ENGINE_STEPS(WIF_DECLARE_STEP)
#undef WIF_DECLARE_STEP

}  // namespace engines

namespace {

#define WIF_LIST_STEP(name) &engines::name,
constexpr std::array kSteps = {WIF_ENGINE_STEPS(WIF_LIST_STEP)};
#undef WIF_LIST_STEP

}  // namespace

const EngineStep* find_engine_step(const std::string& id) {
  for (auto step : kSteps)
    if (id == step().id()) return &step();
  return nullptr;
}

std::vector<std::string> engine_step_ids() {
  std::vector<std::string> out;
  for (auto step : kSteps) out.push_back(step().id());
  return out;
}

}  // namespace wif
