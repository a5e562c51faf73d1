// Every engine gives the same answer to the same question whichever entry asks: the context
// solver's answer is the longest context at which the estimate itself runs, for llama.cpp, vLLM
// and SGLang, with and without a context in the request (issue 15: SGLang's solver once answered
// 131072 where the estimate said no_fit, and 0 without a context).
#include <catch2/catch.hpp>

#include <string>
#include <tuple>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"

namespace engine_agreement_test_cases {

using nlohmann::json;

namespace {
json solve(const json& req) { return json::parse(wif::api_solve(wif_test::catalog(), req.dump())); }
bool runs(const json& e) {
  const std::string v = e.value("verdict", "");
  return v == "fits" || v == "tight";
}
}  // namespace

TEST_CASE("solve max_context equals the longest context at which estimate runs, for every engine", "[engines][solve]") {
  using row = std::tuple<std::string, std::string, std::string, std::string>;  // engine, model, quant, hardware
  const auto [engine, model, quant, hardware] = GENERATE(table<std::string, std::string, std::string, std::string>({
      row{"llama.cpp", "meta-llama/Llama-3.1-8B-Instruct", "Q4_K_M", "nvidia-rtx-4090"},
      row{"llama.cpp", "Qwen/Qwen3-32B", "Q4_K_M", "nvidia-rtx-4090"},
      row{"llama.cpp", "google/gemma-3-27b-it", "Q4_K_M", "nvidia-rtx-3090"},
      row{"llama.cpp", "zai-org/GLM-4.5-Air", "Q4_K_M", "apple-m3-ultra-80c-gpu-512gb"},
      row{"llama.cpp", "mistralai/Mistral-Small-3.2-24B-Instruct-2506", "Q4_K_M", "nvidia-rtx-4090"},
      row{"vllm", "meta-llama/Llama-3.1-8B-Instruct", "", "nvidia-rtx-4090"},
      row{"vllm", "Qwen/Qwen3-8B", "", "nvidia-rtx-4090"},
      row{"vllm", "Qwen/Qwen3-32B", "", "nvidia-h100-sxm"},
      row{"vllm", "google/gemma-3-27b-it", "", "nvidia-h100-sxm"},
      row{"vllm", "meta-llama/Llama-3.3-70B-Instruct", "FP8", "nvidia-h200-sxm"},
      row{"sglang", "meta-llama/Llama-3.1-8B-Instruct", "", "nvidia-rtx-4090"},
      row{"sglang", "Qwen/Qwen3-8B", "", "nvidia-rtx-4090"},
      row{"sglang", "Qwen/Qwen3-32B", "", "nvidia-h100-sxm"},
      row{"sglang", "google/gemma-3-27b-it", "", "nvidia-h100-sxm"},
      row{"sglang", "meta-llama/Llama-3.3-70B-Instruct", "FP8", "nvidia-h200-sxm"},
  }));
  const bool with_context = GENERATE(false, true);
  CAPTURE(engine, model, quant, hardware, with_context);
  json base = {{"model", model}, {"hardware", hardware}, {"engine", engine}};
  if (!quant.empty()) base["quant"] = quant;
  if (with_context) base["context"] = 8192;  // the solver must ignore it and search
  json sq = base;
  sq["solve"] = "max_context";
  const json s = solve(sq);
  REQUIRE_FALSE(s.contains("error"));
  const std::int64_t best = s["max_context"].get<std::int64_t>();
  const std::int64_t cap = s["model_max_context"].get<std::int64_t>();
  CAPTURE(best, cap);
  REQUIRE(best > 0);  // every row is chosen so that some context runs
  json at = base;
  at["context"] = best;
  const json e = wif_test::estimate(at);
  REQUIRE_FALSE(e.contains("error"));
  CHECK(runs(e));
  CHECK(e["settings"]["context"].get<std::int64_t>() == best);  // the estimate ran at that context
  if (best < cap) {
    at["context"] = best + 256;
    CHECK_FALSE(runs(wif_test::estimate(at)));
  } else {
    CHECK(s["capped"].get<bool>());
  }
}

}  // namespace engine_agreement_test_cases
