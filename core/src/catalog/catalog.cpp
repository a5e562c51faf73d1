#include "willitfit/catalog/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "willitfit/base/json_util.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {
namespace {

using text::ends_with;
using text::lower;
using text::starts_with;

bool valid_date(const std::string& d) {
  static const std::regex re("^(19|20)[0-9]{2}-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?$");
  return std::regex_match(d, re);
}

// Every entry names a public source and the day it was read.
void require_provenance(const nlohmann::json& e, const std::string& path) {
  const std::string src = req_str(e, "source", path);
  if (src.size() < 8)
    throw InputError("bad_value", join_path(path, "source"), "a source must be a URL or repository path");
  const std::string checked = req_str(e, "checked", path);
  if (!valid_date(checked))
    throw InputError("bad_value", join_path(path, "checked"), "checked must be a date YYYY-MM-DD");
}

// A field of an entry that cites a source of its own: when `field` is present, `<field>_source` is
// an https URL and `<field>_checked` the day it was read.
void require_own_source(const nlohmann::json& e, const std::string& field, const std::string& path) {
  if (!e.contains(field)) return;
  const std::string source = field + "_source", checked = field + "_checked";
  if (!starts_with(req_str(e, source, path), "https://"))
    throw InputError("bad_value", join_path(path, source), source + " must be an https URL");
  if (!valid_date(req_str(e, checked, path)))
    throw InputError("bad_value", join_path(path, checked), checked + " must be a date YYYY-MM-DD");
}

// A catalog GPU's memory is the figure its driver reports where a public page shows it, and says
// why not where none does. The vendor's "GB" read as GiB overstates a B300 by 7 % (288 GB sold,
// nvidia-smi 275040 MiB = 268.59 GiB, per Oracle's quick start
// https://github.com/oracle-quickstart/oci-gpu-quickstarts/blob/140fc62150f792a73a5582618bde5f94d87c2c53/nvidia/B300/README-B300.md).
// So a data-center GPU carries memory_reported_mib or memory_basis, and the vendor's figure
// (memory_sold_gb) only stands beside a driver total. Catalog entries only: a device a person
// describes in a request keeps the figure they give.
void require_memory_basis(const nlohmann::json& e, const std::string& path) {
  const bool reported = e.contains("memory_reported_mib");
  if (e.contains("memory_sold_gb") && !reported)
    throw InputError("missing_field", join_path(path, "memory_reported_mib"),
                     "memory_sold_gb stands beside the driver's total: add memory_reported_mib and its source");
  auto is = [&e](const char* key, const char* value) {
    return e.contains(key) && e[key].is_string() && e[key].get_ref<const std::string&>() == value;
  };
  const bool datacenter = is("kind", "gpu") && is("segment", "datacenter");
  if (datacenter && !reported && !e.contains("memory_basis"))
    throw InputError("missing_field", join_path(path, "memory_basis"),
                     "a data-center GPU states the driver's memory total (memory_reported_mib) or why memory_gib is "
                     "the vendor's figure (memory_basis)");
}

std::string entry_path(const std::string& file, const nlohmann::json& e, std::size_t index) {
  if (e.is_object() && e.contains("id") && e["id"].is_string())
    return file + "#" + e["id"].get<std::string>();
  return file + "#" + std::to_string(index);
}

}  // namespace

/// The steps of Catalog::load, one per kind of file, sharing the catalog being filled and the
/// ids seen so far.
struct CatalogLoader {
  Catalog& c;
  std::set<std::string> model_ids, device_ids;

  /// Runs fn; a failure becomes an Error at `path` (or the error's own path) and loading goes on.
  template <class F>
  void guard(const std::string& path, F&& fn) {
    try {
      fn();
    } catch (const InputError& e) {
      Error err = e.error();
      if (err.path.empty()) err.path = path;
      c.errors_.push_back(err);
    } catch (const std::exception& e) {
      c.errors_.push_back({"bad_entry", path, e.what()});
    }
  }

