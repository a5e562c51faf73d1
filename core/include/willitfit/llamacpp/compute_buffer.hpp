// llama.cpp's compute buffer: the allocator's high-water mark over the reserve graphs, about one
// layer's intermediates plus the logits, all F32 (llama.cpp src/llama-context.cpp graph_reserve;
// ggml_backend_sched_get_buffer_size in ggml/src/ggml-backend.cpp). Checked against
// calibration/llamacpp_buffers.jsonl: e.g. Llama-3-8B at ubatch 512 without flash attention
// logs 258.5 MiB = 128256 x 512 x 4 (logits) + 4096 x 512 x 4 (hidden state).
#pragma once
#include <cstdint>

#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/architecture.hpp"

namespace wif {

struct ComputeBuffer {
  std::uint64_t logits_bytes = 0;     // vocab x ubatch x 4 + hidden x ubatch x 4
  std::uint64_t attention_bytes = 0;  // KQ scores without flash attention
  std::uint64_t ffn_bytes = 0;        // widest feed-forward intermediates
  std::uint64_t total_bytes = 0;      // max(logits, attention + ffn)
};

ComputeBuffer llamacpp_compute_buffer(const Architecture& arch, const KvCache& kv,
                                      std::int64_t n_ubatch, bool flash_attn, std::int64_t n_seq);

/// The compute buffer of one device in a split placement: every device that runs layers keeps
/// one layer's intermediates (attention + FFN); the device that runs the output matmul also
/// needs the logits, so it keeps the larger of the two (the allocator reuses memory between
/// them). A device with neither gets nothing.
std::uint64_t device_compute_bytes(const ComputeBuffer& c, bool has_layers, bool has_output);

}  // namespace wif
