// GGUF metadata -> Architecture. Key names from llama.cpp src/llama-arch.cpp (LLM_KV_NAMES),
// defaults and per-arch rules (sliding-window patterns included) from src/llama-model.cpp
// load_hparams.
// Facts the keys do not carry (biases, norms, MoE layers) are read from which tensors exist.
#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "willitfit/gguf/gguf.hpp"

namespace wif {
namespace {

constexpr std::int64_t kMaxDim = std::int64_t{1} << 40;

struct Meta {
  const GgufHeader& h;
  std::string arch;
  std::unordered_set<std::string_view> names;   // views of h.tensors[i].name, which outlive Meta

  std::string key(const std::string& k) const { return arch + "." + k; }

  [[noreturn]] void bad(const std::string& k, const std::string& msg) const {
    throw InputError("gguf_bad_value", "gguf." + k, "metadata '" + k + "' " + msg);
  }

  static bool is_int(const nlohmann::json& v) { return v.is_number_integer() || v.is_boolean(); }

  std::int64_t as_int(const nlohmann::json& v, const std::string& k) const {
    if (!is_int(v)) bad(k, "must be an integer");
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxDim))
      bad(k, "is implausibly large");
    const std::int64_t x = v.get<std::int64_t>();
    if (x < 0 || x > kMaxDim) bad(k, "is out of range");
    return x;
  }

  /// {arch}.<k> as a non-negative integer scalar.
  std::optional<std::int64_t> opt(const std::string& k) const {
    const GgufKv* kv = h.find(key(k));
    if (!kv) return std::nullopt;
    if (kv->type == GgufType::Array) bad(key(k), "must be a single value, not an array");
    return as_int(kv->value, key(k));
  }
  std::int64_t req(const std::string& k) const {
    auto v = opt(k);
    if (!v)
      throw InputError("gguf_missing_key", "gguf." + key(k),
                       "the GGUF has no '" + key(k) + "', which architecture '" + arch + "' needs");
    return *v;
  }
  /// A value that may be one scalar or one entry per layer.
  std::optional<std::vector<std::int64_t>> per_layer(const std::string& k, std::int64_t n_layer) const {
    const GgufKv* kv = h.find(key(k));
    if (!kv) return std::nullopt;
    if (kv->type != GgufType::Array)
      return std::vector<std::int64_t>(static_cast<std::size_t>(n_layer), as_int(kv->value, key(k)));
    if (kv->value.is_null() || static_cast<std::int64_t>(kv->count) != n_layer)
      bad(key(k), "has " + std::to_string(kv->count) + " entries for " + std::to_string(n_layer) + " layers");
    std::vector<std::int64_t> v;
    for (const auto& e : kv->value) v.push_back(as_int(e, key(k)));
    return v;
  }
  bool tensor(int il, const char* what) const {
    const std::string n = "blk." + std::to_string(il) + "." + what;
    return names.count(std::string_view(n)) > 0;
  }
};

// "blk.N.ffn_<x>.E.weight" with E > 0 (the older per-expert layout, llama-arch.cpp
// LLM_TENSOR_FFN_*_EXP "blk.%d.ffn_gate.%d").
bool later_expert(const std::string& n) {
  const auto f = n.find(".ffn_");
  if (f == std::string::npos) return false;
  const auto d = n.find('.', f + 5);
  if (d == std::string::npos || d + 2 >= n.size()) return false;
  std::size_t i = d + 1;
  while (i < n.size() && n[i] >= '0' && n[i] <= '9') ++i;
  return i > d + 1 && i < n.size() && n[i] == '.' && !(i == d + 2 && n[d + 1] == '0');
}

std::string model_type_for(const std::string& arch) {
  static const std::pair<const char*, const char*> k[] = {
      {"qwen3moe", "qwen3_moe"}, {"qwen2moe", "qwen2_moe"}, {"qwen3next", "qwen3_next"},
      {"glm4moe", "glm4_moe"},   {"deepseek2", "deepseek_v3"}, {"gpt-oss", "gpt_oss"},
      {"gemma3", "gemma3_text"}, {"command-r", "cohere"},    {"llama4", "llama4_text"},
      {"minimax-m2", "minimax_m2"}, {"qwen35", "qwen3_5_text"}, {"qwen35moe", "qwen3_5_moe_text"},
      {"gemma4", "gemma4_text"},  {"deepseek4", "deepseek_v4"},  {"kimi-linear", "kimi_linear"}, {"kimi-k3", "kimi_k3"}, {"hunyuan-moe", "hunyuan_v1_moe"},
      {"granitehybrid", "granitemoehybrid"}, {"gemma3n", "gemma3n_text"}, {"step35", "step3p5"},
      {"deepseek32", "deepseek_v32"}, {"glm-dsa", "glm_moe_dsa"},
  };
  for (const auto& p : k)
    if (arch == p.first) return p.second;
  return arch;
}

