// Tensor names and shapes follow llama.cpp's per-architecture loaders (src/llama-model.cpp,
// load_tensors) and tensor name table (src/llama-arch.cpp). Only what affects bytes is modelled.
#include "willitfit/model/tensors.hpp"
#include <string>
#include <string_view>

namespace wif {
namespace {

// A layer tensor's name, "blk.<il>.<what>", spelled out only where names are wanted: counting
// parameters needs shapes and roles, and making every name of every model was most of the time a
// catalog listing took (the models list counts each model's parameters).
struct Name {
  int il;
  const char* what;
};
Name blk(int il, const char* what) { return {il, what}; }

struct Builder {
  std::vector<Tensor>& out;
  GgmlType ftype;
  bool named = true;

  void add(Name n, std::initializer_list<std::int64_t> shape, int layer, TensorRole role) {
    push(n.what, named ? "blk." + std::to_string(n.il) + "." + n.what : std::string(), shape, layer, role);
  }
  void add(const std::string& name, std::initializer_list<std::int64_t> shape, int layer, TensorRole role) {
    push(name, named ? name : std::string(), shape, layer, role);
  }

 private:
  // `tail` is the part of the name the converter's type rule reads (all of it outside the layers).
  void push(std::string_view tail, std::string name, std::initializer_list<std::int64_t> shape,
            int layer, TensorRole role) {
    Tensor t;
    t.name = std::move(name);
    int i = 0;
    for (std::int64_t d : shape) t.ne[i++] = d;
    t.n_dims = static_cast<int>(shape.size());
    while (t.n_dims > 1 && t.ne[t.n_dims - 1] == 1) --t.n_dims;
    t.layer = layer;
    t.role = role;
    constexpr std::string_view kWeight = ".weight";
    const bool weight = tail.size() > kWeight.size() && tail.compare(tail.size() - kWeight.size(), kWeight.size(), kWeight) == 0;
    // Converter (llama.cpp convert_hf_to_gguf.py, ModelBase.prepare_tensors): 1-D tensors, norms, non-".weight" tensors and routers are F32.
    const bool f32 = t.n_dims <= 1 || !weight || role == TensorRole::Norm ||
                     role == TensorRole::Router || role == TensorRole::Bias ||
                     tail.find("ssm_conv1d") != std::string_view::npos ||
                     tail.find("shortconv.conv") != std::string_view::npos;
    t.quantizable = !f32;
    t.type = f32 ? GgmlType::F32 : ftype;
    t.bytes = static_cast<std::uint64_t>(t.n_elements()) * (f32 ? 4u : 2u);
    out.push_back(std::move(t));
  }
};

// DeepSeek V4 attention and hyper-connection mixes (llama.cpp src/models/deepseek4.cpp,
// llama_model_deepseek4::load_arch_tensors; GGUF names as its converter writes them).
void dsv4_attention(Builder& b, const Architecture& a, const LayerSpec& L, int il) {
  const std::int64_t E = a.n_embd, hd = L.head_dim_k, H = L.n_head;
  const auto& v = a.dsv4;
  b.add(blk(il, "attn_sinks.weight"), {H}, il, TensorRole::Norm);
  b.add(blk(il, "attn_q_a.weight"), {E, v.q_lora_rank}, il, TensorRole::AttnOther);
  b.add(blk(il, "attn_q_a_norm.weight"), {v.q_lora_rank}, il, TensorRole::Norm);
  b.add(blk(il, "attn_q_b.weight"), {v.q_lora_rank, H * hd}, il, TensorRole::AttnOther);
  b.add(blk(il, "attn_kv.weight"), {E, hd}, il, TensorRole::AttnOther);
  b.add(blk(il, "attn_kv_a_norm.weight"), {hd}, il, TensorRole::Norm);
  b.add(blk(il, "attn_output_a.weight"), {H * hd / v.o_groups, v.o_lora_rank * v.o_groups}, il, TensorRole::AttnOut);
  b.add(blk(il, "attn_output_b.weight"), {v.o_groups * v.o_lora_rank, E}, il, TensorRole::AttnOut);
  {  // hyper-connection mixes, on the MTP layer too (upstream creates them for every layer)
    const std::int64_t hc_dim = v.hc_mult * E, mix = (2 + v.hc_mult) * v.hc_mult;
    for (const std::string w : {"hc_attn", "hc_ffn"}) {
      // Small mixing matrices, kept unquantized here (Router role); the converter's own type for
      // them is not settled (F16 in some files, F32 in others).
      b.add(blk(il, (w + "_fn.weight").c_str()), {hc_dim, mix}, il, TensorRole::Router);
      b.add(blk(il, (w + "_base.weight").c_str()), {mix}, il, TensorRole::Norm);
      b.add(blk(il, (w + "_scale.weight").c_str()), {3}, il, TensorRole::Norm);
    }
  }
  const std::int64_t r = L.compress_ratio;
  if (r == 0) return;
  const std::int64_t coff = r == 4 ? 2 : 1;  // ratio-4 compressors pool overlapping windows
  b.add(blk(il, "attn_compressor_kv.weight"), {E, coff * hd}, il, TensorRole::AttnOther);
  b.add(blk(il, "attn_compressor_gate.weight"), {E, coff * hd}, il, TensorRole::AttnOther);
  b.add(blk(il, "attn_compressor_ape.weight"), {coff * hd, r}, il, TensorRole::Router);
  b.add(blk(il, "attn_compressor_norm.weight"), {hd}, il, TensorRole::Norm);
  if (r != 4) return;
  const std::int64_t ih = a.indexer_heads, id = a.indexer_head_dim;
  b.add(blk(il, "indexer.proj.weight"), {E, ih}, il, TensorRole::Router);
  b.add(blk(il, "indexer.attn_q_b.weight"), {v.q_lora_rank, ih * id}, il, TensorRole::AttnOther);
  b.add(blk(il, "indexer_compressor_kv.weight"), {E, 2 * id}, il, TensorRole::AttnOther);
  b.add(blk(il, "indexer_compressor_gate.weight"), {E, 2 * id}, il, TensorRole::AttnOther);
  b.add(blk(il, "indexer_compressor_ape.weight"), {2 * id, r}, il, TensorRole::Router);
  b.add(blk(il, "indexer_compressor_norm.weight"), {id}, il, TensorRole::Norm);
}

void attention(Builder& b, const Architecture& a, const LayerSpec& L, int il) {
  const std::int64_t E = a.n_embd;
  if (L.attn == AttnKind::Compressed) {
    dsv4_attention(b, a, L, il);
    return;
  }
  if (L.attn == AttnKind::MLA) {
    const auto& m = a.mla;
    const std::int64_t qk = m.qk_nope_dim + m.qk_rope_dim;
    if (m.q_lora_rank > 0) {
      b.add(blk(il, "attn_q_a.weight"), {E, m.q_lora_rank}, il, TensorRole::AttnOther);
      b.add(blk(il, "attn_q_a_norm.weight"), {m.q_lora_rank}, il, TensorRole::Norm);
      b.add(blk(il, "attn_q_b.weight"), {m.q_lora_rank, L.n_head * qk}, il, TensorRole::AttnOther);
    } else {
      b.add(blk(il, "attn_q.weight"), {E, L.n_head * qk}, il, TensorRole::AttnQ);
    }
    b.add(blk(il, "attn_kv_a_mqa.weight"), {E, m.kv_lora_rank + m.qk_rope_dim}, il, TensorRole::AttnOther);
    b.add(blk(il, "attn_kv_a_norm.weight"), {m.kv_lora_rank}, il, TensorRole::Norm);
    // Current converters split kv_b into per-head K and V absorption matrices.
    b.add(blk(il, "attn_k_b.weight"), {m.qk_nope_dim, m.kv_lora_rank, L.n_head}, il, TensorRole::AttnOther);
    b.add(blk(il, "attn_v_b.weight"), {m.kv_lora_rank, m.v_head_dim, L.n_head}, il, TensorRole::AttnOther);
    // Kimi K3's MLA layers gate the attention output per channel before attn_output
    // (llama.cpp src/models/kimi-k3.cpp, load_arch_tensors: attn_gate {n_embd, n_head x v_head_dim}).
    if (a.mla_out_gate) b.add(blk(il, "attn_gate.weight"), {E, L.n_head * m.v_head_dim}, il, TensorRole::AttnOther);
    b.add(blk(il, "attn_output.weight"), {L.n_head * m.v_head_dim, E}, il, TensorRole::AttnOut);
    if (a.indexer_heads > 0 && (a.gguf_arch == "deepseek32" || a.gguf_arch == "glm-dsa")) {
      // DeepSeek V3.2's lightning indexer as llama.cpp loads it (src/models/deepseek32.cpp,
      // llama_model_deepseek32::load_arch_tensors): a LayerNorm with bias on its single key head.
      // GLM-5's are the same five tensors on every layer, "shared" indexer layers too
      // (src/models/glm-dsa.cpp, llama_model_glm_dsa::load_arch_tensors).
      const std::int64_t ih = a.indexer_heads, id = a.indexer_head_dim;
      b.add(blk(il, "indexer.k_norm.weight"), {id}, il, TensorRole::Norm);
      b.add(blk(il, "indexer.k_norm.bias"), {id}, il, TensorRole::Bias);
      b.add(blk(il, "indexer.proj.weight"), {E, ih}, il, TensorRole::Router);
      b.add(blk(il, "indexer.attn_k.weight"), {E, id}, il, TensorRole::AttnOther);
      b.add(blk(il, "indexer.attn_q_b.weight"), {m.q_lora_rank > 0 ? m.q_lora_rank : E, ih * id}, il,
            TensorRole::AttnOther);
    } else if (a.indexer_heads > 0) {  // DeepSeek sparse attention "lightning indexer"
      const std::int64_t qin = m.q_lora_rank > 0 ? m.q_lora_rank : E;
      b.add(blk(il, "indexer.q_proj.weight"), {qin, a.indexer_heads * a.indexer_head_dim}, il, TensorRole::AttnOther);
      b.add(blk(il, "indexer.k_proj.weight"), {E, a.indexer_head_dim}, il, TensorRole::AttnOther);
      b.add(blk(il, "indexer.k_norm.weight"), {a.indexer_head_dim}, il, TensorRole::Norm);
      b.add(blk(il, "indexer.weights_proj.weight"), {E, a.indexer_heads}, il, TensorRole::Router);
    }
    return;
  }
  if (L.attn == AttnKind::Linear) {
    const auto& r = a.recurrent;
    if (r.kind == "gated_delta_net") {  // Qwen3-Next linear-attention layers
      const std::int64_t key_dim = r.n_k_heads * r.k_head_dim, val_dim = r.n_v_heads * r.v_head_dim;
      b.add(blk(il, "attn_qkv.weight"), {E, 2 * key_dim + val_dim}, il, TensorRole::AttnQKV);
      b.add(blk(il, "attn_gate.weight"), {E, val_dim}, il, TensorRole::AttnOther);
      b.add(blk(il, "ssm_conv1d.weight"), {r.d_conv, 2 * key_dim + val_dim}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_dt.bias"), {r.n_v_heads}, il, TensorRole::Bias);
      b.add(blk(il, "ssm_a"), {r.n_v_heads}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_ba.weight"), {E, 2 * r.n_v_heads}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_norm.weight"), {r.v_head_dim}, il, TensorRole::Norm);
      b.add(blk(il, "ssm_out.weight"), {val_dim, E}, il, TensorRole::Ssm);
    } else if (r.kind == "mamba2") {
      const std::int64_t gs = r.n_group * r.d_state;
      b.add(blk(il, "ssm_in.weight"), {E, 2 * r.d_inner + 2 * gs + r.n_v_heads}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_conv1d.weight"), {r.d_conv, r.d_inner + 2 * gs}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_conv1d.bias"), {r.d_inner + 2 * gs}, il, TensorRole::Bias);
      b.add(blk(il, "ssm_dt.bias"), {r.n_v_heads}, il, TensorRole::Bias);
      b.add(blk(il, "ssm_a"), {1, r.n_v_heads}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_d"), {1, r.n_v_heads}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_norm.weight"), {r.d_inner / r.n_group, r.n_group}, il, TensorRole::Norm);
      b.add(blk(il, "ssm_out.weight"), {r.d_inner, E}, il, TensorRole::Ssm);
    } else if (r.kind == "kda") {  // Kimi Delta Attention (llama.cpp src/models/kimi-linear.cpp)
      const std::int64_t hd = r.k_head_dim, nh = r.n_v_heads, inner = hd * nh;
      b.add(blk(il, "attn_q.weight"), {E, inner}, il, TensorRole::AttnQ);
      b.add(blk(il, "attn_k.weight"), {E, inner}, il, TensorRole::AttnK);
      b.add(blk(il, "attn_v.weight"), {E, inner}, il, TensorRole::AttnV);
      for (const char* c : {"ssm_conv1d_q.weight", "ssm_conv1d_k.weight", "ssm_conv1d_v.weight"})
        b.add(blk(il, c), {r.d_conv, 1, inner}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_f_a.weight"), {E, hd}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_f_b.weight"), {hd, inner}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_beta.weight"), {E, nh}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_a"), {1, nh}, il, TensorRole::Ssm);
      b.add(blk(il, "ssm_dt.bias"), {inner}, il, TensorRole::Bias);
      if (r.full_rank_gate) {  // Kimi K3 (src/models/kimi-k3.cpp): one full-rank output gate
        b.add(blk(il, "ssm_g.weight"), {E, inner}, il, TensorRole::Ssm);
      } else {
        b.add(blk(il, "ssm_g_a.weight"), {E, hd}, il, TensorRole::Ssm);
        b.add(blk(il, "ssm_g_b.weight"), {hd, inner}, il, TensorRole::Ssm);
      }
      b.add(blk(il, "ssm_norm.weight"), {hd}, il, TensorRole::Norm);
      b.add(blk(il, "attn_output.weight"), {inner, E}, il, TensorRole::AttnOut);
    } else if (r.kind == "shortconv") {  // LFM2 convolution blocks
      b.add(blk(il, "shortconv.conv.weight"), {r.l_cache, E}, il, TensorRole::Ssm);
      b.add(blk(il, "shortconv.in_proj.weight"), {E, 3 * E}, il, TensorRole::Ssm);
      b.add(blk(il, "shortconv.out_proj.weight"), {E, E}, il, TensorRole::Ssm);
    }
    return;
  }
  if (L.attn == AttnKind::None) return;
  const std::int64_t q = L.n_head * L.head_dim_k, k = L.n_head_kv * L.head_dim_k,
                     v = L.n_head_kv * L.head_dim_v;
  if (a.fused_qkv) {
    b.add(blk(il, "attn_qkv.weight"), {E, q + k + v}, il, TensorRole::AttnQKV);
  } else {
    // Qwen3-Next full-attention layers project a gate together with the queries.
    const std::int64_t qw = a.attn_out_gate ? 2 * q : q;
    b.add(blk(il, "attn_q.weight"), {E, qw}, il, TensorRole::AttnQ);
    b.add(blk(il, "attn_k.weight"), {E, k}, il, TensorRole::AttnK);
    // Gemma 4 global layers have no v_proj: llama.cpp uses the K projection as V (gemma4.cpp).
    if (!L.v_from_k) b.add(blk(il, "attn_v.weight"), {E, v}, il, TensorRole::AttnV);
    if (a.qkv_bias) {
      b.add(blk(il, "attn_q.bias"), {q}, il, TensorRole::Bias);
      b.add(blk(il, "attn_k.bias"), {k}, il, TensorRole::Bias);
      if (!L.v_from_k) b.add(blk(il, "attn_v.bias"), {v}, il, TensorRole::Bias);
    }
  }
  if (a.qk_norm) {
    b.add(blk(il, "attn_q_norm.weight"), {L.head_dim_k}, il, TensorRole::Norm);
    b.add(blk(il, "attn_k_norm.weight"), {L.head_dim_k}, il, TensorRole::Norm);
  }
  b.add(blk(il, "attn_output.weight"), {L.n_head * L.head_dim_v, E}, il, TensorRole::AttnOut);
  // Step 3.5's head-wise gate (llama.cpp LLM_ARCH_STEP35 load_tensors: attn_gate {n_embd, n_head}).
  if (a.attn_head_gate) b.add(blk(il, "attn_gate.weight"), {E, L.n_head}, il, TensorRole::AttnOther);
  if (a.out_bias) b.add(blk(il, "attn_output.bias"), {E}, il, TensorRole::Bias);
  if (a.attn_sinks) b.add(blk(il, "attn_sinks.weight"), {L.n_head}, il, TensorRole::Norm);
}

