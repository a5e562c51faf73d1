// DeepSeek V3's multi-token-prediction layer and the published GGUF files. The checkpoint adds one
// MTP block after the 61 decoder layers (config num_nextn_predict_layers = 1; DeepSeek's card:
// 671B main model + 14B MTP module = 685B). llama.cpp's converter drops it for DeepSeek V2/V3
// (conversion/deepseek.py, DeepseekV2Model: skip_mtp = True, "remove when we support MTP for
// deepseek models"; modify_tensors returns early for model.layers.N with N >= num_hidden_layers),
// so the files people download hold 61 layers and 671.03B parameters (llama-bench prints
// "deepseek2 671B Q5_K - Medium | 442.74 GiB | 671.03 B"). The core counts an MTP block only for
// the architectures whose converter keeps it (glm4_moe, step3p5); these checks hold DeepSeek V3 to
// the file as published and show that counting the block would miss the published size.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_util.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"

namespace deepseek_v3_mtp_test_cases {

using namespace wif;

namespace {

// By hand from config.json: E = 7168, V = 129280, 128 heads, q_lora 1536, kv_lora 512, rope 64,
// nope 128, v 128; 3 dense layers of 18432, 58 MoE layers of 256 experts (2048) + 1 shared.
constexpr std::int64_t E = 7168, V = 129280, H = 128, ql = 1536, kvl = 512, rope = 64, nope = 128, vd = 128;
constexpr std::int64_t n_exp = 256, ff = 2048, dense_ff = 18432;
// MLA as llama.cpp stores it: q_a, q_a_norm, q_b, kv_a_mqa, kv_a_norm, k_b and v_b (kv_b split), output.
constexpr std::int64_t attn = E * ql + ql + ql * H * (nope + rope) + E * (kvl + rope) + kvl +
                              kvl * H * nope + kvl * H * vd + H * vd * E;
constexpr std::int64_t moe = n_exp * 3 * E * ff + 3 * E * ff + n_exp * E + n_exp;  // experts, shared, router, score bias
constexpr std::int64_t main_model = 2 * V * E + E + 3 * (attn + 3 * E * dense_ff + 2 * E) + 58 * (attn + moe + 2 * E);
// The MTP block: one MoE layer plus eh_proj {2E, E} and its enorm, hnorm and shared-head norm;
// the checkpoint also stores its own copies of the embedding and the output head.
constexpr std::int64_t mtp_block = attn + moe + 2 * E + 2 * E * E + 3 * E;
constexpr std::int64_t mtp_with_copies = mtp_block + 2 * V * E;

}  // namespace

TEST_CASE("DeepSeek V3: the MTP module by hand is 13.46B with its embedding and head copies (card: 14B)", "[deepseek_v3][mtp]") {
  CHECK(mtp_with_copies == 13463426304);
  CHECK(mtp_block == 11610068224);
  CHECK(static_cast<double>(main_model + mtp_with_copies) == Approx(685e9).epsilon(0.005));  // the 685B checkpoint
}

TEST_CASE("DeepSeek V3: the core plans the file llama.cpp writes, 61 layers and 671.03B, no MTP block", "[deepseek_v3][mtp]") {
  const Architecture& a = wif_test::catalog_arch("deepseek-ai/DeepSeek-V3-0324");
  REQUIRE(a.layers.size() == 61);
  for (const auto& L : a.layers) CHECK_FALSE(L.is_mtp);
  const ParamCounts pc = count_params(a);
  CHECK(pc.mtp == 0);
  CHECK(main_model == 671026419200);
  CHECK(pc.total == main_model);
  CHECK(std::llround(static_cast<double>(pc.total) / 1e7) == 67103);  // llama-bench's "671.03 B"
}

TEST_CASE("DeepSeek V3-0324: bartowski's Q8_0 (713.29 GB) matches the plan without MTP and misses it with MTP", "[deepseek_v3][mtp][quantize]") {
  const Architecture& a = wif_test::catalog_arch("deepseek-ai/DeepSeek-V3-0324");
  const double planned = static_cast<double>(plan_quantization(a, "Q8_0").weights_bytes);
  const double published = 713.29e9;  // https://huggingface.co/bartowski/deepseek-ai_DeepSeek-V3-0324-GGUF
  const double with_mtp = planned + static_cast<double>(mtp_block) * 34.0 / 32.0;  // Q8_0: 34 bytes per 32 weights
  CAPTURE(planned, published, with_mtp);
  CHECK(std::fabs(planned / published - 1) < 0.001);  // the tensors alone; the file adds its header
  CHECK(with_mtp / published - 1 > 0.015);
}

TEST_CASE("DeepSeek V3-0324: bartowski's Q4_K_M (404.43 GB) is the 61-layer plan too", "[deepseek_v3][mtp][quantize]") {
  const Architecture& a = wif_test::catalog_arch("deepseek-ai/DeepSeek-V3-0324");
  const double planned = static_cast<double>(plan_quantization(a, "Q4_K_M").weights_bytes);
  const double published = 404.43e9;  // the same page; the original recipe, not the "V2" file
  // Even at the smallest type Q4_K_M uses (Q4_K, 4.5 bits), the MTP block adds 6.5 GB (1.6 %).
  const double mtp_at_least = static_cast<double>(mtp_block) * 4.5 / 8.0;
  CAPTURE(planned, published, mtp_at_least);
  CHECK(std::fabs(planned / published - 1) < 0.002);
  CHECK((planned + mtp_at_least) / published - 1 > 0.014);
}

}  // namespace deepseek_v3_mtp_test_cases
