#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/model/mlx_quant.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "willitfit/base/text.hpp"

namespace wif {
namespace {

using text::lower;

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

// Characters that mean nothing to a POSIX shell inside a word (no expansion, quoting,
// globbing, redirection or separation), so a word made only of them is passed as written.
bool sh_plain(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/' || c == ':' ||
         c == '@' || c == '%' || c == '+' || c == ',' || c == '=';
}

// Why a value cannot go into a command at all, or "" when it can (quoted by sh_word). A control
// character (newline, NUL, escape …) survives no quoting a person pastes into a terminal: a
// newline ends the command, an escape sequence can rewrite what the terminal shows. A leading
// '-' would be read by the engine as an option, not as the model.
std::string unsafe_reason(const std::string& s) {
  if (s.empty()) return "empty";
  if (s[0] == '-') return "leading_dash";
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "control_character";
  return "";
}

// One POSIX sh word with exactly the text of s: as written when every character is plain,
// else in single quotes, where nothing is special except the quote itself ('\'' closes,
// escapes one quote, reopens). Callers check unsafe_reason first.
std::string sh_word(const std::string& s) {
  if (std::all_of(s.begin(), s.end(), sh_plain)) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A Hugging Face repo id as the Hub accepts it: owner/name, each 1..96 of [A-Za-z0-9._-], not
// starting with '-' or '.' (huggingface_hub validate_repo_id). Such an id is also a plain sh word
// and a valid Ollama "hf.co/owner/name" reference.
bool hub_repo_id(const std::string& s) {
  const auto slash = s.find('/');
  if (slash == std::string::npos || s.find('/', slash + 1) != std::string::npos) return false;
  auto part_ok = [](const std::string& p) {
    if (p.empty() || p.size() > 96 || p[0] == '-' || p[0] == '.') return false;
    for (char c : p)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
    return p.find("..") == std::string::npos;
  };
  return part_ok(s.substr(0, slash)) && part_ok(s.substr(slash + 1));
}

// An Ollama model name: lower-case letters, digits, '-', '_' and '.', starting with a letter or
// digit (ollama/types/model/name.go); "model" when nothing of the id survives.
std::string ollama_name(const std::string& s) {
  std::string out = s;
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out[0]))) out.erase(0, 1);
  if (out.size() > 80) out.resize(80);
  return out.empty() ? "model" : out;
}

std::string base_name(const std::string& id) {
  const auto p = id.rfind('/');
  return p == std::string::npos ? id : id.substr(p + 1);
}

// A published repo of this quant whose id is a valid Hub id (anything else is not used).
const GgufRepo* find_repo(const LaunchInput& in) {
  for (const auto& g : in.gguf)
    if (lower(g.quant) == lower(in.quant) && hub_repo_id(g.repo)) return &g;
  return nullptr;
}

// The local file name the -m / FROM forms use: made of plain characters only.
std::string file_name(const LaunchInput& in) {
  return ollama_name(slug(base_name(in.model_id))) + "-" + slug(in.quant) + ".gguf";
}

// The steps that make the GGUF file the -m / FROM forms load when no published repo has this
// format but the model is a Hub repo: download the checkpoint (huggingface_hub's `hf download`),
// convert it (llama.cpp convert_hf_to_gguf.py --outtype), then quantize (llama-quantize INPUT
// OUTPUT TYPE). llama-quantize refuses IQ1_S, IQ1_M, IQ2_S, IQ2_XXS, IQ2_XS and Q2_K_S without an
// importance matrix (tools/quantize/quantize.cpp), made by llama-imatrix from sample text.
// Empty when the file is published (-hf) or the model is no Hub repo (an imported config or GGUF).
std::string gguf_steps(const LaunchInput& in, bool* needs_imatrix) {
  if (find_repo(in) || !in.hub_checkpoint || !hub_repo_id(in.model_id)) return "";
  const std::string dir = base_name(in.model_id);
  const std::string out = file_name(in);
  const std::string q = text::upper(in.quant);
  std::string s = "hf download " + in.model_id + " --local-dir " + dir + " && python convert_hf_to_gguf.py " + dir;
  if (q == "BF16" || q == "F16" || q == "F32") return s + " --outtype " + lower(q) + " --outfile " + out;
  const std::string src = ollama_name(slug(base_name(in.model_id))) + "-BF16.gguf";
  s += " --outtype bf16 --outfile " + src + " && ";
  const bool im = q == "IQ1_S" || q == "IQ1_M" || q == "IQ2_S" || q == "IQ2_XXS" || q == "IQ2_XS" || q == "Q2_K_S";
  if (needs_imatrix) *needs_imatrix = im;
  if (im) s += "llama-imatrix -m " + src + " -f calibration.txt -o imatrix.gguf && llama-quantize --imatrix imatrix.gguf ";
  else s += "llama-quantize ";
  return s + src + " " + out + " " + in.quant;
}

