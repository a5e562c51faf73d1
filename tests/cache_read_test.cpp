// The cache a decode step reads (speed/speed.hpp kv_read_bytes) against the cache the memory
// figure holds, engine by engine: MLX's QuantizedKVCache, llama.cpp's -ctk / -ctv types, vLLM's
// and SGLang's kv_cache_dtype; and the lightning-indexer keys GLM-5 keeps in each of them.
#include <catch2/catch.hpp>

#include <string>

#include "test_util.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/mlx_speed.hpp"
#include "willitfit/speed/speed.hpp"

namespace cache_read_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
using wif_test::estimate;
const Architecture& arch(const char* id) { return wif_test::catalog_arch(id); }

json glm51_config() {
  return json::parse(wif_test::read_text(std::string(WIF_SOURCE_DIR) + "/data/models/zai-org/glm-5.1.json")).at("config");
}

const KvGroup* group(const KvCache& c, const char* kind) {
  for (const auto& g : c.groups)
    if (g.kind == kind) return &g;
  return nullptr;
}
// The group points into the cache: a cache that dies at the end of the statement may not be
// asked (a pointer into such a temporary was read after it was freed, found by ASan).
const KvGroup* group(KvCache&& c, const char* kind) = delete;
}  // namespace

TEST_CASE("MLX at kv_bits 4 reads QuantizedKVCache's packed rows with their scales and biases, not 16-bit rows", "[speed][mlx]") {
  const Architecture& a = arch("meta-llama/Llama-3.1-8B-Instruct");
  // Llama 3.1 8B: 32 layers, 8 KV heads of 128. A 4-bit row of 128 in groups of 64: 128 / (32 / 4)
  // = 16 uint32 words (64 B), and a 16-bit scale and bias for each of its 2 groups (8 B): 72 B.
  // Per token: 32 layers x (K + V) x 8 heads x 72 B = 36,864 B (16-bit: 32 x 2 x 8 x 256 = 131,072).
  constexpr std::uint64_t per_token = 32ull * 2 * 8 * (128 / 8 * 4 + 2 * 2 * 2);
  REQUIRE(per_token == 36864);
  KvOptions k;
  k.engine_layer_bytes_256 = mlx_speed_layer_bytes(a, 4, 64);
  CHECK(kv_read_bytes(a, k, 4096) == Approx(static_cast<double>(per_token) * 4096).epsilon(1e-12));
  CHECK(kv_read_bytes(a, KvOptions{}, 4096) == Approx(131072.0 * 4096).epsilon(1e-12));  // llama.cpp's F16
  // Through the estimate: the decode step's cache read at depth 4096, and the memory's per token.
  const json m = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "apple-m3-max-40c-gpu-64gb"},
                           {"engine", "mlx"}, {"context", 8192}, {"depth", 4096}, {"kv_bits", 4}});
  REQUIRE_FALSE(m.contains("error"));
  CHECK(m.at("memory").at("kv").at("bytes_per_token") == per_token);
  CHECK(m.at("speed").at("terms").at("kv_bytes_per_token").get<double>() == Approx(static_cast<double>(per_token) * 4096));
  // Less to read, so the step is faster than at 16 bits on the same Mac and depth.
  const json f = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "apple-m3-max-40c-gpu-64gb"},
                           {"engine", "mlx"}, {"context", 8192}, {"depth", 4096}});
  CHECK(m.at("speed").at("terms").at("decode_kv_ms").get<double>() <
        f.at("speed").at("terms").at("decode_kv_ms").get<double>() * 0.3);
}

TEST_CASE("for every engine's cache type, the speed model reads per token of context what the memory model holds", "[speed][kv]") {
  // A model whose every layer grows with the context (Llama 3.1 8B: full attention only), so the
  // memory's bytes per token times the depth is the whole cache a decode step reads.
  auto [engine, field, value, hardware] = GENERATE(table<const char*, const char*, json, const char*>({
      {"llama.cpp", "kv_type", "f16", "nvidia-h100-sxm"},
      {"llama.cpp", "kv_type", "q8_0", "nvidia-h100-sxm"},
      {"llama.cpp", "kv_type", "q4_0", "nvidia-h100-sxm"},
      {"mlx", "kv_bits", 0, "apple-m3-max-40c-gpu-64gb"},
      {"mlx", "kv_bits", 8, "apple-m3-max-40c-gpu-64gb"},
      {"mlx", "kv_bits", 4, "apple-m3-max-40c-gpu-64gb"},
      {"vllm", "kv_cache_dtype", "auto", "nvidia-h100-sxm"},
      {"vllm", "kv_cache_dtype", "fp8", "nvidia-h100-sxm"},
      {"sglang", "kv_cache_dtype", "fp8_e4m3", "nvidia-h100-sxm"},
  }));
  CAPTURE(engine, field, value);
  constexpr std::int64_t depth = 4096;
  const json m = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", hardware}, {"engine", engine},
                           {"context", 8192}, {"depth", depth}, {field, value}});
  REQUIRE_FALSE(m.contains("error"));
  const double per_token = m.at("memory").at("kv").at("bytes_per_token").get<double>();
  REQUIRE(per_token > 0);
  CHECK(m.at("speed").at("terms").at("kv_bytes_per_token").get<double>() == Approx(per_token * depth).epsilon(1e-9));
}

