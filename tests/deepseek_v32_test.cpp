// DeepSeek V3.2 as llama.cpp runs it: its own GGUF arch `deepseek32` (src/models/deepseek32.cpp,
// llama_model_deepseek32::load_arch_tensors), the DSA cache (src/llama-kv-cache-dsa.cpp: the MLA
// latent plus a K-only cache of lightning-indexer keys, one per token per layer, indexer_head_size
// wide, of the -ctk type) and the MTP block the converter keeps since PR #26457 (DeepseekV32Model,
// skip_mtp = False). Every figure below is derived by hand from config.json and that tensor list.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"
#include "willitfit/servers/sglang.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/server_throughput.hpp"
#include "willitfit/speed/speculative.hpp"
#include "willitfit/speed/speed.hpp"

namespace deepseek_v32_test_cases {

using namespace wif;

namespace {

constexpr const char* kId = "deepseek-ai/DeepSeek-V3.2";

// config.json: E = 7168, V = 129280, 128 heads, q_lora 1536, kv_lora 512, rope 64, nope 128, v 128;
// 3 dense layers of 18432, 58 MoE layers of 256 experts (2048) + 1 shared; indexer 64 heads of 128.
constexpr std::int64_t E = 7168, V = 129280, H = 128, ql = 1536, kvl = 512, rope = 64, nope = 128, vd = 128;
constexpr std::int64_t n_exp = 256, ff = 2048, dense_ff = 18432, ih = 64, id = 128;
// MLA as llama.cpp stores it: q_a, q_a_norm, q_b, kv_a_mqa, kv_a_norm, k_b, v_b, output.
constexpr std::int64_t attn = E * ql + ql + ql * H * (nope + rope) + E * (kvl + rope) + kvl +
                              kvl * H * nope + kvl * H * vd + H * vd * E;
// The lightning indexer: k_norm weight and bias {128}, proj {E, 64}, attn_k {E, 128}, attn_q_b {1536, 64 x 128}.
constexpr std::int64_t indexer = 2 * id + E * ih + E * id + ql * ih * id;
constexpr std::int64_t moe = n_exp * 3 * E * ff + 3 * E * ff + n_exp * E + n_exp;  // experts, shared, router, score bias
constexpr std::int64_t main_model =
    2 * V * E + E + 3 * (attn + indexer + 3 * E * dense_ff + 2 * E) + 58 * (attn + indexer + moe + 2 * E);
// The MTP block: one MoE layer with its indexer, eh_proj {2E, E}, enorm, hnorm, shared_head_norm;
// the converter also writes the checkpoint's own embedding and head copies (nextn.embed_tokens,
// nextn.shared_head_head).
constexpr std::int64_t mtp_block = attn + indexer + moe + 2 * E + 2 * E * E + 3 * E;
constexpr std::int64_t mtp_with_copies = mtp_block + 2 * V * E;

std::uint64_t kv_total(const Architecture& a, std::int64_t ctx, GgmlType t = GgmlType::F16) {
  return wif_test::kv_of(a, ctx, 1, t).total_bytes;
}

}  // namespace

TEST_CASE("DeepSeek V3.2: arch deepseek32, 61 MLA layers with the indexer and one MTP block", "[deepseek_v32]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  CHECK(a.gguf_arch == "deepseek32");
  CHECK(a.model_type == "deepseek_v32");
  REQUIRE(a.layers.size() == 62);
  CHECK(a.n_layer_main() == 61);
  for (std::size_t il = 0; il < 62; ++il) {
    CAPTURE(il);
    CHECK(a.layers[il].attn == AttnKind::MLA);
    CHECK(a.layers[il].is_mtp == (il == 61));
    CHECK(a.layers[il].ffn == (il < 3 ? FfnKind::Dense : FfnKind::MoE));
  }
  CHECK(a.indexer_heads == ih);
  CHECK(a.indexer_head_dim == id);
  CHECK(a.indexer_top_k == 2048);
}

TEST_CASE("DeepSeek V3.2: 671.88B main model and an MTP block of 11.62B (13.48B with its copies) by hand", "[deepseek_v32][mtp]") {
  CHECK(indexer == 13959424);
  CHECK(mtp_block == 11624027648);
  CHECK(mtp_with_copies == 13477385728);
  CHECK(main_model == 671877944064);
  // DeepSeek's card: 685B on disk (the 671B main model and the 14B MTP module).
  CHECK(static_cast<double>(main_model + mtp_with_copies) == Approx(685e9).epsilon(0.001));
  const Architecture& a = wif_test::catalog_arch(kId);
  const ParamCounts pc = count_params(a);
  CHECK(pc.mtp == mtp_with_copies);
  CHECK(pc.total == main_model + mtp_with_copies);
  // The upstream tensor list: per layer attn_norm, 8 MLA tensors, 5 indexer tensors, ffn_norm and
  // 3 dense or 7 MoE tensors (router, score bias, 3 expert stacks, 3 shared); the MTP block adds 6.
  const auto tensors = enumerate_tensors(a);
  CHECK(tensors.size() == static_cast<std::size_t>(3 + 3 * (1 + 8 + 5 + 1 + 3) + 58 * (1 + 8 + 5 + 1 + 8) + (1 + 8 + 5 + 1 + 8 + 6)));
  bool bias = false, copies = false;
  for (const auto& t : tensors) {
    if (t.name == "blk.0.indexer.k_norm.bias") bias = true;
    if (t.name == "blk.61.nextn.shared_head_head.weight") copies = t.ne[0] == E && t.ne[1] == V;
  }
  CHECK(bias);
  CHECK(copies);
}

// The only published V3.2 GGUF sizes found: the author of llama.cpp's DSA support gives his "light"
// conversions as about 404 GB at Q4_K_M and 714 GB at Q8_0
// (https://www.reddit.com/r/LocalLLaMA/comments/1t5j71o/anyone_want_to_try_my_llamacpp_deepseek_v32_pr/,
// 2026-05-06, for https://huggingface.co/sszymczyk/DeepSeek-V3.2-light-GGUF and its Speciale and
// Exp siblings, which share V3.2's shapes). They predate the converter that keeps the MTP block
// (PR #26457, 2026-08-02), and the figures say so: the computed main model with its indexers is
// within their rounding (+0.02 % and +0.04 %), the computed file with the block and its two copies
// is 2.1 % and 2.0 % larger.
TEST_CASE("DeepSeek V3.2: the published light Q4_K_M and Q8_0 are the computed main model, without the MTP block", "[deepseek_v32][gguf]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const std::pair<const char*, double> files[] = {{"Q4_K_M", 404e9}, {"Q8_0", 714e9}};
  for (const auto& [q, published] : files) {
    CAPTURE(q);
    const TensorPlan p = plan_quantization(a, q);
    const std::uint64_t block = mtp_weight_bytes(a, p);
    const double without = static_cast<double>(p.file_bytes - block), with = static_cast<double>(p.file_bytes);
    CAPTURE(p.file_bytes, block, (without - published) / published, (with - published) / published);
    CHECK(std::fabs(without - published) / published < 2e-3);  // "about 404 GB": whole GB, 0.12 %
    CHECK((with - published) / published > 0.015);
  }
}

TEST_CASE("DeepSeek V3.2: llama.cpp's DSA cache, MLA latent plus indexer keys, by hand", "[deepseek_v32][kv_cache]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  // Per token per layer at F16: the latent 576 x 2 = 1,152 bytes (no V: MLA keeps none) and the
  // indexer key 128 x 2 = 256 bytes; 61 layers (the MTP layer has no cache).
  KvOptions o;
  o.n_ctx = 8192;
  const KvCache c = llamacpp_kv_cache(a, o);
  REQUIRE(c.groups.size() == 2);
  CHECK(c.groups[0].kind == "mla");
  CHECK(c.groups[1].kind == "indexer");
  CHECK(c.groups[1].layers == 61);
  CHECK(c.groups[1].cells == 8192);
  CHECK(c.groups[1].bytes_per_token == 61u * 256u);
  CHECK(c.bytes_per_token_full == 61u * (1152u + 256u));
  CHECK(kv_total(a, 8192) == 61ull * 8192 * (1152 + 256));       // 703,594,496 bytes
  CHECK(kv_total(a, 8192) == 703594496ull);
  CHECK(kv_total(a, 131072) == 61ull * 131072 * (1152 + 256));   // 11,257,511,936 bytes (10.48 GiB)
  CHECK(kv_total(a, 131072) == 11257511936ull);
  // -ctk q8_0: 576 = 18 blocks of 34 bytes, 128 = 4 blocks of 34 bytes.
  CHECK(kv_total(a, 131072, GgmlType::Q8_0) == 61ull * 131072 * (18 * 34 + 4 * 34));
  // The context is padded to 256 cells as for any llama.cpp cache: 1,000 tokens take 1,024 cells.
  CHECK(kv_total(a, 1000) == 61ull * 1024 * (1152 + 256));
}

TEST_CASE("DeepSeek V3.2: the GGUF round trip keeps the arch, the indexer, the MTP block and the cache", "[deepseek_v32][gguf]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan computed = plan_quantization(a, "Q4_K_M");
  const auto header = write_gguf_header(gguf_metadata_for(a, "DeepSeek V3.2", "Q4_K_M"), computed.tensors);
  const GgufHeader h = parse_gguf_header(header);
  const TensorPlan read = gguf_tensor_plan(h);
  const Architecture b = gguf_architecture(h);
  CHECK(read.weights_bytes == computed.weights_bytes);
  CHECK(read.tensors.size() == computed.tensors.size());
  CHECK(b.gguf_arch == "deepseek32");
  CHECK(b.model_type == "deepseek_v32");
  REQUIRE(b.layers.size() == 62);
  CHECK(b.n_layer_main() == 61);
  CHECK(b.layers[61].is_mtp);
  CHECK(b.indexer_heads == ih);
  CHECK(b.indexer_head_dim == id);
  CHECK(b.indexer_top_k == 2048);
  CHECK(count_params(b).total == count_params(a).total);
  CHECK(count_params(b).mtp == mtp_with_copies);
  for (std::int64_t ctx : {8192, 131072}) {
    CAPTURE(ctx);
    CHECK(kv_total(b, ctx) == kv_total(a, ctx));
  }
}

TEST_CASE("DeepSeek V3.2: a deepseek32 GGUF without an indexer key is a coded error at the key", "[deepseek_v32][gguf]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan computed = plan_quantization(a, "Q8_0");
  for (const char* k : {"deepseek32.attention.indexer.top_k", "deepseek32.attention.indexer.head_count"}) {
    CAPTURE(k);
    std::vector<GgufKv> kept;
    for (const auto& kv : gguf_metadata_for(a, "DeepSeek V3.2", "Q8_0"))
      if (kv.key != k) kept.push_back(kv);
    const GgufHeader h = parse_gguf_header(write_gguf_header(kept, computed.tensors));
    try {
      gguf_architecture(h);
      FAIL("a deepseek32 file without its indexer keys was read");
    } catch (const InputError& e) {
      CHECK(e.error().code == "gguf_missing_key");
      CHECK(e.error().path == std::string("gguf.") + k);
    }
  }
}

TEST_CASE("DeepSeek V3.2 with llama.cpp: the MTP block is in the file, resident only when drafting", "[deepseek_v32][estimate][mtp]") {
  const nlohmann::json off = wif_test::estimate({{"model", kId}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h200-sxm"},
                                                 {"count", 8}, {"context", 131072}});
  REQUIRE_FALSE(off.contains("error"));
  CHECK(off["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 11257511936ull);
  // All of it grows with the context: 61 x (1,152 + 256) bytes a token.
  CHECK(off["memory"]["kv"]["growing_bytes_per_1k"].get<std::uint64_t>() == 61ull * 1408 * 1024);
  CHECK(off["memory"]["kv"]["fixed_bytes"] == 0);
  CHECK(off["mtp"]["layers"] == 1);
  CHECK(off["mtp"]["params"].get<std::int64_t>() == mtp_with_copies);
  CHECK(off["mtp"]["file_bytes"].get<std::uint64_t>() > 0);
  CHECK(off["mtp"]["resident_bytes"] == 0);
  const nlohmann::json on = wif_test::estimate({{"model", kId}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h200-sxm"},
                                                {"count", 8}, {"context", 131072}, {"mtp", true}});
  REQUIRE_FALSE(on.contains("error"));
  CHECK(on["mtp"]["resident_bytes"] == off["mtp"]["file_bytes"]);
  // Drafting loads the block and gives it one layer's cache (latent and indexer keys).
  CHECK(on["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 62ull * 131072 * 1408);
  CHECK(on["memory"]["total_bytes"].get<std::uint64_t>() >
        off["memory"]["total_bytes"].get<std::uint64_t>() + off["mtp"]["file_bytes"].get<std::uint64_t>());
}

// vLLM and SGLang, by hand from their source. Per token and layer:
//   the lightning indexer's keys: 128 FP8 values + one float32 scale per 128 = 132 bytes, in
//   every case (vLLM deepseek_v2.py Indexer -> DeepseekV32IndexerCache; SGLang NSATokenToKVPool);
//   the MLA latent: 576 x 2 = 1,152 bytes in bf16; with an fp8 kv_cache_dtype vLLM stores
//   fp8_ds_mla, 512 FP8 + 4 float32 scales + 64 bf16 RoPE = 512 + 16 + 128 = 656 bytes
//   (flashmla_sparse.py), while SGLang's pool counts 576 one-byte elements.
// 61 layers (the MTP block's 62nd only when drafting).
TEST_CASE("DeepSeek V3.2 under vLLM: 61 x (1,152 + 132) or 61 x (656 + 132) bytes a token, one group of 64-token pages", "[deepseek_v32][vllm]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan fp8 = plan_quantization(a, "FP8");
  struct Row { const char* dtype; std::uint64_t latent, workspace; };
  // Workspace on each of 8 ranks (16 heads each), max_num_batched_tokens 8192 (a >= 70 GiB GPU),
  // max_model_len 32768: the top-k buffer 8192 x 2048 x 4 = 67,108,864, then
  //   bf16: queries 8192 x 64 (16 heads padded to 64) x 576 x 2 = 603,979,776;
  //   fp8:  queries 8192 x 16 x 576 x 2 = 150,994,944 + prefill rows 5 x 32768 x 576 x 2 = 188,743,680.
  const Row rows[] = {{"auto", 1152, 67108864ull + 603979776ull},
                      {"bfloat16", 1152, 67108864ull + 603979776ull},
                      {"fp8", 656, 67108864ull + 150994944ull + 188743680ull},
                      {"fp8_e4m3", 656, 67108864ull + 150994944ull + 188743680ull}};
  for (const Row& row : rows) {
    CAPTURE(row.dtype);
    VllmOptions o;
    o.tensor_parallel = 8;
    o.max_model_len = 32768;
    o.kv_cache_dtype = row.dtype;
    const VllmBudget b = vllm_budget(a, fp8, 140, o);
    CHECK(b.block_size == 64);
    CHECK(b.sparse_top_k == 2048);
    CHECK(b.kv_latent_bytes_per_token == 61 * row.latent);
    CHECK(b.kv_indexer_bytes_per_token == 61 * 132);
    CHECK(b.kv_bytes_per_token == 61 * (row.latent + 132));
    REQUIRE(b.groups.size() == 1);
    CHECK(b.groups[0].kind == "mla");
    CHECK(b.groups[0].layers == 61);
    CHECK(b.groups[0].page_bytes == 64 * (row.latent + 132));
    CHECK(b.layers_per_group == 61);
    CHECK(b.sparse_workspace_bytes == row.workspace);
    // The pool: what is left of 0.92 x 140 GiB, in blocks of 61 pages; a request of 32,768
    // tokens takes 32768 / 64 = 512 of them.
    REQUIRE(b.kv_available_bytes > 0);
    const std::int64_t blocks = b.kv_available_bytes / static_cast<std::int64_t>(61 * 64 * (row.latent + 132));
    CHECK(b.num_blocks == blocks);
    CHECK(b.kv_tokens == blocks * 64);
    CHECK(b.max_concurrency == Approx(static_cast<double>(blocks) / 512.0));
    CHECK(b.kv_request_bytes == 512ull * 61 * 64 * (row.latent + 132));
    CHECK(b.kv_copies == 8);  // the latent and the indexer keys are whole on every rank
  }
  // fp8_ds_mla against bf16: 1,284 / 788 = 1.63 times the tokens in about the same pool.
  VllmOptions o;
  o.tensor_parallel = 8;
  o.max_model_len = 32768;
  const VllmBudget bf = vllm_budget(a, fp8, 140, o);
  o.kv_cache_dtype = "fp8";
  const VllmBudget f8 = vllm_budget(a, fp8, 140, o);
  CHECK(static_cast<double>(f8.kv_tokens) / static_cast<double>(bf.kv_tokens) == Approx(1284.0 / 788.0).epsilon(0.02));
  // Drafting with the MTP block pages its layer (latent and indexer keys) in the same group.
  o.load_mtp = true;
  const VllmBudget mtp = vllm_budget(a, fp8, 140, o);
  CHECK(mtp.kv_bytes_per_token == 62 * 788);
  CHECK(mtp.groups[0].layers == 62);
}

TEST_CASE("DeepSeek V3.2 under SGLang: a cell of 61 x (1,152 + 132) or 61 x (656 + 132) bytes, the pool in tokens", "[deepseek_v32][sglang]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan fp8 = plan_quantization(a, "FP8");
  struct Row { const char* dtype; std::uint64_t cell; };
  // SGLang's FP8 row for a sparse-attention model is vLLM's fp8_ds_mla one: 512 FP8 + 4 float32
  // scales + 64 bf16 RoPE values = 656 bytes (model_runner_kv_cache_mixin.py, calculate_mla_kv_cache_dim).
  const Row rows[] = {{"auto", 61 * (1152 + 132)}, {"fp8_e4m3", 61 * (656 + 132)}};
  for (const Row& row : rows) {
    CAPTURE(row.dtype);
    SglangOptions o;
    o.tensor_parallel = 8;
    o.context_length = 32768;
    o.kv_cache_dtype = row.dtype;
    const VllmBudget b = sglang_budget(a, fp8, 140, 141, o);
    CHECK(b.kv_bytes_per_token == row.cell);
    CHECK(b.kv_latent_bytes_per_token + b.kv_indexer_bytes_per_token == row.cell);
    CHECK(b.kv_indexer_bytes_per_token == 61 * 132);
    CHECK(b.sparse_top_k == 2048);
    CHECK(b.sparse_workspace_bytes == 0);  // inside SGLang's reserved share
    REQUIRE(b.kv_available_bytes > 0);
    const std::int64_t tokens = b.kv_available_bytes / static_cast<std::int64_t>(row.cell);
    CHECK(b.kv_tokens == tokens);
    CHECK(b.max_concurrency == Approx(static_cast<double>(tokens) / 32768.0));
    CHECK(b.kv_request_bytes == 32768ull * row.cell);
  }
}

// A published SGLang log (data/measurements/vllm_memory.jsonl rows vllm-0028 and vllm-0029, from
// https://github.com/sgl-project/sglang/pull/11309, 2025-10-07): DeepSeek-V3.2-Exp (the same shapes
// as V3.2) on 8 x B200, where SGLang's auto cache is fp8_e4m3. SGLang prints the pool's tokens and
// its bytes over 1024^3 ("GB"); each layer's buffer holds the pool's tokens plus one page of 64
// slots (python/sglang/srt/mem_cache/memory_pool.py, MLATokenToKVPool: size + page_size rows;
// server_args.py sets page_size 64 for DeepSeek's sparse attention). With the PR the log counts
// the latent and the indexer keys, 61 x (656 + 132) = 48,068 bytes a token:
//   (975,424 + 64) x 48,068 = 46,889,757,184 bytes = 43.670 GiB, printed 43.67.
// Before it, the same log counted only the latent, 61 x 656 = 40,016 bytes a token:
//   (1,462,784 + 64) x 40,016 = 58,537,325,568 bytes = 54.517 GiB, printed 54.52,
// and the author's figure with the indexer keys, (1,462,784 + 64) x 48,068 = 65.487 GiB, printed 65.49.
TEST_CASE("DeepSeek V3.2-Exp on 8 x B200 under SGLang: the published pools are the computed cell times their tokens", "[deepseek_v32][sglang][calibration]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  SglangOptions o;
  o.tensor_parallel = 8;
  o.context_length = 32768;
  o.cuda_compute_capability = 10.0;  // B200
  const VllmBudget b = sglang_budget(a, plan_quantization(a, "FP8"), 178, 179, o);
  REQUIRE(b.kv_cache_dtype == "fp8_e4m3");
  REQUIRE(b.kv_bytes_per_token == 61 * (656 + 132));
  REQUIRE(b.kv_latent_bytes_per_token == 61 * 656);
  auto row = [](const char* id) {
    for (const auto& r : wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/vllm_memory.jsonl"))
      if (r["row_id"] == id) return r;
    FAIL("row " << id << " missing");
    return nlohmann::json{};
  };
  constexpr double kPage = 64;  // the padded page every layer's buffer adds to the pool
  // The printed figures carry two decimals: a computed size within half a hundredth of one.
  const nlohmann::json with = row("vllm-0028");
  const double tokens = with["kv_cache_tokens"].get<double>();
  const double gib = (tokens + kPage) * static_cast<double>(b.kv_bytes_per_token) / wif_test::kGiB;
  CAPTURE(gib);
  CHECK(std::abs(gib - with["kv_size_gb"].get<double>()) < 0.005);
  const nlohmann::json before = row("vllm-0029");
  const double tokens0 = before["kv_cache_tokens"].get<double>();
  const double latent_gib = (tokens0 + kPage) * static_cast<double>(b.kv_latent_bytes_per_token) / wif_test::kGiB;
  const double all_gib = (tokens0 + kPage) * static_cast<double>(b.kv_bytes_per_token) / wif_test::kGiB;
  CAPTURE(latent_gib, all_gib);
  CHECK(std::abs(latent_gib - before["kv_size_gb"].get<double>()) < 0.005);
  CHECK(std::abs(all_gib - before["kv_size_with_indexer_gb"].get<double>()) < 0.005);
  // A 16-bit latent (1,152 bytes) would put the same pool at 71.2 GiB, not 43.67: the FP8 row is
  // what SGLang stored.
  CHECK((tokens + kPage) * 61 * (1152 + 132) / wif_test::kGiB > 70.0);
}

TEST_CASE("DeepSeek V3.2 decode reads: every indexer key, at most index_topk latent rows under vLLM and SGLang", "[deepseek_v32][speed]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  // The serving step, from the budget's split: 48,068 bytes a token (fp8_ds_mla), of which the
  // latent 40,016 and the indexer 8,052.
  VllmBudget b;
  b.kv_bytes_per_token = 61 * 788;
  b.kv_latent_bytes_per_token = 61 * 656;
  b.kv_indexer_bytes_per_token = 61 * 132;
  b.sparse_top_k = 2048;
  CHECK(serving_kv_read_bytes(b, 1000) == Approx(1000.0 * 61 * 788));
  CHECK(serving_kv_read_bytes(b, 2048) == Approx(2048.0 * 61 * 788));
  CHECK(serving_kv_read_bytes(b, 131072) == Approx(131072.0 * 61 * 132 + 2048.0 * 61 * 656));
  b.sparse_top_k = 0;  // dense: the whole cache
  CHECK(serving_kv_read_bytes(b, 131072) == Approx(131072.0 * 61 * 788));
  // The one-request figure (kv_read_bytes, the f16 cache: latent 1,152, indexer keys 256):
  // llama.cpp masks and reads the whole latent; vLLM / SGLang gather the top 2,048 rows.
  KvOptions kv;
  CHECK(kv_read_bytes(a, kv, 131072) == Approx(131072.0 * 61 * 1408));
  kv.dsa_gather = true;
  CHECK(kv_read_bytes(a, kv, 131072) == Approx(131072.0 * 61 * 256 + 2048.0 * 61 * 1152));
  CHECK(kv_read_bytes(a, kv, 1000) == Approx(1000.0 * 61 * 1408));
}

TEST_CASE("DeepSeek V3.2 estimates under vLLM, SGLang and MLX: the split and the pool in the result, mlx-lm's 16-bit CacheList", "[deepseek_v32][estimate]") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const nlohmann::json v = wif_test::estimate({{"model", kId}, {"quant", "FP8"}, {"hardware", "nvidia-h200-sxm"},
                                                 {"count", 8}, {"engine", engine}, {"context", 32768},
                                                 {"kv_cache_dtype", std::string(engine) == "vllm" ? "fp8" : "fp8_e4m3"}});
    REQUIRE_FALSE(v.contains("error"));
    const nlohmann::json& s = v[engine];
    const std::uint64_t latent = 656;  // both engines store the FP8 row with its scales
    CHECK(s["kv_bytes_per_token"] == 61 * (latent + 132));
    // The page's per-token figure is the engine's (the whole cache on each GPU: 8 ranks, 8 copies).
    CHECK(v["memory"]["kv"]["bytes_per_token"] == 61 * (latent + 132));
    CHECK(s["sparse_attention"]["top_k"] == 2048);
    CHECK(s["sparse_attention"]["latent_bytes_per_token"] == 61 * latent);
    CHECK(s["sparse_attention"]["indexer_bytes_per_token"] == 61 * 132);
    // One sequence of 32,768 tokens on each of the 8 GPUs (the latent is whole on every rank).
    CHECK(v["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 8ull * 32768 * 61 * (latent + 132));
    CHECK(v["verdict"] == "fits");
  }
  // mlx-lm (mlx_lm/models/deepseek_v32.py): per layer a KVCache of the 512-wide latent and the
  // 64-wide RoPE key, and one of the indexer's 128-wide key, at 16 bits: 61 x (1,152 + 256) bytes
  // a token, the cells grown in steps of 256.
  const nlohmann::json m = wif_test::estimate({{"model", kId}, {"quant", "MLX-4bit"}, {"hardware", "apple-m3-ultra-80c-gpu-512gb"},
                                               {"engine", "mlx"}, {"context", 10000}});
  REQUIRE_FALSE(m.contains("error"));
  CHECK(m["memory"]["kv"]["bytes_per_token"] == 61 * (1152 + 256));
  CHECK(m["memory"]["kv"]["cells"] == 10240);
  CHECK(m["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 10240ull * 61 * (1152 + 256));
  // CacheList has no to_quantized, so generate.py's kv_bits leaves this cache at 16 bits: refused.
  const nlohmann::json q = wif_test::estimate({{"model", kId}, {"quant", "MLX-4bit"}, {"hardware", "apple-m3-ultra-80c-gpu-512gb"},
                                               {"engine", "mlx"}, {"kv_bits", 8}});
  REQUIRE(q.contains("error"));
  CHECK(q["error"]["code"] == "kv_not_quantizable");
  CHECK(q["error"]["path"] == "kv_bits");
}

TEST_CASE("DeepSeek V3.2 under SGLang: auto is fp8_e4m3 from compute capability 10 on, stated as the engine's default", "[deepseek_v32][sglang]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan fp8 = plan_quantization(a, "FP8");
  SglangOptions o;
  o.tensor_parallel = 8;
  o.context_length = 32768;
  struct Row { double cc; const char* dtype; const char* code; std::uint64_t cell; };
  const Row rows[] = {{0, "auto", "", 61 * (1152 + 132)},        // capability unknown: the 16-bit cache
                      {9.0, "auto", "", 61 * (1152 + 132)},      // Hopper: bfloat16
                      {10.0, "fp8_e4m3", "engine_default_sm100", 61 * (656 + 132)},   // B200
                      {12.0, "fp8_e4m3", "engine_default_sm100", 61 * (656 + 132)}};  // RTX PRO 6000 Blackwell
  for (const Row& row : rows) {
    CAPTURE(row.cc);
    o.cuda_compute_capability = row.cc;
    const VllmBudget b = sglang_budget(a, fp8, 140, 141, o);
    CHECK(b.kv_cache_dtype == row.dtype);
    CHECK(b.kv_cache_dtype_code == row.code);
    CHECK(b.kv_bytes_per_token == row.cell);
  }
  // Asked for, it stays what was asked on any GPU.
  o.kv_cache_dtype = "bfloat16";
  CHECK(sglang_budget(a, fp8, 140, 141, o).kv_bytes_per_token == 61 * (1152 + 132));
  // DeepSeek V3 (dense MLA) keeps 576 one-byte elements in SGLang's FP8 pool.
  const Architecture& v3 = wif_test::catalog_arch("deepseek-ai/DeepSeek-V3-0324");
  o.kv_cache_dtype = "fp8_e4m3";
  CHECK(sglang_budget(v3, plan_quantization(v3, "FP8"), 140, 141, o).kv_bytes_per_token == 61 * 576);
}

}  // namespace deepseek_v32_test_cases
