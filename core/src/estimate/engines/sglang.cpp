// SGLang's fit step: llama.cpp's placement as the common base, then SGLang's static memory
// fraction, chunked prefill and running-request limit (servers/sglang.hpp) decide; a shorter
// context_length that fits is kept for the commands, as for vLLM.
#include <algorithm>

#include "engines.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/servers/sglang.hpp"

namespace wif::engines {
namespace {

class SglangStep final : public EngineStep {
 public:
  const char* id() const override { return "sglang"; }

  void fit(const Catalog& cat, const EstimateRequest& r, Estimate& e) const override {
    llamacpp_step().fit(cat, r, e);
    double total_gib = 1e300, phys_gib = 1e300, phys_low_gib = 1e300;
    for (const auto& d : r.devices) {
      const UsableMemory u = usable_memory(d, r.overrides);
      total_gib = std::min(total_gib, static_cast<double>(u.usable_bytes) / units::kGiB);
      phys_gib = std::min(phys_gib, d.memory_gib);
      phys_low_gib = std::min(phys_low_gib, static_cast<double>(u.physical_low_bytes) / units::kGiB);
    }
    SglangOptions o = r.sglang;
    // The group's oldest GPU decides SGLang's capability-keyed defaults (0 when one is unknown).
    o.cuda_compute_capability = 1e300;
    for (const auto& d : r.devices) o.cuda_compute_capability = std::min(o.cuda_compute_capability, d.cuda_compute_capability);
    if (r.devices.empty()) o.cuda_compute_capability = 0;
    if (r.draft && e.draft_plan) {  // a draft model next to the target (speculative.hpp)
      o.draft_arch = &r.draft->arch;
      o.draft_plan = e.draft_plan.get();
    }
    o.context_length = server_context(r);
    e.vllm = sglang_budget(r.model.arch, *e.plan, total_gib, phys_gib, o, &e.sglang_fraction);
    // The same budget on the low end of a vendor's figure (its physical size at the same share):
    // fits only where it starts there too.
    const double low_gib = server_low_gib(r);
    const bool fits_low = e.vllm->fits &&
                          (low_gib >= total_gib || sglang_budget(r.model.arch, *e.plan, low_gib, phys_low_gib, o).fits);
    if (!e.vllm->fits && e.vllm->max_model_len_fit >= 256) {
      o.context_length = e.vllm->max_model_len_fit / 256 * 256;  // the settings that fit
      e.vllm_fit = sglang_budget(r.model.arch, *e.plan, total_gib, phys_gib, o);
    }
    e.verdict = server_verdict(e.vllm->fits, fits_low);
    set_server_totals(r, e);
    server_throughput(cat, r, e);
  }

  void write(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) const override {
    write_server(r, e, e.sglang_fraction, out);
    auto& sv = out["sglang"];
    sv["settings"]["mem_fraction_static"] = e.sglang_fraction;
    if (e.vllm_fit) sv["fit"]["settings"]["mem_fraction_static"] = e.sglang_fraction;
  }
};

}  // namespace

const EngineStep& sglang_step() {
  static const SglangStep step;
  return step;
}

}  // namespace wif::engines
