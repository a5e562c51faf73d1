#include "willitfit/questions/solve.hpp"
#include "willitfit/base/shown.hpp"
#include "willitfit/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/engine_fit.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/speed/multi_device_speed.hpp"
#include "solve_detail.hpp"

namespace wif {
namespace solve_detail {

bool runs(const std::string& verdict, bool allow_offload) {
  return verdict == "fits" || verdict == "tight" || (allow_offload && verdict == "offload");
}

double floor_decode_tps(const Estimate& e) {
  const double low = e.speed.decode_tps_low;
  return std::isfinite(low) && low > 0 ? low : finite_or_zero(e.speed.decode_tps);
}


std::vector<QuantRank> gguf_quality_order(const Catalog& cat) {
  std::vector<QuantRank> out;
  for (const auto& q : quant_formats()) {
    // F32 is the lossless reference, never a sensible pick; TQ1_0/TQ2_0 only suit models
    // trained ternary (quants.json family "ternary").
    if (!q.gguf || q.id == "F32") continue;
    for (const auto& e : cat.quants()) {
      const auto f = find_quant(e.value("id", ""));
      if (!f || f->id != q.id) continue;
      if (e.value("family", "") == "ternary" || !e.contains("rank") || !e["rank"].is_number()) break;
      QuantRank r{q.id, e["rank"].get<int>(), std::nullopt};
      if (e.contains("ppl_delta_pct") && e["ppl_delta_pct"].is_number()) r.ppl = e["ppl_delta_pct"].get<double>();
      out.push_back(r);
      break;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const QuantRank& a, const QuantRank& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.ppl && b.ppl) return *a.ppl < *b.ppl;
    return a.ppl.has_value() && !b.ppl.has_value();
  });
  return out;
}

Solver::Solver(const Catalog& cat, EstimateRequest base)
    : cat_(cat), base_(std::move(base)), coef_(memo_speed_coefficients(cat)),
      file_plan_(base_.model.plan != nullptr) {}

std::shared_ptr<const TensorPlan> Solver::plan(const std::string& quant) {
  if (base_.model.entry) return memo_plan(cat_, *base_.model.entry, quant, base_.qopt);
  auto it = plans_.find(quant);
  if (it == plans_.end()) it = plans_.emplace(quant, std::make_shared<const TensorPlan>(plan_quantization(base_.model.arch, quant, base_.qopt))).first;
  return it->second;
}

Estimate Solver::run(EstimateRequest r, bool speed) {
  if (!file_plan_) r.model.plan = plan(r.quant);  // one plan per quant for the whole solve
  ++evaluations_;
  return run_estimate(cat_, r, EstimateContext{&coef_, speed});
}

double Solver::full_speed(const EstimateRequest& r, const Estimate& e) const {
  if (r.device.bandwidth_gbs <= 0) return 0;
  return finite_or_zero(placed_speed(r.model.arch, *e.plan, e.full, r.devices, speed_kv_options(r, e), speed_options(r), coef_, r.host_link).decode_tps);
}

// The request's one context (request.hpp): every engine step reads it from here.
void set_context(EstimateRequest& r, std::int64_t ctx) {
  r.kv.n_ctx = ctx;
  r.context_given = true;
}

void set_devices(EstimateRequest& r, const Device& d, int count) {
  r.device = d;
  r.count = count;
  r.devices.assign(static_cast<std::size_t>(count), d);
  r.vllm.tensor_parallel = count;
  r.sglang.tensor_parallel = count;
  r.speed.backend.clear();  // each candidate on its own primary backend
  device_ram_bandwidth(r.host_link, d, defaults::kRamBandwidthGbs);  // a Grace CPU's LPDDR5X
}

bool engine_runs(const Catalog& cat, const Device& d, const std::string& engine) {
  const auto e = cat.device_engines(d);
  return std::find(e.begin(), e.end(), engine) != e.end();
}

bool candidate(const Catalog& cat, const Device& d, const EstimateRequest& r) {
  return engine_runs(cat, d, r.engine) && !format_has_no_kernel(format_applicability(cat, r.model.arch, d, r.quant));
}

CountCap count_cap(const Catalog& cat, const Device& d, int limit) {
  CountCap c;
  if (d.kind != DeviceKind::Gpu) return c;  // one Mac, one mini PC: never several
  c.max_count = limit;
  if (!d.facts.is_object() || !d.facts.contains("segment") || !d.facts["segment"].is_string()) return c;
  c.segment = d.facts["segment"].get<std::string>();
  const int seg = cat.segment_max_count(d);
  if (seg <= 0) return c;
  c.segment_max_count = seg;
  c.capped = seg < limit;
  c.max_count = std::min(limit, seg);
  return c;
}

json count_cap_json(const CountCap& c, int limit) {
  return {{"code", "segment_max_count"}, {"segment", c.segment}, {"segment_max_count", c.segment_max_count},
          {"max_count", limit}};
}

json catalog_count_caps(const Catalog& cat, int limit) {
  json out = json::array();
  for (const auto& [seg, n] : cat.segment_max_counts())
    if (n < limit) {
      CountCap c;
      c.segment = seg;
      c.segment_max_count = n;
      out.push_back(count_cap_json(c, limit));
    }
  return out;
}

std::int64_t context_of(const EstimateRequest& r) {
  return r.kv.n_ctx > 0 ? r.kv.n_ctx : r.model.arch.n_ctx_train;
}

ContextFit Solver::max_context(const EstimateRequest& base, std::int64_t min_ctx, bool allow_offload) {
  ContextFit f;
  const std::int64_t model_max = base.model.arch.n_ctx_train;
  f.cap = model_max > 0 ? model_max : kSearchLimit;
  min_ctx = std::min(min_ctx, f.cap);
  auto ok = [&](std::int64_t c) {
    EstimateRequest r = base;
    set_context(r, c);
    return runs(run(r, false).verdict, allow_offload);
  };
  if (!ok(min_ctx)) return f;
  f.fits_at_min = true;
  if (ok(f.cap)) {
    f.best = f.cap;
    f.capped = true;
    return f;
  }
  // Largest multiple of 256 in [min_ctx, cap) that runs; memory grows with context, so the
  // verdict is monotone and a binary search needs about log2(cap / 256) estimates.
  std::int64_t lo = std::max<std::int64_t>(1, min_ctx / kStep), hi = f.cap / kStep;
  if (hi * kStep == f.cap) --hi;  // the cap itself did not run
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (ok(mid * kStep)) lo = mid;
    else hi = mid - 1;
  }
  f.best = lo * kStep;
  return f;
}

}  // namespace solve_detail

