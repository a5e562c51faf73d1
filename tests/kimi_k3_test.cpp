// Kimi K3: shapes, parameter count and llama.cpp cache, each derived by hand from its config.json
// (tests/golden/configs/kimi-k3.json) and llama.cpp's kimi-k3 loader (src/models/kimi-k3.cpp,
// llama_model_kimi_k3::load_arch_tensors), against the published 2.78T / 104.2B.
#include <catch2/catch.hpp>

#include <map>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/ggml_types.hpp"
#include "willitfit/model/mlx_quant.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"
#include "willitfit/servers/sglang.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/mlx_speed.hpp"

namespace kimi_k3_test_cases {

using namespace wif;

namespace {

const Architecture& k3() {
  static const Architecture a = wif_test::golden_arch("kimi-k3");
  return a;
}

using wif_test::kv_of;

// By hand (E 7168, V 163840; KDA: 96 heads of 128, conv 4; MLA: q rank 1536, kv rank 512, rope 64,
// nope 128, v 128; dense 33792; 896 experts of 3072 in a 3584 latent, two shared of 3072 at E).
constexpr std::int64_t E = 7168, V = 163840, H = 96, hd = 128, inner = H * hd;
constexpr std::int64_t kda_layer = 3 * 4 * inner          // q/k/v short convolutions
                                   + 3 * E * inner         // attn_q, attn_k, attn_v
                                   + E * hd + hd * inner   // ssm_f_a, ssm_f_b (decay gate, low rank)
                                   + E * H + H + inner     // ssm_beta, ssm_a, ssm_dt bias
                                   + E * inner             // ssm_g (full-rank output gate)
                                   + hd + inner * E;       // ssm_norm, attn_output
constexpr std::int64_t mla_layer = 1536 + 512 + E * 1536 + 1536 * H * 192   // q_a, its norm, q_b
                                   + E * (512 + 64)                          // kv_a_mqa
                                   + 128 * 512 * H + 512 * 128 * H           // k_b, v_b
                                   + E * H * 128 + H * 128 * E;              // attn_gate, attn_output
constexpr std::int64_t experts_layer = std::int64_t{3} * 3584 * 3072 * 896;
constexpr std::int64_t moe_rest = E * 896 + 896                // router, score bias
                                  + 2 * E * 3584 + 3584        // ffn_routed_down / _up, latent norm
                                  + 3 * E * 6144;              // two shared experts, fused to 6144
constexpr std::int64_t dense_ffn = 3 * E * 33792;
constexpr std::int64_t per_layer_norms = 4 * E;                // attn/ffn norms, attn/ffn res scores

}  // namespace

TEST_CASE("Kimi K3: 93 layers, KDA on 69 and gated MLA on 24, layer 0 dense, 92 latent-MoE layers", "[kimi_k3]") {
  const Architecture& a = k3();
  CHECK(a.gguf_arch == "kimi-k3");
  CHECK(a.model_type == "kimi_k3");
  REQUIRE(a.layers.size() == 93);
  std::map<AttnKind, int> kinds;
  for (const auto& L : a.layers) ++kinds[L.attn];
  CHECK(kinds[AttnKind::Linear] == 69);
  CHECK(kinds[AttnKind::MLA] == 24);
  // full_attn_layers counts from 1: 4, 8, …, 92 and 93.
  CHECK(a.layers[0].attn == AttnKind::Linear);
  CHECK(a.layers[3].attn == AttnKind::MLA);
  CHECK(a.layers[90].attn == AttnKind::Linear);
  CHECK(a.layers[91].attn == AttnKind::MLA);
  CHECK(a.layers[92].attn == AttnKind::MLA);
  CHECK(a.layers[0].ffn == FfnKind::Dense);
  CHECK(a.layers[0].n_ff == 33792);
  for (std::size_t il = 1; il < a.layers.size(); ++il) CHECK(a.layers[il].ffn == FfnKind::MoE);
  CHECK(a.moe.n_expert == 896);
  CHECK(a.moe.n_expert_used == 16);
  CHECK(a.moe.n_ff_exp == 3072);
  CHECK(a.moe.n_latent == 3584);
  CHECK(a.moe.latent_norm);
  CHECK(a.moe.n_shared == 2);
  CHECK(a.moe.n_ff_shexp == 3072);
  CHECK(a.moe.has_router_bias);
  CHECK(a.recurrent.kind == "kda");
  CHECK(a.recurrent.full_rank_gate);
  CHECK(a.mla_out_gate);
  CHECK(!a.attn_head_gate);
  CHECK(a.attn_res_block == 12);
  CHECK(a.mla.kv_lora_rank == 512);
  CHECK(a.mla.qk_rope_dim == 64);
  // Hybrid KDA + MLA, said as such (not as plain MLA); Kimi Linear the same.
  CHECK(a.topology_code()["attention"] == "hybrid_linear_mla");
  CHECK(a.topology() == "MoE 896x16 + hybrid linear/MLA");
  CHECK(wif_test::catalog_arch("moonshotai/Kimi-Linear-48B-A3B-Instruct").topology_code()["attention"] == "hybrid_linear_mla");
  CHECK(wif_test::catalog_arch("moonshotai/Kimi-K2.5").topology_code()["attention"] == "mla");
}

TEST_CASE("Kimi K3: 2,779.48B parameters by hand (published 2.78T), 104.19B active (published 104.2B)", "[kimi_k3]") {
  const Architecture& a = k3();
  const std::int64_t total = 2 * E * V + E + E                              // embedding, head, output norm and res score
                             + 93 * per_layer_norms + 69 * kda_layer + 24 * mla_layer + dense_ffn +
                             92 * (experts_layer + moe_rest);
  CHECK(total == 2779483135584);
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == total);
  CHECK(pc.experts == 92 * experts_layer);
  CHECK(pc.experts == 2722740830208);   // "2.72T routed" in the write-up that read the released files
  CHECK(static_cast<double>(pc.total) == Approx(2.78e12).epsilon(0.005));
  // Active: all but the embedding lookup and 880 of 896 experts on each MoE layer.
  const std::int64_t active = total - E * V - pc.experts + pc.experts / 896 * 16;
  CHECK(pc.active == active);
  CHECK(active == 104188272224);
  CHECK(static_cast<double>(pc.active) == Approx(104.2e9).epsilon(0.005));
  // The tensor list: 3 global, 4 norms and scores per layer, 14 per KDA layer, 9 per MLA layer,
  // 3 for the dense FFN, 11 per MoE layer.
  CHECK(enumerate_tensors(a).size() == 3 + 1 + 93 * 4 + 69 * 14 + 24 * 9 + 3 + 92 * 11);
}

