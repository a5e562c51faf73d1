#include "willitfit/calibration/llama_bench.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include "willitfit/base/error.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

struct PlacedBench {
  EstimateRequest req;
  Estimate est;
};

namespace {

using nlohmann::json;

const json* find_match(const json& doc, const char* key, const std::string& s) {
  if (!doc.contains(key) || !doc[key].is_array()) return nullptr;
  for (const auto& e : doc[key])
    if (e.is_object() && e.value("match", "") == s) return &e;
  return nullptr;
}

// The reason bench_mapping.json's `rows_excluded` gives for a row id ("" = not excluded).
std::string row_excluded(const json& doc, const std::string& row_id) {
  if (row_id.empty() || !doc.contains("rows_excluded") || !doc["rows_excluded"].is_array()) return "";
  for (const auto& e : doc["rows_excluded"]) {
    if (!e.is_object() || !e.contains("rows") || !e["rows"].is_array()) continue;
    for (const auto& r : e["rows"])
      if (r.is_string() && r.get<std::string>() == row_id) return e.value("reason", "row excluded");
  }
  return "";
}

double interpolated_quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

// Placement flags of a row: its own fields, else what its `flags` / `notes` text states.
struct RowFlags {
  int ngl = -1, n_cpu_moe = 0;
  bool all_experts_cpu = false;     // -ot exps=CPU (every routed expert in RAM)
  bool other_override = false;      // an -ot pattern we do not model
  bool no_mmap = false;             // --no-mmap / -mmp 0: host weights in pinned memory
  std::vector<double> tensor_split;
};

RowFlags row_flags(const json& row) {
  RowFlags f;
  std::string text;
  for (const char* k : {"flags", "notes"})
    if (row.contains(k) && row[k].is_string()) text += " " + row[k].get<std::string>();
  static const std::regex ngl_re(R"((?:^|\s)(?:-ngl|--n-gpu-layers)[ =](\d+))");
  static const std::regex moe_re(R"((?:^|\s)(?:--n-cpu-moe|-ncmoe)[ =](\d+))");
  static const std::regex ts_re(R"((?:^|\s)(?:-ts|--tensor-split)[ =]([0-9.,/]+))");
  static const std::regex ot_re(R"((?:^|\s)(?:-ot|--override-tensor)[ =](\S+))");
  std::smatch m;
  if (row.contains("ngl") && row["ngl"].is_number_integer()) f.ngl = row["ngl"].get<int>();
  else if (std::regex_search(text, m, ngl_re)) f.ngl = std::stoi(m[1]);
  if (row.contains("n_cpu_moe") && row["n_cpu_moe"].is_number_integer()) f.n_cpu_moe = row["n_cpu_moe"].get<int>();
  else if (std::regex_search(text, m, moe_re)) f.n_cpu_moe = std::stoi(m[1]);
  if (std::regex_search(text, m, ts_re)) {
    std::string v = m[1];
    for (auto& ch : v) if (ch == '/') ch = ',';
    std::size_t pos = 0;
    while (pos < v.size()) {
      const std::size_t e = v.find(',', pos);
      const std::string part = v.substr(pos, e == std::string::npos ? std::string::npos : e - pos);
      if (!part.empty()) f.tensor_split.push_back(std::atof(part.c_str()));
      if (e == std::string::npos) break;
      pos = e + 1;
    }
  }
  // mmap is stated in the flags, the notes, or the source's description of the run.
  std::string run = text;
  if (row.contains("source_detail") && row["source_detail"].is_string()) run += " " + row["source_detail"].get<std::string>();
  static const std::regex no_mmap_re(R"((?:^|[\s(,])(?:--no-mmap|no-mmap|-mmp[ =]0)(?:$|[\s),]))");
  f.no_mmap = std::regex_search(run, no_mmap_re) || (row.contains("mmap") && row["mmap"].is_number() && row["mmap"].get<int>() == 0);
  if (std::regex_search(text, m, ot_re)) {
    const std::string pat = m[1];
    if (pat.find("exps") != std::string::npos && pat.find("=CPU") != std::string::npos) f.all_experts_cpu = true;
    else f.other_override = true;
  }
  return f;
}

// Flash attention of a run: as the row states it; otherwise llama-bench's default for its build.
// The default was off until it became "auto" (on for GPU backends) in 2025; the rows here that
// state a build from b6700 on ran with auto, rows with an older or no build with it off.
bool row_flash_attn(const json& row) {
  if (row.contains("flash_attn") && row["flash_attn"].is_number()) return row["flash_attn"].get<int>() != 0;
  static const std::regex build_re(R"((?:^b|\()(\d{3,5})\)?)");
  std::smatch m;
  const std::string build = row.contains("build") && row["build"].is_string() ? row["build"].get<std::string>() : "";
  return std::regex_search(build, m, build_re) && std::stoi(m[1]) >= 6700;
}

}  // namespace

