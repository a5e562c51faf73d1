#include "willitfit/estimate/engine_fit.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/servers/sglang.hpp"

namespace wif {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::uint64_t kMiB = 1024ull * 1024ull;

// The estimate's uncertainty on one device: 2% of its total plus 256 MiB (the spread seen in
// calibration/llamacpp_buffers.jsonl for compute buffers and runtime overhead).
std::uint64_t high(std::uint64_t total) {
  return total + static_cast<std::uint64_t>(0.02 * static_cast<double>(total)) + 256 * kMiB;
}

nlohmann::json load_json(const DeviceLoad& d) {
  nlohmann::json j = {{"id", d.id}, {"name", d.name}, {"backend", d.backend},
          {"weights_bytes", d.weights_bytes}, {"kv_bytes", d.kv_bytes},
          {"compute_bytes", d.compute_bytes}, {"op_offload_bytes", d.op_offload_bytes},
          {"overhead_bytes", d.overhead_bytes}, {"total_bytes", d.total_bytes},
          {"usable_bytes", d.usable_bytes}, {"fits", d.fits},
          {"n_layers", d.n_layers}, {"has_output", d.has_output},
          {"split", d.split}, {"dense_weights_bytes", d.dense_weights_bytes},
          {"expert_weights_bytes", d.expert_weights_bytes},
          {"read_per_token_bytes", d.read_per_token_bytes}};
  if (d.first_layer >= 0) j["first_layer"] = d.first_layer;  // absent when it holds no layer
  return j;
}

// vLLM and SGLang serve safetensors checkpoints on discrete GPUs with tensor parallelism.
bool server_engine(const std::string& engine) { return engine == "vllm" || engine == "sglang"; }

// Why a server budget does not fit, as codes with their numbers (empty when it fits).
nlohmann::json diagnostics(const VllmBudget& b) {
  nlohmann::json d = nlohmann::json::array();
  if (b.reason_code == "context_exceeds_kv")
    d.push_back({{"code", b.reason_code}, {"values", {{"max_model_len", b.max_model_len}, {"max_model_len_fit", b.max_model_len_fit}}}});
  else if (!b.reason_code.empty())
    d.push_back({{"code", b.reason_code}, {"values", nlohmann::json::object()}});
  return d;
}

nlohmann::json vllm_json(const VllmBudget& b, double util) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : b.groups)
    groups.push_back({{"kind", g.kind}, {"layers", g.layers}, {"page_bytes", g.page_bytes},
                      {"blocks_per_request", g.blocks_per_request}});
  return {{"settings", {{"tensor_parallel", b.tensor_parallel}, {"max_model_len", b.max_model_len},
                        {"gpu_memory_utilization", util}, {"kv_cache_dtype", b.kv_cache_dtype},
                        {"max_num_seqs", b.max_num_seqs}, {"max_num_batched_tokens", b.max_num_batched_tokens},
                        {"block_size", b.block_size}}},
          {"per_gpu", {{"total_bytes", b.total_bytes}, {"requested_bytes", b.requested_bytes},
                       {"weights_bytes", b.weights_bytes}, {"activation_bytes", b.activation_bytes},
                       {"non_torch_bytes", b.non_torch_bytes}, {"cuda_graph_bytes", b.cuda_graph_bytes},
                       {"cuda_context_bytes", b.cuda_context_bytes},
                       {"kv_available_bytes", b.kv_available_bytes}, {"process_bytes", b.process_bytes}}},
          {"kv_groups", groups}, {"layers_per_group", b.layers_per_group},
          {"num_blocks", b.num_blocks}, {"kv_tokens", b.kv_tokens},
          {"kv_bytes_per_token", b.kv_bytes_per_token},
          {"max_concurrency", b.max_concurrency}, {"max_model_len_fit", b.max_model_len_fit},
          {"graphs_fit_headroom", b.graphs_fit_headroom}, {"fits", b.fits}, {"reason", b.reason},
          {"diagnostics", diagnostics(b)}};
}

}  // namespace

