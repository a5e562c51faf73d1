#include "willitfit/estimate/engine_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>
#include <vector>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/engine_step.hpp"
#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/server_throughput.hpp"
#include "willitfit/speed/speed_basis.hpp"
#include "willitfit/speed/tensor_parallel.hpp"

namespace wif {

bool server_engine(const std::string& engine) { return engine == "vllm" || engine == "sglang"; }

KvOptions speed_kv_options(const EstimateRequest& r, const Estimate& e) {
  KvOptions k = r.kv;
  if (server_engine(r.engine) && e.vllm) {
    k.engine_layer_bytes_256 = vllm_speed_layer_bytes(r.model.arch, e.vllm->kv_cache_dtype, r.engine == "sglang");
    k.engine_indexer_key_bytes = vllm_indexer_key_bytes(r.model.arch);
  }
  return k;
}

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
  // The sequences the person states: `concurrency`, or for vLLM / SGLang the form's "parallel
  // sequences" (`parallel`, llama.cpp's -np), which means the same thing to a server engine.
  v.concurrency = opt_int(q, "concurrency", "", 1, 1000000)
                      .value_or(server_engine(r.engine) ? opt_int(q, "parallel", "", 1, 4096).value_or(0) : 0);
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
  find_engine_step(r.engine)->fit(cat, r, e);  // the request reader accepts only engines with a step
}

namespace {

// One decode step of a tensor-parallel group at one request, by part: each part's milliseconds
// and share of the step, and the part that takes the most ("bound": weights | kv | allreduce |
// overhead), so a sentence about what limits the speed is the core's, not the page's.
nlohmann::json step_parts(const ServingPoint& at) {
  // A compute-bound step (serving_step: the matmuls take longer than the reads) is its compute
  // time plus the all-reduces; otherwise the reads, the launches and the all-reduces.
  std::vector<std::pair<const char*, double>> parts;
  if (at.compute_bound) parts = {{"compute", at.compute_ms}, {"allreduce", at.allreduce_ms}};
  else parts = {{"weights", at.weights_ms}, {"kv", at.kv_ms}, {"overhead", at.overhead_ms}, {"allreduce", at.allreduce_ms}};
  double total = 0;
  for (const auto& p : parts) total += p.second;
  nlohmann::json ms = nlohmann::json::object(), share = nlohmann::json::object();
  const char* bound = parts.front().first;
  double most = -1;
  for (const auto& [k, v] : parts) {
    ms[k] = v;
    share[k] = total > 0 ? v / total : 0.0;
    if (v > most) { most = v; bound = k; }
  }
  return {{"ms", ms}, {"share", share}, {"total_ms", total}, {"bound", bound}};
}

}  // namespace

