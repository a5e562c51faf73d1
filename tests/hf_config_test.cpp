#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/tensors.hpp"

using namespace wif;

TEST_CASE("GLM-4.5-Air imports as 46 layers plus one NextN layer, first layer dense", "[hf_config]") {
  const Architecture a = wif_test::golden_arch("glm-4.5-air");
  CHECK(a.gguf_arch == "glm4moe");
  CHECK(a.n_layer_main() == 46);
  CHECK(a.n_layer_all() == 47);
  CHECK(a.layers[0].ffn == FfnKind::Dense);
  CHECK(a.layers[0].n_ff == 10944);
  CHECK(a.layers[1].ffn == FfnKind::MoE);
  CHECK(a.moe.n_expert == 128);
  CHECK(a.moe.n_expert_used == 8);
  CHECK(a.moe.n_shared == 1);
  CHECK(a.moe.n_ff_exp == 1408);
  CHECK(a.layers[5].head_dim_k == 128);   // the config's head_dim, not 4096/96
  CHECK(a.layers[46].is_mtp);
  CHECK(a.topology() == "MoE 128x8 + GQA");
}

TEST_CASE("parameter counts from tensor shapes match published totals", "[hf_config]") {
  // Llama 3.1 8B: 8.03B (model card); GLM-4.5-Air: 106B + 1 NextN layer ~ 110B stored.
  const auto llama = count_params(wif_test::golden_arch("llama-3.1-8b"));
  CHECK(llama.total == Approx(8.03e9).epsilon(0.005));
  CHECK(llama.active == Approx(llama.total - 4096LL * 128256).epsilon(0.001));
  const auto glm = count_params(wif_test::golden_arch("glm-4.5-air"));
  // 106.85B published for the main layers; the stored NextN layer adds ~2.4B (HF lists 110B
  // because its copy also repeats the embedding and head).
  CHECK(glm.total - glm.mtp == Approx(106.85e9).epsilon(0.005));
  CHECK(glm.mtp == Approx(2.37e9).epsilon(0.02));
  CHECK(glm.active == Approx(12.0e9).epsilon(0.1));
}

TEST_CASE("an unknown model_type is an error naming it", "[hf_config]") {
  nlohmann::json c = {{"model_type", "frobnicator"}, {"hidden_size", 64}};
  try {
    architecture_from_hf_config(c, "model.config");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unsupported_model_type");
    CHECK(e.error().path == "model.config.model_type");
    CHECK(e.error().message.find("frobnicator") != std::string::npos);
  }
}

TEST_CASE("missing and malformed config fields name their path", "[hf_config]") {
  auto cfg = wif_test::golden_config("llama-3.1-8b");
  auto expect = [](nlohmann::json c, const std::string& code, const std::string& path) {
    try {
      architecture_from_hf_config(c, "config");
      FAIL("expected an error for " + path);
    } catch (const InputError& e) {
      CHECK(e.error().code == code);
      CHECK(e.error().path == path);
    }
  };
  auto c1 = cfg; c1.erase("hidden_size");
  expect(c1, "missing_field", "config.hidden_size");
  auto c2 = cfg; c2["num_hidden_layers"] = -3;
  expect(c2, "bad_value", "config.num_hidden_layers");
  auto c3 = cfg; c3["num_key_value_heads"] = "eight";
  expect(c3, "bad_type", "config.num_key_value_heads");
  auto c4 = cfg; c4["vocab_size"] = 1.5;
  expect(c4, "bad_value", "config.vocab_size");
  expect(nlohmann::json::array(), "bad_type", "config");
}
