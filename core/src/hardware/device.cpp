#include "willitfit/hardware/device.hpp"

#include <cctype>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/base/units.hpp"

namespace wif {
namespace {
using units::kGiB;
}

void add_product_fields(nlohmann::json& out, const Device& d) {
  const nlohmann::json& f = d.facts;
  nlohmann::json names = nlohmann::json::array(), lines = nlohmann::json::array();
  if (f.is_object() && f.contains("products") && f["products"].is_array())
    for (const auto& p : f["products"]) {
      if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) continue;
      names.push_back(p["name"]);
      const nlohmann::json line = p.contains("line") && p["line"].is_string() ? p["line"] : p["name"];
      if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
  out["products"] = names;
  out["product_lines"] = lines;
  out["chip"] = f.is_object() && f.contains("chip") && f["chip"].is_string() ? f["chip"] : nlohmann::json(nullptr);
  // A catalog entry that is one part of a product ("NVIDIA GB200", one of its Blackwell GPUs):
  // the code the page words beside the name, which stays the product's own.
  if (f.is_object() && f.contains("name_scope") && f["name_scope"].is_string()) out["name_scope"] = f["name_scope"];
  // The name without the memory size the vendor's name states ("NVIDIA H20" for "NVIDIA H20
  // 141GB"): a table whose memory column gives the size in GiB names the device by it, so no
  // vendor GB figure stands beside a GiB one.
  if (f.is_object() && f.contains("name_base") && f["name_base"].is_string()) out["name_base"] = f["name_base"];
  // The memory as the vendor sells it, where that figure is not the GiB the device holds (NVIDIA's
  // "180 GB" B200 holds 183359 MiB, 179.06 GiB): names say this figure, every memory figure says
  // memory_gib. Absent, the two are one number.
  if (f.is_object() && f.contains("memory_sold_gb") && f["memory_sold_gb"].is_number()) out["memory_sold_gb"] = f["memory_sold_gb"];
  // What the vendor calls a discrete device (gpu, npu, accelerator): the page's word for it and
  // for its memory; an Apple, unified-memory or CPU entry is named by its kind.
  out["device_type"] = device_type_json(d);
  // What the memory figure stands on: a vendor's own figure comes with its low end.
  out["memory_basis"] = memory_basis_json(d);
  for (const char* k : {"gpu_cores", "cpu_cores"})
    out[k] = f.is_object() && f.contains(k) && f[k].is_number_integer() ? f[k] : nlohmann::json(nullptr);
}

nlohmann::json memory_basis_json(const Device& d) {
  nlohmann::json j = {{"code", d.memory_basis}};
  if (d.memory_basis == "vendor_figure")
    j["values"] = {{"low_gib", d.memory_gib * kVendorFigureLowShare}, {"less_share", 1.0 - kVendorFigureLowShare}};
  return j;
}

nlohmann::json device_type_json(const Device& d) {
  if (d.kind != DeviceKind::Gpu) return device_kind_name(d.kind);
  const nlohmann::json& f = d.facts;
  if (f.is_object() && f.contains("device_type") && f["device_type"].is_string()) return f["device_type"];
  return "gpu";
}

const char* device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::Gpu: return "gpu";
    case DeviceKind::Apple: return "apple";
    case DeviceKind::Unified: return "unified";
    case DeviceKind::Cpu: return "cpu";
  }
  return "gpu";
}