void parse_serving(const Catalog& cat, const nlohmann::json& q, EstimateRequest& r) {
  const auto& hw = q["hardware"];
  if (hw.is_array()) {
    if (hw.empty()) throw InputError("bad_value", "hardware", "give at least one device");
    // The same 1..64 bound as "count": checked before any entry is resolved, so a list of
    // thousands is refused at once instead of placed.
    if (hw.size() > 64)
      throw InputError("bad_value", "hardware", "a list holds 1 to 64 devices, not " + std::to_string(hw.size()));
    if (q.contains("count")) throw InputError("bad_value", "count", "give either a list of devices or a count, not both");
    for (std::size_t i = 0; i < hw.size(); ++i) {
      Device d = resolve_device(cat, hw[i], "hardware[" + std::to_string(i) + "]");
      if (hw.size() > 1 && d.kind != DeviceKind::Gpu)
        throw InputError("bad_value", "hardware[" + std::to_string(i) + "]",
                         "several devices must all be discrete GPUs; '" + d.name + "' is not");
      r.devices.push_back(d);
    }
    r.device = r.devices.front();
    r.count = static_cast<int>(r.devices.size());
  } else {
    r.devices.assign(static_cast<std::size_t>(r.count), r.device);
  }
  if (q["model"].is_string())
    if (const ModelEntry* m = cat.find_model(q["model"].get<std::string>()))
      if (m->raw.contains("gguf") && m->raw["gguf"].is_array())
        for (const auto& g : m->raw["gguf"])
          if (g.is_object() && g.contains("repo") && g.contains("quant") && g["repo"].is_string() && g["quant"].is_string())
            r.model.gguf.push_back({g["repo"].get<std::string>(), g["quant"].get<std::string>()});

  if (auto v = opt_int(q, "ngl", "", -1, 100000)) { r.placement.ngl = static_cast<int>(*v); r.placement_given = true; }
  if (auto v = opt_int(q, "n_cpu_moe", "", 0, 100000)) { r.placement.n_cpu_moe = static_cast<int>(*v); r.placement_given = true; }
  if (q.contains("tensor_split")) {
    const auto& ts = q["tensor_split"];
    if (!ts.is_array()) throw InputError("bad_type", "tensor_split", "tensor_split is a list of shares, one per device");
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (!ts[i].is_number()) throw InputError("bad_type", "tensor_split[" + std::to_string(i) + "]", "a share is a number");
      r.placement.tensor_split.push_back(ts[i].get<double>());
    }
    // Shares are relative (llama.cpp -ts): past 1e6 they are rescaled so the largest is 1, so
    // their sum cannot overflow (1e308,1e308 is an even split, written -ts 1,1).
    double top = 0;
    for (double x : r.placement.tensor_split) top = std::max(top, x);
    if (top > 1e6 && std::isfinite(top))
      for (double& x : r.placement.tensor_split) x /= top;
    if (r.placement.tensor_split.size() != r.devices.size())
      throw InputError("bad_value", "tensor_split", "tensor_split needs one share per device (" + std::to_string(r.devices.size()) + ")");
    r.placement_given = true;
  }
  r.placement.mmap = opt_bool(q, "mmap", "").value_or(defaults::kMmap);

  VllmOptions& v = r.vllm;
  v.tensor_parallel = static_cast<int>(opt_int(q, "tensor_parallel", "", 1, 1024).value_or(r.count));
  v.concurrency = opt_int(q, "concurrency", "", 1, 1000000).value_or(0);
  v.mem_fraction_static = opt_num(q, "mem_fraction_static", "", 0.01, 1.0).value_or(0);
  if (server_engine(r.engine) && v.tensor_parallel > r.count)
    throw InputError("bad_value", "tensor_parallel", "tensor parallel size exceeds the number of GPUs (" + std::to_string(r.count) + ")");
  v.gpu_memory_utilization = opt_num(q, "gpu_memory_utilization", "", 0.01, 1.0).value_or(defaults::kGpuMemoryUtilization);
  v.max_num_seqs = opt_int(q, "max_num_seqs", "", 1, 1000000).value_or(0);
  v.max_num_batched_tokens = opt_int(q, "max_num_batched_tokens", "", 1, 100000000).value_or(0);
  v.kv_cache_dtype = opt_str(q, "kv_cache_dtype", "").value_or(defaults::kKvCacheDtype);
  v.block_size = static_cast<int>(opt_int(q, "block_size", "", 1, 4096).value_or(0));
  v.enforce_eager = opt_bool(q, "enforce_eager", "").value_or(defaults::kEnforceEager);
  // SGLang reads the same request fields under its own names (sglang.hpp); its context_length,
  // like vLLM's max_model_len, is the request's one context (server_context), set at use.
  SglangOptions& g = r.sglang;
  g.tensor_parallel = v.tensor_parallel;
  g.mem_fraction_static = v.mem_fraction_static;
  g.chunked_prefill_size = v.max_num_batched_tokens;
  g.max_running_requests = v.max_num_seqs;
  g.kv_cache_dtype = v.kv_cache_dtype;
}

