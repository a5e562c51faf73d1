// vLLM's memory budget on each GPU of a tensor-parallel group, in the order the engine works it
// out at startup (vllm-project/vllm: vllm/v1/worker/utils.py request_memory,
// vllm/v1/worker/gpu_worker.py determine_available_memory, vllm/utils/mem_utils.py):
//   requested      = total GPU memory x gpu_memory_utilization          (per instance, per GPU)
//   non-KV memory  = weights on this rank + activation peak of the profile run + non-torch memory
//   KV memory      = requested - non-KV memory
//   num_blocks     = KV memory / (page bytes x layers per KV group)
//   KV tokens      = num_blocks x block_size
//   concurrency    = num_blocks / blocks one request of max_model_len needs
// CUDA graphs are captured after the KV cache is allocated and are not subtracted by default
// (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0): they must fit into the (1 - utilization) headroom
// beside the CUDA context.
//
// The activation peak is modelled from the profile run: one forward pass over
// max_num_batched_tokens tokens (per token: about 3 x the FFN intermediate width on this rank
// plus 3 x hidden, in the model dtype) plus a dummy sampler pass over max_num_seqs rows of
// float32 logits, which keeps about 9 vocab-sized float32 buffers alive (logits, softmax,
// sort keys/indices …). The token term was fitted to calibration rows vllm-0001/0002 (V0: two
// max_model_len values on one GPU; their peak has no sampler part, and "took 14.9888 GB" is GiB),
// the sampler term to vllm-0012 (V1); vllm-0020/0021 (V0, A100) agree within 1%.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

struct VllmOptions {
  int tensor_parallel = 1;
  double gpu_memory_utilization = 0.92;  // current vllm/config/cache.py default (0.9 before)
  std::int64_t max_model_len = 0;        // 0 = the model's maximum context
  std::int64_t max_num_seqs = 0;         // 0 = engine default (256; 1024 on >= 70 GiB GPUs)
  std::int64_t max_num_batched_tokens = 0;  // 0 = engine default (2048 server; 8192 on >= 70 GiB)
  std::string kv_cache_dtype = "auto";   // auto | fp8 | fp8_e4m3 | fp8_e5m2 | bfloat16 | float16
  int block_size = 0;                    // 0 = 16, or 64 for MLA (FlashMLA kernels)
  bool enforce_eager = false;            // no CUDA graphs
  bool v0_profile = false;               // V0 engine: batched tokens default max(max_model_len, 2048)
  bool load_mtp = false;                 // --speculative-config method mtp: MTP layers' weights and KV loaded
  // --speculative-config method draft_model: a draft model loaded next to the target, at the
  // same tensor parallelism, its layers paging the same KV pool (not owned; null = none).
  const Architecture* draft_arch = nullptr;
  const TensorPlan* draft_plan = nullptr;
  // DeepSeek V3.2's sparse-attention cache sized as SGLang's pool counts it (sglang.hpp) rather
  // than as vLLM lays it out (its fp8_ds_mla latent with scales): set by sglang_budget.
  bool sglang_cells = false;
  // Serving-speed and SGLang request fields (server_throughput.hpp, sglang.hpp):
  std::int64_t concurrency = 0;          // requests decoding at once; 0 = max that fits (<= max_num_seqs)
  double mem_fraction_static = 0;        // SGLang --mem-fraction-static; 0 = its own default
  // Constants, with where they come from (overridable for calibration):
  double non_torch_gib = 0.35;           // NCCL/cuBLAS outside torch; vllm-0001 logs 0.35 GiB
  double cuda_context_gib = 0.45;        // created before the snapshot; ~0.3-0.5 GiB (gpu_worker.py)
  double cuda_graph_gib = 0.5;           // graph pool, captured after the KV cache; grows with
                                         // model size (rough; gpu_worker.py compile_or_warm_up_model)
};

/// One group of layers sharing a page layout.
struct VllmKvGroup {
  std::string kind;                 // "full", "sliding", "chunked", "mla", "mamba"
  std::int64_t layers = 0;
  std::uint64_t page_bytes = 0;     // one block of one layer on this rank
  std::int64_t blocks_per_request = 0;  // at max_model_len
};

