// vLLM's fit step: llama.cpp's placement as the common base, then vLLM's own budget on each
// tensor-parallel rank (servers/vllm.hpp) decides; when the requested max_model_len does not fit
// but a shorter one does, the budget at that length (multiple of 256) is kept for the commands.
#include <algorithm>

#include "engines.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/servers/vllm.hpp"

namespace wif::engines {
namespace {

class VllmStep final : public EngineStep {
 public:
  const char* id() const override { return "vllm"; }

  void fit(const Catalog& cat, const EstimateRequest& r, Estimate& e) const override {
    llamacpp_step().fit(cat, r, e);
    double total_gib = 1e300;
    for (const auto& d : r.devices)
      total_gib = std::min(total_gib, static_cast<double>(usable_memory(d, r.overrides).usable_bytes) / units::kGiB);
    VllmOptions o = r.vllm;
    if (r.draft && e.draft_plan) {  // a draft model next to the target (speculative.hpp)
      o.draft_arch = &r.draft->arch;
      o.draft_plan = e.draft_plan.get();
    }
    o.max_model_len = server_context(r);
    e.vllm = vllm_budget(r.model.arch, *e.plan, total_gib, o);
    // The same budget on the low end of a vendor's figure: fits only where it starts there too.
    const double low_gib = server_low_gib(r);
    const bool fits_low = e.vllm->fits && (low_gib >= total_gib || vllm_budget(r.model.arch, *e.plan, low_gib, o).fits);
    if (!e.vllm->fits && e.vllm->kv_available_bytes > 0 && e.vllm->max_model_len_fit >= 256 &&
        e.vllm->graphs_fit_headroom) {
      o.max_model_len = e.vllm->max_model_len_fit / 256 * 256;  // the settings that fit
      e.vllm_fit = vllm_budget(r.model.arch, *e.plan, total_gib, o);
    }
    e.verdict = server_verdict(e.vllm->fits, fits_low);
    set_server_totals(r, e);
    server_throughput(cat, r, e);
  }

  void write(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) const override {
    write_server(r, e, r.vllm.gpu_memory_utilization, out);
  }
};

}  // namespace

const EngineStep& vllm_step() {
  static const VllmStep step;
  return step;
}

}  // namespace wif::engines
