// Every weight tensor of a model, with its GGUF name and shape (ne0 = row length, as ggml
// stores it). The list is the same one llama.cpp's converter writes for the architecture, so
// quantization rules, file sizes and per-device placement can work tensor by tensor.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/model/architecture.hpp"
#include "willitfit/model/ggml_types.hpp"

namespace wif {

/// What a tensor does; decides which quantization rule applies and where it is placed.
enum class TensorRole {
  TokenEmbd, Output, AttnQ, AttnK, AttnV, AttnQKV, AttnOut, AttnOther,  // AttnOther: MLA a/b, gates
  FfnGate, FfnUp, FfnDown,              // dense FFN and shared experts
  ExpGate, ExpUp, ExpDown,              // routed expert stacks (3-D)
  Router, Ssm, Norm, Bias, Other,
};

struct Tensor {
  std::string name;                 // "blk.3.attn_q.weight"
  std::array<std::int64_t, 4> ne{1, 1, 1, 1};
  int n_dims = 1;
  int layer = -1;                   // -1 outside the repeating layers
  TensorRole role = TensorRole::Other;
  bool quantizable = false;         // llama-quantize may change its type (src/llama-quant.cpp)
  GgmlType type = GgmlType::F32;    // as stored (plan assigns it)
  std::uint64_t bytes = 0;          // as stored (plan assigns it)

  std::int64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  bool is_expert() const {
    return role == TensorRole::ExpGate || role == TensorRole::ExpUp || role == TensorRole::ExpDown;
  }
};

/// The tensors of `arch` in llama.cpp's load order (non-layer tensors first, then by layer).
/// Types are the converter's: F32 for norms, biases and routers, `float_type` for the rest.
std::vector<Tensor> enumerate_tensors(const Architecture& arch, GgmlType float_type = GgmlType::BF16);

/// The token table that, with tied embeddings, is also the output head (token_embd.weight; not
/// Gemma 3n's per-layer table, which shares the TokenEmbd role as an input lookup).
inline bool is_main_token_table(const Tensor& t) {
  return t.role == TensorRole::TokenEmbd && t.name == "token_embd.weight";
}

struct ParamCounts {
  std::int64_t total = 0;       // every weight, MTP layers included
  std::int64_t active = 0;      // read per decoded token: shared parts + used experts (no MTP)
  std::int64_t embedding = 0;   // token embedding table
  std::int64_t experts = 0;     // routed expert weights
  std::int64_t mtp = 0;         // extra next-token-prediction layers (in total, not active)
};
ParamCounts count_params(const Architecture& arch);

}  // namespace wif