using namespace solve_detail;

namespace {

const char* const kSolveFields[] = {"solve", "min_context", "allow_offload", "max_count", "min_decode_tps", "ram_tiers_gib"};

json max_context_json(Solver& s, const json& q) {
  const EstimateRequest& base = s.base();
  const std::int64_t min_ctx = opt_int(q, "min_context", "", kStep, 100000000).value_or(defaults::kMinContext);
  const bool allow = opt_bool(q, "allow_offload", "").value_or(s.base().ram_gib > 0);
  const ContextFit f = s.max_context(base, min_ctx, allow);
  json out = {{"solve", "max_context"}, {"max_context", f.best}, {"fits_at_min", f.fits_at_min},
              {"min_context", std::min(min_ctx, f.cap)}, {"model_max_context", base.model.arch.n_ctx_train},
              {"capped", f.capped}, {"allow_offload", allow}};
  if (f.best > 0) {
    EstimateRequest r = base;
    set_context(r, f.best);
    const Estimate e = s.run(r, true);
    out["verdict"] = e.verdict;
    out["total_bytes"] = e.total_bytes;
    out["usable_bytes"] = e.usable.usable_bytes;
    out["decode_tps"] = finite_or_zero(e.speed.decode_tps);
  } else {
    out["verdict"] = "no_fit";
  }
  out["evaluations"] = s.evaluations();
  return out;
}

void require_llamacpp(const EstimateRequest& r, const char* kind) {
  if (r.engine != "llama.cpp")
    throw InputError("bad_value", "engine", std::string(kind) + " plans llama.cpp settings; for vLLM use max_context (max_model_len) or cheapest");
}

json best_quant_json(Solver& s, const json& q) {
  const EstimateRequest& base = s.base();
  require_llamacpp(base, "best_quant");
  if (s.file_plan())
    throw InputError("bad_value", "model", "a GGUF file has its own quantization; best_quant needs a catalog model or a config.json");
  const bool allow = opt_bool(q, "allow_offload", "").value_or(s.base().ram_gib > 0);
  json list = json::array(), best = nullptr;
  for (const auto& qr : gguf_quality_order(s.catalog())) {
    EstimateRequest r = base;
    r.quant = qr.id;
    const Estimate e = s.run(r, true);
    const bool ok = runs(e.verdict, allow);
    json row = {{"id", qr.id}, {"rank", qr.rank},
                {"bits_per_weight", finite_or_zero(e.plan->bits_per_weight())}, {"total_bytes", e.total_bytes},
                {"usable_bytes", e.usable.usable_bytes}, {"verdict", e.verdict}, {"fits", ok},
                {"decode_tps", finite_or_zero(e.speed.decode_tps)}};
    if (qr.ppl) row["ppl_delta_pct"] = *qr.ppl;  // absent when quants.json has no figure
    if (ok && best.is_null()) best = row;
    list.push_back(row);
  }
  // No null in a result (a null reads as a lost number): `best` is absent when nothing runs.
  json out = {{"solve", "best_quant"}, {"quants", list}, {"context", context_of(base)}, {"fits_any", !best.is_null()},
              {"allow_offload", allow}, {"evaluations", s.evaluations()}};
  if (!best.is_null()) out["best"] = best;
  return out;
}

// Bytes a placement keeps on the accelerators.
std::uint64_t accelerator_bytes(const Estimate& e) {
  std::uint64_t t = 0;
  for (const auto& d : e.placement.devices) t += d.total_bytes;
  return t;
}

struct Candidate {
  Candidate(std::string f, json v, json p, EstimateRequest req)
      : field(std::move(f)), value(std::move(v)), patch(std::move(p)), r(std::move(req)) {}
  std::string field;
  json value, patch;
  EstimateRequest r;
  std::optional<double> ppl;   // quality cost in perplexity points
  double extra_harm = 0, extra_price = 0;
};

json make_it_fit_json(Solver& s, const json& q) {
  const EstimateRequest& base = s.base();
  require_llamacpp(base, "make_it_fit");
  const int max_count = static_cast<int>(opt_int(q, "max_count", "", 1, 64).value_or(defaults::kMaxCount));
  const Estimate b = s.run(base, true);
  json out = {{"solve", "make_it_fit"}, {"verdict", b.verdict}, {"total_bytes", b.total_bytes},
              {"usable_bytes", b.usable.usable_bytes}, {"context", context_of(base)}};
  if (runs(b.verdict, false)) {
    out["already_fits"] = true;
    out["items"] = json::array();
    out["evaluations"] = s.evaluations();
    return out;
  }
  out["already_fits"] = false;
  // "Before": the request as if its all-on-accelerator placement ran (the speed it asks for).
  const double before = s.full_speed(base, b);
  out["decode_tps_before"] = before;
  out["decode_tps_now"] = finite_or_zero(b.speed.decode_tps);  // offload speed, 0 when it does not run
  // What the setup does now, as a code the page words: it runs with layers or experts in system
  // RAM (offload), or it does not run at all.
  out["state_now"] = b.verdict == "offload" ? "runs_offloaded" : "does_not_run";
  // The speed floor of "runs" (defaults.hpp kRunsOnMinDecodeTps, the runs-on lists' floor): a
  // change whose decode speed stays below it is no fix. It is kept in the list so the person
  // sees what the memory would take, flagged below_speed_floor and sorted after every usable one.
  const double floor_tps = defaults::kRunsOnMinDecodeTps;
  out["min_decode_tps"] = floor_tps;

  std::vector<Candidate> cands;
  const std::int64_t ctx = context_of(base);
  const ContextFit cf = s.max_context(base, 512, false);
  if (cf.best > 0 && cf.best < ctx) {
    Candidate c{"context", cf.best, {{"context", cf.best}}, base};
    set_context(c.r, cf.best);
    c.extra_harm = 50.0 * (1.0 - static_cast<double>(cf.best) / static_cast<double>(ctx));
    cands.push_back(c);
  }
  auto is_float = [](GgmlType t) { return t == GgmlType::F16 || t == GgmlType::BF16 || t == GgmlType::F32; };
  for (const GgmlType t : {GgmlType::Q8_0, GgmlType::Q4_0}) {
    const bool wider = t == GgmlType::Q8_0 ? (is_float(base.kv.type_k) || is_float(base.kv.type_v))
                                           : (base.kv.type_k != GgmlType::Q4_0 || base.kv.type_v != GgmlType::Q4_0);
    if (!wider) continue;
    const std::string name = text::lower(ggml_type_name(t));  // -ctk / kv_type spell it in lower case
    Candidate c{"kv_type", name, {{"kv_type", name}, {"kv_type_k", name}, {"kv_type_v", name}, {"flash_attn", true}}, base};
    c.r.kv.type_k = c.r.kv.type_v = t;
    c.r.kv.flash_attn = true;  // llama.cpp needs -fa for a quantized V cache
    // No KV-cache perplexity figure in the catalog: a fixed ordering cost, q4_0 above q8_0.
    c.extra_harm = t == GgmlType::Q8_0 ? 2 : 10;
    cands.push_back(c);
  }
  if (!base.kv.flash_attn) {
    Candidate c{"flash_attn", true, {{"flash_attn", true}}, base};
    c.r.kv.flash_attn = true;
    cands.push_back(c);
  }
  if (!s.file_plan()) {  // the first lower quant, in quality order, that runs
    const auto order = gguf_quality_order(s.catalog());
    const auto cur_id = find_quant(base.quant) ? find_quant(base.quant)->id : base.quant;
    auto cur = std::find_if(order.begin(), order.end(), [&](const QuantRank& x) { return x.id == cur_id; });
    if (cur != order.end())
      for (auto it = cur + 1; it != order.end(); ++it) {
        EstimateRequest r = base;
        r.quant = it->id;
        if (!runs(s.run(r, false).verdict, false)) continue;
        Candidate c{"quant", it->id, {{"quant", it->id}}, r};
        if (it->ppl && cur->ppl) c.ppl = *it->ppl - *cur->ppl;
        else c.extra_harm = 5.0 * (it->rank - cur->rank);  // unknown quality: by rank distance
        cands.push_back(c);
        break;
      }
  }
  if (base.device.kind == DeviceKind::Gpu && b.verdict == "no_fit") {
    // Layers or MoE experts in system RAM: the automatic plan with the person's RAM, or the
    // usual 64 / 128 GiB desktop tiers when they gave none.
    const std::vector<double> tiers = base.ram_gib > 0 ? std::vector<double>{base.ram_gib} : std::vector<double>{64, 128};
    for (double ram : tiers) {
      EstimateRequest r = base;
      r.ram_gib = ram;
      r.placement_given = false;
      const Estimate e = s.run(r, false);
      if (e.verdict != "offload") continue;
      const bool experts = e.placement.n_cpu_moe > 0;
      // As a person types it: -ngl counts a GLM file's NextN blocks (llamacpp/placement.hpp).
      const int v = experts ? e.placement.n_cpu_moe : ngl_flag(e.placement.ngl, nextn_blocks(r.model.arch));
      Candidate c{experts ? "n_cpu_moe" : "ngl", v, {{"ram_gib", ram}, {experts ? "n_cpu_moe" : "ngl", v}}, r};
      cands.push_back(c);
      break;
    }
  }
  if (base.kv.n_seq > 1) {  // the most parallel slots that run
    auto with = [&](std::int64_t n) {
      EstimateRequest r = base;
      r.kv.n_seq = n;
      return r;
    };
    if (runs(s.run(with(1), false).verdict, false)) {
      std::int64_t lo = 1, hi = base.kv.n_seq - 1;
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (runs(s.run(with(mid), false).verdict, false)) lo = mid;
        else hi = mid - 1;
      }
      Candidate c{"parallel", lo, {{"parallel", lo}}, with(lo)};
      c.extra_harm = 50.0 * (1.0 - static_cast<double>(lo) / static_cast<double>(base.kv.n_seq));
      cands.push_back(c);
    }
  }
  const bool identical = std::all_of(base.devices.begin(), base.devices.end(),
                                     [&](const Device& d) { return d.id == base.device.id; });
  if (base.device.kind == DeviceKind::Gpu && identical) {
    // No more cards than a machine of the card's segment holds (count_cap, data/segments.json).
    const CountCap cap = count_cap(s.catalog(), base.device, max_count);
    bool found = false;
    for (int n = base.count + 1; n <= cap.max_count; ++n) {
      EstimateRequest r = base;
      set_devices(r, base.device, n);
      r.speed.backend = base.speed.backend;
      if (!runs(s.run(r, false).verdict, false)) continue;
      Candidate c{"count", n, {{"count", n}}, r};
      c.extra_harm = 30.0 * (n - base.count);
      c.extra_price = base.device.price_usd * (n - base.count);
      cands.push_back(c);
      found = true;
      break;
    }
    // Said when the cap kept the search from counts it would have tried.
    if (cap.capped && !found) out["count_caps"] = json::array({count_cap_json(cap, max_count)});
  }