/// The weights of one tensor-parallel rank and what of them every rank keeps whole.
struct VllmWeightSplit {
  std::uint64_t per_rank_bytes = 0;      // on one rank: its 1/TP share plus the replicated tensors
  std::uint64_t loaded_bytes = 0;        // the checkpoint's tensors that load, counted once
  std::uint64_t replicated_bytes = 0;    // on one rank, tensors not split over TP (or split < TP ways)
  std::uint64_t extra_copies_bytes = 0;  // TP x per_rank - loaded: the copies beyond the first
  // replicated_bytes by kind, codes: norms (norms and biases), router, kv_heads (K/V projections
  // past the KV head count), mla_down (MLA's q_a / kv_a_mqa), indexer (sparse-attention indexer).
  std::vector<std::pair<std::string, std::uint64_t>> parts;
};

struct VllmBudget {
  int tensor_parallel = 1;
  std::int64_t max_model_len = 0, max_num_seqs = 0, max_num_batched_tokens = 0;
  int block_size = 16;
  std::string kv_cache_dtype;
  // Why kv_cache_dtype is not the one asked for: "" (it is), or the engine's own default for this
  // model and GPU when auto was asked: engine_default_dsv4 (DeepSeek V4: vLLM's fp8_ds_mla,
  // SGLang's fp8_e4m3), engine_default_sm100 (SGLang, DeepSeek sparse attention on compute
  // capability 10.0 or newer: fp8_e4m3).
  std::string kv_cache_dtype_code;
  // Hybrid models under SGLang: running requests the recurrent-state pool holds (0: none).
  std::int64_t state_slots = 0;
  // How the pool is counted, for its wording: blocks (num_blocks of block_size tokens), tokens
  // (SGLang's one-token pages), shared_blocks (DeepSeek V4 under vLLM: blocks that every page
  // group draws from, each group's block covering its own number of tokens; kv_tokens is then
  // max_concurrency x max_model_len, vLLM's own "GPU KV cache size").
  std::string pool_code = "blocks";
  std::int64_t blocks_per_request = 0;  // blocks one request of max_model_len takes over all groups
  std::uint64_t total_bytes = 0;        // per GPU, as the driver reports it
  std::uint64_t requested_bytes = 0;    // total x utilization
  std::uint64_t weights_bytes = 0;      // on one rank
  VllmWeightSplit weights;              // weights_bytes by part (what every rank keeps whole)
  std::uint64_t activation_bytes = 0;   // profile-run torch peak above the weights
  std::uint64_t non_torch_bytes = 0;
  std::uint64_t cuda_graph_bytes = 0;
  std::uint64_t cuda_context_bytes = 0;
  std::int64_t kv_available_bytes = 0;  // may be negative: the weights alone do not fit
  std::vector<VllmKvGroup> groups;
  std::int64_t layers_per_group = 0;    // hybrid models: groups padded to this many layers
  std::int64_t num_blocks = 0;
  std::int64_t kv_tokens = 0;           // num_blocks x block_size
  double max_concurrency = 0;           // requests of max_model_len that fit at once
  // GPUs that hold the same token's cache: TP for MLA (one latent "KV head", which vLLM does not
  // split and keeps whole on every rank), TP / KV heads when TP exceeds them, else 1.
  int kv_copies = 1;
  std::string kv_copies_code;           // why, when kv_copies > 1: mla_latent | kv_heads_below_tp
  std::uint64_t kv_bytes_per_token = 0; // all layers on one rank, full-attention view
  // What a token of context adds to the model's cache on one rank, at the cache dtype: its
  // full-attention and MLA layers (vLLM); SGLang's cell, every attention layer. The layers that
  // hold a fixed amount instead (sliding window, chunked, recurrent) are counted apart.
  std::uint64_t kv_growing_bytes_per_token = 0;
  std::int64_t kv_fixed_layers = 0;
  std::uint64_t kv_window_bytes_per_token = 0;  // the sliding / chunked layers' cell, one rank
  std::int64_t kv_window_layers = 0;
  int kv_element_bytes = 2;             // the cache dtype's bytes per element (1 for fp8)
  // DeepSeek sparse attention (V3.2): each decoding token attends to at most `sparse_top_k`
  // latent entries a layer (index_topk), picked by the lightning indexer, which scores every
  // indexer key. kv_bytes_per_token = latent + indexer; 0 / 0 / 0 for dense attention.
  std::int64_t sparse_top_k = 0;
  std::uint64_t kv_latent_bytes_per_token = 0;   // the MLA latent part, all layers
  std::uint64_t kv_indexer_bytes_per_token = 0;  // the indexer-key part, all layers
  // DeepSeek V4: what a decoding token reads of the layers' sliding windows (window x key row x
  // layers, the same at any depth past the window); 0 for other models.
  std::uint64_t kv_window_read_bytes = 0;
  std::string sparse_kind;              // "" (dense), dsa (V3.2: latent + indexer keys), dsv4 (V4:
                                        // ratio-4 keys read for top-k entries, the rest whole)
  std::int64_t window_tokens = 0;       // dsv4: each layer's window
  std::uint64_t sparse_workspace_bytes = 0;      // part of activation_bytes: the top-k index
                                                 // buffer and the sparse-MLA kernel workspace
  std::int64_t max_model_len_fit = 0;   // longest single request the KV cache can hold
  std::uint64_t kv_request_bytes = 0;   // on one rank, what one request of max_model_len takes
                                        // of the pool (its blocks over every group)
  bool graphs_fit_headroom = true;      // CUDA graphs + context fit in (1 - util) x total
  bool fits = false;                    // weights fit and one request of max_model_len fits
  std::uint64_t process_bytes = 0;      // what nvidia-smi would show: requested + context + graphs
  std::string reason_code;              // why not, as a code: weights_exceed_budget |
                                        // context_exceeds_kv | graphs_exceed_headroom ("" = fits)
};

