// MLX's fit step (mlx-lm on one Apple GPU): the checkpoint's tensors (model/mlx_quant.hpp), the
// cache as mlx-lm grows it and one prefill chunk's activations (speed/mlx_speed.hpp), the Metal
// runtime's overhead (data/backends.json, as llama.cpp on Metal), against the same working-set
// cap llama.cpp on Metal budgets against (hardware/device.hpp usable_memory): mlx-lm wires
// recommendedMaxWorkingSetSize for generation (mlx_lm/generate.py wired_limit).
#include <cstdint>

#include "engines.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/model/mlx_quant.hpp"
#include "willitfit/speed/mlx_speed.hpp"

namespace wif::engines {
namespace {

constexpr std::uint64_t kMlxMiB = 1024ull * 1024ull;
// mlx-lm's own warning, not a verdict: it prints "close to the maximum recommended size … can be
// slow" when the weights pass 90 % of the working set (mlx_lm/generate.py wired_limit).
constexpr double kMlxSlowWarningShare = 0.9;

class MlxStep final : public EngineStep {
 public:
  const char* id() const override { return "mlx"; }

  void fit(const Catalog& cat, const EstimateRequest& r, Estimate& e) const override {
    const Architecture& a = r.model.arch;
    e.kv = mlx_kv_cache(a, r.kv.n_ctx, r.mlx.kv_bits, r.mlx.kv_group);
    e.compute = ComputeBuffer{};
    e.compute.ffn_bytes = mlx_activation_bytes(a);
    e.compute.total_bytes = e.compute.ffn_bytes;
    e.weights_bytes = e.plan->weights_bytes;
    e.host_weights_bytes = 0;
    e.overhead_bytes = backend_overhead_bytes(cat, r.device);
    e.total_bytes = e.weights_bytes + e.kv.total_bytes + e.compute.total_bytes + e.overhead_bytes;
    // The same uncertainty as llama.cpp's per-device figure: 2 % plus 256 MiB.
    e.total_high_bytes = e.total_bytes + static_cast<std::uint64_t>(0.02 * static_cast<double>(e.total_bytes)) + 256 * kMlxMiB;
    e.usable = usable_memory(r.device, r.overrides);
    // "fits" on the one rule every engine's verdict uses (estimate.hpp room_to_spare).
    e.verdict = memory_verdict(e.total_bytes, e.total_high_bytes, e.usable.usable_bytes, e.usable.usable_low_bytes);
  }

  void write(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) const override {
    const auto f = find_mlx_format(e.plan->quant);
    const double U = static_cast<double>(e.usable.usable_bytes);
    nlohmann::json j = {
        {"kv_step", kMlxKvStep}, {"prefill_step", kMlxPrefillStep},
        {"kv_bits", r.mlx.kv_bits}, {"kv_group_size", r.mlx.kv_group},
        {"mode", f ? f->mode : ""}, {"bits", f ? f->bits : 0}, {"group_size", f ? f->group_size : 0},
        {"working_set_bytes", e.usable.usable_bytes},
        {"weights_share_of_working_set", U > 0 ? static_cast<double>(e.weights_bytes) / U : 0.0},
        {"slow_warning", U > 0 && static_cast<double>(e.weights_bytes) > kMlxSlowWarningShare * U}};
    // What mlx-lm caches on the model's MLA layers (mlx_mla_layout): the latent, or every head's
    // keys and values; absent for a model without MLA layers.
    const std::string mla = mlx_mla_cache_code(mlx_mla_layout(r.model.arch));
    if (!mla.empty()) j["mla_cache"] = mla;
    out["mlx"] = j;
    // The cache mlx-lm holds, not llama.cpp's -ctk/-ctv (a kv_type in the request means nothing
    // to it): 16-bit, or QuantizedKVCache at kv_bits in groups of kv_group_size (mlx_kv_cache).
    const std::string type = mlx_kv_cache_type(r.mlx.kv_bits, r.mlx.kv_group);
    out["memory"]["kv"]["cache_type"] = type;
    out["settings"]["kv_type_k"] = out["settings"]["kv_type_v"] = text::upper(type);
  }
};

}  // namespace

const EngineStep& mlx_step() {
  static const MlxStep step;
  return step;
}

}  // namespace wif::engines
