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

#include "willitfit/architecture.hpp"
#include "willitfit/catalog.hpp"
#include "willitfit/compute.hpp"
#include "willitfit/device.hpp"
#include "willitfit/commands.hpp"
#include "willitfit/kv_cache.hpp"
#include "willitfit/placement.hpp"
#include "willitfit/quantize.hpp"
#include "willitfit/vllm.hpp"
#include "willitfit/placed_speed.hpp"
#include "willitfit/serving_speed.hpp"
#include "willitfit/speed.hpp"

namespace wif {

struct ResolvedModel {
  std::string id, name, org, license, source;
  double params_total_b = 0, params_active_b = 0;   // published (0 = unknown)
  Architecture arch;
  std::shared_ptr<const TensorPlan> plan;           // set when read from a GGUF header, or by a
                                                    // caller that plans once for many estimates
  const ModelEntry* entry = nullptr;                // the catalog entry, when named by id (memo.hpp)
  std::vector<GgufRepo> gguf;                       // published GGUF repos (catalog `gguf`)
};

/// Something the core did with or noticed about a request, as a code and its values (each
/// surface words it): quant_replaced {from, to, engine}, quant_alias {from, to, engine}.
struct Note {
  std::string code;
  nlohmann::json values = nlohmann::json::object();
};

struct EstimateRequest {
  ResolvedModel model;
  std::string quant = "Q4_K_M";
  Device device;
  int count = 1;
  std::string engine = "llama.cpp";
  KvOptions kv;
  QuantOptions qopt;
  double ram_gib = 0;                // system RAM available for offload (0 = not considered)
  MemoryOverrides overrides;
  // Placement and serving (serving.hpp): every accelerator (the device `count` times, or the
  // list given as `hardware: [...]`), llama.cpp flags the person fixed, and vLLM's settings.
  std::vector<Device> devices;
  PlacementSettings placement;
  bool placement_given = false;      // ngl / n_cpu_moe / tensor_split set: no automatic plan
  VllmOptions vllm;
  HostLink host_link;                // system RAM bandwidth and PCIe link for offloaded parts
  SpeedOptions speed;                // prompt / gen / depth (llama-bench -p / -n / -d), backend
  bool summary = false;              // "detail": "summary": the figures a listing shows, no more
  std::vector<Note> notes;           // written as the result's notes[]
};

struct Estimate {
  std::shared_ptr<const TensorPlan> plan;   // never null after run_estimate; shared, not copied
  KvCache kv;
  ComputeBuffer compute;
  std::uint64_t weights_bytes = 0;      // weights resident on the accelerator(s)
  std::uint64_t host_weights_bytes = 0; // weights llama.cpp keeps in system RAM (token_embd)
  std::uint64_t overhead_bytes = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t total_high_bytes = 0;   // upper end of the estimate's uncertainty
  UsableMemory usable;                  // summed over `count` devices
  std::string verdict;                  // fits | tight | offload | no_fit
  ParamCounts params;
  Placement placement;                  // the chosen llama.cpp placement (memory.devices[])
  Placement full;                       // everything on the accelerators (memory.*_bytes)
  std::optional<VllmBudget> vllm;       // engine "vllm", as requested
  std::optional<VllmBudget> vllm_fit;   // a shorter max_model_len that fits, when the request does not
  double sglang_fraction = 0;           // engine "sglang": the --mem-fraction-static used
  std::optional<ServingThroughput> throughput;  // vLLM / SGLang: aggregate decode at a concurrency
  SpeedResult speed;                    // single device (see speed.hpp)
  nlohmann::json quality;               // quality.hpp quality_json for the plan's format
};

/// Resolve a request document against the catalog. Throws InputError with the field's path.
EstimateRequest parse_request(const Catalog& cat, const nlohmann::json& req);

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

/// Resolve a model reference: a catalog id, or an object holding an HF `config`.
ResolvedModel resolve_model(const Catalog& cat, const nlohmann::json& ref, const std::string& path);

/// The tensor plan an estimate of `m` at `quant` uses: the model's own (a GGUF header, or one a
/// caller set), the catalog's shared one (memo.hpp), or a fresh plan for a custom config.
std::shared_ptr<const TensorPlan> model_plan(const Catalog& cat, const ResolvedModel& m, const std::string& quant,
                                             const QuantOptions& opt);
Device resolve_device(const Catalog& cat, const nlohmann::json& ref, const std::string& path);

}  // namespace wif