bool held_out_device(const std::string& device_id) {
  std::uint32_t h = 2166136261u;  // FNV-1a, 32 bit
  for (unsigned char ch : device_id) {
    h ^= ch;
    h *= 16777619u;
  }
  return h % 4 == 1;
}

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
    std::smatch t;
    const std::string test = row.value("test", "");
    if (!std::regex_match(test, t, test_re)) { skip("test length not stated"); continue; }
    // llama-server timings of one request (its own batching, sampling and HTTP path) are not
    // llama-bench runs of `test`; they are kept in the data but not scored.
    if (row.contains("tool") && row["tool"].is_string() && row["tool"].get<std::string>().rfind("llama-server", 0) == 0) {
      skip("llama-server timings, not a llama-bench run");
      continue;
    }
    // Rows the mapping leaves out one by one, each with its stated reason (a run whose setup
    // differs from what its flags tell the model).
    if (const std::string why = row_excluded(m, row.value("row_id", "")); !why.empty()) { skip(why); continue; }
    const json* mm = find_match(m, "models", row.value("model", ""));
    if (!mm) { skip("model not in the catalog"); continue; }
    const ModelEntry* model = cat.find_model(mm->value("id", ""));
    if (!model) { skip("model not in the catalog"); continue; }
    const RowFlags flags = row_flags(row);
    if (flags.other_override) { skip("tensor override not modelled"); continue; }
    const std::string hw = row.value("hardware", "");
    if (const json* x = find_match(m, "hardware_excluded", hw)) { skip(x->value("reason", "hardware excluded")); continue; }
    const json* hm = find_match(m, "hardware", hw);
    const Device* dev = hm ? cat.find_device(hm->value("id", "")) : nullptr;
    if (!dev) { skip("hardware not in the catalog"); continue; }
    const int gpu_count = hm->value("count", 1);
    if (row.value("gpu_count", 1) != gpu_count) { skip("GPU count differs from the hardware mapping"); continue; }
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
    c.gpu_count = gpu_count;
    c.source = row.value("source", "");
    c.held_out = held_out_device(dev->id);
    // -ngl counts the file's blocks, NextN ones included (llamacpp/placement.hpp ngl_flag).
    const bool offloaded = (flags.ngl >= 0 && flags.ngl <= model->arch.n_layer_all()) || flags.n_cpu_moe > 0 ||
                           flags.all_experts_cpu;
    c.group = offloaded ? "offloaded" : gpu_count > 1 ? "multi_gpu" : "single";
    c.measured_tps = row["tps"].is_number() ? row["tps"].get<double>() : 0;
    if (c.measured_tps <= 0) { skip("no speed value"); continue; }
    if (row.contains("n_ubatch") && row["n_ubatch"].is_number()) c.n_ubatch = row["n_ubatch"].get<std::int64_t>();
    if (c.group != "single") {
      // Through the estimate path: the same request a person would make for this run.
      json q = {{"model", c.model_id}, {"quant", c.quant}, {"hardware", dev->id}, {"count", gpu_count},
                {"context", c.depth + c.n}, {"ubatch", c.n_ubatch}, {"depth", c.depth},
                {"prompt", c.kind == "pp" ? c.n : 1}, {"gen", c.kind == "tg" ? c.n : 1},
                {"flash_attn", row_flash_attn(row)}, {"backend", c.backend}};
      std::string settings;
      if (flags.ngl >= 0) { q["ngl"] = flags.ngl; settings += "-ngl " + std::to_string(flags.ngl); }
      const int cpu_moe = flags.all_experts_cpu ? static_cast<int>(model->arch.n_layer_main()) : flags.n_cpu_moe;
      if (cpu_moe > 0) { q["n_cpu_moe"] = cpu_moe; settings += " --n-cpu-moe " + std::to_string(cpu_moe); }
      if (!flags.tensor_split.empty()) q["tensor_split"] = flags.tensor_split;
      // Several GPUs: the row's gpu_count says it; llama-bench splits by layer (its default).
      if (offloaded) {
        // The run fitted its RAM; without a stated size assume plenty. RAM bandwidth as stated.
        q["ram_gib"] = row.contains("ram_gib") && row["ram_gib"].is_number() ? row["ram_gib"].get<double>() : 1024.0;
        if (row.contains("ram_bandwidth_gbs") && row["ram_bandwidth_gbs"].is_number())
          q["ram_bandwidth_gbs"] = row["ram_bandwidth_gbs"];
      }
      c.settings = settings.empty() ? settings : settings.substr(settings[0] == ' ' ? 1 : 0);
      try {
        auto pb = std::make_shared<PlacedBench>();
        pb->req = parse_request(cat, q);
        // Pinned or pageable host weights (HostLink): as the run states mmap; override tensors
        // are pinned under mmap only from ggml-org/llama.cpp PR #20978 (2026-03-25) on, after
        // every run here dated 2025 or earlier.
        pb->req.host_link.no_mmap = flags.no_mmap;
        const std::string date = row.contains("date") && row["date"].is_string() ? row["date"].get<std::string>() : "";
        pb->req.host_link.pinned_overrides = !(date.rfind("2023", 0) == 0 || date.rfind("2024", 0) == 0 || date.rfind("2025", 0) == 0);
        pb->est = run_estimate(cat, pb->req);
        c.work = model_work(model->arch, *pb->est.plan);
        c.file_bytes = static_cast<double>(pb->est.plan->file_bytes);
        c.family = quant_family(*pb->est.plan);
        c.mmq_legacy = plan_is_mmq_legacy(*pb->est.plan);
        c.placed = pb;
      } catch (const std::exception&) {
        skip("cannot place this run");
        continue;
      }
      c.basis = device_rate_basis(*c.device, c.backend, c.family, false, c.mmq_legacy);
      set.cases.push_back(std::move(c));
      continue;
    }
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
      c.mmq_legacy = plan_is_mmq_legacy(it->second.first);
      KvOptions kv;  // llama-bench defaults: f16 cache
      kv.n_ubatch = c.n_ubatch;
      kv.flash_attn = row_flash_attn(row);
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
    c.basis = device_rate_basis(*c.device, c.backend, c.family, false, c.mmq_legacy);
    set.cases.push_back(std::move(c));
  }
  return set;
}

