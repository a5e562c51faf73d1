#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <tuple>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"

namespace hf_config_test_cases {

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

namespace {
const wif::Architecture& arch_of(const char* id) { return wif_test::catalog().find_model(id)->arch; }
}  // namespace

TEST_CASE("Gemma 4 31B: 50 sliding layers of 16 x 256 and 10 global layers of 4 x 512 without a V projection", "[hf_config]") {
  const Architecture& a = arch_of("google/gemma-4-31B-it");
  REQUIRE(a.layers.size() == 60);
  CHECK(a.gguf_arch == "gemma4");
  int sliding = 0, global = 0;
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    const LayerSpec& L = a.layers[il];
    CAPTURE(il);
    CHECK(L.n_head == 32);
    if (L.attn == AttnKind::Sliding) {
      ++sliding;
      CHECK(L.window == 1024);
      CHECK(L.n_head_kv == 16);
      CHECK(L.head_dim_k == 256);
      CHECK_FALSE(L.v_from_k);
    } else {
      ++global;
      CHECK(il % 6 == 5);
      CHECK(L.n_head_kv == 4);
      CHECK(L.head_dim_k == 512);
      CHECK(L.head_dim_v == 512);
      CHECK(L.v_from_k);
    }
  }
  CHECK(sliding == 50);
  CHECK(global == 10);
  // No attn_v on global layers; one shared rope_freqs table; a scalar per layer.
  int v = 0, scale = 0, rope = 0;
  for (const auto& t : enumerate_tensors(a)) {
    v += t.name.find("attn_v.weight") != std::string::npos;
    scale += t.name.find("layer_output_scale") != std::string::npos;
    rope += t.name == "rope_freqs.weight";
  }
  CHECK(v == 50);
  CHECK(scale == 60);
  CHECK(rope == 1);
  // By hand: tied 262144 x 5376 embedding, 50 x (q 8192 + k 4096 + v 4096 + o 8192) x 5376 and
  // 10 x (q 16384 + k 2048 + o 16384) x 5376 attention, 60 x 3 x 5376 x 21504 feed-forward.
  const double hand = 262144.0 * 5376 + 50.0 * (8192 + 4096 + 4096 + 8192) * 5376 +
                      10.0 * (16384 + 2048 + 16384) * 5376 + 60.0 * 3 * 5376 * 21504;
  CHECK(static_cast<double>(count_params(a).total) == Approx(hand).epsilon(0.001));
}

TEST_CASE("Hunyuan-A13B reads its per-layer lists: 32 MoE layers of 64 experts top-8 plus one shared", "[hf_config]") {
  const Architecture& a = arch_of("tencent/Hunyuan-A13B-Instruct");
  CHECK(a.moe.n_expert == 64);
  CHECK(a.moe.n_expert_used == 8);
  CHECK(a.moe.n_ff_exp == 3072);
  CHECK(a.moe.n_shared == 1);
  CHECK(a.moe.n_ff_shexp == 3072);
  CHECK(a.qk_norm);
  for (const auto& L : a.layers) CHECK(L.ffn == FfnKind::MoE);
  // 525M tied embedding + 32 x (41.9M attention + 64 x 37.7M experts + 37.7M shared + router).
  const double hand = 128167.0 * 4096 +
                      32.0 * (2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 65.0 * 3 * 4096 * 3072 + 4096.0 * 64);
  CHECK(static_cast<double>(count_params(a).total) == Approx(hand).epsilon(0.001));
  // A list whose entries differ is refused rather than averaged.
  nlohmann::json c = wif_test::catalog().find_model("tencent/Hunyuan-A13B-Instruct")->raw["config"];
  c["moe_topk"][3] = 4;
  try {
    architecture_from_hf_config(c, "config");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unsupported_value");
    CHECK(e.error().path == "config.moe_topk");
  }
}

TEST_CASE("Kimi Linear: KDA on the layers its 1-based kda_layers list names, MLA on the other 7", "[hf_config]") {
  const Architecture& a = arch_of("moonshotai/Kimi-Linear-48B-A3B-Instruct");
  REQUIRE(a.layers.size() == 27);
  CHECK(a.recurrent.kind == "kda");
  const std::set<std::size_t> mla = {3, 7, 11, 15, 19, 23, 26};   // the checkpoint's kv_b_proj layers
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    CAPTURE(il);
    CHECK((a.layers[il].attn == AttnKind::MLA) == (mla.count(il) == 1));
    CHECK((a.layers[il].ffn == FfnKind::Dense) == (il == 0));
  }
  // The published weight listing sums to 49,122,681,728 parameters.
  CHECK(count_params(a).total == Approx(49122681728.0).epsilon(0.0005));
}