  /// measurements/*.jsonl: one JSON object per line, each with a row_id and a source.
  void measurement_lines(const CatalogFile& f) {
    std::istringstream in(f.text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      guard(f.path + ":" + std::to_string(n), [&] {
        auto row = parse_json(line, f.path + ":" + std::to_string(n));
        const std::string p = f.path + "#" + (row.contains("row_id") && row["row_id"].is_string()
                                                  ? row["row_id"].get<std::string>() : std::to_string(n));
        req_str(row, "row_id", p);
        req_str(row, "source", p);
        c.measurements_.push_back(std::move(row));
      });
    }
  }

  /// A model's `checkpoints`: published quantized safetensors repos, one per format.
  static std::vector<PublishedCheckpoint> checkpoints(const nlohmann::json& doc, const std::string& p) {
    std::vector<PublishedCheckpoint> out;
    if (!doc.contains("checkpoints")) return out;
    const auto& arr = doc["checkpoints"];
    if (!arr.is_array()) throw InputError("bad_type", join_path(p, "checkpoints"), "expected a list of checkpoints");
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const std::string cp = join_path(p, "checkpoints") + "[" + std::to_string(i) + "]";
      const auto& e = arr[i];
      if (!e.is_object()) throw InputError("bad_type", cp, "a checkpoint is an object");
      PublishedCheckpoint k;
      k.repo = req_str(e, "repo", cp);
      const auto slash = k.repo.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == k.repo.size() || k.repo.find('/', slash + 1) != std::string::npos ||
          k.repo.find(' ') != std::string::npos)
        throw InputError("bad_value", join_path(cp, "repo"), "a checkpoint is a Hugging Face repo id (org/name)");
      k.quant = req_str(e, "quant", cp);
      k.bits = static_cast<int>(req_int(e, "bits", cp, 1, 16));
      k.group_size = static_cast<int>(opt_int(e, "group_size", cp, 0, 4096).value_or(0));
      k.zero_point = opt_bool(e, "zero_point", cp).value_or(false);
      k.linear_bits = checkpoint_linear_bits(k.quant, k.bits, k.group_size, k.zero_point, cp);
      // The sizes are computed with the token table and the output head in 16-bit and every other
      // linear layer quantized; a checkpoint that keeps more in 16-bit is not modelled.
      std::vector<std::string> keep;
      if (!e.contains("unquantized") || !e["unquantized"].is_array())
        throw InputError("missing_field", join_path(cp, "unquantized"), "name the layers the checkpoint keeps unquantized");
      for (const auto& x : e["unquantized"]) {
        if (!x.is_string()) throw InputError("bad_type", join_path(cp, "unquantized"), "a layer name is a string");
        keep.push_back(x.get<std::string>());
      }
      std::sort(keep.begin(), keep.end());
      if (keep != std::vector<std::string>{"embed", "lm_head"})
        throw InputError("bad_value", join_path(cp, "unquantized"),
                         "only checkpoints that keep exactly the token table and the output head unquantized (embed, lm_head) are modelled");
      k.bytes = static_cast<std::uint64_t>(opt_int(e, "bytes", cp, 1, 100000000000000ll).value_or(0));
      require_provenance(e, cp);
      k.source = e["source"].get<std::string>();
      k.checked = e["checked"].get<std::string>();
      for (const auto& o : out)
        if (o.quant == k.quant)
          throw InputError("duplicate_id", join_path(cp, "quant"), "one published checkpoint per format; '" + k.quant + "' is listed twice");
      out.push_back(std::move(k));
    }
    return out;
  }

  /// models/<org>/<name>.json: one model, its facts and its config.json.
  void model(const CatalogFile& f, const nlohmann::json& doc) {
    guard(entry_path(f.path, doc, 0), [&] {
      const std::string p = entry_path(f.path, doc, 0);
      if (!doc.is_object()) throw InputError("bad_type", p, "a model file holds one JSON object");
      ModelEntry m;
      m.file = f.path;
      m.id = req_str(doc, "id", p);
      if (m.id.find('/') == std::string::npos)
        throw InputError("bad_value", join_path(p, "id"), "a model id is a Hugging Face repo id (org/name)");
      if (!model_ids.insert(lower(m.id)).second)
        throw InputError("duplicate_id", join_path(p, "id"), "model id '" + m.id + "' appears twice");
      m.name = req_str(doc, "name", p);
      m.org = req_str(doc, "org", p);
      m.family = opt_str(doc, "family", p).value_or("");
      m.license = opt_str(doc, "license", p).value_or("");
      m.release = opt_str(doc, "release", p).value_or("");
      if (!m.release.empty() && !valid_date(m.release))
        throw InputError("bad_value", join_path(p, "release"), "release must be YYYY-MM");
      m.params_total_b = req_num(doc, "params_total_b", p, 0.001, 1e5);
      m.params_active_b = opt_num(doc, "params_active_b", p, 0.001, 1e5).value_or(m.params_total_b);
      if (m.params_active_b > m.params_total_b * 1.0001)
        throw InputError("bad_value", join_path(p, "params_active_b"), "active parameters exceed the total");
      require_provenance(doc, p);
      if (!doc.contains("config") || !doc["config"].is_object())
        throw InputError("missing_field", join_path(p, "config"), "a model needs its config.json facts");
      m.arch = architecture_from_hf_config(doc["config"], join_path(p, "config"));
      if (auto dt = opt_str(doc, "native_dtype", p)) m.arch.native_dtype = *dt;
      if (doc.contains("mtp_embed_head_copies")) {
        if (!doc["mtp_embed_head_copies"].is_boolean())
          throw InputError("bad_type", join_path(p, "mtp_embed_head_copies"), "mtp_embed_head_copies is true or false");
        m.arch.mtp_embed_head_copies = doc["mtp_embed_head_copies"].get<bool>();
        if (m.arch.mtp_embed_head_copies && m.arch.n_layer_all() == m.arch.n_layer_main())
          throw InputError("bad_value", join_path(p, "mtp_embed_head_copies"), "the model has no MTP layer to hold the copies");
      }
      m.native_dtype = m.arch.native_dtype;
      m.source = doc["source"].get<std::string>();
      m.checked = doc["checked"].get<std::string>();
      m.checkpoints = checkpoints(doc, p);
      m.raw = doc;
      c.models_.push_back(std::move(m));
    });
  }

  /// hardware/*.json: {"devices": [...]}, each entry one device or one per memory option.
  void devices(const CatalogFile& f, const nlohmann::json& doc) {
    if (!doc.is_object() || !doc.contains("devices") || !doc["devices"].is_array()) {
      c.errors_.push_back({"bad_type", f.path + "#devices", "a hardware file holds {\"devices\": [...]}"});
      return;
    }
    const auto& arr = doc["devices"];
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const std::string p = entry_path(f.path, arr[i], i);
      guard(p, [&] {
        const auto& e = arr[i];
        if (!e.is_object()) throw InputError("bad_type", p, "a device entry must be an object");
        const std::string id = req_str(e, "id", p);
        static const std::regex id_re("^[a-z0-9][a-z0-9-]*$");
        if (!std::regex_match(id, id_re))
          throw InputError("bad_value", join_path(p, "id"), "device ids use a-z, 0-9 and '-'");
        require_provenance(e, p);
        // The LLVM processor a device states and what its vendor calls it (hardware/device.cpp checks
        // both values) each cite a source of their own and the day it was read, as every catalog
        // fact does.
        require_own_source(e, "amd_gfx_target", p);
        require_own_source(e, "device_type", p);
        std::vector<Device> parsed;
        for (const auto& v : memory_variants(e, id, p)) parsed.push_back(device_from_json(v, p));
        // Once the fields themselves are valid (device.cpp), what the entry says about its memory.
        require_memory_basis(e, p);
        for (Device& d : parsed) {
          if (!device_ids.insert(d.id).second)
            throw InputError("duplicate_id", join_path(p, "id"), "device id '" + d.id + "' appears twice");
          c.devices_.push_back(std::move(d));
        }
      });
    }
  }

  /// An entry with memory_options_gib becomes one device per size ("<id>-<n>gb"); others stay one.
  static std::vector<nlohmann::json> memory_variants(const nlohmann::json& e, const std::string& id,
                                                     const std::string& p) {
    std::vector<nlohmann::json> variants;
    if (!e.contains("memory_options_gib")) {
      variants.push_back(e);
      return variants;
    }
    const auto& opts = e["memory_options_gib"];
    if (!opts.is_array() || opts.empty())
      throw InputError("bad_type", join_path(p, "memory_options_gib"), "expected a list of sizes");
    for (std::size_t k = 0; k < opts.size(); ++k) {
      const double gib = req_num(nlohmann::json{{"v", opts[k]}}, "v",
                                 join_path(p, "memory_options_gib") + "[" + std::to_string(k) + "]", 1, 1e6);
      nlohmann::json v = e;
      v.erase("memory_options_gib");
      v["memory_gib"] = gib;
      std::ostringstream g;
      g << gib;
      v["id"] = id + "-" + g.str() + "gb";
      v["name"] = e.value("name", id) + " " + g.str() + "GB";
      v["name_base"] = e.value("name", id);  // the name without the size it now states
      v["chip_id"] = id;
      // The option's own launch price when the entry states one (device.hpp option_price).
      const nlohmann::json op = option_price(e, gib, p);
      if (!op.is_null()) {
        v["launch_price_usd"] = op["usd"];
        v["option_price"] = op;
      }
      v.erase("option_prices_usd");
      variants.push_back(v);
    }
    return variants;
  }

  /// quants.json's quality_bands (read by quality.cpp): bands and ranking, each a non-empty list.
  void quality_bands(const nlohmann::json& doc) {
    c.documents_["quants.json"] = doc;
    if (!doc.contains("quality_bands")) return;
    guard("quants.json#quality_bands", [&] {
      const auto& qb = doc["quality_bands"];
      if (!qb.is_object()) throw InputError("bad_type", "quants.json#quality_bands", "expected {bands, ranking, source, checked}");
      require_provenance(qb, "quants.json#quality_bands");
      for (const char* list : {"bands", "ranking"}) {
        const std::string lp = std::string("quants.json#quality_bands.") + list;
        if (!qb.contains(list) || !qb[list].is_array() || qb[list].empty())
          throw InputError("bad_type", lp, "expected a non-empty list of {id, max_ppl_delta_pct}");
        for (const auto& b : qb[list]) req_str(b, "id", lp);
      }
    });
  }

  /// quants.json, clouds.json, markets.json, backends.json: a list of entries under one key,
  /// each with an id unique in its file and its provenance.
  void listing(const CatalogFile& f, const nlohmann::json& doc) {
    const char* key = f.path == "quants.json" ? "quants" : f.path == "clouds.json" ? "offers"
                      : f.path == "markets.json" ? "markets" : "backends";
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) {
      c.errors_.push_back({"bad_type", f.path + "#" + key, std::string("expected {\"") + key + "\": [...]}"});
      return;
    }
    if (f.path == "quants.json") quality_bands(doc);
    std::set<std::string> ids;
    for (std::size_t i = 0; i < doc[key].size(); ++i) {
      const auto& e = doc[key][i];
      const std::string p = entry_path(f.path, e, i);
      guard(p, [&] {
        if (!e.is_object()) throw InputError("bad_type", p, "an entry must be an object");
        const std::string id = req_str(e, "id", p);
        if (!ids.insert(lower(id)).second)
          throw InputError("duplicate_id", join_path(p, "id"), "id '" + id + "' appears twice");
        require_provenance(e, p);
        if (f.path == "clouds.json") {
          req_str(e, "provider", p);
          req_num(e, "price_hour_usd", p, 0.0001, 10000);
          req_int(e, "gpu_count", p, 1, 1024);
          c.clouds_.push_back(e);
        } else if (f.path == "quants.json") {
          // `backends` (optional): the device backends on which the serving engines have a kernel
          // for the format (estimate.hpp format_applicability), with `backends_source`.
          if (e.contains("backends")) {
            if (!e["backends"].is_array() || e["backends"].empty())
              throw InputError("bad_type", join_path(p, "backends"), "expected a non-empty list of backend ids");
            for (const auto& x : e["backends"])
              if (!x.is_string()) throw InputError("bad_type", join_path(p, "backends"), "a backend id must be a string");
            req_str(e, "backends_source", p);
          }
          // The lowest CUDA compute capability with a kernel for the format, and the lowest with
          // its native (non-weight-only) kernel (estimate.hpp format_applicability).
          const auto lo = opt_num(e, "min_cuda_compute_capability", p, 1.0, 20.0);
          const auto native = opt_num(e, "native_min_cuda_compute_capability", p, 1.0, 20.0);
          if (native && (!lo || *native < *lo))
            throw InputError("bad_value", join_path(p, "native_min_cuda_compute_capability"),
                             "the native kernel's minimum is at or above min_cuda_compute_capability");
          c.quants_.push_back(e);
        } else if (f.path == "markets.json") {  // electricity prices per market (cost.hpp)
          req_num(e, "price_kwh_local", p, 0.0001, 100);
          req_num(e, "usd_per_unit", p, 0.000001, 1e6);
          req_str(e, "currency", p);
          // The price is cited to its primary publisher (a statistics office, regulator or
          // ministry), named and linked; the page links `source`, so `source` is that page. A
          // page that only repeats the figure (a mirror, a news report) stays in `sources`.
          if (!e.contains("primary") || !e["primary"].is_object())
            throw InputError("missing_field", p + ".primary", "a market's price needs its primary publisher");
          const nlohmann::json& pr = e["primary"];
          req_str(pr, "publisher", p + ".primary");
          const std::string purl = req_str(pr, "url", p + ".primary");
          if (purl.rfind("http", 0) != 0)
            throw InputError("bad_value", p + ".primary.url", "the primary publisher's page must be a URL");
          if (!valid_date(req_str(pr, "seen", p + ".primary")))
            throw InputError("bad_value", p + ".primary.seen", "seen must be a date YYYY-MM-DD");
          if (e["source"].get<std::string>() != purl)
            throw InputError("bad_value", p + ".source", "the cited source must be the primary publisher's page");
          c.markets_.push_back(e);
        } else {
          BackendInfo b;
          b.id = id;
          b.overhead_mib = req_num(e, "overhead_mib", p, 0, 65536);
          if (e.contains("engines")) {
            if (!e["engines"].is_array()) throw InputError("bad_type", p + ".engines", "expected a list of engine names");
            for (const auto& x : e["engines"]) {
              if (!x.is_string()) throw InputError("bad_type", p + ".engines", "an engine name must be a string");
              b.engines.push_back(x.get<std::string>());
            }
          }
          // Ollama's own builds (docs.ollama.com/gpu: CUDA, ROCm, Metal, Vulkan, and the CPU), with
          // the page that says so: the launch commands offer Ollama only where one runs.
          require_own_source(e, "ollama", p);
          if (e.contains("ollama")) {
            if (!e["ollama"].is_string() || e["ollama"].get<std::string>() != "runs")
              throw InputError("bad_value", p + ".ollama", "ollama must be \"runs\" (leave it out where Ollama does not run)");
            b.ollama = true;
          }
          b.raw = e;
          c.backends_[id] = b;
        }
      });
    }
  }

  /// Cloud offers must name a known device; the others are reported and left out.
  void drop_offers_of_unknown_devices() {
    std::vector<nlohmann::json> good;
    for (auto& o : c.clouds_) {
      const std::string dev = o.value("device", "");
      if (!dev.empty() && !c.find_device(dev)) {
        c.errors_.push_back({"unknown_reference", "clouds.json#" + o.value("id", "?") + ".device",
                             "device '" + dev + "' is not in the hardware catalog"});
        continue;
      }
      good.push_back(std::move(o));
    }
    c.clouds_ = std::move(good);
  }

  /// speculative.json's measurements name their device in codes the page words in its language:
  /// exactly one of `device` (a catalog id), `device_options` (the catalog ids it is one of, with
  /// `variant_unstated`: what the source leaves out), `device_not_in_catalog` ({name, memory_gb}:
  /// a product the catalog does not hold) or `device_unnamed: true`; `gpu_count` an integer from
  /// 1, `power_limit_w` a positive number, `overclocked` a boolean.
  void check_speculative_devices() {
    const nlohmann::json* d = c.document("speculative.json");
    if (!d || !d->is_object() || !d->contains("measurements") || !(*d)["measurements"].is_array()) return;
    const nlohmann::json& rows = (*d)["measurements"];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const nlohmann::json& r = rows[i];
      if (!r.is_object()) continue;
      const std::string p = "speculative.json#measurements[" + std::to_string(i) + "]";
      auto err = [&](const char* code, const std::string& field, const std::string& msg) {
        c.errors_.push_back({code, p + "." + field, msg});
      };
      const int ways = (r.contains("device") ? 1 : 0) + (r.contains("device_options") ? 1 : 0) +
                       (r.contains("device_not_in_catalog") ? 1 : 0) + (r.value("device_unnamed", false) ? 1 : 0);
      if (ways != 1) {
        err(ways ? "bad_value" : "missing_field", "device",
            "a measurement names its device one way: device, device_options, device_not_in_catalog or device_unnamed");
        continue;
      }
      if (r.contains("device") && (!r["device"].is_string() || !c.find_device(r["device"].get<std::string>())))
        err("unknown_reference", "device", "device '" + (r["device"].is_string() ? r["device"].get<std::string>() : std::string("?")) +
                                               "' is not in the hardware catalog");
      if (r.contains("device_options")) {
        const nlohmann::json& o = r["device_options"];
        if (!o.is_array() || o.size() < 2) {
          err("bad_value", "device_options", "expected two or more catalog ids");
        } else {
          for (std::size_t k = 0; k < o.size(); ++k)
            if (!o[k].is_string() || !c.find_device(o[k].get<std::string>()))
              err("unknown_reference", "device_options[" + std::to_string(k) + "]", "not in the hardware catalog");
        }
        const std::string v = r.value("variant_unstated", "");
        if (v != "form_factor" && v != "gpu_cores")
          err(r.contains("variant_unstated") ? "bad_value" : "missing_field", "variant_unstated",
              "expected form_factor or gpu_cores: what the source does not state");
      }
      if (r.contains("device_not_in_catalog")) {
        const nlohmann::json& n = r["device_not_in_catalog"];
        if (!n.is_object() || !n.contains("name") || !n["name"].is_string() || n["name"].get<std::string>().empty())
          err("missing_field", "device_not_in_catalog.name", "the product's name");
        else
          for (const auto& dev : c.devices_)
            if (lower(dev.name) == lower(n["name"].get<std::string>()))
              err("bad_value", "device_not_in_catalog.name", "'" + dev.name + "' is in the catalog: give its id as device");
      }
      if (r.contains("gpu_count") && (!r["gpu_count"].is_number_integer() || r["gpu_count"].get<int>() < 1))
        err("bad_value", "gpu_count", "expected an integer from 1");
      if (r.contains("power_limit_w") && (!r["power_limit_w"].is_number() || r["power_limit_w"].get<double>() <= 0))
        err("bad_value", "power_limit_w", "expected watts above 0");
      if (r.contains("overclocked") && !r["overclocked"].is_boolean()) err("bad_type", "overclocked", "expected true or false");
      if (r.contains("hardware")) err("bad_value", "hardware", "the wording as published is hardware_as_published; the page words the device from its codes");
    }
  }
};

