#include "willitfit/model/projector.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/json_util.hpp"

namespace wif {
namespace {

using nlohmann::json;

const json* vision_object_at(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

// A family from the model's (or its vision tower's) model_type.
std::string family_of(const std::string& top, const std::string& vis) {
  if (top == "gemma3") return "gemma3";
  if (top == "qwen2_5_vl") return "qwen2_5_vl";
  if (top == "qwen3_vl" || top == "qwen3_vl_moe" || top == "qwen3_5" || top == "qwen3_5_moe") return "qwen3_vl";
  if (top == "mistral3" || vis == "pixtral") return "pixtral";
  if (top == "llama4" || vis == "llama4_vision_model") return "llama4";
  return "";
}

struct ProjBuilder {
  ProjectorPlan plan;
  GgmlType weight;
  // A tensor of ne0 x ne1 elements. `matrix`: a linear layer's weight, which takes the file's
  // weight type (Q8_0 where its rows hold whole blocks, else F16); `f32`: kept in F32 whatever
  // the file's type (1-D tensors, and what the converter forces).
  void add(const std::string& name, std::int64_t ne0, std::int64_t ne1, bool matrix, bool f32 = false) {
    ProjectorTensor t;
    t.name = name;
    t.ne0 = ne0;
    t.ne1 = ne1;
    if (f32 || ne1 == 1) t.type = GgmlType::F32;
    else if (weight == GgmlType::F32) t.type = GgmlType::F32;
    else if (weight == GgmlType::Q8_0) t.type = matrix && ne0 % 32 == 0 ? GgmlType::Q8_0 : GgmlType::F16;
    else t.type = weight;  // F16 or BF16
    t.bytes = ggml_row_bytes(t.type, static_cast<std::uint64_t>(ne0)) * static_cast<std::uint64_t>(ne1);
    plan.params += ne0 * ne1;
    plan.bytes += t.bytes;
    plan.tensors.push_back(std::move(t));
  }
  void vec(const std::string& name, std::int64_t n) { add(name, n, 1, false, true); }
  void linear(const std::string& name, std::int64_t in, std::int64_t out, bool bias) {
    add(name + ".weight", in, out, true);
    if (bias) vec(name + ".bias", out);
  }
  void norm(const std::string& name, std::int64_t n, bool bias) {
    vec(name + ".weight", n);
    if (bias) vec(name + ".bias", n);
  }
};

}  // namespace

VisionSpec vision_spec_from_config(const json& config) {
  VisionSpec s;
  const std::string top = string_or_empty(&config, "model_type");
  // Qwen2.5-Omni nests its thinker's towers under thinker_config; its vision tower is Qwen2.5-VL's
  // (llama.cpp's "qwen25o" mmproj reads it as QWEN25VL, tools/mtmd/clip.cpp).
  const bool omni = top == "qwen2_5_omni";
  const json* root = omni ? vision_object_at(config, "thinker_config") : &config;
  const json* vc = root ? vision_object_at(*root, "vision_config") : nullptr;
  if (!vc) return s;
  s.present = true;
  const json* tc = vision_object_at(*root, "text_config");
  const std::string vis = string_or_empty(vc, "model_type");
  s.model_type = vis.empty() ? top : vis;
  s.family = omni ? "qwen2_5_vl" : family_of(top, vis);
  if (s.family.empty()) {
    s.code = "projector_family_unknown";
    return s;
  }
  s.gated_ffn = s.family == "pixtral" || s.family == "qwen2_5_vl";
  s.hidden = positive_int_or_zero(vc, {"hidden_size"});
  s.layers = positive_int_or_zero(vc, {"num_hidden_layers", "depth"});
  s.heads = positive_int_or_zero(vc, {"num_attention_heads", "num_heads"});
  s.ff = positive_int_or_zero(vc, {"intermediate_size"});
  s.patch = positive_int_or_zero(vc, {"patch_size"});
  s.image_size = positive_int_or_zero(vc, {"image_size"});
  s.text_hidden = tc ? positive_int_or_zero(tc, {"hidden_size"}) : positive_int_or_zero(&config, {"hidden_size"});
  const char* need_image = nullptr;
  if (s.family == "gemma3") {
    // transformers' Gemma3Config: mm_tokens_per_image defaults to 256 (a 4x4 average pool of
    // the 64x64 patch grid of an 896 px image).
    s.tokens_fixed = positive_int_or_zero(&config, {"mm_tokens_per_image"});
    if (s.tokens_fixed == 0) s.tokens_fixed = 256;
    s.pos_embd = s.patch > 0 ? (s.image_size / s.patch) * (s.image_size / s.patch) : 0;
    need_image = "image_size";
  } else if (s.family == "qwen2_5_vl" || s.family == "qwen3_vl") {
    s.text_hidden = positive_int_or_zero(vc, {"out_hidden_size"});
    s.merge = positive_int_or_zero(vc, {"spatial_merge_size"});
    if (s.merge == 0) s.merge = 2;
    s.temporal_patch = positive_int_or_zero(vc, {"temporal_patch_size"});
    if (s.temporal_patch == 0) s.temporal_patch = 2;
    if (s.family == "qwen3_vl") {
      // transformers' Qwen3VLVisionConfig: 2304 learned positions (a 48x48 grid, interpolated)
      // and deepstack mergers after blocks [8, 16, 24]; Qwen3.5's configs state their list ([]).
      s.pos_embd = positive_int_or_zero(vc, {"num_position_embeddings"});
      if (s.pos_embd == 0) s.pos_embd = 2304;
      auto it = vc->find("deepstack_visual_indexes");
      if (it != vc->end() && it->is_array()) s.deepstack = static_cast<std::int64_t>(it->size());
      else s.deepstack = (top == "qwen3_vl" || top == "qwen3_vl_moe") ? 3 : 0;
    }
  } else if (s.family == "pixtral") {
    s.merge = positive_int_or_zero(&config, {"spatial_merge_size"});
    if (s.merge == 0) s.merge = 2;
    auto it = config.find("multimodal_projector_bias");
    s.proj_bias = it != config.end() && it->is_boolean() && it->get<bool>();
    need_image = "image_size";
  } else if (s.family == "llama4") {
    // Llama 4: 336 px tiles, a pixel-shuffle adapter (ratio 0.5: 2x2 patches into one token)
    // from projector_input_dim to projector_output_dim, then a linear map to the text width.
    s.merge = 2;
    s.pos_embd = s.patch > 0 ? (s.image_size / s.patch) * (s.image_size / s.patch) + 1 : 0;  // + the class token
    need_image = "image_size";
    s.proj_in = positive_int_or_zero(vc, {"projector_input_dim"});
    s.proj_out = positive_int_or_zero(vc, {"projector_output_dim"});
    s.vision_out = positive_int_or_zero(vc, {"vision_output_dim"});
    for (const auto& [key, v] : {std::pair<const char*, std::int64_t>{"projector_input_dim", s.proj_in},
                                 {"projector_output_dim", s.proj_out}, {"vision_output_dim", s.vision_out}})
      if (v <= 0 && s.hidden > 0 && s.layers > 0 && s.heads > 0 && s.ff > 0) {
        s.code = "vision_config_incomplete";
        s.missing = std::string("config.vision_config.") + key;
        s.family.clear();
        return s;
      }
  }
  const std::pair<const char*, std::int64_t> needed[] = {
      {"hidden_size", s.hidden}, {s.family.rfind("qwen", 0) == 0 ? "depth" : "num_hidden_layers", s.layers},
      {s.family.rfind("qwen", 0) == 0 ? "num_heads" : "num_attention_heads", s.heads},
      {"intermediate_size", s.ff}, {"patch_size", s.patch},
      {need_image ? need_image : "patch_size", need_image ? s.image_size : s.patch},
      {s.family.rfind("qwen", 0) == 0 ? "out_hidden_size" : "text_config.hidden_size", s.text_hidden}};
  const std::string base = omni ? "config.thinker_config." : "config.";
  for (const auto& [key, v] : needed)
    if (v <= 0) {
      s.code = "vision_config_incomplete";
      s.missing = std::string(key).rfind("text_config", 0) == 0 ? base + key : base + "vision_config." + key;
      s.family.clear();
      return s;
    }
  return s;
}

ProjectorPlan projector_plan(const VisionSpec& s, GgmlType weight_type) {
  ProjBuilder b{{}, weight_type};
  b.plan.type = weight_type;
  const std::int64_t h = s.hidden, ff = s.ff, p = s.patch, L = s.layers;
  auto blk = [](std::int64_t il, const char* t) { return "v.blk." + std::to_string(il) + "." + t; };
  // The encoder's L pre-norm blocks, the same shape in every family: two norms (LayerNorm with a
  // bias, or RMSNorm without), the four attention projections and the MLP (SiLU-gated or not).
  auto blocks = [&](bool norm_bias, bool linear_bias, bool gated) {
    for (std::int64_t il = 0; il < L; ++il) {
      b.norm(blk(il, "ln1"), h, norm_bias);
      for (const char* t : {"attn_q", "attn_k", "attn_v", "attn_out"}) b.linear(blk(il, t), h, h, linear_bias);
      b.norm(blk(il, "ln2"), h, norm_bias);
      if (gated) b.linear(blk(il, "ffn_gate"), h, ff, linear_bias);
      b.linear(blk(il, "ffn_up"), h, ff, linear_bias);
      b.linear(blk(il, "ffn_down"), ff, h, linear_bias);
    }
  };
  if (s.family == "gemma3") {
    // SigLIP: conv patch embedding with bias, learned positions (both F32 in the converter's
    // output), pre-norm blocks with LayerNorm and biased projections, a GELU MLP; then the
    // post-layernorm and Gemma 3's soft-embedding norm and input projection (forced F16).
    b.add("v.patch_embd.weight", p * p * 3, h, false, true);
    b.vec("v.patch_embd.bias", h);
    b.add("v.position_embd.weight", h, s.pos_embd, false, true);
    blocks(true, true, false);
    b.norm("v.post_ln", h, true);
    b.add("mm.input_projection.weight", h, s.text_hidden, false);
    b.vec("mm.soft_emb_norm.weight", h);
  } else if (s.family == "qwen2_5_vl" || s.family == "qwen3_vl") {
    const bool q3 = s.family == "qwen3_vl";
    // The Conv3d patch embedding (temporal 2) is written as one 2-D kernel per frame.
    for (std::int64_t t = 0; t < s.temporal_patch; ++t)
      b.add(t == 0 ? "v.patch_embd.weight" : "v.patch_embd.weight." + std::to_string(t), p * p * 3, h, false);
    if (q3) {
      b.vec("v.patch_embd.bias", h);
      b.add("v.position_embd.weight", h, s.pos_embd, false);
    }
    blocks(q3, true, !q3);  // Qwen3: LayerNorm, plain MLP; Qwen2.5: RMSNorm, SiLU-gated MLP
    // The patch merger: a norm over the tower's width, then an MLP over 2x2 concatenated patches.
    const std::int64_t m = h * s.merge * s.merge;
    b.norm("v.post_ln", h, q3);
    b.linear("mm.0", m, m, true);
    b.linear("mm.2", m, s.text_hidden, true);
    for (std::int64_t d = 0; d < s.deepstack; ++d) {
      const std::string n = "v.deepstack." + std::to_string(d);
      b.norm(n + ".norm", m, true);
      b.linear(n + ".fc1", m, m, true);
      b.linear(n + ".fc2", m, s.text_hidden, true);
    }
  } else if (s.family == "llama4") {
    // Llama 4 (transformers Llama4VisionModel): unfold-linear patch embedding without bias, a
    // class token and learned positions, LayerNorm before and after the blocks; blocks with
    // biased projections and a GELU MLP; the pixel-shuffle MLP (no biases) and the projector.
    b.add("v.patch_embd.weight", p * p * 3, h, true);
    b.vec("v.class_embd", h);
    b.add("v.position_embd.weight", h, s.pos_embd, false);
    b.norm("v.pre_ln", h, true);
    b.norm("v.post_ln", h, true);
    blocks(true, true, false);
    b.linear("mm.adapter.fc1", h * s.merge * s.merge, s.proj_in, false);
    b.linear("mm.adapter.fc2", s.proj_in, s.proj_out, false);
    b.linear("mm.model.fc", s.vision_out, s.text_hidden, false);
  } else if (s.family == "pixtral") {
    // Pixtral: conv patch embedding without bias, RMSNorm everywhere, SiLU-gated FFN, no biases;
    // Mistral 3's projector: a norm, the 2x2 patch merger and two linear layers.
    b.add("v.patch_embd.weight", p * p * 3, h, false);
    b.vec("v.pre_ln.weight", h);
    blocks(false, false, true);
    b.vec("mm.input_norm.weight", h);
    b.linear("mm.patch_merger", h * s.merge * s.merge, h, false);
    b.linear("mm.1", h, s.text_hidden, s.proj_bias);
    b.linear("mm.2", s.text_hidden, s.text_hidden, s.proj_bias);
  }
  return b.plan;
}

ImageCost image_cost(const VisionSpec& s, std::int64_t width, std::int64_t height) {
  ImageCost c;
  width = std::max<std::int64_t>(width, 1);
  height = std::max<std::int64_t>(height, 1);
  if (s.family == "gemma3") {
    // Every image is resized to image_size x image_size; the encoder sees its whole patch grid
    // and the projector pools it down to mm_tokens_per_image.
    c.width = c.height = s.image_size;
    const std::int64_t g = s.image_size / s.patch;
    c.positions = g * g;
    c.tokens = s.tokens_fixed;
  } else if (s.family == "qwen2_vl" || s.family == "qwen2_5_vl" || s.family == "qwen3_vl") {
    // Qwen's smart_resize: each side to the nearest multiple of patch x merge (at least one).
    const std::int64_t cell = s.patch * s.merge;
    auto side = [cell](std::int64_t v) {
      return std::max<std::int64_t>(cell, static_cast<std::int64_t>(std::llround(static_cast<double>(v) / static_cast<double>(cell))) * cell);
    };
    c.width = side(width);
    c.height = side(height);
    c.tokens = (c.width / cell) * (c.height / cell);
    c.positions = c.tokens * s.merge * s.merge;
  } else if (s.family == "llama4") {
    // Llama 4: the image cut into image_size tiles (at most 16), each 144 tokens after the 2x2
    // shuffle, plus one more tile for the whole image resized when there are several.
    const std::int64_t cols = std::max<std::int64_t>(1, (width + s.image_size - 1) / s.image_size);
    std::int64_t rows = std::max<std::int64_t>(1, (height + s.image_size - 1) / s.image_size);
    std::int64_t c0 = std::min<std::int64_t>(cols, 16);
    while (c0 * rows > 16 && rows > 1) --rows;
    const std::int64_t tiles = c0 * rows + (c0 * rows > 1 ? 1 : 0);
    const std::int64_t g = s.image_size / s.patch;
    c.width = c0 * s.image_size;
    c.height = rows * s.image_size;
    c.positions = tiles * (g * g + 1);  // every tile through the encoder, each with its class token
    c.tokens = tiles * (g * g) / (s.merge * s.merge);
  } else if (s.family == "pixtral") {
    // Pixtral: scaled down so the longer side is at most image_size, each side to whole
    // patches; after the 2x2 merge, one token per cell plus a break (or end) token per row.
    double scale = 1.0;
    const std::int64_t longest = std::max(width, height);
    if (longest > s.image_size) scale = static_cast<double>(s.image_size) / static_cast<double>(longest);
    const std::int64_t cell = s.patch * s.merge;
    auto cells = [&](std::int64_t v) {
      const double px = std::floor(static_cast<double>(v) * scale);
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(px / static_cast<double>(cell))));
    };
    const std::int64_t cols = cells(width), rows = cells(height);
    c.width = cols * cell;
    c.height = rows * cell;
    c.positions = cols * rows * s.merge * s.merge;
    c.tokens = cols * rows + rows;
  }
  return c;
}

