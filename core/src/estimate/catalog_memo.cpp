#include "willitfit/estimate/catalog_memo.hpp"

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

namespace wif {

// Plans are handed out as shared pointers to immutable plans; the other references point into
// std::map nodes, which never move once inserted. The lock guards insertion for a catalog
// shared across threads (the CLI, the tests and the wasm module are single-threaded, but the
// core does not assume it).
// A plan holds every tensor by name (a few hundred to a few thousand), about 50-300 KB; the
// catalog has ~80 models x ~30 quants, so keeping them all would cost hundreds of MB of wasm
// memory over a full grid. The newest kPlans stay; a listing loops devices for one model x
// quant, so the working set is small. An evicted plan lives on in the estimates that hold it.
constexpr std::size_t kPlans = 48;
using PlanKey = std::tuple<std::string, std::string, bool, int>;
// The skeleton of a model (its tensors by name and llama-quantize's order; quantize.hpp) is the
// same for every format, and was half of a plan's time. A sweep over the catalog (runs-on) plans
// two to four formats of one model before the next, and a format table one model's every format:
// the newest few models' skeletons cover both.
constexpr std::size_t kSkeletons = 4;

struct Memo {
  std::mutex lock;
  std::map<PlanKey, std::shared_ptr<const TensorPlan>> plans;
  std::deque<PlanKey> plan_order;   // insertion order, oldest first
  std::deque<std::pair<std::string, std::shared_ptr<const TensorSkeleton>>> skeletons;  // newest last
  std::map<std::string, ParamCounts> params;
  std::optional<SpeedCoefficients> coefficients;
  std::optional<nlohmann::json> spec_basis;
  std::optional<MlxSpeedParams> mlx;
  std::optional<TensorParallelParams> tensor_parallel;
  std::optional<SpeculativeParams> speculative;
};

std::shared_ptr<Memo> new_memo() { return std::make_shared<Memo>(); }

namespace {

std::shared_ptr<const TensorSkeleton> memo_skeleton(Memo& mm, const ModelEntry& m) {
  {
    std::lock_guard<std::mutex> g(mm.lock);
    for (const auto& [id, sk] : mm.skeletons)
      if (id == m.id) return sk;
  }
  auto sk = std::make_shared<const TensorSkeleton>(tensor_skeleton(m.arch));
  std::lock_guard<std::mutex> g(mm.lock);
  mm.skeletons.emplace_back(m.id, sk);
  if (mm.skeletons.size() > kSkeletons) mm.skeletons.pop_front();
  return sk;
}

}  // namespace

std::shared_ptr<const TensorPlan> memo_plan(const Catalog& cat, const ModelEntry& m,
                                            const std::string& quant, const QuantOptions& opt) {
  Memo& mm = cat.memo();
  const PlanKey key = std::make_tuple(m.id, quant, opt.imatrix, static_cast<int>(opt.rules));
  {
    std::lock_guard<std::mutex> g(mm.lock);
    auto it = mm.plans.find(key);
    if (it != mm.plans.end()) return it->second;
  }
  // A format with a published checkpoint is sized as that checkpoint stores it (its bits, group
  // and zero points); the key stays (model, quant): the catalog gives one checkpoint per format.
  QuantOptions o = opt;
  if (const PublishedCheckpoint* c = m.checkpoint(quant)) o.linear_bits = c->linear_bits;
  const auto format = find_quant(quant);
  std::shared_ptr<const TensorPlan> p;
  if (format && format->container != "mlx") {
    const std::shared_ptr<const TensorSkeleton> sk = memo_skeleton(mm, m);
    p = std::make_shared<const TensorPlan>(plan_quantization(m.arch, quant, o, *sk));  // may throw
  } else {
    p = std::make_shared<const TensorPlan>(plan_quantization(m.arch, quant, o));  // may throw
  }
  std::lock_guard<std::mutex> g(mm.lock);
  auto it = mm.plans.find(key);
  if (it != mm.plans.end()) return it->second;  // made meanwhile by another thread
  mm.plans.emplace(key, p);
  mm.plan_order.push_back(key);
  while (mm.plan_order.size() > kPlans) {
    mm.plans.erase(mm.plan_order.front());
    mm.plan_order.pop_front();
  }
  return p;
}

const ParamCounts& memo_params(const Catalog& cat, const ModelEntry& m) {
  Memo& mm = cat.memo();
  std::lock_guard<std::mutex> g(mm.lock);
  auto it = mm.params.find(m.id);
  if (it == mm.params.end()) it = mm.params.emplace(m.id, count_params(m.arch)).first;
  return it->second;
}

const SpeedCoefficients& memo_speed_coefficients(const Catalog& cat) {
  Memo& mm = cat.memo();
  std::lock_guard<std::mutex> g(mm.lock);
  if (!mm.coefficients) mm.coefficients = speed_coefficients(cat);
  return *mm.coefficients;
}

const nlohmann::json& memo_speculative_basis(const Catalog& cat) {
  Memo& mm = cat.memo();
  {
    std::lock_guard<std::mutex> g(mm.lock);
    if (mm.spec_basis) return *mm.spec_basis;
  }
  nlohmann::json a = speculative_accuracy(cat);  // plans two models per draft row: outside the lock
  a.erase("rows");
  std::lock_guard<std::mutex> g(mm.lock);
  if (!mm.spec_basis) mm.spec_basis = std::move(a);
  return *mm.spec_basis;
}

const TensorParallelParams& memo_tensor_parallel_params(const Catalog& cat) {
  Memo& mm = cat.memo();
  std::lock_guard<std::mutex> g(mm.lock);
  if (!mm.tensor_parallel) mm.tensor_parallel = tensor_parallel_params(cat);  // may throw: nothing kept
  return *mm.tensor_parallel;
}

const SpeculativeParams& memo_speculative_params(const Catalog& cat) {
  Memo& mm = cat.memo();
  std::lock_guard<std::mutex> g(mm.lock);
  if (!mm.speculative) mm.speculative = speculative_params(cat);
  return *mm.speculative;
}

const MlxSpeedParams& memo_mlx_speed(const Catalog& cat) {
  Memo& mm = cat.memo();
  std::lock_guard<std::mutex> g(mm.lock);
  if (!mm.mlx) mm.mlx = fit_mlx_speed(cat);
  return *mm.mlx;
}

}  // namespace wif
