// Fuzz target: the GGUF header reader. Any bytes must give a parsed header or an InputError with
// a code; a header that parses must also yield a plan, a summary that serialises, and (when its
// architecture imports) an estimate that passes the same sanity checks as every other answer.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/mmproj.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The same bytes as a vision projector (mmproj) header: a coded error or a projector whose
  // per-image figures are finite (gguf/mmproj.hpp bounds every dimension).
  try {
    const wif::MmprojFile f = wif::load_mmproj(data, size, "mmproj");
    if (!f.spec.family.empty()) {
      const wif::ImageCost c = wif::image_cost(f.spec, 16384, 16384);
      const double flops = wif::projector_encode_flops(f.spec, f.plan, c);
      if (c.tokens < 0 || c.positions < 0 || !(flops >= 0) || flops > 1e300) wif_fuzz::fail("mmproj figures out of range", text);
      (void)wif::projector_compute_bytes(f.spec, c, false);
    }
  } catch (const wif::InputError& e) {
    if (e.error().code.empty()) wif_fuzz::fail("InputError without a code (mmproj)", text);
  }
  try {
    const wif::GgufHeader h = wif::parse_gguf_header(data, size);
    (void)wif::gguf_tensor_plan(h);
    (void)wif::gguf_summary(h).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const wif::InputError& e) {
    if (e.error().code.empty()) wif_fuzz::fail("InputError without a code", text);
    return 0;
  }
  // "metadata" and "hyperparameters" echo the file's own values (a hostile file may say -1 or
  // NaN there); every figure we compute must be usable.
  auto doc = nlohmann::json::parse(wif::api_gguf_summary(text), nullptr, false);
  if (doc.is_discarded()) wif_fuzz::fail("the answer is not JSON", text);
  if (doc.is_object() && !doc.contains("error")) {
    doc.erase("metadata");
    doc.erase("hyperparameters");
  }
  wif_fuzz::check_answer(doc.dump());
  return 0;
}