std::uint64_t projector_compute_bytes(const VisionSpec& s, const ImageCost& c, bool flash_attn) {
  // clip.cpp runs the tower in F32 activations. Without flash attention the scores of one
  // layer, n_head x n_pos x n_pos, are materialised (ollama's reservation notes for gemma3,
  // qwen2.5-vl and mistral3 size the same matrix); the rest is one layer's live activations:
  // the residual, Q, K and V, and the FFN's hidden (two of them when gated).
  const double n = static_cast<double>(c.positions);
  double bytes = 4.0 * n * (4.0 * static_cast<double>(s.hidden) + (s.gated_ffn ? 2.0 : 1.0) * static_cast<double>(s.ff));
  // Llama 4's tiles attend within themselves: the scores are per tile.
  const double attn_n = s.family == "llama4" && s.pos_embd > 0 ? static_cast<double>(s.pos_embd) : n;
  if (!flash_attn) bytes += 4.0 * static_cast<double>(s.heads) * attn_n * n;
  return static_cast<std::uint64_t>(bytes);
}

double projector_encode_flops(const VisionSpec& s, const ProjectorPlan& plan, const ImageCost& c) {
  double per_position = 0;
  for (const auto& t : plan.tensors)
    if (t.ne1 > 1 && t.name.find("position_embd") == std::string::npos) per_position += static_cast<double>(t.ne0 * t.ne1);
  const double n = static_cast<double>(c.positions);
  // 2 flops per multiply-add; attention QK^T and AV: 2 x 2 x n^2 x hidden per layer. The merger
  // runs on n / merge^2 rows; counted over every position, an upper bound within a few percent.
  const double attn_n = s.family == "llama4" && s.pos_embd > 0 ? static_cast<double>(s.pos_embd) : n;
  return 2.0 * per_position * n + 4.0 * attn_n * n * static_cast<double>(s.hidden) * static_cast<double>(s.layers);
}

}  // namespace wif
