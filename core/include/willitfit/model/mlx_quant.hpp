// MLX checkpoints as mlx-lm writes them (ml-explore/mlx-lm mlx_lm/utils.py quantize_model, and
// mlx.nn.quantize in ml-explore/mlx python/mlx/nn/layers/quantized.py): which tensors are
// quantized, in which mode, with how many bits per group, and the bytes that makes.
//
//  * affine (mlx-lm's default mode): `bits` 2, 3, 4, 5, 6 or 8 per weight, packed into uint32
//    words, and per group of `group_size` (default 64; 32 and 128 exist) one scale and one bias
//    in the model's float type: 4-bit g64 costs 4 + 2 x 16 / 64 = 4.5 bits per weight.
//  * mxfp4 (group 32) and mxfp8 (group 32): one 8-bit power-of-two scale per group, no bias;
//    nvfp4 (group 16): one 8-bit FP8 scale per group (quantize_model's defaults_for_mode).
//  * Quantized: every module with `to_quantized` (Linear, Embedding, the MoE SwitchLinear
//    stacks) whose input width is a multiple of the group size (quantize_model's
//    wrapped_predicate). Norms, biases and the SSM convolutions stay in the float type.
//  * MoE routers (`mlp.gate`): 8-bit affine with group 64 whatever the main bits, by the models'
//    own quant_predicate (e.g. mlx_lm/models/qwen3_moe.py Model.quant_predicate).
//  * BF16 / FP16: the unquantized checkpoint in that float type.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "willitfit/model/architecture.hpp"
#include "willitfit/model/tensors.hpp"

namespace wif {

struct MlxFormat {
  std::string id;          // "MLX-4bit", "MLX-4bit-g32", "MLX-MXFP4", "MLX-BF16" …
  std::string mode;        // affine | mxfp4 | nvfp4 | mxfp8 | float
  int bits = 16;           // bits per quantized weight (16 for float)
  int group_size = 0;      // weights per scale (0 for float)
  int scale_bytes = 0;     // bytes of one group's scale (+ bias): 2 x 2 affine, 1 for the fp modes
  std::string float_type;  // "bf16" | "fp16": MLX-BF16 / MLX-FP16 only ("" = the model's own)
  /// Bits per weight of a quantized tensor, its group metadata included.
  double bits_per_weight() const;
};

/// Every MLX format id the planner accepts: affine 2/3/4/5/6/8-bit with groups 64, 32 and 128
/// (the group-64 ids carry no suffix), the mxfp4 / nvfp4 / mxfp8 modes, and BF16 / FP16.
const std::vector<MlxFormat>& mlx_formats();

/// The format of an id (case-insensitive), or nullopt.
std::optional<MlxFormat> find_mlx_format(const std::string& id);

/// The tensors of an MLX checkpoint, their bytes and the safetensors header estimate
/// (quantize.hpp plan_quantization makes a TensorPlan of it).
struct MlxTensors {
  std::vector<Tensor> tensors;
  std::uint64_t weights_bytes = 0;
  std::uint64_t header_bytes = 0;
};

/// Plan the tensors of `arch` as an MLX checkpoint of format `f`: each tensor's bytes (scales and
/// biases included), with `type` F16/BF16 for float tensors and a ggml type of like width for
/// quantized ones (Q8_0 for 8-bit, Q4_0 below; only for display).
MlxTensors plan_mlx(const Architecture& arch, const MlxFormat& f);

}  // namespace wif
