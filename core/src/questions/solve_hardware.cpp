// The hardware solvers of solve.hpp: "what is the cheapest thing that runs this?" (cheapest) and
// the four cards of the main page (picks). Both sweep the catalog's priced devices through the
// estimate, one Solver (shared plan and speed coefficients) for the whole sweep.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "solve_detail.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/engine_fit.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/servers/vllm.hpp"

namespace wif {
namespace solve_detail {
namespace {

struct Option {
  const Device* d = nullptr;
  int count = 1;
  double ram_gib = 0;
  double price = 0;            // total over `count`: street, else launch, else used
  std::string price_kind;      // street | launch | launch_option | launch_base_config | used
  double used_price = 0;       // total used price, 0 when the catalog has none
  std::string verdict;
  double tps = 0;
  double tps_low = 0;          // the range's low end, the figure a speed floor is held against
  std::uint64_t total_bytes = 0;
};

// Apple chips are listed once per memory option (catalog.cpp). An option with its own sourced
// launch price (`option_price`, data/SCHEMA.md) is priced as such; the others carry the chip's
// launch price, which is the price of its smallest memory: say so when a larger option is shown.
std::map<std::string, double> chip_base_memory(const Catalog& cat) {
  std::map<std::string, double> m;
  for (const auto& d : cat.devices())
    if (d.facts.contains("chip_id") && d.facts["chip_id"].is_string()) {
      const std::string chip = d.facts["chip_id"].get<std::string>();
      auto it = m.find(chip);
      if (it == m.end() || d.memory_gib < it->second) m[chip] = d.memory_gib;
    }
  return m;
}

std::string price_kind(const Device& d, const std::map<std::string, double>& base) {
  if (d.price_usd <= 0) return "used";
  if (d.facts.contains("street_price")) return "street";
  if (d.facts.contains("option_price")) return "launch_option";
  if (d.facts.contains("chip_id") && d.facts["chip_id"].is_string()) {
    auto it = base.find(d.facts["chip_id"].get<std::string>());
    if (it != base.end() && d.memory_gib > it->second) return "launch_base_config";
  }
  return "launch";
}

// For every priced device (CPU entries left out: their price is the processor alone) and RAM
// tier, the fewest identical devices that run the request and reach `min_tps`.
std::vector<Option> sweep(Solver& s, int max_count, const std::vector<double>& tiers, double min_tps) {
  const EstimateRequest& base = s.base();
  const auto base_mem = chip_base_memory(s.catalog());
  // The weights the accelerators hold when everything is on them (token_embd stays on the CPU
  // beside discrete GPUs): no fewer GPUs than these bytes need can fit, so those counts are
  // skipped without an estimate (a no-fit estimate runs the whole automatic placement).
  std::uint64_t gpu_weights = 0;
  if (base.device.kind == DeviceKind::Gpu) {
    EstimateRequest r = base;
    r.ram_gib = 0;
    gpu_weights = s.run(r, false).weights_bytes;
  }
  const bool server = server_engine(base.engine);
  std::vector<Option> out;
  for (const Device& d : s.catalog().devices()) {
    if (d.kind == DeviceKind::Cpu || (d.price_usd <= 0 && d.used_price_usd <= 0)) continue;
    if (!candidate(s.catalog(), d, base)) continue;  // e.g. no Mac for vLLM or SGLang, no AMD card for NVFP4
    const int top = count_cap(s.catalog(), d, max_count).max_count;  // the segment's cap (solve_detail.hpp)
    for (double ram : tiers) {
      if (ram > 0 && d.kind != DeviceKind::Gpu) continue;  // one memory pool: no RAM tier
      int n_min = 1;
      const double usable = static_cast<double>(usable_memory(d, base.overrides).usable_bytes);
      if (ram <= 0 && d.kind == DeviceKind::Gpu && gpu_weights > 0 && usable > 0)
        n_min = std::max(1, static_cast<int>(std::ceil(static_cast<double>(gpu_weights) / usable)));
      double last_tps = -1;
      for (int n = 1; n <= top; ++n) {
        if (n < n_min) continue;
        if (server && !tensor_parallel_accepted(base.model.arch, n)) continue;  // the engine refuses it
        EstimateRequest r = base;
        set_devices(r, d, n);
        r.ram_gib = ram;
        r.placement_given = false;
        const Estimate e = s.run(r, false);
        if (ram > 0 && runs(e.verdict, false)) break;  // fits without RAM: the tier-0 row has it
        if (!runs(e.verdict, ram > 0)) {
          // The weights alone need this many devices: skip the counts below (no estimate).
          if (ram <= 0 && n == 1 && e.usable.usable_bytes > 0)
            n_min = static_cast<int>(std::ceil(static_cast<double>(e.weights_bytes) / static_cast<double>(e.usable.usable_bytes)));
          continue;
        }
        const Estimate es = s.run(r, true);
        const double tps = finite_or_zero(es.speed.decode_tps);
        const double low = floor_decode_tps(es);  // a floor holds on the range's low end
        if (low + 1e-9 < min_tps) {
          if (low <= last_tps * 1.01) break;  // more cards of a layer split do not decode faster
          last_tps = low;
          continue;
        }
        Option o;
        o.d = &d;
        o.count = n;
        o.ram_gib = ram;
        o.price = (d.price_usd > 0 ? d.price_usd : d.used_price_usd) * n;
        o.price_kind = price_kind(d, base_mem);
        o.used_price = d.used_price_usd * n;
        o.verdict = es.verdict;
        o.tps = tps;
        o.tps_low = low;
        o.total_bytes = es.total_bytes;
        out.push_back(o);
        break;
      }
    }
  }
  return out;
}

json option_json(const Option& o) {
  return {{"id", o.d->id}, {"name", o.d->name}, {"kind", device_kind_name(o.d->kind)}, {"device_type", device_type_json(*o.d)}, {"count", o.count},
          {"memory_gib", o.d->memory_gib}, {"ram_gib", o.ram_gib}, {"price_usd", finite_or_zero(o.price)},
          {"price_kind", o.price_kind}, {"used_price_usd", finite_or_zero(o.used_price)}, {"verdict", o.verdict},
          {"decode_tps", finite_or_zero(o.tps)}, {"decode_tps_low", finite_or_zero(o.tps_low)}, {"total_bytes", o.total_bytes}};
}

// The cheapest cloud offer per hour whose GPUs run the request (estimated on the offer's device
// and GPU count; offers whose device is not in the catalog are left out). An offer that holds it
// with room to spare (verdict fits, judged on the low end of a vendor's memory figure) is the
// answer; the cheapest that holds it only tight is the answer only when none has room, as for
// smallest_device: a rented 80 GB A100 whose driver may report 74.5 GiB is not named over a dearer
// instance that holds the model comfortably.
json cheapest_cloud(Solver& s, double min_tps) {
  std::vector<const json*> offers;
  for (const auto& o : s.catalog().clouds()) offers.push_back(&o);
  std::stable_sort(offers.begin(), offers.end(), [](const json* a, const json* b) {
    return a->value("price_hour_usd", 0.0) < b->value("price_hour_usd", 0.0);
  });
  std::map<std::string, bool> tried;  // device x count that did not run, or ran only tight (a dearer one is no answer)
  const bool server = server_engine(s.base().engine);
  json tight;  // the cheapest offer that runs it only tight
  for (const json* o : offers) {
    const Device* d = s.catalog().find_device(o->value("device", ""));
    const int n = o->value("gpu_count", 1);
    if (!d || n < 1 || n > 64 || (n > 1 && d->kind != DeviceKind::Gpu)) continue;
    if (!candidate(s.catalog(), *d, s.base())) continue;
    if (server && !tensor_parallel_accepted(s.base().model.arch, n)) continue;  // the engine refuses it
    const std::string key = d->id + "x" + std::to_string(n);
    if (tried.count(key)) continue;
    EstimateRequest r = s.base();
    set_devices(r, *d, n);
    r.ram_gib = 0;
    r.placement_given = false;
    const Estimate e = s.run(r, true);
    const double tps = finite_or_zero(e.speed.decode_tps);
    const double low = floor_decode_tps(e);  // a floor holds on the range's low end
    if (!runs(e.verdict, false) || low + 1e-9 < min_tps) {
      tried[key] = false;
      continue;
    }
    json row = {{"id", o->value("id", "")}, {"provider", o->value("provider", "")},
                {"instance", o->value("instance", "")}, {"device", d->id}, {"name", d->name},
                {"gpu_count", n}, {"price_hour_usd", finite_or_zero(o->value("price_hour_usd", 0.0))},
                {"billing", o->value("billing", "")}, {"url", o->value("url", "")},
                {"checked", o->value("checked", "")}, {"verdict", e.verdict}, {"decode_tps", tps}, {"decode_tps_low", low}};
    if (o->contains("price_basis") && (*o)["price_basis"].is_string()) row["price_basis"] = (*o)["price_basis"];
    if (o->contains("tier") && (*o)["tier"].is_string()) row["tier"] = (*o)["tier"];
    if (e.verdict == "fits") {
      // A cheaper offer that holds it only tight is named beside the answer, so the page can say
      // what room to spare costs here (the cost answer's cheapest_offer.tight_cheaper, per hour).
      if (!tight.is_null())
        row["tight_cheaper"] = {{"id", tight["id"]}, {"provider", tight["provider"]}, {"instance", tight["instance"]},
                                {"device", tight["device"]}, {"name", tight["name"]}, {"gpu_count", tight["gpu_count"]},
                                {"price_hour_usd", tight["price_hour_usd"]}};
      return row;
    }
    tried[key] = true;
    if (tight.is_null()) tight = std::move(row);
  }
  return tight;
}

std::vector<double> ram_tiers(const json& q, double ram_gib) {
  std::vector<double> tiers{0};
  if (q.contains("ram_tiers_gib")) {
    const auto& t = q["ram_tiers_gib"];
    if (!t.is_array() || t.empty())
      throw InputError("bad_type", "ram_tiers_gib", "ram_tiers_gib is a list of system RAM sizes in GiB, e.g. [0, 64, 128]");
    tiers.clear();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::string p = "ram_tiers_gib[" + std::to_string(i) + "]";
      if (!t[i].is_number()) throw InputError("bad_type", p, "a RAM size is a number of GiB");
      const double v = t[i].get<double>();
      if (!(v >= 0 && v <= 1e6)) throw InputError("bad_value", p, "a RAM size is from 0 to 1000000 GiB");
      tiers.push_back(v);
    }
  } else if (ram_gib > 0) {
    tiers.push_back(ram_gib);
  }
  std::sort(tiers.begin(), tiers.end());
  tiers.erase(std::unique(tiers.begin(), tiers.end()), tiers.end());
  return tiers;
}

json pick(const Option& o, const std::string& code, json figures) {
  json j = option_json(o);
  figures["code"] = code;
  j["why"] = figures;
  return j;
}

}  // namespace

json cheapest_json(Solver& s, const json& q) {
  const double min_tps = opt_num(q, "min_decode_tps", "", 0, 1e9).value_or(defaults::kMinDecodeTps);
  const int max_count = static_cast<int>(opt_int(q, "max_count", "", 1, 64).value_or(defaults::kMaxCount));
  const std::vector<double> tiers = ram_tiers(q, s.base().ram_gib);
  std::vector<Option> opts = sweep(s, max_count, tiers, min_tps);
  std::stable_sort(opts.begin(), opts.end(), [](const Option& a, const Option& b) {
    if (a.price != b.price) return a.price < b.price;
    return a.tps > b.tps;
  });
  json list = json::array();
  for (std::size_t i = 0; i < opts.size() && i < 10; ++i) list.push_back(option_json(opts[i]));
  json out = {{"solve", "cheapest"}, {"options", list}, {"found", opts.size()},
              {"min_decode_tps", min_tps}, {"max_count", max_count},
              {"ram_tiers_gib", tiers}, {"context", context_of(s.base())}, {"quant", s.base().quant},
              {"ram_priced", false}, {"count_caps", catalog_count_caps(s.catalog(), max_count)}};
  // The setups a page names for a model no single device holds (the model page's box): the
  // cheapest that holds it all in device memory, then the cheapest that needs system RAM for part
  // of it (offload), each with its code. Chosen here from every option found, not only the ten
  // listed, so a page does not pick them by reading verdicts.
  json setups = json::array();
  auto first = [&](auto&& pred, const char* code) {
    auto it = std::find_if(opts.begin(), opts.end(), pred);
    if (it == opts.end()) return;
    json j = option_json(*it);
    j["code"] = code;
    setups.push_back(j);
  };
  first([](const Option& o) { return runs(o.verdict, false); }, "in_device_memory");
  first([](const Option& o) { return o.verdict == "offload"; }, "with_system_ram");
  out["setups"] = setups;
  json cloud = cheapest_cloud(s, min_tps);
  if (!cloud.is_null()) out["cloud"] = cloud;  // absent when no offer runs it (no null in results)
  out["evaluations"] = s.evaluations();
  return out;
}

// The two kinds of buyer smallest_device keeps apart: a desktop or workstation (consumer and
// workstation cards, Macs, unified-memory machines) and a data centre (data/segments.json
// "datacenter": accelerators for a server node). A device without a segment is a desktop's.
std::string buyer_segment(const Device& d) {
  const bool dc = d.facts.is_object() && d.facts.contains("segment") && d.facts["segment"].is_string() &&
                  d.facts["segment"].get<std::string>() == "datacenter";
  return dc ? "datacenter" : "desktop";
}

json smallest_device_json(Solver& s, const json& q) {
  const EstimateRequest& base = s.base();
  // The request's count is the basis: with several devices the answer is the smallest device of
  // which that many hold it (so its figure compares with the request's whole-setup total), and
  // only graphics cards come several to a machine.
  const int n = std::max(1, base.count);
  // Candidates: the catalog's accelerators (CPU entries left out), least memory first, then the
  // cheapest (an unknown price last), in catalog order otherwise.
  std::vector<const Device*> devs;
  for (const Device& d : s.catalog().devices())
    if (d.kind != DeviceKind::Cpu && (n == 1 || d.kind == DeviceKind::Gpu) && candidate(s.catalog(), d, base)) devs.push_back(&d);
  auto price = [](const Device* d) { return d->price_usd > 0 ? d->price_usd : 1e12; };
  std::stable_sort(devs.begin(), devs.end(), [&](const Device* a, const Device* b) {
    if (a->memory_gib != b->memory_gib) return a->memory_gib < b->memory_gib;
    return price(a) < price(b);
  });
  // What the weights and the KV cache alone need on a discrete GPU (where the token embeddings
  // stay in RAM, so no device needs less): a device with less memory is not estimated.
  double lower = 0;
  auto gpu = std::find_if(devs.begin(), devs.end(), [](const Device* d) { return d->kind == DeviceKind::Gpu; });
  if (gpu != devs.end()) {
    EstimateRequest probe = base;
    set_devices(probe, **gpu, 1);
    probe.ram_gib = 0;
    probe.placement_given = false;
    const Estimate pe = s.run(probe, false);
    lower = static_cast<double>(pe.weights_bytes + pe.kv.total_bytes);
  }
  // The person's segment: that of the device the request names, a desktop's when it names none
  // (a page about a model is read by someone choosing a card for a desktop far more often than
  // a server). The search stays in it first and leaves it only when nothing there runs the request.
  const bool named = q.is_object() && q.contains("hardware") && !q["hardware"].is_null();
  const std::string preferred = named ? buyer_segment(base.device) : "desktop";
  // A device that holds the request but decodes below the floor of "runs" (defaults.hpp
  // kRunsOnMinDecodeTps, as the picks) is no answer to "the smallest device that runs it": a
  // 64 GB Jetson AGX Orin holds Llama 3.1 70B at Q6_K (57 GiB of its 60 usable) at 2.7 tokens/s.
  // The first such device is named in `below_speed_floor`, so the answer can say why it was passed.
  const double floor_tps = defaults::kRunsOnMinDecodeTps;
  json out = {{"solve", "smallest_device"}, {"found", false}, {"context", context_of(base)}, {"quant", base.quant},
              {"count", n}, {"min_decode_tps", floor_tps}};
  // One pass over the devices of one segment (in_segment) or of the others.
  auto scan = [&](bool in_segment) {
    // Devices alike in kind, usable memory and its low end, backend, its overhead and memory
    // bandwidth answer alike: one of them is estimated. The low end counts: a vendor's 80 GB and a
    // driver's 80 GiB have the same usable memory, but only the second has room to spare up to it.
    std::vector<std::string> tried;
    json tight;  // the first device that runs it only tight
    for (const Device* d : devs) {
      if ((buyer_segment(*d) == preferred) != in_segment) continue;
      if (d->memory_gib * units::kGiB * n < lower) continue;
      const UsableMemory um = usable_memory(*d, base.overrides);
      const std::string cls = std::string(device_kind_name(d->kind)) + "|" + std::to_string(um.usable_bytes) + "|" +
                              std::to_string(um.usable_low_bytes) + "|" + d->backend + "|" +
                              std::to_string(backend_overhead_bytes(s.catalog(), *d)) + "|" + std::to_string(d->bandwidth_gbs);
      if (std::find(tried.begin(), tried.end(), cls) != tried.end()) continue;
      tried.push_back(cls);
      EstimateRequest r = base;
      set_devices(r, *d, n);
      r.ram_gib = 0;
      r.placement_given = false;
      const Estimate e = s.run(r, true);
      if (!runs(e.verdict, false)) continue;
      const double tps = finite_or_zero(e.speed.decode_tps);
      const double low = floor_decode_tps(e);
      json dev = {{"id", d->id}, {"name", d->name}, {"kind", device_kind_name(d->kind)}, {"device_type", device_type_json(*d)}, {"count", n},
                  {"memory_gib", d->memory_gib}, {"memory_basis", memory_basis_json(*d)},
                  {"price_usd", finite_or_zero(d->price_usd)}, {"verdict", e.verdict},
                  {"total_bytes", e.total_bytes}, {"usable_bytes", e.usable.usable_bytes}, {"decode_tps", tps},
                  {"decode_tps_low", low}, {"segment", buyer_segment(*d)}};
      // No speed model for the device (speed.unavailable): its memory answer stands, as before.
      // The floor holds on the range's low end: 3.1 tokens/s with a low end of 2.2 is below 3.
      if (tps > 0 && low + 1e-9 < floor_tps) {
        if (!out.contains("below_speed_floor")) out["below_speed_floor"] = dev;
        continue;
      }
      // A comfortable fit is the answer; a device the request only just fits ("tight": no room to
      // spare on the estimate's upper bound, the Required column's own rule) is kept as the answer
      // only when no larger device fits comfortably, and its verdict says so.
      if (e.verdict == "tight") {
        if (!tight.is_object()) tight = dev;
        continue;
      }
      out["found"] = true;
      out["device"] = dev;
      return;
    }
    if (tight.is_object()) {
      out["found"] = true;
      out["device"] = tight;
    }
  };
  scan(true);
  const bool left = !out["found"].get<bool>();
  if (left) scan(false);
  out["segment"] = {{"preferred", preferred}, {"basis", named ? "hardware" : "default"},
                    {"left", left && out["found"].get<bool>()}};
  out["evaluations"] = s.evaluations();
  return out;
}

namespace {
struct Chosen {
  const Option *fastest = nullptr, *value = nullptr, *unified = nullptr;
  double value_per_tps = 0, value_price = 0;
  std::string value_kind;
};

Chosen choose(const std::vector<Option>& opts) {
  Chosen c;
  for (const auto& o : opts) {
    if (o.tps <= 0) continue;
    // Consumer and workstation cards carry a launch price; data-centre parts have none or a
    // street quote only (data/hardware/*.json).
    if (o.d->kind == DeviceKind::Gpu && o.count == 1 && o.d->facts.contains("launch_price_usd") &&
        (!c.fastest || o.tps > c.fastest->tps))
      c.fastest = &o;
    const bool used = o.used_price > 0 && o.used_price < o.price;
    const double price = used ? o.used_price : o.price;
    if (price > 0 && (!c.value || price / o.tps < c.value_per_tps)) {
      c.value = &o;
      c.value_per_tps = price / o.tps;
      c.value_price = price;
      c.value_kind = used ? "used" : o.price_kind;
    }
    if ((o.d->kind == DeviceKind::Apple || o.d->kind == DeviceKind::Unified) &&
        (!c.unified || o.price < c.unified->price || (o.price == c.unified->price && o.tps > c.unified->tps)))
      c.unified = &o;
  }
  return c;
}
}  // namespace

json picks_json(Solver& s, const json& q) {
  const int max_count = defaults::kMaxCount;
  // A pick must decode at the floor of "runs" (defaults.hpp kRunsOnMinDecodeTps): a Mac that holds
  // a 405B model at 2.6 tokens/s is no recommendation. The sweep without the floor says which
  // card only slower setups would fill, so its reason is the speed, not the memory.
  const double floor_tps = defaults::kRunsOnMinDecodeTps;
  const std::vector<Option> opts = sweep(s, max_count, {0}, floor_tps);
  const Chosen ch = choose(opts);
  const Option *fastest = ch.fastest, *value = ch.value, *unified = ch.unified;
  const double value_per_tps = ch.value_per_tps, value_price = ch.value_price;
  const std::string value_kind = ch.value_kind;
  std::vector<Option> slow_opts;
  Chosen slow;
  if (!fastest || !value || !unified) {
    slow_opts = sweep(s, max_count, {0}, 0);
    slow = choose(slow_opts);
  }
  json out = {{"solve", "picks"}, {"context", context_of(s.base())}, {"quant", s.base().quant},
              {"count_caps", catalog_count_caps(s.catalog(), max_count)}};
  // A card that nothing qualifies for is absent (no null in results) and `missing` says why, as a
  // code with the figures behind it: the largest candidate's memory against what the weights need.
  json missing = json::object();
  // The largest candidates are those the engine runs on (engine_runs): the figure that decided.
  // Priced devices the engine does not run on are counted by kind in `engine_left_out`.
  double largest_card = 0, largest_unified = 0;
  std::map<std::string, int> left_out;
  int format_left_out = 0;
  std::string format_code;  // format_applicability's code for the devices left out
  for (const Device& d : s.catalog().devices()) {
    if (d.kind == DeviceKind::Cpu || (d.price_usd <= 0 && d.used_price_usd <= 0 && !d.facts.contains("launch_price_usd"))) continue;
    if (!engine_runs(s.catalog(), d, s.base().engine)) {
      ++left_out[device_kind_name(d.kind)];
      continue;
    }
    if (!candidate(s.catalog(), d, s.base())) {  // the format has no kernel there
      ++format_left_out;
      if (format_code.empty()) format_code = format_applicability(s.catalog(), s.base().model.arch, d, s.base().quant);
      continue;
    }
    if (d.kind == DeviceKind::Gpu && d.facts.contains("launch_price_usd")) largest_card = std::max(largest_card, d.memory_gib);
    if ((d.kind == DeviceKind::Apple || d.kind == DeviceKind::Unified) && (d.price_usd > 0 || d.used_price_usd > 0))
      largest_unified = std::max(largest_unified, d.memory_gib);
  }
  json left = json::array();
  for (const auto& [kind, n] : left_out) left.push_back({{"kind", kind}, {"devices", n}});
  out["engine_left_out"] = {{"engine", s.base().engine}, {"kinds", left}};
  if (format_left_out > 0)
    out["format_left_out"] = {{"quant", s.base().quant}, {"code", format_code}, {"devices", format_left_out}};
  // The weights on ONE device of the base hardware, whatever count the request names: the figure a
  // single card or machine would have to hold. Several GPUs under a server engine hold more in
  // total (each rank keeps its own copy of the replicated tensors), so the main estimate of 8
  // GPUs quotes a larger figure; `weights_devices` says which setup this one is.
  std::uint64_t weights = 0;
  {
    EstimateRequest r = s.base();
    set_devices(r, r.device, 1);
    r.ram_gib = 0;
    const Estimate e = s.run(r, false);
    // The figure the estimate document of that one device quotes (memory.weights_bytes): a server
    // engine's budget holds the checkpoint's weights as the engine loads them (server_common.cpp).
    weights = e.vllm ? e.vllm->weights_bytes * static_cast<std::uint64_t>(std::max(1, e.vllm->tensor_parallel)) : e.weights_bytes;
  }
  // A card only setups below the speed floor would fill: that is its reason, with the figures.
  auto too_slow = [&](const Option* o) {
    return json{{"code", "below_speed_floor"}, {"id", o->d->id}, {"name", o->d->name}, {"count", o->count},
                {"decode_tps", finite_or_zero(o->tps)}, {"decode_tps_low", finite_or_zero(o->tps_low)}, {"min_decode_tps", floor_tps},
                {"weights_bytes", weights}, {"weights_devices", 1}};
  };
  if (fastest) out["best_single_gpu"] = pick(*fastest, "fastest_single_gpu", {{"decode_tps", fastest->tps}});
  else if (slow.fastest) missing["best_single_gpu"] = too_slow(slow.fastest);
  else if (largest_card <= 0 && left_out.count(device_kind_name(DeviceKind::Gpu)))
    // No priced card the engine runs on at all (MLX: Apple silicon only): that is the reason.
    missing["best_single_gpu"] = {{"code", "engine_not_on_gpu"}, {"engine", s.base().engine},
                                  {"weights_bytes", weights}, {"weights_devices", 1}};
  else missing["best_single_gpu"] = {{"code", "no_single_card_fits"}, {"largest_memory_gib", largest_card},
                                     {"weights_bytes", weights}, {"weights_devices", 1}};
  if (!value && slow.value) missing["best_value"] = too_slow(slow.value);
  else if (!value) missing["best_value"] = {{"code", "no_priced_option_runs"}, {"weights_bytes", weights}, {"weights_devices", 1}};
  // No unified machine the engine runs on at all: that is the reason, not their memory.
  if (!unified && slow.unified)
    missing["unified_memory"] = too_slow(slow.unified);
  else if (!unified && largest_unified <= 0)
    missing["unified_memory"] = {{"code", "engine_not_on_unified"}, {"engine", s.base().engine},
                                 {"weights_bytes", weights}, {"weights_devices", 1}};
  else if (!unified) missing["unified_memory"] = {{"code", "no_unified_fits"}, {"largest_memory_gib", largest_unified},
                                             {"weights_bytes", weights}, {"weights_devices", 1}};
  if (value) {
    json v = pick(*value, "lowest_price_per_tps", {{"usd_per_tps", finite_or_zero(value_per_tps)}});
    v["price_usd"] = finite_or_zero(value_price);
    v["price_kind"] = value_kind;
    out["best_value"] = v;
  }
  if (unified) out["unified_memory"] = pick(*unified, "cheapest_unified", {{"memory_gib", unified->d->memory_gib}});
  json cloud = cheapest_cloud(s, floor_tps);
  if (!cloud.is_null()) {
    cloud["price_usd"] = cloud["price_hour_usd"];
    cloud["price_kind"] = "per_hour";
    cloud["count"] = cloud["gpu_count"];
    cloud["why"] = {{"code", "cheapest_cloud_offer"}, {"provider", cloud["provider"]}};
    out["cheapest_cloud"] = cloud;
  } else if (!engine_on_any_cloud(s.catalog(), s.base().engine)) {
    // The engine runs on no rented GPU (MLX: Apple silicon only): the reason, and the nearest
    // answer, the cheapest offer for the same model under llama.cpp at the GGUF type of the same
    // quality rank (engine_fit.hpp cloud_fallback_request), when one runs it at the floor.
    json m = {{"code", "engine_not_on_cloud"}, {"engine", s.base().engine}, {"weights_bytes", weights}, {"weights_devices", 1}};
    const json fb = cloud_fallback_request(s.catalog(), q);
    json fq = fb["request"];
    fq.erase("solve");
    const auto& ds = s.catalog().devices();
    const std::string fe = fb["engine"].get<std::string>();
    auto gpu = std::find_if(ds.begin(), ds.end(), [&](const Device& d) { return d.kind == DeviceKind::Gpu && engine_runs(s.catalog(), d, fe); });
    if (gpu != ds.end()) {
      fq["hardware"] = gpu->id;
      fq.erase("count");
      try {
        Solver other(s.catalog(), parse_request(s.catalog(), fq));
        json alt = cheapest_cloud(other, floor_tps);
        if (!alt.is_null()) {
          alt["engine"] = fe;
          alt["quant"] = other.base().quant;
          m["alternative"] = alt;
        }
      } catch (const InputError&) {
      }
    }
    missing["cheapest_cloud"] = m;
  } else {
    missing["cheapest_cloud"] = {{"code", "no_cloud_offer_runs"}, {"weights_bytes", weights}, {"weights_devices", 1}};
  }
  out["missing"] = missing;
  out["evaluations"] = s.evaluations();
  return out;
}

}  // namespace solve_detail
}  // namespace wif