  json items = json::array();
  for (const auto& c : cands) {
    const Estimate e = s.run(c.r, true);
    if (!(runs(e.verdict, false) || (e.verdict == "offload" && b.verdict == "no_fit"))) continue;
    const double after = finite_or_zero(e.speed.decode_tps);
    const double after_low = floor_decode_tps(e);  // the floor holds on the range's low end
    const double speed_loss = before > 0 && after > 0 ? std::max(0.0, 100.0 * (1.0 - after / before)) : 0.0;
    const bool too_slow = after > 0 && after_low + 1e-9 < floor_tps;
    const double harm = speed_loss + 10.0 * std::max(0.0, c.ppl.value_or(0.0)) + c.extra_harm +
                        (e.verdict == "offload" ? 100.0 : 0.0) + (too_slow ? 1000.0 : 0.0);
    const std::uint64_t acc = accelerator_bytes(e);
    // saved_bytes is 0 when the change adds memory (more GPUs hold more in all).
    json it = {{"change", {{"field", c.field}, {"value", c.value}}}, {"request", c.patch},
               {"saved_bytes", b.total_bytes > acc ? b.total_bytes - acc : 0},
               {"total_bytes", acc}, {"usable_bytes", e.usable.usable_bytes}, {"verdict", e.verdict},
               {"decode_tps_before", before}, {"decode_tps_after", after}, {"decode_tps_after_low", after_low},
               {"extra_price_usd", finite_or_zero(c.extra_price)}, {"harm", finite_or_zero(harm)}};
    if (c.ppl) it["ppl_delta_pct"] = finite_or_zero(*c.ppl);  // absent: no quality figure for this change
    it["below_speed_floor"] = too_slow;
    // What the change achieves, as a code the page says first: it runs but still below the speed
    // floor (too_slow), it runs with part in system RAM (runs_offloaded), or it runs in the
    // devices' memory (runs).
    it["outcome"] = too_slow ? "too_slow" : e.verdict == "offload" ? "runs_offloaded" : "runs";
    // An offloaded setup whose speed the change leaves as it reads: no "X -> X" to show.
    const double now = finite_or_zero(b.speed.decode_tps);
    if (now > 0 && after > 0 && shown::same_tps(now, after)) it["speed_code"] = "unchanged_as_shown";
    items.push_back(it);
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const json& x, const json& y) { return x["harm"].get<double>() < y["harm"].get<double>(); });
  out["items"] = items;
  // No change on this device runs it at the speed floor (none at all, or only ones below it):
  // said as a code, with the smallest device that does run it at the request's format, context
  // and count (smallest_device), so the list offers something that works.
  const bool usable = std::any_of(items.begin(), items.end(), [](const json& it) { return !it["below_speed_floor"].get<bool>(); });
  if (!usable) {
    out["on_device"] = "nothing_runs";
    const json sd = smallest_device_json(s, q);
    if (sd.value("found", false)) out["smallest_device"] = sd["device"];
  }
  out["evaluations"] = s.evaluations();
  return out;
}