TEST_CASE("an unknown model_type with the standard fields gives an approximate architecture, labelled", "[hf_config]") {
  const nlohmann::json c = {{"model_type", "frobnicator"}, {"hidden_size", 2048}, {"num_hidden_layers", 16},
                            {"num_attention_heads", 16}, {"num_key_value_heads", 4}, {"intermediate_size", 8192},
                            {"vocab_size", 32000}};
  // The catalog path stays exact: an error naming the type.
  try {
    architecture_from_hf_config(c, "config");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unsupported_model_type");
    CHECK(e.error().message.find("frobnicator") != std::string::npos);
  }
  const Architecture a = architecture_from_hf_config(c, "config", true);
  CHECK(a.approximate == "unsupported_model_type");
  CHECK(a.model_type == "frobnicator");
  CHECK(a.layers.size() == 16);
  CHECK(count_params(a).total == 2LL * 32000 * 2048 + 16LL * (2048 * (2048 + 512 + 512 + 2048) + 3LL * 2048 * 8192 + 2 * 2048) + 2048);
  // Without the standard fields there is nothing to approximate: still the coded error.
  try {
    architecture_from_hf_config({{"model_type", "frobnicator"}, {"hidden_size", 64}}, "config", true);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unsupported_model_type");
  }
}

TEST_CASE("Granite 4.0-H Tiny: 36 Mamba-2 and 4 attention layers, each with 64 experts and a shared one", "[hf_config]") {
  const Architecture& a = arch_of("ibm-granite/granite-4.0-h-tiny");
  CHECK(a.gguf_arch == "granitehybrid");
  REQUIRE(a.layers.size() == 40);
  CHECK(a.recurrent.kind == "mamba2");
  CHECK(a.recurrent.d_inner == 3072);
  CHECK(a.recurrent.n_v_heads == 48);
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    CAPTURE(il);
    CHECK((a.layers[il].attn == AttnKind::Full) == (il % 10 == 5));
    CHECK(a.layers[il].ffn == FfnKind::MoE);
  }
  CHECK(a.moe.n_ff_exp == 512);
  CHECK(a.moe.n_shared == 1);
  CHECK(a.moe.n_ff_shexp == 1024);
  CHECK(a.tied_embeddings);
  // By hand from the GGUF's shapes: embedding 100352 x 1536; per layer two norms, router, 64
  // experts of 3 x 1536 x 512 and a 3 x 1536 x 1024 shared expert; a Mamba-2 block is ssm_in
  // 1536 x (2*3072 + 2*128 + 48), conv 4 x 3328 + bias, A/D/dt 3 x 48, norm 3072, ssm_out 3072 x 1536;
  // an attention block is q/o 1536 x 1536 and k/v 1536 x 512. The Hub's bf16 files hold 12.93 GiB.
  const std::int64_t E = 1536;
  const std::int64_t moe = 2 * E + E * 64 + 3 * E * 512 * 64 + 3 * E * 1024;
  const std::int64_t mamba = E * (2 * 3072 + 2 * 128 + 48) + 4 * 3328 + 3328 + 3 * 48 + 3072 + 3072 * E;
  const std::int64_t att = 2 * E * 1536 + 2 * E * 512;
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == 100352 * E + E + 40 * moe + 36 * mamba + 4 * att);
  CHECK(pc.total == 6939037248LL);
  CHECK(static_cast<double>(pc.total) * 2 / (1024.0 * 1024 * 1024) == Approx(12.93).epsilon(0.001));
}

TEST_CASE("Granite 4.0-H Micro: 36 Mamba-2 and 4 attention layers with a dense 8192-wide FFN, checked on IBM's GGUF sizes", "[hf_config]") {
  const Architecture& a = arch_of("ibm-granite/granite-4.0-h-micro");
  CHECK(a.gguf_arch == "granitehybrid");
  REQUIRE(a.layers.size() == 40);
  CHECK(a.recurrent.kind == "mamba2");
  CHECK(a.recurrent.d_inner == 4096);  // 64 Mamba2 heads of 64 (IBM's table), 2 x 2048
  CHECK(a.recurrent.n_v_heads == 64);
  CHECK(a.recurrent.n_group == 1);
  CHECK(a.moe.n_expert == 0);
  int attention = 0;
  for (const auto& L : a.layers) attention += L.attn == AttnKind::Full;
  CHECK(attention == 4);
  CHECK(a.tied_embeddings);
  // By hand: embedding 100352 x 2048 (tied); per layer two norms and a dense SwiGLU FFN of
  // 3 x 2048 x 8192; a Mamba-2 block is ssm_in 2048 x (2*4096 + 2*128 + 64), conv 4 x 4352 + bias,
  // A/D/dt 3 x 64, norm 4096, ssm_out 4096 x 2048; an attention block is q/o 2048 x 2048 and k/v
  // 2048 x 512. IBM's table says 3B.
  const std::int64_t E = 2048;
  const std::int64_t ffn = 3 * E * 8192 + 2 * E;
  const std::int64_t mamba = E * (2 * 4096 + 2 * 128 + 64) + 4 * 4352 + 4352 + 3 * 64 + 4096 + 4096 * E;
  const std::int64_t att = 2 * E * 2048 + 2 * E * 512;
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == 100352 * E + E + 40 * ffn + 36 * mamba + 4 * att);
  CHECK(pc.total == 3191396096LL);
  // IBM's Q8_0 GGUF holds 506 tensors (a public llama.cpp port note on that file): 2 + 36 x 13 + 4 x 9.
  CHECK(plan_quantization(a, "Q8_0").tensors.size() == 506);
  // IBM's own GGUFs (ibm-granite/granite-4.0-h-micro-GGUF at 51ce07a9): the planned files within 1 %.
  const ModelEntry* m = wif_test::catalog().find_model("ibm-granite/granite-4.0-h-micro");
  REQUIRE(m != nullptr);
  int files = 0;
  for (const auto& g : m->raw["gguf"]) {
    const std::string q = g["quant"].get<std::string>();
    CAPTURE(q);
    const double planned = static_cast<double>(plan_quantization(a, q).file_bytes);
    CHECK(planned == Approx(g["bytes"].get<double>()).epsilon(0.01));
    ++files;
  }
  CHECK(files == 2);
}