void feed_forward(Builder& b, const Architecture& a, const LayerSpec& L, int il) {
  const std::int64_t E = a.n_embd;
  if (L.ffn == FfnKind::Dense) {
    if (a.fused_qkv) {  // Phi-3 fuses gate and up as well
      b.add(blk(il, "ffn_up.weight"), {E, 2 * L.n_ff}, il, TensorRole::FfnUp);
    } else {
      if (a.ffn_gated)  // Nemotron-H MLP is up/down with squared ReLU
        b.add(blk(il, "ffn_gate.weight"), {E, L.n_ff}, il, TensorRole::FfnGate);
      b.add(blk(il, "ffn_up.weight"), {E, L.n_ff}, il, TensorRole::FfnUp);
    }
    b.add(blk(il, "ffn_down.weight"), {L.n_ff, E}, il, TensorRole::FfnDown);
    return;
  }
  if (L.ffn != FfnKind::MoE) return;
  const auto& m = a.moe;
  if (a.gguf_arch == "gemma4") {
    // Gemma 4 26B-A4B (llama.cpp load_tensors, LLM_ARCH_GEMMA4): the dense MLP every layer has,
    // then the router with its input scale, the MoE branch's own norms, fused gate+up expert
    // stacks and a per-expert output scale.
    b.add(blk(il, "ffn_gate.weight"), {E, L.n_ff}, il, TensorRole::FfnGate);
    b.add(blk(il, "ffn_up.weight"), {E, L.n_ff}, il, TensorRole::FfnUp);
    b.add(blk(il, "ffn_down.weight"), {L.n_ff, E}, il, TensorRole::FfnDown);
    b.add(blk(il, "ffn_gate_inp.weight"), {E, m.n_expert}, il, TensorRole::Router);
    b.add(blk(il, "ffn_gate_inp.scale"), {E}, il, TensorRole::Router);
    b.add(blk(il, "pre_ffw_norm_2.weight"), {E}, il, TensorRole::Norm);
    b.add(blk(il, "post_ffw_norm_1.weight"), {E}, il, TensorRole::Norm);
    b.add(blk(il, "post_ffw_norm_2.weight"), {E}, il, TensorRole::Norm);
    b.add(blk(il, "ffn_gate_up_exps.weight"), {E, 2 * m.n_ff_exp, m.n_expert}, il, TensorRole::ExpUp);
    b.add(blk(il, "ffn_down_exps.weight"), {m.n_ff_exp, E, m.n_expert}, il, TensorRole::ExpDown);
    b.add(blk(il, "ffn_down_exps.scale"), {m.n_expert}, il, TensorRole::ExpDown);
    return;
  }
  b.add(blk(il, "ffn_gate_inp.weight"), {E, m.n_expert}, il, TensorRole::Router);
  // DeepSeek V4's first num_hash_layers pick their experts from a token-id table (an integer
  // lookup, 4 bytes a value) and carry no score bias (llama.cpp LLM_TENSOR_FFN_GATE_TID2EID).
  const bool hash_routed = a.gguf_arch == "deepseek4" && !L.is_mtp && il < a.dsv4.hash_layers;
  if (hash_routed) b.add(blk(il, "ffn_gate_tid2eid.weight"), {m.n_expert_used, a.n_vocab}, il, TensorRole::Router);
  if (m.expert_bias) b.add(blk(il, "ffn_gate_inp.bias"), {m.n_expert}, il, TensorRole::Bias);
  if (m.has_router_bias && !hash_routed) b.add(blk(il, "exp_probs_b.bias"), {m.n_expert}, il, TensorRole::Bias);
  // LatentMoE (Nemotron 3 Super; llama.cpp LLM_ARCH_NEMOTRON_H_MOE): the routed experts work in
  // n_latent, entered through ffn_latent_down and left through ffn_latent_up, both always read.
  // Kimi K3 names the same pair ffn_routed_down / ffn_routed_up and may norm the latent output
  // (llama.cpp src/models/kimi-k3.cpp, load_arch_tensors; gguf-py constants FFN_ROUTED_*).
  const std::int64_t X = m.n_latent > 0 ? m.n_latent : E;
  if (m.n_latent > 0) {
    const bool k3 = a.gguf_arch == "kimi-k3";
    b.add(blk(il, k3 ? "ffn_routed_down.weight" : "ffn_latent_down.weight"), {E, X}, il, TensorRole::Other);
    b.add(blk(il, k3 ? "ffn_routed_up.weight" : "ffn_latent_up.weight"), {X, E}, il, TensorRole::Other);
    if (m.latent_norm) b.add(blk(il, "ffn_routed_norm.weight"), {X}, il, TensorRole::Norm);
  }
  if (a.ffn_gated) b.add(blk(il, "ffn_gate_exps.weight"), {X, m.n_ff_exp, m.n_expert}, il, TensorRole::ExpGate);
  b.add(blk(il, "ffn_up_exps.weight"), {X, m.n_ff_exp, m.n_expert}, il, TensorRole::ExpUp);
  b.add(blk(il, "ffn_down_exps.weight"), {m.n_ff_exp, X, m.n_expert}, il, TensorRole::ExpDown);
  if (m.expert_bias) {
    b.add(blk(il, "ffn_gate_exps.bias"), {m.n_ff_exp, m.n_expert}, il, TensorRole::Bias);
    b.add(blk(il, "ffn_up_exps.bias"), {m.n_ff_exp, m.n_expert}, il, TensorRole::Bias);
    b.add(blk(il, "ffn_down_exps.bias"), {E, m.n_expert}, il, TensorRole::Bias);
  }
  if (m.n_shared > 0) {
    const std::int64_t sh = m.n_ff_shexp * m.n_shared;
    if (a.ffn_gated) b.add(blk(il, "ffn_gate_shexp.weight"), {E, sh}, il, TensorRole::FfnGate);
    b.add(blk(il, "ffn_up_shexp.weight"), {E, sh}, il, TensorRole::FfnUp);
    b.add(blk(il, "ffn_down_shexp.weight"), {sh, E}, il, TensorRole::FfnDown);
    if (a.model_type == "qwen2_moe" || a.model_type == "qwen3_next" || a.model_type.rfind("qwen3_5", 0) == 0)
      b.add(blk(il, "ffn_gate_inp_shexp.weight"), {E}, il, TensorRole::Router);
  }
}