std::string llama_server(const LaunchInput& in) {
  std::ostringstream c;
  c << "llama-server";
  if (const GgufRepo* g = find_repo(in)) c << " -hf " << g->repo << ":" << in.quant;
  else c << " -m " << file_name(in);
  c << " -c " << in.kv.n_ctx;
  // -ngl and -ts in llama.cpp's counting, which includes a GLM file's NextN blocks (placement.hpp).
  if (in.placement) c << " -ngl " << ngl_flag(in.placement->ngl, in.n_mtp);
  c << " -fa " << (in.kv.flash_attn ? "on" : "off");
  c << " -ctk " << cache_type_flag(in.kv.type_k) << " -ctv " << cache_type_flag(in.kv.type_v);
  if (in.placement && in.placement->n_cpu_moe > 0) c << " --n-cpu-moe " << in.placement->n_cpu_moe;
  if (in.placement && in.placement->split.size() > 1) {
    c << " -ts ";
    // The shares as the placement used them (layer counts for an automatic split), so llama.cpp
    // draws the same layer boundaries; with NextN blocks, each GPU's layer count.
    const auto sh = split_flag(*in.placement, in.n_mtp);
    for (std::size_t i = 0; i < sh.size(); ++i) c << (i ? "," : "") << num(sh[i], 4);
  }
  c << " -np " << in.kv.n_seq;
  if (in.kv.unified && in.kv.n_seq > 1) c << " -kvu";
  c << " -ub " << in.kv.n_ubatch;
  if (!in.mmap) c << " --no-mmap";
  // MTP drafting (llama.cpp PR #26534: glm4moe's NextN block as a draft-mtp target).
  if (in.mtp_draft > 0) c << " --spec-type draft-mtp --spec-draft-n-max " << in.mtp_draft;
  // A separate draft model (common/arg.cpp: -md / --model-draft or -hfd / --hf-repo-draft,
  // -ngld / --spec-draft-ngl, --spec-draft-n-max, which replaced --draft-max). --spec-type
  // defaults to none, and then the draft is loaded but never drafts (llama.cpp issue #25345).
  if (in.draft_max > 0 && !in.draft_id.empty()) {
    LaunchInput d;
    d.model_id = in.draft_id;
    d.quant = in.draft_quant;
    d.gguf = in.draft_gguf;
    if (const GgufRepo* g = find_repo(d)) c << " -hfd " << g->repo << ":" << d.quant;
    else c << " -md " << file_name(d);
    c << " -ngld " << in.draft_ngl << " --spec-type draft-simple --spec-draft-n-max " << in.draft_max;
  }
  // The multimodal projector, vision or audio (tools/mtmd; common/arg.cpp --mmproj, --no-mmproj,
  // --no-mmproj-offload).
  if (in.multimodal) {
    const bool hf = find_repo(in) != nullptr;
    if (!in.mmproj) {
      if (hf) c << " --no-mmproj";
    } else {
      if (!hf && !in.mmproj_file.empty()) c << " --mmproj " << in.mmproj_file;
      else if (!hf) c << " --mmproj mmproj-" << ollama_name(slug(base_name(in.model_id))) << "-" << in.mmproj_type << ".gguf";
      if (!in.mmproj_offload) c << " --no-mmproj-offload";
    }
  }
  return c.str();
}

}  // namespace

