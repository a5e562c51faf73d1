#include "willitfit/servers/sglang.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/servers/dsv4.hpp"

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

  // kv_cache_dtype auto: SGLang's own defaults. DeepSeek V4 always fp8_e4m3
  // (apply_deepseek_v4_defaults); DeepSeek sparse attention (V3.2) fp8_e4m3 on compute capability
  // 10 or newer, bfloat16 below (python/sglang/srt/server_args.py, _set_default_nsa_kv_cache_dtype:
  // "fp8_e4m3" if major >= 10 else "bfloat16"). A GPU whose capability the catalog does not know
  // keeps the 16-bit cache.
  const bool v4 = is_dsv4(a);
  const bool dsa = a.has_dsa_indexer();  // GLM-5 too: is_deepseek_nsa names GlmMoeDsaForCausalLM
  std::string kv = o.kv_cache_dtype, kv_code;
  if (kv == "auto" && v4) { kv = "fp8_e4m3"; kv_code = "engine_default_dsv4"; }
  else if (kv == "auto" && dsa && o.cuda_compute_capability >= 10.0) { kv = "fp8_e4m3"; kv_code = "engine_default_sm100"; }
  // Its CUDA V4 pool stores only the FP8 row (deepseek_v4_memory_pool.py DeepSeekV4SingleKVPool:
  // 584 bytes a token, uint8 storage); a 16-bit cache is the NPU's and ROCm's path.
  if (v4 && kv != "fp8_e4m3" && kv != "fp8")
    throw InputError("bad_value", "kv_cache_dtype", "SGLang keeps DeepSeek V4's cache as fp8_e4m3 on CUDA GPUs",
                     {"auto", "fp8_e4m3"});
  // Weights per rank, the per-token cell and the head-divisibility check are vLLM's (vllm.hpp).
  VllmOptions v;
  v.tensor_parallel = o.tensor_parallel;
  v.max_model_len = o.context_length;
  v.kv_cache_dtype = kv;
  v.block_size = 1;
  v.enforce_eager = true;
  v.load_mtp = o.load_mtp;
  v.sglang_cells = true;
  v.draft_arch = o.draft_arch;
  v.draft_plan = o.draft_plan;
  VllmBudget b = vllm_budget(a, plan, total_gib, v);
  b.kv_cache_dtype = kv;
  b.kv_cache_dtype_code = kv_code;

  const double free_before = std::max(0.0, total_gib * kGiB - o.cuda_context_gib * kGiB);
  const double pool = sglang_kv_pool_bytes(free_before, static_cast<double>(b.weights_bytes), frac);
  b.block_size = 1;
  b.max_num_batched_tokens = o.chunked_prefill_size > 0 ? o.chunked_prefill_size : def.chunked_prefill_size;
  b.requested_bytes = static_cast<std::uint64_t>(free_before * frac);
  b.activation_bytes = static_cast<std::uint64_t>(free_before * (1.0 - frac));
  // SGLang's own buffers (DeepSeek V3.2's among them) live in that reserved share, not beside it.
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
  double cell = static_cast<double>(b.kv_bytes_per_token);
  double kv_pool = pool;
  std::int64_t cap = 0;  // running requests the engine itself allows (0: its derived default)
  if (v4) {
    // DeepSeek V4 (servers/dsv4.hpp): the pool in full tokens, 256-token pages, 256 requests.
    cap = o.max_running_requests > 0 ? o.max_running_requests : 256;
    const Dsv4SglangPool p = dsv4_sglang_pool(a, pool, cap);
    cell = p.bytes_per_full_token;
    kv_pool = pool - static_cast<double>(p.fixed_bytes);
    b.block_size = 256;
    b.kv_bytes_per_token = static_cast<std::uint64_t>(std::llround(cell));
    b.kv_latent_bytes_per_token = static_cast<std::uint64_t>(std::llround(p.sparse_bytes_per_token));
    b.kv_indexer_bytes_per_token = static_cast<std::uint64_t>(std::llround(p.dense_bytes_per_token));
    b.sparse_top_k = a.dsv4.index_topk * 4;
    // Its pools, as DeepSeekV4TokenToKVPool builds them: the window cache on every layer, the
    // ratio-4 and ratio-128 keys (a 256-token page holds 64 and 2 rows of 584 bytes, rounded up to
    // 576-byte multiples), the indexer keys (64 rows of 132 bytes).
    std::int64_t n4 = 0, n128 = 0, n = 0;
    for (const auto& L : a.layers) {
      if (L.is_mtp || L.attn != AttnKind::Compressed) continue;
      n += 1;
      n4 += L.compress_ratio == 4;
      n128 += L.compress_ratio == 128;
    }
    const auto row = [](std::uint64_t rows, std::uint64_t bytes) { return (rows * bytes + 575) / 576 * 576; };
    b.groups.clear();
    b.groups.push_back({"sliding", n, row(128, 584), 0});  // swa_page_size: the 128-token window
    if (n4 > 0) b.groups.push_back({"compressed", n4, row(64, 584), 0});
    if (n4 > 0) b.groups.push_back({"indexer", n4, 64 * 132, 0});
    if (n128 > 0) b.groups.push_back({"compressed", n128, row(2, 584), 0});
    b.layers_per_group = n;
    // Its cell is every pool's bytes per token of context: all of it grows with the context.
    b.kv_growing_bytes_per_token = b.kv_bytes_per_token;
    b.kv_fixed_layers = 0;
  }
  // Hybrid models with recurrent layers (Kimi K3's KDA, Qwen3-Next's gated delta net): the
  // recurrent states get their own pool of mamba_full_memory_ratio / (1 + ratio) of the memory, one
  // state per running request, and the KV pool the rest (python/sglang/srt/model_executor/
  // model_runner_kv_cache_mixin.py: mamba_budget = rest x ratio / (1 + ratio),
  // max_mamba_cache_size = mamba_budget / mamba_cache_per_req).
  std::uint64_t state = 0;
  for (const auto& g : b.groups)
    if (g.kind == "mamba") state += g.page_bytes * static_cast<std::uint64_t>(g.layers);
  if (state > 0 && pool > 0) {
    const double r = o.mamba_full_memory_ratio;
    const double states = pool * r / (1 + r);
    b.state_slots = static_cast<std::int64_t>(states / static_cast<double>(state));
    kv_pool = pool - states;
  }
  b.kv_tokens = kv_pool > 0 && cell > 0 ? static_cast<std::int64_t>(kv_pool / cell) : 0;
  if (v4) b.kv_tokens = b.kv_tokens / 256 * 256;
  b.num_blocks = v4 ? b.kv_tokens / 256 : b.kv_tokens;  // V4: 256-token pages
  b.pool_code = v4 ? "blocks" : "tokens";
  b.blocks_per_request = v4 ? (b.max_model_len + 255) / 256 : b.max_model_len;
  b.max_model_len_fit = b.kv_tokens;
  // One request of context_length tokens: a token of the pool each (page size 1).
  b.kv_request_bytes = static_cast<std::uint64_t>(std::llround(static_cast<double>(b.max_model_len) * cell));
  b.max_concurrency = b.max_model_len > 0 ? static_cast<double>(b.kv_tokens) / static_cast<double>(b.max_model_len) : 0;
  if (state > 0) {
    b.max_concurrency = std::min(b.max_concurrency, static_cast<double>(b.state_slots));
    if (b.state_slots < 1) b.max_model_len_fit = 0;
  }
  b.max_num_seqs = o.max_running_requests > 0 ? o.max_running_requests
                   : cap > 0                    ? cap
                                                : std::min<std::int64_t>(std::max<std::int64_t>(static_cast<std::int64_t>(b.max_concurrency * 512), 2048), 4096);
  b.graphs_fit_headroom = true;
  b.process_bytes = static_cast<std::uint64_t>(free_before) + b.cuda_context_bytes;
  b.reason_code.clear();
  if (pool <= 0 || kv_pool <= 0) {
    b.reason_code = "weights_exceed_budget";
  } else if (b.max_concurrency < 1.0) {
    b.reason_code = "context_exceeds_kv";
  }
  b.fits = b.reason_code.empty();
  return b;
}

}  // namespace wif