namespace {

// What a model may use of `phys` bytes on `d`, by the device kind's rule; the rule's code and
// numbers go into `u` when it is given.
double usable_of(const Device& d, const MemoryOverrides& o, double phys, UsableMemory* u) {
  double usable = phys;
  std::string code;
  nlohmann::json params;
  switch (d.kind) {
    case DeviceKind::Gpu: {
      // The driver reserves part of VRAM before any process runs: nvidia-smi shows 24564 MiB on
      // a "24 GB" RTX 4090 and ~23.6 GiB free on an idle headless card. A desktop takes more.
      const double reserve = 0.35 * kGiB + (o.display_attached ? 0.5 * kGiB : 0.0);
      usable = std::max(0.0, phys - reserve);
      code = o.display_attached ? "gpu_driver_reserve_display" : "gpu_driver_reserve";
      params = {{"reserve_gib", reserve / kGiB}};
      break;
    }
    case DeviceKind::Apple: {
      // Metal's recommendedMaxWorkingSetSize (developer.apple.com/documentation/metal/mtldevice/
      // recommendedmaxworkingsetsize; llama.cpp reports it as the device total in
      // ggml/src/ggml-metal/ggml-metal-device.m): about 2/3 of RAM up to 36 GB, about 3/4 above
      // (logged in llama.cpp PR #2011 and issue #1870); the iogpu.wired_limit_mb sysctl overrides it.
      if (o.wired_limit_mib && *o.wired_limit_mib > 0) {
        usable = std::min(phys, *o.wired_limit_mib * 1024.0 * 1024.0);
        code = "metal_wired_limit";
        params = {{"wired_limit_mib", *o.wired_limit_mib}};
      } else if (d.memory_gib <= 36.0) {
        usable = phys * 2.0 / 3.0;
        code = "metal_working_set_small";
        params = {{"fraction", 2.0 / 3.0}, {"threshold_gb", 36}};
      } else {
        usable = phys * 0.75;
        code = "metal_working_set_large";
        params = {{"fraction", 0.75}, {"threshold_gb", 36}};
      }
      break;
    }
    case DeviceKind::Unified: {
      double share = o.gpu_share.value_or(d.gpu_share_max > 0 ? d.gpu_share_max
                                          : d.gpu_share_default > 0 ? d.gpu_share_default : 0.75);
      share = std::clamp(share, 0.05, 1.0);
      usable = std::min(phys * share, std::max(0.0, phys - 4.0 * kGiB));
      code = "unified_gpu_share";
      params = {{"gpu_share", share}, {"os_reserve_gib", 4}};
      break;
    }
    case DeviceKind::Cpu: {
      usable = std::max(0.0, phys - std::max(2.0 * kGiB, phys * 0.1));
      code = "cpu_os_reserve";
      params = {{"os_fraction", 0.1}, {"os_reserve_min_gib", 2}};
      break;
    }
  }
  if (u) {
    u->rule_code = std::move(code);
    u->rule_params = std::move(params);
  }
  return usable;
}

}  // namespace

UsableMemory usable_memory(const Device& d, const MemoryOverrides& o) {
  UsableMemory u;
  const double phys = d.memory_gib * kGiB;
  u.physical_bytes = static_cast<std::uint64_t>(phys);
  u.usable_bytes = static_cast<std::uint64_t>(usable_of(d, o, phys, &u));
  u.physical_low_bytes = u.physical_bytes;
  u.usable_low_bytes = u.usable_bytes;
  // A vendor's own figure may be decimal GB the driver shows as GiB: the same rule on that size.
  if (d.memory_basis == "vendor_figure") {
    const double low = phys * kVendorFigureLowShare;
    u.physical_low_bytes = static_cast<std::uint64_t>(low);
    u.usable_low_bytes = std::min(u.usable_bytes, static_cast<std::uint64_t>(usable_of(d, o, low, nullptr)));
  }
  return u;
}

