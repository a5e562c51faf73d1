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
// expert_verify_share are fitted on public measurements (data/speculative.json).
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
  bool on() const { return mtp; }
};

/// The engine terms and acceptance ranges of data/speculative.json.
struct SpeculativeParams {
  double overhead_per_draft_token = 0.188;
  double expert_verify_share = 0.65;
  double code_low = 0.84, code_high = 0.95, prose_low = 0.70, prose_high = 0.82;  // MTP, per position
};

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

double acceptance_rate(double p, int k);
/// Speedup over plain decode for an acceptance rate r (accepted / drafted) at k drafted tokens.
double speculative_speedup_at_rate(double r, int k, const SpeculativeCosts& c, const SpeculativeParams& sp);
/// The same for a per-position acceptance p.
double speculative_speedup(double p, int k, const SpeculativeCosts& c, const SpeculativeParams& sp);

/// The result's "speculative" block: kind, k, memory added, costs and, per workload, the
/// acceptance and speedup ranges and the decode range they give (base_low/high = plain decode).
nlohmann::json speculative_json(const SpeculativeOptions& o, const std::string& engine, const SpeculativeCosts& c,
                                const SpeculativeParams& sp, std::uint64_t weights_bytes, std::uint64_t kv_bytes,
                                double base_tps, double base_low, double base_high);

}  // namespace wif
