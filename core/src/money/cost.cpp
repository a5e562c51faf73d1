#include "willitfit/money/cost.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/engine_fit.hpp"
#include "willitfit/estimate/estimate.hpp"

namespace wif {
namespace {

using units::kGiB;

// Fields of a cost request that are not an estimate request's.
constexpr const char* kMoneyFields[] = {"decode_tps", "batched_tps", "concurrency", "speeds", "market",
                                        "price_kwh_usd", "power_w", "purchase_usd", "amortization_months",
                                        "hours_per_day", "months", "offer"};

Throughput parse_speed(const json& q, const std::string& path, std::optional<double> decode_default = std::nullopt) {
  Throughput t;
  t.decode_tps = decode_default && !q.contains("decode_tps") ? *decode_default
                                                              : req_num(q, "decode_tps", path, 0.000001, 1e9);
  t.concurrency = static_cast<int>(opt_int(q, "concurrency", path, 1, 100000).value_or(defaults::kConcurrency));
  t.batched_tps = opt_num(q, "batched_tps", path, 0.000001, 1e12).value_or(0.0);
  return t;
}

json per_million(double usd_hour, const Throughput& t) {
  json j = {{"single", usd_per_million_tokens(usd_hour, t.decode_tps)}, {"decode_tps", t.decode_tps}};
  // The decode estimate's range gives the cost's: the fast end of the speed is the cheap end.
  if (t.decode_tps_low > 0 && t.decode_tps_high >= t.decode_tps_low) {
    j["single_low"] = usd_per_million_tokens(usd_hour, t.decode_tps_high);
    j["single_high"] = usd_per_million_tokens(usd_hour, t.decode_tps_low);
    j["decode_tps_low"] = t.decode_tps_low;
    j["decode_tps_high"] = t.decode_tps_high;
  }
  if (t.batched_tps > 0) {
    j["batched"] = usd_per_million_tokens(usd_hour, t.batched_tps);
    j["batched_tps"] = t.batched_tps;
    j["concurrency"] = t.concurrency;
  }
  return j;
}

// vLLM / SGLang: the aggregate decode of the requests the pool holds at once (the estimate's
// serving throughput), when that is more than one request; else none.
Throughput batched_of(const Estimate& e) {
  Throughput t;
  if (e.throughput && e.throughput->at.concurrency > 1 && e.throughput->at.aggregate_tps > 0) {
    t.batched_tps = e.throughput->at.aggregate_tps;
    t.concurrency = static_cast<int>(e.throughput->at.concurrency);
  }
  return t;
}

double round_cents(double x) { return std::round(x * 100.0) / 100.0; }

// The memory figure an instance's name states in GB ("A100 SXM 80GB, 1x" -> 80; "H100 80 GB" -> 80),
// or nullopt: a page that shows memory in GiB names the provider's GB beside it when the name says
// GB, so the page never reads a name itself.
std::optional<double> name_gb(const std::string& name) {
  for (std::size_t i = 0; i + 1 < name.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(name[i])) != 'G' || std::toupper(static_cast<unsigned char>(name[i + 1])) != 'B') continue;
    if (i + 2 < name.size() && std::isalnum(static_cast<unsigned char>(name[i + 2]))) continue;
    std::size_t end = i;
    if (end > 0 && name[end - 1] == ' ') --end;
    std::size_t start = end;
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(name[start - 1])) || name[start - 1] == '.')) --start;
    if (start == end || !std::isdigit(static_cast<unsigned char>(name[start]))) continue;
    if (start > 0 && std::isalpha(static_cast<unsigned char>(name[start - 1]))) continue;  // "RTX6000GB" is no size
    try {
      return std::stod(name.substr(start, end - start));
    } catch (...) {
      continue;
    }
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& cost_request_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> f(std::begin(kMoneyFields), std::end(kMoneyFields));
    f.push_back("memory_gib");
    return f;
  }();
  return fields;
}

double usd_per_million_tokens(double usd_per_hour, double tps) {
  if (tps <= 0) return 0.0;
  return usd_per_hour / (tps * 3600.0) * 1e6;
}

