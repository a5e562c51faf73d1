// llama-quantize's per-tensor type choice, restated from llama.cpp src/llama-quant.cpp
// (llama_tensor_get_type at commit ec98e2002, December 2025; and llama_tensor_get_type_impl /
// tensor_type_fallback after the 2026 refactor, ggml-org/llama.cpp PR #19770).
#include "willitfit/model/quantize.hpp"

#include <algorithm>

#include "willitfit/base/error.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/model/mlx_quant.hpp"

namespace wif {
namespace {

using G = GgmlType;

struct FtypeRow {
  const char* id;
  G def;
};

// llama_ftype_get_default_type (llama.cpp src/llama-quant.cpp).
constexpr FtypeRow kFtypes[] = {
    {"F32", G::F32},       {"F16", G::F16},        {"BF16", G::BF16},     {"Q8_0", G::Q8_0},
    {"Q6_K", G::Q6_K},     {"Q5_K_M", G::Q5_K},    {"Q5_K_S", G::Q5_K},   {"Q5_1", G::Q5_1},
    {"Q5_0", G::Q5_0},     {"Q4_K_M", G::Q4_K},    {"Q4_K_S", G::Q4_K},   {"Q4_1", G::Q4_1},
    {"Q4_0", G::Q4_0},     {"IQ4_XS", G::IQ4_XS},  {"IQ4_NL", G::IQ4_NL}, {"MXFP4_MOE", G::MXFP4},
    {"Q3_K_L", G::Q3_K},   {"Q3_K_M", G::Q3_K},    {"Q3_K_S", G::Q3_K},   {"IQ3_M", G::IQ3_S},
    {"IQ3_S", G::IQ3_S},   {"IQ3_XS", G::IQ3_S},   {"IQ3_XXS", G::IQ3_XXS}, {"Q2_K", G::Q2_K},
    {"Q2_K_S", G::Q2_K},   {"IQ2_M", G::IQ2_S},    {"IQ2_S", G::IQ2_XS},  {"IQ2_XS", G::IQ2_XS},
    {"IQ2_XXS", G::IQ2_XXS}, {"IQ1_M", G::IQ1_M},  {"IQ1_S", G::IQ1_S},   {"TQ2_0", G::TQ2_0},
    {"TQ1_0", G::TQ1_0},
};

// Non-GGUF formats: effective bits per weight for the quantized linear layers, and whether the
// embedding / output tables are quantized too. Derivations:
//  FP8 e4m3: 1 byte + one fp32 scale per 128x128 block (DeepSeek/Qwen FP8 checkpoints).
//  AWQ/GPTQ 4-bit, group 128: 4 bits + fp16 scale + 4-bit zero per group = 4.156 bits.
//  GPTQ 8-bit group 128: 8 + (16 + 8)/128.  bitsandbytes NF4 with double quantization:
//  4 bits + 8-bit absmax per 64 + fp32 per 256 absmax = 4.127 bits. bnb INT8: 8 bits + fp32 row scale.
//  MLX checkpoints (affine 2-8 bits and groups, mxfp4 / nvfp4 / mxfp8, BF16): model/mlx_quant.hpp.
//  NVFP4: 4 bits + one FP8 scale per 16 values = 4.5 bits.
//  Checkpoints published with MXFP4 routed experts (4-bit E2M1 values + one E8M0 scale byte per 32
//  = 4.25 bits): FP8-MXFP4-MOE, DeepSeek V4's (the other linear layers FP8 with one E8M0 scale
//  byte per 128 x 128 block: vllm/model_executor/models/deepseek_v4.py, DeepseekV4FP8Config with
//  expert_dtype fp4 -> Mxfp4MoEMethod, is_scale_e8m0); BF16-MXFP4-MOE, gpt-oss's and Kimi K3's
//  (the rest in BF16; K3's config: compressed-tensors mxfp4-pack-quantized).
struct OtherFormat {
  const char* id;
  const char* container;
  double linear_bits;
  double embed_bits;
  double expert_bits = 0;  // routed experts, when they differ from the other linear layers
};
constexpr OtherFormat kOther[] = {
    {"SAFETENSORS-BF16", "safetensors", 16.0, 16.0},
    {"SAFETENSORS-FP16", "safetensors", 16.0, 16.0},
    {"FP8", "safetensors", 8.0 + 32.0 / (128.0 * 128.0), 16.0},
    {"AWQ-4bit", "safetensors", 4.0 + 20.0 / 128.0, 16.0},
    {"GPTQ-4bit", "safetensors", 4.0 + 20.0 / 128.0, 16.0},
    {"GPTQ-8bit", "safetensors", 8.0 + 24.0 / 128.0, 16.0},
    {"BNB-NF4", "safetensors", 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0), 16.0},
    {"BNB-INT8", "safetensors", 8.0, 16.0},
    {"NVFP4", "safetensors", 4.5, 16.0},
    {"FP8-MXFP4-MOE", "safetensors", 8.0 + 8.0 / (128.0 * 128.0), 16.0, 4.25},
    {"BF16-MXFP4-MOE", "safetensors", 16.0, 16.0, 4.25},
};

bool is_one_of(const std::string& s, std::initializer_list<const char*> l) {
  for (const char* x : l)
    if (s == x) return true;
  return false;
}

bool use_more_bits(std::int64_t i, std::int64_t n) {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

using text::ends_with;
using text::has;

struct State {
  const Architecture& arch;
  const std::string& ft;
  const QuantOptions& opt;
  G def;
  std::int64_t n_layer;      // block_count (MTP layers included)
  std::int64_t n_gqa;
  std::int64_t n_expert;
  bool moe8;
  bool is_70b;
  std::int64_t n_attention_wv = 0, i_attention_wv = 0, i_ffn_down = 0;
};

// The output tensor (and a tied token embedding): the first branch of llama_tensor_get_type.
G output_type(const State& s, const Tensor& t) {
  const auto bs = ggml_info(s.def).block_size;
  if (s.ft == "MXFP4_MOE") return G::Q8_0;
  if (t.ne[0] % bs != 0) return G::Q8_0;
  if (is_one_of(s.ft, {"IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"})) return G::Q5_K;
  if (s.def != G::Q8_0) return G::Q6_K;
  return s.def;
}

G choose(State& s, const Tensor& t) {
  const std::string& name = t.name;
  const std::string& ft = s.ft;
  G nt = s.def;
  const bool is_output = t.role == TensorRole::Output ||
                         (is_main_token_table(t) && s.arch.tied_embeddings);
  if (is_output) return output_type(s, t);
  if (ft == "MXFP4_MOE") return t.n_dims >= 3 && t.ne[2] > 1 ? G::MXFP4 : G::Q8_0;
  if (t.role == TensorRole::TokenEmbd) {
    if (is_one_of(ft, {"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"})) return G::Q2_K;
    if (is_one_of(ft, {"IQ2_S", "IQ2_M", "IQ3_XXS"})) return G::IQ3_S;
    if (is_one_of(ft, {"TQ1_0", "TQ2_0"})) return G::Q4_K;
    return nt;
  }
  const bool y2026 = s.opt.rules == QuantRules::Y2026;
  const bool attn_v_like = has(name, "attn_v.weight") ||
                           (y2026 && (has(name, "attn_qkv.weight") || has(name, "attn_kv_b.weight")));
  const bool low = is_one_of(ft, {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M"});
  if (low) {  // llama_tensor_get_type: one branch for the six lowest-bit types
    if (attn_v_like) {
      nt = (s.n_gqa >= 4 || s.n_expert >= 4) ? G::Q4_K
           : is_one_of(ft, {"IQ2_S", "IQ2_M"}) ? G::IQ3_S : G::Q2_K;
      ++s.i_attention_wv;
    } else if (has(name, "attn_k.weight") && s.moe8) {
      nt = G::Q4_K;
    } else if (has(name, "ffn_down")) {
      if (s.i_ffn_down < s.n_layer / 8) nt = is_one_of(ft, {"IQ2_S", "IQ2_M"}) ? G::IQ3_S : G::Q2_K;
      ++s.i_ffn_down;
    } else if (has(name, "attn_output.weight")) {
      if (s.moe8) nt = G::Q5_K;
      else if (is_one_of(ft, {"IQ1_S", "IQ1_M"})) nt = G::IQ2_XXS;
      else if (is_one_of(ft, {"IQ2_S", "IQ2_M"})) nt = G::IQ3_S;
    }
    return nt;
  }
  if (attn_v_like) {  // llama_tensor_get_type: the attn_v branch
    const std::int64_t i = s.i_attention_wv, n = s.n_attention_wv;
    if (ft == "Q2_K") nt = s.n_gqa >= 4 ? G::Q4_K : G::Q3_K;
    else if (ft == "Q2_K_S" && s.n_gqa >= 4) nt = G::Q4_K;
    else if (ft == "IQ3_XXS") nt = s.n_gqa >= 4 ? G::Q4_K : (s.opt.imatrix ? G::IQ3_XXS : G::IQ3_S);
    else if ((ft == "IQ3_XS" || ft == "IQ3_S") && s.n_gqa >= 4) nt = G::Q4_K;
    else if (ft == "IQ3_M") nt = G::Q4_K;
    else if (ft == "Q3_K_M") nt = i < 2 ? G::Q5_K : G::Q4_K;
    else if (ft == "Q3_K_L") nt = G::Q5_K;
    else if ((ft == "IQ4_NL" || ft == "IQ4_XS") && s.n_gqa >= 4) nt = G::Q5_K;
    else if ((ft == "Q4_K_M" || ft == "Q5_K_M") && use_more_bits(i, n)) nt = G::Q6_K;
    else if (ft == "Q4_K_S" && i < 4) nt = G::Q5_K;
    if (s.is_70b && (nt == G::Q3_K || nt == G::Q4_K)) nt = G::Q5_K;
    if (s.moe8) nt = G::Q8_0;
    ++s.i_attention_wv;
    return nt;
  }
  if (has(name, "attn_k.weight")) {  // llama_tensor_get_type: attn_k
    if (s.moe8) nt = G::Q8_0;
    else if (ft == "IQ3_XS") nt = G::IQ3_XXS;
    else if (ft == "IQ3_XXS") nt = G::IQ2_S;
    return nt;
  }
  if (has(name, "attn_q.weight")) {  // llama_tensor_get_type: attn_q
    if (ft == "IQ3_XS") nt = G::IQ3_XXS;
    else if (ft == "IQ3_XXS") nt = G::IQ2_S;
    return nt;
  }
  if (has(name, "ffn_down")) {  // llama_tensor_get_type: ffn_down
    const std::int64_t i = s.n_expert > 1 ? t.layer : s.i_ffn_down, n = s.n_layer;
    if (ft == "Q2_K") nt = G::Q3_K;
    else if (ft == "Q2_K_S") { if (i < n / 8) nt = G::Q4_K; }
    else if (ft == "IQ3_XXS" && !s.opt.imatrix) nt = i < n / 8 ? G::Q4_K : G::Q3_K;
    else if (ft == "Q3_K_M") nt = i < n / 16 ? G::Q5_K : G::Q4_K;
    else if (ft == "IQ3_M") { if (i < n / 8 || (s.moe8 && use_more_bits(i, n))) nt = G::Q4_K; }
    else if (ft == "Q3_K_L") nt = G::Q5_K;
    else if (ft == "Q4_K_M") { if (use_more_bits(i, n)) nt = G::Q6_K; }
    else if ((ft == "IQ4_NL" || ft == "IQ4_XS") && !s.opt.imatrix) { if (i < n / 8) nt = G::Q5_K; }
    else if (ft == "Q5_K_M") { if (use_more_bits(i, n)) nt = G::Q6_K; }
    else if (ft == "Q4_K_S") { if (i < n / 8) nt = G::Q5_K; }
    else if ((ft == "Q4_0" || ft == "Q5_0") && s.opt.imatrix) {
      if (i < n / 8) nt = ft == "Q4_0" ? G::Q4_1 : G::Q5_1;
    }
    ++s.i_ffn_down;
    return nt;
  }
  if (has(name, "attn_output.weight")) {  // llama_tensor_get_type: attn_output
    if (s.moe8) {
      if (is_one_of(ft, {"Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S",
                         "Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS"}))
        nt = G::Q5_K;
    } else {
      if (ft == "Q2_K") nt = G::Q3_K;
      else if (ft == "IQ3_XXS") nt = G::IQ3_S;
      else if (ft == "Q3_K_M") nt = G::Q4_K;
      else if (ft == "Q3_K_L") nt = G::Q5_K;
      else if (ft == "IQ3_M") nt = G::Q4_K;
    }
    return nt;
  }
  if (!y2026 && has(name, "attn_qkv.weight")) {  // the fused-QKV branch (unreachable after PR #19770)
    if (is_one_of(ft, {"Q3_K_M", "Q3_K_L", "IQ3_M"})) nt = G::Q4_K;
    else if (ft == "Q4_K_M") nt = G::Q5_K;
    else if (ft == "Q5_K_M") nt = G::Q6_K;
    return nt;
  }
  if (has(name, "ffn_gate") || has(name, "ffn_up")) {  // llama_tensor_get_type: ffn_gate / ffn_up
    const std::int64_t i = t.layer, n = s.n_layer;
    if (ft == "IQ3_XS" && i >= n / 8 && i < 7 * n / 8) nt = G::IQ3_XXS;
  }
  return nt;
}

// Rows whose length is not a multiple of the block size: the fallback inside
// llama_tensor_get_type (Dec 2025), tensor_type_fallback after PR #19770.
G fallback(G t, std::int64_t ne0, bool y2026) {
  const int bs = ggml_info(t).block_size;
  if (ne0 % bs == 0) return t;
  G f;
  switch (t) {
    case G::IQ2_XXS: case G::IQ2_XS: case G::IQ2_S: case G::IQ3_XXS: case G::IQ3_S:
    case G::IQ1_S: case G::IQ1_M: case G::IQ4_XS: f = G::IQ4_NL; break;
    case G::Q2_K: case G::Q3_K: f = y2026 ? G::Q4_0 : G::IQ4_NL; break;
    case G::TQ1_0: case G::TQ2_0: f = G::Q4_0; break;
    case G::Q4_K: f = G::Q5_0; break;
    case G::Q5_K: f = G::Q5_1; break;
    case G::Q6_K: f = G::Q8_0; break;
    default: f = G::F16; break;
  }
  if (ne0 % ggml_info(f).block_size != 0) f = G::F16;
  return f;
}

std::uint64_t tensor_bytes(G type, const Tensor& t) {
  return ggml_row_bytes(type, static_cast<std::uint64_t>(t.ne[0])) *
         static_cast<std::uint64_t>(t.ne[1] * t.ne[2] * t.ne[3]);
}

std::uint64_t pad(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

// GGUF header: fixed keys, tensor infos and the tokenizer arrays. The tokenizer dominates; about
// 60 bytes per vocabulary entry (token string, type, and BPE merges) matches Llama 3 and Qwen files.
std::uint64_t estimate_header(const Architecture& a, const std::vector<Tensor>& ts) {
  std::uint64_t h = 24 + 4096;  // magic, version, counts, general.* and hyperparameter keys
  for (const auto& t : ts) h += 8 + t.name.size() + 4 + 8 * static_cast<std::uint64_t>(t.n_dims) + 4 + 8;
  h += static_cast<std::uint64_t>(a.n_vocab) * 60;
  return h;
}

}  // namespace

const std::vector<QuantFormat>& quant_formats() {
  static const std::vector<QuantFormat> v = [] {
    std::vector<QuantFormat> out;
    for (const auto& r : kFtypes) out.push_back({r.id, "gguf", true});
    for (const auto& r : kOther) out.push_back({r.id, r.container, false});
    for (const auto& f : mlx_formats()) out.push_back({f.id, "mlx", false});
    return out;
  }();
  return v;
}

std::optional<QuantFormat> find_quant(const std::string& id) {
  for (const auto& q : quant_formats()) {
    if (text::iequals(q.id, id)) return q;
  }
  if (text::iequals(id, "MXFP4")) return find_quant("MXFP4_MOE");
  return std::nullopt;
}

namespace {
bool server(const std::string& engine) { return engine == "vllm" || engine == "sglang"; }
}  // namespace

std::optional<QuantFormat> resolve_format(const std::string& text, const std::string& engine) {
  const std::string u = text::upper(text);
  struct Alias { const char* from; const char* to; };
  if (engine == "mlx") {
    // mlx_lm.convert's words for its formats: -q --q-bits N (affine), --q-mode mxfp4/nvfp4/mxfp8,
    // --dtype bfloat16/float16 (mlx_lm/convert.py).
    static const Alias mlx[] = {{"BF16", "MLX-BF16"}, {"BFLOAT16", "MLX-BF16"}, {"FP16", "MLX-FP16"}, {"F16", "MLX-FP16"},
                                {"FLOAT16", "MLX-FP16"}, {"MXFP4", "MLX-MXFP4"}, {"NVFP4", "MLX-NVFP4"}, {"MXFP8", "MLX-MXFP8"},
                                {"8BIT", "MLX-8bit"}, {"6BIT", "MLX-6bit"}, {"5BIT", "MLX-5bit"}, {"4BIT", "MLX-4bit"},
                                {"3BIT", "MLX-3bit"}, {"2BIT", "MLX-2bit"}};
    for (const auto& a : mlx)
      if (u == a.from) return find_quant(a.to);
  }
  // Server aliases come first so that "BF16" on vLLM is the checkpoint, not the GGUF type.
  static const Alias servers[] = {{"BF16", "SAFETENSORS-BF16"}, {"FP16", "SAFETENSORS-FP16"},
                                  {"F16", "SAFETENSORS-FP16"}, {"SAFETENSORS", "SAFETENSORS-BF16"},
                                  {"AWQ", "AWQ-4bit"}, {"AWQ-INT4", "AWQ-4bit"}, {"GPTQ", "GPTQ-4bit"},
                                  {"GPTQ-INT4", "GPTQ-4bit"}, {"GPTQ-INT8", "GPTQ-8bit"}, {"NF4", "BNB-NF4"},
                                  {"BNB-4BIT", "BNB-NF4"}, {"BNB-8BIT", "BNB-INT8"}, {"FP4", "NVFP4"},
                                  {"MXFP4", "BF16-MXFP4-MOE"}};
  static const Alias llama[] = {{"FP16", "F16"}, {"FP32", "F32"}, {"Q4_K", "Q4_K_M"},
                                {"Q5_K", "Q5_K_M"}, {"Q3_K", "Q3_K_M"}};
  if (server(engine))
    for (const auto& a : servers)
      if (u == a.from) return find_quant(a.to);
  if (auto q = find_quant(text)) return q;
  for (const auto& a : llama)
    if (u == a.from) return find_quant(a.to);
  if (!server(engine))
    for (const auto& a : servers)
      if (u == a.from) return find_quant(a.to);
  return std::nullopt;
}

double checkpoint_linear_bits(const std::string& quant, int bits, int group_size, bool zero_point,
                              const std::string& path) {
  auto bad = [&](const std::string& why) { throw InputError("bad_value", path, quant + ": " + why); };
  const bool integer = quant == "AWQ-4bit" || quant == "GPTQ-4bit" || quant == "GPTQ-8bit";
  const int want = quant == "GPTQ-8bit" || quant == "FP8" ? 8 : 4;
  if (!integer && quant != "FP8" && quant != "NVFP4") bad("not a format published as a quantized checkpoint (FP8, AWQ-4bit, GPTQ-4bit, GPTQ-8bit, NVFP4)");
  if (bits != want) bad("bits must be " + std::to_string(want));
  if (integer) {
    if (group_size != 32 && group_size != 64 && group_size != 128) bad("group_size must be 32, 64 or 128");
    return bits + (16.0 + (zero_point ? bits : 0)) / group_size;
  }
  if (zero_point) bad("a float format has no zero points");
  if (quant == "NVFP4") {
    if (group_size != 16) bad("NVFP4 scales groups of 16 values");
    return 4.0 + 8.0 / 16.0;
  }
  if (group_size != 0 && group_size != 128) bad("FP8 scales a tensor, a row (group_size 0) or a 128 x 128 block");
  return group_size == 0 ? 8.0 : 8.0 + 32.0 / (128.0 * 128.0);
}

bool engine_accepts(const std::string& engine, const QuantFormat& q) {
  if (engine == "mlx") return q.container == "mlx";  // mlx-lm loads MLX checkpoints
  return !server(engine) || q.container == "safetensors";
}

std::vector<std::string> engine_formats(const std::string& engine) {
  std::vector<std::string> out;
  for (const auto& q : quant_formats())
    if (engine_accepts(engine, q)) out.push_back(q.id);
  return out;
}

GgmlType gguf_default_type(const std::string& ftype) {
  for (const auto& r : kFtypes)
    if (ftype == r.id) return r.def;
  throw InputError("unknown_quant", "quant", "unknown GGUF file type '" + ftype + "'");
}

double TensorPlan::bits_per_weight() const {
  std::uint64_t n = 0;
  for (const auto& t : tensors) n += static_cast<std::uint64_t>(t.n_elements());
  return n ? 8.0 * static_cast<double>(weights_bytes) / static_cast<double>(n) : 0.0;
}

TensorSkeleton tensor_skeleton(const Architecture& arch) {
  TensorSkeleton sk;
  sk.tensors = enumerate_tensors(arch, arch.native_dtype == "fp16" ? G::F16 : G::BF16);
  for (const auto& t : sk.tensors)
    if (has(t.name, "attn_v.weight") || has(t.name, "attn_qkv.weight") || has(t.name, "attn_kv_b.weight"))
      ++sk.n_attention_wv;
  // llama.cpp iterates tensors sorted by layer, then by name (weight_name_comparer).
  sk.order.resize(sk.tensors.size());
  for (std::size_t i = 0; i < sk.order.size(); ++i) sk.order[i] = i;
  std::stable_sort(sk.order.begin(), sk.order.end(), [&](std::size_t x, std::size_t y) {
    const auto& a = sk.tensors[x];
    const auto& b = sk.tensors[y];
    if (a.layer != b.layer) return a.layer < b.layer;
    return a.name < b.name;
  });
  return sk;
}

namespace {

TensorPlan plan_with(const Architecture& arch, const QuantFormat& q, const QuantOptions& opt,
                     const TensorSkeleton* given) {
  TensorPlan plan;
  plan.quant = q.id;
  if (q.container == "mlx") {
    MlxTensors m = plan_mlx(arch, *find_mlx_format(q.id));
    plan.tensors = std::move(m.tensors);
    plan.weights_bytes = m.weights_bytes;
    plan.header_bytes = m.header_bytes;
    plan.file_bytes = m.weights_bytes + m.header_bytes;
    return plan;
  }
  std::optional<TensorSkeleton> own;
  if (!given) own = tensor_skeleton(arch);
  const TensorSkeleton& sk = given ? *given : *own;
  plan.tensors = sk.tensors;
  if (!q.gguf) {
    const OtherFormat* f = nullptr;
    for (const auto& r : kOther)
      if (q.id == r.id) f = &r;
    for (auto& t : plan.tensors) {
      const double n = static_cast<double>(t.n_elements());
      double bits = 32.0;
      if (t.quantizable) {
        const bool table = t.role == TensorRole::TokenEmbd || t.role == TensorRole::Output;
        const double linear = opt.linear_bits > 0 && f->expert_bits == 0 ? opt.linear_bits : f->linear_bits;
        bits = table ? f->embed_bits : f->expert_bits > 0 && t.is_expert() ? f->expert_bits : linear;
      } else if (t.type != G::F32) {
        bits = 16.0;
      } else {
        bits = 16.0;  // safetensors keep norms/biases in the checkpoint dtype
      }
      t.bytes = static_cast<std::uint64_t>(n * bits / 8.0 + 0.5);
      plan.weights_bytes += t.bytes;
    }
    plan.file_bytes = plan.weights_bytes;
    return plan;
  }
  State s{arch, plan.quant, opt, gguf_default_type(plan.quant), arch.n_layer_all(), 1,
          arch.moe.n_expert, arch.moe.n_expert == 8, false};
  const auto& l0 = arch.layers.front();
  s.n_gqa = l0.n_head_kv > 0 ? l0.n_head / l0.n_head_kv : 1;
  s.is_70b = arch.gguf_arch == "llama" && arch.n_layer_all() == 80 && l0.n_head != l0.n_head_kv;
  s.n_attention_wv = sk.n_attention_wv;
  const bool float_file = s.def == G::F32 || s.def == G::F16 || s.def == G::BF16;
  for (std::size_t idx : sk.order) {
    Tensor& t = plan.tensors[idx];
    if (!t.quantizable) {
      t.type = G::F32;
    } else if (float_file) {
      t.type = s.def;
    } else {
      t.type = fallback(choose(s, t), t.ne[0], opt.rules == QuantRules::Y2026);
    }
    t.bytes = tensor_bytes(t.type, t);
  }
  plan.header_bytes = estimate_header(arch, plan.tensors);
  plan.file_bytes = pad(plan.header_bytes, 32);
  for (const auto& t : plan.tensors) {
    plan.weights_bytes += t.bytes;
    plan.file_bytes += pad(t.bytes, 32);
  }
  return plan;
}

QuantFormat known_quant(const std::string& quant) {
  auto q = find_quant(quant);
  if (!q)
    throw InputError("unknown_quant", "quant",
                     "unknown quantization '" + quant + "'; see 'willitfit list quants'");
  return *q;
}

}  // namespace

TensorPlan plan_quantization(const Architecture& arch, const std::string& quant,
                             const QuantOptions& opt) {
  return plan_with(arch, known_quant(quant), opt, nullptr);
}

TensorPlan plan_quantization(const Architecture& arch, const std::string& quant, const QuantOptions& opt,
                             const TensorSkeleton& skeleton) {
  return plan_with(arch, known_quant(quant), opt, &skeleton);
}

}  // namespace wif