/// vLLM (and SGLang, which shards the same way) splits the attention heads over the GPUs of a
/// tensor-parallel group: a size that does not divide the head count is refused at start-up
/// (vLLM's ModelConfig.verify_with_parallel_config in vllm/config: "Total number of attention
/// heads ... must be divisible by tensor parallel size"). Solvers skip those sizes; an estimate
/// that asks for one is a coded error.
bool tensor_parallel_accepted(const Architecture& arch, int tp);

/// One layer's cache on one rank of `tp`, as vllm_budget pages it (SGLang's cell with
/// `sglang_cells`): bytes per token of context for an attention or MLA layer (its page over the
/// block size), the whole state for a recurrent layer, 0 for a layer that caches nothing or an MTP
/// layer. `kv_cache_dtype` as the budget reads it (auto = the compute dtype); throws InputError
/// bad_value for an unknown one.
std::uint64_t vllm_layer_cache_bytes(const Architecture& arch, const LayerSpec& layer, const std::string& kv_cache_dtype,
                                     int tp, bool sglang_cells);

/// Every layer's cache for 256 tokens on one device (KvOptions::engine_layer_bytes_256): what the
/// speed model reads per token under vLLM or SGLang at that cache dtype; a recurrent layer's state
/// once. Empty for DeepSeek V4, whose compressed caches the speed model reads by their own rule.
std::vector<std::uint64_t> vllm_speed_layer_bytes(const Architecture& arch, const std::string& kv_cache_dtype,
                                                  bool sglang_cells);

/// One lightning-indexer key of DeepSeek sparse attention as both servers cache it (FP8 values
/// with a float32 scale per 128, whatever kv_cache_dtype says); 0 for a model without one.
std::uint64_t vllm_indexer_key_bytes(const Architecture& arch);

/// vLLM's budget on each rank. `plan` is the checkpoint (BF16, FP8, AWQ …), `total_gib` each
/// GPU's memory as the driver reports it (usable_memory). Throws InputError for a tensor
/// parallel size that does not divide the attention heads, or a bad kv_cache_dtype.
VllmBudget vllm_budget(const Architecture& arch, const TensorPlan& plan, double total_gib,
                       const VllmOptions& o);

/// Weights on one rank under tensor parallelism: column/row-parallel matrices split 1/TP,
/// norms and routers replicated, K/V projections replicated when TP exceeds the KV heads,
/// MLA's low-rank down projections replicated.
std::uint64_t vllm_weights_per_rank(const Architecture& arch, const TensorPlan& plan, int tp, bool load_mtp = false);
VllmWeightSplit vllm_weight_split(const Architecture& arch, const TensorPlan& plan, int tp, bool load_mtp = false);

/// vLLM's --quantization value for a checkpoint format ("" when the checkpoint says it itself
/// or needs none).
std::string vllm_quantization_flag(const std::string& quant);

}  // namespace wif
