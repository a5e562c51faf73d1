#include "willitfit/bench.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include "willitfit/error.hpp"
#include "willitfit/quantize.hpp"

namespace wif {
namespace {

using nlohmann::json;

const json* find_match(const json& doc, const char* key, const std::string& s) {
  if (!doc.contains(key) || !doc[key].is_array()) return nullptr;
  for (const auto& e : doc[key])
    if (e.is_object() && e.value("match", "") == s) return &e;
  return nullptr;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

double naive_tps(const BenchCase& c) { return c.device->bandwidth_gbs * 1e9 / c.file_bytes; }

}  // namespace

BenchSet map_bench_rows(const Catalog& cat) {
  BenchSet set;
  const json* map = cat.document("measurements/bench_mapping.json");
  static const json empty = json::object();
  const json& m = map ? *map : empty;
  static const std::regex test_re(R"(^(pp|tg)(\d+)(?: @ d(\d+))?$)");
  // The same model + quant is planned once.
  std::map<std::string, std::pair<TensorPlan, ModelWork>> plans;
  const SpeedCoefficients k0 = speed_coefficients(cat);
  for (const auto& row : cat.measurements()) {
    if (!row.contains("test") || !row.contains("tps") || !row.contains("hardware")) continue;  // other files
    ++set.rows_total;
    auto skip = [&](const std::string& why) { ++set.excluded[why]; };
    if (row.value("gpu_count", 1) > 1) { skip("split over several GPUs (placement)"); continue; }
    std::smatch t;
    const std::string test = row.value("test", "");
    if (!std::regex_match(test, t, test_re)) { skip("test length not stated"); continue; }
    const json* mm = find_match(m, "models", row.value("model", ""));
    if (!mm) { skip("model not in the catalog"); continue; }
    const ModelEntry* model = cat.find_model(mm->value("id", ""));
    if (!model) { skip("model not in the catalog"); continue; }
    if (row.contains("ngl") && row["ngl"].is_number() &&
        row["ngl"].get<std::int64_t>() <= model->arch.n_layer_main()) { skip("partly offloaded (placement)"); continue; }
    const std::string hw = row.value("hardware", "");
    if (const json* x = find_match(m, "hardware_excluded", hw)) { skip(x->value("reason", "hardware excluded")); continue; }
    const json* hm = find_match(m, "hardware", hw);
    const Device* dev = hm ? cat.find_device(hm->value("id", "")) : nullptr;
    if (!dev) { skip("hardware not in the catalog"); continue; }
    const json* qm = find_match(m, "quants", row.value("quant", ""));
    if (!qm) { skip("quant not stated or mixed"); continue; }
    const json* bm = find_match(m, "backends", row.value("backend", ""));
    if (!bm) { skip("backend not stated or not single-device"); continue; }
    BenchCase c;
    c.row_id = row.value("row_id", "");
    c.kind = t[1];
    c.n = std::stoll(t[2]);
    c.depth = t[3].matched ? std::stoll(t[3]) : 0;
    c.test = test;
    c.backend = bm->value("class", "");
    c.model_id = model->id;
    c.device_id = dev->id;
    c.device = dev;
    c.quant = qm->value("id", "");
    c.measured_tps = row["tps"].is_number() ? row["tps"].get<double>() : 0;
    if (c.measured_tps <= 0) { skip("no speed value"); continue; }
    if (row.contains("n_ubatch") && row["n_ubatch"].is_number()) c.n_ubatch = row["n_ubatch"].get<std::int64_t>();
    try {
      const std::string key = c.model_id + "|" + c.quant;
      auto it = plans.find(key);
      if (it == plans.end()) {
        TensorPlan p = plan_quantization(model->arch, c.quant);
        ModelWork w = model_work(model->arch, p);
        it = plans.emplace(key, std::make_pair(std::move(p), w)).first;
      }
      c.work = it->second.second;
      c.file_bytes = static_cast<double>(it->second.first.file_bytes);
      c.family = quant_family(it->second.first);
      KvOptions kv;  // llama-bench defaults: f16 cache
      kv.n_ubatch = c.n_ubatch;
      if (c.kind == "tg") {
        for (int i = 0; i <= 8; ++i) c.kv_samples.push_back(kv_read_bytes(model->arch, kv, c.depth + (c.n - 1) * i / 8));
      } else {
        c.attn_flops = attention_flops(model->arch, c.n, c.depth);
        if (device_rates(*dev, c.backend, c.family, k0).peak_tflops <= 0) {
          skip("device states no FLOP rate");
          continue;
        }
      }
    } catch (const std::exception&) {
      skip("cannot plan this model and quant");
      continue;
    }
    set.cases.push_back(std::move(c));
  }
  return set;
}

double predict_case(const BenchCase& c, const SpeedCoefficients& k) {
  const DeviceRates r = device_rates(*c.device, c.backend, c.family, k);
  if (c.kind == "tg") {
    double sum = 0;
    for (std::size_t i = 0; i < c.kv_samples.size(); ++i) {
      const double s = decode_step(c.work, c.kv_samples[i], r).total_s;
      sum += (i == 0 || i + 1 == c.kv_samples.size()) ? s / 2 : s;
    }
    return sum > 0 ? static_cast<double>(c.kv_samples.size() - 1) / sum : 0;
  }
  const PrefillTerms p = prefill_time(c.work, c.attn_flops, c.n, c.n_ubatch, r);
  return p.available ? static_cast<double>(c.n) / p.total_s : 0;
}

json accuracy_report(const Catalog& cat) {
  const BenchSet set = map_bench_rows(cat);
  const SpeedCoefficients k = speed_coefficients(cat);
  // Baseline 2: baseline 1 times one constant per test kind, fitted on the same rows (median ratio).
  std::map<std::string, double> scale;
  for (const char* kind : {"tg", "pp"}) {
    std::vector<double> ratios;
    for (const auto& c : set.cases)
      if (c.kind == kind) ratios.push_back(c.measured_tps / naive_tps(c));
    scale[kind] = ratios.empty() ? 1.0 : quantile(ratios, 0.5);
  }
  struct Acc { std::vector<double> ours, naive, scaled; };
  std::map<std::pair<std::string, std::string>, Acc> groups;
  json points = json::array();
  for (const auto& c : set.cases) {
    const double pred = predict_case(c, k);
    if (!(pred > 0) || !std::isfinite(pred)) continue;
    const double nv = naive_tps(c), sc = nv * scale[c.kind];
    auto ape = [&](double p) { return std::fabs(p - c.measured_tps) / c.measured_tps * 100.0; };
    for (const std::string& g : {c.backend, std::string("all")}) {
      Acc& a = groups[{c.kind, g}];
      a.ours.push_back(ape(pred));
      a.naive.push_back(ape(nv));
      a.scaled.push_back(ape(sc));
    }
    points.push_back({{"row_id", c.row_id}, {"kind", c.kind}, {"test", c.test}, {"device_class", c.backend},
                      {"model", c.model_id}, {"hardware", c.device_id}, {"quant", c.quant},
                      {"measured_tps", c.measured_tps}, {"predicted_tps", pred}});
  }
  auto stats = [](const std::vector<double>& e) {
    const double within = static_cast<double>(std::count_if(e.begin(), e.end(), [](double x) { return x <= 25.0; }));
    return json{{"median_ape_pct", quantile(e, 0.5)}, {"within_25_pct", e.empty() ? 0.0 : 100.0 * within / static_cast<double>(e.size())}};
  };
  json table = json::array();
  for (const auto& [key, a] : groups)
    table.push_back({{"kind", key.first}, {"device_class", key.second}, {"rows", a.ours.size()},
                     {"ours", stats(a.ours)}, {"bandwidth_over_size", stats(a.naive)},
                     {"bandwidth_over_size_scaled", stats(a.scaled)}});
  json excluded = json::object();
  for (const auto& [why, n] : set.excluded) excluded[why] = n;
  return {{"accuracy", {{"rows_total", set.rows_total}, {"rows_used", points.size()}, {"excluded", excluded},
                        {"baseline_scale", scale}, {"coefficients_source", k.source},
                        {"note", "in-sample: the coefficients were fitted on these same rows"},
                        {"table", table}, {"points", points}}}};
}

SpeedCoefficients fit_speed(const BenchSet& set, const SpeedCoefficients& start) {
  SpeedCoefficients k = start;
  std::map<std::string, int> seen;
  for (const auto& c : set.cases) seen[c.backend + "/" + c.kind]++;
  auto loss = [&](const std::string& kind) {
    double s = 0;
    for (const auto& c : set.cases)
      if (c.kind == kind) {
        const double p = predict_case(c, k);
        s += p > 0 ? std::fabs(std::log(p / c.measured_tps)) : 50.0;
      }
    return s;
  };
  // A parameter: a pointer into k and its bounds; searched in log space by golden section.
  struct Param { double* v; double lo, hi; const char* kind; };
  std::vector<Param> params;
  for (auto& [id, b] : k.backends) {
    if (seen.count(id + "/tg")) {
      params.push_back({&b.bw_eff, 0.15, 1.2, "tg"});
      params.push_back({&b.layer_us, 0.5, 300, "tg"});
      b.fitted = true;
    }
    if (seen.count(id + "/pp")) params.push_back({&b.flop_eff, 0.02, 1.2, "pp"});
  }
  for (const char* f : {"f16", "kquant", "mxfp4"}) params.push_back({&k.decode_quant[f], 0.3, 2.0, "tg"});
  k.decode_quant["legacy"] = 1.0;
  for (const char* f : {"legacy", "kquant", "mxfp4"}) params.push_back({&k.prefill_quant[f], 0.1, 3.0, "pp"});
  k.prefill_quant["f16"] = 1.0;
  params.push_back({&k.moe_prefill, 0.05, 2.0, "pp"});
  for (const char* kind : {"tg", "pp"}) {
    for (int sweep = 0; sweep < 6; ++sweep)
      for (auto& p : params) {
        if (std::string(p.kind) != kind) continue;
        double a = std::log(p.lo), b = std::log(p.hi);
        const double g = (std::sqrt(5.0) - 1) / 2;
        for (int it = 0; it < 40; ++it) {
          const double x1 = b - g * (b - a), x2 = a + g * (b - a);
          *p.v = std::exp(x1);
          const double f1 = loss(kind);
          *p.v = std::exp(x2);
          const double f2 = loss(kind);
          if (f1 < f2) b = x2; else a = x1;
        }
        *p.v = std::exp((a + b) / 2);
      }
  }
  k.decode_quant["iquant"] = k.decode_quant["kquant"];  // no IQ rows: assume K-quant kernels
  k.prefill_quant["iquant"] = k.prefill_quant["kquant"];
  // Ranges: where 80% of the calibration rows fall, as measured / predicted.
  std::map<std::string, std::vector<double>> ratios;
  for (const auto& c : set.cases) {
    const double p = predict_case(c, k);
    if (p > 0) ratios[c.kind].push_back(c.measured_tps / p);
  }
  k.decode_low = std::min(1.0, quantile(ratios["tg"], 0.1));
  k.decode_high = std::max(1.0, quantile(ratios["tg"], 0.9));
  k.prefill_low = std::min(1.0, quantile(ratios["pp"], 0.1));
  k.prefill_high = std::max(1.0, quantile(ratios["pp"], 0.9));
  int ntg = 0, npp = 0;
  for (const auto& c : set.cases) (c.kind == "tg" ? ntg : npp)++;
  k.fitted_on = std::to_string(ntg) + " tg rows and " + std::to_string(npp) + " pp rows of measurements/llamacpp_bench.jsonl";
  return k;
}

}  // namespace wif
