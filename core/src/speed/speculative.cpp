#include "willitfit/speed/speculative.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "willitfit/base/stats.hpp"

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

bool is_metal(const std::string& backend) {
  std::string b;
  for (char ch : backend) b += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return b == "metal";
}

/// The words every option's catalog name begins with, up to its first parenthesis ("NVIDIA H100"
/// for the PCIe, SXM5 and NVL cards; "Apple M3 Ultra" for both GPU bins): the name of a device
/// whose variant the source does not state.
std::string shared_name(const std::vector<const Device*>& ds) {
  auto words = [](const std::string& name) {
    std::vector<std::string> w;
    std::string cur;
    for (char ch : name.substr(0, name.find('('))) {
      if (ch == ' ') {
        if (!cur.empty()) w.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    if (!cur.empty()) w.push_back(cur);
    return w;
  };
  std::vector<std::string> common = words(ds.front()->name);
  for (const Device* d : ds) {
    const std::vector<std::string> w = words(d->name);
    std::size_t n = 0;
    while (n < common.size() && n < w.size() && common[n] == w[n]) ++n;
    common.resize(n);
  }
  std::string out;
  for (const auto& w : common) out += (out.empty() ? "" : " ") + w;
  return out;
}

/// A measurement's device as codes and numbers (catalog.cpp checks them at load): a catalog id,
/// the ids one of which it is with the code of what the source leaves unstated, a product the
/// catalog does not hold, or none named; the GPU count and the run's own power limit or overclock.
/// The published wording (`hardware_as_published`) stays in the data for the record only.
void add_device_fields(const Catalog& cat, const nlohmann::json& m, nlohmann::json& row) {
  row["gpu_count"] = m.contains("gpu_count") && m["gpu_count"].is_number_integer() ? m["gpu_count"].get<int>() : 1;
  if (m.contains("device") && m["device"].is_string()) row["device"] = m["device"];
  if (m.contains("device_options") && m["device_options"].is_array()) {
    std::vector<const Device*> ds;
    for (const auto& id : m["device_options"])
      if (const Device* d = id.is_string() ? cat.find_device(id.get<std::string>()) : nullptr) ds.push_back(d);
    row["device_options"] = m["device_options"];
    row["variant_unstated"] = m.value("variant_unstated", "");
    if (!ds.empty()) {
      row["device_shared_name"] = shared_name(ds);
      const bool same_memory = std::all_of(ds.begin(), ds.end(), [&](const Device* d) { return d->memory_gib == ds.front()->memory_gib; });
      if (same_memory) row["device_shared_memory_gib"] = ds.front()->memory_gib;
    }
  }
  if (m.contains("device_not_in_catalog") && m["device_not_in_catalog"].is_object()) {
    const nlohmann::json& n = m["device_not_in_catalog"];
    row["device_not_in_catalog"] = {{"name", n.value("name", "")}};
    if (n.contains("memory_gb") && n["memory_gb"].is_number()) row["device_not_in_catalog"]["memory_gb"] = n["memory_gb"];
  }
  if (m.value("device_unnamed", false)) row["device_unnamed"] = true;
  if (m.contains("power_limit_w") && m["power_limit_w"].is_number()) row["power_limit_w"] = m["power_limit_w"];
  if (m.value("overclocked", false)) row["overclocked"] = true;
}

}  // namespace

const char* SpeculativeParams::overhead_code(const std::string& backend, int k, const std::string& engine) const {
  if (engine == "vllm") return "vllm_draft_pass";
  return is_metal(backend) && k <= metal_small_batch_max_draft ? "metal_small_batch" : "fitted";
}

double SpeculativeParams::overhead(const std::string& backend, int k, const std::string& engine) const {
  if (engine == "vllm") return vllm_min_cost_per_draft_token;
  return is_metal(backend) && k <= metal_small_batch_max_draft ? metal_overhead_per_draft_token : overhead_per_draft_token;
}

double SpeculativeParams::per_draft_token(const SpeculativeCosts& c, const std::string& backend, int k,
                                          const std::string& engine) const {
  const std::string code = overhead_code(backend, k, engine);
  // vLLM: one draft pass per drafted token, at least its floor; the k + 1 verified rows read the
  // weights once, a MoE target's other experts aside.
  if (code == "vllm_draft_pass")
    return std::max(c.draft_cost, vllm_min_cost_per_draft_token) + expert_verify_share * c.routed_share;
  // On Metal's small-batch kernels each verified row re-reads most of what a decode step reads,
  // the other experts of a MoE model among it: the fitted share stands for the whole row there.
  if (code == "metal_small_batch") return c.draft_cost + metal_overhead_per_draft_token;
  return c.draft_cost + overhead_per_draft_token + expert_verify_share * c.routed_share;
}

SpeculativeParams speculative_params(const Catalog& cat) {
  SpeculativeParams p;
  if (const nlohmann::json* d = cat.document("speculative.json")) {
    p.overhead_per_draft_token = num_or(*d, "overhead_per_draft_token", p.overhead_per_draft_token);
    p.expert_verify_share = num_or(*d, "expert_verify_share", p.expert_verify_share);
    if (d->contains("metal") && (*d)["metal"].is_object()) {
      const auto& m = (*d)["metal"];
      p.metal_overhead_per_draft_token = num_or(m, "overhead_per_draft_token", p.metal_overhead_per_draft_token);
      p.metal_small_batch_max_draft = static_cast<int>(num_or(m, "small_batch_max_draft", p.metal_small_batch_max_draft));
    }
    if (d->contains("vllm") && (*d)["vllm"].is_object())
      p.vllm_min_cost_per_draft_token = num_or((*d)["vllm"], "min_cost_per_draft_token", p.vllm_min_cost_per_draft_token);
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
  double target = 0, routed = 0, draft = 0, shared_head = 0;
  bool own_head = false;
  for (const auto& t : plan.tensors) {
    if (t.role == TensorRole::TokenEmbd) continue;  // one row per token
    const double b = static_cast<double>(t.bytes) * (is_routed(t.role) ? used : 1.0);
    if (in_mtp_layer(a, t.layer)) {
      // A block's own embedding copy (DeepSeek V3.2's nextn.embed_tokens) is a lookup too; its
      // own head (nextn.shared_head_head) replaces the model's output head for the draft.
      if (t.name.find("nextn.embed_tokens") != std::string::npos) continue;
      if (t.name.find("nextn.shared_head_head") != std::string::npos) own_head = true;
      draft += b;
      continue;
    }
    target += b;
    if (is_routed(t.role)) routed += b;
    if (t.role == TensorRole::Output) shared_head += b;  // the NextN block runs the shared output head again
  }
  if (!own_head) draft += shared_head;
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

std::vector<std::string> mtp_draft_engines(const Catalog& cat, const Architecture& a) {
  if (a.n_layer_all() == a.n_layer_main()) return {};
  std::vector<std::string> out;
  // llama.cpp drafts (--spec-type draft-mtp) only for the GGUF architectures whose graph has an MTP
  // builder: speculative.json engines["llama.cpp"].mtp_archs, each with the pull request that added it.
  const nlohmann::json* d = cat.document("speculative.json");
  if (d != nullptr) {
    const nlohmann::json::json_pointer p("/engines/llama.cpp/mtp_archs");
    if (d->contains(p) && (*d)[p].is_object() && (*d)[p].contains(a.gguf_arch)) out.emplace_back("llama.cpp");
  }
  out.emplace_back("vllm");
  out.emplace_back("sglang");
  return out;
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

namespace {
// Every model id of speculative.json's "tokenizers" with its group id, read in one walk.
std::map<std::string, std::string> tokenizer_groups(const Catalog& cat) {
  std::map<std::string, std::string> out;
  const nlohmann::json* d = cat.document("speculative.json");
  if (!d || !d->contains("tokenizers") || !(*d)["tokenizers"].is_array()) return out;
  for (const auto& g : (*d)["tokenizers"]) {
    if (!g.is_object() || !g.contains("models") || !g["models"].is_array()) continue;
    for (const auto& m : g["models"])
      if (m.is_string()) out.emplace(m.get<std::string>(), g.value("id", ""));  // the first group naming it
  }
  return out;
}
}  // namespace

std::string tokenizer_group(const Catalog& cat, const std::string& model_id) {
  const ModelEntry* e = cat.find_model(model_id);
  const auto groups = tokenizer_groups(cat);
  auto it = groups.find(e ? e->id : model_id);
  return it == groups.end() ? "" : it->second;
}

std::vector<std::string> draft_candidates(const Catalog& cat, const std::string& target_id) {
  std::vector<std::string> out;
  const ModelEntry* t = cat.find_model(target_id);
  if (!t) return out;
  // The groups are read once here, not once per catalog model.
  const auto groups = tokenizer_groups(cat);
  auto group_of = [&](const std::string& id) {
    auto it = groups.find(id);
    return it == groups.end() ? std::string() : it->second;
  };
  const std::string g = group_of(t->id);
  if (g.empty()) return out;
  std::vector<const ModelEntry*> found;
  for (const auto& m : cat.models()) {
    if (m.id == t->id || m.params_total_b <= 0 || m.params_total_b >= t->params_total_b) continue;
    if (group_of(m.id) != g) continue;
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
  struct KindStats {
    std::vector<double> fitted, held;
    int stated = 0, stated_inside = 0;  // held-out rows checked against the stated range, and inside it
  };
  std::map<std::string, KindStats> by_kind;
  // Per engine: the held-out errors with the engine's own terms, and with llama.cpp's (what the
  // report said before vLLM was priced apart; the same figure for llama.cpp's own rows).
  struct EngineStats {
    std::vector<double> fitted, held, held_llama_terms;
  };
  std::map<std::string, EngineStats> by_engine;
  int stated = 0, stated_inside = 0, ranges = 0, ranges_covered = 0;  // held-out acceptance-range rows
  const json* d = cat.document("speculative.json");
  if (!d || !d->contains("measurements") || !(*d)["measurements"].is_array()) return {{"rows", rows}};
  for (const auto& m : (*d)["measurements"]) {
    if (!m.is_object() || !m.contains("draft_max") || !m["draft_max"].is_number_integer()) continue;
    const std::string kind = m.value("kind", "mtp");
    const std::string backend = m.value("backend", "");
    const std::string engine = m.value("engine", "");
    const bool outside = m.value("outside_model", false), fit = m.value("fitted", false);
    json row = {{"row_id", m.value("row_id", "")}, {"kind", kind}, {"model", m.value("model", "")},
                {"quant", m.value("quant", "")}, {"backend", backend},
                {"engine", m.value("engine", "")}, {"draft_max", m["draft_max"]}, {"source", m.value("source", "")},
                {"date", m.value("date", "")}, {"workload_class", m.value("workload_class", "mixed")},
                {"split", outside ? "outside_model" : fit ? "fitted" : "held_out"}};
    if (m.contains("draft_model")) row["draft_model"] = m["draft_model"];
    add_device_fields(cat, m, row);
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
    row["overhead_per_draft_token"] = sp.overhead(backend, k, engine);
    row["overhead_code"] = sp.overhead_code(backend, k, engine);
    auto speedup = [&](double r) { return speculative_speedup_at_rate(r, k, c, sp, backend, engine); };
    const bool has_rate = m.contains("acceptance_rate") && m["acceptance_rate"].is_number();
    const bool has_rate_range = m.contains("acceptance_rate_range") && m["acceptance_rate_range"].is_array() &&
                                m["acceptance_rate_range"].size() == 2;
    const bool has_speedup = m.contains("speedup") && m["speedup"].is_number();
    const bool has_speedup_range = m.contains("speedup_range") && m["speedup_range"].is_array() && m["speedup_range"].size() == 2;
    // The measured speedup as a range (a single figure is a range of one).
    double meas_lo = 0, meas_hi = 0;
    if (has_speedup) meas_lo = meas_hi = m["speedup"].get<double>();
    if (has_speedup_range) {
      meas_lo = m["speedup_range"][0].get<double>();
      meas_hi = m["speedup_range"][1].get<double>();
      row["speedup_range"] = m["speedup_range"];
    }
    if (has_speedup) row["speedup"] = meas_lo;
    if (has_rate && has_speedup) {
      const double pred = speedup(m["acceptance_rate"].get<double>());
      row["acceptance_rate"] = m["acceptance_rate"];
      row["predicted"] = pred;
      row["error_pct"] = 100.0 * (pred - meas_lo) / meas_lo;
      if (!outside) {
        const double ape = std::fabs(100.0 * (pred - meas_lo) / meas_lo);
        (fit ? fitted : held).push_back(ape);
        (fit ? by_kind[kind].fitted : by_kind[kind].held).push_back(ape);
        (fit ? by_engine[engine].fitted : by_engine[engine].held).push_back(ape);
        if (!fit) {
          const double llama = speculative_speedup_at_rate(m["acceptance_rate"].get<double>(), k, c, sp, backend, "llama.cpp");
          by_engine[engine].held_llama_terms.push_back(std::fabs(100.0 * (llama - meas_lo) / meas_lo));
        }
      }
    } else if (has_rate_range && (has_speedup || has_speedup_range)) {
      const double lo = speedup(m["acceptance_rate_range"][0].get<double>());
      const double hi = speedup(m["acceptance_rate_range"][1].get<double>());
      row["acceptance_rate_range"] = m["acceptance_rate_range"];
      row["predicted_range"] = {lo, hi};
      row["covered"] = lo <= meas_lo && hi >= meas_hi;
      if (!fit && !outside) {
        ++ranges;
        ranges_covered += lo <= meas_lo && hi >= meas_hi ? 1 : 0;
      }
    }
    // The range a result states for this workload (speculative_json's code/prose ranges at this k
    // and backend; a mixed workload spans prose's low to code's high).
    if ((has_speedup || has_speedup_range) && !outside) {
      const bool draft = kind == "draft";
      const std::string w = m.value("workload_class", "mixed");
      const double p_lo = w == "code" ? (draft ? sp.draft_code_low : sp.code_low) : (draft ? sp.draft_prose_low : sp.prose_low);
      const double p_hi = w == "prose" ? (draft ? sp.draft_prose_high : sp.prose_high) : (draft ? sp.draft_code_high : sp.code_high);
      const double s_lo = speculative_speedup(p_lo, k, c, sp, backend, engine), s_hi = speculative_speedup(p_hi, k, c, sp, backend, engine);
      const bool inside = s_lo <= meas_lo && s_hi >= meas_hi;
      row["stated_range"] = {s_lo, s_hi};
      row["in_stated_range"] = inside;
      if (!fit) {
        ++stated;
        stated_inside += inside ? 1 : 0;
        ++by_kind[kind].stated;
        by_kind[kind].stated_inside += inside ? 1 : 0;
      }
    }
    rows.push_back(row);
  }
  auto max_of = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  json kinds = json::object();
  for (const auto& [k, v] : by_kind)
    kinds[k] = {{"fitted_rows", v.fitted.size()}, {"held_out_rows", v.held.size()},
                {"fitted_median_ape_pct", median(v.fitted)}, {"held_out_median_ape_pct", median(v.held)},
                {"held_out_max_ape_pct", max_of(v.held)},
                {"held_out_stated_rows", v.stated}, {"held_out_in_stated_range", v.stated_inside}};
  json engines = json::object();
  for (const auto& [k, v] : by_engine)
    engines[k.empty() ? "unknown" : k] = {{"fitted_rows", v.fitted.size()}, {"held_out_rows", v.held.size()},
                                          {"fitted_median_ape_pct", median(v.fitted)}, {"held_out_median_ape_pct", median(v.held)},
                                          {"held_out_max_ape_pct", max_of(v.held)},
                                          {"held_out_llama_terms_median_ape_pct", median(v.held_llama_terms)},
                                          {"held_out_llama_terms_max_ape_pct", max_of(v.held_llama_terms)}};
  return {{"rows", rows}, {"by_kind", kinds}, {"by_engine", engines}, {"fitted_rows", fitted.size()}, {"held_out_rows", held.size()},
          {"fitted_median_ape_pct", median(fitted)}, {"held_out_median_ape_pct", median(held)},
          {"held_out_max_ape_pct", max_of(held)},
          {"held_out_stated_rows", stated}, {"held_out_in_stated_range", stated_inside},
          {"held_out_stated_coverage_pct", stated > 0 ? 100.0 * stated_inside / stated : 0.0},
          {"held_out_range_rows", ranges}, {"held_out_range_covered", ranges_covered},
          {"overhead_per_draft_token", sp.overhead_per_draft_token},
          {"metal_overhead_per_draft_token", sp.metal_overhead_per_draft_token},
          {"metal_small_batch_max_draft", sp.metal_small_batch_max_draft},
          {"vllm_min_cost_per_draft_token", sp.vllm_min_cost_per_draft_token},
          {"expert_verify_share", sp.expert_verify_share},
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

double speculative_speedup_at_rate(double r, int k, const SpeculativeCosts& c, const SpeculativeParams& sp,
                                   const std::string& backend, const std::string& engine) {
  const double tokens = 1.0 + k * r;
  const double cost = 1.0 + k * sp.per_draft_token(c, backend, k, engine);
  return tokens / cost;
}

double speculative_speedup(double p, int k, const SpeculativeCosts& c, const SpeculativeParams& sp,
                           const std::string& backend, const std::string& engine) {
  return speculative_speedup_at_rate(acceptance_rate(p, k), k, c, sp, backend, engine);
}

nlohmann::json speculative_json(const SpeculativeOptions& o, const std::string& engine, const SpeculativeCosts& c,
                                const SpeculativeParams& sp, std::uint64_t weights_bytes, std::uint64_t kv_bytes,
                                double base_tps, double base_low, double base_high, const std::string& backend) {
  using nlohmann::json;
  const int k = o.draft_max > 0 ? o.draft_max : 1;
  const bool draft = o.draft;
  json w = json::array();
  auto one = [&](const char* name, double plo, double phi) {
    const double slo = speculative_speedup(plo, k, c, sp, backend, engine), shi = speculative_speedup(phi, k, c, sp, backend, engine);
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
          {"overhead_per_draft_token", sp.overhead(backend, k, engine)},
          {"overhead_code", sp.overhead_code(backend, k, engine)},
          {"expert_verify_share", sp.expert_verify_share},
          {"workloads", w}, {"source", "data/speculative.json"}};
}

}  // namespace wif
