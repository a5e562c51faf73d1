// A GGUF header as a TensorPlan (the file's real per-tensor types and bytes) and as a summary
// document. Roles follow the names tensors.cpp gives (llama.cpp src/llama-arch.cpp names).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>
#include <unordered_set>

#include "willitfit/base/text.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"

namespace wif {
namespace {

using text::ends_with;
using text::has;

// "blk.12.attn_q.weight" -> 12; -1 outside the repeating layers.
int layer_of(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  std::size_t i = 4;
  long v = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i < 12) v = v * 10 + (name[i++] - '0');
  return i > 4 && i < name.size() && name[i] == '.' ? static_cast<int>(v) : -1;
}

// "ffn_gate.7.weight" -> "ffn_gate": a routed expert stored as its own tensor (the older layout
// of llama.cpp's converter, LLM_TENSOR_FFN_*_EXP "blk.%d.ffn_gate.%d"); "" for anything else.
std::string per_expert_base(const std::string& n) {
  const std::size_t dot = n.find('.');
  if (dot == std::string::npos || n.rfind("ffn_", 0) != 0) return "";
  std::size_t i = dot + 1;
  while (i < n.size() && n[i] >= '0' && n[i] <= '9') ++i;
  if (i == dot + 1 || i >= n.size() || n[i] != '.') return "";
  const std::string rest = n.substr(i);
  return rest == ".weight" || rest == ".bias" ? n.substr(0, dot) : "";
}

TensorRole role_of(const std::string& full) {
  const int il = layer_of(full);
  const std::string n = il >= 0 ? full.substr(full.find('.', 4) + 1) : full;
  // Gemma 3n's per-layer table is a lookup like token_embd (llama-arch.cpp LLM_TENSOR_LAYER_INPUT).
  if (n == "token_embd.weight" || n == "per_layer_token_embd.weight") return TensorRole::TokenEmbd;
  if (n == "output.weight") return TensorRole::Output;
  if (ends_with(n, ".bias") || has(n, "exp_probs_b")) return TensorRole::Bias;
  if (has(n, "norm") || n == "attn_sinks.weight") return TensorRole::Norm;
  if (has(n, "ffn_gate_inp") || n == "indexer.weights_proj.weight" || n == "indexer.proj.weight") return TensorRole::Router;
  if (n == "attn_q.weight") return TensorRole::AttnQ;
  if (n == "attn_k.weight") return TensorRole::AttnK;
  if (n == "attn_v.weight") return TensorRole::AttnV;
  if (n == "attn_qkv.weight") return TensorRole::AttnQKV;
  if (n == "attn_output.weight") return TensorRole::AttnOut;
  if (n.rfind("attn_", 0) == 0 || n.rfind("indexer.", 0) == 0) return TensorRole::AttnOther;
  if (has(n, "_exps")) {
    if (n.rfind("ffn_down", 0) == 0) return TensorRole::ExpDown;
    if (n.rfind("ffn_gate_exps", 0) == 0) return TensorRole::ExpGate;
    return TensorRole::ExpUp;   // ffn_up_exps and fused ffn_gate_up_exps
  }
  const std::string split = per_expert_base(n);
  if (split == "ffn_down") return TensorRole::ExpDown;
  if (split == "ffn_gate") return TensorRole::ExpGate;
  if (split == "ffn_up" || split == "ffn_gate_up") return TensorRole::ExpUp;
  if (n.rfind("ffn_gate", 0) == 0) return TensorRole::FfnGate;
  if (n.rfind("ffn_up", 0) == 0) return TensorRole::FfnUp;
  if (n.rfind("ffn_down", 0) == 0) return TensorRole::FfnDown;
  if (n.rfind("ssm_", 0) == 0 || n.rfind("shortconv.", 0) == 0) return TensorRole::Ssm;
  return TensorRole::Other;
}

// llama-quantize's eligibility test (src/llama-quant.cpp), for display of what a requant could change.
bool quantizable(const Tensor& t) {
  const std::string& n = t.name;
  return t.n_dims >= 2 && ends_with(n, "weight") && !has(n, "_norm.weight") && !has(n, "ffn_gate_inp.weight") &&
         !has(n, "position_embd") && !has(n, "ssm_conv1d") && !has(n, "shortconv.conv.weight");
}

struct FtypeName {
  int id;
  const char* name;
};
// llama_ftype (llama.cpp include/llama.h).
constexpr FtypeName kFtypeNames[] = {
    {0, "F32"},     {1, "F16"},     {2, "Q4_0"},    {3, "Q4_1"},     {7, "Q8_0"},     {8, "Q5_0"},
    {9, "Q5_1"},    {10, "Q2_K"},   {11, "Q3_K_S"}, {12, "Q3_K_M"},  {13, "Q3_K_L"},  {14, "Q4_K_S"},
    {15, "Q4_K_M"}, {16, "Q5_K_S"}, {17, "Q5_K_M"}, {18, "Q6_K"},    {19, "IQ2_XXS"}, {20, "IQ2_XS"},
    {21, "Q2_K_S"}, {22, "IQ3_XS"}, {23, "IQ3_XXS"}, {24, "IQ1_S"},  {25, "IQ4_NL"},  {26, "IQ3_S"},
    {27, "IQ3_M"},  {28, "IQ2_S"},  {29, "IQ2_M"},  {30, "IQ4_XS"},  {31, "IQ1_M"},   {32, "BF16"},
    {36, "TQ1_0"},  {37, "TQ2_0"},  {38, "MXFP4_MOE"}, {39, "NVFP4"}, {40, "Q1_0"},
};

const char* gguf_type_name(GgufType t) {
  static const char* k[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<std::uint32_t>(t);
  return i < 13 ? k[i] : "?";
}

std::int64_t file_type_of(const GgufHeader& h) {
  const GgufKv* ft = h.find("general.file_type");
  if (!ft || !ft->value.is_number_integer()) return -1;
  const std::int64_t v = ft->value.get<std::int64_t>();
  return v >= 0 && v < (1 << 20) ? (v & ~1024) : -1;   // 1024 marks a guessed file type
}

std::string str_of(const GgufHeader& h, const char* key) {
  const GgufKv* k = h.find(key);
  return k && k->value.is_string() ? k->value.get<std::string>() : std::string();
}

}  // namespace

std::string gguf_file_type_name(std::int64_t ftype) {
  for (const auto& f : kFtypeNames)
    if (f.id == ftype) return f.name;
  return "";
}

TensorPlan gguf_tensor_plan(const GgufHeader& h) {
  TensorPlan plan;
  const std::string ft = gguf_file_type_name(file_type_of(h));
  plan.quant = ft.empty() ? "GGUF" : ft;
  plan.from_file = true;
  plan.tensors.reserve(h.tensors.size());
  for (const auto& gi : h.tensors) {
    Tensor t;
    t.name = gi.name;
    t.ne = gi.ne;
    t.n_dims = std::max(1, gi.n_dims);
    t.layer = layer_of(gi.name);
    t.role = role_of(gi.name);
    t.type = gi.type;
    t.bytes = gi.bytes;
    t.quantizable = quantizable(t);
    plan.weights_bytes += t.bytes;
    plan.tensors.push_back(std::move(t));
  }
  plan.header_bytes = h.header_bytes;
  plan.file_bytes = h.file_bytes();
  return plan;
}

GgufTensorTable gguf_tensor_table(const GgufHeader& h) {
  const std::size_t n = h.tensors.size();
  std::size_t names_bytes = 0;
  for (const auto& t : h.tensors) names_bytes += t.name.size();
  const std::size_t o_bytes = 0, o_offset = 8 * n, o_ne = 16 * n, o_name_end = 48 * n, o_type = 52 * n,
                    o_dims = 53 * n, o_names = 54 * n;
  GgufTensorTable out;
  out.bytes.resize(o_names + names_bytes);
  std::uint8_t* b = out.bytes.data();
  // memcpy per value: the block is little-endian as wasm memory is (and JS typed arrays on
  // every platform the page runs on), and nothing here assumes alignment.
  auto put_f64 = [&](std::size_t at, double v) { std::memcpy(b + at, &v, 8); };
  std::vector<int> type_index;
  nlohmann::json type_names = nlohmann::json::array();
  std::size_t name_at = o_names;
  std::uint32_t units = 0;   // UTF-16 code units of the names so far
  for (std::size_t i = 0; i < n; ++i) {
    const GgufTensorInfo& t = h.tensors[i];
    put_f64(o_bytes + 8 * i, static_cast<double>(t.bytes));
    put_f64(o_offset + 8 * i, static_cast<double>(t.offset));
    for (std::size_t d = 0; d < 4; ++d) put_f64(o_ne + 8 * (4 * i + d), static_cast<double>(t.ne[d]));
    const auto ty = static_cast<std::size_t>(t.type);
    if (ty >= type_index.size()) type_index.resize(ty + 1, -1);
    if (type_index[ty] < 0) {
      type_index[ty] = static_cast<int>(type_names.size());
      type_names.push_back(ggml_type_name(t.type));
    }
    b[o_type + i] = static_cast<std::uint8_t>(type_index[ty]);   // under 256 ggml types exist
    b[o_dims + i] = static_cast<std::uint8_t>(std::max(1, t.n_dims));
    // Names are valid UTF-8 (the reader replaces bad bytes): each byte that starts a sequence
    // is one UTF-16 unit, and a 4-byte sequence (lead byte 0xF0..0xF4) is a surrogate pair.
    for (const char c : t.name) {
      const auto u = static_cast<unsigned char>(c);
      units += (u & 0xC0) != 0x80 ? (u >= 0xF0 ? 2 : 1) : 0;
    }
    std::memcpy(b + o_name_end + 4 * i, &units, 4);
    std::memcpy(b + name_at, t.name.data(), t.name.size());
    name_at += t.name.size();
  }
  out.layout = {{"count", n}, {"type_names", std::move(type_names)}, {"names_bytes", names_bytes},
                {"columns", {{"bytes", o_bytes}, {"offset", o_offset}, {"ne", o_ne}, {"name_end", o_name_end},
                             {"type", o_type}, {"n_dims", o_dims}, {"names", o_names}}}};
  return out;
}

nlohmann::json gguf_summary(const GgufHeader& h, GgufTensorList mode) {
  using nlohmann::json;
  std::int64_t params = 0;
  std::uint64_t weights_bytes = 0;
  struct Bin {
    std::int64_t tensors = 0, params = 0;
    std::uint64_t bytes = 0;
  };
  // Bins indexed by ggml type id (a small dense table, not a map keyed by name per tensor).
  std::vector<Bin> by_type;
  std::vector<std::size_t> type_index;   // type id -> position in type_names (columns)
  json type_names = json::array();
  // Built element by element into reserved arrays and moved into the result: headers with one
  // tensor per expert have tens of thousands of entries, where copies and re-lookups dominate.
  json tensors = json::array();
  auto& list = tensors.get_ref<json::array_t&>();
  json::array_t c_name, c_type, c_dims, c_ne, c_bytes, c_off;
  if (mode == GgufTensorList::List) list.reserve(h.tensors.size());
  if (mode == GgufTensorList::Columns) {
    for (auto* c : {&c_name, &c_type, &c_dims, &c_bytes, &c_off}) c->reserve(h.tensors.size());
    c_ne.reserve(4 * h.tensors.size());
  }
  for (const auto& t : h.tensors) {
    std::int64_t nel = 1;
    for (int d = 0; d < 4; ++d) nel *= t.ne[static_cast<std::size_t>(d)];
    params += nel;
    weights_bytes += t.bytes;
    const auto ty = static_cast<std::size_t>(t.type);
    if (ty >= by_type.size()) {
      by_type.resize(ty + 1);
      type_index.resize(ty + 1, SIZE_MAX);
    }
    Bin& bin = by_type[ty];
    ++bin.tensors;
    bin.bytes += t.bytes;
    bin.params += nel;
    if (mode == GgufTensorList::List) {
      const int nd = std::max(1, t.n_dims);
      json::array_t shape(t.ne.begin(), t.ne.begin() + nd);
      json::object_t e;
      e.emplace("name", t.name);
      e.emplace("type", ggml_type_name(t.type));
      e.emplace("shape", std::move(shape));
      e.emplace("bytes", t.bytes);
      e.emplace("offset", t.offset);
      list.emplace_back(std::move(e));
    } else if (mode == GgufTensorList::Columns) {
      if (type_index[ty] == SIZE_MAX) {
        type_index[ty] = type_names.size();
        type_names.push_back(ggml_type_name(t.type));
      }
      c_name.emplace_back(t.name);
      c_type.emplace_back(type_index[ty]);
      c_dims.emplace_back(std::max(1, t.n_dims));
      for (int d = 0; d < 4; ++d) c_ne.emplace_back(t.ne[static_cast<std::size_t>(d)]);
      c_bytes.emplace_back(t.bytes);
      c_off.emplace_back(t.offset);
    }
  }
  std::map<std::string, Bin> bins;
  for (std::size_t ty = 0; ty < by_type.size(); ++ty)
    if (by_type[ty].tensors) bins[ggml_type_name(static_cast<GgmlType>(ty))] = by_type[ty];
  const std::string ft_name = gguf_file_type_name(file_type_of(h));
  const std::string quant = ft_name.empty() ? "GGUF" : ft_name;
  const double bpw = params > 0 ? 8.0 * static_cast<double>(weights_bytes) / static_cast<double>(params) : 0.0;
  json types = json::array();
  for (const auto& [tn, bin] : bins)
    types.push_back({{"type", tn}, {"tensors", bin.tensors}, {"bytes", bin.bytes}, {"params", bin.params}});
  std::sort(types.begin(), types.end(), [](const json& a, const json& b) {
    return a["bytes"].get<std::uint64_t>() > b["bytes"].get<std::uint64_t>();
  });
  json meta = json::object();
  for (const auto& k : h.kv) {
    if (k.type != GgufType::Array) {
      meta[k.key] = k.value;
    } else if (!k.value.is_null()) {
      meta[k.key] = k.value;
    } else {
      meta[k.key] = {{"array", gguf_type_name(k.elem_type)}, {"count", k.count}};
    }
  }
  const std::int64_t ftype = file_type_of(h);  // -1 when absent or out of range
  json out = {
      {"name", str_of(h, "general.name")},
      {"architecture", str_of(h, "general.architecture")},
      {"file_type", {{"name", quant}}},
      {"gguf", {{"version", h.version}, {"big_endian", h.big_endian}, {"alignment", h.alignment},
                {"n_tensors", h.tensors.size()}, {"n_kv", h.kv.size()}, {"header_bytes", h.header_bytes},
                {"data_offset", h.data_offset}, {"file_bytes", h.file_bytes()}}},
      {"weights_bytes", weights_bytes},
      {"params", params},
      {"bits_per_weight", bpw},
      {"types", types},
  };
  out["metadata"] = std::move(meta);
  if (mode == GgufTensorList::List) out["tensors"] = std::move(tensors);
  if (mode == GgufTensorList::Columns)
    out["tensor_columns"] = {{"type_names", std::move(type_names)}, {"name", std::move(c_name)}, {"type", std::move(c_type)},
                             {"n_dims", std::move(c_dims)}, {"ne", std::move(c_ne)}, {"bytes", std::move(c_bytes)},
                             {"offset", std::move(c_off)}};
  try {
    const Architecture a = gguf_architecture(h);
    json layers_by_kind = json::object();
    std::int64_t n_mtp = 0;
    for (const auto& L : a.layers) {
      if (L.is_mtp) { ++n_mtp; continue; }
      const char* k = attn_kind_name(L.attn);
      layers_by_kind[k] = layers_by_kind.value(k, 0) + 1;
    }
    const LayerSpec* first = nullptr;
    for (const auto& L : a.layers)
      if (!first && L.n_head > 0) first = &L;
    std::int64_t n_ff = 0, window = 0;
    for (const auto& L : a.layers) {
      n_ff = std::max(n_ff, L.n_ff);
      window = std::max(window, L.window);
    }
    KvOptions o;
    o.n_ctx = 256;
    const KvCache kv = llamacpp_kv_cache(a, o);
    json hp = {
        {"n_layer", a.n_layer_main()}, {"n_layer_mtp", n_mtp}, {"n_embd", a.n_embd}, {"n_vocab", a.n_vocab},
        {"context_length", a.n_ctx_train}, {"n_head", first ? first->n_head : 0},
        {"n_head_kv", first ? first->n_head_kv : 0}, {"head_dim_k", first ? first->head_dim_k : 0},
        {"head_dim_v", first ? first->head_dim_v : 0}, {"n_ff", n_ff}, {"sliding_window", window},
        {"layers_by_attention", layers_by_kind}, {"tied_embeddings", a.tied_embeddings},
        {"topology", a.topology()}, {"topology_code", a.topology_code()}, {"kv_bytes_per_token_f16", kv.bytes_per_token_full},
    };
    if (a.is_moe())
      hp["moe"] = {{"n_expert", a.moe.n_expert}, {"n_expert_used", a.moe.n_expert_used},
                   {"n_ff_exp", a.moe.n_ff_exp}, {"n_shared", a.moe.n_shared}, {"n_ff_shexp", a.moe.n_ff_shexp}};
    if (a.is_mla())
      hp["mla"] = {{"kv_lora_rank", a.mla.kv_lora_rank}, {"q_lora_rank", a.mla.q_lora_rank},
                   {"qk_rope_dim", a.mla.qk_rope_dim}, {"qk_nope_dim", a.mla.qk_nope_dim},
                   {"v_head_dim", a.mla.v_head_dim}};
    if (!a.recurrent.kind.empty())
      hp["recurrent"] = {{"kind", a.recurrent.kind}, {"d_conv", a.recurrent.d_conv}, {"d_inner", a.recurrent.d_inner},
                         {"d_state", a.recurrent.d_state}, {"n_group", a.recurrent.n_group}};
    out["hyperparameters"] = hp;
  } catch (const InputError& e) {
    out["architecture_error"] = {{"code", e.error().code}, {"path", e.error().path}, {"message", e.error().message}};
  }
  if (ftype >= 0) out["file_type"]["id"] = ftype;
  return out;
}

}  // namespace wif

