// GGUF header writer: the inverse of read.cpp, used by tests and fuzzers to build files, and
// the metadata llama.cpp's converter (convert_hf_to_gguf.py, gguf-py GGUFWriter) writes for an
// Architecture. Layout as ggml/src/gguf.cpp reads it; offsets are running sums padded to the
// alignment, as llama-quantize writes them (src/llama-quant.cpp, llama_model_quantize_impl).
#include <algorithm>
#include <cstring>

#include "willitfit/gguf/gguf.hpp"

namespace wif {
namespace {

struct Out {
  std::vector<std::uint8_t> b;
  bool be = false;

  template <class T>
  void num(T v) {
    std::uint8_t x[sizeof(T)];
    std::memcpy(x, &v, sizeof(T));
    if (be) std::reverse(x, x + sizeof(T));
    b.insert(b.end(), x, x + sizeof(T));
  }
  void str(const std::string& s) {
    num<std::uint64_t>(s.size());
    b.insert(b.end(), s.begin(), s.end());
  }
  void value(GgufType t, const nlohmann::json& v, const std::string& key) {
    auto bad = [&] { throw InputError("bad_value", "gguf." + key, "value does not match its GGUF type"); };
    switch (t) {
      case GgufType::U8: num(v.get<std::uint8_t>()); break;
      case GgufType::I8: num(v.get<std::int8_t>()); break;
      case GgufType::U16: num(v.get<std::uint16_t>()); break;
      case GgufType::I16: num(v.get<std::int16_t>()); break;
      case GgufType::U32: num(v.get<std::uint32_t>()); break;
      case GgufType::I32: num(v.get<std::int32_t>()); break;
      case GgufType::F32: num(v.get<float>()); break;
      case GgufType::Bool: num<std::uint8_t>(v.get<bool>() ? 1 : 0); break;
      case GgufType::U64: num(v.get<std::uint64_t>()); break;
      case GgufType::I64: num(v.get<std::int64_t>()); break;
      case GgufType::F64: num(v.get<double>()); break;
      case GgufType::String:
        if (!v.is_string()) bad();
        str(v.get<std::string>());
        break;
      default: bad();
    }
  }
};

std::uint64_t pad(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

GgufKv gguf_kv(const std::string& key, GgufType t, nlohmann::json value) {
  GgufKv kv;
  kv.key = key;
  kv.type = t;
  kv.value = std::move(value);
  return kv;
}

GgufKv gguf_kv_array(const std::string& key, GgufType elem, nlohmann::json values) {
  GgufKv kv;
  kv.key = key;
  kv.type = GgufType::Array;
  kv.elem_type = elem;
  kv.count = values.size();
  kv.value = std::move(values);
  return kv;
}

std::vector<std::uint8_t> write_gguf_header(const std::vector<GgufKv>& kv, const std::vector<Tensor>& tensors,
                                            std::uint32_t version, bool big_endian) {
  Out o;
  o.be = big_endian;
  o.b.insert(o.b.end(), {'G', 'G', 'U', 'F'});
  o.num<std::uint32_t>(version);
  o.num<std::int64_t>(static_cast<std::int64_t>(tensors.size()));
  o.num<std::int64_t>(static_cast<std::int64_t>(kv.size()));
  std::uint64_t alignment = 32;
  for (const auto& k : kv) {
    o.str(k.key);
    o.num<std::uint32_t>(static_cast<std::uint32_t>(k.type));
    if (k.key == "general.alignment") alignment = k.value.get<std::uint64_t>();
    if (k.type != GgufType::Array) {
      o.value(k.type, k.value, k.key);
      continue;
    }
    o.num<std::uint32_t>(static_cast<std::uint32_t>(k.elem_type));
    o.num<std::uint64_t>(k.value.size());
    for (const auto& e : k.value) o.value(k.elem_type, e, k.key);
  }
  std::uint64_t off = 0;
  for (const auto& t : tensors) {
    o.str(t.name);
    o.num<std::uint32_t>(static_cast<std::uint32_t>(t.n_dims));
    for (int d = 0; d < t.n_dims; ++d) o.num<std::int64_t>(t.ne[d]);
    o.num<std::uint32_t>(static_cast<std::uint32_t>(t.type));
    o.num<std::uint64_t>(off);
    const std::uint64_t rows = static_cast<std::uint64_t>(t.ne[1] * t.ne[2] * t.ne[3]);
    off += pad(ggml_row_bytes(t.type, static_cast<std::uint64_t>(t.ne[0])) * rows, alignment);
  }
  o.b.resize(pad(o.b.size(), alignment), 0);
  return std::move(o.b);
}

std::vector<Tensor> gguf_split_experts(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) {
    const std::size_t at = t.name.find("_exps.");
    if (!t.is_expert() || t.n_dims != 3 || at == std::string::npos) {
      out.push_back(t);
      continue;
    }
    const std::string head = t.name.substr(0, at), tail = t.name.substr(at + 5);   // "blk.N.ffn_up", ".weight"
    for (std::int64_t e = 0; e < t.ne[2]; ++e) {
      Tensor x = t;
      x.name = head + "." + std::to_string(e) + tail;
      x.ne = {t.ne[0], t.ne[1], 1, 1};
      x.n_dims = 2;
      x.bytes = ggml_row_bytes(t.type, static_cast<std::uint64_t>(t.ne[0])) * static_cast<std::uint64_t>(t.ne[1]);
      out.push_back(std::move(x));
    }
  }
  return out;
}

std::vector<GgufKv> gguf_metadata_for(const Architecture& a, const std::string& name, const std::string& file_type) {
  using nlohmann::json;
  const std::string p = a.gguf_arch + ".";
  std::vector<GgufKv> kv;
  auto u32 = [&](const std::string& k, std::int64_t v) { kv.push_back(gguf_kv(p + k, GgufType::U32, v)); };
  kv.push_back(gguf_kv("general.architecture", GgufType::String, a.gguf_arch));
  kv.push_back(gguf_kv("general.name", GgufType::String, name));
  for (int id = 0; id < 64; ++id)
    if (!file_type.empty() && gguf_file_type_name(id) == file_type)
      kv.push_back(gguf_kv("general.file_type", GgufType::U32, id));
  kv.push_back(gguf_kv("general.quantization_version", GgufType::U32, 2));

  const std::int64_t n_layer = a.n_layer_all();
  u32("block_count", n_layer);
  if (a.n_ctx_train > 0) u32("context_length", a.n_ctx_train);
  u32("embedding_length", a.n_embd);
  // A value per layer is written as one scalar when all layers agree (as the converter does).
  auto per_layer = [&](const std::string& k, auto get, bool keep_zeros) {
    std::vector<std::int64_t> v;
    for (const auto& L : a.layers) v.push_back(get(L));
    std::vector<std::int64_t> nz;
    for (auto x : v)
      if (x != 0) nz.push_back(x);
    if (nz.empty()) return;
    const bool uniform = std::all_of(v.begin(), v.end(), [&](std::int64_t x) { return x == v[0]; });
    const bool uniform_nz = std::all_of(nz.begin(), nz.end(), [&](std::int64_t x) { return x == nz[0]; });
    if (uniform || (!keep_zeros && uniform_nz)) {
      u32(k, nz[0]);
    } else {
      kv.push_back(gguf_kv_array(p + k, GgufType::U32, json(v)));
    }
  };
  // Dense width: MoE layers carry none, so the scalar is the dense layers' width. Nemotron-H keeps
  // the per-layer list with its zeros (llama.cpp tells Mamba blocks by n_ff == 0 with no KV heads) and
  // gives MoE blocks the expert width (convert_hf_to_gguf.py, NemotronHModel.set_gguf_parameters).
  const bool nemotron_h = a.gguf_arch.rfind("nemotron_h", 0) == 0;
  per_layer("feed_forward_length", [&](const LayerSpec& L) {
    return nemotron_h && L.ffn == FfnKind::MoE ? a.moe.n_ff_exp : L.n_ff;
  }, nemotron_h);
  per_layer("attention.head_count", [](const LayerSpec& L) { return L.n_head; }, false);
  const bool delta_net = a.recurrent.kind == "gated_delta_net";
  const LayerSpec* att = nullptr;
  for (const auto& L : a.layers)
    if (!att && (L.attn == AttnKind::Full || L.attn == AttnKind::MLA)) att = &L;
  if (!att)
    for (const auto& L : a.layers)
      if (!att && L.n_head > 0) att = &L;
  if (a.is_mla()) {
    // Kimi Linear marks its KDA (recurrent) layers with 0 KV heads among the MLA ones.
    if (std::any_of(a.layers.begin(), a.layers.end(), [](const LayerSpec& L) { return L.attn == AttnKind::Linear; }))
      per_layer("attention.head_count_kv", [](const LayerSpec& L) { return L.attn == AttnKind::MLA ? std::int64_t{1} : 0; }, true);
    else
      u32("attention.head_count_kv", 1);
    u32("attention.key_length", a.mla.kv_lora_rank + a.mla.qk_rope_dim);
    u32("attention.value_length", a.mla.kv_lora_rank);
    u32("attention.key_length_mla", a.mla.qk_nope_dim + a.mla.qk_rope_dim);
    u32("attention.value_length_mla", a.mla.v_head_dim);
    u32("attention.kv_lora_rank", a.mla.kv_lora_rank);
    if (a.mla.q_lora_rank > 0) u32("attention.q_lora_rank", a.mla.q_lora_rank);
    u32("rope.dimension_count", a.mla.qk_rope_dim);
  } else {
    // Hybrids mark recurrent layers with 0 KV heads, except Qwen3-Next (fixed 3:1 pattern).
    per_layer("attention.head_count_kv", [](const LayerSpec& L) { return L.n_head_kv; }, !delta_net);
    if (att) {
      u32("attention.key_length", att->head_dim_k);
      u32("attention.value_length", att->head_dim_v);
      // Gemma 4: sliding layers have their own head width (*_swa keys).
      for (const auto& L : a.layers)
        if (L.attn == AttnKind::Sliding && (L.head_dim_k != att->head_dim_k || L.head_dim_v != att->head_dim_v)) {
          u32("attention.key_length_swa", L.head_dim_k);
          u32("attention.value_length_swa", L.head_dim_v);
          break;
        }
    }
  }
  // Gemma 4 and Step 3.5 files say which layers slide with one bool per layer (convert_hf_to_gguf.py
  // for Gemma 4; llama.cpp's step35 load_arch_hparams reads the same key with get_key_or_arr).
  if (a.gguf_arch == "gemma4" || a.gguf_arch == "step35") {
    json pattern = json::array();
    for (const auto& L : a.layers) pattern.push_back(L.attn == AttnKind::Sliding);
    kv.push_back(gguf_kv_array(p + "attention.sliding_window_pattern", GgufType::Bool, std::move(pattern)));
  }
  for (const auto& L : a.layers)
    if ((L.attn == AttnKind::Sliding || L.attn == AttnKind::Compressed) && L.window > 0) {
      u32("attention.sliding_window", L.window);
      break;
    }
  if (a.gguf_arch == "deepseek4") {
    // DeepSeek V4 (llama-arch.cpp LLM_KV_ATTENTION_COMPRESS_RATIOS, LLM_KV_HYPER_CONNECTION_COUNT,
    // LLM_KV_HASH_LAYER_COUNT …; read by llama_model_deepseek4::load_arch_hparams).
    json ratios = json::array();
    for (const auto& L : a.layers) ratios.push_back(L.compress_ratio);
    kv.push_back(gguf_kv_array(p + "attention.compress_ratios", GgufType::U32, std::move(ratios)));
    u32("attention.q_lora_rank", a.dsv4.q_lora_rank);
    u32("attention.output_group_count", a.dsv4.o_groups);
    u32("attention.output_lora_rank", a.dsv4.o_lora_rank);
    u32("attention.indexer.head_count", a.indexer_heads);
    u32("attention.indexer.key_length", a.indexer_head_dim);
    u32("attention.indexer.top_k", a.dsv4.index_topk);
    u32("hyper_connection.count", a.dsv4.hc_mult);
    u32("hash_layer_count", a.dsv4.hash_layers);
  }
  if (a.gguf_arch == "deepseek32" || a.gguf_arch == "glm-dsa") {
    // DeepSeek V3.2's and GLM-5's lightning indexer (llama_model_deepseek32 and llama_model_glm_dsa
    // load_arch_hparams require all three: src/models/deepseek32.cpp, src/models/glm-dsa.cpp).
    u32("attention.indexer.head_count", a.indexer_heads);
    u32("attention.indexer.key_length", a.indexer_head_dim);
    u32("attention.indexer.top_k", a.indexer_top_k);
  }
  if (a.gguf_arch == "glm-dsa") {
    // GLM-5.2's full / shared indexer layers, one bool per main layer (llama-arch.cpp
    // LLM_KV_ATTENTION_INDEXER_TYPES; the converter writes indexer_types as t == "full"). Without the
    // key llama.cpp takes every layer as full below a 1,048,576-token training context and GLM-5.2's
    // pattern above it, so it is written whenever that default would not give these layers.
    const bool shared = std::any_of(a.layers.begin(), a.layers.end(), [](const LayerSpec& L) { return L.indexer_shared; });
    if (shared || a.n_ctx_train >= 1048576) {
      json types = json::array();
      for (const auto& L : a.layers)
        if (!L.is_mtp) types.push_back(!L.indexer_shared);
      kv.push_back(gguf_kv_array(p + "attention.indexer.types", GgufType::Bool, std::move(types)));
    }
  }
  if (a.is_moe()) {
    u32("expert_count", a.moe.n_expert);
    u32("expert_used_count", a.moe.n_expert_used);
    u32("expert_feed_forward_length", a.moe.n_ff_exp);
    // llama-arch.cpp LLM_KV_MOE_LATENT_SIZE; Kimi K3's loader reads LLM_KV_EXPERT_LATENT_LENGTH.
    if (a.moe.n_latent > 0) u32(a.gguf_arch == "kimi-k3" ? "expert_latent_length" : "moe_latent_size", a.moe.n_latent);
    if (a.moe.n_shared > 0) {
      u32("expert_shared_count", a.moe.n_shared);
      u32("expert_shared_feed_forward_length", a.moe.n_ff_shexp);
    }
    std::int64_t lead = 0;
    while (lead < n_layer && a.layers[lead].ffn == FfnKind::Dense) ++lead;
    if (lead > 0) u32("leading_dense_block_count", lead);
  }
  if (a.n_embd_per_layer > 0) {
    // Gemma 3n (convert_hf_to_gguf.py Gemma3NModel; llama-arch.cpp key names).
    u32("embedding_length_per_layer_input", a.n_embd_per_layer);
    u32("altup.num_inputs", a.n_altup);
    u32("altup.active_idx", 0);
    std::int64_t shared = 0;
    for (const auto& L : a.layers)
      if (!L.has_kv && L.attn != AttnKind::Linear && L.attn != AttnKind::None && !L.is_mtp) ++shared;
    u32("attention.shared_kv_layers", shared);
  }
  const std::int64_t n_mtp = n_layer - a.n_layer_main();
  if (n_mtp > 0) u32("nextn_predict_layers", n_mtp);
  const auto& r = a.recurrent;
  if (delta_net) {
    u32("ssm.conv_kernel", r.d_conv);
    u32("ssm.state_size", r.d_state);
    u32("ssm.group_count", r.n_group);
    u32("ssm.time_step_rank", r.n_v_heads);
    u32("ssm.inner_size", r.d_inner);
  } else if (r.kind == "mamba2" || r.kind == "mamba") {
    u32("ssm.conv_kernel", r.d_conv);
    u32("ssm.state_size", r.d_state);
    u32("ssm.inner_size", r.d_inner);
    if (r.n_group > 0) u32("ssm.group_count", r.n_group);
    if (r.n_v_heads > 0) u32("ssm.time_step_rank", r.n_v_heads);
  } else if (r.kind == "shortconv") {
    u32("shortconv.l_cache", r.l_cache);
  } else if (r.kind == "kda") {
    u32("ssm.conv_kernel", r.d_conv);
    u32("kda.head_dim", r.k_head_dim);
  }
  // Kimi K3 (llama_model_kimi_k3::load_arch_hparams, LLM_KV_ATTN_RES_BLOCK_SIZE).
  if (a.attn_res_block > 0) u32("attn_res.block_size", a.attn_res_block);
  kv.push_back(gguf_kv("tokenizer.ggml.model", GgufType::String, "gpt2"));
  json tokens = json::array();
  for (std::int64_t i = 0; i < a.n_vocab; ++i) tokens.push_back("t" + std::to_string(i));
  kv.push_back(gguf_kv_array("tokenizer.ggml.tokens", GgufType::String, std::move(tokens)));
  return kv;
}

}  // namespace wif
