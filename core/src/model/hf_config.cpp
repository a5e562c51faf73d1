// Hugging Face config.json -> Architecture. Each family names the same facts with different keys;
// this file maps them, and refuses model types it does not know rather than guessing.
#include <algorithm>
#include <map>
#include <sstream>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/scale_limits.hpp"

namespace wif {
namespace {

struct Family {
  const char* model_type;
  const char* gguf_arch;
  bool tied_default;  // the transformers config class default for tie_word_embeddings
};

// llama.cpp arch names (src/llama-arch.cpp) for each transformers model_type we import.
constexpr Family kFamilies[] = {
    {"llama", "llama", false},          {"mistral", "llama", false},
    {"mixtral", "llama", false},        {"qwen2", "qwen2", false},
    {"qwen2_moe", "qwen2moe", false},   {"qwen3", "qwen3", false},
    {"qwen3_moe", "qwen3moe", false},   {"qwen3_next", "qwen3next", false},
    {"glm4", "glm4", false},            {"glm4_moe", "glm4moe", false},
    {"deepseek_v2", "deepseek2", false}, {"deepseek_v3", "deepseek2", false},
    {"deepseek_v32", "deepseek32", false}, {"kimi_k2", "deepseek2", false},
    {"gpt_oss", "gpt-oss", false},      {"gemma", "gemma", true},
    {"gemma2", "gemma2", true},         {"gemma3", "gemma3", true},
    {"gemma3_text", "gemma3", true},    {"phi3", "phi3", false},
    {"cohere", "command-r", true},      {"cohere2", "cohere2", true},
    {"llama4", "llama4", false},        {"llama4_text", "llama4", false},
    {"minimax_m2", "minimax-m2", false}, {"ernie4_5", "ernie4_5", true},
    {"ernie4_5_moe", "ernie4_5-moe", true}, {"hunyuan_v1_moe", "hunyuan-moe", false},
    {"minicpm", "minicpm", false},      {"nemotron_h", "nemotron_h", false},
    {"lfm2", "lfm2", true},             {"mistral3", "llama", false},
    {"phi", "phi2", false},             {"starcoder2", "starcoder2", true},
    {"ministral3", "mistral3", true},   {"glm4_moe_lite", "deepseek2", false},
    {"glm_moe_dsa", "glm-dsa", false},  {"qwen3_5_text", "qwen35", true},
    {"qwen3_5", "qwen35", true},        {"qwen3_5_moe_text", "qwen35moe", false},
    {"qwen3_5_moe", "qwen35moe", false}, {"minimax_m3_vl", "minimax-m3", false},
    {"minimax_m3", "minimax-m3", false}, {"lfm2_moe", "lfm2moe", true},
    {"granite", "granite", true},       {"olmo2", "olmo2", false},
    {"gemma4", "gemma4", true},         {"gemma4_text", "gemma4", true},
    {"kimi_linear", "kimi-linear", false}, {"granitemoehybrid", "granitehybrid", true},
    {"gemma3n", "gemma3n", true},       {"gemma3n_text", "gemma3n", true},
    // Kimi K2.5 wraps Kimi K2's text model in text_config (whose own model_type, deepseek_v3 or
    // kimi_k2, is read first); this entry serves a text_config that leaves model_type out.
    {"kimi_k25", "deepseek2", false},
    {"deepseek_v4", "deepseek4", false},
    {"step3p5", "step35", false},
    // Kimi K3 wraps a kimi_linear text model with latent experts and attention residuals; llama.cpp
    // gives it an arch of its own (LLM_ARCH_KIMI_K3, src/models/kimi-k3.cpp).
    {"kimi_k3", "kimi-k3", false},
};

// Values the transformers config classes use when config.json omits the key (the file then
// relies on the default). Gemma3TextConfig: vocab_size 262208, head_dim 256, sliding_window 4096,
// max_position_embeddings 131072 (transformers models/gemma3/configuration_gemma3.py).
json with_class_defaults(const std::string& mt, json c) {
  auto def = [&c](const char* k, json v) {
    if (!c.contains(k) || c[k].is_null()) c[k] = std::move(v);
  };
  if (mt == "gemma3_text" || mt == "gemma3") {
    def("vocab_size", 262208);
    def("head_dim", 256);
    def("sliding_window", 4096);
    def("max_position_embeddings", 131072);
  }
  return c;
}

// Step 3.5's moe_layers_enum: layer indices as "3,4,…,44" or as a list; each at most
// num_hidden_layers + num_nextn_predict_layers - 1 (the MTP layers follow the decoder's).
std::vector<std::int64_t> step_moe_layers(const json& c, const std::string& path) {
  std::vector<std::int64_t> out;
  if (!c.contains("moe_layers_enum") || c["moe_layers_enum"].is_null()) return out;
  const std::string p = join_path(path, "moe_layers_enum");
  const std::int64_t n_all = opt_int(c, "num_hidden_layers", path, 1, 8192).value_or(0) +
                             opt_int(c, "num_nextn_predict_layers", path, 0, 16).value_or(0);
  const json& e = c["moe_layers_enum"];
  auto check = [&](std::int64_t v) {
    if (v < 0 || v >= n_all)
      throw InputError("bad_value", p, "moe_layers_enum names layer " + std::to_string(v) + ", past the last layer");
    out.push_back(v);
  };
  if (e.is_string()) {
    std::stringstream s(e.get<std::string>());
    std::string item;
    while (std::getline(s, item, ',')) {
      const auto b = item.find_first_not_of(" \t"), z = item.find_last_not_of(" \t");
      if (b == std::string::npos) continue;
      const std::string t = item.substr(b, z - b + 1);
      if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("bad_value", p, "moe_layers_enum must list layer numbers separated by commas");
      check(std::stoll(t));
    }
  } else if (e.is_array()) {
    for (std::size_t i = 0; i < e.size(); ++i) check(int_value(e[i], p + "[" + std::to_string(i) + "]", 0, 8192));
  } else {
    throw InputError("bad_type", p, "moe_layers_enum must be a string of layer numbers or a list");
  }
  return out;
}

// Per-family key spellings mapped onto the ones build() reads, before anything is sized.
json normalized(const std::string& mt, json c, const std::string& path) {
  if (mt == "hunyuan_v1_moe") {
    // Hunyuan gives MoE widths per layer (moe_topk, moe_intermediate_size, num_shared_expert).
    // Every published checkpoint lists one value for all layers; a list that varies would need
    // per-layer expert shapes, so it is refused rather than averaged.
    for (const char* k : {"moe_topk", "moe_intermediate_size", "num_shared_expert"}) {
      if (!c.contains(k) || !c[k].is_array()) continue;
      const json& v = c[k];
      if (v.empty() || std::any_of(v.begin(), v.end(), [&](const json& x) { return x != v[0]; }))
        throw InputError("unsupported_value", join_path(path, k),
                         std::string("'") + k + "' differs between layers, which is not modelled");
      c[k] = v[0];
    }
    if (c.contains("num_shared_expert")) c["num_shared_experts"] = c["num_shared_expert"];
    // llama.cpp's hunyuan-moe loader always stores per-head q/k norms (src/models/hunyuan-moe.cpp).
    if (!c.contains("use_qk_norm")) c["use_qk_norm"] = true;
  }
  if (mt == "gemma4" || mt == "gemma4_text") {
    if (!c.contains("use_qk_norm")) c["use_qk_norm"] = true;   // q/k norms on every layer (gemma4.cpp)
    // Gemma 4's MoE checkpoint (26B-A4B) names its routing width top_k_experts.
    if (c.contains("top_k_experts") && !c.contains("num_experts_per_tok")) c["num_experts_per_tok"] = c["top_k_experts"];
    if (!opt_bool(c, "enable_moe_block", path).value_or(false)) {
      c.erase("num_experts");   // without the MoE block the expert keys are unused
      c.erase("num_experts_per_tok");
    }
  }
  if (mt == "gemma3n" || mt == "gemma3n_text") {
    // Gemma 3n lists the FFN width per layer; every published checkpoint gives one value for all.
    if (c.contains("intermediate_size") && c["intermediate_size"].is_array()) {
      const json& v = c["intermediate_size"];
      if (v.empty() || std::any_of(v.begin(), v.end(), [&](const json& x) { return x != v[0]; }))
        throw InputError("unsupported_value", join_path(path, "intermediate_size"),
                         "'intermediate_size' differs between layers, which is not modelled");
      c["intermediate_size"] = v[0];
    }
  }
  if (mt == "granitemoehybrid") {
    // Granite 4.0-H: every layer carries the shared MLP (shared_intermediate_size); with experts it
    // is the shared expert beside the routed ones (intermediate_size is then the expert width),
    // without experts it is the layer's dense FFN (transformers models/granitemoehybrid,
    // GraniteMoeHybridDecoderLayer; llama.cpp convert_hf_to_gguf.py writes it as ffn_gate/up/down).
    const bool experts = c.contains("num_local_experts") && c["num_local_experts"].is_number_integer() &&
                         c["num_local_experts"].get<std::int64_t>() > 0;
    if (c.contains("shared_intermediate_size")) {
      if (experts) c["shared_expert_intermediate_size"] = c["shared_intermediate_size"];
      else c["intermediate_size"] = c["shared_intermediate_size"];
    }
  }
  if ((mt == "kimi_linear" || mt == "kimi_k3") && c.contains("num_experts_per_token") && !c.contains("num_experts_per_tok"))
    c["num_experts_per_tok"] = c["num_experts_per_token"];
  // Kimi K3's routed experts work in routed_expert_hidden_size (its latent MoE; llama.cpp
  // expert_latent_length), read where Nemotron 3 Super's moe_latent_size is.
  if (mt == "kimi_k3" && c.contains("routed_expert_hidden_size") && !c.contains("moe_latent_size"))
    c["moe_latent_size"] = c["routed_expert_hidden_size"];
  if (mt == "step3p5") {
    // Step 3.5 (StepFun's configuration_step3p5.py) names KV heads num_attention_groups, the
    // routing width moe_top_k, the shared expert share_expert_dim and lists its MoE layers in
    // moe_layers_enum ("3,4,…,44" or a list); without use_moe the expert keys are unused.
    auto alias = [&c](const char* from, const char* to) {
      if (c.contains(from) && !c.contains(to)) c[to] = c[from];
    };
    alias("num_attention_groups", "num_key_value_heads");
    alias("moe_top_k", "num_experts_per_tok");
    alias("share_expert_dim", "shared_expert_intermediate_size");
    alias("use_moe_router_bias", "use_routing_bias");
    if (!opt_bool(c, "use_moe", path).value_or(true)) {
      c.erase("moe_num_experts");
      c.erase("num_experts_per_tok");
    } else if (c.contains("moe_layers_enum") && c.contains("num_hidden_layers") &&
               c["num_hidden_layers"].is_number_integer() && !c.contains("moe_layer_freq")) {
      const std::int64_t n_layer = c["num_hidden_layers"].get<std::int64_t>();
      json mask = json::array();
      for (std::int64_t il = 0; il < n_layer; ++il) mask.push_back(0);
      for (std::int64_t il : step_moe_layers(c, path))
        if (il >= 0 && il < n_layer) mask[static_cast<std::size_t>(il)] = 1;
      c["moe_layer_freq"] = mask;
    }
  }
  return c;
}

// Layer facts build() has no key for, per family.
void finish_family(Architecture& a, const json& c, const std::string& mt, const std::string& path) {
  if (mt == "gemma4" || mt == "gemma4_text") {
    // Gemma 4: global (full-attention) layers have their own wider heads and fewer KV heads, and
    // with attention_k_eq_v no v_proj (llama.cpp src/models/gemma4.cpp uses K as V).
    if (opt_bool(c, "enable_moe_block", path).value_or(false)) {
      // Gemma 4 26B-A4B: every layer runs a dense GeGLU MLP of intermediate_size beside its routed
      // experts (transformers models/gemma4, Gemma4TextDecoderLayer; llama.cpp load_tensors for
      // LLM_ARCH_GEMMA4 creates ffn_gate/up/down for every layer and the expert tensors where
      // ffn_gate_inp exists).
      if (!a.is_moe())
        throw InputError("missing_field", join_path(path, "num_experts"),
                         "a Gemma 4 config with enable_moe_block needs num_experts and top_k_experts");
      const std::int64_t dense = req_int(c, "intermediate_size", path, 1, 1 << 20);
      for (auto& L : a.layers) {
        L.ffn = FfnKind::MoE;
        L.n_ff = dense;
      }
    }
    if (opt_int(c, "hidden_size_per_layer_input", path, 0, 1 << 20).value_or(0) > 0)
      throw InputError("unsupported_value", join_path(path, "hidden_size_per_layer_input"),
                       "Gemma 4's per-layer embeddings (E2B/E4B) are not modelled yet");
    if (opt_int(c, "num_kv_shared_layers", path, 0, 1 << 20).value_or(0) > 0)
      throw InputError("unsupported_value", join_path(path, "num_kv_shared_layers"),
                       "Gemma 4 layers that share another layer's cache are not modelled yet");
    const std::int64_t gh = opt_int(c, "global_head_dim", path, 1, 1 << 16).value_or(0);
    const std::int64_t gkv = opt_int(c, "num_global_key_value_heads", path, 1, 1 << 16).value_or(0);
    const bool k_eq_v = opt_bool(c, "attention_k_eq_v", path).value_or(false);
    for (auto& L : a.layers) {
      if (L.attn != AttnKind::Full) continue;
      if (gh > 0) L.head_dim_k = L.head_dim_v = gh;
      if (gkv > 0) L.n_head_kv = gkv;
      if (L.n_head_kv > L.n_head || L.n_head % L.n_head_kv != 0)
        throw InputError("bad_value", join_path(path, "num_global_key_value_heads"),
                         "the global key/value heads must divide the attention heads");
      L.v_from_k = k_eq_v;
    }
    a.post_norms = true;
  }
  if (mt == "gemma3n" || mt == "gemma3n_text") {
    // Gemma 3n (transformers models/gemma3n, Gemma3nTextConfig; llama.cpp src/llama-model.cpp, LLM_ARCH_GEMMA3N):
    // a per-layer embedding of hidden_size_per_layer_input columns per layer, altup_num_inputs
    // AltUp streams, LAuReL blocks of laurel_rank; the last num_kv_shared_layers layers keep no
    // cache of their own and attend over an earlier layer's (llama.cpp n_layer_kv_from_start).
    a.n_embd_per_layer = req_int(c, "hidden_size_per_layer_input", path, 1, 1 << 16);
    a.n_altup = opt_int(c, "altup_num_inputs", path, 2, 64).value_or(4);
    a.laurel_rank = opt_int(c, "laurel_rank", path, 1, 1 << 16).value_or(64);
    const std::int64_t n_layer = static_cast<std::int64_t>(a.layers.size());
    const std::int64_t shared = opt_int(c, "num_kv_shared_layers", path, 0, n_layer - 1).value_or(0);
    for (std::int64_t il = n_layer - shared; il < n_layer; ++il) a.layers[static_cast<std::size_t>(il)].has_kv = false;
  }
  if (mt == "deepseek_v4") {
    // DeepSeek V4 (transformers-style config.json of DeepSeek-V4-Flash; llama.cpp
    // src/models/deepseek4.cpp load_arch_hparams / load_arch_tensors): every layer keeps one
    // head_dim-wide key (also the value) over sliding_window tokens, and compress_ratios[il]
    // adds a compressed cache (llama.cpp loads ratios 0, 4 and 128 only). The list has one more
    // entry than num_hidden_layers: the last belongs to the MTP layer, which is not modelled.
    const std::string rp = join_path(path, "compress_ratios");
    if (!c.contains("compress_ratios") || !c["compress_ratios"].is_array())
      throw InputError("missing_field", rp, "a deepseek_v4 config needs compress_ratios, one per layer");
    const json& cr = c["compress_ratios"];
    const std::int64_t n_all = static_cast<std::int64_t>(a.layers.size());
    const std::int64_t n_main = a.n_layer_main();
    if (static_cast<std::int64_t>(cr.size()) < n_main)
      throw InputError("bad_value", rp, "compress_ratios is shorter than num_hidden_layers");
    const std::int64_t window = req_int(c, "sliding_window", path, 1, std::int64_t{1} << 40);
    const std::int64_t hd = req_int(c, "head_dim", path, 1, 1 << 16);
    for (std::int64_t il = 0; il < n_all; ++il) {
      LayerSpec& L = a.layers[static_cast<std::size_t>(il)];
      std::int64_t ratio = 0;
      if (il < static_cast<std::int64_t>(cr.size())) {
        ratio = int_value(cr[static_cast<std::size_t>(il)], rp + "[" + std::to_string(il) + "]", 0, 1 << 20);
        if (ratio != 0 && ratio != 4 && ratio != 128)
          throw InputError("unsupported_value", rp + "[" + std::to_string(il) + "]",
                           "llama.cpp's DeepSeek V4 loader supports compression ratios 0, 4 and 128 only");
      }
      L.attn = AttnKind::Compressed;
      L.window = window;
      L.compress_ratio = ratio;
      L.n_head_kv = 1;   // one shared key per token (llama.cpp attn_kv is {n_embd, head_dim})
      L.head_dim_k = L.head_dim_v = hd;
    }
    auto& v4 = a.dsv4;
    v4.hc_mult = req_int(c, "hc_mult", path, 1, 64);
    v4.q_lora_rank = req_int(c, "q_lora_rank", path, 1, 1 << 30);
    v4.o_groups = req_int(c, "o_groups", path, 1, 1 << 16);
    v4.o_lora_rank = req_int(c, "o_lora_rank", path, 1, 1 << 30);
    v4.hash_layers = opt_int(c, "num_hash_layers", path, 0, n_main).value_or(0);
    v4.index_topk = req_int(c, "index_topk", path, 1, std::int64_t{1} << 40);
    const std::int64_t heads = a.layers.empty() ? 0 : a.layers[0].n_head;
    if ((heads * hd) % v4.o_groups != 0)
      throw InputError("bad_value", join_path(path, "o_groups"), "o_groups must divide the heads' total width");
    if (a.indexer_heads <= 0 || a.indexer_head_dim <= 0)
      throw InputError("missing_field", join_path(path, "index_n_heads"),
                       "a deepseek_v4 config needs index_n_heads and index_head_dim");
    if (!a.is_moe())
      throw InputError("missing_field", join_path(path, "n_routed_experts"), "a deepseek_v4 config needs its experts");
    a.moe.has_router_bias = true;   // score bias on the layers past the hash-routed ones
  }
  if (mt == "step3p5") {
    // Step 3.5 (StepFun's modeling_step3p5.py; llama.cpp LLM_ARCH_STEP35): the sliding layers take
    // their own head count and KV groups from attention_other_setting, every layer may gate each
    // head through its own projection (use_head_wise_attn_gate), and the MTP layers' FFN is dense
    // unless moe_layers_enum names them.
    a.attn_head_gate = opt_bool(c, "use_head_wise_attn_gate", path).value_or(false);
    const std::string op = join_path(path, "attention_other_setting");
    if (c.contains("attention_other_setting") && !c["attention_other_setting"].is_null()) {
      const json& o = c["attention_other_setting"];
      if (!o.is_object()) throw InputError("bad_type", op, "attention_other_setting must be an object");
      const std::string kind = opt_str(o, "attention_type", op).value_or("sliding_attention");
      if (kind != "sliding_attention")
        throw InputError("unsupported_value", join_path(op, "attention_type"),
                         "attention_other_setting for '" + kind + "' layers is not modelled");
      const std::int64_t nh = opt_int(o, "num_attention_heads", op, 1, 1 << 16).value_or(0);
      const std::int64_t nkv = opt_int_any(o, {"num_attention_groups", "num_key_value_heads"}, op, 1, 1 << 16).value_or(0);
      const std::int64_t hd = opt_int(o, "head_dim", op, 1, 1 << 16).value_or(0);
      for (auto& L : a.layers) {
        if (L.attn != AttnKind::Sliding) continue;
        if (nh > 0) L.n_head = nh;
        if (nkv > 0) L.n_head_kv = nkv;
        if (hd > 0) L.head_dim_k = L.head_dim_v = hd;
        if (L.n_head_kv > L.n_head || L.n_head % L.n_head_kv != 0)
          throw InputError("bad_value", join_path(op, "num_attention_groups"),
                           "the sliding layers' key/value groups must divide their attention heads");
      }
    }
    if (a.is_moe()) {
      const std::vector<std::int64_t> moe = step_moe_layers(c, path);
      const std::int64_t n_ff = opt_int(c, "intermediate_size", path, 1, 1 << 30).value_or(0);
      for (auto& L : a.layers) {
        if (!L.is_mtp) continue;
        const std::int64_t il = &L - a.layers.data();
        if (std::find(moe.begin(), moe.end(), il) != moe.end()) {
          L.ffn = FfnKind::MoE;
          L.n_ff = 0;
        } else {
          if (n_ff <= 0)
            throw InputError("missing_field", join_path(path, "intermediate_size"),
                             "a dense feed-forward layer needs intermediate_size");
          L.ffn = FfnKind::Dense;
          L.n_ff = n_ff;
        }
      }
    }
  }
  if (mt == "kimi_linear" || mt == "kimi_k3") {
    // Kimi Linear: linear_attn_config names its KDA layers and its MLA layers, counting from 1
    // (the checkpoint's kv_b_proj sits on layers 3, 7, …, 26 for full_attn_layers 4, 8, …, 27).
    const std::string lp = join_path(path, "linear_attn_config");
    if (!c.contains("linear_attn_config") || !c["linear_attn_config"].is_object())
      throw InputError("missing_field", lp, "a kimi_linear config needs linear_attn_config");
    const json& la = c["linear_attn_config"];
    const std::int64_t n_layer = static_cast<std::int64_t>(a.layers.size());
    auto& r = a.recurrent;
    r.kind = "kda";
    r.d_conv = req_int(la, "short_conv_kernel_size", lp, 1, 64);
    r.k_head_dim = r.v_head_dim = r.d_state = req_int(la, "head_dim", lp, 1, 1 << 16);
    r.n_v_heads = r.n_k_heads = req_int(la, "num_heads", lp, 1, 1 << 16);
    r.d_inner = r.n_v_heads * r.k_head_dim;
    const std::string kp = join_path(lp, "kda_layers");
    if (!la.contains("kda_layers") || !la["kda_layers"].is_array())
      throw InputError("missing_field", kp, "linear_attn_config needs kda_layers");
    for (std::size_t i = 0; i < la["kda_layers"].size(); ++i) {
      const std::int64_t one_based = int_value(la["kda_layers"][i], kp + "[" + std::to_string(i) + "]", 1, n_layer);
      LayerSpec& L = a.layers[static_cast<std::size_t>(one_based - 1)];
      L.attn = AttnKind::Linear;
      L.n_head_kv = 0;
      L.has_kv = false;
    }
    a.moe.has_router_bias = a.is_moe();   // e_score_correction_bias -> exp_probs_b
    if (mt == "kimi_k3") {
      // Kimi K3 (llama.cpp src/models/kimi-k3.cpp, llama_model_kimi_k3::load_arch_tensors): a
      // full-rank KDA output gate (ssm_g), a sigmoid output gate on the MLA layers (attn_gate),
      // attention-residual score vectors on every layer and the output, and latent experts with
      // their own norm (ffn_routed_down / _up / _norm).
      r.full_rank_gate = opt_bool(la, "use_full_rank_gate", lp).value_or(false);
      a.mla_out_gate = opt_bool(c, "mla_use_output_gate", path).value_or(false);
      a.attn_res_block = opt_int(c, "attn_res_block_size", path, 0, n_layer).value_or(0);
      a.moe.latent_norm = a.moe.n_latent > 0 && opt_bool(c, "latent_moe_use_norm", path).value_or(false);
      if (!a.is_mla())
        throw InputError("missing_field", join_path(path, "kv_lora_rank"),
                         "a Kimi K3 config needs its MLA widths (kv_lora_rank and the head dims)");
    }
  }
}

const Family* find_family(const std::string& t) {
  for (const auto& f : kFamilies)
    if (t == f.model_type) return &f;
  return nullptr;
}

// Multimodal configs keep the language model under text_config (Gemma 3, Llama 4, Mistral 3);
// Qwen2.5-Omni one level deeper, in its thinker (thinker_config.text_config), beside the talker
// that llama.cpp does not load.
const json& text_part(const json& cfg, std::string& path) {
  if (cfg.contains("thinker_config") && cfg["thinker_config"].is_object() && !cfg.contains("text_config") &&
      !cfg.contains("num_hidden_layers")) {
    const json& thinker = cfg["thinker_config"];
    if (thinker.contains("text_config") && thinker["text_config"].is_object()) {
      path = join_path(join_path(path, "thinker_config"), "text_config");
      return thinker["text_config"];
    }
  }
  if (cfg.contains("text_config") && cfg["text_config"].is_object() &&
      !cfg.contains("num_hidden_layers")) {
    path = join_path(path, "text_config");
    return cfg["text_config"];
  }
  return cfg;
}

std::vector<std::string> string_list(const json& obj, const char* key, const std::string& path) {
  std::vector<std::string> out;
  if (!obj.contains(key) || obj[key].is_null()) return out;
  const json& a = obj[key];
  const std::string p = join_path(path, key);
  if (!a.is_array()) throw InputError("bad_type", p, "expected a list at '" + p + "'");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string())
      throw InputError("bad_type", p + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

// The first key of a config that shows layers with a fixed-size state (Mamba, linear attention,
// short convolutions, RWKV) or compressed attention, or "" when there is none.
std::string recurrent_marker(const json& c) {
  for (const char* k : {"hybrid_override_pattern", "linear_attn_config", "full_attn_idxs", "conv_L_cache",
                        "compress_ratios", "hc_mult", "attn_layer_indices", "layers_block_type"})
    if (c.contains(k)) return k;
  for (const auto& [k, v] : c.items()) {
    (void)v;
    for (const char* prefix : {"mamba", "ssm_", "linear_", "rwkv", "time_step", "short_conv"})
      if (k.rfind(prefix, 0) == 0) return k;
  }
  if (c.contains("layer_types") && c["layer_types"].is_array())
    for (const auto& t : c["layer_types"])
      if (t.is_string()) {
        const std::string s = t.get<std::string>();
        if (s.find("attention") == std::string::npos && s != "sliding") return "layer_types";
      }
  return "";
}

}  // namespace

std::vector<std::string> supported_model_types() {
  std::vector<std::string> v;
  for (const auto& f : kFamilies) v.emplace_back(f.model_type);
  return v;
}

const char* attn_kind_name(AttnKind k) {
  switch (k) {
    case AttnKind::Full: return "full";
    case AttnKind::Sliding: return "sliding";
    case AttnKind::Chunked: return "chunked";
    case AttnKind::MLA: return "mla";
    case AttnKind::Linear: return "linear";
    case AttnKind::None: return "none";
    case AttnKind::Compressed: return "compressed";
  }
  return "full";
}

std::int64_t Architecture::n_layer_main() const {
  return static_cast<std::int64_t>(
      std::count_if(layers.begin(), layers.end(), [](const LayerSpec& l) { return !l.is_mtp; }));
}

nlohmann::json Architecture::topology_code() const {
  bool swa = false, lin = false, full = false;
  for (const auto& l : layers) {
    if (l.is_mtp) continue;
    swa |= l.attn == AttnKind::Sliding || l.attn == AttnKind::Chunked;
    lin |= l.attn == AttnKind::Linear;
    full |= l.attn == AttnKind::Full;
  }
  nlohmann::json c = {{"ffn", is_moe() ? "moe" : "dense"}};
  if (is_moe()) {
    c["experts"] = moe.n_expert;
    c["experts_used"] = moe.n_expert_used;
  }
  // Kimi Linear and K3 mix recurrent (KDA) layers with MLA ones: named as such, not as plain MLA.
  if (is_mla() && lin) c["attention"] = "hybrid_linear_mla";
  else if (is_mla()) c["attention"] = "mla";
  else if (lin) c["attention"] = "hybrid_linear";
  else if (!layers.empty() && layers[0].n_head_kv == layers[0].n_head) c["attention"] = "mha";
  else if (!layers.empty() && layers[0].n_head_kv == 1) c["attention"] = "mqa";
  else c["attention"] = "gqa";
  c["window"] = !swa ? "none" : full ? "some_layers" : "all_layers";
  return c;
}

std::string Architecture::topology() const {
  const nlohmann::json c = topology_code();
  std::ostringstream s;
  if (c["ffn"] == "moe") s << "MoE " << c["experts"].get<std::int64_t>() << "x" << c["experts_used"].get<std::int64_t>() << " + ";
  else s << "dense + ";
  const std::string att = c["attention"];
  s << (att == "mla" ? "MLA" : att == "hybrid_linear" ? "hybrid linear/GQA" : att == "hybrid_linear_mla" ? "hybrid linear/MLA" : att == "mha" ? "MHA" : att == "mqa" ? "MQA" : "GQA");
  if (c["window"] == "some_layers") s << " + sliding window";
  else if (c["window"] == "all_layers") s << " (sliding window)";
  return s.str();
}

namespace {
Architecture build(const json& c, const json& config, const std::string& mt, const Family& fam,
                   const std::string& path, const std::string& path0);
}

Architecture architecture_from_hf_config(const json& config, const std::string& path0, bool allow_approximate) {
  if (!config.is_object())
    throw InputError("bad_type", path0, "a config.json must be a JSON object");
  std::string path = path0;
  const json& c = text_part(config, path);
  std::string mt = opt_str(c, "model_type", path).value_or("");
  if (mt.empty()) mt = opt_str(config, "model_type", path0).value_or("");
  if (mt.empty())
    throw InputError("missing_field", join_path(path, "model_type"),
                     "config.json has no model_type, so its architecture is unknown");
  // Kimi K3 keeps model_type kimi_linear in its text_config (the wrapper says kimi_k3); a text model
  // with K3's latent experts, attention residuals or gates is read as K3 either way, never as Kimi
  // Linear without them.
  if (mt == "kimi_linear" &&
      (opt_str(config, "model_type", path0).value_or("") == "kimi_k3" || c.contains("attn_res_block_size") ||
       c.contains("routed_expert_hidden_size") || opt_bool(c, "mla_use_output_gate", path).value_or(false) ||
       (c.contains("linear_attn_config") && c["linear_attn_config"].is_object() &&
        opt_bool(c["linear_attn_config"], "use_full_rank_gate", join_path(path, "linear_attn_config")).value_or(false))))
    mt = "kimi_k3";
  // Qwen2.5-Omni's thinker speaks through a Qwen2 decoder (transformers Qwen2_5OmniThinkerTextModel;
  // llama.cpp's converter writes it as qwen2vl, the same tensors with M-RoPE).
  if (mt == "qwen2_5_omni" || mt == "qwen2_5_omni_thinker" || mt == "qwen2_5_omni_text") mt = "qwen2";
  const Family* fam = find_family(mt);
  // A type we do not know, with the keys every decoder config has: read it as a llama-style
  // decoder (the keys build() understands still apply: heads, experts, windows) and label it.
  static constexpr Family kGeneric{"", "llama", false};
  const bool standard = c.contains("hidden_size") && c.contains("num_hidden_layers") &&
                        c.contains("num_attention_heads") && c.contains("vocab_size") &&
                        (c.contains("intermediate_size") || c.contains("moe_intermediate_size"));
  if (!fam && !(allow_approximate && standard)) {
    Error e("unsupported_model_type", join_path(path, "model_type"), "model_type '" + mt + "' is not supported yet");
    e.values = {{"model_type", mt}};
    throw InputError(std::move(e));
  }
  // A llama-style reading of an unknown hybrid would size its recurrent layers as nothing (or as
  // attention) without saying so: such a config stays the coded error, naming the key that shows it.
  if (!fam) {
    if (const std::string why = recurrent_marker(c); !why.empty()) {
      Error e("unsupported_model_type", join_path(path, "model_type"),
              "model_type '" + mt + "' is not supported yet, and its '" + why +
                  "' shows recurrent or linear-attention layers that a llama-style estimate would miss");
      e.values = {{"model_type", mt}, {"marker", why}};
      throw InputError(std::move(e));
    }
  }

  const json c2 = normalized(mt, with_class_defaults(mt, c), path);
  Architecture a = build(c2, config, mt, fam ? *fam : kGeneric, path, path0);
  finish_family(a, c2, mt, path);
  check_architecture_scale(a, path);
  if (!fam) a.approximate = "unsupported_model_type";
  return a;
}

namespace {

// Ranges far beyond published models (hidden 16384, 126 layers), tight enough that a hostile
// value is refused before anything is allocated; scale_limits.hpp then bounds their products.
constexpr std::int64_t kBig = 1 << 30;
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 40;

bool is_qwen_hybrid(const std::string& mt) { return mt == "qwen3_next" || mt.rfind("qwen3_5", 0) == 0; }

/// The widths every layer starts from, before per-layer kinds are decided.
struct Dims {
  std::int64_t n_layer = 0, n_head = 0, n_head_kv = 0, head_dim = 0, n_ff = 0;
};

/// How MoE and dense feed-forward layers alternate.
struct MoeLayers {
  std::int64_t first_dense = 0, sparse_step = 1, dense_ff = 0;
  std::vector<std::int64_t> mlp_only;
  std::vector<bool> mask;  // per layer, when the config lists one
};

/// Which layers attend how: listed kinds, a sliding-window period, a hybrid block pattern.
struct AttentionPattern {
  std::vector<std::string> layer_types;
  std::int64_t window = 0, swa_pattern = 0, full_interval = 4;
  std::string hybrid;
  std::vector<std::int64_t> full_attn_idxs;  // LFM2 lists its attention layers by index
};

/// A list of layer indices at `key` (absent or not a list: empty).
std::vector<std::int64_t> layer_index_list(const json& c, const char* key, const std::string& path,
                                           std::int64_t n_layer) {
  std::vector<std::int64_t> out;
  if (c.contains(key) && c[key].is_array())
    for (std::size_t i = 0; i < c[key].size(); ++i)
      out.push_back(int_value(c[key][i], join_path(path, key) + "[" + std::to_string(i) + "]", 0, n_layer));
  return out;
}

// Sizes, context, tied embeddings, dtype and the attention / feed-forward widths.
Dims read_dimensions(const json& c, const json& config, const std::string& mt, const Family& fam,
                     const std::string& path, const std::string& path0, Architecture& a) {
  Dims d;
  a.n_embd = req_int(c, "hidden_size", path, 1, 1 << 20);
  d.n_layer = req_int(c, "num_hidden_layers", path, 1, 8192);
  a.n_vocab = req_int(c, "vocab_size", path, 1, kBig);
  a.n_ctx_train = opt_int_any(c, {"max_position_embeddings", "seq_length", "max_sequence_length"},
                              path, 1, kMaxTokens)
                      .value_or(0);
  a.tied_embeddings = opt_bool(c, "tie_word_embeddings", path)
                          .value_or(opt_bool(config, "tie_word_embeddings", path0)
                                        .value_or(fam.tied_default));
  if (auto dt = opt_str(c, "torch_dtype", path).value_or(opt_str(c, "dtype", path).value_or(""));
      !dt.empty())
    a.native_dtype = dt == "bfloat16" ? "bf16" : dt == "float16" ? "fp16" : dt == "float32" ? "fp32" : dt;
  // A checkpoint published quantized says so in quantization_config, while torch_dtype names the
  // compute dtype of the rest (gpt-oss: "bfloat16" beside quant_method "mxfp4"): the weights as
  // published are the quantized ones (transformers' quantizers read quant_method; compressed-
  // tensors names its packing in "format", e.g. Kimi K3's "mxfp4-pack-quantized").
  for (const json* q : {&c, &config}) {
    if (!q->contains("quantization_config") || !(*q)["quantization_config"].is_object()) continue;
    const json& qc = (*q)["quantization_config"];
    const std::string method = qc.contains("quant_method") && qc["quant_method"].is_string() ? qc["quant_method"].get<std::string>() : "";
    const std::string format = qc.contains("format") && qc["format"].is_string() ? qc["format"].get<std::string>() : "";
    if (method == "mxfp4" || (method == "compressed-tensors" && format.rfind("mxfp4", 0) == 0)) a.native_dtype = "mxfp4";
    else if (method == "fp8" || method == "fbgemm_fp8") a.native_dtype = "fp8";
    break;
  }

  d.n_head = opt_int(c, "num_attention_heads", path, 1, kBig).value_or(0);
  if (d.n_head == 0 && mt != "lfm2")
    throw InputError("missing_field", join_path(path, "num_attention_heads"),
                     "'" + join_path(path, "num_attention_heads") + "' is required");
  d.n_head_kv = opt_int_any(c, {"num_key_value_heads", "num_kv_heads"}, path, 1, kBig).value_or(d.n_head);
  // Without head_dim the width is hidden_size / heads, which must divide; grouped-query
  // attention shares each K/V head among a whole number of query heads (llama.cpp asserts both).
  // MLA configs (kv_lora_rank) take their head widths from the qk/v head dims instead.
  if (d.n_head > 0 && !opt_int(c, "head_dim", path, 1, kBig) && !opt_int(c, "kv_lora_rank", path, 1, kBig) &&
      a.n_embd % d.n_head != 0)
    throw InputError("bad_value", join_path(path, "num_attention_heads"),
                     "num_attention_heads (" + std::to_string(d.n_head) + ") does not divide hidden_size (" +
                         std::to_string(a.n_embd) + ") and no head_dim is given");
  if (d.n_head > 0 && (d.n_head_kv > d.n_head || d.n_head % d.n_head_kv != 0))
    throw InputError("bad_value", join_path(path, c.contains("num_key_value_heads") ? "num_key_value_heads" : "num_kv_heads"),
                     "the key/value heads (" + std::to_string(d.n_head_kv) + ") must divide the attention heads (" +
                         std::to_string(d.n_head) + ")");
  d.head_dim = opt_int(c, "head_dim", path, 1, kBig).value_or(d.n_head ? a.n_embd / d.n_head : 0);
  d.n_ff = opt_int_any(c, {"intermediate_size", "ffn_hidden_size", "block_ff_dim"}, path, 0, kBig).value_or(0);
  if (mt == "lfm2" && opt_bool(c, "block_auto_adjust_ff_dim", path).value_or(false)) {
    // LFM2 shrinks the SwiGLU width to 2/3 and rounds up to block_multiple_of
    // (transformers models/lfm2/modeling_lfm2.py, Lfm2MLP).
    const std::int64_t mult = opt_int(c, "block_multiple_of", path, 1, kBig).value_or(256);
    d.n_ff = (2 * d.n_ff / 3 + mult - 1) / mult * mult;
  }
  return d;
}

// GLM-5.2's indexers (llama.cpp src/models/glm-dsa.cpp, load_arch_hparams): a "shared" layer reuses
// the previous full layer's top-k and keeps no indexer keys (src/llama-model.cpp, create_memory:
// llama_kv_cache_dsa's filter_lid passes only is_indexer_full layers for LLM_ARCH_GLM_DSA). The
// config's indexer_types names each layer; without it llama.cpp takes every layer as full below a
// 1,048,576-token training context (GLM-5 and 5.1) and GLM-5.2's pattern above it (layers 0 and 1,
// then every fourth from 2: GLM_5_2_DEFAULT_INDEXER_TYPES).
void read_indexer_types(const json& c, const std::string& path, std::int64_t n_layer, Architecture& a) {
  const std::string p = join_path(path, "indexer_types");
  std::vector<bool> shared(static_cast<std::size_t>(n_layer), false);
  if (c.contains("indexer_types") && !c["indexer_types"].is_null()) {
    const json& t = c["indexer_types"];
    if (!t.is_array() || static_cast<std::int64_t>(t.size()) != n_layer)
      throw InputError("bad_value", p, "indexer_types must name every one of the " + std::to_string(n_layer) + " layers");
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::string v = t[i].is_string() ? t[i].get<std::string>() : "";
      if (v != "full" && v != "shared")
        throw InputError("bad_value", join_path(p, std::to_string(i)), "an indexer type is \"full\" or \"shared\"");
      shared[i] = v == "shared";
    }
    if (n_layer > 0 && shared[0])
      throw InputError("bad_value", join_path(p, "0"), "the first indexer must be \"full\": a shared one reuses an earlier layer's");
  } else if (a.n_ctx_train >= 1048576) {
    for (std::int64_t il = 2; il < n_layer; ++il) shared[static_cast<std::size_t>(il)] = (il - 2) % 4 != 0;
  }
  for (std::int64_t il = 0; il < n_layer && il < static_cast<std::int64_t>(a.layers.size()); ++il)
    a.layers[static_cast<std::size_t>(il)].indexer_shared = shared[static_cast<std::size_t>(il)];
}

// Biases, norms, gates and fused projections, by family or by the config's own flags.
void read_tensor_flags(const json& c, const std::string& mt, const std::string& path, Architecture& a) {
  a.qkv_bias = opt_bool(c, "attention_bias", path).value_or(mt == "qwen2" || mt == "qwen2_moe");
  const bool qwen_hybrid = is_qwen_hybrid(mt);
  a.attn_out_gate = qwen_hybrid || opt_bool(c, "attn_output_gate", path).value_or(false);
  a.indexer_heads = opt_int(c, "index_n_heads", path, 0, 4096).value_or(0);
  a.indexer_head_dim = opt_int(c, "index_head_dim", path, 0, 65536).value_or(0);
  a.indexer_top_k = opt_int(c, "index_topk", path, 0, std::int64_t{1} << 40).value_or(0);
  a.qk_norm = mt == "qwen3" || mt == "qwen3_moe" || qwen_hybrid || mt == "gemma3" || mt == "gemma3n" ||
              mt == "gemma3n_text" ||
              mt == "gemma3_text" || mt == "minimax_m2" || opt_bool(c, "use_qk_norm", path).value_or(false);
  a.post_norms = mt == "gemma2" || mt == "gemma3" || mt == "gemma3_text" || mt == "glm4" || mt == "gemma3n" ||
                 mt == "gemma3n_text";
  a.fused_qkv = mt == "phi3";
  a.ffn_gated = mt != "nemotron_h";
  if (mt == "gpt_oss") {
    a.qkv_bias = true;
    a.out_bias = true;
    a.attn_sinks = true;
    a.moe.expert_bias = true;
  }
}

// Expert counts and widths, shared experts, router bias.
void read_experts(const json& c, const std::string& mt, const std::string& path, std::int64_t n_ff,
                  Architecture& a) {
  a.moe.n_expert = opt_int_any(c, {"n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"},
                               path, 0, 1 << 20).value_or(0);
  a.moe.n_expert_used = opt_int_any(c, {"num_experts_per_tok", "experts_per_token", "moe_k", "moe_topk"},
                                    path, 0, 1 << 20).value_or(0);
  if (a.moe.n_expert > 1) {
    if (a.moe.n_expert_used <= 0 || a.moe.n_expert_used > a.moe.n_expert)
      throw InputError("bad_value", join_path(path, "num_experts_per_tok"),
                       "an MoE config needs experts per token between 1 and the expert count");
    a.moe.n_ff_exp = opt_int_any(c, {"moe_intermediate_size", "expert_ffn_hidden_size"}, path, 1, kBig)
                         .value_or(n_ff);
    if (mt.rfind("llama4", 0) == 0) a.moe.n_ff_exp = n_ff;  // Llama 4: intermediate_size is the expert width
    a.moe.n_shared = opt_int_any(c, {"n_shared_experts", "num_shared_experts", "moe_num_shared_experts"},
                                 path, 0, 64).value_or(0);
    if (auto sh = opt_int_any(c, {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"}, path, 0, kBig);
        sh && *sh > 0) {
      a.moe.n_shared = std::max<std::int64_t>(a.moe.n_shared, 1);
      a.moe.n_ff_shexp = *sh;
    }
    if (mt.rfind("llama4", 0) == 0) a.moe.n_shared = 1;
    if (a.moe.n_shared > 0 && a.moe.n_ff_shexp == 0) a.moe.n_ff_shexp = a.moe.n_ff_exp;
    // Nemotron 3 Super's LatentMoE (transformers NemotronHConfig.moe_latent_size; llama.cpp
    // ffn_latent_down / ffn_latent_up): the routed experts read and write moe_latent_size.
    a.moe.n_latent = opt_int(c, "moe_latent_size", path, 0, kBig).value_or(0);
    // Score-correction biases (e_score_correction_bias -> exp_probs_b; llama.cpp requires them for
    // Nemotron-H MoE layers too, LLM_ARCH_NEMOTRON_H load_tensors).
    a.moe.has_router_bias = mt == "deepseek_v3" || mt == "deepseek_v32" || mt == "kimi_k2" ||
                            mt == "kimi_k25" || mt == "glm4_moe" || mt == "minimax_m2" || mt == "glm4_moe_lite" ||
                            mt == "glm_moe_dsa" || mt == "nemotron_h" || opt_bool(c, "use_routing_bias", path).value_or(false) ||
                            opt_bool(c, "use_expert_bias", path).value_or(false) ||
                            opt_str(c, "topk_method", path).value_or("") == "noaux_tc";
  } else {
    a.moe = MoeSpec{};
  }
}

// Which layers are MoE: leading dense layers, a step, listed dense layers or a per-layer mask.
MoeLayers read_moe_layers(const json& c, const std::string& mt, const std::string& path, const Dims& d,
                          Architecture& a) {
  MoeLayers m;
  m.first_dense = opt_int_any(c, {"first_k_dense_replace", "moe_layer_start_index", "num_dense_layers"},
                              path, 0, d.n_layer).value_or(0);
  m.sparse_step = opt_int_any(c, {"decoder_sparse_step", "interleave_moe_layer_step", "moe_layer_interval"},
                              path, 1, d.n_layer).value_or(1);
  m.mlp_only = layer_index_list(c, "mlp_only_layers", path, d.n_layer);
  // Some MoE configs give the dense-layer width under its own key.
  m.dense_ff = opt_int_any(c, {"intermediate_size_mlp", "dense_intermediate_size"}, path, 1, kBig).value_or(d.n_ff);
  if (mt.rfind("minimax_m3", 0) == 0 && a.is_moe()) {
    a.moe.n_ff_exp = d.n_ff;  // MiniMax M3: intermediate_size is the expert width
    if (auto sh = opt_int(c, "shared_intermediate_size", path, 0, kBig)) a.moe.n_ff_shexp = *sh;
  }
  // A per-layer MoE mask (MiniMax M3 "moe_layer_freq": [0, 0, 0, 1, …]).
  if (c.contains("moe_layer_freq") && c["moe_layer_freq"].is_array()) {
    const auto& f = c["moe_layer_freq"];
    if (static_cast<std::int64_t>(f.size()) != d.n_layer)
      throw InputError("bad_value", join_path(path, "moe_layer_freq"), "moe_layer_freq needs one entry per layer");
    for (std::size_t i = 0; i < f.size(); ++i)
      m.mask.push_back(int_value(f[i], join_path(path, "moe_layer_freq") + "[" + std::to_string(i) + "]", 0, 1) == 1);
  }
  return m;
}

// Multi-head latent attention (DeepSeek V2/V3 and their kin).
void read_mla(const json& c, const std::string& path, Architecture& a) {
  if (auto kvr = opt_int(c, "kv_lora_rank", path, 1, kBig)) {
    a.mla.kv_lora_rank = *kvr;
    a.mla.q_lora_rank = opt_int(c, "q_lora_rank", path, 0, kBig).value_or(0);
    a.mla.qk_rope_dim = req_int(c, "qk_rope_head_dim", path, 1, kBig);
    a.mla.qk_nope_dim = req_int(c, "qk_nope_head_dim", path, 0, kBig);
    a.mla.v_head_dim = req_int(c, "v_head_dim", path, 1, kBig);
  }
}

// The layer kinds as listed, or the sliding-window period, or the hybrid block letters.
void read_attention_pattern(const json& c, const std::string& mt, const std::string& path, std::int64_t n_layer,
                            AttentionPattern& p) {
  p.layer_types = string_list(c, "layer_types", path);
  // Step 3.5's list goes on over its MTP layers (num_nextn_predict_layers more entries).
  const std::int64_t n_listed =
      mt == "step3p5" ? n_layer + opt_int(c, "num_nextn_predict_layers", path, 0, 16).value_or(0) : n_layer;
  if (!p.layer_types.empty() && static_cast<std::int64_t>(p.layer_types.size()) != n_layer &&
      static_cast<std::int64_t>(p.layer_types.size()) != n_listed)
    throw InputError("bad_value", join_path(path, "layer_types"),
                     "layer_types has " + std::to_string(p.layer_types.size()) + " entries for " +
                         std::to_string(n_layer) + " layers");
  p.window = opt_int(c, "sliding_window", path, 0, kMaxTokens).value_or(0);
  p.swa_pattern = opt_int(c, "sliding_window_pattern", path, 0, n_layer + 1).value_or(0);
  if (p.swa_pattern == 0 && mt == "gemma2") p.swa_pattern = 2;
  if (p.swa_pattern == 0 && (mt == "gemma3" || mt == "gemma3_text")) p.swa_pattern = 6;
  if (p.swa_pattern == 0 && mt == "cohere2") p.swa_pattern = 4;
  p.hybrid = opt_str(c, "hybrid_override_pattern", path).value_or("");
  if (!p.hybrid.empty() && static_cast<std::int64_t>(p.hybrid.size()) != n_layer)
    throw InputError("bad_value", join_path(path, "hybrid_override_pattern"),
                     "hybrid_override_pattern length differs from num_hidden_layers");
  p.full_interval = opt_int(c, "full_attention_interval", path, 1, n_layer).value_or(4);
}

bool has_mamba_layer(const json& c) {
  if (!c.contains("layer_types") || !c["layer_types"].is_array()) return false;
  for (const auto& t : c["layer_types"])
    if (t.is_string() && t.get<std::string>() == "mamba") return true;
  return false;
}

// Recurrent state shapes: gated delta net (Qwen3-Next, Qwen3.5), Mamba-2 (Nemotron-H), LFM2's
// short convolutions.
void read_recurrent(const json& c, const std::string& mt, const std::string& path, Architecture& a) {
  if (is_qwen_hybrid(mt)) {
    auto& r = a.recurrent;
    r.kind = "gated_delta_net";
    r.d_conv = req_int(c, "linear_conv_kernel_dim", path, 1, 64);
    r.n_k_heads = req_int(c, "linear_num_key_heads", path, 1, kBig);
    r.n_v_heads = req_int(c, "linear_num_value_heads", path, 1, kBig);
    r.k_head_dim = req_int(c, "linear_key_head_dim", path, 1, kBig);
    r.v_head_dim = req_int(c, "linear_value_head_dim", path, 1, kBig);
    r.d_inner = r.n_v_heads * r.v_head_dim;
    r.d_state = r.k_head_dim;
    r.n_group = r.n_k_heads;
  } else if (mt == "nemotron_h") {
    auto& r = a.recurrent;
    r.kind = "mamba2";
    r.d_conv = opt_int(c, "conv_kernel", path, 1, 64).value_or(4);
    const std::int64_t mh = req_int(c, "mamba_num_heads", path, 1, kBig);
    const std::int64_t md = req_int(c, "mamba_head_dim", path, 1, kBig);
    r.d_inner = mh * md;
    r.n_v_heads = mh;
    r.d_state = req_int(c, "ssm_state_size", path, 1, kBig);
    r.n_group = opt_int(c, "n_groups", path, 1, kBig).value_or(1);
  } else if (mt == "granitemoehybrid" && has_mamba_layer(c)) {
    // Granite 4.0-H Mamba-2 blocks (transformers GraniteMoeHybridMambaLayer; llama.cpp reads them
    // as ssm.inner_size = mamba_n_heads x mamba_d_head, time_step_rank = mamba_n_heads). Granite
    // 4.0 Micro shares the model_type with attention on every layer: its mamba_* keys are unused.
    auto& r = a.recurrent;
    r.kind = "mamba2";
    r.d_conv = opt_int(c, "mamba_d_conv", path, 1, 64).value_or(4);
    const std::int64_t mh = req_int(c, "mamba_n_heads", path, 1, kBig);
    const std::int64_t md = req_int(c, "mamba_d_head", path, 1, kBig);
    r.d_inner = mh * md;
    r.n_v_heads = mh;
    r.d_state = req_int(c, "mamba_d_state", path, 1, kBig);
    r.n_group = opt_int(c, "mamba_n_groups", path, 1, kBig).value_or(1);
    if (r.d_inner % r.n_group != 0)
      throw InputError("bad_value", join_path(path, "mamba_n_groups"),
                       "mamba_n_groups must divide mamba_n_heads x mamba_d_head");
    if (auto ex = opt_int(c, "mamba_expand", path, 1, 64); ex && *ex * a.n_embd != r.d_inner)
      throw InputError("bad_value", join_path(path, "mamba_d_head"),
                       "mamba_n_heads x mamba_d_head differs from mamba_expand x hidden_size");
  } else if (mt == "lfm2" || mt == "lfm2_moe") {
    a.recurrent.kind = "shortconv";
    a.recurrent.l_cache = req_int(c, "conv_L_cache", path, 1, 64);
  }
}

// The attention kind (and window) of layer `li`, from the first rule that applies.
void set_attention_kind(const json& c, const std::string& mt, const std::string& path, const Architecture& a,
                        const Dims& d, const AttentionPattern& p, std::int64_t li, LayerSpec& L) {
  if (!p.layer_types.empty()) {
    const std::string& t = p.layer_types[static_cast<std::size_t>(li)];
    if (t == "sliding_attention" || t == "sliding") L.attn = AttnKind::Sliding;
    else if (t == "chunked_attention") L.attn = AttnKind::Chunked;
    else if (t == "linear_attention" || t == "conv" || t == "mamba") L.attn = AttnKind::Linear;
    else if (t == "full_attention" || t == "attention") {}
    else throw InputError("bad_value", join_path(path, "layer_types") + "[" + std::to_string(li) + "]",
                          "unknown layer type '" + t + "'");
  } else if (p.swa_pattern > 1 && p.window > 0) {
    if (li % p.swa_pattern < p.swa_pattern - 1) L.attn = AttnKind::Sliding;
  } else if (is_qwen_hybrid(mt)) {
    if ((li + 1) % p.full_interval != 0) L.attn = AttnKind::Linear;
  } else if (!p.full_attn_idxs.empty()) {
    if (std::find(p.full_attn_idxs.begin(), p.full_attn_idxs.end(), li) == p.full_attn_idxs.end())
      L.attn = AttnKind::Linear;
  } else if (mt.rfind("llama4", 0) == 0) {
    const std::int64_t step = opt_int(c, "no_rope_layer_interval", path, 1, d.n_layer).value_or(4);
    if (auto chunk = opt_int(c, "attention_chunk_size", path, 1, kMaxTokens);
        chunk && (li + 1) % step != 0) {
      L.attn = AttnKind::Chunked;
      L.window = *chunk;
    }
  } else if (mt == "mistral" && p.window > 0 && p.window < a.n_ctx_train) {
    L.attn = AttnKind::Sliding;  // Mistral 7B v0.1 style window on every layer
  }
  if (L.attn == AttnKind::Sliding) L.window = p.window;
}

// One layer (il >= n_layer: a NextN/MTP layer, which mirrors the last layer).
LayerSpec build_layer(const json& c, const std::string& mt, const std::string& path, const Architecture& a,
                      const Dims& d, const MoeLayers& moe, const AttentionPattern& p, std::int64_t il) {
  LayerSpec L;
  L.is_mtp = il >= d.n_layer;
  L.n_head = d.n_head;
  L.n_head_kv = d.n_head_kv;
  L.head_dim_k = d.head_dim;
  L.head_dim_v = d.head_dim;
  const std::int64_t li = L.is_mtp ? d.n_layer - 1 : il;  // MTP layers mirror the last layer
  if (a.is_mla()) {
    L.attn = AttnKind::MLA;
    L.head_dim_k = a.mla.qk_nope_dim + a.mla.qk_rope_dim;
    L.head_dim_v = a.mla.v_head_dim;
  }
  // ... unless layer_types lists them too (Step 3.5).
  set_attention_kind(c, mt, path, a, d, p, il < static_cast<std::int64_t>(p.layer_types.size()) ? il : li, L);
  if (!p.hybrid.empty()) {
    const char k = p.hybrid[static_cast<std::size_t>(li)];
    if (k == 'M') { L.attn = AttnKind::Linear; L.ffn = FfnKind::None; }
    else if (k == '*') { L.ffn = FfnKind::None; }
    else if (k == '-') { L.attn = AttnKind::None; L.ffn = FfnKind::Dense; }
    else if (k == 'E') { L.attn = AttnKind::None; L.ffn = FfnKind::MoE; }
    else throw InputError("bad_value", join_path(path, "hybrid_override_pattern"),
                          std::string("unknown block letter '") + k + "'");
  }
  if (L.attn == AttnKind::Linear || L.attn == AttnKind::None) {
    L.n_head_kv = 0;
    L.has_kv = false;
  }
  // FFN kind unless the hybrid pattern fixed it.
  if (p.hybrid.empty()) {
    const bool moe_layer =
        a.is_moe() && (moe.mask.empty() ? (li >= moe.first_dense && ((li + 1) % moe.sparse_step == 0 || moe.sparse_step == 1))
                                        : static_cast<bool>(moe.mask[static_cast<std::size_t>(li)])) &&
        std::find(moe.mlp_only.begin(), moe.mlp_only.end(), li) == moe.mlp_only.end();
    L.ffn = moe_layer ? FfnKind::MoE : FfnKind::Dense;
  }
  if (L.ffn == FfnKind::Dense) {
    L.n_ff = moe.dense_ff;
    if (L.n_ff <= 0)
      throw InputError("missing_field", join_path(path, "intermediate_size"),
                       "a dense feed-forward layer needs intermediate_size");
  }
  return L;
}

// The reads run in this order so that a config with several faults reports the same first one.
Architecture build(const json& c, const json& config, const std::string& mt, const Family& fam,
                   const std::string& path, const std::string& path0) {
  Architecture a;
  a.model_type = mt;
  a.gguf_arch = fam.gguf_arch;
  const Dims d = read_dimensions(c, config, mt, fam, path, path0, a);
  read_tensor_flags(c, mt, path, a);
  read_experts(c, mt, path, d.n_ff, a);
  const MoeLayers moe = read_moe_layers(c, mt, path, d, a);
  AttentionPattern pattern;
  pattern.full_attn_idxs = layer_index_list(c, "full_attn_idxs", path, d.n_layer);
  read_mla(c, path, a);
  read_attention_pattern(c, mt, path, d.n_layer, pattern);
  read_recurrent(c, mt, path, a);

  // MTP layers are counted only where llama.cpp's converter writes them into the GGUF. DeepSeek
  // V2/V3 and V3.1 leave theirs out (conversion/deepseek.py, DeepseekV2Model.skip_mtp: layers past
  // num_hidden_layers are dropped; llama-bench prints 671.03B for DeepSeek-V3), and so does DeepSeek
  // V4 (the published GGUFs of it, 1,328 tensors, hold none; its card's 284B does not count it).
  // DeepSeek V3.2 keeps its own (llama.cpp PR #26457, merged 2026-08-02: DeepseekV32Model sets
  // skip_mtp = False and block_count = num_hidden_layers + num_nextn_predict_layers). GLM-5's
  // converter keeps its NextN block too (conversion/glm.py, GlmMoeDsaModel: block_count = 78 + 1,
  // model.layers.78 -> blk.78 unless --no-mtp), so its file holds 79 blocks; llama.cpp drafts with
  // that block since PR #25980 (merged 2026-07, draft-mtp for GLM_DSA), as with GLM-4.5's (#26534).
  const std::int64_t n_mtp = (mt == "glm4_moe" || mt == "step3p5" || mt == "deepseek_v32" || mt == "glm_moe_dsa")
      ? opt_int(c, "num_nextn_predict_layers", path, 0, 16).value_or(0) : 0;
  for (std::int64_t il = 0; il < d.n_layer + n_mtp; ++il) a.layers.push_back(build_layer(c, mt, path, a, d, moe, pattern, il));
  if (mt == "glm_moe_dsa") read_indexer_types(c, path, d.n_layer, a);
  check_architecture_scale(a, path);
  return a;
}

}  // namespace
}  // namespace wif
