// Speculative decoding: a model's own multi-token-prediction (MTP / NextN) layers, or a separate
// draft model, propose k tokens that the target model verifies in one step.
//
// Memory (llama.cpp, PR #26534 for glm4moe; the loader keeps the NextN block when speculative MTP
// is on and gives that layer its own KV cache, as in PR #25980): the MTP layer's weights become
// resident next to the output layer, with one layer's cache of the context.
//
// Speed: with a per-position acceptance p, one step yields 1 + k·r tokens where the acceptance
// rate r = (p + p² + … + pᵏ)/k (what llama-server prints as "draft acceptance"). It costs, in
// single-token decode times, 1 + k·(draft_cost + overhead + expert_verify_share·routed_share):
// draft_cost is what one drafted token reads over what one target token reads; a MoE target
// reads other experts for each extra token it verifies (routed_share of its reads). overhead and
// expert_verify_share are fitted on public measurements (data/speculative.json). On Metal a verify
// batch of up to 8 rows runs llama.cpp's small-batch matrix-vector kernels, which barely amortize
// the weight read over the rows (ggml/src/ggml-metal/ggml-metal-ops.cpp: matrix-matrix only above
// ne11_mm_min = 8 rows), so each drafted token costs a larger share there (metal_overhead_...),
// which stands for the whole verified row (a MoE model's other experts included).
//
// vLLM verifies differently (vllm/v1/worker/gpu_model_runner.py runs the target once over the k + 1
// scheduled tokens and vllm/v1/sample/rejection_sampler.py accepts or rejects them): its BF16/FP8
// GEMMs read each weight once for all k + 1 rows, so the verify adds no per-row share like
// llama.cpp's quantized kernels do. What a drafted token costs there is one pass of the draft
// (vllm/v1/spec_decode/eagle.py EagleProposer.propose: the first over the step's tokens, then one
// single-token pass per further drafted token, each building its attention metadata on the host
// and running attention outside the piecewise CUDA graph), which has a floor well above what a
// one-layer EAGLE head reads: on vLLM a drafted token costs max(draft_cost, vllm_min_cost_per_draft_token)
// plus the MoE experts term, and no llama.cpp overhead.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

/// The request's speculative settings ("mtp", "draft_max", "workload").
struct SpeculativeOptions {
  bool mtp = false;            // run with the model's own MTP layers as the draft
  int draft_max = 0;           // k: tokens drafted per step (0 = the default, 1 for MTP)
  std::string workload = "prose";  // code | prose: which acceptance range applies
  bool draft = false;          // a separate draft model drafts (request "draft_model")
  bool on() const { return mtp || draft; }
  const char* kind() const { return draft ? "draft" : "mtp"; }
};

struct SpeculativeCosts;

/// The engine terms and acceptance ranges of data/speculative.json.
struct SpeculativeParams {
  double overhead_per_draft_token = 0.188;
  double expert_verify_share = 0.65;
  double code_low = 0.84, code_high = 0.95, prose_low = 0.61, prose_high = 0.82;  // MTP, per position
  // A separate draft model, per position (acceptance.draft in speculative.json).
  double draft_code_low = 0.80, draft_code_high = 0.95, draft_prose_low = 0.70, draft_prose_high = 0.89;
  // llama.cpp on Metal (speculative.json "metal"): the overhead per drafted token while the verify
  // batch (k + 1 rows) stays on the small-batch kernels, i.e. k <= metal_small_batch_max_draft.
  double metal_overhead_per_draft_token = 0.657;
  int metal_small_batch_max_draft = 7;
  // vLLM (speculative.json "vllm"): the least a drafted token costs, in single-token decode times.
  double vllm_min_cost_per_draft_token = 0.193;
  /// The overhead per drafted token on a backend ("metal", "cuda" ..., any case) at k drafted
  /// tokens, for llama.cpp (and any engine but vLLM); on vLLM the draft pass's floor.
  double overhead(const std::string& backend, int k, const std::string& engine = "") const;
  /// What one drafted token costs in single-token decode times: the draft's read plus the
  /// verify's share (llama.cpp: overhead + experts; Metal's small batches: the fitted share for
  /// the whole row; vLLM: max(draft read, the pass floor) + experts).
  double per_draft_token(const SpeculativeCosts& c, const std::string& backend, int k,
                         const std::string& engine = "") const;
  /// "fitted", "metal_small_batch" or "vllm_draft_pass": which term above prices a drafted token.
  const char* overhead_code(const std::string& backend, int k, const std::string& engine = "") const;
};

