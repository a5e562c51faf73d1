#include "willitfit/servers/sglang.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/units.hpp"

namespace wif {
namespace {
using units::kGiB;
}  // namespace

SglangDefaults sglang_defaults(double gpu_mib, int tp) {
  SglangDefaults d;
  const double G = 1024.0;  // MiB per GiB: SGLang compares MiB against N x 1024
  const bool big_tp = tp >= 4;
  if (gpu_mib < 20 * G) { d.chunked_prefill_size = 2048; d.cuda_graph_max_bs = 8; }
  else if (gpu_mib < 35 * G) { d.chunked_prefill_size = 2048; d.cuda_graph_max_bs = big_tp ? 80 : 24; }
  else if (gpu_mib < 60 * G) { d.chunked_prefill_size = 4096; d.cuda_graph_max_bs = big_tp ? 160 : 32; }
  else if (gpu_mib < 160 * G) { d.chunked_prefill_size = 8192; d.cuda_graph_max_bs = big_tp ? 512 : 256; }
  else { d.chunked_prefill_size = 16384; d.cuda_graph_max_bs = 512; }
  // Metadata + prefill activations + CUDA graph buffers + a TP allowance (pipeline size 1).
  double reserved = 512 + static_cast<double>(std::max<std::int64_t>(d.chunked_prefill_size, 2048)) * 1.5 +
                    d.cuda_graph_max_bs * 2.0 + tp / 8.0 * 1024;
  if (gpu_mib > 60 * G) reserved = std::max(reserved, 10 * G);
  d.reserved_mib = reserved;
  d.mem_fraction_static = gpu_mib > 0 ? std::round((gpu_mib - reserved) / gpu_mib * 1000.0) / 1000.0 : 0.88;
  return d;
}

double sglang_kv_pool_bytes(double free_before_load_bytes, double weights_bytes, double fraction) {
  // rest = free after load - free before load x (1 - fraction); free after load = before - weights.
  return (free_before_load_bytes - weights_bytes) - free_before_load_bytes * (1.0 - fraction);
}

VllmBudget sglang_budget(const Architecture& a, const TensorPlan& plan, double total_gib, double physical_gib,
                         const SglangOptions& o, double* used_fraction) {
  if (o.mem_fraction_static != 0 && !(o.mem_fraction_static > 0 && o.mem_fraction_static <= 1))
    throw InputError("bad_value", "mem_fraction_static", "mem_fraction_static must be in (0, 1]");
  const SglangDefaults def = sglang_defaults(physical_gib * 1024.0, o.tensor_parallel);
  const double frac = o.mem_fraction_static > 0 ? o.mem_fraction_static : def.mem_fraction_static;
  if (used_fraction) *used_fraction = frac;

  // Weights per rank, the per-token cell and the head-divisibility check are vLLM's (vllm.hpp).
  VllmOptions v;
  v.tensor_parallel = o.tensor_parallel;
  v.max_model_len = o.context_length;
  v.kv_cache_dtype = o.kv_cache_dtype;
  v.block_size = 1;
  v.enforce_eager = true;
  v.load_mtp = o.load_mtp;
  v.sglang_cells = true;
  v.draft_arch = o.draft_arch;
  v.draft_plan = o.draft_plan;
  VllmBudget b = vllm_budget(a, plan, total_gib, v);

  const double free_before = std::max(0.0, total_gib * kGiB - o.cuda_context_gib * kGiB);
  const double pool = sglang_kv_pool_bytes(free_before, static_cast<double>(b.weights_bytes), frac);
  b.block_size = 1;
  b.max_num_batched_tokens = o.chunked_prefill_size > 0 ? o.chunked_prefill_size : def.chunked_prefill_size;
  b.requested_bytes = static_cast<std::uint64_t>(free_before * frac);
  b.activation_bytes = static_cast<std::uint64_t>(free_before * (1.0 - frac));
  // SGLang's own buffers (DeepSeek V3.2's among them) live in that reserved share, not beside it.
  // Its kv_cache_dtype auto for V3.2 is bfloat16 below SM100 and fp8_e4m3 from SM100 on
  // (python/sglang/srt/server_args.py, _set_default_nsa_kv_cache_dtype); the catalog does not say
  // which a GPU is, so auto is sized as the 16-bit cache and fp8 is asked for explicitly.
  b.sparse_workspace_bytes = 0;
  b.non_torch_bytes = 0;
  b.cuda_graph_bytes = 0;
  b.cuda_context_bytes = static_cast<std::uint64_t>(o.cuda_context_gib * kGiB);
  b.kv_available_bytes = static_cast<std::int64_t>(pool);
  b.layers_per_group = 0;
  for (auto& g : b.groups) {
    g.blocks_per_request = b.max_model_len;  // one token per page
    b.layers_per_group = std::max(b.layers_per_group, g.layers);
  }
  // Its cell keeps every token on the sliding-window layers too (no window here): those grow.
  b.kv_growing_bytes_per_token += b.kv_window_bytes_per_token;
  b.kv_fixed_layers -= b.kv_window_layers;
  b.kv_window_bytes_per_token = 0;
  b.kv_window_layers = 0;
  const double cell = static_cast<double>(b.kv_bytes_per_token);
  b.kv_tokens = pool > 0 && cell > 0 ? static_cast<std::int64_t>(pool / cell) : 0;
  b.num_blocks = b.kv_tokens;
  b.max_model_len_fit = b.kv_tokens;
  // One request of context_length tokens: a token of the pool each (page size 1).
  b.kv_request_bytes = static_cast<std::uint64_t>(b.max_model_len) * b.kv_bytes_per_token;
  b.max_concurrency = b.max_model_len > 0 ? static_cast<double>(b.kv_tokens) / static_cast<double>(b.max_model_len) : 0;
  b.max_num_seqs = o.max_running_requests > 0
                       ? o.max_running_requests
                       : std::min<std::int64_t>(std::max<std::int64_t>(static_cast<std::int64_t>(b.max_concurrency * 512), 2048), 4096);
  b.graphs_fit_headroom = true;
  b.process_bytes = static_cast<std::uint64_t>(free_before) + b.cuda_context_bytes;
  b.reason_code.clear();
  if (pool <= 0) {
    b.reason_code = "weights_exceed_budget";
  } else if (b.max_concurrency < 1.0) {
    b.reason_code = "context_exceeds_kv";
  }
  b.fits = b.reason_code.empty();
  return b;
}

}  // namespace wif