TEST_CASE("Granite 4.0-H Small: 128 Mamba-2 heads of 64 in one group, 72 experts top-10 and a shared one", "[hf_config]") {
  const Architecture& a = arch_of("ibm-granite/granite-4.0-h-small");
  CHECK(a.gguf_arch == "granitehybrid");
  REQUIRE(a.layers.size() == 40);
  CHECK(a.recurrent.kind == "mamba2");
  CHECK(a.recurrent.d_inner == 8192);   // IBM's GGUF: ssm.inner_size 8192
  CHECK(a.recurrent.n_v_heads == 128);  // ssm.time_step_rank 128
  CHECK(a.recurrent.n_group == 1);      // ssm.group_count 1
  CHECK(a.recurrent.d_state == 128);
  int attention = 0;
  for (const auto& L : a.layers) {
    attention += L.attn == AttnKind::Full;
    CHECK(L.ffn == FfnKind::MoE);
  }
  CHECK(attention == 4);
  CHECK(a.moe.n_expert == 72);
  CHECK(a.moe.n_expert_used == 10);
  CHECK(a.moe.n_ff_exp == 768);
  CHECK(a.moe.n_ff_shexp == 1536);
  // By hand: embedding 100352 x 4096 (tied); per layer two norms, a 4096 x 72 router, 72 experts of
  // 3 x 4096 x 768 and a 3 x 4096 x 1536 shared expert; a Mamba-2 block is ssm_in 4096 x (2*8192 +
  // 2*128 + 128), conv 4 x 8448 + bias, A/D/dt 3 x 128, norm 8192, ssm_out 8192 x 4096; an attention
  // block is q/o 4096 x 4096 and k/v 4096 x 1024.
  const std::int64_t E = 4096;
  const std::int64_t moe = 2 * E + E * 72 + 3 * E * 768 * 72 + 3 * E * 1536;
  const std::int64_t mamba = E * (2 * 8192 + 2 * 128 + 128) + 4 * 8448 + 8448 + 3 * 128 + 8192 + 8192 * E;
  const std::int64_t att = 2 * E * 4096 + 2 * E * 1024;
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == 100352 * E + E + 40 * moe + 36 * mamba + 4 * att);
  CHECK(pc.total == 32207337984LL);
  // The Hub's bf16 safetensors hold 59.99 GiB (32.21B); the card's "32B total / 9B active" is rounded.
  CHECK(static_cast<double>(pc.total) * 2 / (1024.0 * 1024 * 1024) == Approx(59.99).epsilon(0.001));
  CHECK(pc.active == 8803121664LL);
}

TEST_CASE("Qwen3.6-35B-A3B counts exactly the text weights of its safetensors inventory", "[hf_config]") {
  const Architecture& a = arch_of("Qwen/Qwen3.6-35B-A3B");
  CHECK(a.gguf_arch == arch_of("Qwen/Qwen3.5-35B-A3B").gguf_arch);
  REQUIRE(a.layers.size() == 40);
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    CAPTURE(il);
    CHECK((a.layers[il].attn == AttnKind::Full) == ((il + 1) % 4 == 0));
  }
  // The published header-only inventory: embedding 508,559,360 + 40 decoder blocks 33,643,489,920 +
  // final norm and untied head 508,561,408; of those, 2,946,429,568 are read per token (8 of 256
  // experts). The 446,571,248 vision and 844,640,768 MTP weights are the entry's params_excluded_b.
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == 508559360LL + 33643489920LL + 508561408LL);
  CHECK(pc.active == 2946429568LL);
  CHECK(pc.embedding == 248320LL * 2048);
}

TEST_CASE("Granite 4.0-H without experts: the shared MLP is the dense FFN; mamba sizes must agree", "[hf_config]") {
  nlohmann::json c = {{"model_type", "granitemoehybrid"}, {"hidden_size", 512}, {"num_hidden_layers", 4},
                      {"layer_types", {"mamba", "attention", "mamba", "mamba"}}, {"num_attention_heads", 8},
                      {"num_key_value_heads", 2}, {"intermediate_size", 99}, {"shared_intermediate_size", 1024},
                      {"num_local_experts", 0}, {"mamba_n_heads", 16}, {"mamba_d_head", 64}, {"mamba_d_state", 64},
                      {"mamba_n_groups", 1}, {"mamba_d_conv", 4}, {"mamba_expand", 2}, {"vocab_size", 1000}};
  const Architecture a = architecture_from_hf_config(c, "config");
  CHECK(!a.is_moe());
  for (const auto& L : a.layers) {
    CHECK(L.ffn == FfnKind::Dense);
    CHECK(L.n_ff == 1024);
  }
  CHECK(a.layers[1].attn == AttnKind::Full);
  CHECK(a.layers[0].attn == AttnKind::Linear);
  c["mamba_d_head"] = 32;   // 16 x 32 is not 2 x 512
  try {
    architecture_from_hf_config(c, "config");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.error().code == "bad_value");
    CHECK(e.error().path == "config.mamba_d_head");
  }
  // Granite 4.0 Micro shares the model_type with attention on every layer: its mamba keys are unused.
  c["layer_types"] = {"attention", "attention", "attention", "attention"};
  const Architecture micro = architecture_from_hf_config(c, "config");
  CHECK(micro.recurrent.kind.empty());
  for (const auto& L : micro.layers) CHECK(L.attn == AttnKind::Full);
}