/// A draft model's tokenizer against the target's, as llama.cpp checks it before it drafts
/// (common/speculative.cpp common_speculative_are_compatible: same vocab type, same BOS/EOS,
/// vocabulary sizes within SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128 tokens, and the same text for
/// every token id from SPEC_VOCAB_CHECK_START_TOKEN_ID = 5 on). Token texts are not in a config,
/// so the catalog's tokenizer groups (speculative.json "tokenizers") stand for the last three.
constexpr std::int64_t kSpecVocabMaxSizeDifference = 128;
/// The catalog's tokenizer group of a model id ("" when the model is in none).
std::string tokenizer_group(const Catalog& cat, const std::string& model_id);
/// Catalog models that can draft for `target_id`: same tokenizer group, fewer parameters,
/// vocabularies within 128 tokens; smallest first.
std::vector<std::string> draft_candidates(const Catalog& cat, const std::string& target_id);

/// Read from the catalog's speculative.json (defaults above when absent).
SpeculativeParams speculative_params(const Catalog& cat);

/// What one drafted token reads, and the target's routed-expert share, as fractions of the
/// bytes one target token reads.
struct SpeculativeCosts {
  double draft_cost = 0;
  double routed_share = 0;
  std::uint64_t target_read_bytes = 0;   // per decoded token (embedding row excluded)
  std::uint64_t draft_read_bytes = 0;    // per drafted token
};

/// Costs when the model's own MTP layers draft: the MTP block (experts at used/total) plus the
/// shared output head it runs again.
SpeculativeCosts mtp_costs(const Architecture& a, const TensorPlan& plan);

/// Bytes of the MTP layers' weights in the plan, and their KV cache for `n_ctx_cells` cells given
/// the per-layer cache of the main layers (the NextN layer mirrors the last main layer).
std::uint64_t mtp_weight_bytes(const Architecture& a, const TensorPlan& plan);

/// The engines that draft with the model's own MTP layers (request "mtp"), in the order
/// llama.cpp, vllm, sglang; empty for a model (or file) without MTP layers. mlx-lm drafts with
/// none. llama.cpp only for a GGUF architecture the catalog lists in speculative.json
/// engines["llama.cpp"].mtp_archs (its draft-mtp graphs: GLM-4.5 glm4moe, GLM-5 glm-dsa, DeepSeek
/// V3.2 deepseek32, Step-3.5 step35, Qwen3.5/3.6 …); vLLM (--speculative-config.method mtp) and
/// SGLang (EAGLE with the NextN block) for every model whose file keeps the block.
std::vector<std::string> mtp_draft_engines(const Catalog& cat, const Architecture& a);

/// Costs when a separate draft model drafts: what one of its tokens reads (its layers, output
/// head, experts at used/total; the embedding row excluded) over what one target token reads.
SpeculativeCosts draft_costs(const Architecture& target, const TensorPlan& target_plan, const Architecture& draft,
                             const TensorPlan& draft_plan);

/// Bytes one decoded token reads from a plan (experts at used/total, MTP layers and the
/// embedding table left out).
std::uint64_t read_per_token_bytes(const Architecture& a, const TensorPlan& plan);

double acceptance_rate(double p, int k);
/// Speedup over plain decode for an acceptance rate r (accepted / drafted) at k drafted tokens.
/// `backend` is the device's primary backend ("" or any but Metal: the CUDA-fitted overhead);
/// `engine` "vllm" prices a drafted token by vLLM's terms, anything else by llama.cpp's.
double speculative_speedup_at_rate(double r, int k, const SpeculativeCosts& c, const SpeculativeParams& sp,
                                   const std::string& backend = "", const std::string& engine = "");
/// The same for a per-position acceptance p.
double speculative_speedup(double p, int k, const SpeculativeCosts& c, const SpeculativeParams& sp,
                           const std::string& backend = "", const std::string& engine = "");

/// The accuracy report's speculative rows (speculative.json measurements): per row the speedup the
/// model predicts at the row's acceptance and k against the published one (or, for a range row,
/// whether the predicted range holds the measured one), the median error of the held-out rows, and
/// per row the range a result states for the row's workload (code, prose, or mixed: prose low to
/// code high) at its k and backend, with whether the measured speedup falls inside it.
nlohmann::json speculative_accuracy(const Catalog& cat);

/// The result's "speculative" block: kind, k, memory added, costs and, per workload, the
/// acceptance and speedup ranges and the decode range they give (base_low/high = plain decode).
nlohmann::json speculative_json(const SpeculativeOptions& o, const std::string& engine, const SpeculativeCosts& c,
                                const SpeculativeParams& sp, std::uint64_t weights_bytes, std::uint64_t kv_bytes,
                                double base_tps, double base_low, double base_high, const std::string& backend = "");

}  // namespace wif
