#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"

namespace kv_cache_test_cases {

using namespace wif;

TEST_CASE("GLM-4.5-Air f16 cache is 188416 bytes per token: 46 layers x 8 heads x 128 x 2 x 2", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("glm-4.5-air");
  KvOptions o;
  o.n_ctx = 8192;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(kv.bytes_per_token_full == 188416);
  CHECK(kv.total_bytes == 188416ull * 8192);
  CHECK(static_cast<double>(kv.total_bytes) / wif_test::kGiB == Approx(1.4375));
  REQUIRE(kv.groups.size() == 1);
  CHECK(kv.groups[0].layers == 46);  // the NextN layer keeps no cache
}

TEST_CASE("Llama 3.1 8B cache per token by cache type", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  auto row = GENERATE(table<GgmlType, std::uint64_t>({
      {GgmlType::F16, 131072}, {GgmlType::Q8_0, 69632}, {GgmlType::Q4_0, 36864}, {GgmlType::F32, 262144}}));
  KvOptions o;
  o.type_k = o.type_v = std::get<0>(row);
  CAPTURE(ggml_type_name(std::get<0>(row)));
  CHECK(llamacpp_kv_cache(a, o).bytes_per_token_full == std::get<1>(row));
}

TEST_CASE("context is padded to 256 cells and split per stream when not unified", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  KvOptions o;
  o.n_ctx = 8000;
  CHECK(llamacpp_kv_cache(a, o).n_ctx == 8192);
  o.n_ctx = 10000;
  o.n_seq = 4;
  o.unified = false;
  CHECK(llamacpp_kv_cache(a, o).n_ctx == 4 * 2560);  // PAD(10000/4, 256) * 4
  o.unified = true;
  CHECK(llamacpp_kv_cache(a, o).n_ctx == 10240);
}

TEST_CASE("a quantized V cache without flash attention is refused like llama.cpp does", "[kv_cache]") {
  KvOptions o;
  o.type_v = GgmlType::Q8_0;
  o.flash_attn = false;
  CHECK_THROWS_AS(llamacpp_kv_cache(wif_test::golden_arch("llama-3.1-8b"), o), InputError);
  o.n_ctx = -5;
  o.flash_attn = true;
  CHECK_THROWS_AS(llamacpp_kv_cache(wif_test::golden_arch("llama-3.1-8b"), o), InputError);
}

TEST_CASE("cache grows monotonically with context", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("glm-4.5-air");
  std::uint64_t prev = 0;
  for (std::int64_t ctx = 256; ctx <= 131072; ctx *= 2) {
    KvOptions o;
    o.n_ctx = ctx;
    const auto b = llamacpp_kv_cache(a, o).total_bytes;
    CHECK(b > prev);
    prev = b;
  }
}

namespace {
const Architecture& catalog_arch(const std::string& id) {
  const Catalog& cat = wif_test::catalog();
  const ModelEntry* m = cat.find_model(id);
  if (!m) throw std::runtime_error("catalog lacks " + id);
  return m->arch;
}
const KvGroup& group(const KvCache& kv, const std::string& kind) {
  for (const auto& g : kv.groups)
    if (g.kind == kind) return g;
  throw std::runtime_error("no group " + kind);
}
}  // namespace

TEST_CASE("gpt-oss-20b keeps 128-token windows on half its layers", "[kv_cache]") {
  // 24 layers alternate sliding (window 128) and full; 8 KV heads x 64 = 2 KiB per token per layer.
  KvOptions o;
  o.n_ctx = 131072;
  const KvCache kv = llamacpp_kv_cache(catalog_arch("openai/gpt-oss-20b"), o);
  CHECK(group(kv, "full").layers == 12);
  CHECK(group(kv, "full").bytes == 131072ull * 12 * 2048);      // 3 GiB
  CHECK(group(kv, "sliding").layers == 12);
  CHECK(group(kv, "sliding").cells == 768);                       // PAD(128 + 512, 256)
  CHECK(group(kv, "sliding").bytes == 768ull * 12 * 2048);        // 18 MiB
}

TEST_CASE("Gemma 3 27B has 10 global and 52 sliding layers", "[kv_cache]") {
  // llama.cpp src/llama-kv-cache-iswa.cpp: at 32768 tokens the base cache is 2.5 GiB and the SWA cache 624 MiB.
  KvOptions o;
  o.n_ctx = 32768;
  const KvCache kv = llamacpp_kv_cache(catalog_arch("google/gemma-3-27b-it"), o);
  CHECK(group(kv, "full").layers == 10);
  CHECK(group(kv, "full").bytes == 32768ull * 10 * 8192);
  CHECK(group(kv, "sliding").layers == 52);
  CHECK(group(kv, "sliding").cells == 1536);
  CHECK(group(kv, "sliding").bytes == 624ull * 1024 * 1024);
}

TEST_CASE("MLA caches the 576-wide latent: DeepSeek R1, Kimi K2 and Kimi K2.5", "[kv_cache]") {
  for (const char* id : {"deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2.5"}) {
    CAPTURE(id);
    KvOptions o;
    o.n_ctx = 4096;
    const KvCache v_less = llamacpp_kv_cache(catalog_arch(id), o);   // llama.cpp from PR #19067
    CHECK(v_less.bytes_per_token_full == 61u * 576 * 2);             // 68.6 KiB per token
    o.mla_v_less = false;                                             // earlier builds also kept V
    CHECK(llamacpp_kv_cache(catalog_arch(id), o).bytes_per_token_full == 61u * (576 + 512) * 2);
    o.mla_v_less = true;
    o.type_k = GgmlType::Q8_0;
    CHECK(llamacpp_kv_cache(catalog_arch(id), o).bytes_per_token_full == 61u * 612);
  }
}

TEST_CASE("Kimi K2.5 at its full 262144 tokens: one 576-wide latent per layer and token, 17.2 GiB", "[kv_cache]") {
  // kv_lora_rank 512 + qk_rope_head_dim 64 per layer (llama.cpp's MLA cache without V), 61 layers,
  // F16: 70,272 bytes per token; the vision tower adds no cache.
  KvOptions o;
  o.n_ctx = 262144;
  const KvCache kv = llamacpp_kv_cache(catalog_arch("moonshotai/Kimi-K2.5"), o);
  CHECK(group(kv, "mla").layers == 61);
  CHECK(kv.bytes_per_token_full == 61u * (512 + 64) * 2);
  CHECK(kv.total_bytes == 61ull * 576 * 2 * 262144);             // 17.16 GiB
}

TEST_CASE("Qwen3-Next keeps a fixed recurrent state on 36 layers and a cache on 12", "[kv_cache]") {
  const Architecture& a = catalog_arch("Qwen/Qwen3-Next-80B-A3B-Instruct");
  KvOptions o;
  o.n_ctx = 65536;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 12);
  CHECK(kv.bytes_per_token_full == 12u * 2 * 2 * 256 * 2);            // 24 KiB per token
  const KvGroup& rec = group(kv, "recurrent");
  CHECK(rec.layers == 36);
  // conv (4-1) x (4096 + 2 x 16 x 128) + state 128 x 4096, in f32, per layer and sequence.
  CHECK(rec.bytes == 36ull * 4 * (3 * (4096 + 4096) + 128 * 4096));
  o.n_ctx = 262144;
  CHECK(group(llamacpp_kv_cache(a, o), "recurrent").bytes == rec.bytes);  // independent of context
  o.n_seq = 4;
  CHECK(group(llamacpp_kv_cache(a, o), "recurrent").bytes == 4 * rec.bytes);
}

