#include "willitfit/servers/vllm.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "willitfit/base/error.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/servers/dsv4.hpp"

namespace wif {
namespace {

using units::kGiB;
// Vocab-sized float32 buffers alive at the sampler's peak (fitted, see vllm.hpp).
constexpr double kSamplerBuffers = 8.6;

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

using text::has;

int dtype_bytes(const std::string& kv, const Architecture& a) {
  if (kv == "auto") return a.native_dtype == "fp32" ? 4 : 2;  // fp8 checkpoints compute in bf16
  if (kv == "bfloat16" || kv == "float16" || kv == "half") return 2;
  if (kv == "fp8" || kv == "fp8_e4m3" || kv == "fp8_e5m2") return 1;
  throw InputError("bad_value", "kv_cache_dtype",
                   "vLLM kv_cache_dtype must be auto, bfloat16, float16, fp8, fp8_e4m3 or fp8_e5m2");
}

// Recurrent state of one layer in elements (conv + SSM), as llama.cpp sizes it
// (src/llama-hparams.cpp n_embd_r / n_embd_s).
std::int64_t recurrent_elems(const Architecture& a) {
  const auto& r = a.recurrent;
  if (r.kind == "mamba2" || r.kind == "gated_delta_net")
    return (r.d_conv - 1) * (r.d_inner + 2 * r.n_group * r.d_state) + r.d_state * r.d_inner;
  if (r.kind == "shortconv") return a.n_embd * (r.l_cache - 1);
  if (r.kind == "kda")  // q/k/v short convolutions plus a head_dim^2 state per head
    return 3 * (r.d_conv - 1) * r.n_v_heads * r.k_head_dim + r.k_head_dim * r.v_head_dim * r.n_v_heads;
  return 0;
}

void vllm_finish(const VllmOptions& o, VllmBudget& b);
void vllm_dsv4_pages(const Architecture& a, const VllmOptions& o, VllmBudget& b);

// DeepSeek V3.2 and GLM-5 alike: vLLM loads GlmMoeDsaForCausalLM as a subclass of
// DeepseekV2ForCausalLM (vllm/model_executor/models/registry.py and deepseek_v2.py, PR #34124),
// whose MLA attention builds the Indexer and its DeepseekV32IndexerCache on every layer when the
// config has index_topk (is_v32 = hasattr(config, "index_topk")). SGLang takes GlmMoeDsaForCausalLM
// as a sparse-attention model too (python/sglang/srt/configs/model_config.py, is_deepseek_nsa; PR
// #18521) and gives it the NSATokenToKVPool with the indexer keys of every layer. GLM-5.2's
// "shared" indexer layers are counted with their keys here: vLLM's IndexCache (use_index_cache,
// docs/features/index_cache.md) skips a shared layer's top-k but still builds its Indexer and
// cache spec (deepseek_v2.py builds the Indexer on every layer when is_v32; vllm-ascend PR #15758
// describes that allocation on the shared layers), unlike llama.cpp, whose filter keeps only the
// full layers (llamacpp/kv_cache.cpp).
bool is_dsa(const Architecture& a) { return a.has_dsa_indexer(); }

// DeepSeek V3.2's sparse attention (DSA): one token of one layer in each of its two caches.
struct DsaCell {
  std::uint64_t latent = 0, indexer = 0;
};

DsaCell dsa_cell(const Architecture& m, int edt, bool sglang) {
  const std::int64_t kvl = m.mla.kv_lora_rank, rope = m.mla.qk_rope_dim, idx = m.indexer_head_dim;
  constexpr std::int64_t kQuantBlock = 128;  // both engines' FP8 scale block (quant_block_size)
  DsaCell c;
  // The lightning indexer's keys are FP8 with one float32 scale per 128 values, in a uint8
  // cache whatever kv_cache_dtype says: idx + idx / 128 x 4 bytes (vLLM
  // vllm/model_executor/models/deepseek_v2.py, Indexer building DeepseekV32IndexerCache; SGLang
  // python/sglang/srt/mem_cache/memory_pool.py, NSATokenToKVPool's index_k_with_scale_buffer).
  c.indexer = static_cast<std::uint64_t>(idx + idx / kQuantBlock * 4);
  (void)sglang;  // both engines store the same FP8 row (below)
  if (edt >= 2) {
    c.latent = static_cast<std::uint64_t>((kvl + rope) * edt);  // a 16-bit latent, as DeepSeek V3's
  } else {
    // An FP8 cache holds the latent as FP8 with one float32 scale per 128 values and the RoPE part
    // in bf16: 512 + 16 + 128 = 656 bytes for V3.2. vLLM turns any fp8 kv_cache_dtype into
    // fp8_ds_mla for V3.2 (vllm/model_executor/models/config.py, DeepseekV32ForCausalLM;
    // vllm/v1/attention/backends/mla/flashmla_sparse.py; the page is block_size x 656 in
    // vllm/v1/kv_cache_interface.py, MLAAttentionSpec.real_page_size_bytes). SGLang stores the
    // same row for a sparse-attention model on its CUDA backends and sizes its pool with it
    // (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py, calculate_mla_kv_cache_dim:
    // kv_lora_rank + kv_lora_rank / 128 x 4 + rope x 2; python/sglang/srt/mem_cache/memory_pool.py,
    // MLATokenToKVPool: kv_cache_dim = that override when nsa_kv_cache_store_fp8); with an fp8
    // cache its sparse-attention backends default to FlashMLA's (server_args.py: prefill
    // flashmla_auto, decode flashmla_kv), not TRT-LLM's, whose layout keeps 576. A dense MLA
    // model (V3, K2) keeps 576 one-byte elements in SGLang's FP8 pool (no override).
    c.latent = static_cast<std::uint64_t>(kvl + kvl / kQuantBlock * 4 + rope * 2);
  }
  return c;
}

// One layer's cache on one rank: bytes a token adds to an attention or MLA layer, the whole
// state of a recurrent one (vllm/v1/kv_cache_interface.py, the specs' page_size_bytes over
// block_size; vllm_budget pages these).
std::uint64_t layer_cell_bytes(const Architecture& m, const LayerSpec& ly, int edt, int tp, bool sglang) {
  const int act_dt = m.native_dtype == "fp32" ? 4 : 2;
  if (ly.attn == AttnKind::MLA) {
    if (is_dsa(m)) {
      // The latent and the indexer keys of a layer need the same token slots, so vLLM pages
      // both specs in one group whose page is their sum (vllm/v1/kv_cache_interface.py,
      // UniformTypeKVCacheSpecs.page_size_bytes); SGLang adds the indexer to its cell.
      const DsaCell c = dsa_cell(m, edt, sglang);
      return c.latent + c.indexer;
    }
    return static_cast<std::uint64_t>((m.mla.kv_lora_rank + m.mla.qk_rope_dim) * edt);
  }
  if (ly.attn == AttnKind::Linear) return static_cast<std::uint64_t>(recurrent_elems(m) * act_dt / tp);
  const std::int64_t kvh = std::max<std::int64_t>(1, ly.n_head_kv / tp);
  return static_cast<std::uint64_t>(kvh * (ly.head_dim_k + ly.head_dim_v) * edt);
}

}  // namespace

std::uint64_t vllm_layer_cache_bytes(const Architecture& a, const LayerSpec& ly, const std::string& kv_cache_dtype,
                                     int tp, bool sglang_cells) {
  if (ly.is_mtp || ly.attn == AttnKind::None || (!ly.has_kv && ly.attn != AttnKind::Linear)) return 0;
  return layer_cell_bytes(a, ly, dtype_bytes(kv_cache_dtype, a), std::max(1, tp), sglang_cells);
}

std::vector<std::uint64_t> vllm_speed_layer_bytes(const Architecture& a, const std::string& kv_cache_dtype,
                                                  bool sglang_cells) {
  std::vector<std::uint64_t> out;
  if (is_dsv4(a)) return out;
  out.reserve(a.layers.size());
  for (const auto& ly : a.layers) {
    const std::uint64_t c = vllm_layer_cache_bytes(a, ly, kv_cache_dtype, 1, sglang_cells);
    out.push_back(ly.attn == AttnKind::Linear ? c : 256u * c);
  }
  return out;
}

std::uint64_t vllm_indexer_key_bytes(const Architecture& a) { return is_dsa(a) ? dsa_cell(a, 2, false).indexer : 0; }

std::string vllm_quantization_flag(const std::string& q) {
  // Pre-quantized checkpoints announce their method in config.json; the flag just states it.
  if (q == "AWQ-4bit") return "awq";
  if (q == "GPTQ-4bit" || q == "GPTQ-8bit") return "gptq";
  if (q == "FP8") return "fp8";
  if (q == "BNB-NF4" || q == "BNB-INT8") return "bitsandbytes";
  return "";
}

VllmWeightSplit vllm_weight_split(const Architecture& a, const TensorPlan& plan, int tp, bool load_mtp) {
  // The attention layers' KV heads (a hybrid's first layer may be a recurrent one with none: Kimi
  // K3's KDA layer 1, whose projections split over the ranks like any head-parallel matrix).
  std::int64_t n_kv = 0;
  for (const auto& L : a.layers)
    if (!L.is_mtp && L.n_head_kv > 0) { n_kv = L.n_head_kv; break; }
  if (n_kv <= 0) n_kv = a.layers.empty() ? 1 : std::max<std::int64_t>(1, a.layers.front().n_head);
  double sum = 0, loaded = 0;
  std::map<std::string, double> parts;  // what each rank holds whole (or in part for K/V), by kind
  for (const auto& t : plan.tensors) {
    if (!load_mtp && t.layer >= 0 && static_cast<std::size_t>(t.layer) < a.layers.size() &&
        a.layers[static_cast<std::size_t>(t.layer)].is_mtp)
      continue;  // MTP layers load only with speculative decoding
    double div = tp;
    const char* part = nullptr;
    switch (t.role) {
      case TensorRole::Norm: case TensorRole::Bias: div = 1; part = "norms"; break;
      case TensorRole::Router: div = 1; part = "router"; break;
      case TensorRole::AttnK: case TensorRole::AttnV:
        div = static_cast<double>(std::min<std::int64_t>(tp, n_kv));  // heads replicated past n_kv
        part = "kv_heads";
        break;
      case TensorRole::AttnOther:
        // MLA down projections (q_a, kv_a_mqa) and the sparse-attention indexer are replicated
        // (vllm/model_executor/models/deepseek_v2.py: ReplicatedLinear / disable_tp).
        // DeepSeek V4 likewise keeps its fused q_a + kv projection and its compressors whole
        // (vllm/models/deepseek_v4/attention.py fused_wqa_wkv, compressor.py fused_wkv_wgate:
        // disable_tp=True).
        if (has(t.name, "indexer")) { div = 1; part = "indexer"; }
        else if (has(t.name, "attn_compressor")) { div = 1; part = "compressor"; }
        else if (has(t.name, "_a.") || has(t.name, "_a_mqa") || has(t.name, ".attn_kv.")) { div = 1; part = "mla_down"; }
        break;
      default: break;
    }
    const double b = static_cast<double>(t.bytes);
    sum += b / div;
    loaded += b;
    if (part && div < tp) parts[part] += b / div;
  }
  VllmWeightSplit s;
  s.per_rank_bytes = static_cast<std::uint64_t>(sum);
  s.loaded_bytes = static_cast<std::uint64_t>(loaded);
  for (const auto& [k, v] : parts) {
    s.parts.emplace_back(k, static_cast<std::uint64_t>(v));
    s.replicated_bytes += static_cast<std::uint64_t>(v);
  }
  const double all = sum * tp;
  s.extra_copies_bytes = all > loaded ? static_cast<std::uint64_t>(all - loaded) : 0;
  return s;
}

std::uint64_t vllm_weights_per_rank(const Architecture& a, const TensorPlan& plan, int tp, bool load_mtp) {
  return vllm_weight_split(a, plan, tp, load_mtp).per_rank_bytes;
}

bool tensor_parallel_accepted(const Architecture& a, int tp) {
  const std::int64_t n_head = a.layers.empty() ? 0 : a.layers.front().n_head;
  return tp >= 1 && (n_head <= 0 || n_head % tp == 0);
}

VllmBudget vllm_budget(const Architecture& a, const TensorPlan& plan, double total_gib,
                       const VllmOptions& o) {
  VllmBudget b;
  const int tp = o.tensor_parallel;
  if (tp < 1) throw InputError("bad_value", "tensor_parallel", "tensor parallel size must be at least 1");
  const std::int64_t n_head = a.layers.empty() ? 0 : a.layers.front().n_head;
  if (!tensor_parallel_accepted(a, tp))
    throw InputError("bad_value", "tensor_parallel",
                     "vLLM needs the attention heads (" + std::to_string(n_head) +
                         ") to be divisible by the tensor parallel size " + std::to_string(tp));
  if (!(o.gpu_memory_utilization > 0 && o.gpu_memory_utilization <= 1))
    throw InputError("bad_value", "gpu_memory_utilization", "gpu_memory_utilization must be in (0, 1]");
  const bool large = total_gib >= 70.0;
  b.tensor_parallel = tp;
  b.kv_cache_dtype = o.kv_cache_dtype;
  b.max_model_len = o.max_model_len > 0 ? o.max_model_len : a.n_ctx_train;
  if (b.max_model_len <= 0)
    throw InputError("bad_value", "context", "this model does not state its maximum context; give one");
  // Engine defaults (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults); V0 batched a whole
  // prompt at once.
  b.max_num_seqs = o.max_num_seqs > 0 ? o.max_num_seqs : (large ? 1024 : 256);
  b.max_num_batched_tokens = o.max_num_batched_tokens > 0 ? o.max_num_batched_tokens
                             : o.v0_profile ? std::max<std::int64_t>(b.max_model_len, 2048)
                             : (large ? 8192 : 2048);
  b.block_size = o.block_size > 0 ? o.block_size : (a.is_mla() ? 64 : 16);
  const int dt = dtype_bytes(o.kv_cache_dtype, a);
  const int act_dt = a.native_dtype == "fp32" ? 4 : 2;

  b.total_bytes = static_cast<std::uint64_t>(total_gib * kGiB);
  b.requested_bytes = static_cast<std::uint64_t>(std::ceil(static_cast<double>(b.total_bytes) * o.gpu_memory_utilization));
  b.weights = vllm_weight_split(a, plan, tp, o.load_mtp);
  b.weights_bytes = b.weights.per_rank_bytes;
  if (o.draft_arch && o.draft_plan) b.weights_bytes += vllm_weights_per_rank(*o.draft_arch, *o.draft_plan, tp);

  // Activation peak of the profile run.
  std::int64_t ff = 0;
  for (const auto& L : a.layers) {
    if (L.is_mtp) continue;
    if (L.ffn == FfnKind::Dense) ff = std::max<std::int64_t>(ff, 3 * L.n_ff / tp + 3 * a.n_embd);
    if (L.ffn == FfnKind::MoE) {  // fused-MoE caches: [T, top_k, 2N], [T*top_k, N], [T, top_k, hidden]
      ff = std::max<std::int64_t>(ff, 3 * (a.moe.n_expert_used * a.moe.n_ff_exp + a.moe.n_shared * a.moe.n_ff_shexp) / tp +
                                          a.moe.n_expert_used * a.n_embd + 3 * a.n_embd);
      ff = std::max<std::int64_t>(ff, 3 * L.n_ff / tp + 3 * a.n_embd);   // Gemma 4's dense MLP beside them
    }
  }
  const double tokens_part = static_cast<double>(b.max_num_batched_tokens) * act_dt * static_cast<double>(ff);
  // V0's profile run had no dummy sampler pass (vllm-0001/0002: the peak above the weights is
  // the token term alone).
  const double sampler_part = o.v0_profile ? 0.0 : kSamplerBuffers * static_cast<double>(b.max_num_seqs) * static_cast<double>(a.n_vocab) * 4.0;
  if (is_dsa(a)) {
    // Allocated when the model loads, before the KV cache is sized: the top-k index buffer all
    // indexer layers share, max_num_batched_tokens x index_topk int32 (deepseek_v2.py,
    // DeepseekV2Model), and the sparse-MLA kernel's workspace (flashmla_sparse.py,
    // FlashMLASparseImpl): the batch's queries over the 576-wide latent in bf16, heads padded to
    // 64 for a bf16 cache (Hopper's prefill kernel; 128 on Blackwell), plus for fp8_ds_mla the
    // bf16 prefill buffer of 5 x max_model_len latent rows it upconverts into.
    const std::int64_t T = b.max_num_batched_tokens, width = a.mla.kv_lora_rank + a.mla.qk_rope_dim;
    const std::int64_t heads = n_head / tp;
    std::int64_t ws = T * a.indexer_top_k * 4;
    if (dt == 1) ws += T * heads * width * 2 + 5 * b.max_model_len * width * 2;
    else ws += T * cdiv(heads, 64) * 64 * width * 2;
    b.sparse_workspace_bytes = static_cast<std::uint64_t>(ws);
  }
  if (is_dsv4(a)) {
    // DeepSeek V4's top-k index buffer, max_num_batched_tokens x index_topk int32, allocated with
    // the model (vllm/models/deepseek_v4/attention.py topk_indices_buffer); the sparse kernels'
    // prefill gather workspace is not modelled.
    b.sparse_workspace_bytes = static_cast<std::uint64_t>(b.max_num_batched_tokens * a.dsv4.index_topk * 4);
  }
  b.activation_bytes = static_cast<std::uint64_t>(tokens_part + sampler_part) + b.sparse_workspace_bytes;
  b.non_torch_bytes = static_cast<std::uint64_t>(o.non_torch_gib * kGiB);
  b.cuda_context_bytes = static_cast<std::uint64_t>(o.cuda_context_gib * kGiB);
  b.cuda_graph_bytes = o.enforce_eager ? 0 : static_cast<std::uint64_t>(o.cuda_graph_gib * kGiB);
  b.kv_available_bytes = static_cast<std::int64_t>(b.requested_bytes) - static_cast<std::int64_t>(b.weights_bytes) -
                         static_cast<std::int64_t>(b.activation_bytes) - static_cast<std::int64_t>(b.non_torch_bytes);

  if (is_dsv4(a)) {
    vllm_dsv4_pages(a, o, b);
    // Every byte a token adds is in the compressed and indexer pages (each layer's 128-token
    // window is a fixed part of it): the per-token figure the result shows.
    b.kv_growing_bytes_per_token = b.kv_bytes_per_token;
    b.kv_element_bytes = o.kv_cache_dtype == "bfloat16" || o.kv_cache_dtype == "bf16" ? 2 : 1;
    vllm_finish(o, b);
    return b;
  }
  // KV cache groups (vllm/v1/kv_cache_interface.py, vllm/v1/core/kv_cache_utils.py).
  std::map<std::string, VllmKvGroup> kinds;
  const std::int64_t L = b.max_model_len, T = b.max_num_batched_tokens;
  std::int64_t B = b.block_size;
  auto add_pages = [&](const Architecture& m, const LayerSpec& ly, int edt, bool drafter = false) {
    // The MTP drafter's attention layer gets its own pages in the same pool when it is loaded.
    // A recurrent layer keeps its state even where the config marks it as caching no keys (Kimi
    // Linear and K3 mark their KDA layers so).
    if ((ly.is_mtp && !o.load_mtp) || ly.attn == AttnKind::None || (!ly.has_kv && ly.attn != AttnKind::Linear)) return;
    std::string kind = "full";
    // A token's bytes (the state of a recurrent layer), as vllm_layer_cache_bytes gives them.
    const std::uint64_t cell = layer_cell_bytes(m, ly, edt, tp, o.sglang_cells);
    std::uint64_t page = ly.attn == AttnKind::Linear ? cell : static_cast<std::uint64_t>(B) * cell;
    if (ly.attn == AttnKind::MLA) {
      kind = "mla";  // one latent per token, not split by TP, no K/V pair
      // vLLM counts MLA as one KV head (vllm/config/model.py ModelConfig.get_num_kv_heads), and a
      // head count below TP is replicated, not split: every rank keeps the whole latent cache.
      b.kv_copies = std::max(b.kv_copies, tp);
      b.kv_copies_code = "mla_latent";
      if (is_dsa(m)) {
        const DsaCell c = dsa_cell(m, edt, o.sglang_cells);
        b.kv_latent_bytes_per_token += c.latent;
        b.kv_indexer_bytes_per_token += c.indexer;
        b.sparse_top_k = m.indexer_top_k;
        b.sparse_kind = "dsa";
      }
    } else if (ly.attn == AttnKind::Linear) {
      kind = "mamba";
    } else {
      if (ly.n_head_kv > 0 && ly.n_head_kv < tp)  // each KV head kept on tp / n_head_kv ranks
        if (tp / ly.n_head_kv > b.kv_copies) {
          b.kv_copies = static_cast<int>(tp / ly.n_head_kv);
          b.kv_copies_code = "kv_heads_below_tp";
        }
      if (ly.attn == AttnKind::Sliding) kind = "sliding";
      if (ly.attn == AttnKind::Chunked) kind = "chunked";
    }
    auto& g = kinds[kind];
    g.kind = kind;
    g.layers += 1;
    g.page_bytes = std::max(g.page_bytes, page);
    if (kind != "mamba") b.kv_bytes_per_token += page / static_cast<std::uint64_t>(B);
    // What a token of context adds to the model's own cache: the full-attention and MLA layers;
    // a sliding or chunked layer keeps its window, a recurrent one its state, at any length.
    if (drafter) return;
    if (kind == "full" || kind == "mla") {
      b.kv_growing_bytes_per_token += page / static_cast<std::uint64_t>(B);
    } else {
      b.kv_fixed_layers += 1;
      if (kind != "mamba") {
        b.kv_window_bytes_per_token += page / static_cast<std::uint64_t>(B);
        b.kv_window_layers += 1;
      }
    }
  };
  for (const auto& ly : a.layers) add_pages(a, ly, dt);
  if (o.draft_arch)  // a draft model's layers page the same pool (vllm/v1/spec_decode/draft_model.py)
    for (const auto& ly : o.draft_arch->layers) add_pages(*o.draft_arch, ly, dtype_bytes(o.kv_cache_dtype, *o.draft_arch), true);
  // A hybrid of attention and recurrent (mamba-like) layers: vLLM raises the attention block size
  // to a multiple of the kernel's block size whose page holds at least one layer's recurrent state,
  // then pads the state page to that page (vllm/platforms/interface.py and cuda.py,
  // update_block_size_for_backend: attn_block_size = alignment x cdiv(mamba_page_size, alignment x
  // attention page of one token); vllm/model_executor/models/config.py HybridAttentionMambaModelConfig).
  if (kinds.count("mamba") && kinds.size() > 1 && !o.sglang_cells) {
    std::uint64_t tok = 0;
    for (const auto& [k, g] : kinds)
      if (k != "mamba") tok = std::max(tok, g.page_bytes / static_cast<std::uint64_t>(B));
    auto& m = kinds["mamba"];
    if (tok > 0) {
      const std::int64_t nb = B * cdiv(static_cast<std::int64_t>(m.page_bytes), B * static_cast<std::int64_t>(tok));
      for (auto& [k, g] : kinds)
        if (k != "mamba") g.page_bytes = g.page_bytes / static_cast<std::uint64_t>(B) * static_cast<std::uint64_t>(nb);
      m.page_bytes = std::max(m.page_bytes, static_cast<std::uint64_t>(nb) * tok);
      B = nb;
      b.block_size = static_cast<int>(nb);
    }
  }
  b.kv_element_bytes = dt;
  const std::uint64_t window = [&] {
    for (const auto& ly : a.layers)
      if (ly.attn == AttnKind::Sliding || ly.attn == AttnKind::Chunked) return static_cast<std::uint64_t>(ly.window);
    return std::uint64_t{0};
  }();
  auto blocks_for = [&](const std::string& kind, std::int64_t len) -> std::int64_t {
    if (kind == "mamba") return 1;
    if (kind == "sliding") return cdiv(std::min<std::int64_t>(static_cast<std::int64_t>(window) - 1 + T, len), B) + 1;
    if (kind == "chunked") return cdiv(std::min<std::int64_t>(static_cast<std::int64_t>(window) + T, len), B);
    return cdiv(len, B);
  };
  std::int64_t gs = 0;
  std::uint64_t page_max = 0;
  for (const auto& [k, g] : kinds) {
    gs = gs == 0 ? g.layers : std::min(gs, g.layers);
    page_max = std::max(page_max, g.page_bytes);
  }
  b.layers_per_group = gs;
  // Blocks one request of `len` tokens needs over all groups (each kind padded to groups of gs).
  auto need = [&](std::int64_t len) {
    std::int64_t n = 0;
    for (const auto& [k, g] : kinds) n += cdiv(g.layers, gs) * blocks_for(k, len);
    return n;
  };
  for (auto& [k, g] : kinds) {
    g.blocks_per_request = blocks_for(k, L);
    b.groups.push_back(g);
  }
  if (gs > 0 && b.kv_available_bytes > 0)
    b.num_blocks = b.kv_available_bytes / static_cast<std::int64_t>(page_max * static_cast<std::uint64_t>(gs));
  b.kv_tokens = b.num_blocks * B;
  const std::int64_t per_req = gs > 0 ? need(L) : 0;
  b.max_concurrency = per_req > 0 ? static_cast<double>(b.num_blocks) / static_cast<double>(per_req) : 0.0;
  b.kv_request_bytes = static_cast<std::uint64_t>(per_req) * page_max * static_cast<std::uint64_t>(gs);
  b.blocks_per_request = per_req;
  // Longest single request that fits: binary search on the (monotone) block need.
  std::int64_t lo = 0, hi = std::max<std::int64_t>(L, b.kv_tokens) * 4 + B;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (gs > 0 && need(mid) <= b.num_blocks) lo = mid;
    else hi = mid - 1;
  }
  b.max_model_len_fit = lo;
  vllm_finish(o, b);
  return b;
}

