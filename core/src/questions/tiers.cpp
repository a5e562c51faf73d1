#include "willitfit/questions/tiers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/speed/multi_device_speed.hpp"

namespace wif {
namespace {

using nlohmann::json;


bool runs_on_device(const Estimate& e) { return e.verdict == "fits" || e.verdict == "tight"; }

struct Entry {
  json doc;
  int rank = 0;          // 0 fits, 1 offload, 2 no_fit, 3 no_engine
  bool room = false;     // rank 0 with verdict fits: room to spare on the usable memory's low end
  double speed = 0;      // decode tokens/s (sort key)
  double memory = 0;     // device memory GiB (sort key for no_fit)
};

// memory_basis: what memory_gib stands on (a vendor's figure comes with its low end), so a list
// that shows the size can say it is the vendor's, as the estimate's hardware does.
json device_json(const Device& d, const std::vector<std::string>& engines) {
  return {{"id", d.id}, {"name", d.name}, {"kind", device_kind_name(d.kind)}, {"device_type", device_type_json(d)}, {"memory_gib", d.memory_gib},
          {"memory_basis", memory_basis_json(d)}, {"bandwidth_gbs", d.bandwidth_gbs}, {"price_usd", d.price_usd}, {"engines", engines}};
}

bool llamacpp_runs(const std::vector<std::string>& engines) {
  return std::find(engines.begin(), engines.end(), "llama.cpp") != engines.end();
}

// `n_mtp`: the file's NextN blocks, which the -ngl it reports counts (llamacpp/placement.hpp).
Entry make_entry(const Catalog& cat, const Device& d, const Estimate* e, const std::string& tier, double ram,
                 const json& request, int n_mtp = 0) {
  Entry out;
  out.rank = tier == "fits" ? 0 : tier == "offload" ? 1 : tier == "no_fit" ? 2 : 3;
  out.memory = d.memory_gib;
  json j = {{"device", device_json(d, cat.device_engines(d))}, {"tier", tier}, {"ram_gib", ram}, {"request", request}};
  if (e) {
    j["verdict"] = e->verdict;
    out.room = out.rank == 0 && e->verdict == "fits";
    j["memory"] = {{"total_bytes", e->total_bytes}, {"usable_bytes", e->usable.usable_bytes},
                   {"usable_low_bytes", e->usable.usable_low_bytes},
                   {"host_ram_bytes", e->placement.unified ? 0 : e->placement.ram_no_mmap_bytes},
                   // The parts of total_bytes, so a page can say which of them differ between
                   // devices (the backend's compute buffers and runtime overhead; the token
                   // embedding llama.cpp keeps in RAM on a discrete GPU but not on unified memory).
                   {"weights_bytes", e->weights_bytes}, {"host_weights_bytes", e->host_weights_bytes},
                   {"kv_cache_bytes", e->kv.total_bytes + e->spec_kv_bytes}, {"compute_bytes", e->compute.total_bytes},
                   {"overhead_bytes", e->overhead_bytes}};
    if (tier != "no_fit" && e->speed.decode_tps > 0 && std::isfinite(e->speed.decode_tps)) {
      out.speed = e->speed.decode_tps;
      j["speed"] = {{"decode_tps", finite_or_zero(e->speed.decode_tps)}, {"decode_tps_low", finite_or_zero(e->speed.decode_tps_low)},
                    {"decode_tps_high", finite_or_zero(e->speed.decode_tps_high)}};
    }
    if (d.kind == DeviceKind::Gpu)
      j["placement"] = {{"ngl", ngl_flag(e->placement.ngl, n_mtp)}, {"n_cpu_moe", e->placement.n_cpu_moe},
                        {"n_layer", e->placement.n_layer}};
  } else {
    j["verdict"] = "no_fit";
  }
  out.doc = std::move(j);
  return out;
}

json sorted(std::vector<Entry> v) {
  std::stable_sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.rank < 2) return a.speed > b.speed;
    if (a.rank == 3) return false;
    return a.memory > b.memory;
  });
  json out = json::array();
  for (auto& e : v) out.push_back(std::move(e.doc));
  return out;
}

// The device with the least memory that runs the model on its own (tier "fits"), the cheaper
// of two with the same memory (a device without a price after one with a price); null if none.
// The model page's FAQ names it ("the smallest Mac that runs it"). As the smallest_device solver
// answers (solve_hardware.cpp), a device that holds it with room to spare (verdict fits, judged
// on the low end of a vendor's memory figure) comes first; one that holds it only tight is the
// answer only where none has room: an 80 GB A100 whose driver may report 74.5 GiB is not named
// over a larger card that holds the model comfortably.
json smallest_fit(const std::vector<Entry>& v) {
  auto price = [](const Entry& e) {
    double p = e.doc["device"]["price_usd"].get<double>();
    return p > 0 ? p : std::numeric_limits<double>::infinity();
  };
  auto pick = [&](bool room) {
    const Entry* best = nullptr;
    for (const auto& e : v) {
      if (e.rank != 0 || (room && !e.room)) continue;
      if (!best || e.memory < best->memory || (e.memory == best->memory && price(e) < price(*best))) best = &e;
    }
    return best;
  };
  const Entry* best = pick(true);
  if (!best) best = pick(false);
  return best ? json(best->doc["device"]["id"]) : json(nullptr);
}

json counts(const json& list) {
  json c = {{"fits", 0}, {"offload", 0}, {"no_fit", 0}, {"no_engine", 0}};
  for (const auto& e : list) c[e["tier"].get<std::string>()] = c[e["tier"].get<std::string>()].get<int>() + 1;
  return c;
}

}  // namespace