namespace {

// A card below compute capability 7.0 has no tensor cores, so its matrix rates are the shader
// rates, which the speed model reads (speed.cpp device_rates). The three ways to get them wrong are
// refused here, with the field's path: no FP32 rate; the FP32 rate entered as fp16_tflops on a
// compute capability 6.1 part, whose FP16 runs at 2 results per SM per clock against 128 for FP32
// (NVIDIA CUDA C++ Programming Guide, arithmetic instruction throughput table); an INT8 rate that is
// not the dp4a rate (4 byte products per FP32 lane from 6.1 on, none before: llama.cpp
// ggml/src/ggml-cuda/common.cuh GGML_CUDA_CC_DP4A = 610).
void check_compute_capability(const Device& d, const nlohmann::json& j, const std::string& path) {
  const double cc = d.cuda_compute_capability;
  if (cc <= 0) return;
  if (text::lower(d.vendor) != "nvidia")
    throw InputError("bad_value", join_path(path, "cuda_compute_capability"),
                     "'cuda_compute_capability' is NVIDIA's; this device's vendor is '" + d.vendor + "'");
  // Blackwell Ultra (compute capability 10.3, B300) cut its INT8 tensor rate (NVIDIA's HGX B300
  // figures against B200's), so the rule below does not hold there: its INT8 rate is stated only
  // from a source of its own.
  const bool blackwell_ultra = std::fabs(cc - 10.3) < 1e-9;
  if (cc >= 7.5 && !blackwell_ultra && d.fp16_tflops > 0) {
    // From Turing (7.5) on, tensor cores multiply INT8 at twice their dense FP16 rate (NVIDIA's
    // Turing, Ampere, Ada, Hopper and Blackwell whitepapers): where the FP16 tensor rate is
    // stated, a missing INT8 figure, or one that is a sparse or an FP16 figure copied over, is
    // refused.
    if (!j.contains("int8_tops"))
      throw InputError("missing_field", join_path(path, "int8_tops"),
                       "a tensor-core GPU from compute capability 7.5 on multiplies INT8 on its tensor cores: give its dense INT8 rate");
    if (d.fp16_tflops > 0 && std::fabs(d.int8_tops / (2.0 * d.fp16_tflops) - 1.0) > 0.05)
      throw InputError("bad_value", join_path(path, "int8_tops"),
                       "the dense INT8 tensor rate is twice the dense FP16 tensor rate (within 5 %)");
  }
  if (cc >= 7.0) return;
  if (d.fp32_tflops <= 0)
    throw InputError("missing_field", join_path(path, "fp32_tflops"),
                     "a GPU below compute capability 7.0 has no tensor cores: give its FP32 rate in fp32_tflops");
  if (std::fabs(cc - 6.1) < 1e-9 && d.fp16_tflops > d.fp32_tflops / 32.0)
    throw InputError("bad_value", join_path(path, "fp16_tflops"),
                     "compute capability 6.1 runs FP16 at 1/64 of FP32: fp16_tflops is that rate, not the FP32 one");
  const bool has_int8 = j.contains("int8_tops");
  if (cc < 6.1 && has_int8)
    throw InputError("bad_value", join_path(path, "int8_tops"),
                     "below compute capability 6.1 there is no dp4a: leave int8_tops out");
  if (cc >= 6.1 && !has_int8)
    throw InputError("missing_field", join_path(path, "int8_tops"),
                     "compute capability 6.1 and later multiply quantized weights with dp4a: give its INT8 rate");
  if (cc >= 6.1 && std::fabs(d.int8_tops / (4.0 * d.fp32_tflops) - 1.0) > 0.05)
    throw InputError("bad_value", join_path(path, "int8_tops"),
                     "the dp4a INT8 rate is 4x the FP32 rate (within 5 %)");
}

// A host-side fact's own source and the day it was read: an https URL and YYYY-MM-DD.
void require_source(const nlohmann::json& o, const std::string& path) {
  if (req_str(o, "source", path).rfind("https://", 0) != 0)
    throw InputError("bad_value", join_path(path, "source"), "source must be an https URL");
  const std::string c = req_str(o, "checked", path);
  const bool date = c.size() == 10 && c[4] == '-' && c[7] == '-' &&
                    std::all_of(c.begin(), c.end(), [](char ch) { return ch == '-' || std::isdigit(static_cast<unsigned char>(ch)); });
  if (!date) throw InputError("bad_value", join_path(path, "checked"), "checked must be a date YYYY-MM-DD");
}

// `host_link` and `host_memory` (data/SCHEMA.md): a superchip's link from the GPU to its CPU's
// memory and that memory, each with its source. A wrong kind, a rate out of range or a missing
// source is refused at the field's path.
void read_host_side(const nlohmann::json& j, const std::string& path, Device& d) {
  if (j.contains("host_link")) {
    const auto& l = j["host_link"];
    const std::string lp = join_path(path, "host_link");
    if (!l.is_object()) throw InputError("bad_type", lp, "host_link is {\"kind\", \"gb_per_s\", \"source\", \"checked\"}");
    const std::string kind = req_str(l, "kind", lp);
    // PCIe is what interconnect.pcie_gen / pcie_lanes state; NVLink-C2C is the one other host
    // link a device in the catalog has (Grace Hopper).
    if (kind != "nvlink-c2c")
      throw InputError("bad_value", join_path(lp, "kind"), "host_link kind must be nvlink-c2c (PCIe is interconnect.pcie_gen), not '" + kind + "'");
    d.host_link_kind = kind;
    d.host_link_gbs = req_num(l, "gb_per_s", lp, 1, 10000);
    require_source(l, lp);
  }
  if (j.contains("host_memory")) {
    const auto& m = j["host_memory"];
    const std::string mp = join_path(path, "host_memory");
    if (!m.is_object()) throw InputError("bad_type", mp, "host_memory is {\"type\", \"gb\", \"bandwidth_gbs\", \"source\", \"checked\"}");
    d.host_memory_type = req_str(m, "type", mp);
    const bool name = !d.host_memory_type.empty() && d.host_memory_type.size() <= 16 &&
                      std::all_of(d.host_memory_type.begin(), d.host_memory_type.end(), [](char ch) {
                        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-';
                      });
    if (!name) throw InputError("bad_value", join_path(mp, "type"), "host_memory type is a short memory name such as LPDDR5X");
    d.host_memory_gb = req_num(m, "gb", mp, 1, 1e6);
    d.host_memory_gbs = req_num(m, "bandwidth_gbs", mp, 1, 100000);
    require_source(m, mp);
  }
}

}  // namespace