TEST_CASE("Kimi K3: llama.cpp keeps a 576-wide MLA latent on 24 layers and a KDA state on 69, by hand", "[kimi_k3][kv_cache]") {
  const Architecture& a = k3();
  const KvCache kv = kv_of(a, 131072);
  std::map<std::string, KvGroup> g;
  for (const auto& x : kv.groups) g[x.kind] = x;
  REQUIRE(g.count("mla") == 1);
  REQUIRE(g.count("recurrent") == 1);
  // MLA (llama.cpp keeps K only for MLA): kv_lora_rank 512 + the rope slice 64, f16.
  CHECK(g["mla"].layers == 24);
  CHECK(g["mla"].bytes_per_token == 24u * 576 * 2);
  CHECK(g["mla"].bytes == 24ull * 576 * 2 * 131072);
  CHECK(g["mla"].bytes == 3623878656ull);
  // KDA, f32 per sequence: q/k/v conv tails 3 x 3 x 12288, state 128 x 128 x 96.
  const std::uint64_t state = 4ull * (3 * 3 * 12288 + 128 * 128 * 96);
  CHECK(state == 6733824ull);
  CHECK(g["recurrent"].layers == 69);
  CHECK(g["recurrent"].bytes == 69 * state);
  CHECK(kv.total_bytes == 3623878656ull + 464633856ull);
  CHECK(kv.bytes_per_token_full == 27648u);
  // Four sequences: the latent cells are shared, each sequence keeps its own state.
  CHECK(kv_of(a, 131072, 4).total_bytes == 3623878656ull + 4 * 464633856ull);
  // The full 1M context: 27,648 bytes a token, 27 GiB of latent.
  CHECK(kv_of(a, 1048576).total_bytes == 27648ull * 1048576 + 464633856ull);
  // q8_0 latent: 34 bytes per 32 values (the state stays f32).
  CHECK(kv_of(a, 131072, 1, GgmlType::Q8_0).total_bytes == 24ull * 612 * 131072 + 464633856ull);
}

