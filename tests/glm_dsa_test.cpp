// GLM-5 (`glm_moe_dsa`, llama.cpp arch `glm-dsa`): MLA with DeepSeek V3.2's lightning indexer.
// Under vLLM and SGLang every MLA layer keeps the indexer's FP8 keys beside the latent (vLLM loads
// GlmMoeDsaForCausalLM as DeepseekV2ForCausalLM, whose MLA layers build a DeepseekV32IndexerCache
// when the config has index_topk; SGLang's is_deepseek_nsa names the architecture), and the GGUF
// written from the config reads back as the same model. Every figure is derived by hand from the
// published config.json (data/models/zai-org/glm-5.json).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"
#include "willitfit/servers/sglang.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/speculative.hpp"

namespace glm_dsa_test_cases {

using namespace wif;
using nlohmann::json;

namespace {

constexpr const char* kId = "zai-org/GLM-5";
// config.json: 78 layers, all MLA (kv_lora_rank 512, qk_rope_head_dim 64), 64 heads, the indexer
// 32 heads of index_head_dim 128, index_topk 2048; then the NextN (MTP) block as a 79th block of the
// converted file, which no engine gives a cache unless it drafts with it.
constexpr std::uint64_t kLayers = 78, kLatent16 = (512 + 64) * 2, kLatentFp8 = 512 + 512 / 128 * 4 + 64 * 2;
// The indexer key in both servers: 128 FP8 values and one float32 scale per 128 = 132 bytes.
constexpr std::uint64_t kIndexer = 128 + 128 / 128 * 4;

std::uint64_t kv_total(const Architecture& a, std::int64_t ctx) { return wif_test::kv_of(a, ctx, 1, GgmlType::F16).total_bytes; }

// The MTP block by hand from config.json: E 6144, vocab 154880, 64 heads, q_lora 2048, kv_lora 512,
// rope 64, nope 192, v 256; 3 dense layers of 12288, 75 MoE layers of 256 experts (2048) + 1 shared;
// the indexer 32 heads of 128. llama.cpp's converter writes model.layers.78.* as blk.78
// (conversion/glm.py, GlmMoeDsaModel: block_count = num_hidden_layers + num_nextn_predict_layers);
// the checkpoint's block has no embedding or head copies of its own (it shares the model's).
constexpr std::int64_t E = 6144, V = 154880, H = 64, ql = 2048, kvl = 512, rope = 64, nope = 192, vd = 256;
constexpr std::int64_t n_exp = 256, ff = 2048, dense_ff = 12288, ih = 32, id = 128;
// MLA as llama.cpp stores it: q_a, q_a_norm, q_b, kv_a_mqa, kv_a_norm, k_b, v_b, output.
constexpr std::int64_t attn = E * ql + ql + ql * H * (nope + rope) + E * (kvl + rope) + kvl +
                              kvl * H * nope + kvl * H * vd + H * vd * E;
// The indexer: k_norm weight and bias, proj {E, 32}, attn_k {E, 128}, attn_q_b {2048, 32 x 128}.
constexpr std::int64_t indexer = 2 * id + E * ih + E * id + ql * ih * id;
constexpr std::int64_t moe = n_exp * 3 * E * ff + 3 * E * ff + n_exp * E + n_exp;  // experts, shared, router, score bias
constexpr std::int64_t main_model = 2 * V * E + E + 3 * (attn + indexer + 3 * E * dense_ff + 2 * E) +
                                    75 * (attn + indexer + moe + 2 * E);
// The block: one MoE layer with its indexer, plus nextn.eh_proj {2E, E} and the enorm, hnorm and
// shared_head_norm vectors (llama.cpp src/models/glm-dsa.cpp, load_arch_tensors for i >= n_layer).
constexpr std::int64_t mtp_block = attn + indexer + moe + 2 * E + 2 * E * E + 3 * E;

}  // namespace

TEST_CASE("GLM-5: the file's 79th block is the MTP layer, 9.95B parameters by hand, counted in the file and not resident", "[glm_dsa][mtp]") {
  CHECK(attn == 165022208);
  CHECK(indexer == 9371904);
  CHECK(mtp_block == 9952920576);
  CHECK(main_model == 743911218432);  // the card's 744B
  // A published GLM-5 GGUF's load log (ik_llama.cpp, https://huggingface.co/sokann/GLM-5-GGUF-1.594bpw):
  // "repeating layers = ... 751.961 B parameters", everything but token_embd and output: the 79-block
  // file, where the 78 layers alone would be 742.01B.
  CHECK(main_model + mtp_block - 2 * V * E == 751960973568);
  const Architecture& a = wif_test::catalog_arch(kId);
  REQUIRE(a.layers.size() == 79);
  CHECK(a.n_layer_main() == 78);
  CHECK(a.layers.back().is_mtp);
  CHECK(a.layers.back().ffn == FfnKind::MoE);
  const ParamCounts pc = count_params(a);
  CHECK(pc.mtp == mtp_block);
  CHECK(pc.total == main_model + mtp_block);
  // The block's own tensors, with llama.cpp's names and the shapes glm-dsa.cpp creates.
  struct Row { const char* name; std::int64_t elements; };
  const Row rows[] = {{"blk.78.nextn.eh_proj.weight", 2 * E * E}, {"blk.78.nextn.enorm.weight", E},
                      {"blk.78.nextn.hnorm.weight", E}, {"blk.78.nextn.shared_head_norm.weight", E},
                      {"blk.78.indexer.attn_q_b.weight", ql * ih * id}, {"blk.78.attn_q_b.weight", ql * H * (nope + rope)},
                      {"blk.78.ffn_down_exps.weight", n_exp * ff * E}, {"blk.78.ffn_up_shexp.weight", E * ff}};
  const TensorPlan q8 = plan_quantization(a, "Q8_0");
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const auto it = std::find_if(q8.tensors.begin(), q8.tensors.end(), [&](const Tensor& t) { return t.name == row.name; });
    REQUIRE(it != q8.tensors.end());
    CHECK(it->n_elements() == row.elements);
  }
  for (const auto& t : q8.tensors) {
    CAPTURE(t.name);
    CHECK(t.name.find("nextn.embed_tokens") == std::string::npos);
    CHECK(t.name.find("nextn.shared_head_head") == std::string::npos);
  }
  // Q8_0 bytes of the block: 34 bytes per 32 weights for the matrices; F32, as the converter
  // writes them, for the norm vectors (attn, ffn, q_a, kv_a, indexer k_norm weight and bias, enorm,
  // hnorm, shared head), the expert score bias and the two routing matrices (ffn_gate_inp {E, 256},
  // indexer.proj {E, 32}). 10,580,275,200 bytes: 9.85 GiB of the file.
  const std::int64_t f32 = 2 * E + ql + kvl + 2 * id + 3 * E + n_exp + E * n_exp + E * ih;
  const std::uint64_t q8_block = static_cast<std::uint64_t>((mtp_block - f32) / 32 * 34 + f32 * 4);
  CHECK(q8_block == 10580275200ull);
  CHECK(mtp_weight_bytes(a, q8) == q8_block);
}

