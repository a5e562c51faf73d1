// MLX checkpoint sizes, restated from ml-explore/mlx-lm mlx_lm/utils.py (quantize_model:
// defaults_for_mode, wrapped_predicate) and the models' quant_predicate (mlx_lm/models/
// qwen3_moe.py: the router `mlp.gate` at 8 bits, group 64).
#include "willitfit/model/mlx_quant.hpp"

#include <cmath>

#include "willitfit/base/text.hpp"

namespace wif {

double MlxFormat::bits_per_weight() const {
  if (group_size <= 0) return static_cast<double>(bits);
  return static_cast<double>(bits) + 8.0 * static_cast<double>(scale_bytes) / static_cast<double>(group_size);
}

const std::vector<MlxFormat>& mlx_formats() {
  static const std::vector<MlxFormat> v = [] {
    std::vector<MlxFormat> out;
    for (int group : {64, 32, 128})
      for (int bits : {8, 6, 5, 4, 3, 2}) {
        MlxFormat f;
        f.id = "MLX-" + std::to_string(bits) + "bit" + (group == 64 ? "" : "-g" + std::to_string(group));
        f.mode = "affine";
        f.bits = bits;
        f.group_size = group;
        f.scale_bytes = 4;  // a scale and a bias in the model's 16-bit float type
        out.push_back(f);
      }
    out.push_back({"MLX-MXFP4", "mxfp4", 4, 32, 1, ""});
    out.push_back({"MLX-NVFP4", "nvfp4", 4, 16, 1, ""});
    out.push_back({"MLX-MXFP8", "mxfp8", 8, 32, 1, ""});
    out.push_back({"MLX-BF16", "float", 16, 0, 0, "bf16"});
    out.push_back({"MLX-FP16", "float", 16, 0, 0, "fp16"});
    return out;
  }();
  return v;
}

std::optional<MlxFormat> find_mlx_format(const std::string& id) {
  for (const auto& f : mlx_formats())
    if (text::iequals(f.id, id)) return f;
  return std::nullopt;
}

MlxTensors plan_mlx(const Architecture& arch, const MlxFormat& f) {
  MlxTensors plan;
  const bool fp16 = f.float_type == "fp16" || (f.float_type.empty() && arch.native_dtype == "fp16");
  const GgmlType flt = fp16 ? GgmlType::F16 : GgmlType::BF16;
  plan.tensors = enumerate_tensors(arch, flt);
  // What an MLX checkpoint does not hold: llama.cpp's precomputed rope_freqs (mlx-lm computes the
  // Llama 3 RoPE scaling in the model) and the MTP / NextN layers, which the models' sanitize
  // drops on conversion (e.g. mlx_lm/models/deepseek_v3.py removes layers past num_hidden_layers).
  std::vector<Tensor> kept;
  for (auto& t : plan.tensors) {
    const bool mtp = t.layer >= 0 && static_cast<std::size_t>(t.layer) < arch.layers.size() &&
                     arch.layers[static_cast<std::size_t>(t.layer)].is_mtp;
    if (t.name == "rope_freqs.weight" || mtp) continue;
    kept.push_back(std::move(t));
  }
  plan.tensors = std::move(kept);
  // The router's own setting (quant_predicate): affine 8-bit, group 64.
  MlxFormat router = f;
  router.mode = "affine";
  router.bits = 8;
  router.group_size = 64;
  router.scale_bytes = 4;
  std::uint64_t entries = 0;  // safetensors header entries (weight, scales, biases)
  for (auto& t : plan.tensors) {
    const std::int64_t n = t.n_elements();
    const MlxFormat* q = nullptr;
    if (f.mode != "float" && t.n_dims >= 2) {
      if (t.role == TensorRole::Router) q = &router;
      else if (t.quantizable) q = &f;
    }
    // quantize_model's wrapped_predicate: the input width must be a multiple of the group.
    if (q && t.ne[0] % q->group_size != 0) q = nullptr;
    // Kimi K3 (mlx_lm/models/kimi_k3.py): cast_predicate keeps A_log, dt_bias and the router's
    // e_score_correction_bias in float32; quant_predicate leaves the attention-residual
    // projections (Linear(hidden, 1), res_proj) unquantized, and each comes with its own RMSNorm
    // weight where llama.cpp's converter folds the two into one score vector (attn_res_score,
    // ffn_res_score, output_res_score: llama.cpp src/models/kimi-k3.cpp).
    const bool k3 = arch.gguf_arch == "kimi-k3";
    const bool res_score = k3 && t.name.find("res_score.weight") != std::string::npos;  // attn_, ffn_, output_
    auto ends = [&t](const char* s) {
      const std::string e(s);
      return t.name.size() >= e.size() && t.name.compare(t.name.size() - e.size(), e.size(), e) == 0;
    };
    const bool f32 = k3 && (ends(".ssm_a") || ends(".ssm_dt.bias") || ends(".exp_probs_b.bias"));
    if (res_score) {
      t.bytes = static_cast<std::uint64_t>(n) * 2 * 2;  // the projection row and the norm weight
      t.type = flt;
      entries += 2;
    } else if (f32) {
      t.bytes = static_cast<std::uint64_t>(n) * 4;
      t.type = GgmlType::F32;
      entries += 1;
    } else if (q) {
      const auto groups = static_cast<std::uint64_t>(n / q->group_size);
      t.bytes = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(q->bits) / 8 + groups * static_cast<std::uint64_t>(q->scale_bytes);
      t.type = q->bits >= 8 ? GgmlType::Q8_0 : GgmlType::Q4_0;
      entries += q->mode == "affine" ? 3 : 2;
    } else {
      t.bytes = static_cast<std::uint64_t>(n) * 2;  // norms, biases, convolutions: the float type
      t.type = flt;
      entries += 1;
    }
    plan.weights_bytes += t.bytes;
  }
  // The safetensors header: about 120 bytes of JSON per entry (name, dtype, shape, offsets).
  plan.header_bytes = 8 + entries * 120;
  return plan;
}

}  // namespace wif
