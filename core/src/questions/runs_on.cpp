#include "willitfit/questions/runs_on.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/catalog/quality.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "solve_detail.hpp"

namespace wif {
namespace {

using nlohmann::json;
using solve_detail::QuantRank;


bool on_device(const std::string& v) { return v == "fits" || v == "tight"; }


// The floors a setup must meet to count as running (runs_on.hpp): a quality band and a decode speed.
struct Floors {
  std::string name = defaults::kRunsOnMinQuality;
  int band = 1;               // worst acceptable ranking group (0 high, 1 reduced, 2 low, 3 any incl. unknown)
  double min_decode_tps = defaults::kRunsOnMinDecodeTps;
};

int band_of_name(const std::string& s) {
  if (s == "high") return 0;
  if (s == "reduced") return 1;
  if (s == "low") return 2;
  if (s == "any") return 3;
  throw InputError("bad_value", "min_quality", "choose high, reduced, low or any, not '" + s + "'");
}

struct Row {
  json doc;
  int tier = 2;            // 0 fits, 1 offload, 2 no_fit
  int band = 3;
  double params = 0;       // total parameters (the estimate's count), billions
  double speed = 0;        // decode tokens/s
  std::uint64_t need = 0;  // bytes (no_fit order)
};

// The row's model: its parameter counts as the estimate computed them (the same figures the
// model and pair pages show), not the catalog's published round number (70.6B, not "70B").
json model_doc(const ModelEntry& m, const Estimate& e) {
  return {{"id", m.id}, {"name", m.name}, {"params_total", e.params.total}, {"params_active", e.params.active}};
}

// One model's best entry: the quality-ordered scan described in runs_on.hpp.
class ModelScan {
 public:
  ModelScan(const Catalog& cat, const json& q, const SpeedCoefficients& coef, const std::vector<QuantRank>& order,
            const Floors& floors, int& evaluations)
      : cat_(cat), q_(q), coef_(coef), order_(order), floors_(floors), evaluations_(evaluations) {
    for (std::size_t i = 0; i < order_.size(); ++i)
      if (acceptable(i)) last_ok_ = i;
  }

  Row best(const ModelEntry& m) {
    json doc = q_;
    doc["model"] = m.id;
    doc["quant"] = order_.back().id;
    EstimateRequest r = parse_request(cat_, doc);  // throws for a model the core cannot read
    const bool ram = r.ram_gib > 0;
    auto runs = [&](const Estimate& e) { return on_device(e.verdict) || (ram && e.verdict == "offload"); };
    // The smallest quantization (last in quality order, IQ1_S) first: when it does not run,
    // nothing larger does, and the model costs one estimate instead of one per quantization.
    const Estimate smallest = run(r, order_.back().id, false);
    if (!runs(smallest)) {
      Row row = entry(m, r, order_.size() - 1, smallest, 2);
      if (last_ok_) add_need_memory(row, r, *last_ok_, nullptr);
      return row;
    }
    std::optional<std::size_t> fit, off, any;
    for (std::size_t i = 0; i < order_.size() && !fit; ++i) {
      const Estimate e = i + 1 == order_.size() ? smallest : run(r, order_[i].id, false);
      if (runs(e) && !any) any = i;
      if (!acceptable(i)) continue;
      if (on_device(e.verdict)) fit = i;
      else if (ram && e.verdict == "offload" && !off) off = i;
    }
    if (!fit && !off) {
      // It runs only below the quality floor: name the quantization it would take and what the
      // smallest acceptable one needs on the device.
      Row row = entry(m, r, *any, run(r, order_[*any].id, false), 2);
      row.doc["below_floor"] = "quality";
      if (last_ok_) add_need_memory(row, r, *last_ok_, nullptr);
      return row;
    }
    std::size_t pick;
    int tier;
    if (fit && (quality_rank_index(cat_, order_[*fit].ppl) == 0 || !off || quality_rank_index(cat_, order_[*off].ppl) >= quality_rank_index(cat_, order_[*fit].ppl))) {
      pick = *fit;
      tier = 0;
    } else {
      pick = *off;
      tier = 1;
    }
    Estimate e = run(r, order_[pick].id, true);
    if (!too_slow(r, e)) return entry(m, r, pick, e, tier);
    // Below the speed floor: a smaller acceptable quantization that runs decodes faster; take the
    // first that reaches the floor, else report the fastest one seen.
    const std::size_t first = pick;
    const Estimate first_e = e;
    const int first_tier = tier;
    for (std::size_t i = pick + 1; i < order_.size(); ++i) {
      if (!acceptable(i)) continue;
      Estimate ei = run(r, order_[i].id, true);
      const int ti = on_device(ei.verdict) ? 0 : (ram && ei.verdict == "offload") ? 1 : 2;
      if (ti == 2) continue;
      if (!too_slow(r, ei)) return entry(m, r, i, ei, ti);
    }
    Row row = entry(m, r, first, first_e, 2, true);
    row.doc["below_floor"] = "speed";
    json need = {{"code", "faster_device"}, {"decode_tps", finite_or_zero(first_e.speed.decode_tps)},
                 {"decode_tps_low", solve_detail::floor_decode_tps(first_e)}, {"min_decode_tps", floors_.min_decode_tps}};
    row.doc["needs"] = json::array({need});
    // Everything on the device decodes faster than an offload: say what that takes.
    if (first_tier == 1) add_need_memory(row, r, first, &first_e);
    return row;
  }