TEST_CASE("GLM-5: the MTP layer is in the file, resident only when an engine drafts with it (llama.cpp since PR #25980)", "[glm_dsa][mtp]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const Catalog& cat = wif_test::catalog();
  CHECK(mtp_draft_engines(cat, a) == std::vector<std::string>{"llama.cpp", "vllm", "sglang"});
  CHECK(mtp_draft_engines(cat, wif_test::catalog_arch("zai-org/GLM-4.5-Air")) == std::vector<std::string>{"llama.cpp", "vllm", "sglang"});
  // llama.cpp drafts only with the architectures speculative.json lists: the same block under a
  // GGUF architecture without a draft-mtp graph (DeepSeek V3's deepseek2) is for the servers only.
  Architecture other = a;
  other.gguf_arch = "deepseek2";
  CHECK(mtp_draft_engines(cat, other) == std::vector<std::string>{"vllm", "sglang"});
  // A model without MTP layers drafts with none.
  CHECK(mtp_draft_engines(cat, wif_test::catalog_arch("meta-llama/Llama-3.1-8B-Instruct")).empty());
  const json base = {{"model", kId}, {"hardware", "nvidia-h200-sxm"}, {"count", 8}, {"quant", "Q4_K_M"}, {"context", 8192}};
  const json off = wif_test::estimate(base);
  REQUIRE_FALSE(off.contains("error"));
  const json& m = off.at("mtp");
  CHECK(m.at("layers") == 1);
  CHECK(m.at("params") == mtp_block);
  CHECK(m.at("loaded") == false);
  CHECK(m.at("resident_bytes") == 0);
  CHECK(m.at("drafts") == true);
  CHECK(m.at("draft_engines") == json::array({"llama.cpp", "vllm", "sglang"}));
  const TensorPlan q4 = plan_quantization(a, "Q4_K_M");
  CHECK(m.at("file_bytes").get<std::uint64_t>() == mtp_weight_bytes(a, q4));
  // Off, the file counts the block and the weights llama.cpp loads do not.
  CHECK(off.at("gguf_file_unloaded_bytes").get<std::uint64_t>() >= mtp_weight_bytes(a, q4));
  json on = base;
  on["mtp"] = true;
  const json l = wif_test::estimate(on);
  REQUIRE_FALSE(l.contains("error"));
  CHECK(l.at("mtp").at("loaded") == true);
  CHECK(l.at("mtp").at("resident_bytes").get<std::uint64_t>() == mtp_weight_bytes(a, q4));
  // The block's weights are added to what the accelerators hold.
  CHECK(l.at("memory").at("total_bytes").get<std::uint64_t>() >= off.at("memory").at("total_bytes").get<std::uint64_t>() + mtp_weight_bytes(a, q4));
  // mlx-lm drafts with none: the core's code, the engines that do, and the field.
  json mlx = {{"model", kId}, {"hardware", "apple-m3-ultra-80c-gpu-512gb"}, {"engine", "mlx"}, {"context", 8192}, {"mtp", true}};
  const json refused = wif_test::estimate(mlx);
  REQUIRE(refused.contains("error"));
  CHECK(refused["error"].at("code") == "mtp_not_drafted");
  CHECK(refused["error"].at("path") == "mtp");
  // vLLM drafts with it: the block is loaded and counted.
  on["engine"] = "vllm";
  on["quant"] = "FP8";
  const json v = wif_test::estimate(on);
  REQUIRE_FALSE(v.contains("error"));
  CHECK(v.at("mtp").at("drafts") == true);
  CHECK(v.at("mtp").at("loaded") == true);
  CHECK(v.at("mtp").at("resident_bytes").get<std::uint64_t>() == v.at("mtp").at("file_bytes").get<std::uint64_t>());
  CHECK(v.at("mtp").at("resident_bytes").get<std::uint64_t>() > 9000000000ull);
}