TEST_CASE("Gemma 4 31B caches 10 global layers of 4 x 512 and 50 windowed layers of 16 x 256", "[kv_cache]") {
  // Global layers share K and V projections but llama.cpp still caches both (src/models/gemma4.cpp:
  // Vcur = Kcur when there is no attn_v); sliding layers keep window + ubatch cells.
  const Architecture& a = catalog_arch("google/gemma-4-31B-it");
  KvOptions o;
  o.n_ctx = 32768;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 10);
  CHECK(kv.bytes_per_token_full == 10u * 2 * 4 * 512 * 2);            // 80 KiB per token
  CHECK(group(kv, "full").bytes == 10ull * 2 * 4 * 512 * 2 * 32768);   // 2.5 GiB
  const KvGroup& swa = group(kv, "sliding");
  CHECK(swa.layers == 50);
  CHECK(swa.cells == 1536);                                           // 1024 + 512, padded to 256
  CHECK(swa.bytes == 50ull * 2 * 16 * 256 * 2 * 1536);
}

TEST_CASE("Gemma 4 26B-A4B caches 5 global layers of 2 x 512 and 25 windowed layers of 8 x 256", "[kv_cache]") {
  // The experts change no cache: the attention is Gemma 4 31B's at a smaller width; K=V global
  // layers still keep both K and V in llama.cpp's cache (src/models/gemma4.cpp).
  const Architecture& a = catalog_arch("google/gemma-4-26B-A4B-it");
  KvOptions o;
  o.n_ctx = 262144;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 5);
  CHECK(kv.bytes_per_token_full == 5u * 2 * 2 * 512 * 2);            // 20 KiB per token
  CHECK(group(kv, "full").bytes == 5ull * 2 * 2 * 512 * 2 * 262144);  // 5 GiB at 256K
  const KvGroup& swa = group(kv, "sliding");
  CHECK(swa.layers == 25);
  CHECK(swa.cells == 1536);                                           // 1024 + 512, padded to 256
  CHECK(swa.bytes == 25ull * 2 * 8 * 256 * 2 * 1536);                 // 300 MiB, whatever the context
}

