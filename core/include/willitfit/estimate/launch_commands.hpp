// Launch commands that realise exactly the estimate shown beside them: every number an engine
// would otherwise choose for itself (context, layers on GPU, experts on CPU, split, cache types,
// slots, micro-batch; vLLM's parallelism, length, utilization, sequences) is passed explicitly.
//
//  * llama_server: `llama-server -hf repo:QUANT` when a published GGUF repo holds the quant
//    (catalog entry `gguf`), else `-m <file>.gguf`; -c, -ngl, -fa, -ctk/-ctv, --n-cpu-moe, -ts,
//    -np (and -kvu for a shared cache), -ub, --no-mmap.
//  * ollama / ollama_modelfile: a Modelfile with `PARAMETER num_ctx` and `num_gpu` (layers), and
//    the create/run command (Ollama has no expert-offload flag: it is left out when needed), only
//    where Ollama runs on the device (LaunchInput::ollama).
//  * vllm / sglang: `vllm serve` and `python3 -m sglang.launch_server` with the vLLM budget's
//    settings; with engine "sglang" only the SGLang command, from SGLang's own budget (sglang.hpp:
//    --mem-fraction-static, --chunked-prefill-size, --max-running-requests).
//  * mlx: mlx_lm.server (after mlx_lm.convert for a quantized MLX model) on Apple devices.
// Commands only appear where they apply (GGUF quant for llama.cpp/Ollama, safetensors for
// vLLM/SGLang on discrete GPUs, Apple for MLX).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/servers/vllm.hpp"

namespace wif {

struct GgufRepo {
  std::string repo;    // "unsloth/GLM-4.5-Air-GGUF"
  std::string quant;   // "Q4_K_M"
};

struct LaunchInput {
  std::string model_id;               // Hugging Face id, e.g. "zai-org/GLM-4.5-Air"
  bool hub_checkpoint = false;        // model_id is a Hub repo of the checkpoint (a catalog model)
  std::string quant;                  // "Q4_K_M", "FP8", "MLX-4bit" …
  bool gguf_quant = true;
  std::vector<GgufRepo> gguf;         // published GGUF repos (catalog)
  // The Hub repo the vLLM / SGLang commands serve: the published checkpoint of the format
  // (catalog `checkpoints`), or the model's own repo for its published dtype; "" = model_id, with
  // --quantization naming the format (vLLM quantizes FP8 on the fly; the others need a checkpoint).
  std::string server_repo;
  DeviceKind kind = DeviceKind::Gpu;
  // Whether Ollama runs on the device's accelerator (Device::ollama: one of its CUDA, ROCm, Metal
  // or Vulkan builds does). False: no ollama / ollama_modelfile command and no Ollama note.
  bool ollama = true;
  KvOptions kv;                       // n_ctx here is the padded context the estimate used
  const Placement* placement = nullptr;
  int n_mtp = 0;                      // NextN blocks the GGUF holds (llamacpp/placement.hpp ngl_flag)
  bool mmap = true;
  const VllmBudget* vllm = nullptr;   // settings for vllm / sglang
  double gpu_memory_utilization = 0.92;  // engine sglang: its --mem-fraction-static
  std::string engine = "llama.cpp";    // "sglang": only the SGLang command, with its own budget
  int mtp_draft = 0;                  // > 0: speculative decoding on the model's MTP layers, k tokens
  // A separate draft model (speculative.hpp): its id, format, published GGUF repos, all its
  // layers on the GPU (-ngld), k tokens per step; draft_max 0 = none.
  std::string draft_id, draft_quant;
  std::vector<GgufRepo> draft_gguf;
  int draft_ngl = 0;
  int draft_max = 0;
  // A multimodal model (projector.hpp): `-hf` fetches and loads the repo's mmproj by itself
  // (--no-mmproj keeps it out when no image is sent); `-m` needs --mmproj <file> to load it.
  bool multimodal = false;
  bool mmproj = false;                // load the projector (images or audio are sent)
  bool mmproj_audio = false;          // the projector is loaded for audio (audio.hpp), not images
  bool mmproj_offload = true;         // false: --no-mmproj-offload (the encoder on the CPU)
  std::string mmproj_type = "f16";    // the file's type, for its local name
  std::string mmproj_file;            // the real file's name (a Hub repo's mmproj), else made up
  int mlx_kv_bits = 0;                // engine mlx: a quantized cache (mlx_lm.generate --kv-bits)
  int mlx_kv_group = 64;
};

/// The `commands` object: tool name -> command line (and ollama_modelfile -> file text).
/// gguf_convert: when no published repo has the GGUF format and the model is a Hub repo, the
/// steps that make the file the -m / FROM forms load (download, convert, quantize), with notes
/// gguf_not_published (and imatrix_sample_text for the formats llama-quantize needs one for).
nlohmann::json launch_commands(const LaunchInput& in);

/// Whether an Ollama Modelfile can realise the plan, Ollama's running on the device aside: a GGUF
/// format, no experts held in system RAM (Ollama has no --n-cpu-moe) and no drafting. With
/// `ollama` false and this true, the caller names Ollama in commands_left_out.
bool ollama_applies(const LaunchInput& in);

/// Lower-case cache type name as -ctk/-ctv take it ("q8_0", "f16").
std::string cache_type_flag(GgmlType t);

}  // namespace wif