Catalog Catalog::load(const std::vector<CatalogFile>& files) {
  Catalog c;
  CatalogLoader load{c, {}, {}};
  for (const auto& f : files) {
    if (!ends_with(f.path, ".json") && !ends_with(f.path, ".jsonl")) continue;
    if (ends_with(f.path, ".jsonl")) {
      load.measurement_lines(f);
      continue;
    }
    nlohmann::json doc;
    bool ok = true;
    load.guard(f.path, [&] { doc = parse_json(f.text, f.path); });
    if (c.errors_.size() && c.errors_.back().path == f.path) ok = false;
    if (!ok) continue;
    if (f.path == "speed.json" || f.path == "engines.json" || f.path == "speculative.json" || f.path == "projectors.json" ||
        f.path == "tensor_parallel.json" || f.path == "segments.json" || starts_with(f.path, "measurements/")) {
      c.documents_[f.path] = std::move(doc);  // read by their own modules (speed/speed.cpp, speed/speed_basis.cpp,
                                   // calibration/llama_bench.cpp, questions/solve.cpp for segments.json)
    } else if (starts_with(f.path, "models/")) {
      load.model(f, doc);
    } else if (starts_with(f.path, "hardware/")) {
      load.devices(f, doc);
    } else if (f.path == "quants.json" || f.path == "clouds.json" || f.path == "backends.json" ||
               f.path == "markets.json") {
      load.listing(f, doc);
    }
  }
  for (std::size_t i = 0; i < c.devices_.size(); ++i) c.device_index_.emplace(c.devices_[i].id, i);  // ids are unique
  load.drop_offers_of_unknown_devices();
  // engines.json: a lowest compute capability is a CUDA row's, a number from 1 to 20, with its source.
  if (const nlohmann::json* t = c.document("engines.json"); t && t->is_object() && t->contains("engines") &&
                                                             (*t)["engines"].is_array())
    for (std::size_t i = 0; i < (*t)["engines"].size(); ++i) {
      const nlohmann::json& r = (*t)["engines"][i];
      if (!r.is_object() || !r.contains("min_cuda_compute_capability")) continue;
      const std::string p = "engines.json#engines[" + std::to_string(i) + "].min_cuda_compute_capability";
      const nlohmann::json& v = r["min_cuda_compute_capability"];
      if (!v.is_number() || v.get<double>() < 1 || v.get<double>() > 20)
        c.errors_.push_back({"bad_value", p, "expected a compute capability from 1 to 20"});
      else if (r.value("backend", "") != "cuda")
        c.errors_.push_back({"bad_value", p, "a compute capability is NVIDIA's: only a cuda row has one"});
      else if (!r.contains("min_source") || !r["min_source"].is_string() ||
               r["min_source"].get<std::string>().rfind("http", 0) != 0)
        c.errors_.push_back({"missing_field", "engines.json#engines[" + std::to_string(i) + "].min_source",
                             "a lowest compute capability needs the page that states it"});
      if (v.is_number() && r.contains("engine") && r["engine"].is_string() && r.value("backend", "") == "cuda")
        c.engine_min_cc_.emplace(r["engine"].get<std::string>(), v.get<double>());  // the first CUDA row's
    }
  // A device's overhead_backend must name a backends.json entry.
  for (const auto& d : c.devices_)
    if (d.facts.is_object() && d.facts.contains("overhead_backend") && !c.find_backend(d.overhead_backend))
      c.errors_.push_back({"unknown_reference", "hardware#" + d.id + ".overhead_backend",
                           "backend '" + d.overhead_backend + "' is not in backends.json"});
  // A GPU's segment must name a segments.json entry (the count searches cap by it).
  if (const nlohmann::json* seg = c.document("segments.json")) {
    std::set<std::string> known;
    if (seg->is_object() && seg->contains("segments") && (*seg)["segments"].is_array())
      for (const auto& s : (*seg)["segments"]) {
        if (s.is_object() && s.contains("id") && s["id"].is_string()) known.insert(s["id"].get<std::string>());
        if (s.is_object() && s.contains("id") && s["id"].is_string() && s.contains("max_count") &&
            s["max_count"].is_number_integer() && s["max_count"].get<int>() >= 1)
          c.segment_max_counts_[s["id"].get<std::string>()] = s["max_count"].get<int>();
      }
    // The hardware's useful life (months, with its source), read by the rent-or-buy comparison.
    if (seg->is_object() && seg->contains("useful_life")) {
      const nlohmann::json& ul = (*seg)["useful_life"];
      if (!ul.is_object() || !ul.contains("months") || !ul["months"].is_number() || ul["months"].get<double>() < 1 ||
          ul["months"].get<double>() > 600)
        c.errors_.push_back({"bad_value", "segments.json#useful_life.months", "expected a number of months from 1 to 600"});
      else if (!ul.contains("source") || !ul["source"].is_string() || ul["source"].get<std::string>().rfind("http", 0) != 0)
        c.errors_.push_back({"missing_field", "segments.json#useful_life.source", "the useful life needs its public source"});
    }
    for (const auto& d : c.devices_)
      if (d.facts.is_object() && d.facts.contains("segment") &&
          (!d.facts["segment"].is_string() || !known.count(d.facts["segment"].get<std::string>())))
        c.errors_.push_back({"unknown_reference", "hardware#" + d.id + ".segment",
                             "segment is not in segments.json"});
  }
  load.check_speculative_devices();
  for (std::size_t i = 0; i < c.models_.size(); ++i) c.model_index_.emplace(lower(c.models_[i].id), i);
  return c;
}

