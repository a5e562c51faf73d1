// A multimodal projector's own GGUF (the `mmproj` file libmtmd loads beside the text model,
// llama-server --mmproj): its header read as llama.cpp's clip loader reads it. The file holds a
// vision tower, an audio tower, or both (clip.has_vision_encoder, clip.has_audio_encoder). Key names as
// llama.cpp tools/mtmd/clip-impl.h defines them (KEY_PROJ_TYPE "clip.projector_type",
// KEY_VISION_PROJ_TYPE "clip.vision.projector_type", "clip.vision.*": embedding_length,
// feed_forward_length, block_count, attention.head_count, projection_dim, image_size,
// patch_size, spatial_merge_size, projector.scale_factor, image_mean/std), projector type names
// as its PROJECTOR_TYPE_NAMES ("gemma3", "qwen2vl_merger", "qwen2.5vl_merger",
// "qwen3vl_merger", "pixtral", "llama4"); per-type defaults as tools/mtmd/clip.cpp's hparams
// loader sets them (Qwen merge 2, Pixtral merge 1 unless the file says otherwise, Gemma 3 a
// 4x4 pool).
//
// What the file fixes exactly: the weights (every tensor as stored, summed), their type, and
// the tower's dimensions. From those dimensions the tokens one image costs and the encoder's
// buffer come from the same rules as a config.json's vision_config (model/projector.hpp), so a
// file and the config it was converted from give the same figures.
//
// Errors (InputError, `path` the caller's, e.g. "model.mmproj_header_base64"): what
// parse_gguf_header throws (gguf_truncated, gguf_bad_magic … with path "gguf" replaced by
// `path`); mmproj_not_clip (path.general.architecture) when the file is not a clip file;
// mmproj_no_encoder (path.clip.has_vision_encoder) for a file with neither tower; bad_value
// (path.<key>) for a dimension past the bounds below. A projector type the core does not model
// is not an error: spec.family stays empty with code projector_family_unknown (model_type the
// type's name), and a missing dimension gives vision_config_incomplete with `missing` set, as
// for a config; the weights are still the file's.
//
// The audio tower (model/audio.hpp): keys "clip.audio.*" (embedding_length, feed_forward_length,
// block_count, attention.head_count, projection_dim, num_mel_bins, projector.stack_factor), its
// type clip.audio.projector_type in a file with both towers, else clip.projector_type
// ("voxtral", "qwen2a", "ultravox"; "qwen25o" is Qwen2.5-Omni's file with both: its vision tower
// reads as qwen2.5vl_merger and its audio tower as qwen2a, tools/mtmd/clip.cpp load_hparams).
// Its positions are the rows of a.position_embd.weight. An audio type the core does not model
// leaves audio.family empty with code projector_family_unknown.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/gguf/gguf.hpp"
#include "willitfit/model/audio.hpp"
#include "willitfit/model/projector.hpp"

namespace wif {

struct MmprojFile {
  VisionSpec spec;             // the vision tower's dimensions (present=false: the file has none)
  AudioSpec audio;             // the audio tower's dimensions (present=false: the file has none)
  ProjectorPlan plan;          // the file's own tensors; plan.bytes is their sum as stored
  std::uint64_t audio_bytes = 0;  // the audio tower's share of plan.bytes ("a." and "mm.a." tensors)
  std::int64_t audio_params = 0;
  std::string projector_type;  // the vision tower's type as written ("gemma3")
  std::string audio_projector_type;  // the audio tower's type as written ("voxtral")
  std::string name;            // general.name, may be empty
  std::uint64_t header_bytes = 0;
  std::uint64_t file_bytes = 0;  // data offset + every tensor padded to the alignment
  std::size_t tensors = 0;
};

/// Read an mmproj header from the file's first bytes (see the header comment for errors).
MmprojFile load_mmproj(const std::uint8_t* data, std::size_t size, const std::string& path);
inline MmprojFile load_mmproj(const std::vector<std::uint8_t>& b, const std::string& path) {
  return load_mmproj(b.data(), b.size(), path);
}

/// The clip.* metadata llama.cpp's converter writes for `spec` (the inverse of load_mmproj's
/// reading), and the plan's tensors as GGUF tensors: for tests, fuzz seeds and gguf-synth.
std::vector<GgufKv> mmproj_metadata_for(const VisionSpec& spec, const std::string& name, GgmlType weight_type);
std::vector<Tensor> mmproj_tensors_for(const ProjectorPlan& plan);
/// clip.projector_type of an audio-only file for a modelled audio family ("voxtral", "qwen2_audio"
/// -> "qwen2a", "ultravox"); "" for another.
std::string mmproj_audio_projector_type(const std::string& family);
/// The same for an audio-only projector file (clip.has_audio_encoder, clip.audio.*).
std::vector<GgufKv> mmproj_audio_metadata_for(const AudioSpec& spec, const std::string& name, GgmlType weight_type);

/// clip.projector_type for a modelled family ("gemma3" -> "gemma3", "qwen2_5_vl" ->
/// "qwen2.5vl_merger" …); "" for another.
std::string mmproj_projector_type(const std::string& family);

}  // namespace wif
