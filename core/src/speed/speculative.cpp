#include "willitfit/speed/speculative.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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
    if (d->contains("acceptance") && (*d)["acceptance"].contains("draft")) {
      const auto& m = (*d)["acceptance"]["draft"];
      range_or(m, "code", p.draft_code_low, p.draft_code_high);
      range_or(m, "prose", p.draft_prose_low, p.draft_prose_high);
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

std::uint64_t read_per_token_bytes(const Architecture& a, const TensorPlan& plan) {
  const double used = a.moe.n_expert > 0 ? static_cast<double>(a.moe.n_expert_used) / static_cast<double>(a.moe.n_expert) : 1.0;
  double b = 0;
  for (const auto& t : plan.tensors) {
    if (t.role == TensorRole::TokenEmbd || in_mtp_layer(a, t.layer)) continue;
    b += static_cast<double>(t.bytes) * (is_routed(t.role) ? used : 1.0);
  }
  // A tied head reads the embedding table as its output matrix (llama.cpp duplicates it there).
  if (a.tied_embeddings)
    for (const auto& t : plan.tensors)
      if (is_main_token_table(t)) {
        b += static_cast<double>(t.bytes);
        break;
      }
  return static_cast<std::uint64_t>(b);
}

SpeculativeCosts draft_costs(const Architecture& target, const TensorPlan& target_plan, const Architecture& draft,
                             const TensorPlan& draft_plan) {
  SpeculativeCosts c;
  const std::uint64_t t = read_per_token_bytes(target, target_plan);
  const std::uint64_t d = read_per_token_bytes(draft, draft_plan);
  const SpeculativeCosts m = mtp_costs(target, target_plan);  // the target's routed-expert share
  c.target_read_bytes = t;
  c.draft_read_bytes = d;
  c.draft_cost = t > 0 ? static_cast<double>(d) / static_cast<double>(t) : 0;
  c.routed_share = m.routed_share;
  return c;
}

std::string tokenizer_group(const Catalog& cat, const std::string& model_id) {
  const nlohmann::json* d = cat.document("speculative.json");
  if (!d || !d->contains("tokenizers") || !(*d)["tokenizers"].is_array()) return "";
  const ModelEntry* e = cat.find_model(model_id);
  const std::string id = e ? e->id : model_id;
  for (const auto& g : (*d)["tokenizers"]) {
    if (!g.is_object() || !g.contains("models") || !g["models"].is_array()) continue;
    for (const auto& m : g["models"])
      if (m.is_string() && m.get<std::string>() == id) return g.value("id", "");
  }
  return "";
}

std::vector<std::string> draft_candidates(const Catalog& cat, const std::string& target_id) {
  std::vector<std::string> out;
  const ModelEntry* t = cat.find_model(target_id);
  if (!t) return out;
  const std::string g = tokenizer_group(cat, t->id);
  if (g.empty()) return out;
  std::vector<const ModelEntry*> found;
  for (const auto& m : cat.models()) {
    if (m.id == t->id || m.params_total_b <= 0 || m.params_total_b >= t->params_total_b) continue;
    if (tokenizer_group(cat, m.id) != g) continue;
    const std::int64_t diff = m.arch.n_vocab > t->arch.n_vocab ? m.arch.n_vocab - t->arch.n_vocab : t->arch.n_vocab - m.arch.n_vocab;
    if (diff > kSpecVocabMaxSizeDifference) continue;
    found.push_back(&m);
  }
  std::sort(found.begin(), found.end(), [](const ModelEntry* a, const ModelEntry* b) {
    return a->params_total_b != b->params_total_b ? a->params_total_b < b->params_total_b : a->id < b->id;
  });
  for (const auto* m : found) out.push_back(m->id);
  return out;
}

nlohmann::json speculative_accuracy(const Catalog& cat) {
  using nlohmann::json;
  const SpeculativeParams sp = speculative_params(cat);
  json rows = json::array();
  std::vector<double> held, fitted;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_kind;  // kind -> fitted, held-out errors
  const json* d = cat.document("speculative.json");
  if (!d || !d->contains("measurements") || !(*d)["measurements"].is_array()) return {{"rows", rows}};
  for (const auto& m : (*d)["measurements"]) {
    if (!m.is_object() || !m.contains("draft_max")) continue;
    const std::string kind = m.value("kind", "mtp");
    const bool outside = m.value("outside_model", false), fit = m.value("fitted", false);
    json row = {{"row_id", m.value("row_id", "")}, {"kind", kind}, {"model", m.value("model", "")},
                {"hardware", m.value("hardware", "")}, {"backend", m.value("backend", "")},
                {"draft_max", m["draft_max"]}, {"source", m.value("source", "")},
                {"split", outside ? "outside_model" : fit ? "fitted" : "held_out"}};
    if (m.contains("draft_model")) row["draft_model"] = m["draft_model"];
    SpeculativeCosts c;
    if (m.contains("draft_cost") && m["draft_cost"].is_number()) {
      c.draft_cost = m["draft_cost"].get<double>();
      c.routed_share = m.value("routed_expert_share", 0.0);
    } else if (kind == "draft" && m.contains("draft_model")) {
      const ModelEntry* t = cat.find_model(m.value("model", ""));
      const ModelEntry* dm = cat.find_model(m.value("draft_model", ""));
      if (!t || !dm) continue;
      c = draft_costs(t->arch, plan_quantization(t->arch, m.value("quant", "Q4_K_M")), dm->arch,
                      plan_quantization(dm->arch, m.value("draft_quant", "Q4_K_M")));
    } else {
      rows.push_back(row);  // no cost basis given: listed, not predicted
      continue;
    }
    row["draft_cost"] = c.draft_cost;
    const int k = m["draft_max"].get<int>();
    if (m.contains("acceptance_rate") && m.contains("speedup")) {
      const double pred = speculative_speedup_at_rate(m["acceptance_rate"].get<double>(), k, c, sp);
      const double meas = m["speedup"].get<double>();
      row["acceptance_rate"] = m["acceptance_rate"];
      row["speedup"] = meas;
      row["predicted"] = pred;
      row["error_pct"] = 100.0 * (pred - meas) / meas;
      if (!outside) {
        const double ape = std::fabs(100.0 * (pred - meas) / meas);
        (fit ? fitted : held).push_back(ape);
        (fit ? by_kind[kind].first : by_kind[kind].second).push_back(ape);
      }
    } else if (m.contains("acceptance_rate_range") && m.contains("speedup_range")) {
      const double lo = speculative_speedup_at_rate(m["acceptance_rate_range"][0].get<double>(), k, c, sp);
      const double hi = speculative_speedup_at_rate(m["acceptance_rate_range"][1].get<double>(), k, c, sp);
      row["speedup_range"] = m["speedup_range"];
      row["predicted_range"] = {lo, hi};
      row["covered"] = lo <= m["speedup_range"][0].get<double>() && hi >= m["speedup_range"][1].get<double>();
    }
    rows.push_back(row);
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  json kinds = json::object();
  for (const auto& [k, v] : by_kind)
    kinds[k] = {{"fitted_rows", v.first.size()}, {"held_out_rows", v.second.size()},
                {"fitted_median_ape_pct", median(v.first)}, {"held_out_median_ape_pct", median(v.second)},
                {"held_out_max_ape_pct", v.second.empty() ? 0.0 : *std::max_element(v.second.begin(), v.second.end())}};
  return {{"rows", rows}, {"by_kind", kinds}, {"fitted_rows", fitted.size()}, {"held_out_rows", held.size()},
          {"fitted_median_ape_pct", median(fitted)}, {"held_out_median_ape_pct", median(held)},
          {"held_out_max_ape_pct", held.empty() ? 0.0 : *std::max_element(held.begin(), held.end())},
          {"source", "data/speculative.json"}};
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
  const bool draft = o.draft;
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
  one("code", draft ? sp.draft_code_low : sp.code_low, draft ? sp.draft_code_high : sp.code_high);
  one("prose", draft ? sp.draft_prose_low : sp.prose_low, draft ? sp.draft_prose_high : sp.prose_high);
  return {{"kind", o.kind()}, {"engine", engine}, {"draft_max", k}, {"workload", o.workload},
          {"weights_bytes", weights_bytes}, {"kv_bytes", kv_bytes}, {"extra_bytes", weights_bytes + kv_bytes},
          {"draft_cost", c.draft_cost}, {"routed_share", c.routed_share},
          {"overhead_per_draft_token", sp.overhead_per_draft_token}, {"expert_verify_share", sp.expert_verify_share},
          {"workloads", w}, {"source", "data/speculative.json"}};
}

}  // namespace wif