TEST_CASE("Step-3.5 Flash caches 12 full layers of 8 x 128 and 33 windowed layers of 512 tokens", "[kv_cache]") {
  // The sliding layers' 96 query heads share the same 8 KV heads of 128 as the full layers' 64;
  // the 3 MTP layers keep no cache in the main pass.
  const Architecture& a = catalog_arch("stepfun-ai/Step-3.5-Flash");
  KvOptions o;
  o.n_ctx = 262144;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 12);
  CHECK(kv.bytes_per_token_full == 12u * 2 * 8 * 128 * 2);              // 48 KiB per token
  CHECK(group(kv, "full").bytes == 12ull * 2 * 8 * 128 * 2 * 262144);   // 12 GiB at 256K
  const KvGroup& swa = group(kv, "sliding");
  CHECK(swa.layers == 33);
  CHECK(swa.cells == 1024);                                              // 512 + 512, padded to 256
  CHECK(swa.bytes == 33ull * 2 * 8 * 128 * 2 * 1024);                    // 132 MiB, whatever the context
}

TEST_CASE("Nemotron 3 Super caches 8 attention layers of 2 x 128 and a fixed Mamba-2 state on 40", "[kv_cache]") {
  // The 40 LatentMoE layers keep nothing; llama_hparams::n_embd_r = (4 - 1) x (8192 + 2 x 8 x 128)
  // and n_embd_s = 128 x 8192 per Mamba-2 layer, in f32.
  const Architecture& a = catalog_arch("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16");
  KvOptions o;
  o.n_ctx = 262144;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 8);
  CHECK(kv.bytes_per_token_full == 8u * 2 * 2 * 128 * 2);            // 8 KiB per token
  CHECK(group(kv, "full").bytes == 8ull * 2 * 2 * 128 * 2 * 262144);  // 2 GiB at 256K
  const KvGroup& rec = group(kv, "recurrent");
  CHECK(rec.layers == 40);
  CHECK(rec.bytes == 40ull * 4 * (3 * (8192 + 2 * 8 * 128) + 128 * 8192));
}

TEST_CASE("Hunyuan-A13B caches 32 layers of 8 KV heads of 128", "[kv_cache]") {
  KvOptions o;
  o.n_ctx = 32768;
  const KvCache kv = llamacpp_kv_cache(catalog_arch("tencent/Hunyuan-A13B-Instruct"), o);
  CHECK(kv.bytes_per_token_full == 32u * 2 * 8 * 128 * 2);            // 128 KiB per token
  CHECK(kv.total_bytes == 4ull * 1024 * 1024 * 1024);                 // 4 GiB at 32k
}

