#include "willitfit/speed/speed_basis.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "willitfit/catalog/catalog.hpp"

namespace wif {
namespace {

using nlohmann::json;

const json* match(const json& doc, const char* key, const std::string& s) {
  if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) return nullptr;
  for (const auto& e : doc[key])
    if (e.is_object() && e.value("match", "") == s) return &e;
  return nullptr;
}

std::string str(const json& row, const char* k) {
  return row.contains(k) && row[k].is_string() ? row[k].get<std::string>() : "";
}

// One engines.json row, every field set (a CUDA row may state its lowest compute capability and
// the page that says so; other rows leave them 0 and empty).
EngineRow engine_row(const json& r) {
  EngineRow er;
  er.engine = str(r, "engine");
  er.backend = str(r, "backend");
  er.status = str(r, "status");
  er.via = str(r, "via");
  er.source = str(r, "source");
  er.checked = str(r, "checked");
  er.notes = str(r, "notes");
  if (r.contains("min_cuda_compute_capability") && r["min_cuda_compute_capability"].is_number())
    er.min_cc = r["min_cuda_compute_capability"].get<double>();
  er.min_source = str(r, "min_source");
  return er;
}

}  // namespace

SpeedBasisIndex speed_basis_index(const Catalog& cat) {
  SpeedBasisIndex idx;
  if (const json* e = cat.document("engines.json"); e && e->contains("engines") && (*e)["engines"].is_array())
    for (const auto& r : (*e)["engines"]) {
      if (!r.is_object()) continue;
      idx.engines.push_back(engine_row(r));
    }
  const json* map = cat.document("measurements/bench_mapping.json");
  if (!map) return idx;
  static const std::regex test_re(R"(^(pp|tg)(\d+)(?: @ d(\d+))?$)");
  static const std::regex ngl_re(R"((?:^|\s)(?:-ngl|--n-gpu-layers)[ =](\d+))");
  for (const auto& row : cat.measurements()) {
    if (!row.contains("test") || !row.contains("tps") || !row.contains("hardware") || !row["tps"].is_number()) continue;
    const std::string test = str(row, "test");
    std::smatch t;
    if (!std::regex_match(test, t, test_re)) continue;
    if (str(row, "tool").rfind("llama-server", 0) == 0) continue;
    const json* mm = match(*map, "models", str(row, "model"));
    const json* hm = match(*map, "hardware", str(row, "hardware"));
    const json* qm = match(*map, "quants", str(row, "quant"));
    const json* bm = match(*map, "backends", str(row, "backend"));
    if (!mm || !hm || !qm || !bm) continue;
    const ModelEntry* model = cat.find_model(mm->value("id", ""));
    if (!model || !cat.find_device(hm->value("id", ""))) continue;
    BasisRow b;
    b.row_id = str(row, "row_id");
    b.kind = t[1];
    b.test = test;
    b.model_id = model->id;
    b.quant = qm->value("id", "");
    b.device_id = hm->value("id", "");
    b.gpu_count = hm->value("count", 1);
    b.backend = bm->value("class", "");
    b.source = str(row, "source");
    b.date = str(row, "date").empty() ? str(row, "checked") : str(row, "date");
    b.tps = row["tps"].get<double>();
    // The same placement groups as the accuracy report (bench.cpp map_bench_rows).
    int ngl = row.contains("ngl") && row["ngl"].is_number_integer() ? row["ngl"].get<int>() : -1;
    std::smatch m;
    const std::string flags = str(row, "flags");
    if (ngl < 0 && std::regex_search(flags, m, ngl_re)) ngl = std::stoi(m[1]);
    // -ngl counts the file's blocks, NextN ones included (llamacpp/placement.hpp ngl_flag).
    const bool offloaded = (ngl >= 0 && ngl <= model->arch.n_layer_all()) ||
                           (row.contains("n_cpu_moe") && row["n_cpu_moe"].is_number() && row["n_cpu_moe"].get<double>() > 0) ||
                           flags.find("exps") != std::string::npos;
    b.group = offloaded ? "offloaded" : b.gpu_count > 1 ? "multi_gpu" : "single";
    idx.rows.push_back(std::move(b));
  }
  return idx;
}