std::string cache_type_flag(GgmlType t) { return lower(ggml_type_name(t)); }

bool ollama_applies(const LaunchInput& in) {
  // Ollama has no setting that keeps expert tensors in system RAM (llama.cpp's --n-cpu-moe), so
  // a Modelfile could not realise a plan that does: it is left out rather than shown wrong. Nor
  // does it draft (MTP layers or a draft model), so with drafting on it is left out too.
  const bool experts_on_cpu = in.placement && in.placement->n_cpu_moe > 0;
  return in.gguf_quant && !experts_on_cpu && in.mtp_draft == 0 && in.draft_max == 0;
}

nlohmann::json launch_commands(const LaunchInput& in) {
  nlohmann::json out = nlohmann::json::object();
  const std::string name = ollama_name(slug(lower(base_name(in.model_id))));
  // The model id goes into the vLLM, SGLang and MLX commands as a Hub id or a local path. A value
  // no quoting makes safe refuses those commands, with the reason in "refused".
  const std::string why = [&in] {
    const std::string w = unsafe_reason(in.model_id);
    return w.empty() && in.draft_max > 0 ? unsafe_reason(in.draft_id) : w;
  }();
  const std::string model_word = why.empty() ? sh_word(in.model_id) : "";
  // A published checkpoint declares its quantization in its config.json (quantization_config),
  // which vLLM and SGLang read: served by its repo id, with no --quantization flag.
  const bool server_repo = !in.server_repo.empty() && hub_repo_id(in.server_repo) && why.empty();
  const std::string server_word = server_repo ? sh_word(in.server_repo) : model_word;
  const std::string draft_word = why.empty() && in.draft_max > 0 ? sh_word(in.draft_id) : "";
  auto refuse = [&out, &why](const char* tool) {
    out["refused"][tool] = {{"code", "unsafe_value"}, {"path", "model.id"}, {"reason", why}};
  };
  if (in.gguf_quant) {
    // No published file of this format: the steps that make the one the commands load come
    // first, with a code saying why (and that an importance matrix needs sample text).
    bool im = false;
    const std::string steps = gguf_steps(in, &im);
    if (!steps.empty()) {
      out["gguf_convert"] = steps;
      out["notes"].push_back({{"tool", "gguf_convert"}, {"code", "gguf_not_published"}});
      if (im) out["notes"].push_back({{"tool", "gguf_convert"}, {"code", "imatrix_sample_text"}});
    }
    out["llama_server"] = llama_server(in);
  }
  // Ollama where it runs on the device (its CUDA, ROCm, Metal and Vulkan builds) and can realise
  // the plan; where it does not run, the caller names it in commands_left_out.
  if (in.ollama && ollama_applies(in)) {
    // Ollama: num_ctx is its context setting; num_gpu the number of layers it offloads, counted
    // as llama.cpp's -ngl counts them, NextN blocks included. Ollama's llm/server.go
    // (https://github.com/ollama/ollama/blob/5dbb81b72c4b61b737e4970db711f7718e4efcc6/llm/server.go)
    // sizes a model as `totalLayers: f.KV().BlockCount() + 1` (NewLlamaServer): the GGUF's
    // block_count, which llama.cpp's converter writes as num_hidden_layers + num_nextn_predict_layers
    // (GLM-4.5-Air: 47), plus the output layer; assignLayers caps the request at that length
    // (`requestedLayers = min(len(layers), requestedLayers)`) and hands out layers from the last
    // one down. The llama.cpp runner then loads with n_gpu_layers = the number of layers assigned
    // (runner/llamarunner/runner.go, load: `numGPU += len(layers.Layers)`), and Ollama's own
    // engine places blocks by the same block_count (ml/backend/ggml/ggml.go:
    // `blocks := int(meta.KV().BlockCount())`). So num_gpu takes the same value as -ngl, capped at
    // block_count + 1.
    std::ostringstream mf;
    if (const GgufRepo* g = find_repo(in)) mf << "FROM hf.co/" << g->repo << ":" << in.quant << "\n";
    else mf << "FROM ./" << file_name(in) << "\n";
    mf << "PARAMETER num_ctx " << in.kv.n_ctx << "\n";
    if (in.placement && !in.placement->unified)
      mf << "PARAMETER num_gpu " << std::min(ngl_flag(in.placement->ngl, in.n_mtp), in.placement->n_layer + in.n_mtp + 1) << "\n";
    out["ollama_modelfile"] = mf.str();
    const std::string tag = name + "-" + lower(in.quant);
    out["ollama"] = "ollama create " + tag + " -f Modelfile && ollama run " + tag;
    // Images asked for: llama-server gets --mmproj, but the Modelfile stays text-only. A second
    // FROM line with the projector is accepted by `ollama create`, yet the vision families modelled
    // here (gemma3, qwen2.5-vl, qwen3-vl, mistral3, llama4) run on Ollama's own engine, which
    // does not take a split projector: ollama/ollama PR 12241 (merged 2025-09) sends such a model
    // to the legacy llama.cpp runner, kept "only for backwards compatibility for legacy models"
    // (maintainer, PR 13306), and issues 9967 / 12896 show vision lost that way. A code the page
    // words, instead of a projector line that would load and not see images.
    // Audio sent: the Modelfile written here has no projector either, so Ollama would not hear it.
    if (in.multimodal && in.mmproj)
      out["notes"].push_back({{"tool", "ollama"}, {"code", in.mmproj_audio ? "ollama_audio_not_loaded" : "ollama_projector_not_split"}});
  }
  if (!in.gguf_quant && in.kind == DeviceKind::Gpu && in.vllm && !why.empty()) {
    if (in.engine != "sglang") refuse("vllm");
    refuse("sglang");
  } else if (!in.gguf_quant && in.kind == DeviceKind::Gpu && in.vllm) {
    const VllmBudget& v = *in.vllm;
    const std::string q = server_repo ? "" : vllm_quantization_flag(in.quant);
    std::ostringstream c;
    c << "vllm serve " << server_word << " --tensor-parallel-size " << v.tensor_parallel
      << " --max-model-len " << v.max_model_len << " --gpu-memory-utilization " << num(in.gpu_memory_utilization)
      << " --kv-cache-dtype " << v.kv_cache_dtype << " --max-num-seqs " << v.max_num_seqs
      << " --max-num-batched-tokens " << v.max_num_batched_tokens;
    if (!q.empty()) c << " --quantization " << q;
    // vLLM's MTP drafter (the GLM recipe, vllm-project/recipes GLM/GLM.md).
    if (in.mtp_draft > 0)
      c << " --speculative-config.method mtp --speculative-config.num_speculative_tokens " << in.mtp_draft;
    // vLLM's draft-model method (docs.vllm.ai features/speculative_decoding/draft_model; PR #24322).
    if (in.draft_max > 0)
      c << " --speculative-config.method draft_model --speculative-config.model " << draft_word
        << " --speculative-config.num_speculative_tokens " << in.draft_max;
    if (in.engine != "sglang") out["vllm"] = c.str();
    // An AWQ, GPTQ or NVFP4 format of a model whose catalog entry lists no published checkpoint
    // of it: the engines load such weights only from a quantized checkpoint (their --quantization
    // names how to read one; vLLM quantizes on the fly only to FP8), so one must be made first.
    if (!server_repo && (in.quant == "AWQ-4bit" || in.quant == "GPTQ-4bit" || in.quant == "GPTQ-8bit" || in.quant == "NVFP4"))
      out["notes"].push_back({{"tool", in.engine == "sglang" ? "sglang" : "vllm"}, {"code", "checkpoint_not_published"}, {"quant", in.quant}});
    std::ostringstream s;
    const std::string skv = v.kv_cache_dtype == "fp8" ? "fp8_e4m3" : v.kv_cache_dtype == "auto" ? "auto" : v.kv_cache_dtype;
    s << "python3 -m sglang.launch_server --model-path " << server_word << " --tp " << v.tensor_parallel
      << " --context-length " << v.max_model_len;
    // The memory fraction and the running-request cap are the budget's own only when it is
    // SGLang's (sglang.hpp); beside a vLLM estimate they would pass vLLM's utilization and
    // max_num_seqs as SGLang's, so the command leaves them to SGLang's defaults.
    if (in.engine == "sglang") s << " --mem-fraction-static " << num(in.gpu_memory_utilization);
    s << " --kv-cache-dtype " << skv;
    if (in.engine == "sglang")
      s << " --max-running-requests " << v.max_num_seqs << " --chunked-prefill-size " << v.max_num_batched_tokens;
    if (!q.empty() && q != "bitsandbytes") s << " --quantization " << q;
    // SGLang drafts with the MTP layer through its EAGLE path (docs.sglang.io basic_usage/glm45).
    if (in.mtp_draft > 0)
      s << " --speculative-algorithm EAGLE --speculative-num-steps " << in.mtp_draft
        << " --speculative-eagle-topk 1 --speculative-num-draft-tokens " << in.mtp_draft + 1;
    // SGLang's small-draft-model path (docs.sglang.io advanced_features/speculative_decoding,
    // "Standalone Speculative Decoding"): the EAGLE step flags with a whole draft model.
    if (in.draft_max > 0)
      s << " --speculative-algorithm STANDALONE --speculative-draft-model-path " << draft_word
        << " --speculative-num-steps " << in.draft_max << " --speculative-eagle-topk 1 --speculative-num-draft-tokens "
        << in.draft_max + 1;
    out["sglang"] = s.str();
  }
  if (in.kind == DeviceKind::Apple && !in.gguf_quant && !why.empty()) {
    refuse("mlx");
  } else if (in.kind == DeviceKind::Apple && !in.gguf_quant && in.mtp_draft == 0 && in.draft_max == 0) {
    // mlx_lm.convert's flags for the planned format (mlx_lm/convert.py: -q, --q-bits,
    // --q-group-size, --q-mode, --dtype), then mlx_lm.server on the converted folder.
    const auto f = find_mlx_format(in.quant);
    std::string path = model_word;
    if (f) {
      std::string conv = "mlx_lm.convert --hf-path " + model_word;
      std::string tag;
      if (f->mode == "float") {
        conv += std::string(" --dtype ") + (f->float_type == "fp16" ? "float16" : "bfloat16");
        tag = f->float_type;
      } else if (f->mode == "affine") {
        conv += " -q --q-bits " + std::to_string(f->bits) + " --q-group-size " + std::to_string(f->group_size);
        tag = std::to_string(f->bits) + "bit" + (f->group_size == 64 ? "" : "-g" + std::to_string(f->group_size));
      } else {
        conv += " -q --q-mode " + f->mode;
        tag = f->mode;
      }
      path = name + "-" + tag;
      out["mlx"] = conv + " --mlx-path " + path + " && mlx_lm.server --model " + path + " --port 8080";
    } else {
      out["mlx"] = "mlx_lm.server --model " + model_word + " --port 8080";
    }
    // One generation with the estimate's cache settings (mlx_lm/generate.py --kv-bits,
    // --kv-group-size, --max-kv-size); the server grows its cache as the estimate assumes.
    std::string gen = "mlx_lm.generate --model " + path + " --max-kv-size " + std::to_string(in.kv.n_ctx);
    if (in.mlx_kv_bits > 0)
      gen += " --kv-bits " + std::to_string(in.mlx_kv_bits) + " --kv-group-size " + std::to_string(in.mlx_kv_group);
    out["mlx_generate"] = gen + " --max-tokens 256 --prompt 'Hello'";
  }
  return out;
}

}  // namespace wif
