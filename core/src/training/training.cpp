// Training memory model. Sources for the rules are named where they are used; coefficients for
// activations were checked against data/measurements/finetune_memory.jsonl (tests/training_test).
#include "willitfit/training/training.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/model/tensors.hpp"

namespace wif {
namespace {

using units::kGiB;

bool targeted(const TrainOptions& o, const char* name) {
  return std::find(o.lora_targets.begin(), o.lora_targets.end(), name) != o.lora_targets.end();
}

// Which LoRA target a weight belongs to ("" = not a linear layer LoRA attaches to).
const char* lora_target(TensorRole r) {
  switch (r) {
    case TensorRole::AttnQ: return "q";
    case TensorRole::AttnK: return "k";
    case TensorRole::AttnV: return "v";
    case TensorRole::AttnQKV: return "qkv";
    case TensorRole::AttnOther: return "qkv";   // MLA q_a/q_b/kv_a/kv_b, gates: attention inputs
    case TensorRole::AttnOut: return "o";
    case TensorRole::FfnGate: case TensorRole::ExpGate: return "gate";
    case TensorRole::FfnUp: case TensorRole::ExpUp: return "up";
    case TensorRole::FfnDown: case TensorRole::ExpDown: return "down";
    default: return "";
  }
}

bool is_linear(const Tensor& t) { return t.quantizable && t.role != TensorRole::TokenEmbd && t.role != TensorRole::Output; }

// Adafactor keeps a row and a column second-moment vector per matrix (Shazeer & Stern 2018, §3),
// no first moment by default; vectors keep a full second moment. fp32 each.
double adafactor_bytes(std::int64_t rows, std::int64_t cols, std::int64_t mats) {
  if (cols <= 1) return 4.0 * static_cast<double>(rows) * static_cast<double>(mats);
  return 4.0 * static_cast<double>(rows + cols) * static_cast<double>(mats);
}

double optimizer_bytes_per_param(Optimizer o) {
  switch (o) {
    case Optimizer::AdamW: case Optimizer::PagedAdamW: return 8.0;          // m and v in fp32
    case Optimizer::AdamW8bit: case Optimizer::PagedAdamW8bit: return 2.0;  // bitsandbytes 8-bit m, v
    case Optimizer::SgdMomentum: return 4.0;                                // momentum buffer
    case Optimizer::Adafactor: return 0.0;                                  // computed per tensor
  }
  return 8.0;
}

// Bytes kept per token for the backward pass of one layer, activations in bf16. Counted from the
// saved tensors of a pre-norm decoder block with flash attention: block input and normed input,
// q/k/v, attention output and its log-sum-exp, the FFN input, gate and up outputs and their
// product (after Korthikanti et al. 2022, "Reducing Activation Recomputation", §4, which counts
// 34*h bytes per token for a GPT block with a 4h MLP).
double layer_bytes_per_token(const Architecture& a, const LayerSpec& L, const TrainOptions& o) {
  const double h = static_cast<double>(a.n_embd);
  double attn = 0;
  switch (L.attn) {
    case AttnKind::Full: case AttnKind::Sliding: case AttnKind::Chunked: {
      const double q = static_cast<double>(L.n_head * L.head_dim_k) * (a.attn_out_gate ? 2.0 : 1.0);
      const double kv = static_cast<double>(L.n_head_kv * (L.head_dim_k + L.head_dim_v));
      attn = 2.0 * (2.0 * h + 2.0 * q + kv);
      break;
    }
    case AttnKind::MLA: {  // keys and values are decompressed per head during training
      const auto& m = a.mla;
      const double qk = static_cast<double>(L.n_head * (m.qk_nope_dim + m.qk_rope_dim));
      const double v = static_cast<double>(L.n_head * m.v_head_dim);
      attn = 2.0 * (2.0 * h + static_cast<double>(m.q_lora_rank + m.kv_lora_rank) + 2.0 * qk + qk + 2.0 * v);
      break;
    }
    case AttnKind::Linear: {
      const double inner = static_cast<double>(std::max(a.recurrent.d_inner, a.n_embd));
      attn = 2.0 * (2.0 * h + 4.0 * inner);
      break;
    }
    case AttnKind::None: break;
    case AttnKind::Compressed:
      throw InputError("training_not_modelled", "model",
                       "training DeepSeek V4's compressed attention and hyper-connections is not modelled yet");
  }
  if (!o.flash_attn && L.attn != AttnKind::Linear && L.attn != AttnKind::None) {
    // Eager attention keeps the softmax output: heads x keys per token, bf16 (Korthikanti §4.1).
    std::int64_t keys = o.seq;
    if ((L.attn == AttnKind::Sliding || L.attn == AttnKind::Chunked) && L.window > 0) keys = std::min(keys, L.window);
    attn += 2.0 * static_cast<double>(L.n_head) * static_cast<double>(keys);
  }
  double ffn = 0;
  if (L.ffn == FfnKind::Dense) {
    ffn = 2.0 * (2.0 * h + 3.0 * static_cast<double>(L.n_ff));
  } else if (L.ffn == FfnKind::MoE) {
    // Each token passes through its routed experts and the shared ones; the router logits are tiny.
    const auto& m = a.moe;
    const double routed = static_cast<double>(m.n_expert_used * m.n_ff_exp);
    const double shared = static_cast<double>(m.n_shared * m.n_ff_shexp);
    ffn = 2.0 * (2.0 * h + static_cast<double>(m.n_expert_used) * h + 3.0 * (routed + shared));
    ffn += 2.0 * 3.0 * static_cast<double>(L.n_ff);   // Gemma 4: a dense MLP beside the experts (0 elsewhere)
  }
  return attn + ffn;
}

struct Plan {
  double trainable_w = 0, frozen_w = 0;  // bytes of weights
  double grads = 0, master = 0, optim = 0;
  double largest_layer_w = 0;            // bytes of the largest layer as computed (bf16)
  double largest_tensor = 0;             // elements of the largest linear weight
  TrainParams params;
};

Plan plan_states(const Architecture& a, const TrainOptions& o) {
  Plan p;
  const double wbytes = o.mixed_precision ? 2.0 : 4.0;
  const double opt_pp = optimizer_bytes_per_param(o.optimizer);
  std::vector<double> layer_bytes(a.layers.size(), 0.0);
  for (const auto& t : enumerate_tensors(a)) {
    const bool mtp = t.layer >= 0 && a.layers[static_cast<std::size_t>(t.layer)].is_mtp;
    if (mtp) continue;
    const double n = static_cast<double>(t.n_elements());
    p.params.total += t.n_elements();
    if (t.layer >= 0) layer_bytes[static_cast<std::size_t>(t.layer)] += 2.0 * n;
    if (is_linear(t)) p.largest_tensor = std::max(p.largest_tensor, n / static_cast<double>(t.ne[2] * t.ne[3]));
    if (o.method == TrainMethod::Full) {
      p.params.trainable += t.n_elements();
      p.trainable_w += wbytes * n;
      p.grads += wbytes * n;
      if (o.mixed_precision) p.master += 4.0 * n;
      p.optim += o.optimizer == Optimizer::Adafactor ? adafactor_bytes(t.ne[0], t.n_dims > 1 ? t.ne[1] : 1, t.ne[2] * t.ne[3])
                                                     : opt_pp * n;
      continue;
    }
    // LoRA / QLoRA: the base is frozen; QLoRA stores its linear layers as NF4 (bitsandbytes
    // leaves embeddings, the output head and norms in bf16).
    p.params.frozen += t.n_elements();
    const bool nf4 = o.method == TrainMethod::Qlora && is_linear(t) && t.role != TensorRole::Router;
    if (nf4) {
      p.params.quantized += t.n_elements();
      p.frozen_w += nf4_bytes_per_param(o.double_quant) * n;
    } else {
      const bool upcast = o.method == TrainMethod::Qlora && o.kbit_prep_fp32;
      p.frozen_w += (o.mixed_precision && !upcast ? 2.0 : 4.0) * n;
    }
    const std::string tgt = lora_target(t.role);
    const bool hit = tgt == "qkv" ? (targeted(o, "q") || targeted(o, "k") || targeted(o, "v"))
                                  : (!tgt.empty() && targeted(o, tgt.c_str()));
    if (!hit || t.n_dims < 2) continue;
    // One adapter pair per matrix: A (in x r) and B (r x out); experts each get their own pair.
    std::int64_t in = t.ne[0], out = t.ne[1], mats = t.ne[2] * t.ne[3];
    if (t.role == TensorRole::AttnOther && t.n_dims == 3) { out = t.ne[1] * t.ne[2]; mats = 1; }
    const double r = static_cast<double>(o.lora_rank);
    const double np = r * static_cast<double>(in + out) * static_cast<double>(mats);
    p.params.trainable += static_cast<std::int64_t>(np);
    // PEFT keeps adapter weights in fp32 under bf16 autocast, so there is no separate master copy.
    const double ab = o.adapters_fp32 || !o.mixed_precision ? 4.0 : 2.0;
    p.trainable_w += ab * np;
    p.grads += ab * np;
    p.optim += o.optimizer == Optimizer::Adafactor
                   ? adafactor_bytes(in, o.lora_rank, mats) + adafactor_bytes(o.lora_rank, out, mats)
                   : opt_pp * np;
  }
  for (double b : layer_bytes) p.largest_layer_w = std::max(p.largest_layer_w, b);
  return p;
}

}  // namespace

double nf4_bytes_per_param(bool double_quant) {
  // 4-bit codes plus one scale per 64 weights: fp32 (0.5 bit/param), or 8-bit with an fp32
  // second-level scale per 256 blocks (8/64 + 32/(64*256) = 0.127 bit/param).
  const double scale_bits = double_quant ? 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 32.0 / 64.0;
  return (4.0 + scale_bits) / 8.0;
}

TrainMemory training_memory(const Architecture& a, const TrainOptions& o) {
  if (o.gpus < 1) throw InputError("bad_value", "gpus", "gpus must be at least 1");
  if (o.zero < 0 || o.zero > 3) throw InputError("bad_value", "zero", "zero must be 0, 1, 2 or 3");
  if (o.offload == Offload::Params && o.zero != 3)
    throw InputError("bad_value", "offload", "offloading parameters needs ZeRO stage 3 (or FSDP)");
  if (o.method == TrainMethod::Qlora && !o.mixed_precision)
    throw InputError("bad_value", "precision", "QLoRA computes in bf16; fp32 does not apply");
  // Kimi K3's attention residuals keep every banked checkpoint alive through the backward pass
  // and its latent experts change what each token stores: not modelled, so refused like
  // DeepSeek V4's compressed attention rather than sized as Kimi Linear.
  if (a.gguf_arch == "kimi-k3")
    throw InputError("training_not_modelled", "model", "training Kimi K3's attention residuals and latent experts is not modelled yet");
  const Plan p = plan_states(a, o);
  const double N = static_cast<double>(o.gpus);
  TrainMemory m;
  m.params = p.params;

  // Sharding (ZeRO paper §5): stage 1 splits optimizer states (with the fp32 master), stage 2 also
  // gradients, stage 3 also the parameters. Plain data parallel replicates everything.
  double frozen_w = p.frozen_w;
  double weights = p.trainable_w + p.frozen_w, grads = p.grads, master = p.master, optim = p.optim;
  m.state_bytes_per_param = p.params.trainable > 0
      ? (p.trainable_w + p.grads + p.master + p.optim) / static_cast<double>(p.params.trainable) : 0.0;
  if (o.zero >= 1) { optim /= N; master /= N; }
  if (o.zero >= 2) grads /= N;
  double workspace = 0;
  if (o.zero >= 3) {
    weights /= N;
    frozen_w /= N;
    workspace += 2.0 * p.largest_layer_w;  // the layer being computed and the one prefetched
  }
  double cpu = 0;
  if (o.offload != Offload::None) {  // ZeRO-Offload keeps optimizer states and master on the CPU
    cpu += optim + master;
    optim = 0;
    master = 0;
  }
  if (o.offload == Offload::Params) {
    cpu += weights;
    weights = 0;
    frozen_w = 0;
  }
  if (o.method == TrainMethod::Qlora) workspace += 2.0 * p.largest_tensor;  // one dequantized weight

  // Activations for one micro-batch.
  const double tokens = static_cast<double>(o.batch) * static_cast<double>(o.seq);
  double per_layer_max = 0, all_layers = 0;
  std::int64_t n_layers = 0;
  for (const auto& L : a.layers) {
    if (L.is_mtp) continue;
    const double b = layer_bytes_per_token(a, L, o);
    per_layer_max = std::max(per_layer_max, b);
    all_layers += b;
    ++n_layers;
  }
  const double h2 = 2.0 * static_cast<double>(a.n_embd);  // one bf16 hidden state per token
  double act;
  if (!o.checkpointing) {
    act = tokens * all_layers;
  } else if (o.offload_activations) {
    // Checkpoints stream to CPU RAM; the GPU holds the layer being recomputed and two inputs.
    act = tokens * (per_layer_max + 2.0 * h2);
    cpu += tokens * h2 * static_cast<double>(n_layers);
  } else {
    act = tokens * (h2 * static_cast<double>(n_layers) + per_layer_max);
  }
  // Logits: bf16 logits (2 B), their fp32 copy and its gradient (4 + 4) for the standard loss; an
  // fp32 output head (QLoRA after PEFT's k-bit preparation) yields fp32 logits (4 + 4 + 4).
  const double V = static_cast<double>(a.n_vocab);
  const bool fp32_head = !o.mixed_precision || (o.method == TrainMethod::Qlora && o.kbit_prep_fp32);
  double logits = 0;
  switch (o.loss) {
    case LossKind::Standard: logits = tokens * V * (fp32_head ? 12.0 : 10.0); break;
    case LossKind::Chunked: logits = tokens * V * 3.0; break;  // bf16 logits + one fp32 chunk of 8
    case LossKind::Fused: logits = std::min(tokens, 4096.0) * V * 4.0; break;
  }

  m.weights_bytes = static_cast<std::uint64_t>(weights);
  m.frozen_weights_bytes = std::min(m.weights_bytes, static_cast<std::uint64_t>(frozen_w));
  m.trainable_weights_bytes = m.weights_bytes - m.frozen_weights_bytes;
  m.gradients_bytes = static_cast<std::uint64_t>(grads);
  m.master_bytes = static_cast<std::uint64_t>(master);
  m.optimizer_bytes = static_cast<std::uint64_t>(optim);
  m.activations_bytes = static_cast<std::uint64_t>(act);
  m.logits_bytes = static_cast<std::uint64_t>(logits);
  m.workspace_bytes = static_cast<std::uint64_t>(workspace);
  m.tensors_bytes = m.weights_bytes + m.gradients_bytes + m.master_bytes + m.optimizer_bytes +
                    m.activations_bytes + m.logits_bytes + m.workspace_bytes;
  // PyTorch's CUDA context (~0.5 GiB) and caching-allocator slack (reserved above allocated, a
  // few percent at peak) sit outside the tensors.
  m.runtime_bytes = static_cast<std::uint64_t>(0.5 * kGiB + 0.05 * static_cast<double>(m.tensors_bytes));
  m.total_bytes = m.tensors_bytes + m.runtime_bytes;
  m.cpu_bytes = static_cast<std::uint64_t>(cpu);
  return m;
}

const char* train_method_name(TrainMethod m) {
  switch (m) {
    case TrainMethod::Full: return "full";
    case TrainMethod::Lora: return "lora";
    case TrainMethod::Qlora: return "qlora";
  }
  return "lora";
}

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::AdamW: return "adamw";
    case Optimizer::AdamW8bit: return "adamw_8bit";
    case Optimizer::PagedAdamW: return "paged_adamw";
    case Optimizer::PagedAdamW8bit: return "paged_adamw_8bit";
    case Optimizer::Adafactor: return "adafactor";
    case Optimizer::SgdMomentum: return "sgd";
  }
  return "adamw";
}

}  // namespace wif