void server_decode_speed(const Catalog& cat, const EstimateRequest& r, Estimate& e, const SpeedCoefficients& c) {
  if (!server_engine(r.engine) || !e.vllm || e.speed.decode_tps <= 0) return;
  const VllmBudget& b = e.vllm_fit ? *e.vllm_fit : *e.vllm;
  if (!b.fits || b.tensor_parallel < 2) return;
  // Dense models only: the public rows are dense Llamas. A MoE step at one request runs the
  // fused expert kernels far from the bandwidth bound (DeepSeek-V3 on 8 H200 would read as 165
  // tok/s), and no single-request MoE row is in tensor_parallel.json to set that; MoE keeps the
  // layer-split figure and its label until one is.
  if (r.model.arch.is_moe()) return;
  const TensorParallelParams& tp = memo_tensor_parallel_params(cat);
  const Device& gpu = r.devices.front();
  auto step = [&](std::int64_t depth) { return serving_step(r.model.arch, *e.plan, gpu, b, 1, depth, c, &tp); };
  SpeedResult& s = e.speed;
  const ServingPoint at = step(r.speed.depth);
  if (at.per_user_tps <= 0) return;
  s.decode_tps = at.per_user_tps;
  s.decode_tps_low = s.decode_tps * tp.range.low;
  s.decode_tps_high = s.decode_tps * tp.range.high;
  // The all-reduces are a fixed cost per step like the launches: counted with them.
  s.decode.weights_s = at.weights_ms / 1e3;
  s.decode.kv_s = at.kv_ms / 1e3;
  s.decode.overhead_s = (at.overhead_ms + at.allreduce_ms) / 1e3;
  s.decode.total_s = at.step_ms / 1e3;
  s.work.decode_weight_bytes = at.weights_ms / 1e3 * s.rates.bw_bytes_s;  // one rank's read
  const ServingPoint mid = step(r.speed.depth + r.speed.prompt + std::max<std::int64_t>(1, r.speed.gen) / 2);
  s.gen_avg_tps = mid.per_user_tps;
  s.total_ms = s.ttft_ms + (s.gen_avg_tps > 0 ? 1000.0 * static_cast<double>(r.speed.gen) / s.gen_avg_tps : 0);
  for (std::size_t i = 0; i < s.curve_depth.size() && i < s.curve_tps.size(); ++i)
    s.curve_tps[i] = step(static_cast<std::int64_t>(s.curve_depth[i])).per_user_tps;
  s.group = "tensor_parallel";

  // What stands behind the figure: the published single-request runs of tensor_parallel.json,
  // and the one of this model, format, device, count and engine when there is one.
  nlohmann::json measured = nlohmann::json::array();
  if (const nlohmann::json* doc = cat.document("tensor_parallel.json"); doc && doc->contains("measurements"))
    for (const auto& m : (*doc)["measurements"])
      if (m.is_object() && m.value("model", "") == r.model.id && m.value("quant", "") == e.plan->quant &&
          m.value("device", "") == gpu.id && m.value("count", 0) == b.tensor_parallel && m.value("engine", "") == r.engine &&
          m.contains("tps") && m["tps"].is_number())
        measured.push_back({{"kind", "tg"}, {"test", r.engine + " TP" + std::to_string(b.tensor_parallel)},
                            {"tps", m["tps"]}, {"row_id", m.value("row_id", "")}, {"source", m.value("source", "")},
                            {"date", m.value("date", "")}});
  const std::string label = measured.empty() ? "tensor_parallel" : "measured";
  nlohmann::json basis = {{"code", label}, {"backend", s.backend},
                          {"tensor_parallel", {{"size", b.tensor_parallel}, {"link", tp_link(gpu, b.tensor_parallel)},
                                               {"allreduces_per_token", allreduces_per_step(tp, r.model.arch)},
                                               {"allreduce_ms", at.allreduce_ms},
                                               {"step", step_parts(at)},
                                               {"rows", tp.rows}, {"held_out_rows", tp.held_out_rows},
                                               {"held_out_max_error", tp.held_out_max_error}}},
                          {"accuracy_group", {{"split", "tensor_parallel"}, {"backend", s.backend},
                                              {"device_kind", device_kind_name(gpu.kind)}, {"moe", r.model.arch.is_moe()}}}};
  if (!measured.empty()) basis["measured"] = measured;
  if (!s.basis.is_object()) s.basis = nlohmann::json::object();
  s.basis["decode_label"] = label;
  s.basis["basis"] = basis;
}

