#include "willitfit/questions/runs_on.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/catalog/quality.hpp"
#include "solve_detail.hpp"

namespace wif {
namespace {

using nlohmann::json;
using solve_detail::QuantRank;

double finite(double x) { return std::isfinite(x) ? x : 0.0; }

bool on_device(const std::string& v) { return v == "fits" || v == "tight"; }


struct Row {
  json doc;
  int tier = 2;            // 0 fits, 1 offload, 2 no_fit
  int band = 3;
  double params = 0;       // total parameters, billions
  double speed = 0;        // decode tokens/s
  std::uint64_t need = 0;  // bytes (no_fit order)
};

// One model's best entry: the quality-ordered scan described in runs_on.hpp.
class ModelScan {
 public:
  ModelScan(const Catalog& cat, const json& q, const SpeedCoefficients& coef, const std::vector<QuantRank>& order,
            int& evaluations)
      : cat_(cat), q_(q), coef_(coef), order_(order), evaluations_(evaluations) {}

  Row best(const ModelEntry& m) {
    json doc = q_;
    doc["model"] = m.id;
    doc["quant"] = order_.back().id;
    EstimateRequest r = parse_request(cat_, doc);  // throws for a model the core cannot read
    const bool ram = r.ram_gib > 0;
    // The smallest quantization (last in quality order, IQ1_S) first: when it does not run,
    // nothing larger does, and the model costs one estimate instead of one per quantization.
    const Estimate smallest = run(r, order_.back().id, false);
    if (!on_device(smallest.verdict) && !(ram && smallest.verdict == "offload"))
      return entry(m, r, order_.size() - 1, smallest, 2);
    std::optional<std::size_t> fit, off;
    for (std::size_t i = 0; i < order_.size() && !fit; ++i) {
      const Estimate e = i + 1 == order_.size() ? smallest : run(r, order_[i].id, false);
      if (on_device(e.verdict)) fit = i;
      else if (ram && e.verdict == "offload" && !off) off = i;
    }
    std::size_t pick;
    int tier;
    if (fit && (quality_rank_index(cat_, order_[*fit].ppl) == 0 || !off || quality_rank_index(cat_, order_[*off].ppl) >= quality_rank_index(cat_, order_[*fit].ppl))) {
      pick = *fit;
      tier = 0;
    } else if (off) {
      pick = *off;
      tier = 1;
    } else {
      pick = *fit;  // unreachable: the smallest ran, so fit or off is set
      tier = 0;
    }
    return entry(m, r, pick, run(r, order_[pick].id, true), tier);
  }

 private:
  Estimate run(EstimateRequest& r, const std::string& quant, bool speed) {
    r.quant = quant;
    r.model.plan.reset();  // run_estimate takes this quant's plan (model_plan: shared for catalog models)
    ++evaluations_;
    return run_estimate(cat_, r, EstimateContext{&coef_, speed});
  }

  Row entry(const ModelEntry& m, const EstimateRequest& r, std::size_t i, const Estimate& e, int tier) {
    Row row;
    row.tier = tier;
    row.band = quality_rank_index(cat_, order_[i].ppl);
    row.params = m.params_total_b > 0 ? m.params_total_b : e.params.total / 1e9;
    row.need = e.total_bytes;
    json request = q_;
    request["model"] = m.id;
    request["quant"] = order_[i].id;
    json j = {{"model", {{"id", m.id}, {"name", m.name}, {"params_total_b", finite(row.params)},
                         {"params_active_b", finite(m.params_active_b > 0 ? m.params_active_b : e.params.active / 1e9)}}},
              {"tier", tier == 0 ? "fits" : tier == 1 ? "offload" : "no_fit"},
              {"quant", order_[i].id},
              {"quality", quality_rank_group(cat_, order_[i].ppl)},
              {"quality_band", quality_band(cat_, order_[i].ppl)},
              {"verdict", e.verdict},
              {"memory", {{"total_bytes", e.total_bytes}, {"usable_bytes", e.usable.usable_bytes},
                          {"host_ram_bytes", e.placement.unified ? 0 : e.placement.ram_no_mmap_bytes}}},
              {"request", request}};
    if (order_[i].ppl) j["ppl_delta_pct"] = *order_[i].ppl;
    if (tier < 2 && r.device.bandwidth_gbs > 0 && e.speed.decode_tps > 0 && std::isfinite(e.speed.decode_tps)) {
      row.speed = e.speed.decode_tps;
      j["speed"] = {{"decode_tps", finite(e.speed.decode_tps)}, {"decode_tps_low", finite(e.speed.decode_tps_low)},
                    {"decode_tps_high", finite(e.speed.decode_tps_high)}};
    }
    row.doc = std::move(j);
    return row;
  }

  const Catalog& cat_;
  const json& q_;
  const SpeedCoefficients& coef_;
  const std::vector<QuantRank>& order_;
  int& evaluations_;
};

}  // namespace

json runs_on(const Catalog& cat, const json& q) {
  if (!q.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  for (const char* k : {"model", "quant"})
    if (q.contains(k))
      throw InputError("bad_value", k, std::string("the list chooses ") + k + " itself; leave it out");
  if (q.contains("engine") && q["engine"] != "llama.cpp")
    throw InputError("bad_value", "engine", "the list picks GGUF quantizations for llama.cpp; leave engine out or set llama.cpp");
  if (cat.models().empty()) throw InputError("internal_error", "model", "the catalog holds no model");
  const auto order = solve_detail::gguf_quality_order(cat);
  if (order.empty()) throw InputError("internal_error", "quant", "the catalog ranks no GGUF quantization");

  // The request itself (hardware, count, context …) is checked once, on the first model.
  json probe = q;
  probe["model"] = cat.models().front().id;
  const EstimateRequest base = parse_request(cat, probe);
  const Estimate first = run_estimate(cat, base, EstimateContext{nullptr, false});

  const SpeedCoefficients& coef = memo_speed_coefficients(cat);
  int evaluations = 1, skipped = 0;
  ModelScan scan(cat, q, coef, order, evaluations);
  std::vector<Row> rows;
  for (const auto& m : cat.models()) {
    try {
      rows.push_back(scan.best(m));
    } catch (const InputError&) {
      ++skipped;  // a catalog model the core cannot estimate is not a wrong request
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    if (a.tier == 2) return a.need < b.need;
    if (a.band != b.band) return a.band < b.band;
    if (a.params != b.params) return a.params > b.params;
    return a.speed > b.speed;
  });
  json models = json::array();
  json counts = {{"fits", 0}, {"offload", 0}, {"no_fit", 0}, {"skipped", skipped}};
  for (auto& r : rows) {
    const char* t = r.tier == 0 ? "fits" : r.tier == 1 ? "offload" : "no_fit";
    counts[t] = counts[t].get<int>() + 1;
    models.push_back(std::move(r.doc));
  }
  const Device& d = base.device;
  return {{"device", {{"id", d.id}, {"name", d.name}, {"kind", device_kind_name(d.kind)}, {"memory_gib", d.memory_gib},
                      {"bandwidth_gbs", d.bandwidth_gbs}, {"price_usd", d.price_usd}}},
          {"count", base.count},
          {"ram_gib", base.ram_gib},
          {"context", base.kv.n_ctx},
          {"usable", {{"usable_bytes", first.usable.usable_bytes}, {"physical_bytes", first.usable.physical_bytes},
                      {"rule", first.usable.rule},
                      {"rule_code", {{"code", first.usable.rule_code}, {"params", first.usable.rule_params}}}}},
          {"counts", counts},
          {"models", models},
          {"evaluations", evaluations}};
}

}  // namespace wif
