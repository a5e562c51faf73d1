// DeepSeek V3.2 as llama.cpp runs it: its own GGUF arch `deepseek32` (src/models/deepseek32.cpp,
// llama_model_deepseek32::load_arch_tensors), the DSA cache (src/llama-kv-cache-dsa.cpp: the MLA
// latent plus a K-only cache of lightning-indexer keys, one per token per layer, indexer_head_size
// wide, of the -ctk type) and the MTP block the converter keeps since PR #26457 (DeepseekV32Model,
// skip_mtp = False). Every figure below is derived by hand from config.json and that tensor list.
#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"

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

TEST_CASE("DeepSeek V3.2: vLLM, SGLang and MLX answer engine_cache_not_modelled rather than size their DSA caches wrong", "[deepseek_v32][estimate]") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const nlohmann::json v = wif_test::estimate({{"model", kId}, {"quant", "FP8"}, {"hardware", "nvidia-h200-sxm"},
                                                 {"count", 8}, {"engine", engine}});
    REQUIRE(v.contains("error"));
    CHECK(v["error"]["code"] == "engine_cache_not_modelled");
    CHECK(v["error"]["path"] == "engine");
  }
  const nlohmann::json m = wif_test::estimate({{"model", kId}, {"quant", "Q4_K_M"}, {"hardware", "apple-m3-ultra-80c-gpu-512gb"},
                                               {"engine", "mlx"}});
  REQUIRE(m.contains("error"));
  CHECK(m["error"]["code"] == "engine_cache_not_modelled");
}