TEST_CASE("Kimi K3: the GGUF round trip keeps its layers, latent experts, gates and residual blocks", "[kimi_k3][gguf]") {
  const Architecture& a = k3();
  const TensorPlan computed = plan_quantization(a, "MXFP4_MOE");
  const auto header = write_gguf_header(gguf_metadata_for(a, "Kimi K3", "MXFP4_MOE"), computed.tensors);
  const GgufHeader h = parse_gguf_header(header);
  const TensorPlan read = gguf_tensor_plan(h);
  const Architecture b = gguf_architecture(h);
  CHECK(read.weights_bytes == computed.weights_bytes);
  CHECK(b.gguf_arch == "kimi-k3");
  CHECK(b.model_type == "kimi_k3");
  REQUIRE(b.layers.size() == a.layers.size());
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    CAPTURE(il);
    CHECK(b.layers[il].attn == a.layers[il].attn);
    CHECK(b.layers[il].ffn == a.layers[il].ffn);
  }
  CHECK(b.layers[0].n_ff == 33792);
  CHECK(b.moe.n_latent == 3584);
  CHECK(b.moe.latent_norm);
  CHECK(b.moe.n_shared == 2);
  CHECK(b.recurrent.full_rank_gate);
  CHECK(b.mla_out_gate);
  CHECK(!b.attn_head_gate);
  CHECK(b.attn_res_block == 12);
  CHECK(count_params(b).total == count_params(a).total);
  CHECK(enumerate_tensors(b).size() == enumerate_tensors(a).size());
  for (std::int64_t ctx : {4096, 1048576}) {
    CAPTURE(ctx);
    CHECK(kv_of(b, ctx).total_bytes == kv_of(a, ctx).total_bytes);
  }
  // The header alone (no tensor list) is read as the released model: gate and latent norm present.
  const Architecture c = gguf_architecture(parse_gguf_header(write_gguf_header(gguf_metadata_for(a, "Kimi K3", "MXFP4_MOE"), {})));
  CHECK(c.mla_out_gate);
  CHECK(c.moe.latent_norm);
  CHECK(count_params(c).total == count_params(a).total);
}

TEST_CASE("Kimi K3: file sizes against unsloth's published GiB", "[kimi_k3][gguf]") {
  const Architecture& a = k3();
  // Routed experts at MXFP4 (17 bytes per 32 weights), as the checkpoint ships them.
  const TensorPlan mx = plan_quantization(a, "MXFP4_MOE");
  std::uint64_t experts = 0;
  for (const auto& t : mx.tensors)
    if (t.is_expert()) experts += t.bytes;
  CHECK(experts == 2722740830208ull / 32 * 17);
  // unsloth/Kimi-K3-GGUF UD-Q4_K_XL: 1407 GiB published, the experts kept at MXFP4 and the rest near 8 bits.
  CHECK(static_cast<double>(mx.weights_bytes) / wif_test::kGiB == Approx(1407).epsilon(0.01));
}