const ModelEntry* Catalog::find_model(const std::string& id) const {
  auto it = model_index_.find(lower(id));
  return it == model_index_.end() ? nullptr : &models_[it->second];
}

const Device* Catalog::find_device(const std::string& id) const {
  auto it = device_index_.find(lower(id));
  return it == device_index_.end() ? nullptr : &devices_[it->second];
}

const nlohmann::json* Catalog::document(const std::string& path) const {
  auto it = documents_.find(path);
  return it == documents_.end() ? nullptr : &it->second;
}

int Catalog::segment_max_count(const Device& d) const {
  if (!d.facts.is_object() || !d.facts.contains("segment") || !d.facts["segment"].is_string()) return 0;
  auto it = segment_max_counts_.find(d.facts["segment"].get<std::string>());
  return it == segment_max_counts_.end() ? 0 : it->second;
}

const BackendInfo* Catalog::find_backend(const std::string& id) const {
  auto it = backends_.find(id);
  return it == backends_.end() ? nullptr : &it->second;
}

double Catalog::engine_min_compute_capability(const std::string& engine) const {
  auto it = engine_min_cc_.find(engine);
  return it == engine_min_cc_.end() ? 0 : it->second;
}

bool Catalog::device_ollama(const Device& d) const {
  // As device_engines: the `cpu` entry of an Apple or unified machine is its processor, not the
  // accelerator the estimate sizes.
  auto runs = [&](const std::string& b) {
    const BackendInfo* be = (d.kind == DeviceKind::Cpu || b != "cpu") ? find_backend(b) : nullptr;
    return be != nullptr && be->ollama;
  };
  return runs(d.backend) || std::any_of(d.backends.begin(), d.backends.end(), runs);
}

