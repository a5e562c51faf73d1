// Helpers shared by the core tests: reading fixture files (tests may do I/O; the core may not).
#pragma once
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/ggml_types.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif_test {

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline nlohmann::json golden_config(const std::string& name) {
  return nlohmann::json::parse(read_text(std::string(WIF_SOURCE_DIR) + "/tests/golden/configs/" + name + ".json"));
}

inline wif::Architecture golden_arch(const std::string& name) {
  return wif::architecture_from_hf_config(golden_config(name), "config");
}

inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(read_text(path));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

/// The shipped catalog, loaded once for the whole test binary. Kept to the end of the process
/// rather than destroyed at exit: each CTest case is its own process, and freeing every parsed
/// document there cost about a seventh of a case's catalog load (a pointer in a static keeps it
/// reachable, so LeakSanitizer does not count it).
inline const wif::Catalog& catalog() {
  static const wif::Catalog* c = new wif::Catalog(wif::Catalog::load(wif::embedded_catalog()));
  return *c;
}

/// The shipped catalog's files with only the devices `keep` names, each entry as shipped and then
/// changed by its function (none: as shipped). Offers and measurements that name other devices
/// stay in their files (every caller passes over a device the catalog does not hold), so a test
/// can set two devices side by side and change one fact of one of them. `offer`, when given,
/// keeps only the cloud offers it accepts.
inline wif::Catalog catalog_of(const std::map<std::string, std::function<void(nlohmann::json&)>>& keep,
                               const std::function<bool(const nlohmann::json&)>& offer = nullptr) {
  std::vector<wif::CatalogFile> files = wif::embedded_catalog();
  for (auto& f : files) {
    if (f.path == "clouds.json" && offer) {
      nlohmann::json doc = nlohmann::json::parse(f.text);
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& o : doc["offers"])
        if (offer(o)) kept.push_back(o);
      doc["offers"] = kept;
      f.text = doc.dump();
      continue;
    }
    if (f.path.rfind("hardware/", 0) != 0) continue;
    nlohmann::json doc = nlohmann::json::parse(f.text);
    nlohmann::json kept = nlohmann::json::array();
    for (auto& d : doc["devices"]) {
      const auto it = keep.find(d.value("id", ""));
      if (it == keep.end()) continue;
      if (it->second) it->second(d);
      kept.push_back(d);
    }
    doc["devices"] = kept;
    f.text = doc.dump();
  }
  return wif::Catalog::load(files);
}

/// A catalog entry's memory stated as its driver's total of the same size (memory_reported_mib,
/// memory_basis driver_reported) instead of the vendor's figure: the one fact a test changes to
/// see what the vendor figure's low end does.
inline void as_driver_total(nlohmann::json& d) {
  d.erase("memory_basis");
  d["memory_reported_mib"] = d["memory_gib"].get<double>() * 1024.0;
  d["memory_reported_source"] = "https://example.org/the-same-size-as-a-driver-total";
}

/// A catalog entry's memory stated as the vendor's figure (memory_basis vendor_figure, no driver
/// total): the rule's case, kept for a device whose shipped entry has since gained its driver's
/// total, so the tests of the rule do not depend on which devices the catalog has settled.
inline void as_vendor_figure(nlohmann::json& d) {
  d.erase("memory_reported_mib");
  d.erase("memory_reported_source");
  d.erase("memory_sold_differs");
  d["memory_basis"] = "vendor_figure";
}

/// The first context, from 4K in steps of 4K up to 128K, at which `base` (model, quant …) on the
/// device `id` alone is tight in `vendor` (its vendor's memory figure, judged on the low end) and
/// fits in `driver` (the same size as a driver's total); 0 when there is none.
inline std::int64_t tight_on_vendor_figure(const wif::Catalog& vendor, const wif::Catalog& driver, const std::string& id,
                                           const nlohmann::json& base) {
  for (std::int64_t ctx = 4096; ctx <= 131072; ctx += 4096) {
    nlohmann::json q = base;
    q["hardware"] = id;
    q["context"] = ctx;
    q["ram_gib"] = 0;
    const auto v = nlohmann::json::parse(wif::api_estimate(vendor, q.dump()));
    const auto d = nlohmann::json::parse(wif::api_estimate(driver, q.dump()));
    if (v.value("verdict", "") == "tight" && d.value("verdict", "") == "fits") return ctx;
  }
  return 0;
}

/// The device `id` on a vendor's figure (`vendor`) and as a driver's total of the same size
/// (`driver`), each in a catalog beside `other` as shipped, and `base` in `q` at `ctx`: the first
/// context where `id` alone is tight in the first and fits in the second (0 when there is none).
struct VendorDriver {
  wif::Catalog vendor, driver;
  nlohmann::json q;
  std::int64_t ctx = 0;
};
inline VendorDriver vendor_and_driver(const std::string& id, const std::string& other, const nlohmann::json& base) {
  VendorDriver p{catalog_of({{id, as_vendor_figure}, {other, nullptr}}), catalog_of({{id, as_driver_total}, {other, nullptr}}), base};
  p.ctx = tight_on_vendor_figure(p.vendor, p.driver, id, base);
  p.q["context"] = p.ctx;
  return p;
}

/// api_estimate on the shipped catalog, request and answer as JSON documents.
inline nlohmann::json estimate(const nlohmann::json& req) {
  return nlohmann::json::parse(wif::api_estimate(catalog(), req.dump()));
}

/// The architecture of a shipped catalog model (the id must exist).
inline const wif::Architecture& catalog_arch(const char* id) { return catalog().find_model(id)->arch; }

// llama.cpp's KV cache for a model at a context, sequences and cache type (one line in the tests
// that derive a cache by hand).
inline wif::KvCache kv_of(const wif::Architecture& a, std::int64_t ctx, int n_seq = 1, wif::GgmlType t = wif::GgmlType::F16) {
  wif::KvOptions o;
  o.n_ctx = ctx;
  o.n_seq = n_seq;
  o.type_k = o.type_v = t;
  return wif::llamacpp_kv_cache(a, o);
}

/// The accuracy report of the shipped catalog ("accuracy" object), made once for every test file.
inline const nlohmann::json& accuracy_report() {
  static const nlohmann::json r = nlohmann::json::parse(wif::api_accuracy(catalog()))["accuracy"];
  return r;
}

/// A published file whose maker chose each tensor's type by name (llama-quantize --tensor-type,
/// or a converter of its own): the plan's tensors, names and shapes as the core lists them, with
/// `type_of(t)` in place of the planned type. Tensor bytes (what llama.cpp prints as the model's
/// size), the file laid out as the plan lays it (its header estimate, each tensor padded to 32
/// bytes), and how many tensors got each type.
struct RecipeSize {
  std::uint64_t tensor_bytes = 0, file_bytes = 0;
  std::map<wif::GgmlType, int> count;
};
inline RecipeSize recipe_size(const wif::TensorPlan& p, const std::function<wif::GgmlType(const wif::Tensor&)>& type_of) {
  RecipeSize r;
  r.file_bytes = (p.header_bytes + 31) / 32 * 32;
  for (const auto& t : p.tensors) {
    const wif::GgmlType g = type_of(t);
    const std::uint64_t rows = static_cast<std::uint64_t>(t.ne[1] * t.ne[2] * t.ne[3]);
    const std::uint64_t b = wif::ggml_row_bytes(g, static_cast<std::uint64_t>(t.ne[0])) * rows;
    r.tensor_bytes += b;
    r.file_bytes += (b + 31) / 32 * 32;
    ++r.count[g];
  }
  return r;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace wif_test
