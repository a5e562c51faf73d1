// The audio encoder of a multimodal model: the Whisper-style tower (and its projector into the
// text model's width) that llama.cpp's libmtmd loads from the `mmproj` GGUF beside the text model,
// computed from the model's config.json `audio_config`. Scoped to the families libmtmd runs
// through its Whisper encoder graph (tools/mtmd/models/whisper-enc.cpp):
//
//  * voxtral      Mistral's Voxtral (model_type "voxtral"): a Whisper large-v3 encoder, the frames
//                 stacked 4 at a time and a two-layer GELU projector without biases. llama.cpp
//                 also average-pools pairs of frames for this projector (clip-model.h
//                 audio_has_avgpool), which transformers' Voxtral does not (reported upstream in
//                 https://github.com/ggml-org/llama.cpp/issues/25496, closed unchanged): llama.cpp's
//                 figure is the one given here, half the 12.5 tokens a second transformers gives.
//  * qwen2_audio  Qwen2-Audio (model_type "qwen2_audio") and the audio half of Qwen2.5-Omni
//                 (llama.cpp's "qwen25o" file reads its audio tower as qwen2a): a Whisper encoder,
//                 a 2x average pool and one linear layer with bias.
//  * ultravox     fixie-ai's Ultravox (model_type "ultravox"): a Whisper encoder, stack_factor
//                 frames stacked per token, an RMSNorm, a SwiGLU linear of hidden_size (halved by
//                 the gate), a second RMSNorm and a linear into the text width, no biases.
//
// Other audio towers (Qwen3-Omni, Gemma 3n / 4, LFM2, Granite Speech ...) are reported as not
// modelled (code projector_family_unknown).
//
// The figures, each from llama.cpp's code (https://github.com/ggml-org/llama.cpp, tools/mtmd):
//  * Windows. mtmd-audio.cpp's Whisper preprocessor makes 100 mel frames a second (16 kHz, hop
//    160), appends 30 s of silence, and cuts the result into whole windows of 3000 frames (30 s),
//    dropping the last partial one; clip.cpp encodes each window with its own graph. A clip of
//    T seconds is floor((floor((16000 T + 480000) / 160) + 1) / 3000) windows: one for 5 s, two
//    for exactly 30 s (the appended silence fills a whole window), eleven for 5 min.
//  * Tokens per window (clip.cpp clip_n_output_tokens): 3000 frames, rounded up to a multiple of
//    the stack factor and divided by it, halved by the stride-2 convolution, halved again where
//    the projector pools: Voxtral 3000/4/2/2 = 187, Qwen2-Audio 3000/2/2 = 750, Ultravox with
//    stack 8 3000/8/2 = 187.
//  * The compute buffer is reserved for one window (clip.cpp warmup: warmup_audio_size 3000
//    frames), so it does not grow with the clip: the encoder's F32 activations over its
//    1500 positions, plus the attention scores n_head x 1500^2 when flash attention is off.
//  * The file's types as convert_hf_to_gguf.py writes them (WhisperEncoderModel and subclasses):
//    the convolution kernels always F16 (tensor_force_quant), the position embeddings
//    (A_ENC_EMBD_POS) and every tensor whose name does not end in ".weight" (biases) F32, norms
//    F32; the linear layers in the file's type (Q8_0 where a row holds whole 32-element blocks).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "willitfit/model/projector.hpp"

namespace wif {

struct AudioSpec {
  bool present = false;       // the config (or the mmproj file) has an audio tower
  std::string family;         // voxtral | qwen2_audio | ultravox; empty: not modelled (see code)
  std::string code;           // why not modelled: projector_family_unknown | audio_config_incomplete
  std::string missing;        // the config path that was missing (audio_config_incomplete)
  std::string model_type;     // audio_config.model_type, else the model's
  std::int64_t hidden = 0;    // d_model of the Whisper encoder
  std::int64_t layers = 0, heads = 0, ff = 0;
  std::int64_t mel_bins = 0;  // num_mel_bins (128 for Whisper large-v3)
  std::int64_t positions = 0; // max_source_positions: learned positions after the conv (1500 = 30 s)
  std::int64_t text_hidden = 0;   // the text model's width (the projector's output)
  std::int64_t stack = 1;         // frames stacked into one token by the projector (Voxtral 4)
  bool avgpool = false;           // a 2x average pool after the encoder (Qwen2-Audio, llama.cpp's Voxtral)
  std::int64_t proj_hidden = 0;   // Ultravox: the projector's hidden_size (SwiGLU input width x 2)
};

/// The audio tower of an HF config.json, or {present=false} for a model without one. Never
/// throws: an unreadable tower is {present, code, missing}.
AudioSpec audio_spec_from_config(const nlohmann::json& config);

/// The audio tower's tensors in the mmproj file of `weight_type` (F16, BF16, F32 or Q8_0).
/// `spec.family` must be set.
ProjectorPlan audio_projector_plan(const AudioSpec& spec, GgmlType weight_type);

/// Whisper's front end as llama.cpp runs it (see the header comment).
inline constexpr std::int64_t kAudioFramesPerWindow = 3000;   // mel frames of one 30 s window
inline constexpr std::int64_t kAudioSampleRate = 16000;
inline constexpr std::int64_t kAudioHop = 160;

struct AudioCost {
  double seconds = 0;                   // the clip's length as asked
  std::int64_t windows = 0;             // 30 s windows encoded
  std::int64_t positions = 0;           // encoder sequence length of one window (frames / 2)
  std::int64_t tokens_per_window = 0;   // tokens one window adds to the text model's context
  std::int64_t tokens = 0;              // windows x tokens_per_window
};

/// What `seconds` of audio cost (0 seconds: no window, no token).
AudioCost audio_cost(const AudioSpec& spec, double seconds);

/// The encoder's compute buffer, reserved for one window whatever the clip's length.
std::uint64_t audio_compute_bytes(const AudioSpec& spec, bool flash_attn);

/// Multiply-adds x 2 of encoding the whole clip (every window: the convolutions, the blocks'
/// matrices over 1500 positions, attention, and the projector over the window's tokens).
double audio_encode_flops(const AudioSpec& spec, const AudioCost& cost);

}  // namespace wif