// How the cache grows from one context to a longer one, and what a q8_0 cache saves there: the
// model page's and the result's diagnostics. Only for llama.cpp (a server preallocates its pool
// whatever the context: reason "server_pool"), for a model that reaches the longer context
// ("beyond_max_context"), and when the cache does grow ("no_growth", e.g. a recurrent model).
json kv_outlook_json(Solver& s, const json& q) {
  namespace d = defaults;
  const EstimateRequest& base = s.base();
  // From 8K to 32K, or to the person's own context when it is longer: a page set to 128K reads
  // what its own context costs and saves, not a step it has already passed.
  const std::int64_t to_ctx = base.context_given && base.kv.n_ctx > d::kOutlookTo ? base.kv.n_ctx : d::kOutlookTo;
  json out = {{"solve", "kv_outlook"}, {"from_context", d::kOutlookFrom}, {"to_context", to_ctx}};
  auto stop = [&](const char* reason) {
    out["applies"] = false;
    out["reason"] = reason;
    out["evaluations"] = s.evaluations();
    return out;
  };
  // MLX grows its cache with the context too (speed/mlx_speed.hpp): the outlook applies, without
  // the q8_0 line (its quantized cache is --kv-bits, not a llama.cpp cache type).
  if (base.engine != "llama.cpp" && base.engine != "mlx") return stop("server_pool");
  const std::int64_t max_ctx = base.model.arch.n_ctx_train;
  if (max_ctx > 0 && max_ctx < to_ctx) return stop("beyond_max_context");
  auto at = [&](std::int64_t ctx, std::optional<GgmlType> kv) {
    EstimateRequest r = base;
    set_context(r, ctx);
    if (kv) r.kv.type_k = r.kv.type_v = *kv;
    return s.run(std::move(r), false);
  };
  Estimate a = at(d::kOutlookFrom, std::nullopt), b = at(to_ctx, std::nullopt);
  if (b.kv.total_bytes <= a.kv.total_bytes) return stop("no_growth");
  out["applies"] = true;
  out["from"] = {{"kv_cache_bytes", a.kv.total_bytes}, {"total_bytes", a.total_bytes}};
  out["to"] = {{"kv_cache_bytes", b.kv.total_bytes}, {"total_bytes", b.total_bytes}};
  // A q8_0 cache needs flash attention for its V half (llama.cpp refuses it otherwise).
  const bool already = base.kv.type_k == GgmlType::Q8_0 && base.kv.type_v == GgmlType::Q8_0;
  out["q8_0"] = nullptr;
  if (!already && base.kv.flash_attn && base.engine == "llama.cpp") {
    Estimate c = at(to_ctx, GgmlType::Q8_0);
    if (c.kv.total_bytes < b.kv.total_bytes)
      out["q8_0"] = {{"kv_cache_bytes", c.kv.total_bytes}, {"total_bytes", c.total_bytes},
                     {"saves_bytes", b.kv.total_bytes - c.kv.total_bytes}};
  }
  out["evaluations"] = s.evaluations();
  (void)q;
  return out;
}

}  // namespace

