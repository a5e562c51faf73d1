#include "willitfit/gguf/mmproj.hpp"

#include <map>

#include "willitfit/base/error.hpp"

namespace wif {
namespace {

// Bounds on the tower's dimensions, far past any published projector (SigLIP-so400m: width
// 1152, 27 blocks, 896 px; Llama 4: 1408 wide, 34 blocks), so that the per-image figures stay
// finite: a dimension past its bound is bad_value.
struct MmprojBound {
  const char* key;
  std::int64_t max;
};
constexpr MmprojBound kMmprojBounds[] = {
    {"clip.vision.embedding_length", 1 << 16}, {"clip.vision.feed_forward_length", 1 << 18},
    {"clip.vision.block_count", 1024},         {"clip.vision.attention.head_count", 1024},
    {"clip.vision.projection_dim", 1 << 18},   {"clip.vision.image_size", 1 << 16},
    {"clip.vision.patch_size", 1024},          {"clip.vision.spatial_merge_size", 64},
    {"clip.vision.projector.scale_factor", 64},
    // The audio tower (Whisper large-v3: width 1280, 32 blocks, 128 mel bins).
    {"clip.audio.embedding_length", 1 << 16},  {"clip.audio.feed_forward_length", 1 << 18},
    {"clip.audio.block_count", 1024},          {"clip.audio.attention.head_count", 1024},
    {"clip.audio.projection_dim", 1 << 18},    {"clip.audio.num_mel_bins", 1024},
    {"clip.audio.projector.stack_factor", 64},
};

// An integer key (0 when absent); a value that is not a non-negative integer within its bound
// is bad_value at path.<key>.
std::int64_t mmproj_dim(const GgufHeader& h, const char* key, std::int64_t max, const std::string& path) {
  const GgufKv* kv = h.find(key);
  if (!kv) return 0;
  if (kv->type == GgufType::Array || !(kv->value.is_number_integer() || kv->value.is_number_unsigned()))
    throw InputError("bad_value", path + "." + key, std::string("'") + key + "' is not an integer");
  const bool neg = kv->value.is_number_integer() && !kv->value.is_number_unsigned() && kv->value.get<std::int64_t>() < 0;
  const std::uint64_t v = neg ? 0 : kv->value.get<std::uint64_t>();
  if (neg || v > static_cast<std::uint64_t>(max))
    throw InputError("bad_value", path + "." + key,
                     std::string("'") + key + "' is out of range (0 to " + std::to_string(max) + ")");
  return static_cast<std::int64_t>(v);
}

std::string mmproj_str(const GgufHeader& h, const char* key) {
  const GgufKv* kv = h.find(key);
  return kv && kv->type == GgufType::String && kv->value.is_string() ? kv->value.get<std::string>() : "";
}

// llama.cpp's projector type names and the families projector.hpp models, both ways.
struct ProjectorName {
  const char* type;    // clip.projector_type
  const char* family;  // projector.hpp
};
constexpr ProjectorName kProjectorNames[] = {
    {"gemma3", "gemma3"},          {"qwen2vl_merger", "qwen2_vl"}, {"qwen2.5vl_merger", "qwen2_5_vl"},
    {"qwen3vl_merger", "qwen3_vl"}, {"pixtral", "pixtral"},        {"llama4", "llama4"},
    {"qwen25o", "qwen2_5_vl"},  // Qwen2.5-Omni's vision tower (clip.cpp: read as QWEN25VL)
};

// The audio projector types model/audio.hpp models (clip-impl.h PROJECTOR_TYPE_NAMES).
constexpr ProjectorName kAudioProjectorNames[] = {
    {"voxtral", "voxtral"}, {"qwen2a", "qwen2_audio"}, {"qwen25o", "qwen2_audio"}, {"ultravox", "ultravox"},
};

std::string mmproj_audio_family_of(const std::string& t) {
  for (const auto& n : kAudioProjectorNames)
    if (t == n.type) return n.family;
  return "";
}

bool mmproj_flag(const GgufHeader& h, const char* key) {
  const GgufKv* kv = h.find(key);
  return kv && kv->value.is_boolean() && kv->value.get<bool>();
}

// The audio tower's dimensions as clip.cpp's hparams loader reads them for the audio modality.
void read_audio_tower(const GgufHeader& h, std::map<std::string, std::int64_t>& d, const std::string& path, MmprojFile& f) {
  AudioSpec& a = f.audio;
  a.present = true;
  a.model_type = f.audio_projector_type.empty() ? "clip" : f.audio_projector_type;
  a.family = mmproj_audio_family_of(f.audio_projector_type);
  if (a.family.empty()) {
    a.code = "projector_family_unknown";
    return;
  }
  a.hidden = d["clip.audio.embedding_length"];
  a.ff = d["clip.audio.feed_forward_length"];
  a.layers = d["clip.audio.block_count"];
  a.heads = d["clip.audio.attention.head_count"];
  a.text_hidden = d["clip.audio.projection_dim"];
  a.mel_bins = d["clip.audio.num_mel_bins"];
  a.avgpool = a.family == "voxtral" || a.family == "qwen2_audio";  // clip-model.h audio_has_avgpool
  a.stack = a.family == "qwen2_audio" ? 1 : d["clip.audio.projector.stack_factor"];
  for (const auto& t : h.tensors) {
    if (t.name == "a.position_embd.weight") a.positions = t.ne[1];
    if (a.family == "ultravox" && t.name == "mm.a.mlp.1.weight") a.proj_hidden = t.ne[1];
  }
  const char* need[] = {"clip.audio.embedding_length", "clip.audio.block_count", "clip.audio.attention.head_count",
                        "clip.audio.feed_forward_length", "clip.audio.projection_dim", "clip.audio.num_mel_bins",
                        a.family == "qwen2_audio" ? "clip.audio.num_mel_bins" : "clip.audio.projector.stack_factor"};
  for (const char* k : need)
    if (d[k] <= 0) {
      a.code = "audio_config_incomplete";
      a.missing = path + "." + k;
      a.family.clear();
      return;
    }
  if (a.positions <= 0) {
    a.code = "audio_config_incomplete";
    a.missing = path + ".a.position_embd.weight";
    a.family.clear();
  }
}

std::string mmproj_family_of(const std::string& t) {
  for (const auto& n : kProjectorNames)
    if (t == n.type) return n.family;
  return "";
}

}  // namespace

std::string mmproj_projector_type(const std::string& family) {
  for (const auto& n : kProjectorNames)
    if (family == n.family) return n.type;
  return "";
}

MmprojFile load_mmproj(const std::uint8_t* data, std::size_t size, const std::string& path) {
  GgufHeader h;
  try {
    h = parse_gguf_header(data, size);
  } catch (const GgufTruncated& e) {
    throw GgufTruncated(e.needed_bytes(), size, path);  // callers read more and retry
  } catch (const InputError& e) {
    Error err = e.error();
    if (err.path.rfind("gguf", 0) == 0) err.path = path + err.path.substr(4);
    throw InputError(std::move(err));
  }
  const std::string arch = mmproj_str(h, "general.architecture");
  if (arch != "clip")
    throw InputError("mmproj_not_clip", path + ".general.architecture",
                     "not a vision projector: general.architecture is '" + arch.substr(0, 64) + "', not 'clip'");
  // A tower is there when its flag says so, or (older files without the flag) when its width is
  // written.
  const GgufKv* has_vision_kv = h.find("clip.has_vision_encoder");
  const bool has_vision = has_vision_kv ? mmproj_flag(h, "clip.has_vision_encoder") : h.find("clip.vision.embedding_length") != nullptr;
  const GgufKv* has_audio_kv = h.find("clip.has_audio_encoder");
  const bool has_audio = has_audio_kv ? mmproj_flag(h, "clip.has_audio_encoder") : h.find("clip.audio.embedding_length") != nullptr;
  if (!has_vision && !has_audio)
    throw InputError("mmproj_no_encoder", path + ".clip.has_vision_encoder", "this projector file has neither a vision nor an audio encoder");

  MmprojFile f;
  f.name = mmproj_str(h, "general.name");
  f.header_bytes = h.header_bytes;
  f.file_bytes = h.file_bytes();
  f.tensors = h.tensors.size();
  // The vision projector type: clip.vision.projector_type in a file with several modalities,
  // else clip.projector_type (clip-impl.h KEY_VISION_PROJ_TYPE, KEY_PROJ_TYPE).
  f.projector_type = mmproj_str(h, "clip.vision.projector_type");
  if (f.projector_type.empty()) f.projector_type = mmproj_str(h, "clip.projector_type");
  f.audio_projector_type = mmproj_str(h, "clip.audio.projector_type");
  if (f.audio_projector_type.empty()) f.audio_projector_type = mmproj_str(h, "clip.projector_type");
  if (!has_vision) f.projector_type.clear();
  if (!has_audio) f.audio_projector_type.clear();

  // The weights as stored: every tensor, its own type and bytes.
  std::map<GgmlType, std::uint64_t> by_type;
  for (const auto& t : h.tensors) {
    ProjectorTensor p;
    p.name = t.name;
    p.ne0 = t.ne[0];
    p.ne1 = t.ne[1] * t.ne[2] * t.ne[3];
    p.type = t.type;
    p.bytes = t.bytes;
    f.plan.params += p.ne0 * p.ne1;
    f.plan.bytes += p.bytes;
    by_type[p.type] += p.bytes;
    if (p.name.rfind("a.", 0) == 0 || p.name.rfind("mm.a.", 0) == 0) {
      f.audio_bytes += p.bytes;
      f.audio_params += p.ne0 * p.ne1;
    }
    f.plan.tensors.push_back(std::move(p));
  }
  // The file's type: the one holding most of the bytes (F16 in the converter's default output,
  // where norms and biases stay F32).
  f.plan.type = GgmlType::F32;
  std::uint64_t most = 0;
  for (const auto& [t, b] : by_type)
    if (b > most) { most = b; f.plan.type = t; }

  std::map<std::string, std::int64_t> d;
  for (const auto& b : kMmprojBounds) d[b.key] = mmproj_dim(h, b.key, b.max, path);
  if (has_audio) read_audio_tower(h, d, path, f);
  if (!has_vision) return f;
  VisionSpec& s = f.spec;
  s.present = true;
  s.model_type = f.projector_type.empty() ? "clip" : f.projector_type;
  s.family = mmproj_family_of(f.projector_type);
  if (s.family.empty()) {
    s.code = "projector_family_unknown";
    return f;
  }
  s.hidden = d["clip.vision.embedding_length"];
  s.ff = d["clip.vision.feed_forward_length"];
  s.layers = d["clip.vision.block_count"];
  s.heads = d["clip.vision.attention.head_count"];
  s.text_hidden = d["clip.vision.projection_dim"];
  s.image_size = d["clip.vision.image_size"];
  s.patch = d["clip.vision.patch_size"];
  // Patches of at least 4 px and grids of at most 1024 per side keep n_head x positions^2 (the
  // attention scores of the largest image a request may name, 16384 px a side) within 2^63.
  if (s.patch > 0 && s.patch < 4)
    throw InputError("bad_value", path + ".clip.vision.patch_size", "'clip.vision.patch_size' is below 4 pixels");
  if (s.patch > 0 && s.image_size / s.patch > 1024)
    throw InputError("bad_value", path + ".clip.vision.image_size", "'clip.vision.image_size' is more than 1024 patches a side");
  // The FFN is gated where the file has gate projections (Qwen2.5-VL, Pixtral).
  for (const auto& t : h.tensors)
    if (t.name == "v.blk.0.ffn_gate.weight") s.gated_ffn = true;
  const bool qwen = s.family == "qwen2_vl" || s.family == "qwen2_5_vl" || s.family == "qwen3_vl";
  const std::int64_t merge = d["clip.vision.spatial_merge_size"];
  if (qwen) s.merge = merge > 0 ? merge : 2;         // clip.cpp: n_merge = 2 unless the file says
  else if (s.family == "pixtral") s.merge = merge > 0 ? merge : 1;  // "the original pixtral does not use patch merging"
  else if (s.family == "llama4") s.merge = 2;        // the pixel shuffle's 2x2 (ratio 0.5)
  const char* need[] = {"clip.vision.embedding_length", "clip.vision.block_count", "clip.vision.attention.head_count",
                        "clip.vision.feed_forward_length", "clip.vision.patch_size", "clip.vision.projection_dim",
                        qwen ? "clip.vision.patch_size" : "clip.vision.image_size"};
  for (const char* k : need)
    if (d[k] <= 0) {
      s.code = "vision_config_incomplete";
      s.missing = path + "." + k;
      s.family.clear();
      return f;
    }
  const std::int64_t g = s.image_size / s.patch;
  if (s.family == "gemma3") {
    // The patch grid average-pooled by scale_factor per side (clip.cpp: 4 for every Gemma 3).
    const std::int64_t scale = d["clip.vision.projector.scale_factor"] > 0 ? d["clip.vision.projector.scale_factor"] : 4;
    s.tokens_fixed = (g / scale) * (g / scale);
    s.pos_embd = g * g;
  } else if (s.family == "llama4") {
    s.pos_embd = g * g + 1;  // + the class token
  }
  if (g <= 0 && !qwen) {
    s.code = "vision_config_incomplete";
    s.missing = path + ".clip.vision.image_size";
    s.family.clear();
  }
  return f;
}

std::vector<GgufKv> mmproj_metadata_for(const VisionSpec& s, const std::string& name, GgmlType weight_type) {
  const int ftype = weight_type == GgmlType::F32 ? 0 : weight_type == GgmlType::BF16 ? 32 : weight_type == GgmlType::Q8_0 ? 7 : 1;
  std::vector<GgufKv> kv = {
      gguf_kv("general.architecture", GgufType::String, "clip"),
      gguf_kv("general.name", GgufType::String, name),
      gguf_kv("general.file_type", GgufType::U32, ftype),
      gguf_kv("clip.has_vision_encoder", GgufType::Bool, true),
      gguf_kv("clip.projector_type", GgufType::String, mmproj_projector_type(s.family)),
      gguf_kv("clip.vision.image_size", GgufType::U32, s.image_size),
      gguf_kv("clip.vision.patch_size", GgufType::U32, s.patch),
      gguf_kv("clip.vision.embedding_length", GgufType::U32, s.hidden),
      gguf_kv("clip.vision.feed_forward_length", GgufType::U32, s.ff),
      gguf_kv("clip.vision.projection_dim", GgufType::U32, s.text_hidden),
      gguf_kv("clip.vision.block_count", GgufType::U32, s.layers),
      gguf_kv("clip.vision.attention.head_count", GgufType::U32, s.heads),
      gguf_kv("clip.vision.attention.layer_norm_epsilon", GgufType::F32, 1e-6),
      gguf_kv_array("clip.vision.image_mean", GgufType::F32, {0.5, 0.5, 0.5}),
      gguf_kv_array("clip.vision.image_std", GgufType::F32, {0.5, 0.5, 0.5}),
  };
  if (s.family == "gemma3" && s.tokens_fixed > 0 && s.patch > 0) {
    std::int64_t side = 1;
    while ((side + 1) * (side + 1) <= s.tokens_fixed) ++side;
    const std::int64_t g = s.image_size / s.patch;
    if (side > 0 && g % side == 0) kv.push_back(gguf_kv("clip.vision.projector.scale_factor", GgufType::U32, g / side));
  }
  if (s.family != "gemma3" && s.family != "llama4" && s.merge > 1)
    kv.push_back(gguf_kv("clip.vision.spatial_merge_size", GgufType::U32, s.merge));
  return kv;
}

std::string mmproj_audio_projector_type(const std::string& family) {
  for (const auto& n : kAudioProjectorNames)
    if (family == n.family) return n.type;
  return "";
}

std::vector<GgufKv> mmproj_audio_metadata_for(const AudioSpec& a, const std::string& name, GgmlType weight_type) {
  const int ftype = weight_type == GgmlType::F32 ? 0 : weight_type == GgmlType::BF16 ? 32 : weight_type == GgmlType::Q8_0 ? 7 : 1;
  const std::string type = mmproj_audio_projector_type(a.family);
  std::vector<GgufKv> kv = {
      gguf_kv("general.architecture", GgufType::String, "clip"),
      gguf_kv("general.name", GgufType::String, name),
      gguf_kv("general.file_type", GgufType::U32, ftype),
      gguf_kv("clip.has_vision_encoder", GgufType::Bool, false),
      gguf_kv("clip.has_audio_encoder", GgufType::Bool, true),
      gguf_kv("clip.projector_type", GgufType::String, type),
      gguf_kv("clip.audio.embedding_length", GgufType::U32, a.hidden),
      gguf_kv("clip.audio.feed_forward_length", GgufType::U32, a.ff),
      gguf_kv("clip.audio.projection_dim", GgufType::U32, a.text_hidden),
      gguf_kv("clip.audio.block_count", GgufType::U32, a.layers),
      gguf_kv("clip.audio.attention.head_count", GgufType::U32, a.heads),
      gguf_kv("clip.audio.attention.layer_norm_epsilon", GgufType::F32, 1e-5),
      gguf_kv("clip.audio.num_mel_bins", GgufType::U32, a.mel_bins),
  };
  if (a.family != "qwen2_audio") kv.push_back(gguf_kv("clip.audio.projector.stack_factor", GgufType::U32, a.stack));
  return kv;
}

std::vector<Tensor> mmproj_tensors_for(const ProjectorPlan& plan) {
  std::vector<Tensor> out;
  out.reserve(plan.tensors.size());
  for (const auto& p : plan.tensors) {
    Tensor t;
    t.name = p.name;
    t.ne = {p.ne0, p.ne1, 1, 1};
    t.n_dims = p.ne1 > 1 ? 2 : 1;
    t.type = p.type;
    t.bytes = p.bytes;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace wif
