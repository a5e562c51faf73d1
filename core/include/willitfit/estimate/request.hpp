// The request an estimate reads and the state it fills, as plain values: the types every engine
// step (serving.hpp) and the estimate driver (estimate.hpp) share, so that neither includes the
// other. The reader is parse_request (estimate.hpp); defaults come from defaults.hpp.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/model/architecture.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/llamacpp/compute_buffer.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/speed/multi_device_speed.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/model/audio.hpp"
#include "willitfit/model/projector.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/speed/server_throughput.hpp"
#include "willitfit/servers/sglang.hpp"
#include "willitfit/speed/speed.hpp"
#include "willitfit/speed/speculative.hpp"
#include "willitfit/servers/vllm.hpp"

namespace wif {

struct MmprojFile;  // gguf/mmproj.hpp

struct ResolvedModel {
  std::string id, name, org, license, source;
  double params_total_b = 0, params_active_b = 0;   // published (0 = unknown)
  Architecture arch;
  std::shared_ptr<const TensorPlan> plan;           // set when read from a GGUF header, or by a
                                                    // caller that plans once for many estimates
  const ModelEntry* entry = nullptr;                // the catalog entry, when named by id (catalog_memo.hpp)
  std::vector<GgufRepo> gguf;                       // published GGUF repos (catalog `gguf`)
  VisionSpec vision;                                // the config's vision tower (projector.hpp)
  AudioSpec audio;                                  // the config's audio tower (audio.hpp)
  // The projector read from its own mmproj GGUF (gguf/mmproj.hpp; the model reference's
  // mmproj_handle or mmproj_header_base64): its tensors replace the computed ones and `vision`
  // is its dimensions. mmproj_path / mmproj_revision: where the file came from (a Hub repo).
  std::shared_ptr<const MmprojFile> mmproj;
  std::string mmproj_path, mmproj_revision;
};

/// Images per prompt and the vision projector (projector.hpp): what the person says they send.
struct ProjectorOptions {
  int images = 0;                    // images per prompt; 0 = text only, the projector not loaded
  std::int64_t width = 1024, height = 1024;  // the size of each image, pixels
  bool offload = true;               // libmtmd puts the encoder on the GPU (--no-mmproj-offload: CPU)
  GgmlType type = GgmlType::F16;     // the mmproj file's weight type
  std::uint64_t published_bytes = 0; // the file's size where the Hub lists it (request mmproj_bytes)
  double audio_seconds = 0;          // seconds of audio per prompt; 0 = none, the audio tower not loaded
};

/// Something the core did with or noticed about a request, as a code and its values (each
/// surface words it): quant_replaced {from, to, engine}, quant_alias {from, to, engine}.
struct Note {
  std::string code;
  nlohmann::json values = nlohmann::json::object();
};

/// mlx-lm's settings (engine "mlx", speed/mlx_speed.hpp): a quantized KV cache (mlx_lm.generate
/// --kv-bits, --kv-group-size; 0 = 16-bit).
struct MlxOptions {
  int kv_bits = 0;
  int kv_group = 64;
};

struct EstimateRequest {
  ResolvedModel model;
  std::string quant = "Q4_K_M";
  Device device;
  int count = 1;
  std::string engine = "llama.cpp";
  // The one context of the request: kv.n_ctx (tokens, 0 = the model's own). Every engine step
  // reads it: llama.cpp's cache, vLLM's max_model_len and SGLang's context_length
  // (server_context), the speed curve's depth (speed_options). context_given: the request named
  // one (without, the servers take the model's maximum, as vLLM and SGLang do).
  KvOptions kv;
  bool context_given = false;
  QuantOptions qopt;
  double ram_gib = 0;                // system RAM available for offload (0 = not considered)
  MemoryOverrides overrides;
  // Placement and serving (engine_fit.hpp): every accelerator (the device `count` times, or the
  // list given as `hardware: [...]`), llama.cpp flags the person fixed, and vLLM's settings.
  std::vector<Device> devices;
  PlacementSettings placement;
  bool placement_given = false;      // ngl / n_cpu_moe / tensor_split set: no automatic plan
  VllmOptions vllm;                  // vLLM's settings; vllm.max_model_len is never set here
  SglangOptions sglang;              // SGLang's settings; sglang.context_length is never set here
  MlxOptions mlx;                    // mlx-lm's settings (engine "mlx")
  HostLink host_link;                // system RAM bandwidth and PCIe link for offloaded parts
  SpeedOptions speed;                // prompt / gen / depth (llama-bench -p / -n / -d), backend
  SpeculativeOptions spec;           // mtp / draft_max / workload (speculative.hpp)
  // A separate draft model (request "draft_model", "draft_quant"): resolved like `model`.
  std::shared_ptr<const ResolvedModel> draft;
  std::string draft_quant;
  std::vector<std::pair<std::string, std::string>> draft_candidates;  // catalog models that can draft for it: id, name
  ProjectorOptions proj;             // images / image size / mmproj placement (projector.hpp)
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
  std::string applicability;            // estimate.hpp format_applicability ("" when the format applies)
  double applicability_min_cc = 0;      // cc_no_kernel: the format's min_cuda_compute_capability
  ParamCounts params;
  Placement placement;                  // the chosen llama.cpp placement (memory.devices[])
  Placement full;                       // everything on the accelerators (memory.*_bytes)
  std::optional<VllmBudget> vllm;       // engine "vllm" or "sglang" (the server's budget, as requested;
                                        // written under the engine's own key)
  std::optional<VllmBudget> vllm_fit;   // a shorter context that fits, when the request does not
  double sglang_fraction = 0;           // engine "sglang": the --mem-fraction-static used
  std::optional<ServingThroughput> throughput;  // vLLM / SGLang: aggregate decode at a concurrency
  SpeedResult speed;                    // single device (see speed.hpp)
  nlohmann::json quality;               // quality.hpp quality_json for the plan's format
  // Speculative decoding with the model's MTP layers (request "mtp"): what it adds to memory,
  // on the device that holds the output layer (llama.cpp) or per rank (vLLM / SGLang).
  std::uint64_t spec_weights_bytes = 0, spec_kv_bytes = 0;
  // llama.cpp's MTP context (a second llama_context on the same model) reserves its own compute
  // buffer on the device of the output layer: one layer's scratch or the logits, as the main one.
  std::uint64_t spec_compute_bytes = 0;
  std::vector<std::string> mtp_draft_engines;  // the engines that draft with those layers (speculative.hpp)
  SpeculativeCosts spec_costs;
  SpeculativeParams spec_params;
  // A separate draft model (request "draft_model"): llama.cpp loads it with its own context of
  // the same size (its own KV cache, F16 by default) and its own compute buffer, all layers on
  // the target's accelerator (-ngld); the embedding table stays in system RAM as for the target.
  std::shared_ptr<const TensorPlan> draft_plan;
  KvCache draft_kv;
  ComputeBuffer draft_compute;
  std::uint64_t draft_weights_bytes = 0;   // on the accelerator
  std::uint64_t draft_host_bytes = 0;      // in system RAM (its token_embd; all of it without a GPU)
  bool draft_on_device = false;            // booked on devices[0]; else in system RAM
  nlohmann::json spec_basis;               // the speedup model's public rows and errors (catalog_memo.hpp)
  // The vision projector when images are sent (request "images" > 0) and the family is modelled:
  // the mmproj file and the encoder's compute buffer, on the first accelerator (libmtmd's
  // default) or in system RAM (--no-mmproj-offload, or no accelerator).
  bool proj_loaded = false;
  ProjectorPlan proj_plan;            // computed tensors (params, bytes)
  std::uint64_t proj_bytes = 0;       // resident weights: the published file where known, else computed
  std::uint64_t proj_compute_bytes = 0;
  ImageCost proj_image;
  bool proj_on_device = false;        // booked on devices[0]; else in system RAM
  // The audio tower (audio.hpp), in the same mmproj file: loaded when audio is sent (request
  // "audio_seconds" > 0). proj_bytes and proj_compute_bytes above hold the whole file as loaded
  // (both towers' weights and compute buffers when it has both); these are the audio share.
  ProjectorPlan audio_plan;           // computed tensors (empty when read from the file)
  std::uint64_t audio_bytes = 0;      // the audio tower's weights
  std::int64_t audio_params = 0;
  std::uint64_t audio_compute_bytes = 0;
  AudioCost audio_cost;
};

/// The context a server engine is asked for: the request's, or 0 (the model's maximum) when the
/// request names none.
inline std::int64_t server_context(const EstimateRequest& r) { return r.context_given ? r.kv.n_ctx : 0; }

/// Resolve a model reference: a catalog id, or an object holding an HF `config`.
ResolvedModel resolve_model(const Catalog& cat, const nlohmann::json& ref, const std::string& path);
Device resolve_device(const Catalog& cat, const nlohmann::json& ref, const std::string& path);

}  // namespace wif