TEST_CASE("GLM-5 under every engine: the speed model reads per token of context what the memory model holds, the indexer keys too", "[speed][kv][glm5]") {
  // Up to index_topk (2,048) tokens of context a decode step reads every cached byte; past it vLLM,
  // SGLang and MLX gather the top 2,048 latent rows and still score every indexer key, while
  // llama.cpp masks, and reads, the whole latent. Per token, 78 layers:
  //   llama.cpp f16 and MLX 16-bit: latent 576 x 2 = 1,152 B + indexer key 128 x 2 = 256 B;
  //   vLLM fp8 (fp8_ds_mla): 656 B + the FP8 indexer key 132 B; vLLM / SGLang bf16: 1,152 + 132 B.
  struct Row { const char* engine; const char* quant; const char* hardware; int count; const char* field; json value;
               double latent, indexer; };
  const Row rows[] = {
      {"llama.cpp", "Q4_K_M", "nvidia-h200-sxm", 8, "kv_type", "f16", 1152, 256},
      {"vllm", "FP8", "nvidia-h200-sxm", 8, "kv_cache_dtype", "fp8", 656, 132},
      {"vllm", "FP8", "nvidia-h200-sxm", 8, "kv_cache_dtype", "auto", 1152, 132},
      {"sglang", "FP8", "nvidia-h200-sxm", 8, "kv_cache_dtype", "auto", 1152, 132},
      {"mlx", "MLX-3bit", "apple-m3-ultra-80c-gpu-512gb", 1, "kv_bits", 0, 1152, 256},  // 4-bit does not fit 512 GB
  };
  for (const Row& r : rows) {
    CAPTURE(r.engine, r.value);
    for (std::int64_t depth : {2048, 8192}) {
      CAPTURE(depth);
      json q = {{"model", "zai-org/GLM-5"}, {"quant", r.quant}, {"hardware", r.hardware}, {"engine", r.engine},
                {"context", 16384}, {"depth", depth}, {r.field, r.value}};
      if (r.count > 1) q["count"] = r.count;
      const json m = estimate(q);
      REQUIRE_FALSE(m.contains("error"));
      const double per_token = m.at("memory").at("kv").at("bytes_per_token").get<double>();
      CHECK(per_token == 78 * (r.latent + r.indexer));
      const double read = m.at("speed").at("terms").at("kv_bytes_per_token").get<double>();
      const double d = static_cast<double>(depth);
      if (depth <= 2048 || std::string(r.engine) == "llama.cpp")
        CHECK(read == Approx(per_token * d).epsilon(1e-9));
      else
        CHECK(read == Approx(78 * (r.indexer * d + r.latent * 2048)).epsilon(1e-9));
    }
  }
}

TEST_CASE("vLLM's layer cache at fp8 is one byte an element on every layer kind, and its sum is the budget's", "[speed][vllm]") {
  const Architecture& a = arch("meta-llama/Llama-3.1-8B-Instruct");
  const LayerSpec& L = a.layers.front();
  // 8 KV heads x (128 + 128) elements: 4,096 B at 16 bits, 2,048 B at fp8; 4 of 8 heads a rank at TP 2.
  CHECK(vllm_layer_cache_bytes(a, L, "auto", 1, false) == 4096);
  CHECK(vllm_layer_cache_bytes(a, L, "fp8", 1, false) == 2048);
  CHECK(vllm_layer_cache_bytes(a, L, "fp8", 2, false) == 1024);
  const auto per_layer = vllm_speed_layer_bytes(a, "fp8", false);
  REQUIRE(per_layer.size() == a.layers.size());
  CHECK(per_layer.front() == 2048u * 256);
  REQUIRE_THROWS_AS(vllm_layer_cache_bytes(a, L, "int3", 1, false), InputError);
  // DeepSeek V3.2's indexer key in both servers: 128 FP8 values and one float32 scale = 132 B; the
  // fp8_ds_mla latent beside it 512 + 512 / 128 x 4 + 64 x 2 = 656 B; Llama has no indexer.
  const Architecture& v32 = arch("deepseek-ai/DeepSeek-V3.2");
  CHECK(vllm_indexer_key_bytes(v32) == 132);
  CHECK(vllm_indexer_key_bytes(a) == 0);
  CHECK(vllm_layer_cache_bytes(v32, v32.layers.front(), "fp8", 1, false) == 656 + 132);
}

