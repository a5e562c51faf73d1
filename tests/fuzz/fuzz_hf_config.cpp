// Fuzz target: Hugging Face config.json import. The bytes are parsed as JSON (non-JSON is the
// parser's business, not ours) and imported; a config that imports must also estimate cleanly
// on a catalog device, so the tensor plan, KV cache and compute buffer see it too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/model/architecture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto cfg = nlohmann::json::parse(text, nullptr, false);
  if (cfg.is_discarded()) return 0;
  try {
    (void)wif::architecture_from_hf_config(cfg, "config");
  } catch (const wif::InputError& e) {
    if (e.error().code.empty()) wif_fuzz::fail("InputError without a code", text);
    return 0;
  }
  const nlohmann::json req = {{"model", {{"config", cfg}}}, {"quant", "Q4_K_M"},
                              {"hardware", "nvidia-rtx-4090"}, {"context", 4096}};
  wif_fuzz::check_answer(wif::api_estimate(cat, req.dump()));
  return 0;
}