Device device_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) throw InputError("bad_type", path, "a device must be a JSON object");
  Device d;
  d.id = opt_str(j, "id", path).value_or("custom");
  d.name = req_str(j, "name", path);
  if (const auto base = opt_str(j, "name_base", path); base && (base->empty() || base->size() >= d.name.size()))
    throw InputError("bad_value", join_path(path, "name_base"), "'name_base' must be the name shortened by the memory size it states");
  d.vendor = opt_str(j, "vendor", path).value_or("");
  const std::string kind = req_str(j, "kind", path);
  if (kind == "gpu") d.kind = DeviceKind::Gpu;
  else if (kind == "apple") d.kind = DeviceKind::Apple;
  else if (kind == "unified") d.kind = DeviceKind::Unified;
  else if (kind == "cpu") d.kind = DeviceKind::Cpu;
  else throw InputError("bad_value", join_path(path, "kind"),
                        "kind must be gpu, apple, unified or cpu, not '" + kind + "'");
  // A CPU's memory is whatever RAM the machine has: catalog CPUs may omit it (64 GiB assumed,
  // and a request's ram_gib replaces it).
  if (d.kind == DeviceKind::Cpu && !j.contains("memory_gib")) {
    d.memory_gib = 64;
    d.memory_assumed = true;
  } else {
    d.memory_gib = req_num(j, "memory_gib", path, 0.001, 1e7);
  }
  // The sold size, only where it differs from the GiB figure (a same figure is one number, stated once).
  if (const auto sold = opt_num(j, "memory_sold_gb", path, 0.001, 1e7)) {
    if (std::fabs(*sold - d.memory_gib) < 0.005)
      throw InputError("bad_value", join_path(path, "memory_sold_gb"),
                       "'memory_sold_gb' is for a sold size that differs from memory_gib; leave it out when they agree");
  }
  // The driver's total (nvidia-smi's MiB) is what every memory figure uses where the entry states
  // it: memory_gib must be it / 1024 (to the hundredth), and the page that shows it must be named.
  // The vendor's round figure typed into memory_gib beside it is refused.
  if (const auto mib = opt_num(j, "memory_reported_mib", path, 1.0, 1e9)) {
    const auto src = opt_str(j, "memory_reported_source", path);
    if (!src || src->rfind("http", 0) != 0)
      throw InputError("missing_field", join_path(path, "memory_reported_source"),
                       "a driver-reported memory total needs the public page that shows it");
    if (std::fabs(*mib / 1024.0 - d.memory_gib) > 0.006)
      throw InputError("bad_value", join_path(path, "memory_gib"),
                       "memory_gib must be memory_reported_mib / 1024 (" + std::to_string(*mib / 1024.0) + " GiB)");
  }
  // memory_basis says why memory_gib is not a driver total: `vendor_figure`, the vendor's own number
  // because no public page shows the driver's. Beside a driver total it would contradict it.
  if (j.contains("memory_basis")) {
    const std::string bp = join_path(path, "memory_basis");
    const auto& b = j["memory_basis"];
    if (!b.is_string()) throw InputError("bad_type", bp, "'memory_basis' must be a string: vendor_figure");
    if (b.get_ref<const std::string&>() != "vendor_figure")
      throw InputError("bad_value", bp, "memory_basis must be vendor_figure");
    if (j.contains("memory_reported_mib"))
      throw InputError("bad_value", bp, "memory_basis is for an entry without a driver-reported total; this one states memory_reported_mib");
    d.memory_basis = "vendor_figure";
  }
  if (j.contains("memory_reported_mib")) d.memory_basis = "driver_reported";
  d.bandwidth_gbs = req_num(j, "bandwidth_gbs", path, 0.001, 1e7);
  d.fp16_tflops = opt_num(j, "fp16_tflops", path, 0.0, 1e7).value_or(0.0);
  d.bf16_tflops = opt_num(j, "bf16_tflops", path, 0.0, 1e7).value_or(0.0);
  d.fp32_tflops = opt_num(j, "fp32_tflops", path, 0.0, 1e7).value_or(0.0);
  d.int8_tops = opt_num(j, "int8_tops", path, 0.0, 1e8).value_or(0.0);
  d.cuda_compute_capability = opt_num(j, "cuda_compute_capability", path, 1.0, 20.0).value_or(0.0);
  check_compute_capability(d, j, path);
  // amd_gfx_target (optional, AMD only): the LLVM processor name ("gfx1201"), which decides what
  // the ROCm engines run there (format_applicability in estimate.cpp).
  if (j.contains("amd_gfx_target")) {
    const auto& g = j["amd_gfx_target"];
    const std::string gp = join_path(path, "amd_gfx_target");
    if (!g.is_string()) throw InputError("bad_type", gp, "'amd_gfx_target' must be a string such as \"gfx1201\"");
    const std::string& v = g.get_ref<const std::string&>();
    bool ok = v.size() >= 6 && v.size() <= 8 && v.rfind("gfx", 0) == 0;
    for (std::size_t i = 3; ok && i < v.size(); ++i) ok = std::isdigit(static_cast<unsigned char>(v[i])) || (v[i] >= 'a' && v[i] <= 'f');
    if (!ok) throw InputError("bad_value", gp, "'amd_gfx_target' must be an LLVM AMDGPU processor name such as \"gfx1201\"");
    if (text::lower(d.vendor) != "amd")
      throw InputError("bad_value", gp, "'amd_gfx_target' is AMD's; this device's vendor is '" + d.vendor + "'");
  }
  // device_type (optional, kind gpu only): what the vendor calls the device where it is not a GPU
  // (Huawei's Ascend "NPU", Intel's Gaudi "AI accelerator"), so the page does not name it one;
  // absent, a gpu-kind device is a GPU. Its source and checked day are catalog facts (catalog.cpp).
  if (j.contains("device_type")) {
    const auto& t = j["device_type"];
    const std::string tp = join_path(path, "device_type");
    if (!t.is_string()) throw InputError("bad_type", tp, "'device_type' must be a string: gpu, npu or accelerator");
    const std::string& v = t.get_ref<const std::string&>();
    if (v != "gpu" && v != "npu" && v != "accelerator")
      throw InputError("bad_value", tp, "device_type must be gpu, npu or accelerator, not '" + v + "'");
    if (d.kind != DeviceKind::Gpu)
      throw InputError("bad_value", tp, "device_type is for a device of kind gpu (a discrete accelerator)");
  }
  d.tdp_w = opt_num(j, "tdp_w", path, 0.0, 1e6).value_or(0.0);
  d.gpu_share_default = opt_num(j, "gpu_share_default", path, 0.0, 1.0).value_or(0.0);
  d.gpu_share_max = opt_num(j, "gpu_share_max", path, 0.0, 1.0).value_or(0.0);
  if (j.contains("backends") && j["backends"].is_array())
    for (std::size_t i = 0; i < j["backends"].size(); ++i) {
      const auto& b = j["backends"][i];
      if (!b.is_string())
        throw InputError("bad_type", join_path(path, "backends") + "[" + std::to_string(i) + "]",
                         "a backend name must be a string");
      d.backends.push_back(b.get<std::string>());
    }
  d.backend = opt_str(j, "backend", path).value_or(d.backends.empty() ? "" : d.backends.front());
  if (d.backend.empty())
    d.backend = d.kind == DeviceKind::Apple ? "metal" : d.kind == DeviceKind::Cpu ? "cpu" : "vulkan";
  if (d.backends.empty()) d.backends.push_back(d.backend);
  d.overhead_backend = opt_str(j, "overhead_backend", path).value_or(d.backend);
  if (j.contains("interconnect") && j["interconnect"].is_object()) {
    d.pcie_gen = static_cast<int>(opt_int(j["interconnect"], "pcie_gen", join_path(path, "interconnect"), 0, 10).value_or(0));
    d.pcie_lanes = static_cast<int>(opt_int(j["interconnect"], "pcie_lanes", join_path(path, "interconnect"), 0, 32).value_or(0));
  }
  read_host_side(j, path, d);
  auto price = [&](const char* key) -> double {
    if (j.contains(key) && j[key].is_object())
      return opt_num(j[key], "usd", join_path(path, key), 0.0, 1e9).value_or(0.0);
    return 0.0;
  };
  d.price_usd = price("street_price");
  if (d.price_usd == 0) d.price_usd = opt_num(j, "launch_price_usd", path, 0.0, 1e9).value_or(0.0);
  d.used_price_usd = price("used_price");
  d.facts = j;
  return d;
}

nlohmann::json option_price(const nlohmann::json& chip, double gib, const std::string& path) {
  if (!chip.contains("option_prices_usd")) return nullptr;
  const auto& m = chip["option_prices_usd"];
  const std::string mp = join_path(path, "option_prices_usd");
  if (!m.is_object()) throw InputError("bad_type", mp, "expected {\"<GiB>\": {\"usd\", \"source\", \"date\"}}");
  nlohmann::json found = nullptr;
  for (const auto& [key, v] : m.items()) {
    const std::string kp = join_path(mp, key);
    bool listed = false;
    for (const auto& o : chip.value("memory_options_gib", nlohmann::json::array()))
      if (o.is_number() && std::to_string(o.get<long long>()) == key) listed = true;
    if (!listed) throw InputError("bad_value", kp, "'" + key + "' is not one of memory_options_gib");
    if (!v.is_object()) throw InputError("bad_type", kp, "expected {\"usd\", \"source\", \"date\"}");
    req_num(v, "usd", kp, 1, 1e7);
    req_str(v, "source", kp);
    req_str(v, "date", kp);
    if (key == std::to_string(static_cast<long long>(gib))) found = v;
  }
  return found;
}

}  // namespace wif