std::vector<std::string> Catalog::device_engines(const Device& d) const {
  std::vector<std::string> have;
  auto add = [&](const std::string& b) {
    if (const BackendInfo* be = find_backend(b))
      for (const auto& e : be->engines)
        if (std::find(have.begin(), have.end(), e) == have.end()) have.push_back(e);
  };
  // An accelerator's engines are those of its accelerator backends: the `cpu` entry of an Apple
  // or unified machine's `backends` is its processor (vLLM's CPU build runs on an Apple chip's
  // cores, not its GPU), so it does not make an engine run on the accelerator the estimate
  // sizes. A CPU device keeps it.
  auto counts = [&](const std::string& b) { return d.kind == DeviceKind::Cpu || b != "cpu"; };
  if (counts(d.backend)) add(d.backend);
  for (const auto& b : d.backends)
    if (counts(b)) add(b);
  // An engine whose CUDA build needs a newer GPU than this one does not run on it, whatever the
  // backend's list says: data/engines.json gives the engine's lowest compute capability where its
  // documentation states one (vLLM's GPU installation page; SGLang's kernels), and a device whose
  // capability the catalog knows below it loses that engine.
  if (d.cuda_compute_capability > 0)
    have.erase(std::remove_if(have.begin(), have.end(),
                              [&](const std::string& e) {
                                const double need = engine_min_compute_capability(e);
                                return need > 0 && d.cuda_compute_capability + 1e-9 < need;
                              }),
               have.end());
  std::vector<std::string> out;
  for (const char* e : {"llama.cpp", "vllm", "sglang"})
    if (std::find(have.begin(), have.end(), e) != have.end()) out.push_back(e);
  for (const auto& e : have)
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  return out;
}

}  // namespace wif
