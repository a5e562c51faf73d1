#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <set>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/ggml_types.hpp"
#include "willitfit/model/quantize.hpp"

namespace gguf_arch_test_cases {

using namespace wif;
using nlohmann::json;

namespace {

std::uint64_t pad32(std::uint64_t x) { return (x + 31) / 32 * 32; }

const Catalog& cat() { return wif_test::catalog(); }

std::uint64_t kv_bytes(const Architecture& a, std::int64_t ctx) {
  KvOptions o;
  o.n_ctx = ctx;
  return llamacpp_kv_cache(a, o).total_bytes;
}

struct RoundTrip {
  TensorPlan computed, read;
  Architecture arch_read;
  std::vector<std::uint8_t> header;
};
RoundTrip round_trip(const Architecture& a, const std::string& quant, const std::string& name) {
  RoundTrip r;
  r.computed = plan_quantization(a, quant);
  r.header = write_gguf_header(gguf_metadata_for(a, name, quant), r.computed.tensors);
  const GgufHeader h = parse_gguf_header(r.header);
  r.read = gguf_tensor_plan(h);
  r.arch_read = gguf_architecture(h);
  return r;
}

// Metadata for hand-written headers: general.architecture plus {arch}.<key> = value pairs.
GgufHeader header_of(const std::string& arch, const json& keys, std::int64_t n_vocab = 1000) {
  std::vector<GgufKv> kv = {gguf_kv("general.architecture", GgufType::String, arch)};
  for (const auto& [k, v] : keys.items()) {
    if (v.is_array()) kv.push_back(gguf_kv_array(arch + "." + k, GgufType::I32, v));
    else kv.push_back(gguf_kv(arch + "." + k, GgufType::U32, v));
  }
  kv.push_back(gguf_kv(arch + ".vocab_size", GgufType::U32, n_vocab));
  return parse_gguf_header(write_gguf_header(kv, {}));
}

std::map<std::string, int> kinds(const Architecture& a) {
  std::map<std::string, int> m;
  for (const auto& L : a.layers)
    if (!L.is_mtp) ++m[attn_kind_name(L.attn)];
  return m;
}

}  // namespace

// GLM-4.5-Air's NextN layer keeps its own token embedding and output head (model.layers.46.*),
// which llama.cpp's converter writes as blk.46.nextn.embed_tokens and nextn.shared_head_head
// (151552 x 4096 each); its catalog entry says so (mtp_embed_head_copies). With them, ubergarm's
// BF16 and Q8_0 files (https://huggingface.co/ubergarm/GLM-4.5-Air-GGUF, in the size list) are the
// computed file to 0.01 %; without them the computed file was 1.1 % light. A GGUF written from the
// plan says by holding the two tensors that its block keeps them.
TEST_CASE("GLM-4.5-Air's NextN block keeps its own embedding and head copies: the published BF16 and Q8_0 files to 0.01 %, read back from a written header", "[gguf][mtp]") {
  const Architecture& a = wif_test::catalog_arch("zai-org/GLM-4.5-Air");
  REQUIRE(a.mtp_embed_head_copies);
  Architecture without = a;
  without.mtp_embed_head_copies = false;
  const double copy = 151552.0 * 4096.0;
  struct File { const char* quant; double published, bytes_per_weight; };
  for (const File& f : {File{"BF16", 220987878539.0, 2.0}, File{"Q8_0", 117446954451.0, 34.0 / 32.0}}) {
    CAPTURE(f.quant);
    const TensorPlan p = plan_quantization(a, f.quant), w = plan_quantization(without, f.quant);
    CHECK(static_cast<double>(p.weights_bytes - w.weights_bytes) == 2 * copy * f.bytes_per_weight);
    CHECK(std::fabs(static_cast<double>(p.file_bytes) - f.published) / f.published < 1e-4);
    CHECK((f.published - static_cast<double>(w.file_bytes)) / f.published > 0.01);
  }
  const RoundTrip r = round_trip(a, "Q8_0", "glm-4.5-air");
  CHECK(r.arch_read.mtp_embed_head_copies);
  CHECK(r.read.file_bytes == r.header.size() + [&] { std::uint64_t b = 0; for (const Tensor& t : r.computed.tensors) b += pad32(t.bytes); return b; }());
  const RoundTrip n = round_trip(without, "Q8_0", "glm-4.5-air");
  CHECK_FALSE(n.arch_read.mtp_embed_head_copies);
  CHECK(n.read.tensors.size() + 2 == r.read.tensors.size());
}

TEST_CASE("the size computed from a config equals the size read back from a GGUF written from its plan", "[gguf]") {
  const std::string model = GENERATE(as<std::string>{}, "llama-3.1-8b", "glm-4.5-air");
  CAPTURE(model);
  const Architecture a = wif_test::golden_arch(model);
  const RoundTrip r = round_trip(a, "Q4_K_M", model);
  REQUIRE(r.read.tensors.size() == r.computed.tensors.size());
  std::uint64_t padded = 0;
  for (std::size_t i = 0; i < r.read.tensors.size(); ++i) {
    const Tensor& x = r.computed.tensors[i];
    const Tensor& y = r.read.tensors[i];
    CAPTURE(x.name);
    CHECK(y.name == x.name);
    CHECK(y.type == x.type);
    CHECK(y.bytes == x.bytes);
    CHECK(y.ne == x.ne);
    CHECK(y.role == x.role);
    CHECK(y.layer == x.layer);
    padded += pad32(x.bytes);
  }
  CHECK(r.read.quant == "Q4_K_M");
  CHECK(r.read.weights_bytes == r.computed.weights_bytes);
  CHECK(r.read.file_bytes == r.header.size() + padded);
  CHECK(r.read.header_bytes <= r.header.size());
  // The architecture read back sizes the same KV cache at every context.
  for (std::int64_t ctx : {4096, 32768, 131072}) CHECK(kv_bytes(r.arch_read, ctx) == kv_bytes(a, ctx));
  CHECK(r.arch_read.n_layer_main() == a.n_layer_main());
  CHECK(r.arch_read.n_vocab == a.n_vocab);
  std::printf("  round trip %-13s Q4_K_M: weights %llu B, file read back %llu B (header %zu B), "
              "computed file %llu B (header estimate %llu B), difference %+lld B\n",
              model.c_str(), static_cast<unsigned long long>(r.read.weights_bytes),
              static_cast<unsigned long long>(r.read.file_bytes), r.header.size(),
              static_cast<unsigned long long>(r.computed.file_bytes),
              static_cast<unsigned long long>(r.computed.header_bytes),
              static_cast<long long>(r.computed.file_bytes) - static_cast<long long>(r.read.file_bytes));
}

TEST_CASE("catalog models survive the GGUF round trip with the same weights and KV cache", "[gguf]") {
  const std::set<std::string> required = {"llama", "qwen2", "qwen3", "qwen3moe", "glm4moe", "deepseek2",
                                          "gpt-oss", "gemma3", "phi3", "qwen3next", "gemma4", "kimi-linear",
                                          "hunyuan-moe", "granitehybrid", "gemma3n", "nemotron_h", "step35",
                                          "glm-dsa"};
  std::set<std::string> seen;
  int same = 0, total = 0;
  for (const auto& m : cat().models()) {
    if (m.arch.layers.empty()) continue;
    ++total;
    const RoundTrip r = round_trip(m.arch, "Q4_K_M", m.name);
    const bool w = r.read.weights_bytes == r.computed.weights_bytes;
    const bool k = kv_bytes(r.arch_read, 32768) == kv_bytes(m.arch, 32768);
    if (w && k) {
      ++same;
      seen.insert(m.arch.gguf_arch);
    } else {
      std::printf("  round trip differs: %s (%s) weights %s, KV %llu vs %llu\n", m.id.c_str(), m.arch.gguf_arch.c_str(),
                  w ? "same" : "differ", static_cast<unsigned long long>(kv_bytes(r.arch_read, 32768)),
                  static_cast<unsigned long long>(kv_bytes(m.arch, 32768)));
    }
    CAPTURE(m.id);
    CHECK(w);
    if (required.count(m.arch.gguf_arch)) CHECK(k);
  }
  std::printf("  catalog round trip: %d of %d models identical in weights and KV\n", same, total);
  for (const auto& a : required) {
    CAPTURE(a);
    CHECK(seen.count(a) == 1);
  }
}

TEST_CASE("sliding-window layers follow each architecture's pattern", "[gguf]") {
  // Gemma 3 27B: 62 layers, 5 sliding : 1 global (llama.cpp src/llama-model.cpp, LLM_ARCH_GEMMA3) -> 52 + 10.
  const Architecture g = gguf_architecture(header_of("gemma3", {{"block_count", 62}, {"embedding_length", 5376},
      {"feed_forward_length", 21504}, {"attention.head_count", 32}, {"attention.head_count_kv", 16},
      {"attention.key_length", 128}, {"attention.value_length", 128}, {"attention.sliding_window", 1024}}));
  CHECK(kinds(g) == std::map<std::string, int>{{"full", 10}, {"sliding", 52}});
  CHECK(g.layers[0].window == 1024);
  CHECK(g.layers[5].attn == AttnKind::Full);
  // gpt-oss: even layers sliding (window 128).
  const Architecture o = gguf_architecture(header_of("gpt-oss", {{"block_count", 36}, {"embedding_length", 2880},
      {"attention.head_count", 64}, {"attention.head_count_kv", 8}, {"attention.key_length", 64},
      {"attention.value_length", 64}, {"attention.sliding_window", 128}, {"expert_count", 128},
      {"expert_used_count", 4}, {"expert_feed_forward_length", 2880}}));
  CHECK(kinds(o) == std::map<std::string, int>{{"full", 18}, {"sliding", 18}});
  CHECK(o.layers[0].attn == AttnKind::Sliding);
  CHECK(o.is_moe());
  // Phi-3 writes a window but llama.cpp disables SWA for it.
  const Architecture p = gguf_architecture(header_of("phi3", {{"block_count", 32}, {"embedding_length", 3072},
      {"feed_forward_length", 8192}, {"attention.head_count", 32}, {"attention.head_count_kv", 32},
      {"attention.sliding_window", 2047}}));
  CHECK(kinds(p) == std::map<std::string, int>{{"full", 32}});
  CHECK(p.layers[0].head_dim_k == 96);   // n_embd / n_head when key_length is absent
}

TEST_CASE("MLA, hybrid and per-layer metadata give the right cache shapes", "[gguf]") {
  // DeepSeek V3 as the converter writes it: latent 512 + rope 64, one KV head.
  const Architecture d = gguf_architecture(header_of("deepseek2", {{"block_count", 61}, {"embedding_length", 7168},
      {"feed_forward_length", 18432}, {"attention.head_count", 128}, {"attention.head_count_kv", 1},
      {"attention.key_length", 576}, {"attention.value_length", 512}, {"attention.key_length_mla", 192},
      {"attention.value_length_mla", 128}, {"attention.kv_lora_rank", 512}, {"attention.q_lora_rank", 1536},
      {"rope.dimension_count", 64}, {"expert_count", 256}, {"expert_used_count", 8},
      {"expert_feed_forward_length", 2048}, {"expert_shared_count", 1}, {"leading_dense_block_count", 3}}, 129280));
  CHECK(d.is_mla());
  CHECK(d.mla.qk_nope_dim == 128);
  KvOptions o;
  o.n_ctx = 1024;
  CHECK(llamacpp_kv_cache(d, o).bytes_per_token_full == 61u * 1152);   // f16, V-less (PR #19067)
  CHECK(d.layers[2].ffn == FfnKind::Dense);   // no tensors: leading dense layers from the key
  CHECK(d.layers[3].ffn == FfnKind::MoE);
  // Qwen3-Next: 3 linear-attention layers to 1 full; recurrent state from the ssm.* keys.
  const Architecture q = gguf_architecture(header_of("qwen3next", {{"block_count", 48}, {"embedding_length", 2048},
      {"attention.head_count", 16}, {"attention.head_count_kv", 2}, {"attention.key_length", 256},
      {"attention.value_length", 256}, {"expert_count", 512}, {"expert_used_count", 10},
      {"expert_feed_forward_length", 512}, {"ssm.conv_kernel", 4}, {"ssm.state_size", 128},
      {"ssm.group_count", 16}, {"ssm.time_step_rank", 32}, {"ssm.inner_size", 4096}}));
  CHECK(kinds(q) == std::map<std::string, int>{{"full", 12}, {"linear", 36}});
  o.n_seq = 1;
  const KvCache kq = llamacpp_kv_cache(q, o);
  CHECK(kq.bytes_per_token_full == 12u * 2 * 2 * 256 * 2);
  // (3 x (4096 + 2 x 16 x 128) + 128 x 4096) x 4 bytes per recurrent layer (llama.cpp src/llama-hparams.cpp n_embd_r / n_embd_s).
  CHECK(kq.total_bytes - kq.bytes_per_token_full * 1024 == 36u * 4 * (3 * (4096 + 2 * 16 * 128) + 128 * 4096));
  // Per-layer arrays: head_count_kv 0 marks recurrent layers of a hybrid.
  const Architecture h = gguf_architecture(header_of("lfm2", {{"block_count", 4}, {"embedding_length", 1024},
      {"feed_forward_length", 4096}, {"attention.head_count", 16}, {"attention.head_count_kv", json{0, 8, 0, 8}},
      {"shortconv.l_cache", 3}}));
  CHECK(kinds(h) == std::map<std::string, int>{{"full", 2}, {"linear", 2}});
  CHECK(h.layers[1].n_head_kv == 8);
}

TEST_CASE("unknown architectures work when they give head counts and fail clearly when not", "[gguf]") {
  const Architecture u = gguf_architecture(header_of("futurenet", {{"block_count", 10}, {"embedding_length", 2048},
      {"feed_forward_length", 8192}, {"attention.head_count", 16}, {"attention.head_count_kv", 4}}));
  CHECK(kv_bytes(u, 256) == 10u * 256 * 2 * 4 * 128 * 2);
  try {
    gguf_architecture(header_of("futurenet", {{"block_count", 10}, {"embedding_length", 2048}}));
    FAIL("expected gguf_missing_key");
  } catch (const InputError& e) {
    CHECK(e.error().code == "gguf_missing_key");
    CHECK(e.error().path == "gguf.futurenet.attention.head_count");
  }
  try {
    gguf_architecture(header_of("llama", {{"block_count", 4}, {"embedding_length", 64},
        {"attention.head_count", json{4, 4, 4}}}));
    FAIL("expected gguf_bad_value");
  } catch (const InputError& e) {
    CHECK(e.error().code == "gguf_bad_value");
  }
}

TEST_CASE("an estimate from a GGUF header matches the estimate from the same model's config", "[gguf]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  const TensorPlan p = plan_quantization(a, "Q4_K_M");
  const auto header = write_gguf_header(gguf_metadata_for(a, "Llama 3.1 8B", "Q4_K_M"), p.tensors);
  const json hw = {{"name", "RTX 4090"}, {"kind", "gpu"}, {"memory_gib", 24}, {"bandwidth_gbs", 1008}, {"backend", "cuda"}};
  const json from_file = json::parse(api_estimate(cat(), json{{"model", {{"gguf_header_base64", base64_encode(header)}}},
                                                              {"hardware", hw}, {"context", 16384}}.dump()));
  const json from_cfg = json::parse(api_estimate(cat(), json{{"model", {{"config", wif_test::golden_config("llama-3.1-8b")}}},
                                                             {"quant", "Q4_K_M"}, {"hardware", hw}, {"context", 16384}}.dump()));
  REQUIRE_FALSE(from_file.contains("error"));
  CHECK(from_file["model"]["name"] == "Llama 3.1 8B");
  CHECK(from_file["quant"]["id"] == "Q4_K_M");
  for (const char* k : {"weights_bytes", "host_weights_bytes", "kv_cache_bytes", "compute_bytes", "total_bytes"}) {
    CAPTURE(k);
    CHECK(from_file["memory"][k] == from_cfg["memory"][k]);
  }
  CHECK(from_file["model"]["params_total"] == from_cfg["model"]["params_total"]);
  CHECK(from_file["gguf_file_bytes"].get<std::uint64_t>() ==
        header.size() + (from_cfg["gguf_file_bytes"].get<std::uint64_t>() - pad32(p.header_bytes)));
  // A cut-short header reports how much to read, under the request's path.
  const std::vector<std::uint8_t> cut(header.begin(), header.begin() + 5000);
  const json t = json::parse(api_estimate(cat(), json{{"model", {{"gguf_header_base64", base64_encode(cut)}}},
                                                      {"hardware", hw}}.dump()));
  CHECK(t["error"]["code"] == "gguf_truncated");
  CHECK(t["error"]["path"] == "model.gguf_header_base64");
  const json b = json::parse(api_estimate(cat(), json{{"model", {{"gguf_header_base64", "@@@"}}}, {"hardware", hw}}.dump()));
  CHECK(b["error"]["code"] == "bad_base64");
}

TEST_CASE("published GGUF files of the architectures added since session 4 are within 1% of the computed file", "[gguf]") {
  // The catalog-wide check allows 3% (recipe drift across years); an architecture modelled from
  // its tensor shapes should land within Hugging Face's 3-significant-figure rounding plus metadata.
  const std::set<std::string> added = {"gemma4", "kimi-linear", "hunyuan-moe", "granitehybrid", "gemma3n"};
  // Entries added in session 7 on architectures modelled before, each with a published byte count.
  const std::set<std::string> added_models = {"Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Thinking-2507",
                                              "mistralai/Devstral-Small-2507", "moonshotai/Kimi-K2.5",
                                              "google/gemma-4-26B-A4B-it",
                                              // session 21: files found for the issue-19 architectures
                                              "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3-Coder-Next",
                                              "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-4B-Thinking-2507",
                                              "Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-Coder-30B-A3B-Instruct",
                                              "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF",
                                              // session 22: DeepSeek V4 Flash (Preyazz's Q4_K_M, to the byte)
                                              "deepseek-ai/DeepSeek-V4-Flash",
                                              // session 26: Qwen2.5-Omni 7B's thinker, ggml-org's Q4_K_M and Q8_0
                                              "Qwen/Qwen2.5-Omni-7B"};
  int checked = 0;
  std::set<std::string> seen;
  for (const auto& m : cat().models()) {
    if ((!added.count(m.arch.gguf_arch) && !added_models.count(m.id)) || !m.raw.contains("gguf")) continue;
    for (const auto& g : m.raw["gguf"]) {
      const std::string q = g.value("quant", "");
      const auto fmt = find_quant(q);
      if (!fmt || !fmt->gguf || g.contains("size_differs")) continue;
      const double published = g.value("bytes", 0.0);
      const double computed = static_cast<double>(plan_quantization(m.arch, q).file_bytes);
      CAPTURE(m.id, q, published, computed);
      CHECK(std::fabs(computed - published) / published <= 0.01);
      ++checked;
      seen.insert(m.id);
    }
  }
  // Granite 4.0-H Tiny Q4_0: 3.98 GB computed, 3.96 GB published; Granite 4.0-H Small Q4_K_M:
  // 19,479,099,488 B computed, 19,476,621,984 B published (+0.01%); ggml-org's Q8_0 of Gemma 3n
  // E2B and E4B (-0.7%, -0.5%); two Qwen3 2507 files of each size and Devstral Small 2507's Q4_K_M;
  // bartowski's Kimi K2.5 Q3_K_S (442.13 GB computed, 444.83 GB published, -0.6%) and IQ4_XS
  // (546.21 GB computed, 547.61 GB published, -0.3%). Session 21: ggml-org's and unsloth's Q8_0 of
  // Gemma 4 26B-A4B and unsloth's of Qwen3.6-35B-A3B to the kilobyte, lmstudio-community's Q4_K_M of
  // Qwen3.6 (+0.01%), bartowski's Qwen3-Coder-Next Q4_K_M (-0.49%) and Qwen3-235B-A22B-2507 Q4_K_M
  // (four parts, -0.34%), four of bartowski's Llama-3.1-Nemotron-70B files to 0.001%. Session 22:
  // DevQuasar's Hunyuan-A13B Q3_K_S (34.8 GB published, 34.79 GB computed) and Preyazz's DeepSeek V4
  // Flash Q4_K_M (172,037,991,008 B published, +0.01%); bartowski's Hunyuan Q4_K_M (-1.0%) says why.
  CHECK(checked >= 40);
  for (const char* id : {"ibm-granite/granite-4.0-h-small", "google/gemma-3n-E2B-it", "google/gemma-3n-E4B-it",
                         "Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Thinking-2507", "mistralai/Devstral-Small-2507",
                         "moonshotai/Kimi-K2.5", "google/gemma-4-26B-A4B-it", "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3-Coder-Next",
                         "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-4B-Thinking-2507",
                         "Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-Coder-30B-A3B-Instruct",
                         "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "tencent/Hunyuan-A13B-Instruct",
                         "deepseek-ai/DeepSeek-V4-Flash", "Qwen/Qwen2.5-Omni-7B"}) {
    CAPTURE(id);
    CHECK(seen.count(id) == 1);
  }
}

// GLM-5.1 (glm-dsa: MLA with the DSA indexer, one NextN block) has no published GGUF of llama.cpp's
// stock mixes whose size is public to the byte; ubergarm's model card gives two test quants made for
// its perplexity baseline (not downloadable) with the loader's model size, printed to 0.001 GiB:
// BF16 1404.406 GiB and Q8_0 746.302 GiB (https://huggingface.co/ubergarm/GLM-5.1-GGUF, read
// 2026-12-06). That figure is the sum of the tensors' bytes, the NextN block's included, so it is
// compared with the plan's tensor bytes (weights_bytes), not with the file.
TEST_CASE("GLM-5.1: the computed tensor bytes of BF16 and Q8_0 match ubergarm's published model sizes", "[gguf]") {
  const Architecture& a = cat().find_model("zai-org/GLM-5.1")->arch;
  REQUIRE(a.gguf_arch == "glm-dsa");
  REQUIRE(a.n_layer_all() - a.n_layer_main() == 1);  // the NextN block is in the file
  const std::pair<const char*, double> cases[] = {{"BF16", 1404.406}, {"Q8_0", 746.302}};
  for (const auto& [q, gib] : cases) {
    const double published = gib * 1073741824.0;
    const double computed = static_cast<double>(plan_quantization(a, q).weights_bytes);
    CAPTURE(q, published, computed, (computed - published) / published);
    CHECK(std::fabs(computed - published) / published < 1e-4);
    // What is left (+0.002 % and +0.006 %) is the indexers' weight projection, indexer.proj
    // {6144, 32} on 79 blocks: the core keeps it F32 in every format, as current converters write
    // it (convert_hf_to_gguf.py, prepare_tensors: "DSA indexer weights should be F32"), where these
    // files hold it BF16 and Q8_0 like its neighbours (an earlier converter, then llama-quantize).
    // At the file's type the computed tensors are the published ones to the card's 0.001 GiB.
    const GgmlType file_type = gguf_default_type(q);  // (a structured binding is not captured before C++20)
    const auto at_file_type = wif_test::recipe_size(plan_quantization(a, q), [&](const Tensor& t) {
      return t.name.find("indexer.proj") != std::string::npos ? file_type : t.type;
    });
    CAPTURE(at_file_type.tensor_bytes);
    CHECK(std::fabs(static_cast<double>(at_file_type.tensor_bytes) - published) < 0.001 * wif_test::kGiB);
  }
}

// GLM-5 and GLM-5.1 share one set of shapes (data/models/zai-org: the same hidden size, layers,
// heads, ranks, indexer, experts and vocabulary; GLM-5's entry keeps only the keys its sources
// state), so every published size of a GLM-5.1 file below holds for GLM-5 as well.
TEST_CASE("GLM-5 and GLM-5.1 plan the same tensors, so GLM-5.1's published sizes hold for GLM-5", "[gguf]") {
  const Architecture& g5 = cat().find_model("zai-org/GLM-5")->arch;
  const Architecture& g51 = cat().find_model("zai-org/GLM-5.1")->arch;
  for (const char* q : {"BF16", "Q8_0", "Q4_K_M"}) {
    CAPTURE(q);
    const TensorPlan a = plan_quantization(g5, q), b = plan_quantization(g51, q);
    REQUIRE(a.tensors.size() == b.tensors.size());
    CHECK(a.tensors.size() == 1809);  // 78 layers and the NextN block
    for (std::size_t i = 0; i < a.tensors.size(); ++i) {
      CAPTURE(a.tensors[i].name);
      CHECK(a.tensors[i].name == b.tensors[i].name);
      CHECK(a.tensors[i].ne == b.tensors[i].ne);
      CHECK(a.tensors[i].type == b.tensors[i].type);
    }
    CHECK(a.weights_bytes == b.weights_bytes);
    CHECK(a.file_bytes == b.file_bytes);
  }
}

// AesSedai's GLM-5.1 files are llama-quantize runs with a default type and overrides for three
// tensor kinds, which the model card lists as "default / ffn_up / ffn_gate / ffn_down" beside each
// file's size as llama.cpp prints it (the tensors' bytes, in GiB to 0.01):
// https://huggingface.co/AesSedai/GLM-5.1-GGUF/blob/0da9129a01a6f052c6af3df7330c1b2e6cc0784d/README.md
// for Q5_K_M, Q4_K_M and IQ4_XS, and the current README for IQ3_S (both read 2026-12-07 through
// mirrors of the Hub pages). The card does not say which tensors the overrides match; the sizes do:
// the routed expert stacks (ffn_*_exps) of all 76 MoE blocks, the NextN block's (blk.78) included,
// and nothing else. Overriding the shared experts too would give files 0.16 to 0.46 % smaller,
// and sparing blk.78's experts files 0.58 to 1.6 % larger.
TEST_CASE("GLM-5.1: AesSedai's four MoE mixes are the computed tensors with only the routed experts overridden", "[gguf]") {
  const Architecture& a = cat().find_model("zai-org/GLM-5.1")->arch;
  struct Mix { const char* file; const char* base; GgmlType up, gate, down; double gib; };
  const Mix mixes[] = {{"Q5_K_M", "Q8_0", GgmlType::Q5_K, GgmlType::Q5_K, GgmlType::Q6_K, 520.08},
                       {"Q4_K_M", "Q8_0", GgmlType::Q4_K, GgmlType::Q4_K, GgmlType::Q5_K, 432.80},
                       {"IQ4_XS", "Q8_0", GgmlType::IQ3_S, GgmlType::IQ3_S, GgmlType::IQ4_XS, 336.61},
                       {"IQ3_S", "Q6_K", GgmlType::IQ2_S, GgmlType::IQ2_S, GgmlType::IQ3_S, 259.89}};
  const int mtp_layer = static_cast<int>(a.n_layer_main());
  for (const Mix& m : mixes) {
    CAPTURE(m.file);
    const TensorPlan base = plan_quantization(a, m.base);
    // `shared`: the shared experts' three matrices follow the overrides too; `nextn`: blk.78's
    // expert stacks do.
    auto mix = [&](bool shared, bool nextn) {
      return wif_test::recipe_size(base, [&](const Tensor& t) {
        const bool routed = t.is_expert() && (nextn || t.layer != mtp_layer);
        const bool shexp = shared && t.name.find("_shexp.") != std::string::npos;
        if (!routed && !shexp) return t.type;
        if (t.role == TensorRole::ExpUp || t.role == TensorRole::FfnUp) return m.up;
        if (t.role == TensorRole::ExpGate || t.role == TensorRole::FfnGate) return m.gate;
        return m.down;
      });
    };
    const double published = m.gib * wif_test::kGiB;
    auto err = [&](const wif_test::RecipeSize& r) { return (static_cast<double>(r.tensor_bytes) - published) / published; };
    const auto routed = mix(false, true);
    CAPTURE(routed.tensor_bytes, err(routed));
    // The indexers' weight projection at the file's default type, as in ubergarm's files (the
    // case above): then each file is the computed one to the card's rounding.
    const auto at_file_type = wif_test::recipe_size(base, [&](const Tensor& t) {
      if (t.name.find("indexer.proj") != std::string::npos) return gguf_default_type(m.base);
      if (!t.is_expert()) return t.type;
      return t.role == TensorRole::ExpUp ? m.up : t.role == TensorRole::ExpGate ? m.gate : m.down;
    });
    CAPTURE(at_file_type.tensor_bytes, err(at_file_type));
    if (std::string(m.base) == "Q8_0") {
      CHECK(err(routed) > 0);
      CHECK(err(routed) < 2e-4);                      // +0.009 to +0.014 %, the indexer projection
      CHECK(std::fabs(err(at_file_type)) < 2e-5);     // 0.005 GiB is 0.0015 % of the smallest
    } else {
      // IQ3_S, with a Q6_K default: 0.19 % (540 MB) under, not explained by the indexer
      // projection; within issue 19's 1 %.
      CHECK(std::fabs(err(routed)) < 0.01);
    }
    CHECK(routed.count.at(m.down) == 76);  // the 76 down stacks, and no other tensor at that type
    const auto with_shared = mix(true, true), without_nextn = mix(false, false);
    CAPTURE(err(with_shared), err(without_nextn));
    CHECK(err(with_shared) < -1e-3);
    CHECK(err(without_nextn) > 5e-3);
  }
}

TEST_CASE("Granite 4.0-H Small: the written GGUF and IBM's published metadata give the config's cache", "[gguf]") {
  const Architecture& a = cat().find_model("ibm-granite/granite-4.0-h-small")->arch;
  const RoundTrip r = round_trip(a, "Q4_K_M", "Granite 4.0 H Small");
  CHECK(r.read.weights_bytes == r.computed.weights_bytes);
  CHECK(r.arch_read.gguf_arch == "granitehybrid");
  CHECK(r.arch_read.recurrent.kind == "mamba2");
  CHECK(r.arch_read.recurrent.d_inner == 8192);
  CHECK(r.arch_read.recurrent.n_v_heads == 128);
  CHECK(r.arch_read.recurrent.n_group == 1);
  CHECK(r.arch_read.recurrent.d_state == 128);
  CHECK(kinds(r.arch_read) == std::map<std::string, int>{{"full", 4}, {"linear", 36}});
  // The metadata keys of IBM's own GGUF (ollama.com/ibm/granite4:small-h-q6_K, blob a15d0868faf9),
  // with head_count_kv 0 on the Mamba layers, give the same cache at every context.
  json kv_heads = json::array();
  for (const auto& L : a.layers) kv_heads.push_back(L.attn == AttnKind::Full ? 8 : 0);
  const Architecture g = gguf_architecture(header_of("granitehybrid", {{"block_count", 40}, {"embedding_length", 4096},
      {"feed_forward_length", 768}, {"attention.head_count", 32}, {"attention.head_count_kv", kv_heads},
      {"expert_count", 72}, {"expert_used_count", 10}, {"expert_shared_feed_forward_length", 1536},
      {"ssm.conv_kernel", 4}, {"ssm.state_size", 128}, {"ssm.group_count", 1}, {"ssm.time_step_rank", 128},
      {"ssm.inner_size", 8192}}, 100352));
  for (std::int64_t ctx : {4096, 32768, 131072}) {
    CAPTURE(ctx);
    CHECK(kv_bytes(g, ctx) == kv_bytes(a, ctx));
    CHECK(kv_bytes(r.arch_read, ctx) == kv_bytes(a, ctx));
  }
}

TEST_CASE("Kimi K2.5: the GGUF written from its config reads back as the same 61-layer MLA model", "[gguf]") {
  const Architecture& a = cat().find_model("moonshotai/Kimi-K2.5")->arch;
  const RoundTrip r = round_trip(a, "Q4_K_M", "Kimi K2.5");
  CHECK(r.read.weights_bytes == r.computed.weights_bytes);
  CHECK(r.read.tensors.size() == r.computed.tensors.size());
  const Architecture& b = r.arch_read;
  CHECK(b.gguf_arch == "deepseek2");
  CHECK(b.is_mla());
  CHECK(b.n_layer_main() == 61);
  CHECK(b.n_vocab == 163840);
  CHECK(b.n_ctx_train == 262144);
  CHECK(b.moe.n_expert == 384);
  CHECK(b.moe.n_expert_used == 8);
  CHECK(b.moe.n_shared == 1);
  CHECK(b.layers[0].ffn == FfnKind::Dense);
  CHECK(b.layers[1].ffn == FfnKind::MoE);
  CHECK(count_params(b).total == count_params(a).total);
  for (std::int64_t ctx : {4096, 131072, 262144}) {
    CAPTURE(ctx);
    CHECK(kv_bytes(b, ctx) == kv_bytes(a, ctx));
    CHECK(kv_bytes(b, ctx) == 61ull * 576 * 2 * static_cast<std::uint64_t>(ctx));
  }
}

TEST_CASE("Gemma 4 26B-A4B: the written GGUF reads back with the dense MLP and the experts on every layer", "[gguf]") {
  const Architecture& a = cat().find_model("google/gemma-4-26B-A4B-it")->arch;
  const RoundTrip r = round_trip(a, "Q4_K_M", "Gemma 4 26B A4B");
  CHECK(r.read.weights_bytes == r.computed.weights_bytes);
  CHECK(r.read.tensors.size() == 658u);
  const Architecture& b = r.arch_read;
  CHECK(b.gguf_arch == "gemma4");
  CHECK(b.moe.n_expert == 128);
  CHECK(b.moe.n_expert_used == 8);
  CHECK(b.moe.n_ff_exp == 704);
  REQUIRE(b.layers.size() == 30);
  for (const auto& L : b.layers) {
    CHECK(L.ffn == FfnKind::MoE);
    CHECK(L.n_ff == 2112);
  }
  CHECK(kinds(b) == std::map<std::string, int>{{"full", 5}, {"sliding", 25}});
  CHECK(count_params(b).total == count_params(a).total);
  CHECK(count_params(b).active == count_params(a).active);
  for (std::int64_t ctx : {4096, 32768, 262144}) {
    CAPTURE(ctx);
    CHECK(kv_bytes(b, ctx) == kv_bytes(a, ctx));
  }
  // The expert stacks are the fused gate+up and the down projection, each with 128 experts.
  int fused = 0;
  for (const auto& t : r.read.tensors) fused += t.name.find("ffn_gate_up_exps.weight") != std::string::npos && t.ne[2] == 128;
  CHECK(fused == 30);
}

TEST_CASE("Step-3.5 Flash: per-layer heads, the sliding pattern, head gates and MTP heads survive the GGUF round trip", "[gguf]") {
  const Architecture& a = cat().find_model("stepfun-ai/Step-3.5-Flash")->arch;
  const RoundTrip r = round_trip(a, "Q8_0", "Step-3.5 Flash");
  CHECK(r.read.weights_bytes == r.computed.weights_bytes);
  const Architecture& b = r.arch_read;
  CHECK(b.gguf_arch == "step35");
  CHECK(b.model_type == "step3p5");
  CHECK(b.attn_head_gate);
  REQUIRE(b.layers.size() == 48);
  CHECK(b.n_layer_main() == 45);
  for (std::size_t il = 0; il < b.layers.size(); ++il) {
    CAPTURE(il);
    CHECK(b.layers[il].n_head == a.layers[il].n_head);
    CHECK(b.layers[il].n_head_kv == 8);
    CHECK(b.layers[il].attn == a.layers[il].attn);
    CHECK(b.layers[il].window == a.layers[il].window);
    CHECK(b.layers[il].ffn == a.layers[il].ffn);
  }
  CHECK(count_params(b).total == count_params(a).total);
  CHECK(count_params(b).active == count_params(a).active);
  for (std::int64_t ctx : {4096, 262144}) {
    CAPTURE(ctx);
    CHECK(kv_bytes(b, ctx) == kv_bytes(a, ctx));
  }
  // The head-count list, the per-layer sliding flags and the MTP layers' own output heads.
  const GgufHeader h = parse_gguf_header(r.header);
  REQUIRE(h.find("step35.attention.head_count") != nullptr);
  CHECK(h.find("step35.attention.head_count")->count == 48u);
  REQUIRE(h.find("step35.attention.sliding_window_pattern") != nullptr);
  CHECK(h.find("step35.attention.sliding_window_pattern")->value[1] == true);
  CHECK(h.find("step35.attention.sliding_window_pattern")->value[4] == false);
  CHECK(h.find("step35.nextn_predict_layers")->value == 3);
  int heads = 0, gates = 0;
  for (const auto& t : r.read.tensors) {
    heads += t.name.find("nextn.shared_head_head.weight") != std::string::npos && t.ne[1] == 128896;
    gates += t.name.find("attn_gate.weight") != std::string::npos;
  }
  CHECK(heads == 3);
  CHECK(gates == 48);
  // AesSedai's Q8_0 file (197.43 GiB, MTP heads included) within 1%.
  const double published = 197.43 * 1073741824.0;
  CHECK(std::fabs(static_cast<double>(r.computed.file_bytes) - published) / published < 0.01);
}

TEST_CASE("Nemotron 3 Super: the latent width survives the GGUF round trip", "[gguf]") {
  const Architecture& a = cat().find_model("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16")->arch;
  const RoundTrip r = round_trip(a, "Q4_K_M", "Nemotron 3 Super");
  CHECK(r.read.weights_bytes == r.computed.weights_bytes);
  const Architecture& b = r.arch_read;
  CHECK(b.moe.n_latent == 1024);
  CHECK(b.moe.n_expert == 512);
  CHECK(b.moe.n_expert_used == 22);
  CHECK(b.recurrent.kind == "mamba2");
  CHECK(kinds(b) == std::map<std::string, int>{{"full", 8}, {"linear", 40}, {"none", 40}});
  CHECK(count_params(b).total == count_params(a).total);
  for (std::int64_t ctx : {4096, 262144}) {
    CAPTURE(ctx);
    CHECK(kv_bytes(b, ctx) == kv_bytes(a, ctx));
  }
  // Without the key the same tensors read as hidden-width experts: the latent width must be written.
  bool key = false;
  for (const auto& kv : parse_gguf_header(r.header).kv) key |= kv.key == b.gguf_arch + ".moe_latent_size";
  CHECK(key);
}

// Nemotron 3 Super as llama.cpp itself counted it: a Q4_K_M made with llama-quantize from a
// random-weight conversion of the release's shapes (build b7866, no importance matrix) loaded
// with model_n_params 120,668,707,840 and model_size 86,173,184,000 bytes of tensors
// (https://github.com/danbev/learning-ai/blob/28bb0d1a16e00b2939dc8e9d8478cf1258bfc0a3/notes/llama.cpp/update_chat_msg-issue.md);
// llama-bench prints the same count for unsloth's UD-IQ4_XS file, so neither carries the MTP block.
// The computed stock Q4_K_M is 0.15 % smaller: by exactly what a Q8_0 output tensor (4096 x 131072)
// weighs over the Q6_K one llama-quantize's Q4_K_M rule gives it (src/llama-quant.cpp,
// llama_tensor_get_type), the only single type change of this model with that byte count. The
// note does not say how that file's output came to be Q8_0.
TEST_CASE("Nemotron 3 Super: llama.cpp's own count and a Q4_K_M's tensor bytes are the computed ones", "[gguf]") {
  const Architecture& a = cat().find_model("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16")->arch;
  const ParamCounts pc = count_params(a);
  CHECK(pc.mtp == 0);
  CHECK(pc.total == 120668707840);
  QuantOptions opt;
  opt.imatrix = false;
  const TensorPlan p = plan_quantization(a, "Q4_K_M", opt);
  const double published = 86173184000.0;
  const double err = (static_cast<double>(p.weights_bytes) - published) / published;
  CAPTURE(p.weights_bytes, err);
  CHECK(std::fabs(err) < 0.01);  // issue 19's bar for a published file
  std::uint64_t output_q6k = 0, output_q8 = 0;
  for (const auto& t : p.tensors)
    if (t.name == "output.weight") {
      CHECK(t.type == GgmlType::Q6_K);
      output_q6k = t.bytes;
      output_q8 = ggml_row_bytes(GgmlType::Q8_0, static_cast<std::uint64_t>(t.ne[0])) * static_cast<std::uint64_t>(t.ne[1]);
    }
  CHECK(p.weights_bytes - output_q6k + output_q8 == 86173184000ull);
}

}  // namespace gguf_arch_test_cases