// bullerwins/Kimi-K3-GGUF's "mxfp4" file was converted straight from the checkpoint: llama.cpp's
// converter repacks the routed experts to MXFP4 and labels the file MXFP4 MoE, every other weight
// going out at the output type (https://github.com/ggml-org/llama.cpp/blob/051139f511300aaf6159294433fab91c73ef7455/conversion/kimi_k3.py,
// KimiK3Model._write_mxfp4_experts and prepare_tensors). Its four parts hold, read from their GGUF
// headers, 1,561,150,781,824 bytes of tensors: MXFP4 1,446,456,066,048, BF16 112,274,505,728 and
// F32 2,420,210,048, in 1,561,157,853,600 bytes of files as the Hub lists them
// (https://github.com/Legoless/gguf-breakdown/blob/199f7b054215e170d2758d943e29a63abcd53cc7/data/files.json).
TEST_CASE("Kimi K3: bullerwins' MXFP4 file, experts as shipped and the rest BF16, is the computed tensor list to the byte", "[kimi_k3][gguf]") {
  const TensorPlan bf = plan_quantization(k3(), "BF16");
  std::uint64_t mx = 0, b16 = 0, f32 = 0;
  for (const auto& t : bf.tensors) {
    CAPTURE(t.name);
    if (t.is_expert()) {
      mx += ggml_row_bytes(GgmlType::MXFP4, static_cast<std::uint64_t>(t.ne[0])) *
            static_cast<std::uint64_t>(t.ne[1] * t.ne[2] * t.ne[3]);
    } else if (t.type == GgmlType::BF16) {
      b16 += t.bytes;
    } else {
      CHECK(t.type == GgmlType::F32);  // routers, convolutions, norms and other vectors
      f32 += t.bytes;
    }
  }
  CHECK(mx == 1446456066048ull);
  CHECK(b16 == 112274505728ull);
  CHECK(f32 == 2420210048ull);
  // The core's MXFP4_MOE is llama-quantize's (src/llama-quant.cpp): the same experts, every other
  // quantizable weight Q8_0, so it plans a smaller file than this one (the catalog entry says so).
  const TensorPlan q = plan_quantization(k3(), "MXFP4_MOE");
  std::uint64_t q_experts = 0;
  for (const auto& t : q.tensors)
    if (t.is_expert()) q_experts += t.bytes;
  CHECK(q_experts == mx);
  const double published = 1561157853600.0;
  const double err = (static_cast<double>(q.file_bytes) - published) / published;
  CAPTURE(q.file_bytes, err);
  CHECK(err < -0.03);
  CHECK(err > -0.04);
}

TEST_CASE("Kimi K3: a kimi_linear text config with K3's keys is read as K3, bad values are coded", "[kimi_k3]") {
  nlohmann::json c = wif_test::golden_config("kimi-k3");
  // The text model on its own (model_type kimi_linear) is still K3, never Kimi Linear without its parts.
  const Architecture t = architecture_from_hf_config(c["text_config"], "config");
  CHECK(t.gguf_arch == "kimi-k3");
  CHECK(count_params(t).total == count_params(k3()).total);
  c["text_config"]["attn_res_block_size"] = 1000;
  try {
    architecture_from_hf_config(c, "config");
    FAIL("an attention-residual block past the layer count was accepted");
  } catch (const InputError& e) {
    CHECK(e.error().code == "bad_value");
    CHECK(e.error().path == "config.text_config.attn_res_block_size");
  }
}