std::string llamacpp_status(const SpeedBasisIndex& idx, const Device& d) {
  std::vector<std::string> backends = d.backends;
  if (backends.empty() && !d.backend.empty()) backends.push_back(d.backend);
  bool any_row = false;
  for (const auto& b : backends)
    for (const auto& e : idx.engines)
      if (e.engine == "llama.cpp" && e.backend == b) {
        if (e.status == "runs") return "runs";
        any_row = true;
      }
  if (idx.engines.empty()) return "runs";  // no table: no claim either way
  const std::string primary = d.backend.empty() && !backends.empty() ? backends.front() : d.backend;
  for (const auto& e : idx.engines)
    if (e.engine == "llama.cpp" && e.backend == primary && e.status == "no") return "no";
  (void)any_row;
  return "unverified";
}

json device_engines_json(const SpeedBasisIndex& idx, const Device& d) {
  std::vector<std::string> backends = d.backends;
  if (backends.empty() && !d.backend.empty()) backends.push_back(d.backend);
  json out = json::array();
  for (const auto& b : backends)
    for (const auto& e : idx.engines)
      if (e.backend == b) {
        json r = {{"engine", e.engine}, {"backend", e.backend}, {"status", e.status}, {"source", e.source},
                  {"checked", e.checked}};
        if (!e.via.empty()) r["via"] = e.via;
        // The engine runs on the backend but not on a GPU older than its lowest compute capability.
        if (e.min_cc > 0 && d.cuda_compute_capability > 0 && d.cuda_compute_capability + 1e-9 < e.min_cc &&
            (e.status == "runs" || e.status == "plugin")) {
          r["status"] = "no";
          r["code"] = "compute_capability_below";
          r["min_cuda_compute_capability"] = e.min_cc;
          r["cuda_compute_capability"] = d.cuda_compute_capability;
          if (!e.min_source.empty()) r["source"] = e.min_source;
        }
        out.push_back(r);
      }
  return out;
}

json speed_basis_json(const SpeedBasisIndex& idx, const std::string& model_id, const std::string& quant,
                      const Device& d, int count, const std::string& backend, const std::string& group, bool moe,
                      bool prefill_available) {
  int device_rows = 0, backend_rows = 0;
  std::set<std::string> backend_devices;
  json measured = json::array();
  bool measured_tg = false, measured_pp = false;
  for (const auto& r : idx.rows) {
    if (r.backend != backend) continue;
    if (r.group == "single") {
      ++backend_rows;
      backend_devices.insert(r.device_id);
      if (r.device_id == d.id) ++device_rows;
    }
    if (r.model_id == model_id && r.quant == quant && r.device_id == d.id && r.gpu_count == count && r.group == group) {
      json m = {{"kind", r.kind}, {"test", r.test}, {"tps", r.tps}, {"row_id", r.row_id}, {"source", r.source}};
      if (!r.date.empty()) m["date"] = r.date;
      measured.push_back(m);
      (r.kind == "tg" ? measured_tg : measured_pp) = true;
    }
  }
  const std::string fallback = device_rows > 0 ? "calibrated" : "extrapolated";
  json basis = {{"backend", backend}, {"device_rows", device_rows}, {"backend_rows", backend_rows},
                {"accuracy_group", {{"split", group}, {"backend", backend}, {"device_kind", device_kind_name(d.kind)},
                                    {"moe", moe},
                                    // the accuracy report's group that measures this kind of estimate
                                    // out of sample: single devices by the held-out split
                                    {"report_group", group == "single" ? "held_out" : group}}}};
  if (!measured.empty()) basis["measured"] = measured;
  if (device_rows == 0) {
    std::vector<std::string> ids(backend_devices.begin(), backend_devices.end());
    if (ids.size() > 8) ids.resize(8);
    basis["extrapolated_from"] = {{"code", ids.empty() ? "backend_prior" : "backend_other_devices"}, {"ids", ids}};
  }
  const std::string decode = measured_tg ? "measured" : fallback;
  basis["code"] = decode;
  json out = {{"decode_label", decode}, {"basis", basis}};
  if (prefill_available) out["prefill_label"] = measured_pp ? "measured" : fallback;
  return out;
}

}  // namespace wif