void server_speed_from_device_figures(const Catalog& cat, const EstimateRequest& r, Estimate& e,
                                      const SpeedCoefficients& c, const SpeedOptions& o) {
  using nlohmann::json;
  const Device& d = r.device;
  const EngineRow* row = nullptr;
  if (c.basis)
    for (const auto& er : c.basis->engines)
      if (er.engine == r.engine && er.backend == d.backend) row = &er;
  if (!row || row->status == "no") {
    json why = {{"code", "engine_not_supported"}, {"engine", r.engine}, {"backend", d.backend}};
    if (row) {
      why["source"] = row->source;
      why["checked"] = row->checked;
    }
    if (c.basis) why["engines"] = device_engines_json(*c.basis, d);
    e.speed.unavailable = why;
    return;
  }
  if (!(d.bandwidth_gbs > 0)) {
    e.speed.unavailable = {{"code", "no_bandwidth"}, {"engine", r.engine}};
    return;
  }
  if (e.verdict == "no_fit") return;

  // The device's backend has no published run: each calibrated discrete-GPU backend's efficiencies
  // (bandwidth share, per-layer cost, FLOP share) applied to this device's own figures.
  const std::string own = backend_class(d.backend);
  const KvOptions kv = speed_kv_options(r, e);  // the engine's own cache
  struct Run { std::string id; SpeedResult s; SpeedCoefficients c; double tg_lo, tg_hi, pp_lo, pp_hi; };
  std::vector<Run> runs;
  for (const auto& [id, bs] : c.backends) {
    if (!bs.fitted || id == "metal" || id == "cpu") continue;  // Apple's unified memory, the processor
    Run run{id, {}, c, 1, 1, 1, 1};
    run.c.backends[own] = bs;
    e.speed = placed_speed(r.model.arch, *e.plan, e.placement, r.devices, kv, o, run.c, r.host_link);
    if (!(e.speed.decode_tps > 0)) continue;
    const SpeedRange tg = speed_range(c, "tg", e.speed.group, id), pp = speed_range(c, "pp", e.speed.group, id);
    run.tg_lo = tg.low;
    run.tg_hi = tg.high;
    run.pp_lo = pp.low;
    run.pp_hi = pp.high;
    server_decode_speed(cat, r, e, run.c);  // vLLM / SGLang across devices: tensor parallel
    if (e.speed.group == "tensor_parallel") {  // its own range (tensor_parallel.json) on this backend's step
      run.tg_lo = e.speed.decode_tps_low / e.speed.decode_tps;
      run.tg_hi = e.speed.decode_tps_high / e.speed.decode_tps;
    }
    run.s = e.speed;
    runs.push_back(std::move(run));
  }
  e.speed = SpeedResult{};
  if (runs.empty()) {
    e.speed.unavailable = {{"code", "no_calibrated_backend"}, {"engine", r.engine}};
    return;
  }
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.s.decode_tps < b.s.decode_tps; });
  const Run& mid = runs[(runs.size() - 1) / 2];  // the median (the lower one of an even count)
  SpeedResult s = mid.s;
  s.backend = own;
  s.decode_tps_low = s.decode_tps_high = s.decode_tps;
  s.prefill_tps_low = s.prefill_tps_high = s.prefill_tps;
  json from = json::array();
  for (const auto& x : runs) {
    s.decode_tps_low = std::min(s.decode_tps_low, x.s.decode_tps * x.tg_lo);
    s.decode_tps_high = std::max(s.decode_tps_high, x.s.decode_tps * x.tg_hi);
    if (s.prefill_available && x.s.prefill_tps > 0) {
      s.prefill_tps_low = std::min(s.prefill_tps_low, x.s.prefill_tps * x.pp_lo);
      s.prefill_tps_high = std::max(s.prefill_tps_high, x.s.prefill_tps * x.pp_hi);
    }
    json f = {{"id", x.id}, {"decode_tps", x.s.decode_tps}};
    if (x.s.prefill_available) f["prefill_tps"] = x.s.prefill_tps;
    from.push_back(f);
  }
  // Which of the device figures it rests on the catalog marks uncertain (widen_for_uncertain_device
  // then widens the range by their low and high).
  json uncertain = json::array();
  const json& facts = d.facts;
  if (facts.is_object() && facts.contains("uncertain") && facts["uncertain"].is_object())
    for (const char* f : {"bandwidth_gbs", "fp16_tflops"})
      if (facts["uncertain"].contains(f) && (std::string(f) != "fp16_tflops" || s.prefill_available)) uncertain.push_back(f);
  json basis = {{"code", "device_figures"}, {"backend", own}, {"engine", r.engine}, {"engine_status", row->status},
                {"source", row->source}, {"checked", row->checked}, {"device_rows", 0}, {"central_backend", mid.id},
                {"from_backends", from}, {"uncertain", uncertain}};
  if (!row->via.empty()) basis["via"] = row->via;
  if (s.group == "tensor_parallel" && mid.s.basis.is_object() && mid.s.basis.contains("basis") &&
      mid.s.basis["basis"].contains("tensor_parallel"))
    basis["tensor_parallel"] = mid.s.basis["basis"]["tensor_parallel"];
  s.basis = {{"decode_label", "device_figures"}, {"basis", basis}};
  if (s.prefill_available) s.basis["prefill_label"] = "device_figures";
  e.speed = std::move(s);
  // The batched throughput at the central backend's efficiencies, as the single request.
  if (e.throughput) {
    const VllmBudget& b = e.vllm_fit ? *e.vllm_fit : *e.vllm;
    const TensorParallelParams& tp = memo_tensor_parallel_params(cat);
    e.throughput = serving_throughput(r.model.arch, *e.plan, r.devices.front(), b, r.vllm.concurrency,
                                      e.throughput->depth, mid.c, &tp);
  }
}