// Sliding-window pattern per arch (llama.cpp load_hparams, set_swa_pattern): period p, whether
// the dense layer comes first, and the window when the file has no key.
struct SwaRule {
  const char* arch;
  std::int64_t period;
  bool dense_first;
  std::int64_t default_window;
  bool chunked;
};
constexpr SwaRule kSwa[] = {
    {"gemma2", 2, false, 4096, false},  {"gemma3", 6, false, 0, false},   {"gemma3n", 5, false, 0, false},
    {"cohere2", 4, false, 0, false},    {"gpt-oss", 2, false, 0, false},  {"llama4", 4, false, 8192, true},
    {"olmo2", 4, false, 0, false},      {"olmo3", 4, false, 0, false},    {"afmoe", 4, false, 0, false},
    {"exaone4", 4, false, 4096, false}, {"smallthinker", 4, true, 4096, false},
};

}  // namespace

Architecture gguf_architecture(const GgufHeader& h) {
  Meta m{h, "", {}};
  const GgufKv* ak = h.find("general.architecture");
  if (!ak || !ak->value.is_string() || ak->value.get<std::string>().empty())
    throw InputError("gguf_missing_key", "gguf.general.architecture", "the GGUF does not name its architecture");
  m.arch = ak->value.get<std::string>();
  // Only names looked up below are kept: a file with one tensor per routed expert has tens of
  // thousands of "blk.N.ffn_*.E.weight", of which only expert 0 is ever asked for.
  m.names.reserve(std::min<std::size_t>(h.tensors.size(), 4096));
  for (const auto& t : h.tensors)
    if (!later_expert(t.name)) m.names.insert(std::string_view(t.name));
  const std::string& arch = m.arch;

  Architecture a;
  a.gguf_arch = arch;
  a.model_type = model_type_for(arch);
  const std::int64_t n_layer = m.req("block_count");
  if (n_layer < 1 || n_layer > 100000) m.bad(m.key("block_count"), "must be between 1 and 100000");
  a.n_embd = m.req("embedding_length");
  if (a.n_embd < 1) m.bad(m.key("embedding_length"), "must be positive");
  a.n_ctx_train = m.opt("context_length").value_or(0);
  if (auto v = m.opt("vocab_size")) {
    a.n_vocab = *v;
  } else if (const GgufKv* tok = h.find("tokenizer.ggml.tokens"); tok && tok->type == GgufType::Array) {
    a.n_vocab = static_cast<std::int64_t>(tok->count);
  } else {
    for (const auto& t : h.tensors)
      if (t.name == "token_embd.weight") a.n_vocab = t.ne[1];
  }
  a.tied_embeddings = h.tensors.empty() ? false : m.names.count("output.weight") == 0;
  a.native_dtype = "bf16";

  const auto n_head = m.per_layer("attention.head_count", n_layer).value_or(std::vector<std::int64_t>(n_layer, 0));
  const auto n_head_kv = m.per_layer("attention.head_count_kv", n_layer).value_or(n_head);
  const auto n_ff = m.per_layer("feed_forward_length", n_layer).value_or(std::vector<std::int64_t>(n_layer, 0));
  const std::int64_t head0 = *std::max_element(n_head.begin(), n_head.end());
  const bool has_ssm = h.find(m.key("ssm.state_size")) || h.find(m.key("shortconv.l_cache"));
  if (head0 == 0 && !has_ssm)
    throw InputError("gguf_missing_key", "gguf." + m.key("attention.head_count"),
                     "architecture '" + arch + "' gives no attention head count, so its KV cache cannot be sized");
  // llama.cpp: n_embd_head_k/v default to n_embd / n_head.
  const std::int64_t dflt_head = head0 > 0 ? a.n_embd / head0 : 0;
  const std::int64_t hd_k = m.opt("attention.key_length").value_or(dflt_head);
  const std::int64_t hd_v = m.opt("attention.value_length").value_or(dflt_head);
  const std::int64_t hd_k_swa = m.opt("attention.key_length_swa").value_or(hd_k);
  const std::int64_t hd_v_swa = m.opt("attention.value_length_swa").value_or(hd_v);

  // Tensor-shape facts, from the tensors present in layer 0 (or any layer).
  a.qkv_bias = m.tensor(0, "attn_q.bias");
  a.out_bias = m.tensor(0, "attn_output.bias");
  a.qk_norm = m.tensor(0, "attn_q_norm.weight") || m.tensor(n_layer - 1, "attn_q_norm.weight");
  a.attn_sinks = m.tensor(0, "attn_sinks.weight");
  a.post_norms = m.tensor(0, "post_attention_norm.weight");
  a.fused_qkv = arch == "phi3" || arch == "phi2";
  a.ffn_gated = arch.rfind("nemotron_h", 0) != 0;   // Nemotron-H MLPs and experts are up/down (squared ReLU)
  a.attn_out_gate = arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe";
  a.attn_head_gate = arch != "kimi-k3" && m.tensor(0, "attn_gate.weight");   // Step 3.5's per-head gate projection

  // MoE.
  a.moe.n_expert = m.opt("expert_count").value_or(0);
  if (a.moe.n_expert > 1) {
    a.moe.n_expert_used = m.opt("expert_used_count").value_or(0);
    if (a.moe.n_expert_used < 1 || a.moe.n_expert_used > a.moe.n_expert)
      m.bad(m.key("expert_used_count"), "must be between 1 and expert_count");
    // Mixtral-style files (arch llama) give the expert width as feed_forward_length.
    a.moe.n_ff_exp = m.opt("expert_feed_forward_length").value_or(n_ff[0]);
    a.moe.n_shared = m.opt("expert_shared_count").value_or(0);
    a.moe.n_latent = m.opt(arch == "kimi-k3" ? "expert_latent_length" : "moe_latent_size").value_or(0);
    a.moe.n_ff_shexp = m.opt("expert_shared_feed_forward_length").value_or(a.moe.n_shared ? a.moe.n_ff_exp : 0);
    if (a.moe.n_shared == 0 && a.moe.n_ff_shexp > 0) a.moe.n_shared = 1;   // Qwen2-MoE writes only the width
    for (int il = 0; il < n_layer && !a.moe.has_router_bias; ++il) a.moe.has_router_bias = m.tensor(il, "exp_probs_b.bias");
    for (int il = 0; il < n_layer && !a.moe.expert_bias; ++il) a.moe.expert_bias = m.tensor(il, "ffn_gate_exps.bias");
  } else {
    a.moe.n_expert = 0;
  }
  const std::int64_t leading_dense = m.opt("leading_dense_block_count").value_or(0);
  const std::int64_t moe_step = std::max<std::int64_t>(1, m.opt("interleave_moe_layer_step").value_or(1));
  const std::int64_t n_mtp = std::min(n_layer - 1, m.opt("nextn_predict_layers").value_or(0));
  // A file says by holding them whether its MTP block keeps its own embedding and head copies.
  for (std::int64_t il = n_layer - n_mtp; il < n_layer && il >= 0 && !a.mtp_embed_head_copies; ++il)
    a.mtp_embed_head_copies = m.tensor(static_cast<int>(il), "nextn.embed_tokens.weight");

  // MLA: the converter writes key/value_length for the cached latent and *_mla for the heads;
  // llama.cpp treats the model as MLA only when both *_mla keys are non-zero (src/llama-model.cpp).
  const std::int64_t k_mla = m.opt("attention.key_length_mla").value_or(0);
  const std::int64_t v_mla = m.opt("attention.value_length_mla").value_or(0);
  const std::int64_t kv_lora = m.opt("attention.kv_lora_rank").value_or(0);
  const bool mla = k_mla > 0 && v_mla > 0 && kv_lora > 0;
  if (mla) {
    a.mla.kv_lora_rank = kv_lora;
    a.mla.q_lora_rank = m.opt("attention.q_lora_rank").value_or(0);
    a.mla.qk_rope_dim = m.opt("rope.dimension_count").value_or(hd_k > kv_lora ? hd_k - kv_lora : 0);
    if (a.mla.qk_rope_dim <= 0 || a.mla.qk_rope_dim > k_mla)
      m.bad(m.key("rope.dimension_count"), "does not fit the MLA key length");
    a.mla.qk_nope_dim = k_mla - a.mla.qk_rope_dim;
    a.mla.v_head_dim = v_mla;
  }

  // Recurrent state (llama.cpp src/llama-hparams.cpp n_embd_r / n_embd_s).
  auto& r = a.recurrent;
  if (arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe") {
    // Converter: conv_kernel = linear_conv_kernel_dim, state_size = key head dim, group_count =
    // key heads, time_step_rank = value heads, inner_size = value heads x value head dim.
    r.kind = "gated_delta_net";
    r.d_conv = m.req("ssm.conv_kernel");
    r.d_state = m.req("ssm.state_size");
    r.n_group = m.req("ssm.group_count");
    r.n_v_heads = m.req("ssm.time_step_rank");
    r.d_inner = m.req("ssm.inner_size");
    if (r.n_v_heads < 1) m.bad(m.key("ssm.time_step_rank"), "must be positive");
    r.n_k_heads = r.n_group;
    r.k_head_dim = r.d_state;
    r.v_head_dim = r.d_inner / r.n_v_heads;
  } else if (auto kda = m.opt("kda.head_dim")) {
    // Kimi Linear: KDA layers (0 KV heads) keep q/k/v conv states and a head_dim^2 state per head.
    r.kind = "kda";
    r.d_conv = m.req("ssm.conv_kernel");
    r.k_head_dim = r.v_head_dim = r.d_state = *kda;
    r.n_v_heads = r.n_k_heads = head0;
    r.d_inner = head0 * *kda;
  } else if (auto lc = m.opt("shortconv.l_cache")) {
    r.kind = "shortconv";
    r.l_cache = *lc;
  } else if (h.find(m.key("ssm.state_size"))) {
    r.d_conv = m.opt("ssm.conv_kernel").value_or(4);
    r.d_inner = m.opt("ssm.inner_size").value_or(2 * a.n_embd);
    r.d_state = m.req("ssm.state_size");
    r.n_group = m.opt("ssm.group_count").value_or(0);
    r.n_v_heads = m.opt("ssm.time_step_rank").value_or(0);
    r.kind = r.n_group > 0 ? "mamba2" : "mamba";
  }

  // Gemma 3n: per-layer embeddings, AltUp streams and LAuReL rank (llama.cpp llama-hparams.h
  // defaults n_altup 4, laurel_rank 64, n_embd_altup 256 when the file has no key), and the
  // layers past n_layer_kv_from_start (20 for LLM_ARCH_GEMMA3N in src/llama-model.cpp load_hparams) reuse an earlier cache.
  std::int64_t kv_from_start = n_layer;
  if (arch == "gemma3n") {
    a.n_embd_per_layer = m.opt("embedding_length_per_layer_input").value_or(256);
    a.n_altup = m.opt("altup.num_inputs").value_or(4);
    if (a.n_altup < 2) m.bad(m.key("altup.num_inputs"), "must be at least 2");
    a.laurel_rank = 64;
    for (const auto& t : h.tensors)
      if (t.name == "blk.0.laurel_l.weight") a.laurel_rank = t.ne[1];
    if (auto shared = m.opt("attention.shared_kv_layers")) {
      if (*shared >= n_layer) m.bad(m.key("attention.shared_kv_layers"), "must leave at least one layer with a cache");
      kv_from_start = n_layer - *shared;
    } else {
      kv_from_start = std::min<std::int64_t>(n_layer, 20);
    }
  }

  // Sliding windows.
  const SwaRule* swa = nullptr;
  for (const auto& s : kSwa)
    if (arch == s.arch) swa = &s;
  std::int64_t window = m.opt("attention.sliding_window").value_or(swa ? swa->default_window : 0);
  std::vector<bool> swa_layer(static_cast<std::size_t>(n_layer), false);
  const GgufKv* pattern_kv = h.find(m.key("attention.sliding_window_pattern"));
  if (pattern_kv && pattern_kv->type == GgufType::Array && window > 0) {
    // Gemma 4 (llama.cpp get_key_or_arr): one flag per layer.
    const auto flags = m.per_layer("attention.sliding_window_pattern", n_layer);
    for (std::int64_t il = 0; il < n_layer; ++il) swa_layer[il] = (*flags)[static_cast<std::size_t>(il)] != 0;
  } else if (swa && window > 0) {
    std::int64_t p = swa->period;
    if (auto pk = m.opt("attention.sliding_window_pattern"); pk && *pk > 0) p = *pk;
    for (std::int64_t il = 0; il < n_layer; ++il)
      swa_layer[il] = swa->dense_first ? il % p != 0 : il % p < p - 1;
  }

  const std::int64_t full_interval = std::max<std::int64_t>(1, m.opt("full_attention_interval").value_or(4));
  const bool kv_array = h.find(m.key("attention.head_count_kv")) &&
                        h.find(m.key("attention.head_count_kv"))->type == GgufType::Array;
  for (std::int64_t il = 0; il < n_layer; ++il) {
    LayerSpec L;
    L.is_mtp = il >= n_layer - n_mtp;
    L.n_head = n_head[il];
    L.n_head_kv = n_head_kv[il];
    L.head_dim_k = swa_layer[il] ? hd_k_swa : hd_k;
    L.head_dim_v = swa_layer[il] ? hd_v_swa : hd_v;
    if (mla) {
      L.attn = AttnKind::MLA;
      L.head_dim_k = k_mla;
      L.head_dim_v = v_mla;
    } else if (swa_layer[il]) {
      L.attn = swa && swa->chunked ? AttnKind::Chunked : AttnKind::Sliding;
      L.window = window;
    }
    // A layer with attn_k and no attn_v reuses K as V (Gemma 4 global layers).
    L.has_kv = il < kv_from_start;
    L.v_from_k = !h.tensors.empty() && !a.fused_qkv && m.tensor(static_cast<int>(il), "attn_k.weight") &&
                 !m.tensor(static_cast<int>(il), "attn_v.weight");
    const bool linear = a.recurrent.kind == "gated_delta_net" && !kv_array ? (il + 1) % full_interval != 0
                                                                           : L.n_head_kv == 0 || L.n_head == 0;
    if (linear) {
      // Nemotron-H: blocks with neither attention nor an FFN width are the Mamba blocks;
      // those with an FFN and no heads are MLP-only (llama.cpp src/llama-model.cpp, LLM_ARCH_NEMOTRON_H).
      const bool mamba = !a.recurrent.kind.empty() && !(arch.rfind("nemotron_h", 0) == 0 && n_ff[il] > 0);
      L.attn = mamba ? AttnKind::Linear : AttnKind::None;
      L.n_head_kv = 0;
      L.has_kv = false;
      L.window = 0;
    }
    bool moe_layer = false;
    if (a.is_moe()) {
      moe_layer = h.tensors.empty() ? il >= leading_dense && (il + 1) % moe_step == 0
                                    : m.tensor(static_cast<int>(il), "ffn_gate_inp.weight") ||
                                          m.tensor(static_cast<int>(il), "ffn_up_exps.weight") ||
                                          m.tensor(static_cast<int>(il), "ffn_up.0.weight");   // one tensor per expert
    }
    if (moe_layer) {
      L.ffn = FfnKind::MoE;
      if (arch == "gemma4") L.n_ff = n_ff[il];   // Gemma 4 keeps a dense MLP beside the experts
    } else if (n_ff[il] > 0) {
      L.ffn = FfnKind::Dense;
      L.n_ff = n_ff[il];
    } else {
      L.ffn = FfnKind::None;
    }
    if ((L.attn == AttnKind::Full || L.attn == AttnKind::Sliding || L.attn == AttnKind::Chunked) &&
        (L.head_dim_k <= 0 || L.head_dim_v <= 0))
      m.bad(m.key("attention.key_length"), "gives no head size for layer " + std::to_string(il));
    a.layers.push_back(L);
  }
  if (arch == "deepseek32" || arch == "glm-dsa") {
    // DeepSeek V3.2 (llama.cpp src/models/deepseek32.cpp, load_arch_hparams) and GLM-5
    // (src/models/glm-dsa.cpp, llama_model_glm_dsa::load_arch_hparams): MLA plus the lightning
    // indexer, whose three keys both loaders require.
    if (!mla) m.bad(m.key("attention.kv_lora_rank"), "is needed: " + arch + " requires MLA");
    a.indexer_heads = m.req("attention.indexer.head_count");
    a.indexer_head_dim = m.req("attention.indexer.key_length");
    a.indexer_top_k = m.req("attention.indexer.top_k");
    if (a.indexer_heads < 1 || a.indexer_head_dim < 1)
      m.bad(m.key("attention.indexer.head_count"), "must be positive for " + arch);
  }
  if (arch == "glm-dsa") {
    // GLM-5: which indexer layers are "full" (keep indexer keys) or "shared" (reuse the previous
    // full layer's top-k): every layer below a 1,048,576-token training context (GLM-5, 5.1),
    // GLM_5_2_DEFAULT_INDEXER_TYPES above it (layers 0 and 1, then every fourth from 2),
    // attention.indexer.types over either when the file has it.
    const std::int64_t n_main = n_layer - n_mtp;
    std::vector<std::int64_t> full(static_cast<std::size_t>(n_main), 1);
    if (a.n_ctx_train >= 1048576)
      for (std::int64_t il = 2; il < n_main; ++il) full[static_cast<std::size_t>(il)] = (il - 2) % 4 == 0;
    if (auto t = m.per_layer("attention.indexer.types", n_main)) full = *t;
    if (n_main > 0 && full[0] == 0)
      m.bad(m.key("attention.indexer.types"), "makes layer 0 shared: a shared indexer reuses an earlier full layer's top-k");
    for (std::int64_t il = 0; il < n_main; ++il) a.layers[static_cast<std::size_t>(il)].indexer_shared = full[static_cast<std::size_t>(il)] == 0;
  }
  if (arch == "deepseek4") {
    // DeepSeek V4 (llama.cpp src/models/deepseek4.cpp load_arch_hparams): every layer slides over
    // attention.sliding_window tokens with one head_dim key, and compress_ratios (at least one per
    // block) adds the compressed caches; ratios other than 0, 4 and 128 are refused as upstream does.
    const GgufKv* cr = h.find(m.key("attention.compress_ratios"));
    if (!cr || cr->type != GgufType::Array || cr->value.is_null() || static_cast<std::int64_t>(cr->count) < n_layer)
      throw InputError("gguf_missing_key", "gguf." + m.key("attention.compress_ratios"),
                       "a deepseek4 GGUF needs attention.compress_ratios with one entry per block");
    auto& v4 = a.dsv4;
    v4.hc_mult = m.req("hyper_connection.count");
    v4.q_lora_rank = m.req("attention.q_lora_rank");
    v4.o_groups = m.req("attention.output_group_count");
    v4.o_lora_rank = m.req("attention.output_lora_rank");
    v4.hash_layers = m.opt("hash_layer_count").value_or(0);
    v4.index_topk = m.req("attention.indexer.top_k");
    a.indexer_heads = m.req("attention.indexer.head_count");
    a.indexer_head_dim = m.req("attention.indexer.key_length");
    if (v4.hc_mult < 1 || v4.o_groups < 1 || v4.q_lora_rank < 1) m.bad(m.key("hyper_connection.count"), "must be positive");
    if (window <= 0) m.bad(m.key("attention.sliding_window"), "must be positive for deepseek4");
    for (std::int64_t il = 0; il < n_layer; ++il) {
      LayerSpec& L = a.layers[static_cast<std::size_t>(il)];
      const std::int64_t r = m.as_int(cr->value[static_cast<std::size_t>(il)], m.key("attention.compress_ratios"));
      if (r != 0 && r != 4 && r != 128) m.bad(m.key("attention.compress_ratios"), "holds a ratio other than 0, 4 or 128");
      L.attn = AttnKind::Compressed;
      L.compress_ratio = r;
      L.window = window;
      L.has_kv = true;
    }
    a.moe.has_router_bias = a.is_moe();
  }
  if (arch == "kimi-k3") {
    // Kimi K3 (llama.cpp src/models/kimi-k3.cpp): the KDA output gate is always the full-rank
    // ssm_g and every MoE layer has its score bias; the MLA output gate and the latent norm are optional tensors, so a file says by
    // holding them (a header without tensors is read as the released model has them).
    a.recurrent.full_rank_gate = true;
    a.moe.has_router_bias = a.is_moe();   // exp_probs_b is a required tensor of every MoE layer
    a.attn_res_block = m.opt("attn_res.block_size").value_or(0);
    if (a.attn_res_block < 0 || a.attn_res_block > n_layer) m.bad(m.key("attn_res.block_size"), "must be between 0 and block_count");
    bool gate = h.tensors.empty(), latent_norm = h.tensors.empty();
    for (int il = 0; il < n_layer; ++il) {
      gate = gate || m.tensor(il, "attn_gate.weight");
      latent_norm = latent_norm || m.tensor(il, "ffn_routed_norm.weight");
    }
    a.mla_out_gate = gate && a.is_mla();
    a.moe.latent_norm = latent_norm && a.moe.n_latent > 0;
  }
  return a;
}

}  // namespace wif
