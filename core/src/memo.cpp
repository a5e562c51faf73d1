#include "willitfit/memo.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <tuple>

namespace wif {

// Plans are handed out as shared pointers to immutable plans; the other references point into
// std::map nodes, which never move once inserted. The lock guards insertion for a catalog
// shared across threads (the CLI, the tests and the wasm module are single-threaded, but the
// core does not assume it).
struct Memo {
  std::mutex lock;
  std::map<std::tuple<std::string, std::string, bool, int>, std::shared_ptr<const TensorPlan>> plans;
  std::map<std::string, ParamCounts> params;
  std::optional<SpeedCoefficients> coefficients;
};

std::shared_ptr<Memo> new_memo() { return std::make_shared<Memo>(); }

std::shared_ptr<const TensorPlan> memo_plan(const Catalog& cat, const ModelEntry& m, const std::string& quant,
                            const QuantOptions& opt) {
  Memo& mm = cat.memo();
  const auto key = std::make_tuple(m.id, quant, opt.imatrix, static_cast<int>(opt.rules));
  {
    std::lock_guard<std::mutex> g(mm.lock);
    auto it = mm.plans.find(key);
    if (it != mm.plans.end()) return it->second;
  }
  auto p = std::make_shared<const TensorPlan>(plan_quantization(m.arch, quant, opt));  // may throw
  std::lock_guard<std::mutex> g(mm.lock);
  return mm.plans.emplace(key, std::move(p)).first->second;
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

}  // namespace wif