void place_estimate(const Catalog& cat, const EstimateRequest& r, Estimate& e) {
  const Architecture& a = r.model.arch;
  std::vector<PlacementDevice> gpus;
  for (const auto& d : r.devices)
    gpus.push_back({d, usable_memory(d, r.overrides).usable_bytes, backend_overhead_bytes(cat, d)});
  // --- speculative MTP hook (speculative.hpp) ---
  // llama.cpp with --spec-type draft-mtp loads the NextN block and gives it one layer's cache
  // (PR #26534 / #25980). They sit with the output layer: reserved on the last device before
  // placing, so the automatic plan leaves room, then booked as weights and KV there.
  e.spec_weights_bytes = e.spec_kv_bytes = 0;
  if (r.spec.mtp && !gpus.empty()) {
    e.spec_weights_bytes = mtp_weight_bytes(a, *e.plan);
    const std::int64_t n_main = a.n_layer_main(), n_mtp = a.n_layer_all() - n_main;
    if (r.engine == "llama.cpp" && n_main > 0 && static_cast<std::size_t>(n_main) <= e.kv.per_layer.size())
      e.spec_kv_bytes = e.kv.per_layer[static_cast<std::size_t>(n_main - 1)] * static_cast<std::uint64_t>(n_mtp);
    if (r.engine == "llama.cpp") gpus.back().overhead_bytes += e.spec_weights_bytes + e.spec_kv_bytes;
  }
  auto book_spec = [&e, &r](Placement& p) {
    if (!r.spec.mtp || r.engine != "llama.cpp" || p.devices.empty()) return;
    DeviceLoad& d = p.devices.back();
    const std::uint64_t extra = e.spec_weights_bytes + e.spec_kv_bytes;
    if (d.overhead_bytes < extra) return;
    d.overhead_bytes -= extra;
    d.weights_bytes += e.spec_weights_bytes;
    d.kv_bytes += e.spec_kv_bytes;
  };
  // --- end of the speculative MTP hook ---
  PlacementSettings all;
  all.mmap = r.placement.mmap;
  e.full = place_llamacpp(a, *e.plan, e.kv, r.kv, gpus, r.ram_gib, all);
  if (r.placement_given) e.placement = place_llamacpp(a, *e.plan, e.kv, r.kv, gpus, r.ram_gib, r.placement);
  else if (e.full.fits) e.placement = e.full;
  else e.placement = auto_place(a, *e.plan, e.kv, r.kv, gpus, r.ram_gib, r.placement.mmap);
  book_spec(e.full);
  book_spec(e.placement);

  // memory.*_bytes: everything on the accelerators (the single-device contract), summed.
  e.weights_bytes = e.overhead_bytes = e.total_bytes = e.total_high_bytes = 0;
  e.compute.total_bytes = 0;
  e.usable = usable_memory(r.device, r.overrides);
  e.usable.usable_bytes = e.usable.physical_bytes = 0;
  for (const auto& d : r.devices) e.usable.physical_bytes += usable_memory(d, r.overrides).physical_bytes;
  bool all_fit = true, all_margin = true;
  for (const auto& d : e.full.devices) {
    e.weights_bytes += d.weights_bytes;
    e.compute.total_bytes += d.compute_bytes;
    e.overhead_bytes += d.overhead_bytes;
    e.total_bytes += d.total_bytes;
    e.total_high_bytes += high(d.total_bytes);
    e.usable.usable_bytes += d.usable_bytes;
    all_fit = all_fit && d.total_bytes <= d.usable_bytes;
    all_margin = all_margin && static_cast<double>(high(d.total_bytes)) <= 0.95 * static_cast<double>(d.usable_bytes);
  }
  e.host_weights_bytes = e.full.unified ? 0 : e.full.host.weights_bytes;

  const Placement& p = e.placement;
  if (p.full_offload && all_fit && p.fits) e.verdict = all_margin ? "fits" : "tight";
  else if (p.fits && !p.full_offload) e.verdict = "offload";
  else e.verdict = "no_fit";
  if (p.fits && p.full_offload && !all_fit) e.verdict = "tight";  // a forced split that fits

  if (r.engine == "sglang") {
    // SGLang (sglang.hpp): its own static fraction, chunked prefill and running-request limit.
    double total_gib = 1e300, phys_gib = 1e300;
    for (const auto& g : gpus) {
      total_gib = std::min(total_gib, static_cast<double>(g.usable_bytes) / kGiB);
      phys_gib = std::min(phys_gib, g.device.memory_gib);
    }
    SglangOptions o = r.sglang;
    o.context_length = server_context(r);
    e.vllm = sglang_budget(a, *e.plan, total_gib, phys_gib, o, &e.sglang_fraction);
    if (!e.vllm->fits && e.vllm->max_model_len_fit >= 256) {
      o.context_length = e.vllm->max_model_len_fit / 256 * 256;  // the settings that fit
      e.vllm_fit = sglang_budget(a, *e.plan, total_gib, phys_gib, o);
    }
    e.verdict = e.vllm->fits ? "fits" : "no_fit";
  } else if (r.engine == "vllm") {
    double total_gib = 1e300;
    for (const auto& g : gpus) total_gib = std::min(total_gib, static_cast<double>(g.usable_bytes) / kGiB);
    VllmOptions o = r.vllm;
    o.max_model_len = server_context(r);
    e.vllm = vllm_budget(a, *e.plan, total_gib, o);
    if (!e.vllm->fits && e.vllm->kv_available_bytes > 0 && e.vllm->max_model_len_fit >= 256 &&
        e.vllm->graphs_fit_headroom) {
      o.max_model_len = e.vllm->max_model_len_fit / 256 * 256;  // the settings that fit
      e.vllm_fit = vllm_budget(a, *e.plan, total_gib, o);
    }
    e.verdict = e.vllm->fits ? "fits" : "no_fit";
  }
  if (e.vllm) {
    // Aggregate decode at the requested concurrency for the settings the commands carry; each
    // request holds depth + prompt + half its generation (the mean over its decode).
    const VllmBudget& b = e.vllm_fit ? *e.vllm_fit : *e.vllm;
    if (b.fits && r.devices.front().bandwidth_gbs > 0) {
      const std::int64_t depth = std::min<std::int64_t>(b.max_model_len, r.speed.depth + r.speed.prompt + r.speed.gen / 2);
      e.throughput = serving_throughput(a, *e.plan, r.devices.front(), b, r.vllm.concurrency, depth, memo_speed_coefficients(cat));
    }
  }
}