TEST_CASE("GLM-5 under vLLM: 78 x (1,152 + 132) or 78 x (656 + 132) bytes a token, the indexer keys in the MLA pages", "[glm_dsa][vllm]") {
  REQUIRE(kLatentFp8 == 656);
  REQUIRE(kIndexer == 132);
  const Architecture& a = wif_test::catalog_arch(kId);
  REQUIRE(a.gguf_arch == "glm-dsa");
  REQUIRE(a.has_dsa_indexer());
  CHECK(vllm_indexer_key_bytes(a) == kIndexer);
  CHECK(vllm_layer_cache_bytes(a, a.layers.front(), "auto", 8, false) == kLatent16 + kIndexer);
  CHECK(vllm_layer_cache_bytes(a, a.layers.front(), "fp8", 8, false) == kLatentFp8 + kIndexer);
  const TensorPlan fp8 = plan_quantization(a, "FP8");
  struct Row { const char* dtype; std::uint64_t latent, workspace; };
  // The sparse-MLA workspace on each of 8 ranks (64 / 8 = 8 heads), max_num_batched_tokens 8192 (a
  // GPU of 70 GiB or more), max_model_len 32768: the top-k buffer 8192 x 2048 x 4 = 67,108,864, then
  //   bf16: queries 8192 x 64 (8 heads padded to 64) x 576 x 2 = 603,979,776;
  //   fp8:  queries 8192 x 8 x 576 x 2 = 75,497,472 + prefill rows 5 x 32768 x 576 x 2 = 188,743,680.
  const Row rows[] = {{"auto", kLatent16, 67108864ull + 603979776ull},
                      {"fp8", kLatentFp8, 67108864ull + 75497472ull + 188743680ull}};
  for (const Row& row : rows) {
    CAPTURE(row.dtype);
    VllmOptions o;
    o.tensor_parallel = 8;
    o.max_model_len = 32768;
    o.kv_cache_dtype = row.dtype;
    const VllmBudget b = vllm_budget(a, fp8, 140, o);
    CHECK(b.block_size == 64);
    CHECK(b.sparse_top_k == 2048);
    CHECK(b.kv_latent_bytes_per_token == kLayers * row.latent);
    CHECK(b.kv_indexer_bytes_per_token == kLayers * kIndexer);
    // 100,152 B at 16 bits (the plain-MLA count was 89,856), 61,464 B at fp8.
    CHECK(b.kv_bytes_per_token == kLayers * (row.latent + kIndexer));
    REQUIRE(b.groups.size() == 1);
    CHECK(b.groups[0].kind == "mla");
    CHECK(b.groups[0].layers == 78);
    CHECK(b.groups[0].page_bytes == 64 * (row.latent + kIndexer));
    CHECK(b.sparse_workspace_bytes == row.workspace);
    // The pool in blocks of 78 pages; a request of 32,768 tokens takes 512 of them, so the
    // concurrency is the blocks over 512.
    REQUIRE(b.kv_available_bytes > 0);
    const std::int64_t blocks = b.kv_available_bytes / static_cast<std::int64_t>(kLayers * 64 * (row.latent + kIndexer));
    CHECK(b.num_blocks == blocks);
    CHECK(b.kv_tokens == blocks * 64);
    CHECK(b.max_concurrency == Approx(static_cast<double>(blocks) / 512.0));
    CHECK(b.kv_request_bytes == 512ull * kLayers * 64 * (row.latent + kIndexer));
  }
}