TEST_CASE("an unknown hybrid config gets the coded error, not a llama-style estimate that drops its state", "[hf_config]") {
  const nlohmann::json base = {{"model_type", "frobnicator_h"}, {"hidden_size", 2048}, {"num_hidden_layers", 4},
                               {"num_attention_heads", 16}, {"num_key_value_heads", 4}, {"intermediate_size", 8192},
                               {"vocab_size", 32000}};
  CHECK(architecture_from_hf_config(base, "config", true).approximate == "unsupported_model_type");
  const std::vector<std::pair<std::string, nlohmann::json>> markers = {
      {"layer_types", {"mamba", "attention", "mamba", "mamba"}},
      {"hybrid_override_pattern", "M*M-"},
      {"mamba_n_heads", 32},
      {"ssm_state_size", 128},
      {"linear_num_value_heads", 16},
      {"linear_attn_config", {{"kda_layers", {1, 2}}}},
      {"compress_ratios", {0, 4, 128, 4}},
  };
  for (const auto& [k, v] : markers) {
    CAPTURE(k);
    nlohmann::json c = base;
    c[k] = v;
    try {
      architecture_from_hf_config(c, "config", true);
      FAIL("expected an error");
    } catch (const InputError& e) {
      CHECK(e.error().code == "unsupported_model_type");
      CHECK(e.error().path == "config.model_type");
      CHECK(e.error().message.find("frobnicator_h") != std::string::npos);
      CHECK(e.error().message.find(k) != std::string::npos);
    }
  }
  // Windowed attention is still attention: a sliding layer list keeps the approximate estimate.
  nlohmann::json swa = base;
  swa["layer_types"] = {"sliding_attention", "full_attention", "sliding_attention", "full_attention"};
  swa["sliding_window"] = 1024;
  CHECK(architecture_from_hf_config(swa, "config", true).approximate == "unsupported_model_type");
}

TEST_CASE("Gemma 3n: per-layer embeddings, AltUp and LAuReL tensors, and the last layers share an earlier cache", "[hf_config]") {
  for (const auto& [id, n_layer, ff, shared, ollama] :
       {std::tuple<const char*, std::int64_t, std::int64_t, std::int64_t, double>{"google/gemma-3n-E2B-it", 30, 8192, 10, 4.46e9},
        std::tuple<const char*, std::int64_t, std::int64_t, std::int64_t, double>{"google/gemma-3n-E4B-it", 35, 16384, 15, 6.87e9}}) {
    CAPTURE(id);
    const Architecture& a = arch_of(id);
    CHECK(a.gguf_arch == "gemma3n");
    REQUIRE(a.n_layer_all() == n_layer);
    CHECK(a.n_embd_per_layer == 256);
    CHECK(a.n_altup == 4);
    CHECK(a.laurel_rank == 64);
    for (std::int64_t il = 0; il < n_layer; ++il) {
      const LayerSpec& L = a.layers[static_cast<std::size_t>(il)];
      CHECK(L.has_kv == (il < n_layer - shared));
      CHECK((L.attn == AttnKind::Full) == (il % 5 == 4));
      CHECK(L.n_ff == ff);
    }
    // By hand (llama.cpp load_tensors, LLM_ARCH_GEMMA3N): the 262400 x 2048 table (tied), two AltUp
    // projections of 3 x 2048 x 2048, the per-layer table 262400 x (256 n_layer), its 2048 x
    // (256 n_layer) projection and a 256 norm; per layer q/o 2048 x 2048, k/v 2048 x 512, q/k norms
    // of 256, five 2048 norms around attention and FFN, the gated FFN, inp_gate/proj 2048 x 256,
    // post_norm, AltUp 4x4 + 4x16 + 2048x4 + two 2048 vectors, LAuReL 2 x 2048 x 64 and its norm.
    const std::int64_t V = 262400, E = 2048;
    const std::int64_t global = V * E + E + 2 * 3 * E * E + 256 * n_layer * V + E * 256 * n_layer + 256;
    const std::int64_t layer = (2 * E * E + 2 * E * 512) + 2 * 256 + 4 * E + 3 * E * ff + 2 * E * 256 + E +
                               (16 + 64 + E * 4 + 2 * E) + 2 * E * 64 + E;
    const ParamCounts pc = count_params(a);
    CHECK(pc.total == global + n_layer * layer);
    // Ollama lists its GGUF (the text decoder alone) at 4.46B and 6.87B.
    CHECK(static_cast<double>(pc.total) == Approx(ollama).epsilon(0.002));
    // Decode reads one row of each lookup table: neither table counts as active weight, but the
    // tied output head does.
    CHECK(pc.active == pc.total - 256 * n_layer * V);
  }
}