TEST_CASE("Kimi K3 from the catalog: llama.cpp, vLLM and SGLang size it, training is refused with a code", "[kimi_k3][estimate]") {
  const nlohmann::json r = wif_test::estimate({{"model", "moonshotai/Kimi-K3"}, {"quant", "MXFP4_MOE"},
                                               {"hardware", "nvidia-h200-sxm"}, {"count", 8}, {"context", 131072}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 3623878656ull + 464633856ull);
  const nlohmann::json tr = nlohmann::json::parse(api_train(wif_test::catalog(),
      nlohmann::json({{"model", "moonshotai/Kimi-K3"}, {"method", "qlora"}, {"hardware", "nvidia-h200-sxm"}, {"gpus", 8}}).dump()));
  REQUIRE(tr.contains("error"));
  CHECK(tr["error"]["code"] == "training_not_modelled");
  CHECK(tr["error"]["path"] == "model");
  // DeepSeek V4 Flash's compressed attention: the same code, so the page says it once for both.
  const nlohmann::json v4 = nlohmann::json::parse(api_train(wif_test::catalog(),
      nlohmann::json({{"model", "deepseek-ai/DeepSeek-V4-Flash"}, {"method", "lora"}, {"hardware", "nvidia-h200-sxm"}, {"gpus", 8}}).dump()));
  REQUIRE(v4.contains("error"));
  CHECK(v4["error"]["code"] == "training_not_modelled");
  CHECK(v4["error"]["path"] == "model");
}

// Kimi K3 under vLLM and SGLang: 24 MLA layers of a 576-wide latent (1,152 bytes in bf16) and 69 KDA
// layers whose state is three short-convolution windows of 3 x 96 x 128 values and a 128 x 128
// matrix per head, 3 x 3 x 12,288 + 96 x 16,384 = 1,683,456 values (vllm/model_executor/layers/
// mamba/mamba_utils.py, MambaStateShapeCalculator.kda_state_shape), in bf16, split over TP.
TEST_CASE("Kimi K3 under vLLM: 384-token attention blocks that hold a KDA state, 24-layer groups", "[kimi_k3][vllm]") {
  const Architecture& a = wif_test::catalog_arch("moonshotai/Kimi-K3");
  const TensorPlan plan = plan_quantization(a, "BF16-MXFP4-MOE");
  VllmOptions o;
  o.tensor_parallel = 8;
  o.max_model_len = 131072;
  const VllmBudget b = vllm_budget(a, plan, 288, o);  // eight B300
  // The state on one of 8 ranks: 1,683,456 x 2 / 8 = 420,864 bytes. The MLA block (a multiple of
  // 64 tokens) is raised until one layer's page holds it: 64 x cdiv(420,864, 64 x 1,152) = 384.
  CHECK(b.block_size == 384);
  CHECK(b.kv_bytes_per_token == 24 * 1152);
  CHECK(b.layers_per_group == 24);
  const std::uint64_t page = 384ull * 1152;  // 442,368, the state page padded to it
  for (const auto& g : b.groups) {
    CAPTURE(g.kind);
    CHECK(g.page_bytes == page);
  }
  REQUIRE(b.kv_available_bytes > 0);
  const std::int64_t blocks = b.kv_available_bytes / static_cast<std::int64_t>(page * 24);
  CHECK(b.num_blocks == blocks);
  // One request: 131,072 / 384 = 342 (rounded up) MLA blocks and one block in each of the three
  // KDA groups (69 layers in groups of 24).
  const std::int64_t per_req = (131072 + 383) / 384 + 3;
  CHECK(b.max_concurrency == Approx(static_cast<double>(blocks) / per_req));
  CHECK(b.kv_copies == 8);
}

TEST_CASE("Kimi K3 under SGLang: the KDA states take 0.9 / 1.9 of the pool, one a running request", "[kimi_k3][sglang]") {
  const Architecture& a = wif_test::catalog_arch("moonshotai/Kimi-K3");
  SglangOptions o;
  o.tensor_parallel = 8;
  o.context_length = 131072;
  const VllmBudget b = sglang_budget(a, plan_quantization(a, "BF16-MXFP4-MOE"), 288, 288, o);  // eight B300
  REQUIRE(b.kv_available_bytes > 0);
  const double pool = static_cast<double>(b.kv_available_bytes);
  const double states = pool * 0.9 / 1.9;
  // 69 layers x 420,864 bytes a request on each rank.
  CHECK(b.state_slots == static_cast<std::int64_t>(states / (69.0 * 420864)));
  CHECK(b.kv_bytes_per_token == 24 * 1152);
  CHECK(b.kv_tokens == static_cast<std::int64_t>((pool - states) / (24.0 * 1152)));
  CHECK(b.max_concurrency == Approx(std::min(static_cast<double>(b.kv_tokens) / 131072, static_cast<double>(b.state_slots))));
}

TEST_CASE("Kimi K3 estimates under vLLM and SGLang on 8 x B300, as its BF16 + MXFP4 checkpoint", "[kimi_k3][estimate]") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const nlohmann::json v = wif_test::estimate({{"model", "moonshotai/Kimi-K3"}, {"hardware", "nvidia-b300"},
                                                 {"count", 8}, {"engine", engine}, {"context", 131072}});
    REQUIRE_FALSE(v.contains("error"));
    CHECK(v["quant"]["id"] == "BF16-MXFP4-MOE");
    CHECK(v["verdict"] == "fits");
    CHECK(v[engine]["kv_bytes_per_token"] == 24 * 1152);
    CHECK(v[engine]["settings"]["kv_cache_dtype_code"] == "asked");
  }
}