 private:
  bool acceptable(std::size_t i) const { return quality_rank_index(cat_, order_[i].ppl) <= floors_.band; }

  bool too_slow(const EstimateRequest& r, const Estimate& e) const {
    if (floors_.min_decode_tps <= 0 || r.device.bandwidth_gbs <= 0) return false;  // no speed: no floor
    // The floor holds on the range's low end (solve_detail.hpp floor_decode_tps).
    return !(solve_detail::floor_decode_tps(e) + 1e-9 >= floors_.min_decode_tps);
  }

  // needs[] += {code more_memory, memory_bytes, usable_bytes}: what quantization `i` takes with
  // everything on the device(s), against what they offer (the all-on-device total of its plan).
  void add_need_memory(Row& row, EstimateRequest& r, std::size_t i, const Estimate* known) {
    std::optional<Estimate> own;
    if (!known) own = run(r, order_[i].id, false);
    const Estimate& e = known ? *known : *own;
    json need = {{"code", "more_memory"}, {"quant", order_[i].id}, {"memory_bytes", e.total_bytes},
                 {"usable_bytes", e.usable.usable_bytes}};
    if (!row.doc.contains("needs")) row.doc["needs"] = json::array();
    row.doc["needs"].push_back(need);
  }

  Estimate run(EstimateRequest& r, const std::string& quant, bool speed) {
    r.quant = quant;
    r.model.plan.reset();  // run_estimate takes this quant's plan (model_plan: shared for catalog models)
    ++evaluations_;
    return run_estimate(cat_, r, EstimateContext{&coef_, speed});
  }

  Row entry(const ModelEntry& m, const EstimateRequest& r, std::size_t i, const Estimate& e, int tier,
            bool keep_speed = false) {
    Row row;
    row.tier = tier;
    row.band = quality_rank_index(cat_, order_[i].ppl);
    row.params = static_cast<double>(e.params.total) / 1e9;
    row.need = e.total_bytes;
    json request = q_;
    request.erase("min_quality");
    request.erase("min_decode_tps");
    request["model"] = m.id;
    request["quant"] = order_[i].id;
    json j = {{"model", model_doc(m, e)},
              {"tier", tier == 0 ? "fits" : tier == 1 ? "offload" : "no_fit"},
              {"quant", order_[i].id},
              {"quality", quality_rank_group(cat_, order_[i].ppl)},
              {"quality_band", quality_band(cat_, order_[i].ppl)},
              {"verdict", e.verdict},
              {"memory", {{"total_bytes", e.total_bytes}, {"usable_bytes", e.usable.usable_bytes},
                          {"host_ram_bytes", e.placement.unified ? 0 : e.placement.ram_no_mmap_bytes}}},
              {"request", request}};
    if (order_[i].ppl) j["ppl_delta_pct"] = *order_[i].ppl;
    if ((tier < 2 || keep_speed) && r.device.bandwidth_gbs > 0 && e.speed.decode_tps > 0 && std::isfinite(e.speed.decode_tps)) {
      row.speed = e.speed.decode_tps;
      j["speed"] = {{"decode_tps", finite_or_zero(e.speed.decode_tps)}, {"decode_tps_low", finite_or_zero(e.speed.decode_tps_low)},
                    {"decode_tps_high", finite_or_zero(e.speed.decode_tps_high)}};
    }
    row.doc = std::move(j);
    return row;
  }