#include "willitfit/base/base64.hpp"

namespace wif {

namespace {

// A file with one tensor per routed expert is loaded by llama.cpp as the merged stack: the
// experts become views of one 3-D ffn_*_exps tensor (llama-model.cpp, LLM_ARCH_LLAMA, "merge
// split expert into a single tensor"). So the plan the estimator sees has the stacks, and what
// depends on tensor sizes (op offload, compute buffers) is the same as for a merged file.
// Experts of one stack with different types are left as they are.
void merge_split_experts(TensorPlan& plan) {
  std::map<std::string, std::size_t> stack_at;   // "blk.N.ffn_up_exps.weight" -> index in out
  std::map<std::string, bool> mixed;
  std::vector<Tensor> out;
  out.reserve(plan.tensors.size());
  for (const Tensor& t : plan.tensors) {
    const int il = t.layer;
    const std::string n = il >= 0 ? t.name.substr(t.name.find('.', 4) + 1) : t.name;
    const std::string base = t.is_expert() && t.n_dims == 2 ? per_expert_base(n) : "";
    if (base.empty()) {
      out.push_back(t);
      continue;
    }
    const std::string key = "blk." + std::to_string(il) + "." + base + "_exps" + n.substr(n.rfind('.'));
    const auto it = stack_at.find(key);
    if (it == stack_at.end()) {
      stack_at[key] = out.size();
      out.push_back(t);
      out.back().name = key;
      out.back().n_dims = 3;
      continue;
    }
    Tensor& s = out[it->second];
    if (s.type != t.type || s.ne[0] != t.ne[0] || s.ne[1] != t.ne[1]) mixed[key] = true;
    s.ne[2] += 1;
    s.bytes += t.bytes;
  }
  // A stack whose experts differ in type or shape cannot be one tensor: keep the file's tensors.
  if (!mixed.empty()) return;
  plan.tensors = std::move(out);
}

}  // namespace

GgufModel load_gguf_model(const std::uint8_t* data, std::size_t size, const std::string& path) {
  auto reroot = [&](const InputError& e) {
    Error err = e.error();
    if (err.path.rfind("gguf", 0) == 0) err.path = path + err.path.substr(4);
    return InputError(std::move(err));
  };
  GgufModel m;
  try {
    m.header = parse_gguf_header(data, size);
    m.arch = gguf_architecture(m.header);
  } catch (const GgufTruncated& e) {
    throw GgufTruncated(e.needed_bytes(), size, path);   // keep the type: callers read more and retry
  } catch (const InputError& e) {
    throw reroot(e);
  }
  m.plan = gguf_tensor_plan(m.header);
  merge_split_experts(m.plan);
  const GgufKv* n = m.header.find("general.name");
  m.name = n && n->value.is_string() && !n->value.get<std::string>().empty() ? n->value.get<std::string>()
                                                                             : m.arch.gguf_arch + " (GGUF)";
  return m;
}

namespace {

// A split.* key as an integer, or -1 when absent or not an integer.
std::int64_t split_key(const GgufHeader& h, const char* key) {
  const GgufKv* k = h.find(key);
  return k && k->type != GgufType::Array && k->value.is_number_integer() ? k->value.get<std::int64_t>() : -1;
}

}  // namespace

GgufModel load_gguf_split_model(const std::vector<GgufShard>& shards) {
  if (shards.empty()) throw InputError("missing_field", "gguf", "a split GGUF needs its shards");
  if (shards.size() == 1) return load_gguf_model(shards[0].data, shards[0].size, shards[0].path);
  const std::string& p0 = shards[0].path;
  GgufModel m = load_gguf_model(shards[0].data, shards[0].size, p0);
  const auto n = static_cast<std::int64_t>(shards.size());
  auto mismatch = [](const std::string& path, const std::string& msg) { throw InputError("gguf_split_mismatch", path, msg); };
  if (split_key(m.header, "split.count") != n)
    mismatch(p0, "the first shard's split.count is not " + std::to_string(n) + ", the number of shards given");
  if (split_key(m.header, "split.no") != 0) mismatch(p0, "the first shard's split.no is not 0");
  // Every shard's own tensors, in order (the first shard's again: load_gguf_model merged a
  // file with one tensor per expert, which is done here once all shards are in).
  m.plan = gguf_tensor_plan(m.header);
  std::unordered_set<std::string_view> names;
  names.reserve(m.header.tensors.size() * shards.size());
  for (const auto& t : m.header.tensors) names.insert(t.name);
  std::vector<GgufHeader> rest;   // owns the names the set points at
  rest.reserve(shards.size() - 1);
  for (std::size_t k = 1; k < shards.size(); ++k) {
    const GgufShard& sh = shards[k];
    try {
      rest.push_back(parse_gguf_header(sh.data, sh.size));
    } catch (const GgufTruncated& e) {
      throw GgufTruncated(e.needed_bytes(), sh.size, sh.path);
    } catch (const InputError& e) {
      std::string p = e.error().path;
      if (p.rfind("gguf", 0) == 0) p = sh.path + p.substr(4);
      throw InputError(e.error().code, p, e.error().message);
    }
    const GgufHeader& h = rest.back();
    if (split_key(h, "split.no") != static_cast<std::int64_t>(k) || split_key(h, "split.count") != n)
      mismatch(sh.path, "shard " + std::to_string(k + 1) + " of " + std::to_string(n) + " says split.no " +
                            std::to_string(split_key(h, "split.no")) + " of split.count " + std::to_string(split_key(h, "split.count")));
    for (const auto& t : h.tensors)
      if (!names.insert(t.name).second) throw InputError("gguf_bad_name", sh.path, "tensor '" + t.name + "' is in two shards");
    TensorPlan part = gguf_tensor_plan(h);
    m.plan.weights_bytes += part.weights_bytes;
    m.plan.header_bytes += part.header_bytes;
    m.plan.file_bytes += part.file_bytes;
    m.plan.tensors.insert(m.plan.tensors.end(), std::make_move_iterator(part.tensors.begin()),
                          std::make_move_iterator(part.tensors.end()));
  }
  const std::int64_t total = split_key(m.header, "split.tensors.count");
  if (total >= 0 && total != static_cast<std::int64_t>(m.plan.tensors.size()))
    mismatch(p0, "the shards hold " + std::to_string(m.plan.tensors.size()) + " tensors; split.tensors.count says " +
                     std::to_string(total));
  merge_split_experts(m.plan);
  return m;
}

std::vector<std::uint8_t> gguf_bytes_or_base64(const std::string& in, const std::string& path) {
  // Refused before anything is decoded or copied: a header past kGgufMaxHeaderBytes (or its
  // base64, 4/3 as long) is no real file's.
  if (in.size() > kGgufMaxHeaderBytes / 3 * 4 + 4)
    throw InputError("gguf_too_large", path, "the header is " + std::to_string(in.size()) + " bytes (or base64 characters); the limit is " +
                                              std::to_string(kGgufMaxHeaderBytes) + " bytes");
  if (in.size() >= 4 && in.compare(0, 4, "GGUF") == 0) return std::vector<std::uint8_t>(in.begin(), in.end());
  return base64_decode(in, path);
}

}  // namespace wif