TEST_CASE("GLM-5 under SGLang: a cell of 78 x (1,152 + 132) or 78 x (656 + 132) bytes, fp8 by default from compute capability 10", "[glm_dsa][sglang]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan fp8 = plan_quantization(a, "FP8");
  struct Row { double cc; const char* asked; const char* dtype; const char* code; std::uint64_t cell; };
  const Row rows[] = {{9.0, "auto", "auto", "", kLayers * (kLatent16 + kIndexer)},                       // H200: bfloat16
                      {10.0, "auto", "fp8_e4m3", "engine_default_sm100", kLayers * (kLatentFp8 + kIndexer)},  // B200
                      {9.0, "fp8_e4m3", "fp8_e4m3", "", kLayers * (kLatentFp8 + kIndexer)}};
  for (const Row& row : rows) {
    CAPTURE(row.cc, row.asked);
    SglangOptions o;
    o.tensor_parallel = 8;
    o.context_length = 32768;
    o.kv_cache_dtype = row.asked;
    o.cuda_compute_capability = row.cc;
    const VllmBudget b = sglang_budget(a, fp8, 140, 141, o);
    CHECK(b.kv_cache_dtype == row.dtype);
    CHECK(b.kv_cache_dtype_code == row.code);
    CHECK(b.kv_bytes_per_token == row.cell);
    CHECK(b.kv_indexer_bytes_per_token == kLayers * kIndexer);
    CHECK(b.kv_latent_bytes_per_token + b.kv_indexer_bytes_per_token == row.cell);
    CHECK(b.sparse_top_k == 2048);
    REQUIRE(b.kv_available_bytes > 0);
    const std::int64_t tokens = b.kv_available_bytes / static_cast<std::int64_t>(row.cell);
    CHECK(b.kv_tokens == tokens);
    CHECK(b.max_concurrency == Approx(static_cast<double>(tokens) / 32768.0));
  }
}

TEST_CASE("GLM-5.2's shared indexer layers: llama.cpp drops their keys, vLLM and SGLang keep them", "[glm_dsa][vllm][sglang]") {
  json c = json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/data/models/zai-org/glm-5.1.json")).at("config");
  c["max_position_embeddings"] = 1048576;  // GLM-5.2's pattern: 21 of 78 layers full
  const Architecture a = architecture_from_hf_config(c, "config");
  KvOptions k;
  k.n_ctx = 4096;
  CHECK(llamacpp_kv_cache(a, k).bytes_per_token_full == kLayers * kLatent16 + 21 * 256);
  VllmOptions o;
  o.tensor_parallel = 8;
  o.max_model_len = 32768;
  const TensorPlan fp8 = plan_quantization(a, "FP8");
  CHECK(vllm_budget(a, fp8, 140, o).kv_bytes_per_token == kLayers * (kLatent16 + kIndexer));
  SglangOptions s;
  s.tensor_parallel = 8;
  s.context_length = 32768;
  CHECK(sglang_budget(a, fp8, 140, 141, s).kv_bytes_per_token == kLayers * (kLatent16 + kIndexer));
}

