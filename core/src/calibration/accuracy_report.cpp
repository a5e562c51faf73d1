// The accuracy report (calibration/llama_bench.hpp): the shipped coefficients against every mapped llama-bench row,
// a held-out check (refit without the held-out devices), and the multi-GPU / offloaded rows
// predicted through the placement path. Everything is computed from the catalog at call time, so
// the page, the CLI and the tests always show the same figures for the same data.
#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/stats.hpp"
#include "willitfit/calibration/llama_bench.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/speed/mlx_speed.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/speed/speculative.hpp"

namespace wif {
namespace {

using nlohmann::json;

// Baseline 1: bandwidth (summed over the GPUs the row used) over the file size.
double naive_tps(const BenchCase& c) {
  return c.device->bandwidth_gbs * 1e9 * static_cast<double>(c.gpu_count) / c.file_bytes;
}

// The error band the report counts rows within and the page draws around y = x (±25 %).
constexpr double kBandPct = 25.0;

json stats(const std::vector<double>& e) {
  const double within = static_cast<double>(std::count_if(e.begin(), e.end(), [](double x) { return x <= kBandPct; }));
  return json{{"median_ape_pct", median(e)},
              {"within_25_pct", e.empty() ? 0.0 : 100.0 * within / static_cast<double>(e.size())}};
}

double ape(double pred, double meas) { return std::fabs(pred - meas) / meas * 100.0; }

// Whether a measurement falls inside the range a coefficient set gives for its row's group.
bool inside(const BenchCase& c, double pred, const SpeedCoefficients& k) {
  const SpeedRange r = speed_range(k, c.kind, c.group, c.backend);
  return c.measured_tps >= pred * r.low && c.measured_tps <= pred * r.high;
}

double share_pct(const std::vector<bool>& v) {
  if (v.empty()) return 0;
  return 100.0 * static_cast<double>(std::count(v.begin(), v.end(), true)) / static_cast<double>(v.size());
}

bool usable(double p) { return p > 0 && std::isfinite(p); }

// What a published row states about its run beyond the fields every point shows (model, device,
// quant, test, backend class, placement flags): the backend as the source names it ("Vulkan
// RADV"), flash attention, the llama.cpp build and the run's own flags. Absent fields are null.
json row_setup(const json* row) {
  json s = {{"backend", nullptr}, {"flash_attn", nullptr}, {"build", nullptr}, {"flags", nullptr}};
  if (!row) return s;
  if (row->contains("backend") && (*row)["backend"].is_string()) s["backend"] = (*row)["backend"];
  if (row->contains("flash_attn") && (*row)["flash_attn"].is_number()) s["flash_attn"] = (*row)["flash_attn"].get<int>() != 0;
  if (row->contains("build") && (*row)["build"].is_string()) s["build"] = (*row)["build"];
  if (row->contains("flags") && (*row)["flags"].is_string() && !(*row)["flags"].get<std::string>().empty()) s["flags"] = (*row)["flags"];
  return s;
}

// The value below which `share` of the sorted values lie (nearest rank).
double nearest_rank_quantile(std::vector<double> v, double share) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = static_cast<std::size_t>(std::ceil(share * static_cast<double>(v.size()))) ;
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

}  // namespace

json size_accuracy_report(const Catalog& cat) {
  json rows = json::array();
  std::vector<double> abs_err;
  int flagged = 0, recipes = 0;
  for (const auto& m : cat.models()) {
    if (!m.raw.contains("gguf") || !m.raw["gguf"].is_array()) continue;
    for (const auto& g : m.raw["gguf"]) {
      const std::string q = g.value("quant", "");
      const auto fmt = find_quant(q);
      if (!fmt || !fmt->gguf) { ++recipes; continue; }  // publisher recipes (UD-IQ1_S …) have no rule
      const double published = g.value("bytes", 0.0);
      if (!(published > 0)) continue;
      double computed = 0;
      try {
        computed = static_cast<double>(plan_quantization(m.arch, q).file_bytes);
      } catch (const InputError&) {
        continue;
      }
      const double err = (computed - published) / published * 100.0;
      json row = {{"model", m.id}, {"name", m.name}, {"repo", g.value("repo", "")}, {"quant", q},
                  {"published_bytes", published}, {"computed_bytes", computed}, {"error_pct", err},
                  {"source", g.value("source", "")}, {"checked", g.value("checked", "")}};
      if (g.contains("size_differs") && g["size_differs"].is_string()) {
        row["size_differs"] = g["size_differs"];  // the entry says why (e.g. an unusual recipe)
        ++flagged;
      } else {
        abs_err.push_back(std::fabs(err));
      }
      rows.push_back(row);
    }
  }
  double mean = 0;
  for (double e : abs_err) mean += e;
  if (!abs_err.empty()) mean /= static_cast<double>(abs_err.size());
  const double within = static_cast<double>(std::count_if(abs_err.begin(), abs_err.end(), [](double x) { return x <= 1.0; }));
  return {{"files", rows.size()}, {"compared", abs_err.size()}, {"flagged", flagged}, {"publisher_recipes_skipped", recipes},
          {"median_abs_error_pct", median(abs_err)}, {"mean_abs_error_pct", mean},
          {"p90_abs_error_pct", nearest_rank_quantile(abs_err, 0.9)},
          {"max_abs_error_pct", abs_err.empty() ? 0.0 : *std::max_element(abs_err.begin(), abs_err.end())},
          {"within_1_pct", abs_err.empty() ? 0.0 : 100.0 * within / static_cast<double>(abs_err.size())},
          {"rows", rows}};
}

json accuracy_report(const Catalog& cat) {
  BenchSet set = map_bench_rows(cat);
  const SpeedCoefficients k = speed_coefficients(cat);
  const SpeedCoefficients held = fit_speed(set, k, true);  // without the held-out devices
  // Predictions; rows without a finite positive prediction are counted as excluded.
  std::vector<const BenchCase*> cases;
  std::vector<double> pred, pred_held;
  for (const auto& c : set.cases) {
    const double p = predict_case(c, k);
    if (!usable(p)) { ++set.excluded["no prediction for this row"]; continue; }
    const double ph = c.held_out ? predict_case(c, held) : 0;
    cases.push_back(&c);
    pred.push_back(p);
    pred_held.push_back(usable(ph) ? ph : 0);
  }
  // Baseline 2: baseline 1 times one constant per test kind (the median ratio on single rows).
  std::map<std::string, double> scale;
  for (const char* kind : {"tg", "pp"}) {
    std::vector<double> ratios;
    for (const BenchCase* c : cases)
      if (c->kind == kind && c->group == "single") ratios.push_back(c->measured_tps / naive_tps(*c));
    scale[kind] = ratios.empty() ? 1.0 : median(ratios);
  }
  struct Acc { std::vector<double> ours, naive, scaled; };
  std::map<std::pair<std::string, std::string>, Acc> by_class;        // single rows, shipped fit
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;  // (kind, split)
  // Range coverage per (kind, split): held-out rows against the held-out fit's ranges (made
  // without them); in-sample rows against the shipped ranges; placed rows of held-out devices
  // against the held-out fit's ranges, else (no such rows) all of them against the shipped ones.
  std::map<std::pair<std::string, std::string>, std::vector<bool>> cover, cover_placed_held;
  // Signed error per class: kind x backend x device kind x dense/MoE, single-device rows.
  struct Cls { std::vector<double> signed_pct, abs_pct; std::vector<bool> in; };
  std::map<std::string, Cls> classes;
  std::map<std::string, const json*> rows_by_id;
  for (const auto& row : cat.measurements())
    if (row.contains("row_id") && row["row_id"].is_string()) rows_by_id[row["row_id"].get<std::string>()] = &row;
  json points = json::array();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BenchCase& c = *cases[i];
    const double e = ape(pred[i], c.measured_tps);
    if (c.group == "single") {
      const double nv = naive_tps(c);
      for (const std::string& g : {c.backend, std::string("all")}) {
        Acc& a = by_class[{c.kind, g}];
        a.ours.push_back(e);
        a.naive.push_back(ape(nv, c.measured_tps));
        a.scaled.push_back(ape(nv * scale[c.kind], c.measured_tps));
      }
      groups[{c.kind, "in_sample"}].push_back(e);
      cover[{c.kind, "in_sample"}].push_back(inside(c, pred[i], k));
      if (c.held_out && pred_held[i] > 0) {
        groups[{c.kind, "held_out"}].push_back(ape(pred_held[i], c.measured_tps));
        cover[{c.kind, "held_out"}].push_back(inside(c, pred_held[i], held));
      }
      const std::string key = c.kind + "/" + c.backend + "/" + device_kind_name(c.device->kind) + "/" +
                              (c.work.expert_share > 0 ? "moe" : "dense");
      Cls& cl = classes[key];
      cl.signed_pct.push_back((pred[i] - c.measured_tps) / c.measured_tps * 100.0);
      cl.abs_pct.push_back(e);
      cl.in.push_back(inside(c, pred[i], k));
    } else {
      groups[{c.kind, c.group}].push_back(e);
      cover[{c.kind, c.group}].push_back(inside(c, pred[i], k));
      if (c.held_out && pred_held[i] > 0) cover_placed_held[{c.kind, c.group}].push_back(inside(c, pred_held[i], held));
    }
    json pt = {{"row_id", c.row_id}, {"kind", c.kind}, {"test", c.test}, {"device_class", c.backend},
               {"model", c.model_id}, {"hardware", c.device_id}, {"gpu_count", c.gpu_count}, {"quant", c.quant},
               {"group", c.group}, {"held_out", c.held_out}, {"source", c.source},
               {"measured_tps", c.measured_tps}, {"predicted_tps", pred[i]},
               {"error_pct", (pred[i] - c.measured_tps) / c.measured_tps * 100.0}};
    if (!c.settings.empty()) pt["settings"] = c.settings;
    if (c.held_out && pred_held[i] > 0) pt["predicted_held_out_tps"] = pred_held[i];
    const auto r = rows_by_id.find(c.row_id);
    pt["setup"] = row_setup(r == rows_by_id.end() ? nullptr : r->second);
    points.push_back(pt);
  }
  // Points that look the same (model, device and count, quant, test, backend class, placement)
  // name what differs between them: `distinct` lists the fields of `setup` (then "source", then
  // "row_id" when nothing else does) whose values are not all equal within that set, so the page
  // shows "Vulkan RADV, flash attention off" beside one and "Vulkan AMDVLK" beside the other.
  {
    std::map<std::string, std::vector<std::size_t>> same;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const json& p = points[i];
      same[p["model"].get<std::string>() + "|" + p["hardware"].get<std::string>() + "|" + std::to_string(p["gpu_count"].get<int>()) +
           "|" + p["quant"].get<std::string>() + "|" + p["kind"].get<std::string>() + "|" + p["test"].get<std::string>() + "|" +
           p["device_class"].get<std::string>() + "|" + p.value("settings", "")].push_back(i);
    }
    for (const auto& entry : same) {
      const std::vector<std::size_t>& idx = entry.second;  // (a lambda cannot capture a structured binding in C++17)
      json distinct = json::array();
      if (idx.size() > 1) {
        auto differs = [&](auto get) {
          for (std::size_t j = 1; j < idx.size(); ++j)
            if (get(points[idx[j]]) != get(points[idx[0]])) return true;
          return false;
        };
        for (const char* f : {"backend", "flash_attn", "build", "flags"})
          if (differs([&](const json& p) { return p["setup"][f]; })) distinct.push_back(f);
        if (differs([](const json& p) { return p["source"]; })) distinct.push_back("source");
        if (distinct.empty()) distinct.push_back("row_id");
      }
      for (std::size_t i : idx) points[i]["distinct"] = distinct;
    }
  }
  json table = json::array();
  for (const auto& [key, a] : by_class)
    table.push_back({{"kind", key.first}, {"device_class", key.second}, {"rows", a.ours.size()},
                     {"ours", stats(a.ours)}, {"bandwidth_over_size", stats(a.naive)},
                     {"bandwidth_over_size_scaled", stats(a.scaled)}});
  // Every group is listed, with 0 rows when the data holds none (the report says so, not hides it).
  json group_list = json::array();
  for (const char* kind : {"tg", "pp"})
    for (const char* split : {"in_sample", "held_out", "multi_gpu", "offloaded"}) {
      const auto it = groups.find({kind, split});
      const std::vector<double> e = it == groups.end() ? std::vector<double>{} : it->second;
      json g = {{"kind", kind}, {"split", split}, {"rows", e.size()}};
      g.update(stats(e));
      std::vector<bool> cv = cover[{kind, split}];
      std::string basis = std::string(split) == "held_out" ? "held_out" : "in_sample";
      if (const auto ph = cover_placed_held.find({kind, split}); ph != cover_placed_held.end() && !ph->second.empty()) {
        cv = ph->second;
        basis = "held_out";
      }
      g["coverage_pct"] = share_pct(cv);
      // The coverage is over its own rows (multi-GPU and offloaded groups: their held-out rows,
      // predicted by a fit that never saw those devices), which may be fewer than the group's
      // `rows`: how many of them fall inside, so the page states "n of m" without arithmetic.
      g["coverage_rows"] = cv.size();
      g["coverage_inside_rows"] = static_cast<std::size_t>(std::count(cv.begin(), cv.end(), true));
      g["coverage_basis"] = basis;
      const SpeedRange r = speed_range(k, kind, std::string(split) == "held_out" || std::string(split) == "in_sample" ? "single" : split);
      g["range_low"] = r.low;
      g["range_high"] = r.high;
      group_list.push_back(g);
    }
  json class_list = json::array();
  for (const auto& [key, cl] : classes) {
    std::vector<std::string> part;
    std::size_t pos = 0;
    while (true) {
      const std::size_t e = key.find('/', pos);
      part.push_back(key.substr(pos, e == std::string::npos ? std::string::npos : e - pos));
      if (e == std::string::npos) break;
      pos = e + 1;
    }
    class_list.push_back({{"kind", part[0]}, {"backend", part[1]}, {"device_kind", part[2]}, {"moe", part[3] == "moe"},
                          {"rows", cl.abs_pct.size()}, {"median_signed_pct", median(cl.signed_pct)},
                          {"median_ape_pct", median(cl.abs_pct)}, {"coverage_pct", share_pct(cl.in)}});
  }
  json excluded = json::object();
  for (const auto& [why, n] : set.excluded) excluded[why] = n;
  return {{"accuracy",
           {{"rows_total", set.rows_total}, {"rows_used", points.size()}, {"excluded", excluded},
            // The band `within_25_pct` counts rows inside, in percent of the measured speed.
            {"band_pct", kBandPct},
            {"baseline_scale", scale}, {"coefficients_source", k.source}, {"fitted_on", k.fitted_on},
            {"held_out_rule", "devices whose catalog id hashes (FNV-1a, 32-bit) to 1 mod 4; refit without their rows"},
            {"note", "in-sample: fitted on these same single-device rows; held-out: refit without the held-out "
                     "devices; multi-GPU and offloaded rows are never fitted on"},
            {"groups", group_list}, {"classes", class_list}, {"table", table}, {"points", points},
            {"sizes", size_accuracy_report(cat)}, {"speculative", speculative_accuracy(cat)},
            // MLX (mlx-lm on Apple silicon, speed/mlx_speed.hpp): its own fit and held-out rows,
            // and the planned checkpoint sizes against published ones.
            {"mlx", [&] {
               json m = mlx_accuracy_json(memo_mlx_speed(cat));
               m["sizes"] = mlx_size_report(cat);
               return m;
             }()}}}};
}

}  // namespace wif