  const Catalog& cat_;
  const json& q_;
  const SpeedCoefficients& coef_;
  const std::vector<QuantRank>& order_;
  const Floors& floors_;
  int& evaluations_;
  std::optional<std::size_t> last_ok_;  // the smallest quantization that meets the quality floor
};

// A device llama.cpp has no backend for, where a server engine runs (Gaudi, MLU, MetaX, Kunlunxin:
// vLLM through its vendor plugin): each model as its publisher's checkpoint (defaults.hpp
// server_quant, the native dtype the engine loads), on the device alone with the engine's own
// budget. The checkpoint is the reference the quality bands measure against, so it is "high";
// there is no offload (a server engine keeps the weights on the accelerators) and no smaller
// format to fall back on (which quantized formats a vendor plugin has kernels for differs by
// plugin), so a checkpoint below the speed floor is below_floor "speed" with its figure.
Row server_entry(const Catalog& cat, const json& q, const std::string& engine, const ModelEntry& m,
                 const SpeedCoefficients& coef, const Floors& floors, std::int64_t context, int& evaluations) {
  json doc = q;
  // The list's context (the llama.cpp default when the request names none), not the server's
  // own default of the model's maximum, so the list reads at the context it states.
  doc["context"] = context;
  // llama.cpp's own settings mean nothing to the server's budget (its cache type is the model's
  // dtype unless kv_cache_dtype says otherwise).
  for (const char* k : {"kv_type", "kv_type_v", "flash_attn", "parallel", "ubatch", "ram_gib", "mmap", "ngl", "n_cpu_moe"})
    doc.erase(k);
  doc["engine"] = engine;
  doc["model"] = m.id;
  doc["quant"] = defaults::quant_for(engine, m.arch);
  const EstimateRequest r = parse_request(cat, doc);
  ++evaluations;
  const Estimate e = run_estimate(cat, r, EstimateContext{&coef, true});
  Row row;
  const bool fits = on_device(e.verdict);
  const double low = solve_detail::floor_decode_tps(e);
  const bool slow = fits && floors.min_decode_tps > 0 && e.speed.decode_tps > 0 && !(low + 1e-9 >= floors.min_decode_tps);
  row.tier = fits && !slow ? 0 : 2;
  row.band = quality_rank_index(cat, 0.0);
  row.params = static_cast<double>(e.params.total) / 1e9;
  row.need = e.total_bytes;
  json request = doc;
  request.erase("min_quality");
  request.erase("min_decode_tps");
  json j = {{"model", model_doc(m, e)},
            {"tier", row.tier == 0 ? "fits" : "no_fit"},
            {"quant", r.quant},
            {"quality", quality_rank_group(cat, 0.0)},
            {"quality_band", quality_band(cat, 0.0)},
            {"verdict", e.verdict},
            {"engine", engine},
            {"memory", {{"total_bytes", e.total_bytes}, {"usable_bytes", e.usable.usable_bytes}, {"host_ram_bytes", 0}}},
            {"request", request}};
  if (fits && e.speed.decode_tps > 0 && std::isfinite(e.speed.decode_tps)) {
    row.speed = e.speed.decode_tps;
    j["speed"] = {{"decode_tps", finite_or_zero(e.speed.decode_tps)}, {"decode_tps_low", finite_or_zero(e.speed.decode_tps_low)},
                  {"decode_tps_high", finite_or_zero(e.speed.decode_tps_high)}};
    if (e.speed.basis.is_object() && e.speed.basis.contains("decode_label")) j["speed"]["decode_label"] = e.speed.basis["decode_label"];
  }
  if (slow) {
    j["below_floor"] = "speed";
    json need = {{"code", "faster_device"}, {"decode_tps", finite_or_zero(e.speed.decode_tps)},
                 {"decode_tps_low", low}, {"min_decode_tps", floors.min_decode_tps}};
    j["needs"] = json::array({need});
  }
  row.doc = std::move(j);
  return row;
}

}  // namespace

const std::vector<std::string>& runs_on_request_fields() {
  static const std::vector<std::string> fields = {"min_quality", "min_decode_tps"};
  return fields;
}

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
  Floors floors;
  floors.name = opt_str(q, "min_quality", "min_quality").value_or(defaults::kRunsOnMinQuality);
  floors.band = band_of_name(floors.name);
  floors.min_decode_tps = opt_num(q, "min_decode_tps", "min_decode_tps", 0, 1e6).value_or(defaults::kRunsOnMinDecodeTps);
  const Device& d = base.device;
  const auto has = [&d](const char* eng) { return std::find(d.engines.begin(), d.engines.end(), eng) != d.engines.end(); };
  // llama.cpp where it runs; else the first server engine that does (device_engines orders vLLM
  // before SGLang); else none.
  std::string engine = "llama.cpp";
  if (!has("llama.cpp")) engine = has("vllm") ? "vllm" : has("sglang") ? "sglang" : "";
  const bool engine_runs = !engine.empty();
  json head = {{"device", {{"id", d.id}, {"name", d.name}, {"kind", device_kind_name(d.kind)}, {"device_type", device_type_json(d)}, {"memory_gib", d.memory_gib},
                           {"memory_basis", memory_basis_json(d)},
                           {"bandwidth_gbs", d.bandwidth_gbs}, {"price_usd", d.price_usd}, {"engines", d.engines}}},
               {"engine_runs", engine_runs},
               {"engine", engine.empty() ? json() : json(engine)},
               {"llamacpp_runs", has("llama.cpp")},
               {"count", base.count},
               {"ram_gib", base.ram_gib},
               {"context", base.kv.n_ctx},
               {"floors", {{"min_quality", floors.name}, {"min_decode_tps", floors.min_decode_tps}}},
               {"usable", {{"usable_bytes", first.usable.usable_bytes}, {"usable_low_bytes", first.usable.usable_low_bytes},
                           {"physical_bytes", first.usable.physical_bytes},
                           {"rule_code", {{"code", first.usable.rule_code}, {"params", first.usable.rule_params}}}}}};
  if (!engine_runs) {
    // No engine the list knows has a backend for this device (data/backends.json engines): no list.
    head["counts"] = {{"fits", 0}, {"offload", 0}, {"no_fit", 0}, {"skipped", 0}, {"below_quality_floor", 0},
                      {"below_speed_floor", 0}};
    head["models"] = json::array();
    head["evaluations"] = 1;
    return head;
  }

  const SpeedCoefficients& coef = memo_speed_coefficients(cat);
  int evaluations = 1, skipped = 0;
  ModelScan scan(cat, q, coef, order, floors, evaluations);
  std::vector<Row> rows;
  for (const auto& m : cat.models()) {
    try {
      rows.push_back(engine == "llama.cpp" ? scan.best(m) : server_entry(cat, q, engine, m, coef, floors, base.kv.n_ctx, evaluations));
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
  json counts = {{"fits", 0}, {"offload", 0}, {"no_fit", 0}, {"skipped", skipped}, {"below_quality_floor", 0},
                 {"below_speed_floor", 0}};
  for (auto& r : rows) {
    const char* t = r.tier == 0 ? "fits" : r.tier == 1 ? "offload" : "no_fit";
    counts[t] = counts[t].get<int>() + 1;
    if (r.doc.contains("below_floor")) {
      const char* k = r.doc["below_floor"] == "quality" ? "below_quality_floor" : "below_speed_floor";
      counts[k] = counts[k].get<int>() + 1;
    }
    models.push_back(std::move(r.doc));
  }
  head["counts"] = counts;
  head["models"] = models;
  head["evaluations"] = evaluations;
  return head;
}

}  // namespace wif