TEST_CASE("Kimi K2.5: Kimi K2's MLA text model read from text_config, whatever its model_type says", "[hf_config]") {
  const ModelEntry* e = wif_test::catalog().find_model("moonshotai/Kimi-K2.5");
  REQUIRE(e != nullptr);
  const nlohmann::json& cfg = e->raw["config"];
  CHECK(cfg["model_type"] == "kimi_k25");
  const Architecture& a = e->arch;
  CHECK(a.gguf_arch == "deepseek2");
  CHECK(a.is_mla());
  REQUIRE(a.n_layer_main() == 61);
  CHECK(a.layers[0].ffn == FfnKind::Dense);
  for (std::size_t il = 1; il < a.layers.size(); ++il) CHECK(a.layers[il].ffn == FfnKind::MoE);
  CHECK(a.n_ctx_train == 262144);   // twice Kimi K2's 131072
  CHECK(a.topology() == "MoE 384x8 + MLA");
  // By hand from the shapes of the published weight list (language_model.*, 61 layers):
  // attention per layer: q_a 1536x7168 + q_a_norm 1536 + q_b 12288x1536 + kv_a 576x7168 +
  // kv_a_norm 512 + kv_b 16384x512 + o 7168x8192 + two layer norms 2x7168;
  // layer 0 dense FFN 3x18432x7168; layers 1-60: 385 experts (384 routed + 1 shared) of
  // 3x2048x7168, router 384x7168 and its 384 score biases; embedding and head 163840x7168 each.
  const std::int64_t E = 7168, V = 163840, expert = 3ll * 2048 * E;
  const std::int64_t attn = 1536 * E + 1536 + 12288ll * 1536 + 576 * E + 512 + 16384ll * 512 + E * 8192 + 2 * E;
  const std::int64_t moe_layer = 385 * expert + 384 * E + 384;
  const std::int64_t total = 2 * V * E + E + 61 * attn + 3ll * 18432 * E + 60 * moe_layer;
  CHECK(total == 1026408232448ll);
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == total);
  // Active per token: 8 routed + 1 shared expert per MoE layer; NVIDIA's 32.86B counts the
  // embedding table too (the core's active count leaves the lookup table out).
  const std::int64_t active_no_embd = V * E + E + 61 * attn + 3ll * 18432 * E + 60 * (9 * expert + 384 * E + 384);
  CHECK(pc.active == active_no_embd);
  CHECK(static_cast<double>(pc.active + V * E) == Approx(32.86e9).epsilon(0.0005));
  // The same text_config read with its model_type given as kimi_k2 (other public copies), or
  // left out (the top-level kimi_k25 then names the family), gives the same model.
  for (const char* mt : {"kimi_k2", ""}) {
    CAPTURE(mt);
    nlohmann::json c = cfg;
    if (*mt) c["text_config"]["model_type"] = mt;
    else c["text_config"].erase("model_type");
    const Architecture b = architecture_from_hf_config(c, "config");
    CHECK(b.gguf_arch == "deepseek2");
    CHECK(b.approximate.empty());
    CHECK(count_params(b).total == total);
    CHECK(b.moe.has_router_bias);
  }
}

TEST_CASE("Gemma 4 26B-A4B: on every layer a dense MLP of 2112 beside 128 experts of 704, top 8", "[hf_config]") {
  const Architecture& a = arch_of("google/gemma-4-26B-A4B-it");
  REQUIRE(a.layers.size() == 30);
  CHECK(a.gguf_arch == "gemma4");
  CHECK(a.moe.n_expert == 128);
  CHECK(a.moe.n_expert_used == 8);   // the config's top_k_experts
  CHECK(a.moe.n_ff_exp == 704);
  CHECK(a.moe.n_shared == 0);
  int sliding = 0;
  for (const auto& L : a.layers) {
    CHECK(L.ffn == FfnKind::MoE);
    CHECK(L.n_ff == 2112);
    if (L.attn == AttnKind::Sliding) {
      ++sliding;
      CHECK(L.n_head_kv == 8);
      CHECK(L.head_dim_k == 256);
    } else {
      CHECK(L.n_head_kv == 2);
      CHECK(L.head_dim_k == 512);
      CHECK(L.v_from_k);
    }
  }
  CHECK(sliding == 25);
  // llama.cpp's loader creates 658 tensors for this model: 3 outside the layers, 21 on each
  // sliding layer and 20 on each global one (no attn_v).
  CHECK(enumerate_tensors(a).size() == 658u);
  // By hand (E = 2816): attention 25 x (q 4096 + k 2048 + v 2048 + o 4096) x E and
  // 5 x (q 8192 + k 1024 + o 8192) x E, q/k norms 25 x 512 + 5 x 1024; per layer the dense MLP
  // 3 x 2112 x E, router 128 x E, experts 128 x 3 x 704 x E, 128 expert scales, 8 vectors of E
  // (4 norms around attention and MLP, 3 of the MoE branch, the router's input scale) and one
  // output scale; the tied 262144 x E table, the output norm and a 256-entry rope_freqs table.
  const std::int64_t E = 2816, V = 262144;
  const std::int64_t attn = 25 * (4096 + 2048 + 2048 + 4096) * E + 5 * (8192 + 1024 + 8192) * E + 25 * 512 + 5 * 1024;
  const std::int64_t per_layer = 3 * 2112 * E + 128 * E + 128ll * 3 * 704 * E + 128 + 8 * E + 1;
  const std::int64_t total = V * E + E + 256 + attn + 30 * per_layer;
  CHECK(total == 25233142046ll);
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == total);
  CHECK(static_cast<double>(pc.total) == Approx(25.2e9).epsilon(0.002));   // the card's 25.2B
  // Active: every expert stack read at 8/128; the card's 3.8B includes the embedding table.
  const std::int64_t experts = 30 * (128ll * 3 * 704 * E + 128);
  CHECK(pc.active == total - V * E - experts + experts / 16 + V * E);   // tied: the table is the output head
  CHECK(static_cast<double>(pc.active) == Approx(3.8e9).epsilon(0.01));
}

