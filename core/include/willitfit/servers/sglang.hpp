// SGLang's memory budget on each GPU of a tensor-parallel group, where it differs from vLLM's
// (vllm.hpp). Rules from sgl-project/sglang `python/sglang/srt/server_args.py`
// (`_handle_gpu_memory_settings`) and `model_executor/model_runner.py` (`profile_max_num_token`,
// `init_memory_pool`), late-2025 main:
//  * --mem-fraction-static is (weights + KV pool) / GPU memory. Unset, SGLang derives it from the
//    GPU's memory (MiB): reserved = 512 + max(chunked_prefill_size, 2048) x 1.5
//    + cuda_graph_max_bs x 2 + tp x pp / 8 x 1024, at least 10240 on GPUs above 60 GiB, and
//    fraction = round((gpu_mem - reserved) / gpu_mem, 3); 0.88 only when the GPU memory is unknown.
//  * chunked_prefill_size / cuda_graph_max_bs by GPU memory: < 20 GiB 2048 / 8; < 35 GiB 2048 /
//    24 (80 at TP >= 4); < 60 GiB 4096 / 32 (160); < 160 GiB 8192 / 256 (512); else 16384 / 512.
//  * KV pool = memory free after loading - memory free before loading x (1 - fraction), i.e.
//    free_before x fraction - weights; tokens = pool / cell, cell = per-token K+V bytes of every
//    layer on this rank (MLA: the latent, kv_lora_rank + rope dims), one token per page.
//  * max_running_requests, unset: min(max(tokens / context_length x 512, 2048), 4096).
// There is no profile run: activations and CUDA graphs live in the (1 - fraction) part.
// Calibration: vllm-0014 (DeepSeek-V4-Pro, 8x H200, 0.88 leaves no pool) and vllm-0015
// (Qwen3-30B-A3B, pool = rest - AITER workspace) in data/measurements/vllm_memory.jsonl.
#pragma once
#include <cstdint>
#include <string>

#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/servers/vllm.hpp"

namespace wif {

/// SGLang's memory-dependent defaults for one GPU of `gpu_mib` MiB (its total, as the driver
/// reports it) at tensor parallel size `tp`.
struct SglangDefaults {
  std::int64_t chunked_prefill_size = 0;
  int cuda_graph_max_bs = 0;
  double reserved_mib = 0;
  double mem_fraction_static = 0;
};
SglangDefaults sglang_defaults(double gpu_mib, int tp);

/// KV pool bytes: free memory before loading x fraction - weights on this rank (may be negative).
double sglang_kv_pool_bytes(double free_before_load_bytes, double weights_bytes, double mem_fraction_static);

struct SglangOptions {
  int tensor_parallel = 1;
  double mem_fraction_static = 0;          // 0 = SGLang's own default for the GPU
  std::int64_t context_length = 0;         // 0 = the model's maximum context
  std::int64_t chunked_prefill_size = 0;   // 0 = default for the GPU
  std::int64_t max_running_requests = 0;   // 0 = derived from the pool
  std::string kv_cache_dtype = "auto";
  bool load_mtp = false;                   // --speculative-algorithm EAGLE on the MTP layer
  const Architecture* draft_arch = nullptr;  // --speculative-algorithm STANDALONE: a draft model (not owned)
  const TensorPlan* draft_plan = nullptr;
  double cuda_context_gib = 0.45;          // taken before SGLang measures free memory (vllm.hpp)
  // The GPU's CUDA compute capability (0 = unknown): SGLang's kv_cache_dtype auto for DeepSeek
  // sparse attention is fp8_e4m3 from 10.0 (Blackwell) on, bfloat16 below.
  double cuda_compute_capability = 0;
  // --mamba-full-memory-ratio (server_args.py, default 0.9): hybrid models with recurrent layers
  // give the recurrent-state pool ratio / (1 + ratio) of the KV pool memory.
  double mamba_full_memory_ratio = 0.9;
};

/// `total_gib`: each GPU's memory free to a process (usable_memory), `physical_gib`: its total,
/// which SGLang's defaults are keyed on.
/// The budget in vLLM's shape so views and commands read it alike: requested_bytes = the static
/// part (weights + KV pool), activation_bytes = what (1 - fraction) leaves for activations and
/// CUDA graphs, block_size 1 (num_blocks = kv_tokens), max_num_seqs = max_running_requests,
/// max_num_batched_tokens = chunked_prefill_size. `mem_fraction_static` is returned through
/// `used_fraction`. Throws InputError as vllm_budget does.
VllmBudget sglang_budget(const Architecture& arch, const TensorPlan& plan, double total_gib,
                         double physical_gib, const SglangOptions& o, double* used_fraction = nullptr);

}  // namespace wif
