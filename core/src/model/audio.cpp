#include "willitfit/model/audio.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/json_util.hpp"

namespace wif {
namespace {

using nlohmann::json;

const json* audio_object_at(const json* j, const char* key) {
  if (!j || !j->is_object()) return nullptr;
  auto it = j->find(key);
  return it != j->end() && it->is_object() ? &*it : nullptr;
}

// The tensors of one mmproj audio tower, typed as convert_hf_to_gguf.py writes them.
struct AudioBuilder {
  ProjectorPlan plan;
  GgmlType weight;
  enum class Kind { Linear, ConvKernel, Position, Vector };
  void add(const std::string& name, std::int64_t ne0, std::int64_t ne1, Kind kind) {
    ProjectorTensor t;
    t.name = name;
    t.ne0 = ne0;
    t.ne1 = ne1;
    if (kind == Kind::ConvKernel) t.type = GgmlType::F16;  // forced F16 in every file type
    else if (kind == Kind::Position || kind == Kind::Vector) t.type = GgmlType::F32;
    else if (weight == GgmlType::Q8_0) t.type = ne0 % 32 == 0 ? GgmlType::Q8_0 : GgmlType::F16;
    else t.type = weight;  // F16, BF16 or F32
    t.bytes = ggml_row_bytes(t.type, static_cast<std::uint64_t>(ne0)) * static_cast<std::uint64_t>(ne1);
    plan.params += ne0 * ne1;
    plan.bytes += t.bytes;
    plan.tensors.push_back(std::move(t));
  }
  void vec(const std::string& name, std::int64_t n) { add(name, n, 1, Kind::Vector); }
  void linear(const std::string& name, std::int64_t in, std::int64_t out, bool bias) {
    add(name + ".weight", in, out, Kind::Linear);
    if (bias) vec(name + ".bias", out);
  }
  void norm(const std::string& name, std::int64_t n, bool bias) {
    vec(name + ".weight", n);
    if (bias) vec(name + ".bias", n);
  }
};

}  // namespace

AudioSpec audio_spec_from_config(const json& config) {
  AudioSpec s;
  const std::string top = string_or_empty(&config, "model_type");
  // Qwen2.5-Omni nests its thinker (text model, vision and audio towers) under thinker_config.
  const json* root = top == "qwen2_5_omni" ? audio_object_at(&config, "thinker_config") : &config;
  const json* ac = audio_object_at(root, "audio_config");
  if (!ac) return s;
  s.present = true;
  const std::string sub = string_or_empty(ac, "model_type");
  s.model_type = sub.empty() ? top : sub;
  if (top == "voxtral") s.family = "voxtral";
  else if (top == "qwen2_audio" || top == "qwen2_5_omni") s.family = "qwen2_audio";
  else if (top == "ultravox") s.family = "ultravox";
  if (s.family.empty()) {
    s.code = "projector_family_unknown";
    return s;
  }
  s.hidden = positive_int_or_zero(ac, {"d_model", "hidden_size"});
  s.layers = positive_int_or_zero(ac, {"encoder_layers", "num_hidden_layers"});
  s.heads = positive_int_or_zero(ac, {"encoder_attention_heads", "num_attention_heads"});
  s.ff = positive_int_or_zero(ac, {"encoder_ffn_dim", "intermediate_size"});
  s.mel_bins = positive_int_or_zero(ac, {"num_mel_bins"});
  s.positions = positive_int_or_zero(ac, {"max_source_positions"});
  const json* tc = audio_object_at(root, "text_config");
  std::pair<const char*, std::int64_t*> text_key = {"config.text_config.hidden_size", &s.text_hidden};
  if (top == "qwen2_5_omni") {
    // The Omni audio encoder projects into the thinker's width itself (audio_config.output_dim).
    s.text_hidden = positive_int_or_zero(ac, {"output_dim"});
    text_key.first = "config.thinker_config.audio_config.output_dim";
  } else {
    s.text_hidden = tc ? positive_int_or_zero(tc, {"hidden_size"}) : 0;
  }
  if (s.family == "voxtral") {
    // convert_hf_to_gguf.py VoxtralWhisperEncoderModel writes stack factor 4 (its note: the
    // audio intermediate_size over hidden_size); clip-model.h pools Voxtral's frames 2x too.
    s.stack = 4;
    s.avgpool = true;
  } else if (s.family == "qwen2_audio") {
    s.avgpool = true;  // nn.AvgPool1d(2, stride=2) after the encoder
  } else {
    // Ultravox: stack_factor and the projector's hidden_size at the config's top level
    // (fixie-ai ultravox_config.py: defaults 8 and 4096).
    s.stack = positive_int_or_zero(&config, {"stack_factor"});
    if (s.stack == 0) s.stack = 8;
    s.proj_hidden = positive_int_or_zero(&config, {"hidden_size"});
    if (s.proj_hidden == 0) s.proj_hidden = 4096;
  }
  const std::string base = top == "qwen2_5_omni" ? "config.thinker_config.audio_config." : "config.audio_config.";
  // Named as the family's config names them (VoxtralEncoderConfig: hidden_size ...; Whisper's
  // own config, which Qwen2-Audio and Ultravox embed: d_model ...).
  const bool vx = s.family == "voxtral";
  const std::pair<std::string, std::int64_t> needed[] = {
      {base + (vx ? "hidden_size" : "d_model"), s.hidden},
      {base + (vx ? "num_hidden_layers" : "encoder_layers"), s.layers},
      {base + (vx ? "num_attention_heads" : "encoder_attention_heads"), s.heads},
      {base + (vx ? "intermediate_size" : "encoder_ffn_dim"), s.ff},
      {base + "num_mel_bins", s.mel_bins},   {base + "max_source_positions", s.positions},
      {text_key.first, s.text_hidden}};
  for (const auto& [key, v] : needed)
    if (v <= 0) {
      s.code = "audio_config_incomplete";
      s.missing = key;
      s.family.clear();
      return s;
    }
  return s;
}

ProjectorPlan audio_projector_plan(const AudioSpec& s, GgmlType weight_type) {
  AudioBuilder b{{}, weight_type};
  b.plan.type = weight_type;
  using K = AudioBuilder::Kind;
  const std::int64_t d = s.hidden, ff = s.ff;
  // Whisper's front end: two 1-D convolutions of kernel 3 (mel -> d, then d -> d at stride 2),
  // each with a bias (written [1, d]: not a ".weight", so F32), then the learned positions.
  b.add("a.conv1d.1.weight", 3, s.mel_bins * d, K::ConvKernel);
  b.add("a.conv1d.1.bias", 1, d, K::Vector);
  b.add("a.conv1d.2.weight", 3, d * d, K::ConvKernel);
  b.add("a.conv1d.2.bias", 1, d, K::Vector);
  b.add("a.position_embd.weight", d, s.positions, K::Position);
  // The encoder's pre-norm blocks: LayerNorm with bias, Q/V/O with biases and K without
  // (whisper-enc.cpp asserts no k bias), a GELU MLP with biases.
  for (std::int64_t il = 0; il < s.layers; ++il) {
    const std::string p = "a.blk." + std::to_string(il) + ".";
    b.norm(p + "ln1", d, true);
    b.linear(p + "attn_q", d, d, true);
    b.linear(p + "attn_k", d, d, false);
    b.linear(p + "attn_v", d, d, true);
    b.linear(p + "attn_out", d, d, true);
    b.norm(p + "ln2", d, true);
    b.linear(p + "ffn_up", d, ff, true);
    b.linear(p + "ffn_down", ff, d, true);
  }
  b.norm("a.post_ln", d, true);
  if (s.family == "voxtral") {
    // VoxtralMultiModalProjector: linear_1 (4 stacked frames -> text width), GELU, linear_2.
    b.linear("mm.a.mlp.1", d * s.stack, s.text_hidden, false);
    b.linear("mm.a.mlp.2", s.text_hidden, s.text_hidden, false);
  } else if (s.family == "qwen2_audio") {
    b.linear("mm.a.fc", d, s.text_hidden, true);
  } else if (s.family == "ultravox") {
    // UltravoxProjector: RMSNorm over the stacked frames, linear_1 into hidden_size, SwiGLU
    // (halves it), RMSNorm, linear_2 into the text width.
    b.vec("mm.a.norm_pre.weight", d * s.stack);
    b.linear("mm.a.mlp.1", d * s.stack, s.proj_hidden, false);
    b.vec("mm.a.norm_mid.weight", s.proj_hidden / 2);
    b.linear("mm.a.mlp.2", s.proj_hidden / 2, s.text_hidden, false);
  }
  return b.plan;
}

AudioCost audio_cost(const AudioSpec& s, double seconds) {
  AudioCost c;
  c.seconds = seconds;
  const std::int64_t stack = std::max<std::int64_t>(1, s.stack);
  c.positions = kAudioFramesPerWindow / 2;
  std::int64_t t = (kAudioFramesPerWindow + stack - 1) / stack;  // CLIP_ALIGN to the stack, / stack
  t /= 2;                                                          // the stride-2 convolution
  if (s.avgpool) t /= 2;                                           // AvgPool1d(2)
  c.tokens_per_window = t;
  if (!(seconds > 0)) return c;
  // The Whisper preprocessor: samples + 30 s of zeros (+ 2 x 200 reflected, taken back by the
  // 400-sample frame), one frame per hop plus one, whole 3000-frame windows only.
  const double samples = std::floor(seconds * static_cast<double>(kAudioSampleRate));
  const double frames = std::floor((samples + 30.0 * kAudioSampleRate) / kAudioHop) + 1;
  c.windows = static_cast<std::int64_t>(std::floor(frames / static_cast<double>(kAudioFramesPerWindow)));
  c.tokens = c.windows * c.tokens_per_window;
  return c;
}

std::uint64_t audio_compute_bytes(const AudioSpec& s, bool flash_attn) {
  // As for the vision encoder (projector.cpp): one block's live F32 activations over the
  // window's positions (the residual, Q, K and V, and the MLP's hidden), plus the attention
  // scores of one block when flash attention is off.
  const double n = static_cast<double>(kAudioFramesPerWindow / 2);
  double bytes = 4.0 * n * (4.0 * static_cast<double>(s.hidden) + static_cast<double>(s.ff));
  if (!flash_attn) bytes += 4.0 * static_cast<double>(s.heads) * n * n;
  return static_cast<std::uint64_t>(bytes);
}

double audio_encode_flops(const AudioSpec& s, const AudioCost& c) {
  const double d = static_cast<double>(s.hidden), ff = static_cast<double>(s.ff);
  const double frames = static_cast<double>(kAudioFramesPerWindow), n = frames / 2;
  const double rows = static_cast<double>(c.tokens_per_window), text = static_cast<double>(s.text_hidden);
  double per_window = 2.0 * 3.0 * static_cast<double>(s.mel_bins) * d * frames  // conv 1 (stride 1)
                      + 2.0 * 3.0 * d * d * n                                      // conv 2 (stride 2)
                      + static_cast<double>(s.layers) * (2.0 * (4.0 * d * d + 2.0 * d * ff) * n + 4.0 * n * n * d);
  const double stacked = d * static_cast<double>(std::max<std::int64_t>(1, s.stack));
  if (s.family == "voxtral") per_window += 2.0 * rows * (stacked * text + text * text);
  else if (s.family == "qwen2_audio") per_window += 2.0 * rows * d * text;
  else if (s.family == "ultravox")
    per_window += 2.0 * rows * (stacked * static_cast<double>(s.proj_hidden) + static_cast<double>(s.proj_hidden) / 2 * text);
  return per_window * static_cast<double>(c.windows);
}

}  // namespace wif
