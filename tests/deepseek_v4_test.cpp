// DeepSeek V4 Flash: shapes, parameter count and llama.cpp cache, each derived by hand from its
// config.json (tests/golden/configs/deepseek-v4-flash.json) and llama.cpp's deepseek4 loader and
// cache (src/models/deepseek4.cpp, src/llama-kv-cache-dsv4.cpp), against the published figures.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/model/tensors.hpp"

namespace deepseek_v4_test_cases {

using namespace wif;

namespace {

const Architecture& v4() {
  static const Architecture a = wif_test::golden_arch("deepseek-v4-flash");
  return a;
}

std::uint64_t kv_total(const Architecture& a, std::int64_t ctx, GgmlType t = GgmlType::F16) {
  return wif_test::kv_of(a, ctx, 1, t).total_bytes;
}

}  // namespace

TEST_CASE("DeepSeek V4 Flash: 43 compressed-attention layers, 2 window-only, 21 at ratio 4, 20 at ratio 128", "[deepseek_v4]") {
  const Architecture& a = v4();
  REQUIRE(a.layers.size() == 43);   // the MTP layer is left out, as in the published GGUFs
  CHECK(a.gguf_arch == "deepseek4");
  std::map<std::int64_t, int> ratios;
  for (const auto& L : a.layers) {
    CHECK(L.attn == AttnKind::Compressed);
    CHECK(L.window == 128);
    CHECK(L.n_head == 64);
    CHECK(L.n_head_kv == 1);
    CHECK(L.head_dim_k == 512);
    CHECK(L.ffn == FfnKind::MoE);
    ++ratios[L.compress_ratio];
  }
  CHECK(ratios == std::map<std::int64_t, int>{{0, 2}, {4, 21}, {128, 20}});
  CHECK(a.layers[0].compress_ratio == 0);
  CHECK(a.layers[2].compress_ratio == 4);
  CHECK(a.layers[3].compress_ratio == 128);
  CHECK(a.layers[42].compress_ratio == 4);
  CHECK(a.dsv4.hc_mult == 4);
  CHECK(a.dsv4.hash_layers == 3);
  CHECK(a.dsv4.index_topk == 512);
  CHECK(!a.is_mla());
}

TEST_CASE("DeepSeek V4 Flash: 284.33B parameters by hand (card 284B), 13.27B active (card 13B), 1,328 tensors", "[deepseek_v4]") {
  const Architecture& a = v4();
  const auto tensors = enumerate_tensors(a);
  // A public read of unsloth's UD-Q4_K_XL container counts 1,328 tensors (no MTP layer).
  CHECK(tensors.size() == 1328);
  // By hand from llama.cpp's load_arch_tensors (E = 4096, V = 129280, 64 heads of 512):
  const std::int64_t E = 4096, V = 129280, H = 64, hd = 512, ql = 1024, ff = 2048, n_exp = 256;
  const std::int64_t hc = 4 * E * 24 + 24 + 3;                      // hc_*_fn {16384, 24}, base, scale
  const std::int64_t attn = E + H + E * ql + ql + ql * H * hd + E * hd + hd +
                            (H * hd / 8) * (1024 * 8) + 8 * 1024 * E + 2 * hc;
  const std::int64_t comp4 = 2 * E * 1024 + 1024 * 4 + hd;          // compressor, ratio 4 (2 x 512 wide)
  const std::int64_t comp128 = 2 * E * 512 + 512 * 128 + hd;        // compressor, ratio 128
  const std::int64_t indexer = E * 64 + ql * 64 * 128 + 2 * E * 256 + 256 * 4 + 128;
  const std::int64_t moe = E * n_exp + E + 3 * E * ff * n_exp + 3 * E * ff;   // router, norm, experts, shared
  const std::int64_t routing_hash = 6 * V, routing_bias = n_exp;   // tid2eid on layers 0-2, score bias after
  const std::int64_t total = 2 * E * V + E + 4 * E * 4 + 4 + 1 +            // embedding, head, norm, output_hc_*
                             43 * (attn + moe) + 21 * (comp4 + indexer) + 20 * comp128 +
                             3 * routing_hash + 40 * routing_bias;
  CHECK(total == 284334567511);
  const ParamCounts pc = count_params(a);
  CHECK(pc.total == total);
  CHECK(pc.experts == 43ll * 3 * E * ff * n_exp);
  CHECK(static_cast<double>(pc.total) == Approx(284e9).epsilon(0.005));
  // Active: everything but the embedding lookup and 250 of 256 experts per layer.
  const std::int64_t active = total - E * V - pc.experts + pc.experts / n_exp * 6;
  CHECK(pc.active == active);
  CHECK(active == 13272428631);
  CHECK(static_cast<double>(pc.active) == Approx(13e9).epsilon(0.03));
}

// antirez's GGUFs for the ds4 engine (https://huggingface.co/antirez/deepseek-v4-gguf) come from
// ds4's own converter, each tensor class at the type the file name spells out. The repo's README
// (read 2026-12-07 through mirrors of the Hub page) gives the classes: routed experts Q4_K, or
// IQ2_XXS gate and up with a Q2_K down; Q8_0 for the attention projections, the shared experts and
// the output head; F16 for the token table, the routers, the hyper-connection mixes, the
// compressors and the indexer; F32 for norms, sinks and biases (and the hash layers' I32 token
// table). The files' sizes are the Hub's at revision a88c423b511666d7ff7a4dcaee651669312bea97, as
// two public download scripts pin them to the byte (the q2 and q2/q4 files with an imatrix, which
// changes no size). A public IQ1_M requant of the same layout lists its tensors by type: f16 359,
// f32 492, i32 3, q8_0 345 and 129 expert stacks
// (https://huggingface.co/lvyufeng/DeepSeek-V4-Flash-IQ1_M/blob/3d542ca0b6f135fa56b1909a660d194e1bf2cef7/README.md).
// None of these files holds the MTP layer: it ships apart, as DeepSeek-V4-Flash-MTP-Q4K-Q8_0-F32.gguf.
TEST_CASE("DeepSeek V4 Flash: antirez's three ds4 files are the computed tensors at their named types, under one header", "[deepseek_v4][gguf]") {
  const TensorPlan bf = plan_quantization(v4(), "BF16");
  auto ds4 = [](GgmlType gate_up, GgmlType down, int q4_from_layer) {
    return [=](const Tensor& t) {
      if (t.is_expert()) {
        if (t.layer >= q4_from_layer) return GgmlType::Q4_K;
        return t.role == TensorRole::ExpDown ? down : gate_up;
      }
      // Vectors and the hash layers' token-to-expert table (I32, four bytes a value as F32).
      if (t.n_dims == 1 || t.name.find("tid2eid") != std::string::npos) return GgmlType::F32;
      const bool indexer = t.name.find("indexer") != std::string::npos;
      for (const char* q8 : {".attn_q_a.", ".attn_q_b.", ".attn_kv.", ".attn_output_a.", ".attn_output_b.", "_shexp."})
        if (!indexer && t.name.find(q8) != std::string::npos) return GgmlType::Q8_0;
      if (t.name == "output.weight") return GgmlType::Q8_0;
      return GgmlType::F16;
    };
  };
  struct File { const char* name; GgmlType gate_up, down; int q4_from; std::uint64_t bytes; };
  const File files[] = {
      {"Q4KExperts-F16HC-F16Compressor-F16Indexer-Q8Attn-Q8Shared-Q8Out", GgmlType::Q4_K, GgmlType::Q4_K, 0, 164633502592ull},
      {"IQ2XXS-w2Q2K-AProjQ8-SExpQ8-OutQ8", GgmlType::IQ2_XXS, GgmlType::Q2_K, 43, 86720111488ull},
      {"Layers37-42Q4KExperts-OtherExpertLayersIQ2XXSGateUp-Q2KDown", GgmlType::IQ2_XXS, GgmlType::Q2_K, 37, 97591747456ull}};
  std::set<std::uint64_t> headers;
  for (const File& f : files) {
    CAPTURE(f.name);
    const auto r = wif_test::recipe_size(bf, ds4(f.gate_up, f.down, f.q4_from));
    CHECK(r.count.at(GgmlType::F16) == 359);
    CHECK(r.count.at(GgmlType::Q8_0) == 345);
    CHECK(r.count.at(GgmlType::F32) == 492 + 3);
    // What is left of the file once the tensors' data (each padded to 32 bytes) is taken away: the
    // header, the same in all three files.
    const std::uint64_t data = r.file_bytes - (bf.header_bytes + 31) / 32 * 32;
    REQUIRE(f.bytes > data);
    headers.insert(f.bytes - data);
    const double err = (static_cast<double>(r.file_bytes) - static_cast<double>(f.bytes)) / static_cast<double>(f.bytes);
    CAPTURE(r.file_bytes, data, f.bytes - data, err);
    CHECK(std::fabs(err) < 1e-4);  // +0.002 % to +0.003 %: the core's header estimate is 2.5 MB over the real one
  }
  // 5,333,824 bytes of metadata, tokenizer and tensor infos in each: the tensor data of all three
  // files is the computed one to the byte.
  CHECK(headers == std::set<std::uint64_t>{5333824ull});
}

TEST_CASE("DeepSeek V4 Flash: llama.cpp's K-only caches per compression ratio, by hand", "[deepseek_v4][kv_cache]") {
  const Architecture& a = v4();
  KvOptions o;
  o.n_ctx = 131072;
  const KvCache kv = llamacpp_kv_cache(a, o);
  std::map<std::string, std::vector<KvGroup>> g;
  for (const auto& x : kv.groups) g[x.kind].push_back(x);
  // Window: every layer, pad256(128 + 512) = 768 cells of one 512-wide f16 key.
  REQUIRE(g["sliding"].size() == 1);
  CHECK(g["sliding"][0].layers == 43);
  CHECK(g["sliding"][0].cells == 768);
  CHECK(g["sliding"][0].bytes == 43ull * 768 * 1024);
  // Ratio 4: ctx / 4 cells of the key and a 128-wide indexer key; ratio 128: ctx / 128 cells.
  REQUIRE(g["compressed"].size() == 2);
  CHECK(g["compressed"][0].layers == 21);
  CHECK(g["compressed"][0].cells == 32768);
  CHECK(g["compressed"][0].bytes == 21ull * 32768 * (1024 + 256));
  CHECK(g["compressed"][1].layers == 20);
  CHECK(g["compressed"][1].cells == 1024);
  CHECK(g["compressed"][1].bytes == 20ull * 1024 * 1024);
  // Compressor states, F32 kv + score: 8 x 1024 and 8 x 256 (indexer) per ratio-4 layer, 128 x 512 per ratio-128 layer.
  REQUIRE(g["recurrent"].size() == 1);
  CHECK(g["recurrent"][0].layers == 41);
  CHECK(g["recurrent"][0].bytes == 21ull * 8 * (8 * 1024 + 8 * 256) + 20ull * 8 * 128 * 512);
  CHECK(g["recurrent"][0].bytes == 12206080);
  // Per token of context: 21 x 1280 / 4 + 20 x 1024 / 128.
  CHECK(kv.bytes_per_token_full == 6880);
  CHECK(kv.total_bytes == 947798016);
  // At the full 1M context: 6.76 GiB (a V3-style 576-wide MLA cache on 43 layers would be 48.4 GiB).
  CHECK(kv_total(a, 1048576) == 7260225536ull);
  // q8_0 keys: 544 bytes per 512 and 136 per 128.
  CHECK(kv_total(a, 131072, GgmlType::Q8_0) ==
        43ull * 768 * 544 + 21ull * 32768 * (544 + 136) + 20ull * 1024 * 544 + 12206080);
}

TEST_CASE("DeepSeek V4 Flash: the GGUF round trip keeps ratios, window, hyper-connections and hash layers", "[deepseek_v4][gguf]") {
  const Architecture& a = v4();
  const TensorPlan computed = plan_quantization(a, "MXFP4_MOE");
  const auto header = write_gguf_header(gguf_metadata_for(a, "DeepSeek V4 Flash", "MXFP4_MOE"), computed.tensors);
  const GgufHeader h = parse_gguf_header(header);
  const TensorPlan read = gguf_tensor_plan(h);
  const Architecture b = gguf_architecture(h);
  CHECK(read.weights_bytes == computed.weights_bytes);
  CHECK(b.gguf_arch == "deepseek4");
  CHECK(b.model_type == "deepseek_v4");
  REQUIRE(b.layers.size() == a.layers.size());
  for (std::size_t il = 0; il < a.layers.size(); ++il) {
    CAPTURE(il);
    CHECK(b.layers[il].attn == AttnKind::Compressed);
    CHECK(b.layers[il].compress_ratio == a.layers[il].compress_ratio);
    CHECK(b.layers[il].window == 128);
  }
  CHECK(b.dsv4.hc_mult == 4);
  CHECK(b.dsv4.hash_layers == 3);
  CHECK(b.dsv4.o_groups == 8);
  CHECK(b.dsv4.index_topk == 512);
  CHECK(count_params(b).total == count_params(a).total);
  for (std::int64_t ctx : {4096, 1048576}) {
    CAPTURE(ctx);
    CHECK(kv_total(b, ctx) == kv_total(a, ctx));
  }
  // Routed experts at MXFP4 (17 bytes per 32), the rest Q8_0 or F32: unsloth's UD-Q4_K_XL keeps its
  // routed experts at exactly that size (147,169,738,752 bytes) and holds 144.44 GiB of tensors in
  // all (a public read of the container; https://huggingface.co/unsloth/DeepSeek-V4-Flash-GGUF).
  std::uint64_t experts = 0;
  for (const auto& t : computed.tensors)
    if (t.is_expert()) experts += t.bytes;
  CHECK(experts == 147169738752ull);
  CHECK(static_cast<double>(computed.weights_bytes) / wif_test::kGiB == Approx(144.44).epsilon(0.01));
}

TEST_CASE("DeepSeek V4: bad compress_ratios are coded errors at their path", "[deepseek_v4]") {
  nlohmann::json c = wif_test::golden_config("deepseek-v4-flash");
  c["compress_ratios"][5] = 16;
  try {
    architecture_from_hf_config(c, "config");
    FAIL("a ratio llama.cpp cannot load was accepted");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unsupported_value");
    CHECK(e.error().path == "config.compress_ratios[5]");
  }
  c = wif_test::golden_config("deepseek-v4-flash");
  c["compress_ratios"] = nlohmann::json::array({0, 0, 4});
  try {
    architecture_from_hf_config(c, "config");
    FAIL("a short compress_ratios was accepted");
  } catch (const InputError& e) {
    CHECK(e.error().path == "config.compress_ratios");
  }
}

TEST_CASE("DeepSeek V4 Flash from its config: llama.cpp estimates its cache, vLLM its own (dsv4_servers_test.cpp)", "[deepseek_v4][estimate]") {
  const nlohmann::json cfg = wif_test::golden_config("deepseek-v4-flash");
  const nlohmann::json r = wif_test::estimate({{"model", {{"config", cfg}}}, {"quant", "MXFP4_MOE"},
                                               {"hardware", "nvidia-h100-sxm"}, {"context", 131072}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["model"]["approximate"] == false);
  CHECK(r["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 947798016ull);
  const nlohmann::json v = wif_test::estimate({{"model", {{"config", cfg}}}, {"quant", "FP8"}, {"count", 4},
                                               {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"}, {"context", 32768}});
  REQUIRE_FALSE(v.contains("error"));
  CHECK(v["vllm"]["kv_bytes_per_token"] == 3850);  // 21 x (584 + 132) / 4 + 20 x 584 / 128, rounded
}

TEST_CASE("DeepSeek V4 Flash from the catalog: llama.cpp sizes it", "[deepseek_v4][estimate]") {
  const nlohmann::json r = wif_test::estimate({{"model", "deepseek-ai/DeepSeek-V4-Flash"}, {"quant", "MXFP4_MOE"},
                                               {"hardware", "nvidia-h100-sxm"}, {"count", 2}, {"context", 131072}});
  REQUIRE_FALSE(r.contains("error"));
  // The catalog entry's config is the one the hand counts above were made from.
  CHECK(r["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 947798016ull);
  // The page's "per 1K tokens" split: the compressed caches grow with the context (6,880 bytes a
  // token: 21 x 1280 / 4 + 20 x 1024 / 128), the 128-token windows (768 cells of 1,024 bytes on 43
  // layers) and the compressor state (12,206,080 bytes) do not; the two parts add up to the total.
  const nlohmann::json& kv = r["memory"]["kv"];
  CHECK(kv["growing_bytes_per_1k"].get<std::uint64_t>() == 6880ull * 1024);
  CHECK(kv["fixed_bytes"].get<std::uint64_t>() == 43ull * 768 * 1024 + 12206080ull);
  CHECK(kv["fixed_kinds"] == nlohmann::json::array({"sliding", "recurrent"}));
  CHECK(6880ull * 131072 + kv["fixed_bytes"].get<std::uint64_t>() == 947798016ull);
  // At 8K the ratio-128 rows are padded from 64 to 256 cells: the padding (20 x 192 x 1,024 bytes)
  // stays in the fixed part, so per-1K times the context plus the fixed part is still the total.
  const nlohmann::json r8 = wif_test::estimate({{"model", "deepseek-ai/DeepSeek-V4-Flash"}, {"quant", "MXFP4_MOE"},
                                                {"hardware", "nvidia-h100-sxm"}, {"count", 2}, {"context", 8192}});
  REQUIRE_FALSE(r8.contains("error"));
  const nlohmann::json& kv8 = r8["memory"]["kv"];
  CHECK(kv8["growing_bytes_per_1k"].get<std::uint64_t>() == 6880ull * 1024);
  CHECK(kv8["fixed_bytes"].get<std::uint64_t>() == 43ull * 768 * 1024 + 12206080ull + 20ull * 192 * 1024);
  CHECK(6880ull * 8192 + kv8["fixed_bytes"].get<std::uint64_t>() == r8["memory"]["kv_cache_bytes"].get<std::uint64_t>());
}

TEST_CASE("DeepSeek V4 Flash under MLX: mlx-lm's window of keys and values and its compressors' pools, counted by hand", "[deepseek_v4][mlx][estimate]") {
  // mlx_lm/models/deepseek_v4.py: every layer keeps 128 rows of the 512-wide key twice (keys and
  // values of a RotatingKVCache); the 21 ratio-4 layers pool one 512-wide key and one 128-wide
  // indexer key per 4 tokens, the 20 ratio-128 layers one key per 128; the tokens not yet pooled
  // wait as kv and gate rows (ratio 4: 2 x (512 + 128) wide; ratio 128: 512). 16-bit throughout.
  auto kv_of = [](int ctx) {
    const nlohmann::json v = wif_test::estimate({{"model", "deepseek-ai/DeepSeek-V4-Flash"},
                                                 {"hardware", "apple-m3-ultra-80c-gpu-512gb"}, {"engine", "mlx"}, {"context", ctx}});
    REQUIRE_FALSE(v.contains("error"));
    return v["memory"];
  };
  const std::uint64_t window = 43ull * 2 * 128 * 512 * 2;
  const nlohmann::json m = kv_of(32768);
  CHECK(m["kv_cache_bytes"].get<std::uint64_t>() == window + 21ull * 8192 * 640 * 2 + 20ull * 256 * 512 * 2);
  const nlohmann::json& g = m["kv"]["groups"];
  REQUIRE(g.size() == 3);
  CHECK(g[0]["kind"] == "sliding");
  CHECK(g[0]["cells"] == 128);
  CHECK(g[1]["kind"] == "compressed");
  CHECK(g[1]["cells"] == 8192);
  CHECK(g[2]["cells"] == 256);
  // Each token adds 21 x 1280 / 4 + 20 x 1024 / 128 bytes, as under llama.cpp (the same rows, 16-bit).
  CHECK(m["kv"]["growing_bytes_per_1k"].get<std::uint64_t>() == 6880ull * 1024);
  // 10,001 tokens: 2,500 pooled and 1 waiting on ratio 4, 78 pooled and 17 waiting on ratio 128;
  // the waiting rows are a group of their own (the page's "+" sentence adds up per group).
  const nlohmann::json odd = kv_of(10001);
  const std::uint64_t waiting = 21ull * (1 * 1280 * 2 * 2) + 20ull * (17 * 512 * 2 * 2);
  CHECK(odd["kv_cache_bytes"].get<std::uint64_t>() == window + 21ull * 2500 * 640 * 2 + 20ull * 78 * 512 * 2 + waiting);
  REQUIRE(odd["kv"]["groups"].size() == 4);
  CHECK(odd["kv"]["groups"][3]["kind"] == "pending");
  CHECK(odd["kv"]["groups"][3]["bytes"].get<std::uint64_t>() == waiting);
  std::uint64_t by_cells = 0;
  for (const auto& g : odd["kv"]["groups"])
    by_cells += g["kind"] == "pending" ? g["bytes"].get<std::uint64_t>() : g["bytes_per_token"].get<std::uint64_t>() * g["cells"].get<std::uint64_t>();
  CHECK(by_cells == odd["kv_cache_bytes"].get<std::uint64_t>());
  // A context shorter than the window keeps only its own rows.
  CHECK(kv_of(100)["kv_cache_bytes"].get<std::uint64_t>() ==
        43ull * 2 * 100 * 512 * 2 + 21ull * (25 * 640 * 2) + 20ull * (100 * 512 * 2 * 2));
}

}  // namespace deepseek_v4_test_cases