namespace {

void vllm_finish(const VllmOptions& o, VllmBudget& b) {
  const double headroom = static_cast<double>(b.total_bytes) * (1.0 - o.gpu_memory_utilization);
  b.graphs_fit_headroom = headroom >= static_cast<double>(b.cuda_graph_bytes + b.cuda_context_bytes);
  b.process_bytes = b.requested_bytes + b.cuda_context_bytes + b.cuda_graph_bytes;
  b.reason_code.clear();
  if (b.kv_available_bytes <= 0) {
    b.reason_code = "weights_exceed_budget";
  } else if (b.max_concurrency < 1.0) {
    b.reason_code = "context_exceeds_kv";
  } else if (!b.graphs_fit_headroom) {
    b.reason_code = "graphs_exceed_headroom";
  }
  b.fits = b.reason_code.empty();
}

// DeepSeek V4 (servers/dsv4.hpp): five or more groups sharing one block pool, a block being the
// most layer tuples of any group times the compressed group's tuple bytes.
void vllm_dsv4_pages(const Architecture& a, const VllmOptions& o, VllmBudget& b) {
  const Dsv4VllmLayout l = dsv4_vllm_layout(a, o.kv_cache_dtype);
  const std::int64_t L = b.max_model_len, T = b.max_num_batched_tokens;
  b.block_size = 256;
  if (o.kv_cache_dtype == "auto") {
    // vLLM's FlashMLA backend for V4 keeps its cache in the fp8_ds_mla layout, which needs an fp8
    // cache (vllm/models/deepseek_v4/attention.py, _resolve_dsv4_kv_cache_dtype).
    b.kv_cache_dtype = "fp8";
    b.kv_cache_dtype_code = "engine_default_dsv4";
  }
  b.kv_copies = b.tensor_parallel;  // one latent head, whole on every rank
  b.kv_copies_code = "mla_latent";
  b.layers_per_group = l.layer_tuples;
  for (const auto& g : l.groups) {
    VllmKvGroup k;
    k.kind = g.kind;
    k.layers = g.layer_tuples;
    k.page_bytes = g.dense_bytes;
    k.blocks_per_request = g.window <= 0 ? cdiv(L, g.block_tokens)
                                         : cdiv(std::min(g.window - 1 + T, L), g.block_tokens) + 1;
    b.groups.push_back(k);
  }
  b.kv_latent_bytes_per_token = static_cast<std::uint64_t>(std::llround(l.sparse_bytes_per_token));
  b.kv_indexer_bytes_per_token = static_cast<std::uint64_t>(std::llround(l.dense_bytes_per_token));
  b.kv_bytes_per_token = b.kv_latent_bytes_per_token + b.kv_indexer_bytes_per_token;
  // A ratio-4 layer attends to index_topk compressed entries, index_topk x 4 tokens of context.
  b.sparse_top_k = a.dsv4.index_topk * 4;
  // Every layer reads its window keys each step (sparse_swa.py decode_swa_indices: window_size rows).
  b.sparse_kind = "dsv4";
  for (const auto& L0 : a.layers)
    if (!L0.is_mtp && L0.attn == AttnKind::Compressed) {
      b.kv_window_read_bytes += static_cast<std::uint64_t>(L0.window) * l.key_bytes;
      b.window_tokens = L0.window;
    }
  const std::int64_t block = static_cast<std::int64_t>(l.block_bytes);
  if (block > 0 && b.kv_available_bytes > 0) b.num_blocks = b.kv_available_bytes / block;
  const std::int64_t per_req = dsv4_vllm_blocks(l, L, T);
  b.max_concurrency = per_req > 0 ? static_cast<double>(b.num_blocks) / static_cast<double>(per_req) : 0.0;
  // vLLM's "GPU KV cache size" line: max concurrency x max_model_len (kv_cache_utils.py
  // _report_kv_cache_config).
  b.kv_tokens = static_cast<std::int64_t>(b.max_concurrency * static_cast<double>(L));
  b.kv_request_bytes = static_cast<std::uint64_t>(per_req) * l.block_bytes;
  b.blocks_per_request = per_req;
  b.pool_code = "shared_blocks";
  std::int64_t lo = 0, hi = std::max<std::int64_t>(L, b.num_blocks * 256) * 2 + 256;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (block > 0 && dsv4_vllm_blocks(l, mid, T) <= b.num_blocks) lo = mid;
    else hi = mid - 1;
  }
  b.max_model_len_fit = lo;
}

}  // namespace
}  // namespace wif
