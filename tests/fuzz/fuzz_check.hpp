// What every fuzz target asserts about the core's answer. A failed check prints why and traps,
// so libFuzzer saves the input as a crash artifact (turn it into a regression in
// tests/fuzz/regressions/<target>/, replayed by CTest).
#pragma once
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "../result_checks.hpp"

namespace wif_fuzz {

[[noreturn]] inline void fail(const std::string& why, const std::string& doc) {
  std::fprintf(stderr, "fuzz check failed: %s\n  in: %.2000s\n", why.c_str(), doc.c_str());
  __builtin_trap();
}

/// An api_* answer: parses, and is either a proper error or a document of usable numbers.
inline void check_answer(const std::string& out) {
  const auto doc = nlohmann::json::parse(out, nullptr, false);
  if (doc.is_discarded()) fail("the answer is not JSON", out);
  if (doc.contains("error")) {
    if (auto why = wif_test::bad_error_doc(doc); !why.empty()) fail(why, out);
    return;
  }
  if (auto why = wif_test::first_bad_value(doc); !why.empty()) fail(why, out);
}

}  // namespace wif_fuzz
