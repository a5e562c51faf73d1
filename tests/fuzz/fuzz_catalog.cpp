// Fuzz target: the catalog loader. The first byte picks which kind of data file the rest is
// (a model file, a hardware file, quants/clouds/backends, a measurements .jsonl); the file is
// loaded beside one fixed model and one fixed device, and every model that loads is then
// estimated on every device that loads, so validated entries must also estimate cleanly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"

namespace {

const char* kPaths[] = {"models/fuzz/fuzzed.json", "hardware/fuzzed.json", "quants.json",
                        "clouds.json", "backends.json", "measurements/fuzzed.jsonl"};

const char* kModel = R"({"id":"fix/tiny","name":"Tiny","org":"fix","params_total_b":0.01,
  "source":"https://example.org/tiny","checked":"2026-12-02",
  "config":{"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_attention_heads":4,
  "num_hidden_layers":2,"num_key_value_heads":2,"vocab_size":256,"max_position_embeddings":4096}})";

const char* kHardware = R"({"devices":[{"id":"fix-gpu","name":"Fixed GPU","vendor":"fix","kind":"gpu",
  "memory_gib":8,"bandwidth_gbs":300,"backend":"cuda","source":"https://example.org/gpu",
  "checked":"2026-12-02"}]})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string path = kPaths[data[0] % (sizeof kPaths / sizeof *kPaths)];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const wif::Catalog cat = wif::Catalog::load(
      {{path, text}, {"models/fix/tiny.json", kModel}, {"hardware/fix.json", kHardware}});
  for (const auto& e : cat.errors())
    if (e.code.empty() || e.path.empty()) wif_fuzz::fail("a catalog error without code or path", text);
  std::size_t n = 0;
  for (const auto& m : cat.models())
    for (const auto& d : cat.devices()) {
      if (++n > 16) return 0;
      const nlohmann::json req = {{"model", m.id}, {"hardware", d.id}, {"quant", "Q4_K_M"}, {"context", 2048}};
      wif_fuzz::check_answer(wif::api_estimate(cat, req.dump()));
    }
  for (const char* what : {"models", "hardware", "quants", "clouds"})
    wif_fuzz::check_answer(wif::api_list(cat, what));
  return 0;
}