TEST_CASE("Nemotron 3 Nano 30B-A3B: every block's pre-norm and each MoE router's score biases are counted", "[hf_config]") {
  const Architecture& a = arch_of("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  REQUIRE(a.layers.size() == 52);
  // By hand (E = 2688): untied 131072 x E table and head, output norm; Mamba-2 layers (64 heads of
  // 64, 8 groups, state 128): norm, in_proj E x (2 x 4096 + 2 x 8 x 128 + 64), conv1d 4 x 6144 and
  // its bias, dt_bias, A and D (64 each), group norm 4096, out_proj 4096 x E; attention layers: norm,
  // q E x 4096, k and v E x 256, o 4096 x E; MoE layers: norm, router 128 x E and its 128 score
  // biases, 128 experts of up and down 1856 x E (squared ReLU, no gate), shared expert 2 x E x 3712.
  const std::int64_t E = 2688, V = 131072;
  const std::int64_t mamba = E + E * 10304 + 4 * 6144 + 6144 + 3 * 64 + 4096 + 4096 * E;
  const std::int64_t attention = E + E * 4096 + 2 * E * 256 + 4096 * E;
  const std::int64_t experts = 128ll * 2 * 1856 * E;
  const std::int64_t moe = E + 128 * E + 128 + experts + 2 * E * 3712;
  const std::int64_t total = 2 * V * E + E + 23 * mamba + 6 * attention + 23 * moe;
  CHECK(total == 31577940288ll);
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == total);
  // The 23 MoE layers' pre-norms and score biases: 23 x (2688 + 128) = 64,768 values.
  std::int64_t small = 0;
  for (const auto& t : enumerate_tensors(a))
    if (t.layer >= 0 && a.layers[static_cast<std::size_t>(t.layer)].ffn == FfnKind::MoE &&
        (t.name.find("attn_norm") != std::string::npos || t.name.find("exp_probs_b") != std::string::npos))
      small += t.n_elements();
  CHECK(small == 64768);
  CHECK(static_cast<double>(pc.total) == Approx(31.6e9).epsilon(0.002));   // NVIDIA's 31.6B
  // Active: 6 of 128 routed experts, the embedding table aside (3.2B).
  CHECK(pc.active == total - V * E - 23 * experts + 23 * experts * 6 / 128);
  CHECK(static_cast<double>(pc.active) == Approx(3.2e9).epsilon(0.01));
}

