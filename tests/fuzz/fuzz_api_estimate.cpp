// Fuzz target: the request parser and estimate behind the JS API and the CLI (api_estimate, and
// api_solve when the text names a solver, on arbitrary text, against the embedded catalog).
// Every answer must be JSON: a proper error or figures that are finite and not negative.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
  const std::string text(reinterpret_cast<const char*>(data), size);
  wif_fuzz::check_answer(wif::api_estimate(cat, text));
  if (size < 32) wif_fuzz::check_answer(wif::api_list(cat, text));
  // The solvers read the same document plus "solve"; only inputs that name it (they run many
  // estimates each).
  if (text.find("\"solve\"") != std::string::npos) wif_fuzz::check_answer(wif::api_solve(cat, text));
  return 0;
}