// Kimi K3 under mlx-lm (mlx_lm/models/kimi_k3.py), by hand. make_cache: a KVCache on each of the 24
// MLA layers, holding the normalized 512-wide latent as keys and the 64-wide RoPE key as values
// (update_and_fetch(kv_latent, k_pe)), 16-bit, grown in steps of 256 cells; an ArraysCache of two
// on each of the 69 KDA layers: the q/k/v convolution tail, 3 rows of 3 x 12,288 in 16 bits
// (ShortConv1d keeps its input's type), and the delta-rule state 96 x 128 x 128 in float32.
TEST_CASE("Kimi K3 under MLX: the latent on 24 layers and a 16-bit convolution tail with a float32 state on 69, by hand", "[kimi_k3][mlx]") {
  const Architecture& a = k3();
  const std::uint64_t conv = 2ull * 3 * 3 * 12288;  // 221,184
  const std::uint64_t delta = 4ull * 96 * 128 * 128;  // 6,291,456
  CHECK(conv + delta == 6512640ull);
  const KvCache kv = mlx_kv_cache(a, 10000, 0, 64);
  CHECK(kv.n_ctx == 10240);
  std::map<std::string, KvGroup> g;
  for (const auto& x : kv.groups) g[x.kind] = x;
  REQUIRE(g.count("mla") == 1);
  REQUIRE(g.count("recurrent") == 1);
  CHECK(g["mla"].bytes_per_token == 24u * (512 + 64) * 2);
  CHECK(g["mla"].bytes == 10240ull * 27648);
  CHECK(g["recurrent"].layers == 69);
  CHECK(g["recurrent"].bytes == 69 * (conv + delta));
  CHECK(kv.total_bytes == 283115520ull + 449372160ull);
  // llama.cpp keeps the same tail in f32 (twice these bytes) and the same state: 216 KiB a layer more.
  CHECK(kv_of(a, 10000).total_bytes - kv.total_bytes == 69 * conv);
  CHECK(kv.per_layer[0] == conv + delta);   // layer 1 of the config is KDA
  CHECK(kv.per_layer[3] == 10240ull * 1152);  // layer 4 is MLA
  // kimi_k3.py's absorbed attention cannot take a quantized cache (mlx_mla_layout): no --kv-bits.
  CHECK(mlx_mla_layout(a).cache == MlxMlaCache::Latent);
  CHECK_FALSE(mlx_mla_layout(a).quantizable);
}

TEST_CASE("Kimi K3 under MLX: float32 gate parameters, residual projections with their norms, experts at the format", "[kimi_k3][mlx]") {
  const Architecture& a = k3();
  const MlxTensors p = plan_mlx(a, *find_mlx_format("MLX-4bit"));
  std::map<std::string, const Tensor*> t;
  for (const auto& x : p.tensors) t[x.name] = &x;
  // cast_predicate: A_log, dt_bias, e_score_correction_bias stay float32.
  REQUIRE(t.count("blk.0.ssm_a"));
  CHECK(t["blk.0.ssm_a"]->bytes == 96u * 4);
  CHECK(t["blk.0.ssm_dt.bias"]->bytes == 12288u * 4);
  CHECK(t["blk.1.exp_probs_b.bias"]->bytes == 896u * 4);
  // quant_predicate: res_proj unquantized (1 x 7168, 16-bit) beside its RMSNorm weight (7168).
  CHECK(t["blk.0.attn_res_score.weight"]->bytes == 2u * 7168 * 2);
  CHECK(t["output_res_score.weight"]->bytes == 2u * 7168 * 2);
  // The router at 8 bits in groups of 64 (mlp.gate), the experts at 4 bits with a 16-bit scale
  // and bias per 64 weights.
  CHECK(t["blk.1.ffn_gate_inp.weight"]->bytes == 7168ull * 896 + 7168ull * 896 / 64 * 4);
  const std::uint64_t n = 3584ull * 3072 * 896;
  CHECK(t["blk.1.ffn_up_exps.weight"]->bytes == n / 2 + n / 64 * 4);
  CHECK(t["blk.1.ffn_down_exps.weight"]->bytes == n / 2 + n / 64 * 4);
  // The q/k/v convolutions stay 16-bit (nn.Conv1d has no quantized form).
  CHECK(t["blk.0.ssm_conv1d_q.weight"]->bytes == 4u * 12288 * 2);
}