TEST_CASE("Kimi Linear caches the MLA latent on 7 layers and a fixed delta-rule state on 20", "[kv_cache]") {
  const Architecture& a = catalog_arch("moonshotai/Kimi-Linear-48B-A3B-Instruct");
  KvOptions o;
  o.n_ctx = 32768;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "mla").layers == 7);
  CHECK(kv.bytes_per_token_full == 7u * (512 + 64) * 2);
  const KvGroup& rec = group(kv, "recurrent");
  CHECK(rec.layers == 20);
  // llama_hparams::n_embd_r / n_embd_s for KDA: q, k and v short convolutions keep (4 - 1) x 4096
  // each, the state is 128 x 128 per head for 32 heads; f32, per layer and sequence.
  CHECK(rec.bytes == 20ull * 4 * (3 * 3 * 4096 + 128 * 128 * 32));
  o.n_ctx = 1048576;
  CHECK(group(llamacpp_kv_cache(a, o), "recurrent").bytes == rec.bytes);
}

TEST_CASE("Granite 4.0-H Tiny caches 4 attention layers per token and a fixed Mamba-2 state on 36", "[kv_cache]") {
  const Architecture& a = catalog_arch("ibm-granite/granite-4.0-h-tiny");
  KvOptions o;
  o.n_ctx = 32768;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 4);
  CHECK(kv.bytes_per_token_full == 4u * 2 * 4 * 128 * 2);            // 8 KiB per token
  const KvGroup& rec = group(kv, "recurrent");
  CHECK(rec.layers == 36);
  // llama_hparams::n_embd_r = (d_conv - 1) x (d_inner + 2 n_group d_state) = 3 x 3328 = 9984 (the
  // cache_r_l0 tensor a llama.cpp debugger shows for this model); n_embd_s = d_state x d_inner.
  CHECK(rec.bytes == 36ull * 4 * (3 * (3072 + 2 * 128) + 128 * 3072));
  o.n_seq = 3;
  CHECK(group(llamacpp_kv_cache(a, o), "recurrent").bytes == 3 * rec.bytes);
}

TEST_CASE("Granite 4.0-H Small caches 4 attention layers of 8 KV heads and a 128-head Mamba-2 state on 36", "[kv_cache]") {
  const Architecture& a = catalog_arch("ibm-granite/granite-4.0-h-small");
  KvOptions o;
  o.n_ctx = 131072;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(group(kv, "full").layers == 4);
  CHECK(kv.bytes_per_token_full == 4u * 2 * 8 * 128 * 2);            // 16 KiB per token
  CHECK(group(kv, "full").bytes == 4ull * 2 * 8 * 128 * 2 * 131072);  // 2 GiB at 128k
  const KvGroup& rec = group(kv, "recurrent");
  CHECK(rec.layers == 36);
  // n_embd_r = (d_conv - 1) x (d_inner + 2 n_group d_state) = 3 x 8448; n_embd_s = d_state x d_inner
  // = 128 x 8192; f32 (llama.cpp src/llama-hparams.cpp). 147.5 MiB per sequence, whatever the context.
  CHECK(rec.bytes == 36ull * 4 * (3 * (8192 + 2 * 128) + 128 * 8192));
  o.n_ctx = 4096;
  CHECK(group(llamacpp_kv_cache(a, o), "recurrent").bytes == rec.bytes);
  o.n_seq = 4;
  CHECK(group(llamacpp_kv_cache(a, o), "recurrent").bytes == 4 * rec.bytes);
}

TEST_CASE("Gemma 3n E4B caches 20 of 35 layers: 4 global and 16 windowed, the last 15 reuse them", "[kv_cache]") {
  const Architecture& a = catalog_arch("google/gemma-3n-E4B-it");
  KvOptions o;
  o.n_ctx = 32768;
  const KvCache kv = llamacpp_kv_cache(a, o);
  // K and V: 2 KV heads of 256, f16.
  const std::uint64_t per_layer_tok = 2u * 2 * 256 * 2;
  CHECK(group(kv, "full").layers == 4);
  CHECK(group(kv, "full").bytes == 4ull * per_layer_tok * 32768);      // 256 MiB
  CHECK(group(kv, "sliding").layers == 16);
  // The window of 512 plus a 512-token micro-batch, padded to 256: 1024 cells.
  CHECK(group(kv, "sliding").bytes == 16ull * per_layer_tok * 1024);   // 32 MiB
  CHECK(kv.total_bytes == 288ull * 1024 * 1024);
}

}  // namespace kv_cache_test_cases