void serving_to_json(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) {
  using nlohmann::json;
  const Placement& p = e.placement;
  json devs = json::array();
  if (!e.vllm) {
    if (!r.summary)
      for (const auto& d : p.devices) devs.push_back(load_json(d));
    json host = load_json(p.host);
    host["ram_no_mmap_bytes"] = p.ram_no_mmap_bytes;
    host["ram_mmap_bytes"] = p.ram_mmap_bytes;
    host["page_cache_bytes"] = p.page_cache_bytes;
    host["ram_usable_bytes"] = p.ram_usable_bytes;
    host["ram_fits"] = p.ram_fits;
    out["memory"]["host"] = host;
    json layers = json::array();
    int run_start = 0;
    for (int il = 1; !r.summary && il <= p.n_layer; ++il)
      if (il == p.n_layer || p.layer_device[static_cast<std::size_t>(il)] != p.layer_device[static_cast<std::size_t>(run_start)]) {
        const int dev = p.layer_device.empty() ? 0 : p.layer_device[static_cast<std::size_t>(run_start)];
        layers.push_back({{"device", dev < 0 ? "cpu" : p.devices[static_cast<std::size_t>(dev)].id},
                          {"device_index", dev}, {"first", run_start}, {"count", il - run_start}});
        run_start = il;
      }
    out["placement"] = {{"engine", "llama.cpp"}, {"ngl", p.ngl}, {"n_cpu_moe", p.n_cpu_moe},
                        {"tensor_split", p.split}, {"mmap", r.placement.mmap},
                        {"full_offload", p.full_offload}, {"fits", p.fits}, {"automatic", !r.placement_given},
                        {"n_layer", p.n_layer}};
    if (!r.summary) out["placement"]["layers"] = layers;
  } else {
    const VllmBudget& b = *e.vllm;
    const std::uint64_t tp = static_cast<std::uint64_t>(b.tensor_parallel);
    const std::uint64_t kv = static_cast<std::uint64_t>(std::max<std::int64_t>(0, b.kv_available_bytes));
    const std::uint64_t over = b.non_torch_bytes + b.cuda_context_bytes + b.cuda_graph_bytes;
    for (std::uint64_t i = 0; i < tp; ++i) {
      const Device& d = r.devices[static_cast<std::size_t>(i)];
      const std::uint64_t total = b.weights_bytes + b.activation_bytes + kv + over;
      devs.push_back({{"id", d.id}, {"name", d.name}, {"backend", d.backend},
                      {"weights_bytes", b.weights_bytes}, {"kv_bytes", kv}, {"compute_bytes", b.activation_bytes},
                      {"overhead_bytes", over}, {"total_bytes", total}, {"usable_bytes", b.total_bytes},
                      {"fits", b.fits}, {"read_per_token_bytes", b.weights_bytes}});
    }
    auto& m = out["memory"];
    m["weights_bytes"] = b.weights_bytes * tp;
    m["host_weights_bytes"] = 0;
    m["kv_cache_bytes"] = kv * tp;
    m["compute_bytes"] = b.activation_bytes * tp;
    m["overhead_bytes"] = over * tp;
    m["total_bytes"] = (b.weights_bytes + kv + b.activation_bytes + over) * tp;
    m["total_high_bytes"] = m["total_bytes"];
    m["usable_bytes"] = b.total_bytes * tp;
    m["margin_bytes"] = static_cast<std::int64_t>(b.total_bytes * tp) - m["total_bytes"].get<std::int64_t>();
    m["utilization"] = b.total_bytes > 0 ? m["total_bytes"].get<double>() / static_cast<double>(b.total_bytes * tp) : 0.0;
    const double util = r.engine == "sglang" ? e.sglang_fraction : r.vllm.gpu_memory_utilization;
    // Each server under its own key: "vllm" or "sglang" (one shape, read alike by views).
    const std::string key = r.engine == "sglang" ? "sglang" : "vllm";
    json& sv = out[key];
    sv = vllm_json(b, util);
    sv["engine"] = r.engine;
    if (r.engine == "sglang") sv["settings"]["mem_fraction_static"] = util;
    if (e.vllm_fit) {
      sv["fit"] = vllm_json(*e.vllm_fit, util);
      if (r.engine == "sglang") sv["fit"]["settings"]["mem_fraction_static"] = util;
    }
    if (e.throughput) sv["throughput"] = serving_throughput_json(*e.throughput);
    out["settings"]["context"] = b.max_model_len;
  }
  if (r.summary) return;  // no per-device loads, no commands
  out["memory"]["devices"] = devs;

  LaunchInput in;
  in.model_id = r.model.id;
  in.quant = e.plan->quant;
  const auto fq = find_quant(e.plan->quant);
  in.gguf_quant = fq && fq->gguf && !e.vllm;
  in.gguf = r.model.gguf;
  in.kind = r.device.kind;
  in.kv = r.kv;
  in.kv.n_ctx = e.kv.n_ctx;
  in.placement = &p;
  in.mmap = r.placement.mmap;
  if (e.vllm) in.vllm = e.vllm_fit ? &*e.vllm_fit : &*e.vllm;
  in.gpu_memory_utilization = r.engine == "sglang" ? e.sglang_fraction : r.vllm.gpu_memory_utilization;
  in.engine = r.engine;
  if (r.spec.mtp) in.mtp_draft = r.spec.draft_max > 0 ? r.spec.draft_max : 1;
  out["commands"] = launch_commands(in);
}

}  // namespace wif
