#include "willitfit/speed/speculative.hpp"

#include <algorithm>
#include <cmath>

namespace wif {
namespace {

bool is_routed(TensorRole r) { return r == TensorRole::ExpGate || r == TensorRole::ExpUp || r == TensorRole::ExpDown; }

bool in_mtp_layer(const Architecture& a, int layer) {
  return layer >= 0 && static_cast<std::size_t>(layer) < a.layers.size() && a.layers[static_cast<std::size_t>(layer)].is_mtp;
}

double num_or(const nlohmann::json& j, const char* k, double d) {
  return j.is_object() && j.contains(k) && j[k].is_number() ? j[k].get<double>() : d;
}

void range_or(const nlohmann::json& j, const char* k, double& lo, double& hi) {
  if (j.is_object() && j.contains(k) && j[k].is_array() && j[k].size() == 2 && j[k][0].is_number() && j[k][1].is_number()) {
    lo = j[k][0].get<double>();
    hi = j[k][1].get<double>();
  }
}

}  // namespace

SpeculativeParams speculative_params(const Catalog& cat) {
  SpeculativeParams p;
  if (const nlohmann::json* d = cat.document("speculative.json")) {
    p.overhead_per_draft_token = num_or(*d, "overhead_per_draft_token", p.overhead_per_draft_token);
    p.expert_verify_share = num_or(*d, "expert_verify_share", p.expert_verify_share);
    if (d->contains("acceptance") && (*d)["acceptance"].contains("mtp")) {
      const auto& m = (*d)["acceptance"]["mtp"];
      range_or(m, "code", p.code_low, p.code_high);
      range_or(m, "prose", p.prose_low, p.prose_high);
    }
  }
  return p;
}

SpeculativeCosts mtp_costs(const Architecture& a, const TensorPlan& plan) {
  SpeculativeCosts c;
  const double used = a.moe.n_expert > 0 ? static_cast<double>(a.moe.n_expert_used) / static_cast<double>(a.moe.n_expert) : 1.0;
  double target = 0, routed = 0, draft = 0;
  for (const auto& t : plan.tensors) {
    if (t.role == TensorRole::TokenEmbd) continue;  // one row per token
    const double b = static_cast<double>(t.bytes) * (is_routed(t.role) ? used : 1.0);
    if (in_mtp_layer(a, t.layer)) {
      draft += b;
      continue;
    }
    target += b;
    if (is_routed(t.role)) routed += b;
    if (t.role == TensorRole::Output) draft += b;  // the NextN block runs the shared output head again
  }
  c.target_read_bytes = static_cast<std::uint64_t>(target);
  c.draft_read_bytes = static_cast<std::uint64_t>(draft);
  c.draft_cost = target > 0 ? draft / target : 0;
  c.routed_share = target > 0 ? routed / target : 0;
  return c;
}

std::uint64_t mtp_weight_bytes(const Architecture& a, const TensorPlan& plan) {
  std::uint64_t b = 0;
  for (const auto& t : plan.tensors)
    if (in_mtp_layer(a, t.layer)) b += t.bytes;
  return b;
}

double acceptance_rate(double p, int k) {
  if (k <= 0) return 0;
  double s = 0, pi = 1;
  for (int i = 1; i <= k; ++i) {
    pi *= p;
    s += pi;
  }
  return s / k;
}

double speculative_speedup_at_rate(double r, int k, const SpeculativeCosts& c, const SpeculativeParams& sp) {
  const double tokens = 1.0 + k * r;
  const double cost = 1.0 + k * (c.draft_cost + sp.overhead_per_draft_token + sp.expert_verify_share * c.routed_share);
  return tokens / cost;
}

double speculative_speedup(double p, int k, const SpeculativeCosts& c, const SpeculativeParams& sp) {
  return speculative_speedup_at_rate(acceptance_rate(p, k), k, c, sp);
}

nlohmann::json speculative_json(const SpeculativeOptions& o, const std::string& engine, const SpeculativeCosts& c,
                                const SpeculativeParams& sp, std::uint64_t weights_bytes, std::uint64_t kv_bytes,
                                double base_tps, double base_low, double base_high) {
  using nlohmann::json;
  const int k = o.draft_max > 0 ? o.draft_max : 1;
  json w = json::array();
  auto one = [&](const char* name, double plo, double phi) {
    const double slo = speculative_speedup(plo, k, c, sp), shi = speculative_speedup(phi, k, c, sp);
    json j = {{"workload", name}, {"p_low", plo}, {"p_high", phi},
              {"acceptance_low", acceptance_rate(plo, k)}, {"acceptance_high", acceptance_rate(phi, k)},
              {"speedup_low", slo}, {"speedup_high", shi}};
    if (base_tps > 0) {
      j["decode_tps_low"] = base_low * slo;
      j["decode_tps_high"] = base_high * shi;
      j["decode_tps"] = base_tps * 0.5 * (slo + shi);
    }
    w.push_back(j);
  };
  one("code", sp.code_low, sp.code_high);
  one("prose", sp.prose_low, sp.prose_high);
  return {{"kind", "mtp"}, {"engine", engine}, {"draft_max", k}, {"workload", o.workload},
          {"weights_bytes", weights_bytes}, {"kv_bytes", kv_bytes}, {"extra_bytes", weights_bytes + kv_bytes},
          {"draft_cost", c.draft_cost}, {"routed_share", c.routed_share},
          {"overhead_per_draft_token", sp.overhead_per_draft_token}, {"expert_verify_share", sp.expert_verify_share},
          {"workloads", w}, {"source", "data/speculative.json"}};
}

}  // namespace wif
