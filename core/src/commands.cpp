#include "willitfit/commands.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace wif {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Short decimal: at most `digits` decimals, no trailing zeros.
std::string num(double x, int digits = 3) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// A file or model name safe as one shell word.
std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '-';
  return out;
}

std::string base_name(const std::string& id) {
  const auto p = id.rfind('/');
  return p == std::string::npos ? id : id.substr(p + 1);
}

const GgufRepo* find_repo(const LaunchInput& in) {
  for (const auto& g : in.gguf)
    if (lower(g.quant) == lower(in.quant)) return &g;
  return nullptr;
}

std::string llama_server(const LaunchInput& in) {
  std::ostringstream c;
  c << "llama-server";
  if (const GgufRepo* g = find_repo(in)) c << " -hf " << g->repo << ":" << in.quant;
  else c << " -m " << slug(base_name(in.model_id)) << "-" << in.quant << ".gguf";
  c << " -c " << in.kv.n_ctx;
  if (in.placement) c << " -ngl " << in.placement->ngl;
  c << " -fa " << (in.kv.flash_attn ? "on" : "off");
  c << " -ctk " << cache_type_flag(in.kv.type_k) << " -ctv " << cache_type_flag(in.kv.type_v);
  if (in.placement && in.placement->n_cpu_moe > 0) c << " --n-cpu-moe " << in.placement->n_cpu_moe;
  if (in.placement && in.placement->split.size() > 1) {
    c << " -ts ";
    // The shares as the placement used them (layer counts for an automatic split), so llama.cpp
    // draws the same layer boundaries.
    const auto& sh = in.placement->split_shares;
    for (std::size_t i = 0; i < sh.size(); ++i) c << (i ? "," : "") << num(sh[i], 4);
  }
  c << " -np " << in.kv.n_seq;
  if (in.kv.unified && in.kv.n_seq > 1) c << " -kvu";
  c << " -ub " << in.kv.n_ubatch;
  if (!in.mmap) c << " --no-mmap";
  return c.str();
}

}  // namespace

std::string cache_type_flag(GgmlType t) { return lower(ggml_type_name(t)); }

nlohmann::json launch_commands(const LaunchInput& in) {
  nlohmann::json out = nlohmann::json::object();
  const std::string name = slug(lower(base_name(in.model_id)));
  // Ollama has no setting that keeps expert tensors in system RAM (llama.cpp's --n-cpu-moe), so
  // a Modelfile could not realise a plan that does: it is left out rather than shown wrong.
  const bool experts_on_cpu = in.placement && in.placement->n_cpu_moe > 0;
  if (in.gguf_quant) {
    out["llama_server"] = llama_server(in);
  }
  if (in.gguf_quant && !experts_on_cpu) {
    // Ollama: num_ctx is its context setting; num_gpu the number of layers it offloads.
    std::ostringstream mf;
    if (const GgufRepo* g = find_repo(in)) mf << "FROM hf.co/" << g->repo << ":" << in.quant << "\n";
    else mf << "FROM ./" << slug(base_name(in.model_id)) << "-" << in.quant << ".gguf\n";
    mf << "PARAMETER num_ctx " << in.kv.n_ctx << "\n";
    if (in.placement && !in.placement->unified) mf << "PARAMETER num_gpu " << std::min(in.placement->ngl, in.placement->n_layer + 1) << "\n";
    out["ollama_modelfile"] = mf.str();
    const std::string tag = name + "-" + lower(in.quant);
    out["ollama"] = "ollama create " + tag + " -f Modelfile && ollama run " + tag;
  }
  if (!in.gguf_quant && in.kind == DeviceKind::Gpu && in.vllm) {
    const VllmBudget& v = *in.vllm;
    const std::string q = vllm_quantization_flag(in.quant);
    std::ostringstream c;
    c << "vllm serve " << in.model_id << " --tensor-parallel-size " << v.tensor_parallel
      << " --max-model-len " << v.max_model_len << " --gpu-memory-utilization " << num(in.gpu_memory_utilization)
      << " --kv-cache-dtype " << v.kv_cache_dtype << " --max-num-seqs " << v.max_num_seqs
      << " --max-num-batched-tokens " << v.max_num_batched_tokens;
    if (!q.empty()) c << " --quantization " << q;
    if (in.engine != "sglang") out["vllm"] = c.str();
    std::ostringstream s;
    const std::string skv = v.kv_cache_dtype == "fp8" ? "fp8_e4m3" : v.kv_cache_dtype == "auto" ? "auto" : v.kv_cache_dtype;
    s << "python3 -m sglang.launch_server --model-path " << in.model_id << " --tp " << v.tensor_parallel
      << " --context-length " << v.max_model_len << " --mem-fraction-static " << num(in.gpu_memory_utilization)
      << " --kv-cache-dtype " << skv << " --max-running-requests " << v.max_num_seqs;
    if (in.engine == "sglang") s << " --chunked-prefill-size " << v.max_num_batched_tokens;
    if (!q.empty() && q != "bitsandbytes") s << " --quantization " << q;
    out["sglang"] = s.str();
  }
  if (in.kind == DeviceKind::Apple && !in.gguf_quant) {
    // MLX affine quantization, group 64 (the default of mlx_lm.convert), as the plan assumes.
    const auto pos = in.quant.find("MLX-");
    if (pos == 0) {
      const std::string bits = in.quant.substr(4, in.quant.find("bit") - 4);
      const std::string path = name + "-" + bits + "bit";
      out["mlx"] = "mlx_lm.convert --hf-path " + in.model_id + " -q --q-bits " + bits +
                   " --q-group-size 64 --mlx-path " + path + " && mlx_lm.server --model " + path + " --port 8080";
    } else {
      out["mlx"] = "mlx_lm.server --model " + in.model_id + " --port 8080";
    }
  }
  return out;
}

}  // namespace wif
