// The vision projector of a multimodal model: the `mmproj` GGUF that llama.cpp's libmtmd loads
// beside the text model (`--mmproj`), computed from the model's config.json `vision_config`.
//
//  * The tower's tensors per family, named and shaped as llama.cpp's converter writes them
//    (convert_hf_to_gguf.py, the MmprojModel subclasses; tools/mtmd/clip-impl.h tensor names):
//    Gemma 3 (SigLIP + input projection), Qwen2.5-VL and Qwen3-VL / Qwen3.5 (ViT + 2x2 patch
//    merger, Qwen3's deepstack mergers; Qwen2.5-Omni's thinker carries Qwen2.5-VL's tower under
//    thinker_config, written with its audio tower into one mmproj), Mistral 3 / Pixtral (RMSNorm ViT, SiLU-gated FFN, 2x2
//    patch merger and a two-layer projector), Llama 4 (336 px tiles, pixel-shuffle adapter).
//    Other families are reported as not modelled.
//  * The file's types: the converter's default F16 (--outtype f16) keeps 1-D tensors (norms,
//    biases) in F32 and, for Gemma 3, the patch and position embeddings in F32
//    (Gemma3VisionModel.tensor_force_quant); Q8_0 quantizes the 2-D weights whose rows hold a
//    whole number of 32-element blocks.
//  * The tokens one image costs in the text model's context, per family: Gemma 3 a fixed
//    mm_tokens_per_image (the image is resized to image_size); Qwen a grid of 28 / 32 px cells
//    (patch x 2x2 merge) over the image resized to multiples of that; Pixtral the same grid plus
//    one break token per row (Mistral's [IMG_BREAK] / [IMG_END]).
//  * The encoder's compute buffer for one image (clip.cpp builds one graph per image): the
//    attention scores n_head x n_pos^2 in F32 when flash attention is off, plus the
//    activations of one layer (see projector.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/model/ggml_types.hpp"

namespace wif {

struct VisionSpec {
  bool present = false;         // the config has a vision tower
  std::string family;           // gemma3 | qwen2_vl | qwen2_5_vl | qwen3_vl | pixtral | llama4; empty: not
                                // modelled (qwen2_vl only from an mmproj file, gguf/mmproj.hpp)
  std::string code;             // why not modelled: projector_family_unknown | vision_config_incomplete
  std::string missing;          // the config path that was missing (vision_config_incomplete)
  std::string model_type;       // vision_config.model_type, else the model's
  std::int64_t hidden = 0, layers = 0, heads = 0, ff = 0, patch = 0, image_size = 0;
  std::int64_t text_hidden = 0;   // width of the text model's embeddings (projection output)
  std::int64_t merge = 1;         // spatial merge (2x2 -> 2)
  std::int64_t temporal_patch = 1;
  std::int64_t pos_embd = 0;      // learned position embeddings (0: rotary only)
  std::int64_t deepstack = 0;     // Qwen3-VL deepstack mergers
  std::int64_t tokens_fixed = 0;  // Gemma 3: mm_tokens_per_image
  bool proj_bias = true;          // Pixtral: multimodal_projector_bias
  bool gated_ffn = false;         // the tower's MLP is SiLU-gated (Qwen2.5-VL, Pixtral)
  std::int64_t proj_in = 0, proj_out = 0, vision_out = 0;  // Llama 4's adapter and projector widths
};

/// The vision tower of an HF config.json (top level or nested), or {present=false} for a
/// text-only model. Never throws: an unreadable tower is {present, code, missing}.
VisionSpec vision_spec_from_config(const nlohmann::json& config);

struct ProjectorTensor {
  std::string name;
  std::int64_t ne0 = 0, ne1 = 1;  // elements: ne0 (row) x ne1 (rows, all other dims folded)
  GgmlType type = GgmlType::F32;
  std::uint64_t bytes = 0;
};

struct ProjectorPlan {
  std::vector<ProjectorTensor> tensors;
  std::int64_t params = 0;
  std::uint64_t bytes = 0;        // tensor data (the file adds its metadata, well under 1 MB)
  GgmlType type = GgmlType::F16;  // the file's weight type
};

/// The mmproj file's tensors in `weight_type` (F16, BF16, F32 or Q8_0). `spec.family` must be set.
ProjectorPlan projector_plan(const VisionSpec& spec, GgmlType weight_type);

struct ImageCost {
  std::int64_t width = 0, height = 0;   // the size the image is encoded at (after resizing)
  std::int64_t positions = 0;           // patches the encoder attends over (its sequence length)
  std::int64_t tokens = 0;              // tokens in the text model's context
};

/// What one image of `width` x `height` pixels costs (see the header comment).
ImageCost image_cost(const VisionSpec& spec, std::int64_t width, std::int64_t height);

/// The encoder's compute buffer for one image of `cost.positions` patches.
std::uint64_t projector_compute_bytes(const VisionSpec& spec, const ImageCost& cost, bool flash_attn);

/// Multiply-adds x 2 of one encode (the tower's matrices over every patch, and attention).
double projector_encode_flops(const VisionSpec& spec, const ProjectorPlan& plan, const ImageCost& cost);

}  // namespace wif
