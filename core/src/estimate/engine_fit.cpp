#include "willitfit/estimate/engine_fit.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/engine_step.hpp"
#include "willitfit/estimate/launch_commands.hpp"

namespace wif {

bool server_engine(const std::string& engine) { return engine == "vllm" || engine == "sglang"; }

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
  find_engine_step(r.engine)->fit(cat, r, e);  // the request reader accepts only engines with a step
}

void serving_to_json(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) {
  find_engine_step(r.engine)->write(r, e, out);
  if (r.summary) return;  // no commands

  LaunchInput in;
  in.model_id = r.model.id;
  in.quant = e.plan->quant;
  const auto fq = find_quant(e.plan->quant);
  in.gguf_quant = fq && fq->gguf && !e.vllm;
  in.gguf = r.model.gguf;
  in.kind = r.device.kind;
  in.kv = r.kv;
  in.kv.n_ctx = e.kv.n_ctx;
  in.placement = &e.placement;
  in.mmap = r.placement.mmap;
  if (e.vllm) in.vllm = e.vllm_fit ? &*e.vllm_fit : &*e.vllm;
  in.gpu_memory_utilization = r.engine == "sglang" ? e.sglang_fraction : r.vllm.gpu_memory_utilization;
  in.engine = r.engine;
  if (r.spec.mtp) in.mtp_draft = r.spec.draft_max > 0 ? r.spec.draft_max : 1;
  in.multimodal = !r.model.vision.family.empty();
  in.mmproj = e.proj_loaded;
  in.mmproj_offload = r.proj.offload;
  in.mmproj_type = cache_type_flag(r.proj.type);  // lower-case type name
  out["commands"] = launch_commands(in);
}

}  // namespace wif
