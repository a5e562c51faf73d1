// The quick JSON reader (base/json_util.hpp parse_json_quick) against nlohmann's parser: where it
// reads, the same value with the same number types; where nlohmann refuses, it declines; and it
// reads every file of the catalog (which is what it is for).
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "result_checks.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/catalog/catalog.hpp"

namespace json_util_test_cases {

using nlohmann::json;

namespace {

/// What the quick reader did with text: "declined", or "same" when it read nlohmann's value;
/// anything else is the failure to report.
std::string compare(const std::string& text) {
  json quick;
  const bool read = wif::parse_json_quick(text, quick);
  const json full = json::parse(text, nullptr, false);
  if (!read) return "declined";
  if (full.is_discarded()) return "read text nlohmann refuses";
  return wif_test::same_json(quick, full) ? "same" : "read a different value: " + quick.dump() + " against " + full.dump();
}

}  // namespace

TEST_CASE("the quick JSON reader reads every catalog file as nlohmann's parser does", "[json]") {
  int files = 0, lines = 0;
  for (const auto& f : wif::embedded_catalog()) {
    if (f.path.size() > 6 && f.path.compare(f.path.size() - 6, 6, ".jsonl") == 0) {
      std::size_t at = 0;
      while (at < f.text.size()) {
        std::size_t nl = f.text.find('\n', at);
        if (nl == std::string::npos) nl = f.text.size();
        const std::string line = f.text.substr(at, nl - at);
        at = nl + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        INFO(f.path << " line " << lines);
        CHECK(compare(line) == "same");
        ++lines;
      }
    } else if (f.path.size() > 5 && f.path.compare(f.path.size() - 5, 5, ".json") == 0) {
      INFO(f.path);
      CHECK(compare(f.text) == "same");
      ++files;
    }
  }
  CHECK(files > 50);
  CHECK(lines > 500);
}

TEST_CASE("the quick JSON reader's edge cases: number types, escapes, UTF-8, what it leaves to nlohmann", "[json]") {
  // Read, with nlohmann's value and types.
  for (const char* t : {"0", "-0", "5", "-5", "18446744073709551615", "-9223372036854775808", "9223372036854775808",
                        "1.5", "-0.0", "1e5", "1E+5", "2.5e-3", "1.7976931348623157e308", "4.9e-324", "true", "false", "null",
                        "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u0041\\u00e9\\u20ac\\u0000\"", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
                        " {\"a\": [1, 2, {\"b\": null}], \"c\": {}} ", "[]", "{}", "[[[]]]", "{\"k\": 1, \"k\": 2}", "\t\r\n[1]\n"}) {
    INFO(t);
    CHECK(compare(t) == "same");
  }
  // Left to nlohmann (it reads them, or refuses them with its message).
  for (const char* t : {"\xef\xbb\xbf{}", "\"\\ud83d\\ude00\"", "18446744073709551616", "-9223372036854775809", "1e400",
                        "", " ", "01", "1.", ".5", "-", "+1", "1e", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]",
                        "\"\\x\"", "\"\\u12\"", "\"\x01\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"",
                        "tru", "nul", "[", "{", "\"abc", "[1]x", "// c\n1"}) {
    INFO(t);
    CHECK(compare(t) == "declined");
  }
  CHECK(compare(std::string("[1]\0", 4)) == "declined");
  // Nesting: 64 levels are read, 65 left to the bounds check, which names them.
  const std::string deep64 = std::string(64, '[') + std::string(64, ']');
  const std::string deep65 = std::string(65, '[') + std::string(65, ']');
  CHECK(compare(deep64) == "same");
  CHECK(compare(deep65) == "declined");
  try {
    (void)wif::parse_json(deep65, "request");
    FAIL("65 levels parsed");
  } catch (const wif::InputError& e) {
    CHECK(e.error().code == "json_too_deep");
  }
}

TEST_CASE("the quick JSON reader against nlohmann's parser on mutated documents", "[json]") {
  // Random byte edits of real documents (a catalog file's start, a request) hit the reader's
  // every branch; each outcome must be "same" or "declined".
  std::vector<std::string> seeds = {
      R"({"model":"zai-org/GLM-4.5-Air","quant":"Q4_K_M","hardware":"nvidia-rtx-4090","context":-8192,"x":[1.5e3,-0,true,null,"\u00e9\n"]})"};
  for (const auto& f : wif::embedded_catalog())
    if (seeds.size() < 6 && f.text.size() < 4000) seeds.push_back(f.text);
  const std::string alphabet = "{}[]\":,.-+eE0123456789 \\u/tfnrbx\x01\x80\xc3\xa9\xed\xf4\xef";
  std::mt19937 rng(20261207);
  int same_n = 0, declined_n = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits && !t.empty(); ++k) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: t.erase(at, 1); break;
        default: t.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    const std::string r = compare(t);
    INFO(t);
    REQUIRE((r == "same" || r == "declined"));
    (r == "same" ? same_n : declined_n)++;
  }
  // Both outcomes are exercised, not one only.
  CHECK(same_n > 100);
  CHECK(declined_n > 100);
}

}  // namespace json_util_test_cases