TEST_CASE("Nemotron 3 Super: 40 Mamba-2, 40 LatentMoE and 8 attention layers, experts in a 1024-wide latent", "[hf_config]") {
  const Architecture& a = arch_of("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16");
  REQUIRE(a.layers.size() == 88);   // the MTP module is not modelled
  std::map<std::string, int> attn, ffn;
  for (const auto& L : a.layers) {
    ++attn[attn_kind_name(L.attn)];
    ffn[L.ffn == FfnKind::MoE ? "moe" : L.ffn == FfnKind::Dense ? "dense" : "none"]++;
  }
  CHECK(attn == std::map<std::string, int>{{"full", 8}, {"linear", 40}, {"none", 40}});
  CHECK(ffn == std::map<std::string, int>{{"moe", 40}, {"none", 48}});
  CHECK(a.moe.n_latent == 1024);
  CHECK(a.moe.n_expert == 512);
  CHECK(a.moe.n_expert_used == 22);
  CHECK(a.moe.n_ff_exp == 2688);
  CHECK(a.moe.n_ff_shexp == 5376);
  // Expert stacks are 1024 wide (not hidden_size), the latent projections 4096 x 1024 each.
  int latent = 0;
  for (const auto& t : enumerate_tensors(a)) {
    if (t.name.find("ffn_up_exps") != std::string::npos) CHECK(t.ne[0] == 1024);
    if (t.name.find("ffn_down_exps") != std::string::npos) CHECK(t.ne[1] == 1024);
    latent += t.name.find("ffn_latent_") != std::string::npos && t.n_elements() == 4096 * 1024;
  }
  CHECK(latent == 80);
  // By hand from the checkpoint's tensors (E = 4096): untied 131072 x E table and head, output norm;
  // Mamba-2 layers: norm, in_proj E x (2 x 8192 + 2 x 8 x 128 + 128), conv1d 4 x 10240 and its bias,
  // dt_bias, A and D (128 each), group norm 8192, out_proj 8192 x E; attention layers: norm,
  // q E x 4096, k and v E x 256, o 4096 x E; MoE layers: norm, router 512 x E and its 512 score biases,
  // latent projections 2 x E x 1024, 512 experts of up 1024 x 2688 and down 2688 x 1024, the
  // shared expert 2 x E x 5376 (squared ReLU, no gate).
  const std::int64_t E = 4096, V = 131072;
  const std::int64_t mamba = E + E * 18560 + 4 * 10240 + 10240 + 3 * 128 + 8192 + 8192 * E;
  const std::int64_t attention = E + E * 4096 + 2 * E * 256 + 4096 * E;
  const std::int64_t expert = 2ll * 1024 * 2688;
  const std::int64_t moe = E + 512 * E + 512 + 2 * E * 1024 + 512 * expert + 2 * E * 5376;
  const std::int64_t total = 2 * V * E + E + 40 * mamba + 8 * attention + 40 * moe;
  const ParamCounts pc = count_params(a);
  // Each MoE layer's pre-norm (4096) and score-correction bias (512) are counted: llama.cpp loads
  // both (LLM_ARCH_NEMOTRON_H: attn_norm on every block, exp_probs_b required on MoE blocks).
  CHECK(pc.total == total);
  int moe_norms = 0, score_biases = 0;
  for (const auto& t : enumerate_tensors(a)) {
    if (t.layer < 0 || a.layers[static_cast<std::size_t>(t.layer)].ffn != FfnKind::MoE) continue;
    moe_norms += t.name == "blk." + std::to_string(t.layer) + ".attn_norm.weight" && t.n_elements() == E;
    score_biases += t.name == "blk." + std::to_string(t.layer) + ".exp_probs_b.bias" && t.n_elements() == 512;
  }
  CHECK(moe_norms == 40);
  CHECK(score_biases == 40);
  // A public count of the checkpoint: 123,611,012,096 weights less the MTP module's
  // 2,942,324,736 (its F32 score biases, 40 x 512, aside).
  CHECK(total - 40 * 512 == 123611012096ll - 2942324736ll);
  CHECK(static_cast<double>(pc.total) == Approx(120.6e9).epsilon(0.001));
  // Active: 22 of 512 experts; 12.1B without the embedding table (Raschka's exact count).
  CHECK(static_cast<double>(pc.active) == Approx(12.1e9).epsilon(0.015));
}

TEST_CASE("Step-3.5 Flash: 64-head full layers every fourth, 96-head sliding layers, head gates, 3 dense MTP layers", "[hf_config]") {
  const Architecture& a = arch_of("stepfun-ai/Step-3.5-Flash");
  CHECK(a.gguf_arch == "step35");
  REQUIRE(a.layers.size() == 48);
  CHECK(a.n_layer_main() == 45);
  CHECK(a.attn_head_gate);
  CHECK(a.qk_norm);
  CHECK(a.moe.n_expert == 288);
  CHECK(a.moe.n_expert_used == 8);
  CHECK(a.moe.n_ff_exp == 1280);
  CHECK(a.moe.n_shared == 1);
  CHECK(a.moe.n_ff_shexp == 1280);
  CHECK(a.moe.has_router_bias);
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    CAPTURE(il);
    const LayerSpec& L = a.layers[il];
    CHECK(L.is_mtp == (il >= 45));
    CHECK(L.attn == (il % 4 == 0 ? AttnKind::Full : AttnKind::Sliding));
    CHECK(L.n_head == (il % 4 == 0 ? 64 : 96));
    CHECK(L.n_head_kv == 8);
    CHECK(L.head_dim_k == 128);
    CHECK(L.window == (il % 4 == 0 ? 0 : 512));
    const bool moe = il >= 3 && il < 45;   // moe_layers_enum 3..44; the MTP layers are dense
    CHECK(L.ffn == (moe ? FfnKind::MoE : FfnKind::Dense));
    if (!moe) CHECK(L.n_ff == 11264);
  }
  // By hand (E = 4096, V = 128896): untied table and head, output norm; per layer the two norms,
  // q/k norms (128 each), q E x (heads x 128), k and v E x 1024, o (heads x 128) x E and the head
  // gate E x heads; dense FFN 3 x E x 11264 on layers 0-2; MoE layers: router 288 x E and its 288
  // score biases, 288 experts of 3 x 1280 x E and a shared expert of 3 x E x 1280.
  const std::int64_t E = 4096, V = 128896;
  auto attention = [&](std::int64_t h) { return 2 * E + 2 * 128 + E * h * 128 + 2 * E * 1024 + h * 128 * E + E * h; };
  const std::int64_t dense = 3 * E * 11264;
  const std::int64_t experts = 288ll * 3 * 1280 * E;
  const std::int64_t moe = 288 * E + 288 + experts + 3 * E * 1280;
  const std::int64_t main = 2 * V * E + E + 12 * attention(64) + 33 * attention(96) + 3 * dense + 42 * moe;
  CHECK(main == 196956130368ll);
  // Each MTP layer: a sliding layer with a dense FFN, eh_proj 2E x E, three norms and its own head.
  const std::int64_t mtp = attention(96) + dense + 2 * E * E + 3 * E + E * V;
  const ParamCounts pc = count_params(a);
  CHECK(pc.mtp == 3 * mtp);
  CHECK(pc.total == main + 3 * mtp);
  CHECK(pc.total == 199384301376ll);   // the checkpoint's 199.4B with its MTP layers
  CHECK(static_cast<double>(pc.total - pc.mtp) == Approx(196e9).epsilon(0.005));   // StepFun's 196B
  // Active: 8 of 288 routed experts, the embedding table and the MTP layers aside (StepFun: 11B).
  // (8/288 is not exact in binary, so the core's sum may round by a parameter or two.)
  CHECK(static_cast<double>(pc.active) == Approx(static_cast<double>(main - V * E - 42 * experts + 42 * experts / 36)).margin(4));
  CHECK(static_cast<double>(pc.active) == Approx(11e9).epsilon(0.05));
}

