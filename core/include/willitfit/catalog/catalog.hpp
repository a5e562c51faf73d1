// The catalog: models, devices, quantization formats, cloud offers and engine constants, loaded
// once from the JSON files in data/ (the caller supplies their text; the core does no I/O) and
// validated entry by entry. A bad entry is reported and left out; the rest stays usable.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/base/error.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/model/architecture.hpp"

namespace wif {

struct Memo;                          // catalog_memo.hpp: derived data kept per catalog
std::shared_ptr<Memo> new_memo();

struct CatalogFile {
  std::string path;   // relative to data/, e.g. "models/zai-org/glm-4.5-air.json"
  std::string text;
};

/// A quantized safetensors checkpoint of a catalog model published on the Hugging Face Hub (the
/// model file's `checkpoints`, data/SCHEMA.md): what vLLM and SGLang download and serve for that
/// format. Every one keeps the token table and the output head in 16-bit and quantizes the other
/// linear layers (the loader refuses an entry that says otherwise).
struct PublishedCheckpoint {
  std::string repo;            // "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16"
  std::string quant;           // the format id: FP8, AWQ-4bit, GPTQ-4bit, GPTQ-8bit, NVFP4
  std::string source, checked;
  int bits = 0, group_size = 0;
  bool zero_point = false;
  double linear_bits = 0;      // stored bits per quantized weight (quantize.hpp checkpoint_linear_bits)
  std::uint64_t bytes = 0;     // the published size of its safetensors files, when recorded (else 0)
};

struct ModelEntry {
  std::string id, name, org, family, license, release, native_dtype, source, checked;
  double params_total_b = 0, params_active_b = 0;
  Architecture arch;
  nlohmann::json raw;   // the entry as loaded
  std::string file;
  std::vector<PublishedCheckpoint> checkpoints;
  /// The published checkpoint of format `quant`, or nullptr.
  const PublishedCheckpoint* checkpoint(const std::string& quant) const {
    for (const auto& c : checkpoints)
      if (c.quant == quant) return &c;
    return nullptr;
  }
};

struct BackendInfo {
  std::string id;                 // cuda, metal, rocm, vulkan, sycl, cpu …
  double overhead_mib = 0;        // runtime memory outside model/KV/compute per device
  std::vector<std::string> engines;  // serving engines with upstream support for this backend
  bool ollama = false;               // Ollama's builds run on it (`ollama` "runs", with its source)
  nlohmann::json raw;
};

class Catalog {
 public:
  /// Load and validate. Never throws for bad data: each problem becomes an Error with path
  /// "<file>#<entry id>.<field>" in errors().
  static Catalog load(const std::vector<CatalogFile>& files);

  const std::vector<ModelEntry>& models() const { return models_; }
  const std::vector<Device>& devices() const { return devices_; }
  const std::vector<nlohmann::json>& quants() const { return quants_; }
  const std::vector<nlohmann::json>& clouds() const { return clouds_; }
  const std::vector<nlohmann::json>& measurements() const { return measurements_; }
  /// Electricity prices per market (markets.json): id, currency, price_kwh_local, usd_per_unit.
  const std::vector<nlohmann::json>& markets() const { return markets_; }
  const std::vector<Error>& errors() const { return errors_; }
  /// Other documents kept whole (speed.json, measurements/*.json), by path under data/;
  /// nullptr when absent.
  const nlohmann::json* document(const std::string& path) const;

  const ModelEntry* find_model(const std::string& id) const;   // case-insensitive id
  const Device* find_device(const std::string& id) const;
  /// The lowest CUDA compute capability an engine's build supports (data/engines.json
  /// min_cuda_compute_capability), 0 where none is stated. Read once at load.
  double engine_min_compute_capability(const std::string& engine) const;
  const BackendInfo* find_backend(const std::string& id) const;
  /// The engines that run on a device: the union, in engine order llama.cpp, vllm, sglang, of
  /// the `engines` of each backend the device lists (backends.json). Unknown backends add none;
  /// the `cpu` backend counts only for a CPU device (an accelerator's engine must run on it).
  std::vector<std::string> device_engines(const Device& d) const;
  /// Whether Ollama runs on a device: its primary backend, or one it lists (the `cpu` backend only
  /// for a CPU device, as for device_engines), has `ollama` "runs" in backends.json.
  bool device_ollama(const Device& d) const;
  /// How many identical cards of a GPU's market segment a normal machine holds (data/segments.json
  /// max_count for the device's `segment`); 0 when the device names no segment the file lists.
  /// The count searches cap by it (questions/solve_detail.hpp count_cap, training's cheapest set).
  int segment_max_count(const Device& d) const;
  /// Every segment's max_count, by id (read once at load).
  const std::map<std::string, int>& segment_max_counts() const { return segment_max_counts_; }

  /// The store catalog_memo.hpp keeps derived data in (shared by copies of this catalog, which hold
  /// the same entries).
  Memo& memo() const { return *memo_; }

 private:
  friend struct CatalogLoader;
  std::vector<ModelEntry> models_;
  std::vector<Device> devices_;
  std::vector<nlohmann::json> quants_, clouds_, measurements_, markets_;
  std::map<std::string, BackendInfo> backends_;
  std::map<std::string, nlohmann::json> documents_;
  std::vector<Error> errors_;
  std::map<std::string, std::size_t> model_index_;   // lower-case id -> models_ position
  std::map<std::string, std::size_t> device_index_;  // id -> devices_ position
  // Figures the hot loops (tiers, runs-on, the count searches) ask for per device, read from
  // their documents once at load rather than walked on every call.
  std::map<std::string, double> engine_min_cc_;       // engine -> engines.json min_cuda_compute_capability
  std::map<std::string, int> segment_max_counts_;     // segment id -> segments.json max_count
  std::shared_ptr<Memo> memo_ = new_memo();
};

}  // namespace wif

namespace wif {
/// The catalog compiled into the binary (defined in the generated willitfit_data library).
const std::vector<CatalogFile>& embedded_catalog();
}  // namespace wif