TEST_CASE("Kimi K3 under MLX from the catalog: estimated on a 512 GB Mac, its residual blocks in the working buffer, a quantized cache refused", "[kimi_k3][mlx][estimate]") {
  const nlohmann::json m = wif_test::estimate({{"model", "moonshotai/Kimi-K3"}, {"quant", "MLX-2bit"},
                                               {"hardware", "apple-m3-ultra-80c-gpu-512gb"}, {"engine", "mlx"}, {"context", 10000}});
  REQUIRE_FALSE(m.contains("error"));
  CHECK(m["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 283115520ull + 449372160ull);
  CHECK(m["memory"]["weights_bytes"].get<std::uint64_t>() == plan_mlx(k3(), *find_mlx_format("MLX-2bit")).weights_bytes);
  CHECK(m["verdict"] == "no_fit");  // 2.78T weights at 2.5 bits are about 0.8 TiB
  // ResidualBlocks holds the stream at the start of each block of 12 layers (8 of them over 93
  // layers) for a 2,048-token prefill chunk, 16-bit, with a float32 inverse RMS per token.
  const std::uint64_t blocks = 8ull * (7168 + 2) * 2 * 2048;
  CHECK(blocks == 234946560ull);
  Architecture plain = k3();
  plain.attn_res_block = 0;
  CHECK(mlx_activation_bytes(k3()) - mlx_activation_bytes(plain) == blocks);
  CHECK(m["memory"]["compute_bytes"].get<std::uint64_t>() == mlx_activation_bytes(k3()));
  // kimi_k3.py's MLA attention calls k_pe.swapaxes on what the cache returns, which a
  // QuantizedKVCache gives as tuples (the crash reported on its PR #1626): any kv_bits is refused,
  // whatever the group, at kv_bits with 0 accepted.
  for (const int grp : {64, 128}) {
    CAPTURE(grp);
    const nlohmann::json g = wif_test::estimate({{"model", "moonshotai/Kimi-K3"}, {"quant", "MLX-2bit"},
                                                 {"hardware", "apple-m3-ultra-80c-gpu-512gb"}, {"engine", "mlx"},
                                                 {"kv_bits", 8}, {"kv_group_size", grp}});
    REQUIRE(g.contains("error"));
    CHECK(g["error"]["code"] == "kv_not_quantizable");
    CHECK(g["error"]["path"] == "kv_bits");
    CHECK(g["error"]["accepted"] == nlohmann::json::array({"0"}));
  }
  // The page's cache choices follow: only 16-bit for K3, and for DeepSeek V3.2 (its CacheList
  // cannot be quantized).
  const nlohmann::json dk = nlohmann::json::parse(api_defaults(wif_test::catalog(), R"({"model":"moonshotai/Kimi-K3"})")).at("engines").at("mlx");
  CHECK(dk.at("kv_types") == nlohmann::json::array({"f16"}));
  const nlohmann::json dv = nlohmann::json::parse(api_defaults(wif_test::catalog(), R"({"model":"deepseek-ai/DeepSeek-V3.2"})")).at("engines").at("mlx");
  CHECK(dv.at("kv_types") == nlohmann::json::array({"f16"}));
  // The rows themselves: the 512-wide latent and the 64-wide RoPE key take groups of 64, not 128.
  CHECK(mlx_kv_group_divides(k3(), 64));
  CHECK_FALSE(mlx_kv_group_divides(k3(), 128));
  // An 80-wide head (any full-attention model with head_dim 80) takes groups of 16 only: none of 32, 64, 128.
  Architecture narrow = wif_test::catalog_arch("meta-llama/Llama-3.1-8B-Instruct");
  CHECK(mlx_kv_group_divides(narrow, 128));
  for (auto& L : narrow.layers) L.head_dim_k = L.head_dim_v = 80;
  for (const int grp : {32, 64, 128}) CHECK_FALSE(mlx_kv_group_divides(narrow, grp));
  CHECK(m["mlx"]["mla_cache"] == "latent");
}

}  // namespace kimi_k3_test_cases
