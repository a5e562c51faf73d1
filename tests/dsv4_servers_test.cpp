// DeepSeek V4 Flash under vLLM and SGLang (servers/dsv4.hpp): every page, group and per-token
// figure below is derived by hand from its config.json (43 layers: 2 window-only, 21 at ratio 4,
// 20 at ratio 128; head_dim 512 of which 64 RoPE; indexer keys of 128; window 128) and the engines'
// rules as dsv4.hpp cites them.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/servers/dsv4.hpp"
#include "willitfit/servers/sglang.hpp"
#include "willitfit/servers/vllm.hpp"

namespace dsv4_servers_test_cases {

using namespace wif;

namespace {

constexpr const char* kId = "deepseek-ai/DeepSeek-V4-Flash";

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("DeepSeek V4 Flash under vLLM: 584-byte rows paged in five groups, a block of 22 x 47,808 bytes", "[dsv4][vllm]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const Dsv4VllmLayout l = dsv4_vllm_layout(a, "auto");
  CHECK(l.fp8_ds_mla);
  CHECK(l.key_bytes == 448 + 64 * 2 + 8);   // 584
  CHECK(l.indexer_bytes == 128 + 4);        // 132
  // The compressed group's tuple: a ratio-4 page (64 rows x 584 = 37,376 -> 65 x 576), an indexer
  // page (64 x 132 = 8,448 -> 15 x 576) and a ratio-128 page (2 x 584 = 1,168 -> 3 x 576).
  CHECK(l.tuple_pages == std::vector<std::uint64_t>({1728, 8640, 37440}));
  CHECK(l.tuple_bytes == 47808);
  // Tuples: compressed 21, window caches 43, ratio-4 states 21, ratio-128 states 20. The least
  // padding is at d = 22 (1 + 1 + 1 + 2 = 5; d = 21 pads 43 to 63: 21), so the 43 window caches
  // split 22 + 21 and a block is 22 tuples.
  CHECK(l.layer_tuples == 22);
  CHECK(l.block_bytes == 22ull * 47808);
  REQUIRE(l.groups.size() == 5);
  CHECK(l.groups[0].kind == "compressed");
  CHECK(l.groups[0].layer_tuples == 21);
  CHECK(l.groups[0].dense_bytes == 21ull * 37440 + 21ull * 8640 + 20ull * 1728);
  CHECK(l.groups[1].kind == "sliding");
  CHECK(l.groups[1].layer_tuples == 22);
  CHECK(l.groups[2].layer_tuples == 21);
  CHECK(l.groups[1].dense_bytes == 22ull * 37440);  // a 64-token window page, 37,440 as well
  // The ratio-4 states: 4 rows x 2 x 2 x 512 float32 = 32,768 -> 32,832, padded to 37,440; their
  // indexer's 4 x 2 x 2 x 128 x 4 = 8,192 -> 8,640. The ratio-128 states: 8 x 2 x 512 x 4 -> 37,440.
  CHECK(l.groups[3].kind == "compressor_state");
  CHECK(l.groups[3].dense_bytes == 21ull * (37440 + 8640));
  CHECK(l.groups[4].dense_bytes == 20ull * 37440);
  // Per token of context: 21 x 584 / 4 = 3,066 (read for at most 512 entries a step) and
  // 21 x 132 / 4 + 20 x 584 / 128 = 784.25 (read whole).
  CHECK(l.sparse_bytes_per_token == Approx(3066.0));
  CHECK(l.dense_bytes_per_token == Approx(784.25));
  // One request of 65,536 tokens, 8,192 tokens a step: 256 compressed blocks, 2 x (cdiv(8,319, 64)
  // + 1) window blocks, cdiv(8,199, 4) + 1 and cdiv(8,319, 8) + 1 state blocks.
  CHECK(dsv4_vllm_blocks(l, 65536, 8192) == 256 + 2 * 131 + 2051 + 1041);
  // A short request is bound by its own length, not the step.
  CHECK(dsv4_vllm_blocks(l, 1000, 8192) == 4 + 2 * (cdiv(1000, 64) + 1) + (cdiv(1000, 4) + 1) + (cdiv(1000, 8) + 1));
}

TEST_CASE("DeepSeek V4 Flash under vLLM: a bf16 cache keeps 1,024-byte rows, pages aligned to 512", "[dsv4][vllm]") {
  const Dsv4VllmLayout l = dsv4_vllm_layout(wif_test::catalog_arch(kId), "bfloat16");
  CHECK_FALSE(l.fp8_ds_mla);
  CHECK(l.key_bytes == 1024);
  // 64 x 1,024 = 65,536; 64 x 132 = 8,448 -> 17 x 512 = 8,704; 2 x 1,024 = 2,048.
  CHECK(l.tuple_pages == std::vector<std::uint64_t>({2048, 8704, 65536}));
  CHECK(l.sparse_bytes_per_token == Approx(21.0 * 1024 / 4));
  CHECK_THROWS_AS(dsv4_vllm_layout(wif_test::catalog_arch(kId), "int4"), InputError);
}

TEST_CASE("DeepSeek V4 Flash vLLM budget on 4 x H200: the pool in 1,051,776-byte blocks, every rank a whole copy", "[dsv4][vllm]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan plan = plan_quantization(a, "FP8-MXFP4-MOE");
  VllmOptions o;
  o.tensor_parallel = 4;
  o.max_model_len = 65536;
  const VllmBudget b = vllm_budget(a, plan, 140, o);
  CHECK(b.block_size == 256);
  CHECK(b.kv_cache_dtype == "fp8");
  CHECK(b.kv_cache_dtype_code == "engine_default_dsv4");
  CHECK(b.kv_copies == 4);
  CHECK(b.kv_bytes_per_token == 3066 + 784);
  CHECK(b.kv_latent_bytes_per_token == 3066);
  CHECK(b.sparse_top_k == 2048);
  // The top-k buffer: 8,192 tokens x 512 entries x 4 bytes.
  CHECK(b.sparse_workspace_bytes == 8192ull * 512 * 4);
  REQUIRE(b.kv_available_bytes > 0);
  const std::int64_t blocks = b.kv_available_bytes / (22 * 47808);
  CHECK(b.num_blocks == blocks);
  const std::int64_t per_req = 256 + 2 * 131 + 2051 + 1041;
  CHECK(b.max_concurrency == Approx(static_cast<double>(blocks) / per_req));
  CHECK(b.kv_request_bytes == static_cast<std::uint64_t>(per_req) * 22 * 47808);
  CHECK(b.fits);
  // The longest request the pool holds needs no more blocks than it has, one token more does.
  const Dsv4VllmLayout l = dsv4_vllm_layout(a, "auto");
  CHECK(dsv4_vllm_blocks(l, b.max_model_len_fit, 8192) <= blocks);
  CHECK(dsv4_vllm_blocks(l, b.max_model_len_fit + 1, 8192) > blocks);
}

// A published vLLM refusal (data/measurements/vllm_memory.jsonl row vllm-0030, from
// https://github.com/vllm-project/vllm/issues/44376, 2026-06-03): DeepSeek V4 Flash with the
// offline LLM class on 2 x GH200 96 GB, TP 2, kv_cache_dtype fp8, block_size 256, max_model_len
// 30,000; max_num_batched_tokens unset, so the LLM class's default on a GPU of 70 GiB or more,
// 16,384 (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults). vLLM printed that one request
// of 30,000 tokens needs 6.66 GiB, that 5.44 GiB are available, and that 13,528 tokens fit.
// By hand, in blocks of 22 x 47,808 = 1,051,776 bytes (the first case above):
//   30,000: cdiv(30000, 256) = 118 compressed, 2 x (cdiv(127 + 16384, 64) + 1) = 518 window,
//           cdiv(7 + 16384, 4) + 1 = 4,099 and cdiv(127 + 16384, 8) + 1 = 2,065 state blocks:
//           6,800 x 1,051,776 = 7,152,076,800 bytes = 6.661 GiB, printed 6.66;
//   13,528: 53 + 2 x 213 + 3,383 + 1,692 = 5,554 blocks = 5.4404 GiB;
//   13,529: 53 + 2 x 213 + 3,384 + 1,693 = 5,556 blocks = 5.4423 GiB;
// so a pool printed as 5.44 GiB holds 13,528 tokens and not one more, as vLLM said.
TEST_CASE("DeepSeek V4 Flash on 2 x GH200 under vLLM: the published 6.66 GiB for 30,000 tokens and 13,528 in 5.44 GiB", "[dsv4][vllm][calibration]") {
  const nlohmann::json r = [] {
    for (const auto& row : wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/vllm_memory.jsonl"))
      if (row["row_id"] == "vllm-0030") return row;
    FAIL("row vllm-0030 missing");
    return nlohmann::json{};
  }();
  const Architecture& a = wif_test::catalog_arch(kId);
  const Dsv4VllmLayout l = dsv4_vllm_layout(a, "fp8");
  REQUIRE(l.fp8_ds_mla);
  REQUIRE(l.block_bytes == 22ull * 47808);
  constexpr std::int64_t kBatched = 16384;
  const auto len = r["max_model_len"].get<std::int64_t>();
  CHECK(dsv4_vllm_blocks(l, len, kBatched) == 118 + 518 + 4099 + 2065);
  const double need = static_cast<double>(dsv4_vllm_blocks(l, len, kBatched)) * static_cast<double>(l.block_bytes) / wif_test::kGiB;
  CAPTURE(need);
  CHECK(std::abs(need - r["kv_needed_for_max_model_len_gib"].get<double>()) < 0.005);
  // The longest request vLLM estimated, and the next token, both within the printed 5.44 GiB.
  const auto fit = r["estimated_max_model_len"].get<std::int64_t>();
  const double avail = r["available_kv_cache_gib"].get<double>();
  const double at_fit = static_cast<double>(dsv4_vllm_blocks(l, fit, kBatched)) * static_cast<double>(l.block_bytes) / wif_test::kGiB;
  const double past_fit = static_cast<double>(dsv4_vllm_blocks(l, fit + 1, kBatched)) * static_cast<double>(l.block_bytes) / wif_test::kGiB;
  CAPTURE(at_fit, past_fit);
  CHECK(dsv4_vllm_blocks(l, fit, kBatched) == 5554);
  CHECK(dsv4_vllm_blocks(l, fit + 1, kBatched) == 5556);
  CHECK(at_fit < avail + 0.005);
  CHECK(past_fit >= avail - 0.005);
  // The budget's own request figure at those settings is the same 6,800 blocks.
  VllmOptions o;
  o.tensor_parallel = 2;
  o.max_model_len = len;
  o.max_num_batched_tokens = kBatched;
  o.kv_cache_dtype = "fp8";
  const VllmBudget b = vllm_budget(a, plan_quantization(a, "FP8-MXFP4-MOE"), 90, o);
  CHECK(b.block_size == 256);
  CHECK(b.kv_request_bytes == 6800ull * l.block_bytes);
}

TEST_CASE("DeepSeek V4 Flash under SGLang: 7,705.45 bytes a full token after a fixed ratio-128 state", "[dsv4][sglang]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  // swa 0.1 x 584 x 43 = 2,511.2; ratio-4 keys 584 / 4 x 21 = 3,066; ratio-128 keys 584 / 128 x 20
  // = 91.25; indexer 132 / 4 x 21 = 693; states 0.1 x 8 / 128 x (8,192 + 2,048) x 21 = 1,344.
  const Dsv4SglangPool p = dsv4_sglang_pool(a, 100e9, 256);
  CHECK(p.bytes_per_full_token == Approx(2511.2 + 3066 + 91.25 + 693 + 1344));
  // (256 + 1) requests x 128 rows x 2 x 512 float32 x 20 layers.
  CHECK(p.fixed_bytes == 257ull * 128 * 4096 * 20);
  const std::int64_t full = static_cast<std::int64_t>((100e9 - 257.0 * 128 * 4096 * 20) / (2511.2 + 3066 + 91.25 + 693 + 1344));
  CHECK(p.full_tokens == full / 256 * 256);
  CHECK(p.swa_tokens == static_cast<std::int64_t>(p.full_tokens * 0.1) / 256 * 256);
  // Too little memory for the fixed states: no pool, not a negative one.
  CHECK(dsv4_sglang_pool(a, 1e9, 256).full_tokens == 0);

  SglangOptions o;
  o.tensor_parallel = 4;
  o.context_length = 65536;
  const VllmBudget b = sglang_budget(a, plan_quantization(a, "FP8-MXFP4-MOE"), 140, 141, o);
  CHECK(b.kv_cache_dtype == "fp8_e4m3");
  CHECK(b.kv_cache_dtype_code == "engine_default_dsv4");
  CHECK(b.block_size == 256);
  CHECK(b.max_num_seqs == 256);
  CHECK(b.kv_bytes_per_token == 7705);
  REQUIRE(b.kv_available_bytes > 0);
  const double pool = static_cast<double>(b.kv_available_bytes);
  const std::int64_t tokens = static_cast<std::int64_t>((pool - 257.0 * 128 * 4096 * 20) / 7705.45) / 256 * 256;
  CHECK(b.kv_tokens == tokens);
  CHECK(b.max_concurrency == Approx(static_cast<double>(tokens) / 65536));
  // A 16-bit cache is not SGLang's CUDA path for V4.
  o.kv_cache_dtype = "bfloat16";
  CHECK_THROWS_AS(sglang_budget(a, plan_quantization(a, "FP8-MXFP4-MOE"), 140, 141, o), InputError);
}

TEST_CASE("DeepSeek V4 Flash estimates under vLLM and SGLang: the engines' caches in the result; MLX refuses a quantized cache", "[dsv4][estimate]") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const nlohmann::json v = wif_test::estimate({{"model", kId}, {"hardware", "nvidia-h200-sxm"},
                                                 {"count", 4}, {"engine", engine}, {"context", 65536}});
    REQUIRE_FALSE(v.contains("error"));
    CHECK(v["quant"]["id"] == "FP8-MXFP4-MOE");  // the published checkpoint
    const nlohmann::json& s = v[engine];
    CHECK(s["settings"]["kv_cache_dtype_code"] == "engine_default_dsv4");
    CHECK(s["sparse_attention"]["top_k"] == 2048);
    const std::uint64_t per_token = std::string(engine) == "vllm" ? 3850 : 7705;
    CHECK(s["kv_bytes_per_token"] == per_token);
    CHECK(v["memory"]["kv"]["bytes_per_token"] == per_token);
    CHECK(v["verdict"] == "fits");
    CHECK(s["demand"]["sequences_at_once"].get<std::int64_t>() >= 1);
  }
  // mlx-lm's caches for V4 (a rotating window and compressed pools) have no quantized form.
  const nlohmann::json m = wif_test::estimate({{"model", kId}, {"hardware", "apple-m3-ultra-80c-gpu-512gb"},
                                               {"engine", "mlx"}, {"kv_bits", 8}});
  REQUIRE(m.contains("error"));
  CHECK(m["error"]["code"] == "kv_not_quantizable");
  CHECK(m["error"]["path"] == "kv_bits");
  CHECK(m["error"]["accepted"] == nlohmann::json::array({"0"}));
}

TEST_CASE("DeepSeek V4 Flash's published checkpoint: MXFP4 experts and FP8 elsewhere, against its 159.6 GB", "[dsv4][quantize]") {
  const Architecture& a = wif_test::catalog_arch(kId);
  const TensorPlan p = plan_quantization(a, "FP8-MXFP4-MOE");
  // 256 routed experts x 3 x 4,096 x 2,048 on 43 layers at 4.25 bits.
  std::uint64_t experts = 0;
  for (const auto& t : p.tensors)
    if (t.is_expert() && t.layer >= 0 && t.layer < 43) experts += t.bytes;
  CHECK(static_cast<double>(experts) == Approx(256.0 * 3 * 4096 * 2048 * 43 * 4.25 / 8).epsilon(1e-6));
  // model.safetensors.index.json total_size 159,609,485,896 bytes, its MTP layer included.
  CHECK(static_cast<double>(p.weights_bytes) == Approx(159609485896.0).epsilon(0.03));
}

}  // namespace dsv4_servers_test_cases