void serving_to_json(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) {
  find_engine_step(r.engine)->write(r, e, out);
  if (r.summary) return;  // no commands

  LaunchInput in;
  in.model_id = r.model.id;
  // A catalog model is a Hub repo whose checkpoint the conversion steps can download; an imported
  // config or GGUF header is not (its id is a name, and a GGUF's owner has the file).
  in.hub_checkpoint = r.model.entry != nullptr;
  in.quant = e.plan->quant;
  const auto fq = find_quant(e.plan->quant);
  in.gguf_quant = fq && fq->gguf && !e.vllm;
  in.gguf = r.model.gguf;
  if (e.vllm && r.model.entry)
    if (const PublishedCheckpoint* c = r.model.entry->checkpoint(e.plan->quant)) in.server_repo = c->repo;
  in.kind = r.device.kind;
  in.kv = r.kv;
  in.kv.n_ctx = e.kv.n_ctx;
  in.placement = &e.placement;
  in.n_mtp = nextn_blocks(r.model.arch);
  in.mmap = r.placement.mmap;
  if (e.vllm) in.vllm = e.vllm_fit ? &*e.vllm_fit : &*e.vllm;
  in.gpu_memory_utilization = r.engine == "sglang" ? e.sglang_fraction : r.vllm.gpu_memory_utilization;
  in.engine = r.engine;
  in.mlx_kv_bits = r.mlx.kv_bits;
  in.mlx_kv_group = r.mlx.kv_group;
  if (r.spec.mtp) in.mtp_draft = r.spec.draft_max > 0 ? r.spec.draft_max : 1;
  if (r.draft && e.draft_plan) {
    in.draft_id = r.draft->id;
    in.draft_quant = e.draft_plan->quant;
    in.draft_gguf = r.draft->gguf;
    in.draft_ngl = static_cast<int>(r.draft->arch.n_layer_main()) + 1;  // every layer and the output
    in.draft_max = r.spec.draft_max;
  }
  in.multimodal = !r.model.vision.family.empty() || !r.model.audio.family.empty();  // an mmproj file of either tower
  in.mmproj = e.proj_loaded;
  in.mmproj_audio = e.proj_loaded && r.proj.audio_seconds > 0 && r.proj.images == 0;
  in.mmproj_offload = r.proj.offload;
  in.mmproj_type = cache_type_flag(r.proj.type);  // lower-case type name
  {
    // The mmproj file read from a repo (gguf/mmproj.hpp), by its own name when that is a plain
    // shell word; else the command keeps its made-up local name.
    const std::string& p = r.model.mmproj_path;
    const std::string f = p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1);
    const bool plain = !f.empty() && f.size() <= 255 && f[0] != '-' && f[0] != '.' &&
                       std::all_of(f.begin(), f.end(), [](char ch) {
                         return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
                       });
    if (plain) in.mmproj_file = f;
  }
  // Ollama ships CUDA, ROCm, Metal and Vulkan builds (data/backends.json `ollama`): on a device
  // with none of them (an Ascend NPU, a Moore Threads card) it would not use the accelerator, so
  // its Modelfile's num_gpu would be a promise. The generator writes no Ollama command there.
  in.ollama = r.device.ollama;
  out["commands"] = launch_commands(in);
  // A server engine the catalog has no support evidence for on this device (its `engines`, from
  // data/backends.json) gets no launch command: offering SGLang's beside vLLM's on a card only
  // vLLM runs on would read as support. Which ones were left out, and why, is said once.
  const auto& runs_on = r.device.engines;
  if (!runs_on.empty())
    for (const char* eng : {"vllm", "sglang"})
      if (out["commands"].contains(eng) && std::find(runs_on.begin(), runs_on.end(), eng) == runs_on.end()) {
        out["commands"].erase(eng);
        out["commands_left_out"].push_back({{"engine", eng}, {"code", "engine_not_on_device"}});
      }
  // Where Ollama does not run, the Modelfile it would have had is named as left out, once.
  if (!in.ollama && ollama_applies(in))
    out["commands_left_out"].push_back({{"engine", "ollama"}, {"code", "engine_not_on_device"}});
}

bool engine_on_any_cloud(const Catalog& cat, const std::string& engine) {
  for (const auto& o : cat.clouds()) {
    const Device* d = cat.find_device(o.value("device", ""));
    if (!d) continue;
    const auto e = cat.device_engines(*d);
    if (std::find(e.begin(), e.end(), engine) != e.end()) return true;
  }
  return false;
}

nlohmann::json cloud_fallback_request(const Catalog& cat, const nlohmann::json& request) {
  nlohmann::json q = request;
  q["engine"] = defaults::kEngine;
  for (const char* k : {"kv_bits", "kv_group_size"}) q.erase(k);
  // The GGUF type of the same quality rank (quants.json), else llama.cpp's default.
  std::string quant = defaults::kQuantGguf;
  if (request.contains("quant") && request["quant"].is_string()) {
    const std::string from = request["quant"].get<std::string>();
    int rank = -1;
    for (const auto& x : cat.quants())
      if (x.value("id", "") == from && x.contains("rank") && x["rank"].is_number_integer()) rank = x["rank"].get<int>();
    if (rank >= 0)
      for (const auto& x : cat.quants()) {
        const auto f = find_quant(x.value("id", ""));
        if (f && f->gguf && x.contains("rank") && x["rank"].is_number_integer() && x["rank"].get<int>() == rank) {
          quant = f->id;
          break;
        }
      }
  }
  q["quant"] = quant;
  return {{"request", q}, {"engine", defaults::kEngine}, {"quant", quant}};
}

}  // namespace wif