TEST_CASE("GLM-5 under llama.cpp keeps a lightning-indexer key per token on every layer beside the latent, by hand", "[kv][glm5]") {
  const Architecture a = architecture_from_hf_config(glm51_config(), "config");
  REQUIRE(a.gguf_arch == "glm-dsa");
  // 78 MLA layers: the converter keeps the MTP block as blk.78, but llama.cpp loads it with
  // TENSOR_SKIP and gives it no cache (src/models/glm-dsa.cpp). llama.cpp's latent: kv_lora_rank 512 + rope 64
  // = 576 elements, no V (mla_v_less); the indexer cache of llama_kv_cache_dsa: one key of
  // index_head_dim 128, at -ctk. F16: 78 x (1,152 + 256) = 109,824 B per token.
  KvOptions o;
  o.n_ctx = 4096;
  KvCache c = llamacpp_kv_cache(a, o);
  const KvGroup* idx = group(c, "indexer");
  REQUIRE(idx);
  CHECK(idx->layers == 78);
  CHECK(idx->bytes_per_token == 78u * 256);
  CHECK(c.bytes_per_token_full == 78u * (1152 + 256));
  CHECK(c.total_bytes == 78ull * (1152 + 256) * 4096);
  // q8_0 (34 B a block of 32): latent 18 blocks = 612 B, indexer key 4 blocks = 136 B.
  o.type_k = o.type_v = GgmlType::Q8_0;
  c = llamacpp_kv_cache(a, o);
  CHECK(c.bytes_per_token_full == 78u * (612 + 136));
  // The five indexer tensors on every layer, with llama.cpp's names and shapes (glm-dsa.cpp).
  const TensorPlan p = plan_quantization(a, "Q4_K_M");
  int seen = 0;
  for (const auto& t : p.tensors) {
    if (t.name == "blk.0.indexer.attn_q_b.weight") { CHECK(t.ne[0] == 2048); CHECK(t.ne[1] == 32 * 128); ++seen; }
    if (t.name == "blk.0.indexer.attn_k.weight") { CHECK(t.ne[0] == 6144); CHECK(t.ne[1] == 128); ++seen; }
    if (t.name == "blk.0.indexer.proj.weight") { CHECK(t.ne[0] == 6144); CHECK(t.ne[1] == 32); ++seen; }
    if (t.name == "blk.77.indexer.k_norm.weight" || t.name == "blk.77.indexer.k_norm.bias") { CHECK(t.ne[0] == 128); ++seen; }
  }
  CHECK(seen == 5);
}

TEST_CASE("GLM-5.2's shared indexer layers keep no indexer keys in llama.cpp; indexer_types is checked", "[kv][glm5]") {
  json c = glm51_config();
  // Without indexer_types, a training context of 1,048,576 or more takes GLM-5.2's pattern: layers
  // 0 and 1 and every fourth from 2 (2, 6, ..., 74) are full, 2 + 19 = 21 of 78.
  c["max_position_embeddings"] = 1048576;
  KvOptions o;
  o.n_ctx = 4096;
  const Architecture a = architecture_from_hf_config(c, "config");
  const KvCache cache = llamacpp_kv_cache(a, o);
  const KvGroup* idx = group(cache, "indexer");
  REQUIRE(idx);
  CHECK(idx->layers == 21);
  CHECK(idx->bytes_per_token == 21u * 256);
  CHECK_FALSE(a.layers[6].indexer_shared);
  CHECK(a.layers[7].indexer_shared);
  // The config's own list wins: every layer full but the last.
  json types = json::array();
  for (int i = 0; i < 78; ++i) types.push_back(i == 77 ? "shared" : "full");
  c["indexer_types"] = types;
  const KvCache listed = llamacpp_kv_cache(architecture_from_hf_config(c, "config"), o);
  REQUIRE(group(listed, "indexer"));
  CHECK(group(listed, "indexer")->layers == 77);
  auto code_of = [&](const json& cfg) {
    try {
      architecture_from_hf_config(cfg, "config");
    } catch (const InputError& e) {
      return e.error().code + " " + e.error().path;
    }
    return std::string("none");
  };
  c["indexer_types"][3] = "sparse";
  CHECK(code_of(c) == "bad_value config.indexer_types.3");
  c["indexer_types"] = json::array({"full"});
  CHECK(code_of(c) == "bad_value config.indexer_types");
  c["indexer_types"] = types;
  c["indexer_types"][0] = "shared";
  CHECK(code_of(c) == "bad_value config.indexer_types.0");
}

}  // namespace cache_read_test_cases
