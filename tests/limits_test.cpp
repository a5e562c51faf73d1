// Regression cases for the scale limits (scale_limits.hpp): configs and requests whose fields are each
// in range but whose products overflowed 64-bit byte counts (found by reading the arithmetic
// and by tests/fuzz), now refused with a path before any figure is computed.
#include <catch2/catch.hpp>

#include "test_util.hpp"

#include "result_checks.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/model/scale_limits.hpp"

namespace limits_test_cases {

using nlohmann::json;

namespace {
const wif::Catalog& cat() { return wif_test::catalog(); }
json estimate(const json& req) { return json::parse(wif::api_estimate(cat(), req.dump())); }
json cfg(json patch) {
  json c = {{"model_type", "llama"}, {"hidden_size", 4096}, {"intermediate_size", 14336},
            {"num_attention_heads", 32}, {"num_hidden_layers", 32}, {"num_key_value_heads", 8},
            {"vocab_size", 128256}, {"max_position_embeddings", 131072}};
  c.update(patch);
  return c;
}
}  // namespace

TEST_CASE("an architecture beyond 10^15 weights is refused at the config path", "[limits]") {
  const json r = estimate({{"model", {{"config", cfg({{"hidden_size", 1 << 20}, {"intermediate_size", 1 << 26},
                                                       {"num_attention_heads", 1 << 10}, {"num_key_value_heads", 1 << 10},
                                                       {"num_hidden_layers", 8192}})}}},
                           {"hardware", "nvidia-rtx-4090"}});
  CHECK(r["error"]["code"] == "bad_value");
  CHECK(r["error"]["path"] == "model.config");
}

TEST_CASE("a recurrent state whose size overflowed 64 bits is refused", "[limits]") {
  // Nemotron-H Mamba2 state: heads x head_dim x state, each alone within its range.
  const json c = {{"model_type", "nemotron_h"}, {"hidden_size", 1024}, {"intermediate_size", 4096},
                  {"num_attention_heads", 8}, {"num_hidden_layers", 4}, {"vocab_size", 1000},
                  {"hybrid_override_pattern", "M-M*"}, {"mamba_num_heads", 1 << 30},
                  {"mamba_head_dim", 1 << 30}, {"ssm_state_size", 1 << 30}, {"n_groups", 1 << 30}};
  const json r = estimate({{"model", {{"config", c}}}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(r["error"]["code"] == "bad_value");
  CHECK(r["error"]["path"] == "model.config");
}

TEST_CASE("a KV cache past 1 EiB is refused at context or parallel, before it is multiplied out", "[limits]") {
  const json big = cfg({{"num_key_value_heads", 32}, {"head_dim", 1 << 16}, {"num_hidden_layers", 8192},
                        {"hidden_size", 1 << 12}, {"intermediate_size", 16}});
  const json r = estimate({{"model", {{"config", big}}}, {"hardware", "nvidia-rtx-4090"}, {"context", 100000000}});
  CHECK(r["error"]["code"] == "bad_value");
  CHECK(r["error"]["path"] == "context");
  const json small_ctx = estimate({{"model", {{"config", big}}}, {"hardware", "nvidia-rtx-4090"}, {"context", 4096}});
  CHECK(wif_test::first_bad_value(small_ctx).empty());
  CHECK_FALSE(small_ctx.contains("error"));
}

TEST_CASE("the largest accepted request still gives finite, consistent figures", "[limits]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-rtx-4090"},
                           {"context", 100000000}, {"parallel", 4096}, {"kv_unified", false}, {"ubatch", 65536},
                           {"flash_attn", false}, {"count", 64}, {"ram_gib", 1e6}});
  INFO(r.dump());
  REQUIRE_FALSE(r.contains("error"));
  CHECK(wif_test::first_bad_value(r).empty());
  const auto& m = r["memory"];
  CHECK(m["total_bytes"].get<std::uint64_t>() ==
        m["weights_bytes"].get<std::uint64_t>() + m["kv_cache_bytes"].get<std::uint64_t>() +
            m["compute_bytes"].get<std::uint64_t>() + m["overhead_bytes"].get<std::uint64_t>());
  // Without flash attention the KQ scratch alone (10^8 cells x 65536 x 32 heads x 4 B) is larger
  // than every GPU, and it stays on the GPU even with every layer in RAM: no placement runs it.
  CHECK(m["compute_bytes"].get<double>() > m["usable_bytes"].get<double>());
  CHECK(r["verdict"] == "no_fit");
}

TEST_CASE("heads that do not divide are refused instead of rounded", "[limits]") {
  CHECK(estimate({{"model", {{"config", cfg({{"num_attention_heads", 7}})}}}, {"hardware", "nvidia-rtx-4090"}})["error"]["path"] ==
        "model.config.num_attention_heads");
  // With an explicit head_dim the query width need not equal hidden_size (Gemma, Qwen3).
  CHECK_FALSE(estimate({{"model", {{"config", cfg({{"num_attention_heads", 7}, {"num_key_value_heads", 1}, {"head_dim", 128}})}}},
                        {"hardware", "nvidia-rtx-4090"}}).contains("error"));
}

}  // namespace limits_test_cases
