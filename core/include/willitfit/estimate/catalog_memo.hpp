// Derived data that depends on the catalog alone, computed on first use and kept for the
// catalog's lifetime: a catalog never changes after Catalog::load. A listing page asks for
// every model x device x quant, and the tensor plan (hundreds of named tensors run through
// llama-quantize's rules) and the parameter count depend only on model x quant, so they are
// made once instead of once per device. The speed coefficients (data/speed.json), the
// tensor-parallel terms (tensor_parallel.json) and the speculative terms (speculative.json) are
// parsed once instead of per estimate.
#pragma once
#include <memory>
#include <string>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"
#include "willitfit/speed/mlx_speed.hpp"
#include "willitfit/speed/speed.hpp"
#include "willitfit/speed/speculative.hpp"
#include "willitfit/speed/tensor_parallel.hpp"

namespace wif {

struct Memo;
/// A fresh, empty store (Catalog::load gives each catalog its own).
std::shared_ptr<Memo> new_memo();

/// plan_quantization for the catalog model `m`, made once per (model, quant, options) and
/// shared by every estimate that uses it. The most recent 48 plans are kept, and the newest four
/// models' skeletons (quantize.hpp TensorSkeleton) that plans of other formats start from
/// (catalog_memo.cpp). Throws what plan_quantization throws (and caches
/// nothing then).
std::shared_ptr<const TensorPlan> memo_plan(const Catalog& cat, const ModelEntry& m, const std::string& quant,
                            const QuantOptions& opt);

/// count_params for the catalog model `m`, made once.
const ParamCounts& memo_params(const Catalog& cat, const ModelEntry& m);

/// speed_coefficients(cat), parsed once.
const SpeedCoefficients& memo_speed_coefficients(const Catalog& cat);

/// How the speculative speedup model did on its public rows (speculative_accuracy's summary:
/// fitted and held-out row counts and errors), computed once.
const nlohmann::json& memo_speculative_basis(const Catalog& cat);

/// tensor_parallel_params(cat) (speed/tensor_parallel.hpp), read once; throws what it throws
/// (and keeps nothing then).
const TensorParallelParams& memo_tensor_parallel_params(const Catalog& cat);

/// speculative_params(cat) (speed/speculative.hpp), read once.
const SpeculativeParams& memo_speculative_params(const Catalog& cat);

/// fit_mlx_speed(cat) (speed/mlx_speed.hpp), fitted once.
const MlxSpeedParams& memo_mlx_speed(const Catalog& cat);

}  // namespace wif
