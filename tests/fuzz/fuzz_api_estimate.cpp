// Fuzz target: the request parser and estimate behind the JS API and the CLI (api_estimate, and
// api_solve when the text names a solver, on arbitrary text, against the embedded catalog).
// Every answer must be JSON: a proper error or figures that are finite and not negative. The text
// is also read by the quick JSON reader (base/json_util.hpp), which must either decline it or give
// nlohmann's value, number types included.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/catalog/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (nlohmann::json quick; wif::parse_json_quick(text, quick)) {
    const auto full = nlohmann::json::parse(text, nullptr, false);
    if (full.is_discarded()) wif_fuzz::fail("the quick JSON reader read text nlohmann's parser refuses", text);
    // Types too: 1.0 apart from 1, -0.0 from 0, 5 signed from 5 unsigned.
    if (!wif_test::same_json(quick, full))
      wif_fuzz::fail("the quick JSON reader read another value than nlohmann's parser: " + quick.dump(), text);
  }
  wif_fuzz::check_answer(wif::api_estimate(cat, text));
  if (size < 32) wif_fuzz::check_answer(wif::api_list(cat, text));
  // The solvers read the same document plus "solve"; only inputs that name it (they run many
  // estimates each).
  if (text.find("\"solve\"") != std::string::npos) wif_fuzz::check_answer(wif::api_solve(cat, text));
  return 0;
}
