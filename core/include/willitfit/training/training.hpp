// Memory needed to fine-tune a model: full fine-tuning, LoRA and QLoRA, on one GPU or several
// (data parallel, ZeRO 1/2/3 or FSDP, CPU offload), per GPU and by term, with a verdict and the
// cheapest catalog device (and count) that fits. Works from the Architecture and its tensor list
// (tensors.hpp), so every model the catalog or a config.json describes is covered.
//
// Terms (bytes per GPU):
//   weights     trainable weights in the compute dtype, frozen base (bf16, or NF4 for QLoRA)
//   gradients   one per trainable parameter (bf16 under mixed precision, fp32 otherwise)
//   master      fp32 copy of bf16 trainable weights under mixed precision (full fine-tuning)
//   optimizer   optimizer state per trainable parameter (AdamW 8 B, 8-bit AdamW 2 B, SGD 4 B,
//               Adafactor: factored row+column statistics)
//   activations tensors kept for the backward pass, from batch x sequence, hidden size and layers;
//               gradient checkpointing keeps one layer input per layer and recomputes one layer
//   logits      the output projection over the vocabulary (large for 150K+ vocabularies)
//   workspace   gathered layer under ZeRO-3, dequantized layer under QLoRA
//   runtime     CUDA context and allocator slack (not seen by torch.cuda.max_memory_allocated)
// The ZeRO paper (Rajbhandari et al. 2020, §3) gives 2+2+12 = 16 bytes per parameter for mixed
// precision Adam; QLoRA (Dettmers et al. 2023, §3) gives 4 bits + 0.127 bits with double
// quantization (0.5 bits without) for the NF4 base.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/model/architecture.hpp"

namespace wif {

enum class TrainMethod { Full, Lora, Qlora };
enum class Optimizer { AdamW, AdamW8bit, PagedAdamW, PagedAdamW8bit, Adafactor, SgdMomentum };
/// How the loss over the vocabulary is computed: "standard" materializes bf16 logits, an fp32
/// copy and its gradient (Hugging Face); "chunked" keeps bf16 logits and upcasts one chunk at a
/// time (torchtune); "fused" never materializes the full logits (Unsloth, Liger, cut-cross-entropy).
enum class LossKind { Standard, Chunked, Fused };
enum class Offload { None, Optimizer, Params };

struct TrainOptions {
  TrainMethod method = TrainMethod::Lora;
  Optimizer optimizer = Optimizer::AdamW;
  bool mixed_precision = true;     // bf16 compute; false = everything in fp32
  int lora_rank = 16;
  std::vector<std::string> lora_targets{"q", "k", "v", "o", "gate", "up", "down"};
  bool double_quant = true;        // QLoRA: quantize the NF4 block scales again
  bool adapters_fp32 = true;       // PEFT keeps adapters in fp32 under bf16 autocast; torchtune and
                                   // Unsloth keep them in bf16 (with bf16 grads and fp32 Adam states)
  bool kbit_prep_fp32 = true;      // QLoRA through PEFT's prepare_model_for_kbit_training casts the
                                   // weights left unquantized (embeddings, head, norms) to fp32
  std::int64_t batch = 1;          // micro-batch per GPU
  std::int64_t seq = 2048;
  bool checkpointing = true;
  bool offload_activations = false;  // checkpointed layer inputs kept in CPU RAM (Unsloth)
  bool flash_attn = true;
  LossKind loss = LossKind::Standard;
  int gpus = 1;
  int zero = 0;                    // 0 = plain data parallel, 1/2/3 = ZeRO stage (3 = FSDP)
  Offload offload = Offload::None;
};

struct TrainParams {
  std::int64_t total = 0;       // model parameters (MTP layers excluded: trainers do not load them)
  std::int64_t trainable = 0;   // full: total; LoRA/QLoRA: adapter parameters
  std::int64_t frozen = 0;      // base parameters that are not trained
  std::int64_t quantized = 0;   // QLoRA: base parameters stored as NF4
};

struct TrainMemory {
  TrainParams params;
  std::uint64_t weights_bytes = 0, gradients_bytes = 0, master_bytes = 0, optimizer_bytes = 0,
                activations_bytes = 0, logits_bytes = 0, workspace_bytes = 0, runtime_bytes = 0;
  // weights_bytes in its two parts: the frozen base (LoRA: bf16; QLoRA: NF4 with the layers
  // left unquantized; full fine-tuning: none) and the trained weights (full: every weight in the
  // compute dtype; LoRA/QLoRA: the adapters, fp32 under PEFT). frozen + trainable = weights.
  std::uint64_t frozen_weights_bytes = 0, trainable_weights_bytes = 0;
  std::uint64_t tensors_bytes = 0;  // everything above but runtime: what torch reports as peak
  std::uint64_t total_bytes = 0;    // tensors + runtime: what must fit on each GPU
  std::uint64_t cpu_bytes = 0;      // offloaded optimizer / parameters / activations in system RAM
  double state_bytes_per_param = 0; // (weights+gradients+master+optimizer) per trainable param on
                                    // one GPU without sharding (16 for full AdamW mixed precision)
};

/// Per-GPU training memory. Throws InputError for impossible settings (e.g. params offload
/// without ZeRO-3).
TrainMemory training_memory(const Architecture& arch, const TrainOptions& o);

/// Bytes the QLoRA base occupies per quantized parameter: 4 bits plus the block scales.
double nf4_bytes_per_param(bool double_quant);

struct TrainRequest {
  ResolvedModel model;
  Device device;
  TrainOptions opt;
  MemoryOverrides overrides;
  int owned = 1;  // how many of `device` the person has (request "count"): the advice counts from it
};

TrainRequest parse_train_request(const Catalog& cat, const nlohmann::json& q);

/// The result document: per-GPU memory by term, verdict against the device, the least number of
/// the chosen device that fits (ZeRO-3 beyond one GPU; min_count_detail gives each GPU's bytes
/// there and whether a machine holds that many), and the cheapest catalog GPU set that fits among
/// devices the fine-tuning stack runs on (data/backends.json `training`). memory.per_gpu_basis:
/// one_gpu, replicated (several GPUs without ZeRO: every GPU holds the full total) or sharded.
/// advice {code: own_device | cheapest_set | none_within_caps, id, name, count, zero,
/// per_gpu_bytes, instead[{code: qlora, count} | {code: one_gpu_memory, memory_bytes}] when the
/// own device needs more cards than a machine holds, own_device: training_stack_not_verified}.
nlohmann::json train_to_json(const Catalog& cat, const TrainRequest& r);

const char* train_method_name(TrainMethod m);
const char* optimizer_name(Optimizer o);

}  // namespace wif