TEST_CASE("GLM-5: the GGUF round trip keeps the arch, the indexer keys and GLM-5.2's indexer types", "[glm_dsa][gguf]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  auto trip = [](const Architecture& x) {
    const TensorPlan computed = plan_quantization(x, "Q4_K_M");
    const auto header = write_gguf_header(gguf_metadata_for(x, "GLM-5", "Q4_K_M"), computed.tensors);
    const GgufHeader h = parse_gguf_header(header);
    CHECK(gguf_tensor_plan(h).weights_bytes == computed.weights_bytes);
    return gguf_architecture(h);
  };
  const Architecture b = trip(a);
  CHECK(b.gguf_arch == "glm-dsa");
  CHECK(b.model_type == "glm_moe_dsa");
  REQUIRE(b.layers.size() == 79);  // the 78 layers and the MTP block (nextn_predict_layers 1)
  CHECK(b.n_layer_main() == 78);
  CHECK(b.layers.back().is_mtp);
  CHECK(b.indexer_heads == 32);
  CHECK(b.indexer_head_dim == 128);
  CHECK(b.indexer_top_k == 2048);
  CHECK(b.has_dsa_indexer());
  for (const auto& L : b.layers) CHECK_FALSE(L.indexer_shared);
  CHECK(count_params(b).total == count_params(a).total);
  // llama.cpp's cache: 78 x (1,152 + 256) bytes a token at F16, as from the config.
  for (std::int64_t ctx : {8192, 131072}) {
    CAPTURE(ctx);
    CHECK(kv_total(b, ctx) == kv_total(a, ctx));
    CHECK(kv_total(b, ctx) == kLayers * (kLatent16 + 256) * static_cast<std::uint64_t>(ctx));
  }
  // The servers' cells from the file are the config's.
  CHECK(vllm_layer_cache_bytes(b, b.layers.front(), "auto", 1, false) == kLatent16 + kIndexer);

  // GLM-5.2 (a 1,048,576-token context): 21 full layers; and a list of the config's own.
  json c = json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/data/models/zai-org/glm-5.1.json")).at("config");
  c["max_position_embeddings"] = 1048576;
  const Architecture g52 = architecture_from_hf_config(c, "config");
  const Architecture r52 = trip(g52);
  int full = 0;
  REQUIRE(r52.layers.size() == g52.layers.size());
  for (std::size_t il = 0; il < r52.layers.size(); ++il) {
    CAPTURE(il);
    CHECK(r52.layers[il].indexer_shared == g52.layers[il].indexer_shared);
    if (!r52.layers[il].is_mtp) full += !r52.layers[il].indexer_shared;
  }
  CHECK(full == 21);  // of the 78 main layers; the MTP block keeps no cache in llama.cpp
  CHECK(kv_total(r52, 8192) == kv_total(g52, 8192));
  json types = json::array();
  for (int i = 0; i < 78; ++i) types.push_back(i % 2 ? "shared" : "full");
  c["indexer_types"] = types;
  c["max_position_embeddings"] = 202752;  // below 1M: without the key llama.cpp would take all as full
  const Architecture alt = architecture_from_hf_config(c, "config");
  const Architecture ralt = trip(alt);
  CHECK(kv_total(ralt, 8192) == (kLayers * kLatent16 + 39 * 256) * 8192);
}

TEST_CASE("GLM-5: a glm-dsa GGUF without an indexer key, or with layer 0 shared, is a coded error at the key", "[glm_dsa][gguf]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan plan = plan_quantization(a, "Q4_K_M");
  auto code_of = [&](std::vector<GgufKv> kv) {
    try {
      gguf_architecture(parse_gguf_header(write_gguf_header(kv, plan.tensors)));
    } catch (const InputError& e) {
      return e.error().code + " " + e.error().path;
    }
    return std::string("none");
  };
  std::vector<GgufKv> kv = gguf_metadata_for(a, "GLM-5", "Q4_K_M");
  CHECK(code_of(kv) == "none");
  std::vector<GgufKv> no_topk;
  for (const auto& x : kv)
    if (x.key != "glm-dsa.attention.indexer.top_k") no_topk.push_back(x);
  CHECK(code_of(no_topk) == "gguf_missing_key gguf.glm-dsa.attention.indexer.top_k");
  json types = json::array();
  for (int i = 0; i < 78; ++i) types.push_back(i != 0);
  kv.push_back(gguf_kv_array("glm-dsa.attention.indexer.types", GgufType::Bool, types));
  CHECK(code_of(kv) == "gguf_bad_value gguf.glm-dsa.attention.indexer.types");
  kv.back() = gguf_kv_array("glm-dsa.attention.indexer.types", GgufType::Bool, json::array({true, false}));
  CHECK(code_of(kv) == "gguf_bad_value gguf.glm-dsa.attention.indexer.types");
}

}  // namespace glm_dsa_test_cases