TEST_CASE("Step 3.5: a bad moe_layers_enum or sliding-layer head setup is a coded error at its path", "[hf_config]") {
  const nlohmann::json base = wif_test::catalog().find_model("stepfun-ai/Step-3.5-Flash")->raw["config"];
  auto code_at = [](const nlohmann::json& c) -> std::pair<std::string, std::string> {
    try {
      architecture_from_hf_config(c, "config");
    } catch (const InputError& e) {
      return {e.error().code, e.error().path};
    }
    return {"", ""};
  };
  nlohmann::json c = base;
  c["moe_layers_enum"] = "3,4,x";
  CHECK(code_at(c) == std::make_pair(std::string("bad_value"), std::string("config.moe_layers_enum")));
  c["moe_layers_enum"] = "3,4,99";
  CHECK(code_at(c) == std::make_pair(std::string("bad_value"), std::string("config.moe_layers_enum")));
  c["moe_layers_enum"] = 7;
  CHECK(code_at(c) == std::make_pair(std::string("bad_type"), std::string("config.moe_layers_enum")));
  c = base;
  c["attention_other_setting"]["num_attention_groups"] = 7;   // 7 does not divide 96
  CHECK(code_at(c) == std::make_pair(std::string("bad_value"), std::string("config.attention_other_setting.num_attention_groups")));
  c = base;
  c["layer_types"].erase(c["layer_types"].size() - 1);   // 47 entries: neither 45 nor 45 + 3
  CHECK(code_at(c) == std::make_pair(std::string("bad_value"), std::string("config.layer_types")));
  // The enum as a list reads the same as the string.
  c = base;
  c["moe_layers_enum"] = nlohmann::json::array();
  for (int i = 3; i < 45; ++i) c["moe_layers_enum"].push_back(i);
  CHECK(count_params(architecture_from_hf_config(c, "config")).total == count_params(arch_of("stepfun-ai/Step-3.5-Flash")).total);
}

// Qwen2.5-Omni keeps its language model two levels down (thinker_config.text_config) beside the
// talker that llama.cpp does not load: the thinker's decoder is Qwen2.5-7B's. By hand: embeddings
// and output head 2 x 152064 x 3584; per layer the two norms (2 x 3584), Q and O (3584^2 each),
// K and V (3584 x 512 each), the Q/K/V biases (3584 + 2 x 512) and the FFN (3 x 3584 x 18944);
// the final norm.
TEST_CASE("Qwen2.5-Omni 7B: the thinker's Qwen2 decoder from thinker_config.text_config, 7.62B by hand", "[hf_config]") {
  const Architecture& a = arch_of("Qwen/Qwen2.5-Omni-7B");
  CHECK(a.model_type == "qwen2");
  CHECK(a.n_layer_main() == 28);
  CHECK(a.layers[0].n_head == 28);
  CHECK(a.layers[0].n_head_kv == 4);
  CHECK(a.layers[0].n_ff == 18944);
  CHECK(a.qkv_bias);
  CHECK_FALSE(a.tied_embeddings);
  constexpr std::int64_t H = 3584, kv = 4 * 128, V = 152064, I = 18944;
  constexpr std::int64_t layer = 2 * H + 2 * H * H + 2 * H * kv + (H + 2 * kv) + 3 * H * I;
  CHECK(count_params(a).total == 2 * V * H + 28 * layer + H);
  CHECK(count_params(a).total == 7615616512);
  // A path into the thinker is named as such.
  nlohmann::json c = wif_test::catalog().find_model("Qwen/Qwen2.5-Omni-7B")->raw["config"];
  c["thinker_config"]["text_config"].erase("num_attention_heads");
  try {
    (void)architecture_from_hf_config(c, "config");
    FAIL("a thinker without num_attention_heads was accepted");
  } catch (const InputError& e) {
    CHECK(e.error().path == "config.thinker_config.text_config.num_attention_heads");
  }
}

}  // namespace hf_config_test_cases