std::vector<Tensor> enumerate(const Architecture& a, GgmlType float_type, bool named) {
  std::vector<Tensor> out;
  Builder b{out, float_type, named};
  const std::int64_t E = a.n_embd;
  b.add("token_embd.weight", {E, a.n_vocab}, -1, TensorRole::TokenEmbd);
  b.add("output_norm.weight", {E}, -1, TensorRole::Norm);
  if (!a.tied_embeddings) b.add("output.weight", {E, a.n_vocab}, -1, TensorRole::Output);
  // Kimi K3's attention residuals (llama.cpp src/models/kimi-k3.cpp): one score vector for the
  // final mix, two per layer below.
  if (a.attn_res_block > 0) b.add("output_res_score.weight", {E}, -1, TensorRole::Norm);
  const std::int64_t n_layer = static_cast<std::int64_t>(a.layers.size());
  if (a.dsv4.hc_mult > 0) {  // DeepSeek V4 output hyper-connection collapse (llama.cpp hc_head_*)
    b.add("output_hc_fn.weight", {a.dsv4.hc_mult * E, a.dsv4.hc_mult}, -1, TensorRole::Router);
    b.add("output_hc_base.weight", {a.dsv4.hc_mult}, -1, TensorRole::Norm);
    b.add("output_hc_scale.weight", {1}, -1, TensorRole::Norm);
  }
  if (a.n_embd_per_layer > 0) {
    // Gemma 3n (llama.cpp src/llama-model.cpp load_tensors, LLM_ARCH_GEMMA3N): AltUp projections, the
    // per-layer token table (a lookup, LLM_TENSOR_LAYER_INPUT) and its projection.
    b.add("altup_proj.weight", {E, E, a.n_altup - 1}, -1, TensorRole::Other);
    b.add("altup_unembd_proj.weight", {E, E, a.n_altup - 1}, -1, TensorRole::Other);
    b.add("per_layer_token_embd.weight", {a.n_embd_per_layer * n_layer, a.n_vocab}, -1, TensorRole::TokenEmbd);
    b.add("per_layer_model_proj.weight", {E, a.n_embd_per_layer * n_layer}, -1, TensorRole::Other);
    b.add("per_layer_proj_norm.weight", {a.n_embd_per_layer}, -1, TensorRole::Norm);
  }
  // Gemma 4: one proportional-RoPE frequency table for the global layers, created by the first
  // global layer and shared by the others (TENSOR_DUPLICATED), half their head width.
  if (a.gguf_arch == "gemma4")
    for (const auto& L : a.layers)
      if (L.attn == AttnKind::Full) {
        b.add("rope_freqs.weight", {L.head_dim_k / 2}, -1, TensorRole::Norm);
        break;
      }
  for (int il = 0; il < static_cast<int>(a.layers.size()); ++il) {
    const LayerSpec& L = a.layers[il];
    // Every block has this pre-norm, Nemotron-H's MLP and MoE blocks too (llama.cpp load_tensors,
    // LLM_ARCH_NEMOTRON_H: "all blocks use the attn norm").
    b.add(blk(il, "attn_norm.weight"), {E}, il, TensorRole::Norm);
    attention(b, a, L, il);
    if (a.post_norms) b.add(blk(il, "post_attention_norm.weight"), {E}, il, TensorRole::Norm);
    if (L.ffn != FfnKind::None) {
      if (a.model_type != "nemotron_h") b.add(blk(il, "ffn_norm.weight"), {E}, il, TensorRole::Norm);
      if (a.attn_res_block > 0) {
        b.add(blk(il, "attn_res_score.weight"), {E}, il, TensorRole::Norm);
        b.add(blk(il, "ffn_res_score.weight"), {E}, il, TensorRole::Norm);
      }
      feed_forward(b, a, L, il);
      if (a.post_norms) b.add(blk(il, "post_ffw_norm.weight"), {E}, il, TensorRole::Norm);
    }
    if (a.gguf_arch == "gemma4") b.add(blk(il, "layer_output_scale.weight"), {1}, il, TensorRole::Norm);
    if (a.n_embd_per_layer > 0) {  // Gemma 3n per-layer input gate, AltUp and LAuReL blocks
      const std::int64_t P = a.n_embd_per_layer, n = a.n_altup, r = a.laurel_rank;
      b.add(blk(il, "inp_gate.weight"), {E, P}, il, TensorRole::Other);
      b.add(blk(il, "proj.weight"), {P, E}, il, TensorRole::Other);
      b.add(blk(il, "post_norm.weight"), {E}, il, TensorRole::Norm);
      b.add(blk(il, "altup_correct_coef.weight"), {n, n}, il, TensorRole::Other);
      b.add(blk(il, "altup_correct_scale.weight"), {E}, il, TensorRole::Other);
      b.add(blk(il, "altup_predict_coef.weight"), {n, n * n}, il, TensorRole::Other);
      b.add(blk(il, "altup_router.weight"), {E, n}, il, TensorRole::Other);
      b.add(blk(il, "altup_router_norm.weight"), {E}, il, TensorRole::Norm);
      b.add(blk(il, "laurel_l.weight"), {E, r}, il, TensorRole::Other);
      b.add(blk(il, "laurel_r.weight"), {r, E}, il, TensorRole::Other);
      b.add(blk(il, "laurel_post_norm.weight"), {E}, il, TensorRole::Norm);
    }
    if (L.is_mtp) {  // NextN block extras
      b.add(blk(il, "nextn.eh_proj.weight"), {2 * E, E}, il, TensorRole::Other);
      b.add(blk(il, "nextn.enorm.weight"), {E}, il, TensorRole::Norm);
      b.add(blk(il, "nextn.hnorm.weight"), {E}, il, TensorRole::Norm);
      b.add(blk(il, "nextn.shared_head_norm.weight"), {E}, il, TensorRole::Norm);
      // Step 3.5's MTP blocks each keep their own output head (nextn.shared_head_head in
      // llama.cpp's LLM_ARCH_STEP35 loader; the checkpoint's shared_head.output).
      if (a.gguf_arch == "step35")
        b.add(blk(il, "nextn.shared_head_head.weight"), {E, a.n_vocab}, il, TensorRole::Other);
      // The block's own embedding and head copies, where the checkpoint holds them: llama.cpp's
      // converter writes every tensor of the MTP layer (DeepseekV32Model with skip_mtp = False for
      // V3.2's model.layers.61.*; Glm4MoeModel for GLM-4.5's model.layers.46.* or .92.*) and the
      // loader takes them as nextn.embed_tokens and nextn.shared_head_head, optional since
      // https://github.com/ggml-org/llama.cpp/pull/16359 because GLM-4.6's checkpoint has none.
      if (a.gguf_arch == "deepseek32" || a.mtp_embed_head_copies) {
        b.add(blk(il, "nextn.embed_tokens.weight"), {E, a.n_vocab}, il, TensorRole::Other);
        b.add(blk(il, "nextn.shared_head_head.weight"), {E, a.n_vocab}, il, TensorRole::Other);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<Tensor> enumerate_tensors(const Architecture& a, GgmlType float_type) { return enumerate(a, float_type, true); }

ParamCounts count_params(const Architecture& a) {
  ParamCounts pc;
  const double used_frac =
      a.is_moe() ? static_cast<double>(a.moe.n_expert_used) / static_cast<double>(a.moe.n_expert) : 1.0;
  double active = 0;
  for (const auto& t : enumerate(a, GgmlType::BF16, false)) {
    const std::int64_t n = t.n_elements();
    pc.total += n;
    if (t.role == TensorRole::TokenEmbd) pc.embedding += n;
    const bool mtp = t.layer >= 0 && a.layers[static_cast<std::size_t>(t.layer)].is_mtp;
    if (mtp) pc.mtp += n;
    if (t.is_expert()) {
      pc.experts += n;
      if (!mtp) active += static_cast<double>(n) * used_frac;
    } else if (!mtp && t.role != TensorRole::TokenEmbd) {
      active += static_cast<double>(n);
    }
  }
  // The embedding lookup reads one row; tied models still read the full matrix as the output.
  if (a.tied_embeddings) active += static_cast<double>(a.n_embd) * static_cast<double>(a.n_vocab);
  pc.active = static_cast<std::int64_t>(active);
  return pc;
}

}  // namespace wif