const std::vector<std::string>& solve_request_fields() {
  static const std::vector<std::string> fields(std::begin(kSolveFields), std::end(kSolveFields));
  return fields;
}

json run_solve(const Catalog& cat, const json& request) {
  if (!request.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  if (!request.contains("solve")) throw InputError("missing_field", "solve", "'solve' names the solver: max_context, best_quant, make_it_fit, cheapest, picks, smallest_device or kv_outlook");
  const std::string kind = req_str(request, "solve", "");
  const bool hardware_free = kind == "cheapest" || kind == "picks" || kind == "smallest_device";
  if (kind != "max_context" && kind != "best_quant" && kind != "make_it_fit" && kind != "kv_outlook" && !hardware_free)
    throw InputError("bad_value", "solve", "unknown solver '" + kind + "'; use max_context, best_quant, make_it_fit, cheapest, picks, smallest_device or kv_outlook",
                     {"max_context", "best_quant", "make_it_fit", "cheapest", "picks", "smallest_device", "kv_outlook"});
  json er = request;
  for (const char* k : kSolveFields) er.erase(k);
  if (hardware_free && (!er.contains("hardware") || er["hardware"].is_null())) {
    // Replaced per candidate; a catalog device the request's engine runs on lets the rest of the
    // request be read (a GPU where the engine runs on one; MLX runs on Apple silicon only, so its
    // picks are read on a Mac rather than refused on the first GPU).
    const auto& ds = cat.devices();
    const std::string engine = er.contains("engine") && er["engine"].is_string() ? er["engine"].get<std::string>() : std::string(defaults::kEngine);
    auto gpu = std::find_if(ds.begin(), ds.end(), [&](const Device& d) { return d.kind == DeviceKind::Gpu && engine_runs(cat, d, engine); });
    if (gpu == ds.end())
      gpu = std::find_if(ds.begin(), ds.end(), [&](const Device& d) { return d.kind != DeviceKind::Cpu && engine_runs(cat, d, engine); });
    if (gpu == ds.end()) gpu = std::find_if(ds.begin(), ds.end(), [](const Device& d) { return d.kind == DeviceKind::Gpu; });
    if (gpu == ds.end()) throw InputError("missing_field", "hardware", "the catalog holds no GPU to compare");
    er["hardware"] = gpu->id;
    // smallest_device keeps the request's count, its basis (several graphics cards); the others
    // choose the count per candidate.
    if (kind != "smallest_device" || gpu->kind != DeviceKind::Gpu) er.erase("count");
  }
  Solver s(cat, parse_request(cat, er));
  if (kind == "max_context") return max_context_json(s, request);
  if (kind == "best_quant") return best_quant_json(s, request);
  if (kind == "make_it_fit") return make_it_fit_json(s, request);
  if (kind == "cheapest") return cheapest_json(s, request);
  if (kind == "smallest_device") return smallest_device_json(s, request);
  if (kind == "kv_outlook") return kv_outlook_json(s, request);
  return picks_json(s, request);
}

}  // namespace wif
