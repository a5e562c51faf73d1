// DeepSeek V4's compressed sparse attention as vLLM and SGLang lay out its caches. Every layer keeps
// a 128-token window of one 512-wide key (also the value); a layer at compress_ratio 4 adds one
// compressed key per 4 tokens, FP8 lightning-indexer keys for the same entries and two compressor
// states (its own and its indexer's); a layer at ratio 128 adds one compressed key per 128 tokens
// and a compressor state. Both engines store a key in FlashMLA's fp8_ds_mla row: 448 FP8 NoPE
// values, 64 BF16 RoPE values and 8 scale bytes, 584 bytes; an indexer key is 128 FP8 values and a
// float32 scale, 132 bytes; the compressor states are float32 rows of 2 x overlap x head_dim
// (overlap 2 at ratio 4, 1 at ratio 128).
//
// vLLM (vllm-project/vllm, read 2026-12-06: vllm/models/deepseek_v4/attention.py
// DeepseekV4Attention.get_kv_cache_spec and DeepseekV4Indexer; vllm/models/deepseek_v4/compressor.py
// CompressorStateCache; vllm/v1/attention/backends/mla/sparse_swa.py DeepseekV4SWACache and
// get_kv_cache_shape; vllm/v1/kv_cache_interface.py MLAAttentionSpec.real_page_size_bytes;
// vllm/v1/core/kv_cache_utils.py group_and_unify_kv_cache_specs, _approximate_gcd,
// _get_kv_cache_groups_uniform_groups, _max_memory_usage_bytes_from_groups):
//  * the compressed keys and indexer keys page in 256-token blocks (the backend's preferred
//    size), block_size / ratio rows a page; the window cache in 64-token pages; the compressor
//    states in pages of 4 (ratio 4) and 8 (ratio 128) rows; every page rounded up to 576 bytes
//    (FlashMLA's alignment; 512 for a plain bf16 row, whose indexer pages align to 512);
//  * the compressed and indexer specs form one group (its layer tuple: one page of each size);
//    the window caches, the ratio-4 states and the ratio-128 states form one bucket each, a
//    state page padded to the nearest larger page size of the first group; the buckets are cut
//    into groups of at most d layer tuples, d chosen by _approximate_gcd;
//  * one block of the shared pool is (most tuples in any group) x (the first group's tuple
//    bytes); a request of L tokens takes cdiv(L, 256) blocks of the first group and, for each
//    window group, cdiv(min(window - 1 + max_num_batched_tokens, L), its block size) + 1.
// SGLang (sgl-project/sglang, read 2026-12-06: python/sglang/srt/model_executor/pool_configurator.py
// DSV4PoolConfigurator; python/sglang/srt/mem_cache/deepseek_v4_memory_pool.py
// DeepSeekV4SingleKVPool, get_compress_state_ring_size; its DeepSeek V4 server defaults,
// apply_deepseek_v4_defaults: page_size 256, kv_cache_dtype fp8_e4m3 when auto,
// max_running_requests 256, swa_full_tokens_ratio 0.1):
//  * the pool is sized in "full" tokens at bytes_per_full_token = swa_ratio x 584 x layers
//    + 584 / 4 x ratio-4 layers + 584 / 128 x ratio-128 layers + 132 / 4 x ratio-4 layers
//    + swa_ratio x (ring 8 / window 128) x (8,192 + 2,048) x ratio-4 layers, after a fixed
//    (max_running_requests + 1) x ring 128 x 4,096 bytes x ratio-128 layers for their states.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/model/architecture.hpp"

namespace wif {

/// True for a DeepSeek V4 model (compressed-attention layers).
bool is_dsv4(const Architecture& a);

/// One vLLM KV cache group of DeepSeek V4.
struct Dsv4VllmGroup {
  std::string kind;                   // compressed | sliding | compressor_state
  std::int64_t layer_tuples = 0;      // layer tuples in this group
  std::int64_t block_tokens = 0;      // tokens a block covers (256, 64, 4 or 8)
  std::int64_t window = 0;            // sliding groups: tokens kept (0 for the compressed group)
  std::uint64_t dense_bytes = 0;      // the group's own pages in one block (its layers, padded)
};

/// vLLM's DeepSeek V4 layout on one rank (the cache is whole on every rank: one latent head).
struct Dsv4VllmLayout {
  bool fp8_ds_mla = true;
  std::uint64_t key_bytes = 0;            // one key row: 584 (fp8_ds_mla) or 1,024 (bf16)
  std::uint64_t indexer_bytes = 0;        // one indexer key row: 132
  std::vector<std::uint64_t> tuple_pages; // page sizes of the compressed group's layer tuple
  std::uint64_t tuple_bytes = 0;          // their sum
  std::int64_t layer_tuples = 0;          // the most tuples in any group (the chosen d)
  std::uint64_t block_bytes = 0;          // layer_tuples x tuple_bytes: one block of the pool
  std::vector<Dsv4VllmGroup> groups;
  // Per token of context over all layers: what the compressed caches and indexer keys add
  // (stored bytes, before page rounding), split into the part read for at most index_topk
  // entries a step (ratio-4 keys) and the part read whole (indexer keys, ratio-128 keys).
  double sparse_bytes_per_token = 0;
  double dense_bytes_per_token = 0;
};

/// The layout for `kv_cache_dtype` (auto and any fp8 name: fp8_ds_mla; bfloat16 / float16 / half:
/// plain 16-bit rows). Throws InputError for another dtype.
Dsv4VllmLayout dsv4_vllm_layout(const Architecture& a, const std::string& kv_cache_dtype);

/// Blocks one request of `len` tokens takes over every group, with `batched` tokens a step.
std::int64_t dsv4_vllm_blocks(const Dsv4VllmLayout& l, std::int64_t len, std::int64_t batched);

/// SGLang's DeepSeek V4 pool sizing.
struct Dsv4SglangPool {
  double bytes_per_full_token = 0;   // the pool's bytes per token of context (all pools)
  std::uint64_t fixed_bytes = 0;     // the ratio-128 compressor states, per running request
  std::int64_t full_tokens = 0;      // context tokens the pool holds (page-rounded)
  std::int64_t swa_tokens = 0;       // window-cache tokens (swa_full_tokens_ratio of them)
  double swa_ratio = 0.1;
  double sparse_bytes_per_token = 0; // ratio-4 keys (read for at most index_topk entries)
  double dense_bytes_per_token = 0;  // indexer keys, ratio-128 keys (read whole)
};

/// SGLang's sizing of `available_bytes` (one rank) for `max_running_requests` running requests
/// (its V4 default 256), 256-token pages. Only the fp8_e4m3 cache is sized (SGLang's CUDA V4 path
/// stores the fp8 row whatever the 16-bit/8-bit choice); bfloat16 is refused by the caller.
Dsv4SglangPool dsv4_sglang_pool(const Architecture& a, double available_bytes, std::int64_t max_running_requests);

}  // namespace wif