json tier_lists(const Catalog& cat, const json& q) {
  if (!q.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  for (const char* k : {"hardware", "count", "ram_gib"})
    if (q.contains(k))
      throw InputError("bad_value", k, std::string("tier lists choose ") + k + " themselves; leave it out");
  if (q.contains("engine") && q["engine"] != "llama.cpp")
    throw InputError("bad_value", "engine", "tier lists use llama.cpp's placement; leave engine out or set llama.cpp");

  const Device* probe = nullptr;
  for (const auto& d : cat.devices())
    if (d.kind == DeviceKind::Gpu) { probe = &d; break; }
  if (!probe) throw InputError("internal_error", "hardware", "the catalog holds no GPU");
  json base_q = q;
  base_q["hardware"] = probe->id;
  EstimateRequest r = parse_request(cat, base_q);
  // The tensor plan depends on the model and quant only: make it once for every device.
  r.model.plan = model_plan(cat, r.model, r.quant, r.qopt);
  const int n_mtp = nextn_blocks(r.model.arch);

  // One estimate per (device, RAM): the same request api_estimate would parse.
  auto ask = [&](const Device& d, double ram, json& request) {
    request = q;
    request["hardware"] = d.id;
    request["count"] = 1;
    request["ram_gib"] = ram;
    r.device = d;
    r.devices.assign(1, d);
    r.count = 1;
    r.ram_gib = ram;
    device_ram_bandwidth(r.host_link, d, defaults::kRamBandwidthGbs);  // a Grace CPU's LPDDR5X
    return run_estimate(cat, r);
  };

  std::vector<Entry> gpus, macs, unified;
  for (const auto& d : cat.devices()) {
    if (d.kind == DeviceKind::Cpu) continue;
    json request;
    if (!llamacpp_runs(cat.device_engines(d))) {
      // llama.cpp has no backend for this device (backends.json engines): no estimate at all.
      (d.kind == DeviceKind::Gpu ? gpus : d.kind == DeviceKind::Apple ? macs : unified)
          .push_back(make_entry(cat, d, nullptr, "no_engine", 0, request));
      continue;
    }
    try {
      Estimate alone = ask(d, 0, request);
      if (runs_on_device(alone)) {
        (d.kind == DeviceKind::Gpu ? gpus : d.kind == DeviceKind::Apple ? macs : unified)
            .push_back(make_entry(cat, d, &alone, "fits", 0, request, n_mtp));
        continue;
      }
      if (d.kind != DeviceKind::Gpu) {
        (d.kind == DeviceKind::Apple ? macs : unified).push_back(make_entry(cat, d, &alone, "no_fit", 0, request, n_mtp));
        continue;
      }
      // Ask with the most RAM first: its plan says how much host RAM the CPU part takes (the GPU
      // part does not depend on the RAM), so the smallest tier that holds it is asked next, and
      // larger ones only if that answer disagrees. At most three estimates per GPU, not four.
      json req_max;
      Estimate most = ask(d, kTierRamGib[2], req_max);
      if (most.verdict != "offload") {
        gpus.push_back(make_entry(cat, d, &most, "no_fit", kTierRamGib[2], req_max, n_mtp));
        continue;
      }
      std::size_t first = 2;
      for (std::size_t i = 0; i < 2 && first == 2; ++i)
        if (host_ram_usable(kTierRamGib[i]) >= most.placement.ram_no_mmap_bytes) first = i;
      bool placed = false;
      for (std::size_t i = first; i < 2 && !placed; ++i) {
        json req_i;
        Estimate e = ask(d, kTierRamGib[i], req_i);
        if (e.verdict == "offload") {
          gpus.push_back(make_entry(cat, d, &e, "offload", kTierRamGib[i], req_i, n_mtp));
          placed = true;
        }
      }
      if (!placed) gpus.push_back(make_entry(cat, d, &most, "offload", kTierRamGib[2], req_max, n_mtp));
    } catch (const InputError&) {
      // A device the model cannot be estimated on (e.g. no bandwidth stated) does not run it.
      (d.kind == DeviceKind::Gpu ? gpus : d.kind == DeviceKind::Apple ? macs : unified)
          .push_back(make_entry(cat, d, nullptr, "no_fit", 0, request));
    }
  }

  json smallest = {{"gpus", smallest_fit(gpus)}, {"macs", smallest_fit(macs)}, {"unified", smallest_fit(unified)}};
  json out = {{"model", {{"id", r.model.id}, {"name", r.model.name}}},
              {"quant", r.model.plan->quant},
              {"context", r.kv.n_ctx},
              {"ram_tiers_gib", {kTierRamGib[0], kTierRamGib[1], kTierRamGib[2]}},
              {"gpus", sorted(std::move(gpus))},
              {"macs", sorted(std::move(macs))},
              {"unified", sorted(std::move(unified))}};
  out["smallest_fit"] = std::move(smallest);
  // A format that is no real choice for this model (MXFP4_MOE on a dense model: estimate.hpp
  // format_applicability) says so beside the lists.
  if (const std::string fa = format_applicability(cat, r.model.arch, *probe, r.model.plan->quant); fa == "moe_only_format")
    out["quant_applicability"] = {{"code", fa}};
  out["counts"] = {{"gpus", counts(out["gpus"])}, {"macs", counts(out["macs"])}, {"unified", counts(out["unified"])}};
  return out;
}

}  // namespace wif