double predict_case(const BenchCase& c, const SpeedCoefficients& k) {
  if (c.placed) {
    const PlacedBench& p = *c.placed;
    const SpeedResult s = placed_speed(p.req.model.arch, *p.est.plan, p.est.placement, p.req.devices, p.req.kv,
                                       p.req.speed, k, p.req.host_link);
    return c.kind == "tg" ? s.gen_avg_tps : (s.prefill_available ? s.prefill_tps : 0);
  }
  const DeviceRates r = device_rates(c.basis, k);
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

namespace {

// Fold of a device for the ranges' cross-validation: the next two bits of the same hash as the
// held-out rule (held_out_device uses h % 4), so the folds split the training devices too.
int device_fold(const std::string& device_id) {
  std::uint32_t h = 2166136261u;
  for (unsigned char ch : device_id) {
    h ^= ch;
    h *= 16777619u;
  }
  return static_cast<int>((h / 4) % 4);
}

const std::string& class_key(const BenchCase& c) { return c.basis.class_key; }

// Coordinate descent on the summed |log(predicted/measured)| of single-device rows (no ranges).
SpeedCoefficients fit_core(const std::vector<const BenchCase*>& cases, const SpeedCoefficients& start, bool from_priors) {
  SpeedCoefficients k = start;
  if (from_priors) {
    for (auto& [id, b] : k.backends) b = BackendSpeed{};
    k.flop_class.clear();
    k.peak_kind_eff.clear();
  }
  std::map<std::string, int> seen, seen_moe, seen_class, seen_linear, seen_peak;
  for (const BenchCase* c : cases) {
    if (c->work.linear_layers > 0) seen_linear[c->kind]++;
    seen[c->backend + "/" + c->kind]++;
    if (c->kind == "pp" && c->work.expert_share > 0) seen_moe[c->backend]++;
    if (c->kind == "pp") seen_class[class_key(*c)]++;
    if (c->kind == "pp") seen_peak[c->basis.peak_kind]++;
  }
  auto loss = [&](const std::string& kind) {
    double s = 0;
    for (const BenchCase* c : cases)
      if (c->kind == kind) {
        const double p = predict_case(*c, k);
        s += p > 0 ? std::fabs(std::log(p / c->measured_tps)) : 50.0;
      }
    return s;
  };
  // A parameter: a pointer into k and its bounds; searched in log space by golden section.
  struct Param { double* v; double lo, hi; const char* kind; };
  std::vector<Param> params;
  for (auto& [id, b] : k.backends) {
    b.fitted = false;
    if (seen.count(id + "/tg")) {
      params.push_back({&b.bw_eff, 0.15, 1.2, "tg"});
      params.push_back({&b.layer_us, 0.5, 300, "tg"});
      b.fitted = true;
    }
    if (seen.count(id + "/pp")) params.push_back({&b.flop_eff, 0.02, 1.2, "pp"});
    b.moe_eff = 0;
    if (seen_moe[id] >= 3) {  // a backend's own MoE factor once it has a few MoE prefill rows
      b.moe_eff = k.moe_prefill > 0 ? k.moe_prefill : 0.5;
      params.push_back({&b.moe_eff, 0.03, 3.0, "pp"});
    }
  }
  // Device classes with at least 2 prefill rows get a factor on their backend's flop_eff; the
  // class with the most rows of each backend stays at 1 (the backend's own flop_eff covers it).
  std::map<std::string, std::pair<std::string, int>> biggest;  // backend -> (class, rows)
  for (const auto& [key, n] : seen_class) {
    const std::string b = key.substr(0, key.find('/'));
    if (n > biggest[b].second) biggest[b] = {key, n};
  }
  // Factors of classes these rows no longer have (a renamed key) are dropped.
  for (auto it = k.flop_class.begin(); it != k.flop_class.end();)
    it = seen_class.count(it->first) ? std::next(it) : k.flop_class.erase(it);
  for (const auto& [key, n] : seen_class) {
    const std::string b = key.substr(0, key.find('/'));
    if (n < 2 || biggest[b].first == key) continue;
    k.flop_class[key] = 1.0;
    params.push_back({&k.flop_class[key], 0.1, 10.0, "pp"});
  }
  // A factor per kind of arithmetic other than the tensor units' (DeviceRates::peak_kind), shared
  // by every backend, once at least 2 prefill rows run on it; a kind no row has is dropped.
  for (auto it = k.peak_kind_eff.begin(); it != k.peak_kind_eff.end();)
    it = seen_peak[it->first] >= 2 ? std::next(it) : k.peak_kind_eff.erase(it);
  for (const auto& [kind, n] : seen_peak) {
    if (kind == "tensor" || n < 2) continue;
    if (!k.peak_kind_eff.count(kind)) k.peak_kind_eff[kind] = 1.0;
    params.push_back({&k.peak_kind_eff[kind], 0.1, 10.0, "pp"});
  }
  for (const char* f : {"f16", "kquant", "mxfp4"}) params.push_back({&k.decode_quant[f], 0.3, 2.0, "tg"});
  k.decode_quant["legacy"] = 1.0;
  for (const char* f : {"legacy", "kquant", "mxfp4"}) params.push_back({&k.prefill_quant[f], 0.1, 3.0, "pp"});
  k.prefill_quant["f16"] = 1.0;
  if (k.expert_rows_half <= 0) k.expert_rows_half = 8;
  params.push_back({&k.expert_rows_half, 0.25, 512, "pp"});
  params.push_back({&k.attn_eff, 0.1, 3.0, "pp"});
  // Linear-attention layers' extra fixed cost, once rows of such models are there to fit it.
  k.linear_step_layers = seen_linear["tg"] ? std::max(k.linear_step_layers, 0.5) : 0;
  k.linear_chunk_layers = seen_linear["pp"] ? std::max(k.linear_chunk_layers, 0.5) : 0;
  if (seen_linear["tg"]) params.push_back({&k.linear_step_layers, 0.01, 100, "tg"});
  if (seen_linear["pp"]) params.push_back({&k.linear_chunk_layers, 0.01, 100, "pp"});
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
  // The shared MoE factor (backends without MoE rows): the geometric mean of the fitted ones.
  double log_sum = 0;
  int n_moe = 0;
  for (const auto& [id, b] : k.backends)
    if (b.moe_eff > 0) { log_sum += std::log(b.moe_eff); ++n_moe; }
  if (n_moe) k.moe_prefill = std::exp(log_sum / n_moe);
  return k;
}

// Tail share cut from each side of a range's ratios. Out-of-fold p10/p90 ranges held only about
// 65 % of the held-out devices' prefill rows: the folds' devices resemble each other more than a
// new device resembles them, so the ranges take the out-of-fold p5/p95 (about 80 % of held-out rows).
constexpr double kRangeTail = 0.05;

void set_range(SpeedCoefficients& k, const std::string& key, const std::vector<double>& ratios) {
  if (ratios.empty()) return;
  SpeedRange r;
  r.low = std::min(1.0, interpolated_quantile(ratios, kRangeTail));
  r.high = std::max(1.0, interpolated_quantile(ratios, 1 - kRangeTail));
  r.rows = static_cast<int>(ratios.size());
  k.ranges[key] = r;
}

}  // namespace

SpeedCoefficients fit_speed(const BenchSet& all, const SpeedCoefficients& start, bool training_only) {
  // Only single-device rows are fitted (placed rows validate the placement path); with
  // `training_only`, not the held-out devices' either, and no coefficient starts from a value
  // that was fitted on them.
  std::vector<const BenchCase*> fit_rows, placed_rows;
  for (const auto& c : all.cases) {
    if (training_only && c.held_out) continue;
    (c.group == "single" ? fit_rows : placed_rows).push_back(&c);
  }
  SpeedCoefficients k = fit_core(fit_rows, start, training_only);
  // Ranges. Single-device rows: out-of-fold ratios (each fold of devices predicted by a fit
  // without it), so the range is as wide as the error on hardware the fit has not seen, not
  // the narrower in-sample spread. Placed rows are never fitted: their ratios as they are.
  std::map<std::string, std::vector<double>> ratios;
  for (int fold = 0; fold < 4; ++fold) {
    std::vector<const BenchCase*> train, test;
    for (const BenchCase* c : fit_rows) (device_fold(c->device_id) == fold ? test : train).push_back(c);
    if (test.empty() || train.empty()) continue;
    const SpeedCoefficients kf = fit_core(train, k, false);
    for (const BenchCase* c : test) {
      const double p = predict_case(*c, kf);
      if (p > 0 && std::isfinite(p)) {
        ratios[c->kind + "/single"].push_back(c->measured_tps / p);
        ratios[c->kind + "/single/" + c->backend].push_back(c->measured_tps / p);
      }
    }
  }
  for (const BenchCase* c : placed_rows) {
    const double p = predict_case(*c, k);
    if (p > 0 && std::isfinite(p)) ratios[c->kind + "/" + c->group].push_back(c->measured_tps / p);
  }
  k.ranges.clear();
  for (const char* kind : {"tg", "pp"}) set_range(k, std::string(kind) + "/single", ratios[std::string(kind) + "/single"]);
  // A backend's own single-device range once it has at least 8 out-of-fold rows (fewer give no
  // usable quantiles): a backend the model fits well gets a narrower range, one it fits worse
  // a wider one, instead of one width for all.
  for (const auto& [key, v] : ratios)
    if (std::count(key.begin(), key.end(), '/') == 2 && v.size() >= 8) set_range(k, key, v);
  // Placed groups: the single-device range, widened to the group's own p10/p90 once it has at
  // least 8 rows (fewer give no usable quantiles).
  for (const char* kind : {"tg", "pp"})
    for (const char* group : {"multi_gpu", "offloaded"}) {
      SpeedRange r = speed_range(k, kind, "single");
      const std::vector<double>& v = ratios[std::string(kind) + "/" + group];
      if (v.size() >= 8) {
        r.low = std::min(r.low, interpolated_quantile(v, kRangeTail));
        r.high = std::max(r.high, interpolated_quantile(v, 1 - kRangeTail));
      }
      r.rows = static_cast<int>(v.size());
      k.ranges[std::string(kind) + "/" + group] = r;
    }
  const SpeedRange tg = speed_range(k, "tg", "single"), pp = speed_range(k, "pp", "single");
  k.decode_low = tg.low;
  k.decode_high = tg.high;
  k.prefill_low = pp.low;
  k.prefill_high = pp.high;
  int ntg = 0, npp = 0;
  for (const BenchCase* c : fit_rows) (c->kind == "tg" ? ntg : npp)++;
  k.fitted_on = std::to_string(ntg) + " tg rows and " + std::to_string(npp) + " pp rows of measurements/llamacpp_bench.jsonl";
  return k;
}

}  // namespace wif