std::string cloud_vram_code(double per_gpu_gb, double device_memory_gib) {
  if (!(device_memory_gib > 0) || !(per_gpu_gb > 0)) return "no_device";
  constexpr double kGiBInGB = 1.073741824;
  if (std::fabs(per_gpu_gb / device_memory_gib - 1.0) <= 0.02) return "gib_figure";
  if (std::fabs(per_gpu_gb / (device_memory_gib * kGiBInGB) - 1.0) <= 0.02) return "decimal_gb";
  return per_gpu_gb < device_memory_gib ? "less" : "more";
}

double billed_hours_per_month(const std::string& billing, double hours_per_day) {
  if (billing == "monthly") return 24.0 * kDaysPerMonth;
  if (billing == "per-hour") return std::ceil(hours_per_day) * kDaysPerMonth;
  return hours_per_day * kDaysPerMonth;  // per-second and per-minute: what is used
}

CostRequest parse_cost_request(const Catalog& cat, const json& q) {
  if (!q.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  CostRequest r;
  if (!q.contains("hardware")) throw InputError("missing_field", "hardware", "'hardware' is required");
  r.device = resolve_device(cat, q["hardware"], "hardware");
  r.count = static_cast<int>(opt_int(q, "count", "", 1, 64).value_or(defaults::kCount));
  // With a model, the estimate of the same document on the owned hardware gives the memory need
  // and, unless the request states one, the decode speed.
  std::optional<double> owned_decode;
  double owned_low = 0, owned_high = 0;  // the estimate's decode range
  Throughput owned_batched;  // a serving engine's aggregate at the concurrency its pool allows
  if (!q.contains("memory_gib") && q.contains("model")) {
    json eq = q;
    for (const char* k : kMoneyFields) eq.erase(k);
    const EstimateRequest er = parse_request(cat, eq);
    const Estimate e = run_estimate(cat, er);
    r.need_bytes = e.total_bytes;
    if (server_engine(er.engine) && er.vllm.concurrency > 1) r.stated_sequences = er.vllm.concurrency;
    owned_batched = batched_of(e);
    if (e.speed.decode_tps > 0) {
      owned_decode = e.speed.decode_tps;
      owned_low = e.speed.decode_tps_low;
      owned_high = e.speed.decode_tps_high;
    } else if (!q.contains("decode_tps"))
      throw InputError("no_decode_speed", "decode_tps",
                       "the estimate of this model on the owned hardware gives no decode speed (verdict '" +
                           e.verdict + "'); give decode_tps");
    r.estimate_request = std::move(eq);
  }
  r.owned = parse_speed(q, "", owned_decode);
  // A stated decode_tps has no range; the estimate's has.
  if (!q.contains("decode_tps")) {
    r.owned.decode_tps_low = owned_low;
    r.owned.decode_tps_high = owned_high;
  }
  if (!q.contains("batched_tps") && !q.contains("decode_tps") && owned_batched.batched_tps > 0) {
    r.owned.batched_tps = owned_batched.batched_tps;
    r.owned.concurrency = owned_batched.concurrency;
  }
  if (q.contains("speeds")) {
    if (!q["speeds"].is_object()) throw InputError("bad_type", "speeds", "speeds maps a device id to {decode_tps, batched_tps}");
    for (const auto& [id, v] : q["speeds"].items()) {
      if (!v.is_object()) throw InputError("bad_type", "speeds." + id, "expected {decode_tps, batched_tps}");
      r.speeds[id] = parse_speed(v, "speeds." + id);
    }
  }
  r.market = opt_str(q, "market", "").value_or(defaults::kMarket);
  const json* mk = nullptr;
  for (const auto& m : cat.markets())
    if (m.value("id", "") == r.market) mk = &m;
  if (auto p = opt_num(q, "price_kwh_usd", "", 0, 100)) {
    r.price_kwh_usd = *p;
    r.price_source = "given";
  } else {
    if (!mk) {
      std::string ids;
      for (const auto& m : cat.markets()) ids += (ids.empty() ? "" : ", ") + m.value("id", "");
      throw InputError("bad_value", "market", "unknown market '" + r.market + "'; known: " + ids);
    }
    r.price_kwh_usd = (*mk)["price_kwh_local"].get<double>() * (*mk)["usd_per_unit"].get<double>();
    r.price_source = mk->value("source", "");
  }
  const auto power = opt_num(q, "power_w", "", 0, 1e7);
  r.power_w = power.value_or(r.device.tdp_w * r.count);
  r.power_known = power.has_value() || r.device.tdp_w > 0;
  const auto purchase = opt_num(q, "purchase_usd", "", 0, 1e9);
  r.purchase_usd = purchase.value_or(r.device.price_usd * r.count);
  r.purchase_known = purchase.has_value() || r.device.price_usd > 0;
  r.amortization_months = opt_num(q, "amortization_months", "", 1, 600).value_or(defaults::kAmortizationMonths);
  r.hours_per_day = opt_num(q, "hours_per_day", "", 0.01, 24).value_or(defaults::kHoursPerDay);
  if (q.contains("months") && q["months"].is_string()) {
    if (q["months"].get<std::string>() != "auto")
      throw InputError("bad_value", "months", "months is a number of months (1 to 240) or \"auto\"", {"auto"});
    r.months = 0;  // auto: chosen from the break-even point in cost_to_json
  } else {
    r.months = static_cast<int>(opt_int(q, "months", "", 1, 240).value_or(defaults::kMonths));
  }
  r.offer = opt_str(q, "offer", "").value_or("");
  if (auto g = opt_num(q, "memory_gib", "", 0, 1e7)) r.need_bytes = static_cast<std::uint64_t>(*g * kGiB);
  return r;
}

namespace {

// The model estimated on one cloud instance: its device and GPU count, no system RAM (a rented
// instance is sized to hold the model). {verdict, decode_tps} or {error: code} for a setup the
// engine refuses (a tensor-parallel size that does not divide the heads, say).
json offer_estimate(const Catalog& cat, const json& base, const std::string& device, int gpus) {
  json eq = base;
  eq["hardware"] = device;
  eq["count"] = gpus;
  eq["ram_gib"] = 0;
  try {
    const Estimate e = run_estimate(cat, parse_request(cat, eq));
    json out = {{"verdict", e.verdict}};
    if (e.speed.decode_tps > 0) {
      out["decode_tps"] = e.speed.decode_tps;
      if (e.speed.decode_tps_low > 0) {
        out["decode_tps_low"] = e.speed.decode_tps_low;
        out["decode_tps_high"] = e.speed.decode_tps_high;
      }
    }
    const Throughput b = batched_of(e);
    if (b.batched_tps > 0) {
      out["batched_tps"] = b.batched_tps;
      out["concurrency"] = b.concurrency;
    }
    if (e.speed.unavailable.is_object() && e.speed.unavailable.contains("code"))
      out["speed_unavailable_code"] = e.speed.unavailable["code"];
    return out;
  } catch (const InputError& err) {
    return {{"error", err.error().code}};
  }
}

// The break-even point against the hardware's useful life (data/segments.json useful_life: months
// and its public source): beyond_useful_life when owning pays off only after the hardware is
// that old, else within_useful_life; null when the catalog states no life.
json useful_life(const Catalog& cat, double break_even_months) {
  const json* doc = cat.document("segments.json");
  if (!doc || !doc->is_object() || !doc->contains("useful_life")) return nullptr;
  const json& ul = (*doc)["useful_life"];
  if (!ul.is_object() || !ul.contains("months") || !ul["months"].is_number()) return nullptr;
  const double months = ul["months"].get<double>();
  return {{"code", break_even_months > months ? "beyond_useful_life" : "within_useful_life"},
          {"months", months}, {"source", ul.value("source", "")}};
}

}  // namespace

json cost_to_json(const Catalog& cat, const CostRequest& r) {
  const double hours_month = r.hours_per_day * kDaysPerMonth;
  const double elec_month = r.power_w / 1000.0 * hours_month * r.price_kwh_usd;
  const double amort_month = r.purchase_usd / r.amortization_months;
  const double elec_hour = r.power_w / 1000.0 * r.price_kwh_usd;
  const double owned_hour = elec_hour + amort_month / hours_month;
  // What is not known stays null, with a code saying what is missing: a total that leaves out the
  // purchase price would read as the cost of the hardware.
  const bool total_known = r.power_known && r.purchase_known;
  json unknown = json::array();
  if (!r.purchase_known) unknown.push_back("no_purchase_price");
  if (!r.power_known) unknown.push_back("no_power_figure");
  const json null;
  json owned = {{"hardware", {{"id", r.device.id}, {"name", r.device.name}, {"count", r.count}}},
                {"power_w", r.power_known ? json(r.power_w) : null},
                {"purchase_usd", r.purchase_known ? json(r.purchase_usd) : null},
                {"amortization_months", r.amortization_months},
                {"decode_tps", r.owned.decode_tps},
                {"decode_tps_low", r.owned.decode_tps_low > 0 ? json(r.owned.decode_tps_low) : null},
                {"decode_tps_high", r.owned.decode_tps_high > 0 ? json(r.owned.decode_tps_high) : null},
                {"per_hour_usd", {{"electricity", r.power_known ? json(elec_hour) : null},
                                  {"amortization", r.purchase_known ? json(amort_month / hours_month) : null},
                                  {"total", total_known ? json(owned_hour) : null}}},
                {"electricity_per_month_usd", r.power_known ? json(elec_month) : null},
                {"per_million_tokens_usd", total_known ? per_million(owned_hour, r.owned) : null},
                {"electricity_only_per_million_tokens_usd", r.power_known ? per_million(elec_hour, r.owned) : null},
                // No power figure but a purchase price: the purchase part alone, a lower bound of the
                // total (electricity only adds), so a known price is never shown as "—".
                {"purchase_only_per_million_tokens_usd",
                 r.purchase_known && !r.power_known ? per_million(amort_month / hours_month, r.owned) : null},
                {"unknown", unknown}};
  const double owned_tokens_month = r.owned.decode_tps * 3600.0 * hours_month;

  // The request the offers are estimated with: the owned one, or, when its engine runs on no
  // rented GPU (MLX: Apple silicon only), the nearest one that does (engine_fit.hpp
  // cloud_fallback_request: llama.cpp, the GGUF type of the same quality rank), said once in
  // `cloud_engine` so the table is never a list of offers each saying "no estimate".
  std::optional<json> offer_request = r.estimate_request;
  std::uint64_t offer_need = r.need_bytes;
  json cloud_engine = nullptr;
  if (r.estimate_request) {
    const std::string engine = r.estimate_request->value("engine", std::string(defaults::kEngine));
    if (!engine_on_any_cloud(cat, engine)) {
      const json fb = cloud_fallback_request(cat, *r.estimate_request);
      cloud_engine = {{"code", "engine_not_on_cloud"}, {"engine", engine}, {"shown_engine", fb["engine"]},
                      {"shown_quant", fb["quant"]}};
      if (engine_on_any_cloud(cat, fb["engine"].get<std::string>())) {
        offer_request = fb["request"];
        // What the other setup needs, estimated on the owned hardware (llama.cpp runs on it);
        // the owned figure when that setup is refused there.
        try {
          offer_need = run_estimate(cat, parse_request(cat, *offer_request)).total_bytes;
        } catch (const InputError&) {
        }
        cloud_engine["memory_need_bytes"] = offer_need;
      } else {
        offer_request.reset();
        cloud_engine["shown_engine"] = nullptr;
      }
    }
  }
  json offers = json::array();
  std::map<std::string, json> estimated;  // device#count -> offer_estimate, each instance shape once
  const json* chosen = nullptr;  // a row of `offers`
  double chosen_month = 0;
  for (const auto& o : cat.clouds()) {
    const double vram = o.value("vram_gb", 0.0);  // total over the instance's GPUs (clouds.json)
    // What the instance holds is what its GPUs leave usable (device.hpp: the CUDA/ROCm context
    // and driver reserve), the same rule the owned estimate's verdict uses, applied to the
    // smaller of the catalog device's memory and the offer's stated memory per GPU (providers
    // quote what nvidia-smi shows, some B200 offers 179 of 180). An offer whose device is not in
    // the catalog is judged on its stated GB (10^9 bytes), the stricter reading.
    const int gpus = std::max(1, o.value("gpu_count", 1));
    const Device* dev = cat.find_device(o.value("device", ""));
    double usable = vram * 1e9;
    json basis;  // what memory_per_gpu_bytes stands on (device.hpp memory_basis_json)
    if (dev) {
      Device per_gpu = *dev;
      if (vram > 0) per_gpu.memory_gib = std::min(per_gpu.memory_gib, vram / gpus);
      usable = static_cast<double>(usable_memory(per_gpu).usable_bytes) * gpus;
      basis = memory_basis_json(per_gpu);
    }
    if (!cloud_engine.is_null() && !offer_request) continue;  // no offer runs the engine, nor the other
    if (offer_need > 0 && usable < static_cast<double>(offer_need)) continue;
    // The model on this instance: an offer whose own estimate does not fit (a server engine's
    // budget is stricter than the owned need, say) is not an offer that holds the model.
    json est;
    auto sp = r.speeds.find(o.value("device", ""));
    if (sp == r.speeds.end() && offer_request && dev) {
      const std::string key = dev->id + "#" + std::to_string(gpus);
      auto it = estimated.find(key);
      if (it == estimated.end()) it = estimated.emplace(key, offer_estimate(cat, *offer_request, dev->id, gpus)).first;
      est = it->second;
      if (est.value("verdict", "") == "no_fit") continue;
    }
    const double price = o["price_hour_usd"].get<double>();
    const std::string billing = o.value("billing", "per-second");
    const double month = price * billed_hours_per_month(billing, r.hours_per_day);
    json row = {{"id", o.value("id", "")}, {"provider", o.value("provider", "")},
                {"instance", o.value("instance", "")}, {"device", o.value("device", "")},
                {"gpu_count", o.value("gpu_count", 1)}, {"vram_gb", vram},
                {"vram_per_gpu_gb", vram / gpus},
                // The memory per GPU the estimate used (GiB) and how the provider's figure reads
                // against the catalog device (cloud_vram_code), so a page can show one unit.
                {"memory_per_gpu_bytes", static_cast<std::uint64_t>(
                     (dev ? (vram > 0 ? std::min(dev->memory_gib, vram / gpus) : dev->memory_gib) * 1073741824.0 : vram / gpus * 1e9))},
                {"vram_code", cloud_vram_code(vram / gpus, dev ? dev->memory_gib : 0.0)},
                {"usable_bytes", static_cast<std::uint64_t>(usable)},
                {"price_hour_usd", price}, {"billing", billing}, {"market", o.value("market", "")},
                {"monthly_usd", month}, {"url", o.value("url", "")}, {"checked", o.value("checked", "")}};
    // What the price is ("cheapest_offer", "starting_at", "per_gpu", "spot"…): a code the page
    // words, never English in the instance name (data/SCHEMA.md).
    if (o.contains("price_basis") && o["price_basis"].is_string()) row["price_basis"] = o["price_basis"];
    // The provider's tier of the same GPU (RunPod's "secure" and "community" clouds): a code too.
    if (o.contains("tier") && o["tier"].is_string()) row["tier"] = o["tier"];
    if (const auto g = name_gb(o.value("instance", ""))) row["name_gb"] = *g;
    // A catalog GPU whose size is the vendor's figure: the page marks the memory per GPU as such.
    if (!basis.is_null()) row["memory_basis"] = basis;
    if (sp != r.speeds.end()) {
      row["per_million_tokens_usd"] = per_million(price, sp->second);
    } else if (!est.is_null()) {
      row["estimate"] = est;
      if (est.contains("decode_tps")) {
        Throughput t;
        t.decode_tps = est["decode_tps"].get<double>();
        if (est.contains("decode_tps_low")) {
          t.decode_tps_low = est["decode_tps_low"].get<double>();
          t.decode_tps_high = est["decode_tps_high"].get<double>();
        }
        if (est.contains("batched_tps")) {
          t.batched_tps = est["batched_tps"].get<double>();
          t.concurrency = est["concurrency"].get<int>();
        }
        row["per_million_tokens_usd"] = per_million(price, t);
      }
    }
    // The figure the offers are ranked by (cloud_basis): one user's, or the stated sequences'
    // aggregate (fewer when the offer's pool holds fewer: its batched concurrency, else one).
    if (row.contains("per_million_tokens_usd")) {
      json& pm = row["per_million_tokens_usd"];
      const bool batched = r.stated_sequences > 1 && pm.contains("batched");
      pm["basis_usd"] = batched ? pm["batched"] : pm["single"];
      pm["basis_sequences"] = batched ? pm["concurrency"] : json(1);
    }
    // The same load as the owned setup: its tokens a month, made at this instance's own speed.
    if (row.contains("per_million_tokens_usd") && owned_tokens_month > 0) {
      const double tps = row["per_million_tokens_usd"]["decode_tps"].get<double>();
      const double hours_day = r.hours_per_day * r.owned.decode_tps / tps;
      if (hours_day <= 24.0)
        row["same_load"] = {{"hours_per_day", hours_day}, {"monthly_usd", price * billed_hours_per_month(billing, hours_day)},
                            {"decode_tps", tps}};
    }
    offers.push_back(row);
  }
  // An offer whose own estimate holds the model only tight (no room to spare on the low end of a
  // vendor's memory figure, estimate.hpp room_to_spare) is chosen below only where no offer has
  // room: the cheapest that fits comfortably is the answer, as for the hardware solvers
  // (solve_hardware.cpp smallest_device, cheapest_cloud). An offer with no estimate (a speed the
  // request gives for its device) is judged by the memory filter above alone.
  auto tight = [](const json& row) { return row.contains("estimate") && row["estimate"].value("verdict", "") == "tight"; };
  // The offer rent vs buy compares with: the one named, else the cheapest for the same load
  // (offers with a speed), else the cheapest month at the same hours.
  bool same_load = false;
  for (const bool with_tight : {false, true}) {
    if (chosen) break;
    for (const auto& row : offers) {
      const bool named = !r.offer.empty() && row["id"] == r.offer;
      if (!r.offer.empty() && !named) continue;
      if (!named && !with_tight && tight(row)) continue;
      if (row.contains("same_load")) {
        const double m = row["same_load"]["monthly_usd"].get<double>();
        if (named || !same_load || m < chosen_month) { chosen = &row; chosen_month = m; same_load = true; }
      } else if (named || (!same_load && (!chosen || row["monthly_usd"].get<double>() < chosen_month))) {
        chosen = &row;
        chosen_month = row["monthly_usd"].get<double>();
      }
    }
  }
  if (!r.offer.empty() && !chosen)
    throw InputError("bad_value", "offer", "offer '" + r.offer + "' is not in the catalog or does not hold the model");
  const json chosen_row = chosen ? *chosen : json(nullptr);
  std::stable_sort(offers.begin(), offers.end(),
                   [](const json& a, const json& b) { return a["monthly_usd"].get<double>() < b["monthly_usd"].get<double>(); });
  // The lowest cost per million tokens on the basis (the first of equals in the month order),
  // among the offers with room to spare, else among those that hold it only tight. Where a tight
  // offer costs less per token than the answer, `tight_cheaper` names the cheapest such, so a page
  // can say why the answer is not the first of the table sorted by that figure.
  auto lowest = [&](bool want_tight) {
    json best = nullptr;
    for (const auto& row : offers)
      if (row.contains("per_million_tokens_usd") && tight(row) == want_tight &&
          (best.is_null() || row["per_million_tokens_usd"]["basis_usd"].get<double>() < best["usd"].get<double>()))
        best = {{"id", row["id"]}, {"usd", row["per_million_tokens_usd"]["basis_usd"]},
                {"sequences", row["per_million_tokens_usd"]["basis_sequences"]}};
    return best;
  };
  json cheapest = lowest(false);
  const json cheapest_tight = lowest(true);
  if (cheapest.is_null()) cheapest = cheapest_tight;
  else if (!cheapest_tight.is_null() && cheapest_tight["usd"].get<double>() < cheapest["usd"].get<double>())
    cheapest["tight_cheaper"] = {{"id", cheapest_tight["id"]}, {"usd", cheapest_tight["usd"]}};
  const json basis = {{"code", r.stated_sequences > 1 ? "stated_sequences" : "one_user"},
                      {"sequences", r.stated_sequences > 1 ? r.stated_sequences : 1}};

  json rvb = nullptr;
  if (chosen) {
    rvb = {{"offer", chosen_row.value("id", "")}, {"cloud_monthly_usd", chosen_month},
           {"basis", same_load ? "same_tokens" : "same_hours"}, {"hours_per_day", r.hours_per_day},
           {"cloud_hours_per_day", same_load ? chosen_row["same_load"]["hours_per_day"].get<double>() : r.hours_per_day},
           {"owned_decode_tps", r.owned.decode_tps}};
    if (same_load) {
      rvb["tokens_per_month"] = owned_tokens_month;
      rvb["cloud_decode_tps"] = chosen_row["same_load"]["decode_tps"];
    }
  }
  if (chosen && !total_known) {
    // Buying cannot be costed without its price and power draw: which one is missing, no series.
    rvb["unknown"] = unknown;
    // With the price known and only the power missing, the break-even point is at least the
    // purchase over the cloud's month: electricity only lowers the monthly saving.
    if (r.purchase_known && chosen_month > 0) {
      rvb["break_even_months_at_least"] = r.purchase_usd / chosen_month;
      if (json life = useful_life(cat, r.purchase_usd / chosen_month); !life.is_null()) rvb["break_even_life"] = life;
    }
  } else if (chosen) {
    const double saving = chosen_month - elec_month;
    int horizon = r.months;
    if (horizon == 0) {
      // "auto": a little past the break-even point, between two and twenty years.
      horizon = defaults::kMonths;
      if (saving > 0)
        horizon = static_cast<int>(std::clamp(std::ceil(r.purchase_usd / saving * defaults::kMonthsAutoPastBreakEven),
                                              static_cast<double>(defaults::kMonthsAutoMin), static_cast<double>(defaults::kMonthsAutoMax)));
    }
    json months = json::array(), own = json::array(), cloud = json::array();
    for (int m = 0; m <= horizon; ++m) {
      months.push_back(m);
      own.push_back(round_cents(r.purchase_usd + elec_month * m));
      cloud.push_back(round_cents(chosen_month * m));
    }
    rvb["owned_electricity_monthly_usd"] = elec_month;
    rvb["purchase_usd"] = r.purchase_usd;
    rvb["break_even_months"] = saving > 0 ? json(r.purchase_usd / saving) : json(nullptr);
    // The break-even point against the hardware's life: the cost model writes the purchase off
    // over amortization_months (its per-hour figure above), so a point past that period means
    // the hardware is written off (and likely outdated) before owning it pays: renting is the
    // cheaper way over its life. never: renting costs less per month than the electricity.
    const double be = saving > 0 ? r.purchase_usd / saving : 0;
    rvb["break_even"] = {{"code", saving <= 0 ? "never" : be > r.amortization_months ? "beyond_amortisation" : "within_amortisation"},
                         {"amortization_months", r.amortization_months}};
    if (saving > 0)
      if (json life = useful_life(cat, be); !life.is_null()) rvb["break_even_life"] = life;
    rvb["series"] = {{"months", months}, {"owned_usd", own}, {"cloud_usd", cloud}};
  }
  json out = {{"electricity", {{"market", r.market}, {"price_kwh_usd", r.price_kwh_usd}, {"source", r.price_source}}},
          {"usage", {{"hours_per_day", r.hours_per_day}, {"hours_per_month", hours_month}}},
          {"memory_need_bytes", r.need_bytes},
          {"owned", owned},
          {"clouds", offers},
          {"cloud_basis", basis},
          {"cloud_engine", cloud_engine},
          {"rent_vs_buy", rvb}};
  if (!cheapest.is_null()) out["cheapest_offer"] = cheapest;  // absent when no offer has a speed
  return out;
}

}  // namespace wif
