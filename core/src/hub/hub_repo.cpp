// A Hub repository from what was read of it (hub_repo.hpp). File naming follows what llama.cpp's
// `-hf owner/repo:TAG` resolves (common/arg.cpp: the tag is matched against the .gguf file names
// of the repo, split files named by gguf-split as "<stem>-00001-of-0000N.gguf"); safetensors
// headers are an 8-byte little-endian length and a JSON table of {dtype, shape, data_offsets}
// (huggingface/safetensors, docs "The safetensors format").
#include "willitfit/hub/hub_repo.hpp"
#include "willitfit/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>

#include "willitfit/model/architecture.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/mmproj.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {
namespace {

using text::lower;
using text::upper;
bool ends_with_ci(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}
std::string basename(const std::string& p) {
  const auto k = p.rfind('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

// Hub names: letters, digits, '-', '_', '.', not starting or ending with '-' or '.' (the Hub's
// repo-name rule), at most 96 characters.
bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 96) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return s.front() != '-' && s.front() != '.' && s.back() != '-' && s.back() != '.' && s.find("..") == std::string::npos;
}
bool valid_tag(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::size_t a = 0;
  for (;;) {
    const auto b = s.find(sep, a);
    v.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return v;
    a = b + 1;
  }
}

[[noreturn]] void bad_ref(const std::string& msg) { throw InputError("hub_bad_ref", "ref", msg); }

// ---------------------------------------------------------------- GGUF file names

struct QuantName {
  std::string label;   // as llama-server -hf takes it: "Q4_K_M", "UD-Q4_K_XL"
  std::string quant;   // our quant id when the planner knows it, else ""
};

// A token that names a GGUF type: a known file type, or one shaped like them (I?Q<digit>…,
// TQ<digit>…, F16/F32/BF16, MXFP4…) that the planner does not know (unsloth's Q4_K_XL).
bool quant_like(const std::string& u) {
  if (u.size() < 2) return false;
  if (u == "F16" || u == "F32" || u == "BF16" || u.rfind("MXFP4", 0) == 0) return true;
  std::size_t i = 0;
  if (u[0] == 'I' || u[0] == 'T') i = 1;
  return u.size() > i + 1 && u[i] == 'Q' && std::isdigit(static_cast<unsigned char>(u[i + 1]));
}

QuantName quant_name(const std::string& stem) {
  std::vector<std::string> tok;
  for (const auto& a : split(stem, '-'))
    for (const auto& b : split(a, '.')) tok.push_back(b);
  for (std::size_t k = tok.size(); k-- > 0;) {
    const std::string u = upper(tok[k]);
    if (!quant_like(u)) continue;
    QuantName q;
    q.label = (k > 0 && upper(tok[k - 1]) == "UD" ? "UD-" : "") + u;
    const auto f = find_quant(u);
    if (f && f->gguf) q.quant = f->id;
    return q;
  }
  return {stem, ""};
}

// "<stem>-00001-of-00003" -> stem, 1, 3; otherwise index 0, count 1.
void split_shard(std::string& stem, int& index, int& count) {
  index = 0;
  count = 1;
  const std::size_t n = stem.size();
  if (n < 16 || stem[n - 15] != '-' || stem.compare(n - 9, 4, "-of-") != 0) return;
  const std::string a = stem.substr(n - 14, 5), b = stem.substr(n - 5);
  for (char c : a + b)
    if (!std::isdigit(static_cast<unsigned char>(c))) return;
  index = std::stoi(a);
  count = std::stoi(b);
  stem = stem.substr(0, n - 15);
}

struct RepoFile {
  std::string path;
  std::uint64_t bytes = 0;
};

struct Row {
  std::string key;
  QuantName name;
  std::vector<RepoFile> files;   // shards in order
  int split = 1;
  std::uint64_t bytes = 0;
};

std::vector<RepoFile> repo_files(const json& doc) {
  std::vector<RepoFile> out;
  auto size_of = [](const json& e) -> std::uint64_t {
    if (e.contains("lfs") && e["lfs"].is_object() && e["lfs"].contains("size") && e["lfs"]["size"].is_number_unsigned())
      return e["lfs"]["size"].get<std::uint64_t>();
    if (e.contains("size") && e["size"].is_number_unsigned()) return e["size"].get<std::uint64_t>();
    return 0;
  };
  if (doc.contains("tree") && doc["tree"].is_array()) {
    for (const auto& e : doc["tree"])
      if (e.is_object() && e.value("type", "") == "file" && e.contains("path") && e["path"].is_string())
        out.push_back({e["path"].get<std::string>(), size_of(e)});
    return out;
  }
  const json& info = doc["info"];
  if (!info.contains("siblings") || !info["siblings"].is_array())
    throw InputError("hub_bad_info", "info.siblings", "the Hub's answer has no file list (siblings)");
  for (const auto& e : info["siblings"])
    if (e.is_object() && e.contains("rfilename") && e["rfilename"].is_string())
      out.push_back({e["rfilename"].get<std::string>(), size_of(e)});
  return out;
}

// ---------------------------------------------------------------- safetensors headers

struct StDtype {
  const char* name;
  int bits;
};
constexpr StDtype kStDtypes[] = {
    {"BOOL", 8}, {"U8", 8},   {"I8", 8},   {"F8_E4M3", 8}, {"F8_E5M2", 8}, {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32},   {"U32", 32},    {"F32", 32},    {"I64", 64},
    {"U64", 64}, {"F64", 64}, {"C64", 64}, {"F4", 4},     {"F6_E2M3", 6}, {"F6_E3M2", 6},
};

struct StBin {
  std::uint64_t tensors = 0, bytes = 0, params = 0;
};

// Parses one shard's header into per-dtype bins. Throws GgufTruncated-like growth requests as
// a return value: returns the bytes needed when `have` is short, 0 when parsed.
std::uint64_t parse_safetensors(const std::vector<std::uint8_t>& b, std::uint64_t file_bytes, const std::string& path,
                                std::map<std::string, StBin>& bins) {
  auto bad = [&](const std::string& m) { throw InputError("safetensors_bad_header", path, m); };
  if (b.size() < 8) {
    if (file_bytes && b.size() >= file_bytes)
      throw InputError("safetensors_truncated", path, "the file is shorter than a safetensors header");
    return 8;
  }
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[static_cast<std::size_t>(i)];
  if (n > kHubReadLimit - 8)
    throw InputError("hub_header_too_large", path,
                     "the safetensors header claims " + std::to_string(n) + " bytes, past the read limit of " +
                         std::to_string(kHubReadLimit));
  if (file_bytes && n + 8 > file_bytes) bad("the header claims " + std::to_string(n) + " bytes, more than the file holds");
  if (b.size() < n + 8) return n + 8;
  const json h = json::parse(b.begin() + 8, b.begin() + 8 + static_cast<std::ptrdiff_t>(n), nullptr, false);
  if (h.is_discarded() || !h.is_object()) bad("the header is not a JSON object");
  const std::uint64_t data = file_bytes ? file_bytes - 8 - n : UINT64_MAX;
  for (const auto& [name, t] : h.items()) {
    if (name == "__metadata__") continue;
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
        t["data_offsets"].size() != 2 || !t["data_offsets"][0].is_number_unsigned() ||
        !t["data_offsets"][1].is_number_unsigned() || t["shape"].size() > 8)
      bad("tensor '" + name + "' lacks dtype, shape or data_offsets");
    const std::string dt = t["dtype"].get<std::string>();
    const StDtype* d = nullptr;
    for (const auto& x : kStDtypes)
      if (dt == x.name) d = &x;
    if (!d) bad("tensor '" + name + "' has dtype '" + dt + "', which safetensors does not define");
    std::uint64_t nel = 1;
    for (const auto& s : t["shape"]) {
      if (!s.is_number_unsigned()) bad("tensor '" + name + "' has a negative or non-integer dimension");
      const std::uint64_t v = s.get<std::uint64_t>();
      if (v != 0 && nel > (UINT64_MAX / 64) / v) bad("tensor '" + name + "' has too many elements");
      nel *= v;
    }
    const std::uint64_t a = t["data_offsets"][0].get<std::uint64_t>(), e = t["data_offsets"][1].get<std::uint64_t>();
    if (e < a || e > data) bad("tensor '" + name + "' has data offsets outside the file");
    if (e - a != (nel * static_cast<std::uint64_t>(d->bits) + 7) / 8)
      bad("tensor '" + name + "' spans " + std::to_string(e - a) + " bytes, not what its shape and dtype need");
    StBin& bin = bins[dt];
    bin.tensors += 1;
    bin.bytes += e - a;
    bin.params += nel;
  }
  return 0;
}

// Our safetensors/MLX format id from config.json's quantization section (transformers'
// quantization_config.quant_method; MLX writes "quantization": {group_size, bits}).
json quantization_of(const json& cfg) {
  const json* q = nullptr;
  if (cfg.contains("quantization_config") && cfg["quantization_config"].is_object()) q = &cfg["quantization_config"];
  const bool mlx = !q && cfg.contains("quantization") && cfg["quantization"].is_object();
  if (mlx) q = &cfg["quantization"];
  std::string dtype = cfg.value("torch_dtype", cfg.value("dtype", std::string("bfloat16")));
  if (!cfg.contains("torch_dtype") && !cfg.contains("dtype") && cfg.contains("text_config") && cfg["text_config"].is_object())
    dtype = cfg["text_config"].value("torch_dtype", cfg["text_config"].value("dtype", std::string("bfloat16")));
  if (!q) return {{"method", "none"}, {"bits", dtype == "float32" ? 32 : 16},
                  {"format", dtype == "float16" ? "SAFETENSORS-FP16" : "SAFETENSORS-BF16"}};
  const int bits = (*q).contains("bits") && (*q)["bits"].is_number_integer() ? (*q)["bits"].get<int>() : 0;
  if (mlx) {
    const std::string f = "MLX-" + std::to_string(bits) + "bit";
    return {{"method", "mlx"}, {"bits", bits}, {"format", find_quant(f) ? f : ""}};
  }
  const std::string m = lower((*q).value("quant_method", std::string("")));
  std::string f;
  int b = bits;
  if (m == "fp8" || m == "fbgemm_fp8") { f = "FP8"; b = 8; }
  else if (m == "awq") { f = "AWQ-4bit"; b = bits ? bits : 4; if (b != 4) f = ""; }
  else if (m == "gptq") { b = bits ? bits : 4; f = b == 8 ? "GPTQ-8bit" : b == 4 ? "GPTQ-4bit" : ""; }
  else if (m == "bitsandbytes") {
    const bool four = (*q).value("load_in_4bit", false);
    f = four ? "BNB-NF4" : "BNB-INT8";
    b = four ? 4 : 8;
  } else if (m == "compressed-tensors") {
    // config_groups.<group>.weights {num_bits, type: "float" | "int"} (neuralmagic compressed-tensors).
    if ((*q).contains("config_groups") && (*q)["config_groups"].is_object())
      for (const auto& [k, g] : (*q)["config_groups"].items()) {
        if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object()) continue;
        const json& w = g["weights"];
        b = w.contains("num_bits") && w["num_bits"].is_number_integer() ? w["num_bits"].get<int>() : 0;
        const std::string ty = w.value("type", std::string("int"));
        f = ty == "float" ? (b == 8 ? "FP8" : b == 4 ? "NVFP4" : "") : (b == 8 ? "GPTQ-8bit" : b == 4 ? "GPTQ-4bit" : "");
        break;
      }
  }
  return {{"method", m}, {"bits", b}, {"format", f}};
}

// ---------------------------------------------------------------- the document

std::string b64_field(const json& doc, const char* kind, const std::string& path) {
  if (!doc.contains(kind) || !doc[kind].is_object() || !doc[kind].contains(path)) return "";
  const json& v = doc[kind][path];
  if (!v.is_string()) throw InputError("bad_type", std::string(kind) + "." + path, "expected the base64 of the file's first bytes");
  return v.get<std::string>();
}

// How much to read next after a short read: what the parser asked for, at least twice as much
// as before, never past the file or the limit.
json grow(const std::string& kind, const RepoFile& f, std::uint64_t needed, std::uint64_t have) {
  const std::string p = kind + "." + f.path;
  if (needed > kHubReadLimit)
    throw InputError("hub_header_too_large", p,
                     "the header of '" + f.path + "' needs " + std::to_string(needed) + " bytes, past the read limit of " +
                         std::to_string(kHubReadLimit));
  if (f.bytes && have >= f.bytes)
    throw InputError(kind + "_truncated", p, "'" + f.path + "' ends at " + std::to_string(f.bytes) + " bytes, inside its header");
  std::uint64_t want = std::max(needed, 2 * have);
  want = std::min(want, kHubReadLimit);
  if (f.bytes) want = std::min(want, f.bytes);
  return {{"kind", kind}, {"path", f.path}, {"bytes", want}};
}

// Which of a GGUF repo's quants to read: the person's file or quant, else the default llama.cpp's
// -hf takes (Q4_K_M), else a 4-bit one, else the middle size.
std::size_t choose_row(const std::vector<Row>& list, const std::optional<std::string>& want_file,
                       const std::optional<std::string>& want_quant, const std::string& repo) {
  std::size_t chosen = list.size();
  if (want_file) {
    for (std::size_t i = 0; i < list.size() && chosen == list.size(); ++i)
      for (const auto& f : list[i].files)
        if (f.path == *want_file) chosen = i;
    if (chosen == list.size())
      throw InputError("hub_file_not_found", "file", "'" + *want_file + "' is not a GGUF model file of '" + repo + "'");
    return chosen;
  }
  if (want_quant) {
    const std::string u = upper(*want_quant);
    for (std::size_t i = 0; i < list.size() && chosen == list.size(); ++i)
      if (upper(list[i].name.label) == u || upper(list[i].name.quant) == u) chosen = i;
    if (chosen == list.size()) {
      std::string have;
      for (const auto& r : list) have += (have.empty() ? "" : ", ") + r.name.label;
      throw InputError("hub_quant_not_found", "quant", "'" + repo + "' has no " + *want_quant + " file; it has " + have);
    }
    return chosen;
  }
  for (const char* pref : {"Q4_K_M", "Q4_K_S", "IQ4_XS", "Q4_0"})
    for (std::size_t i = 0; i < list.size() && chosen == list.size(); ++i)
      if (list[i].name.label == pref || list[i].name.quant == pref) chosen = i;
  for (std::size_t i = 0; i < list.size() && chosen == list.size(); ++i)
    if (list[i].name.label.find("Q4") != std::string::npos) chosen = i;
  return chosen == list.size() ? list.size() / 2 : chosen;
}

// The vision projector of a GGUF repo: the person's choice, else the F16 file (the converter's
// default type; not BF16), else the first. Its header is read in the same round as the model's;
// one that cannot be read leaves the text model standing (out.mmproj_error). `path` is the file read.
std::optional<MmprojFile> read_projector(const json& doc, const std::vector<RepoFile>& mmproj_files,
                                         const std::string& repo, json& out, std::string& path) {
  std::optional<MmprojFile> proj;
  if (mmproj_files.empty()) return proj;
  const auto want_mmproj = opt_str(doc, "mmproj_file", "");
  std::size_t pick = mmproj_files.size();
  for (std::size_t i = 0; i < mmproj_files.size() && pick == mmproj_files.size(); ++i) {
    const std::string u = upper(basename(mmproj_files[i].path));
    if (want_mmproj ? mmproj_files[i].path == *want_mmproj
                    : u.find("F16") != std::string::npos && u.find("BF16") == std::string::npos)
      pick = i;
  }
  if (want_mmproj && pick == mmproj_files.size())
    throw InputError("hub_file_not_found", "mmproj_file", "'" + *want_mmproj + "' is not an mmproj file of '" + repo + "'");
  if (pick == mmproj_files.size()) pick = 0;
  const RepoFile& f = mmproj_files[pick];
  out["mmproj_chosen"] = pick;
  const std::string b64 = b64_field(doc, "gguf", f.path);
  if (b64.empty() && doc.contains("mmproj_skip") && doc["mmproj_skip"] == true) {
    // Offline with a repo read before its projector was: the text model still answers.
    out["mmproj_error"] = {{"code", "hub_offline"}, {"path", "mmproj_file"},
                           {"message", "the projector file was not read before and the Hub cannot be reached"}};
  } else if (b64.empty()) {
    out["read"].push_back({{"kind", "gguf"}, {"path", f.path},
                           {"bytes", f.bytes ? std::min(f.bytes, kHubFirstReadMmproj) : kHubFirstReadMmproj}});
  } else {
    const std::string p = "gguf." + f.path;
    const auto bytes = gguf_bytes_or_base64(b64, p);
    try {
      proj = load_mmproj(bytes, p);
      path = f.path;
    } catch (const GgufTruncated& e) {
      try {
        out["read"].push_back(grow("gguf", f, e.needed_bytes(), bytes.size()));
      } catch (const InputError& g) {
        out["mmproj_error"] = {{"code", g.error().code}, {"path", g.error().path}, {"message", g.error().message}};
      }
    } catch (const InputError& e) {
      out["mmproj_error"] = {{"code", e.error().code}, {"path", e.error().path}, {"message", e.error().message}};
    }
  }
  if (proj)
    out["projector"] = {{"path", f.path}, {"bytes", f.bytes}, {"projector_type", proj->projector_type},
                        {"family", proj->spec.family}, {"modelled", !proj->spec.family.empty()},
                        {"tensors", proj->tensors}, {"tensor_bytes", proj->plan.bytes}};
  if (proj && proj->audio.present)
    out["projector"]["audio"] = {{"projector_type", proj->audio_projector_type}, {"family", proj->audio.family},
                                 {"modelled", !proj->audio.family.empty()}, {"tensor_bytes", proj->audio_bytes}};
  return proj;
}

// A safetensors repo (or a config.json alone): the config and every shard's header, read until
// each is whole, give the bytes per dtype and the one quant row (vLLM's or MLX's command).
void safetensors_part(const json& doc, const RepoFile* config, const std::vector<RepoFile>& st,
                      const std::string& repo, json& out) {
  out["format"] = "safetensors";
  json cfg;
  if (doc.contains("config") && doc["config"].is_string()) {
    cfg = parse_json(doc["config"].get<std::string>(), "config");
    if (!cfg.is_object()) throw InputError("bad_type", "config", "config.json is not a JSON object");
    (void)architecture_from_hf_config(cfg, "config");   // unsupported_model_type names it
  } else if (doc.contains("config") && doc["config"].is_object()) {
    cfg = doc["config"];
    (void)architecture_from_hf_config(cfg, "config");
  } else {
    out["read"].push_back({{"kind", "config"}, {"path", config->path}, {"bytes", config->bytes}});
  }
  std::map<std::string, StBin> bins;
  bool all = true;
  std::uint64_t published = 0;
  json files_j = json::array();
  for (const auto& f : st) {
    published += f.bytes;
    files_j.push_back(f.path);
    const std::string b64 = b64_field(doc, "safetensors", f.path);
    if (b64.empty()) {
      out["read"].push_back({{"kind", "safetensors"}, {"path", f.path},
                             {"bytes", f.bytes ? std::min(f.bytes, kHubFirstReadSafetensors) : kHubFirstReadSafetensors}});
      all = false;
      continue;
    }
    const auto bytes = base64_decode(b64, "safetensors." + f.path);
    if (const std::uint64_t need = parse_safetensors(bytes, f.bytes, "safetensors." + f.path, bins)) {
      out["read"].push_back(grow("safetensors", f, need, bytes.size()));
      all = false;
    }
  }
  if (all && !st.empty()) {
    json dt = json::array();
    std::uint64_t total = 0, tensors = 0;
    for (const auto& [k, b] : bins) {
      dt.push_back({{"dtype", k}, {"tensors", b.tensors}, {"bytes", b.bytes}, {"params", b.params}});
      total += b.bytes;
      tensors += b.tensors;
    }
    out["safetensors"] = {{"bytes", total}, {"tensors", tensors}, {"dtypes", dt}, {"files", st.size()}};
  }
  out["chosen"] = 0;
  out["quants"] = json::array();
  if (!cfg.is_null()) {
    const json q = quantization_of(cfg);
    out["quantization"] = q;
    const std::string fmt = q["format"].get<std::string>();
    const std::string mt = cfg.value("model_type", std::string(""));
    out["model_type"] = mt;
    json row = {{"label", fmt.empty() ? q["method"].get<std::string>() : fmt}, {"quant", fmt}, {"known", !fmt.empty()},
                {"files", files_j}, {"bytes", published}, {"split", st.size()}, {"complete", true}, {"from_header", false}};
    const bool mlx = q["method"] == "mlx";
    row["command"] = mlx ? "mlx_lm.server --model " + repo : "vllm serve " + repo;
    if (!fmt.empty()) row["model"] = {{"config", cfg}, {"id", "hf:" + repo}, {"name", repo}};
    out["quants"].push_back(row);
    out["commands"] = mlx ? json{{"mlx", row["command"]}} : json{{"vllm", row["command"]}};
  }
}

}  // namespace

json hub_parse_ref(const std::string& text) {
  std::string s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.empty()) bad_ref("give a Hugging Face repo id (owner/name) or a link to a model on huggingface.co");
  if (s.size() > 2048) bad_ref("the reference is too long to be a repo id or a Hub link");
  json out;
  std::string rest;
  const bool url = s.find("://") != std::string::npos;
  const std::string ls = lower(s);
  const bool bare_host = ls.rfind("huggingface.co/", 0) == 0 || ls.rfind("hf.co/", 0) == 0 ||
                         ls.rfind("www.huggingface.co/", 0) == 0;
  if (url || bare_host) {
    std::string r = s;
    if (url) {
      const std::string scheme = lower(r.substr(0, r.find("://")));
      if (scheme != "https" && scheme != "http") throw InputError("hub_other_site", "ref", "this is not a web link to huggingface.co");
      r = r.substr(r.find("://") + 3);
    }
    const auto cut = r.find_first_of("?#");
    if (cut != std::string::npos) r = r.substr(0, cut);
    const auto slash = r.find('/');
    std::string host = lower(r.substr(0, slash));
    if (const auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (const auto colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
    if (host != "huggingface.co" && host != "www.huggingface.co" && host != "hf.co")
      throw InputError("hub_other_site", "ref", "a link to " + host + ", not to huggingface.co");
    std::vector<std::string> seg;
    for (auto& x : split(slash == std::string::npos ? "" : r.substr(slash + 1), '/'))
      if (!x.empty()) seg.push_back(x);
    if (!seg.empty() && (seg[0] == "datasets" || seg[0] == "spaces"))
      throw InputError("hub_not_model", "ref", std::string("this links to a ") + (seg[0] == "datasets" ? "dataset" : "Space") +
                                                   ", not to a model");
    if (!seg.empty() && seg[0] == "models") seg.erase(seg.begin());
    if (seg.size() < 2) bad_ref("the link does not name a model repository (owner/name)");
    rest = seg[0] + "/" + seg[1];
    if (seg.size() >= 4 && (seg[2] == "blob" || seg[2] == "resolve" || seg[2] == "tree")) {
      out["revision"] = percent_decode(seg[3]);
      std::string file;
      for (std::size_t i = 4; i < seg.size(); ++i) file += (file.empty() ? "" : "/") + percent_decode(seg[i]);
      if (!file.empty() && seg[2] != "tree") out["file"] = file;
    }
  } else {
    if (ls.rfind("hf:", 0) == 0) s = s.substr(3);
    const auto colon = s.find(':');
    rest = s.substr(0, colon);
    if (colon != std::string::npos) {
      const std::string tag = s.substr(colon + 1);
      if (!valid_tag(tag)) bad_ref("'" + tag + "' is not a quantization tag (Q4_K_M, UD-Q4_K_XL …)");
      out["quant"] = tag;
    }
    const auto parts = split(rest, '/');
    if (parts.size() == 3 && (parts[0] == "datasets" || parts[0] == "spaces"))
      throw InputError("hub_not_model", "ref", std::string("this names a ") + (parts[0] == "datasets" ? "dataset" : "Space") +
                                                   ", not a model");
  }
  const auto parts = split(rest, '/');
  if (parts.size() != 2 || !valid_name(parts[0]) || !valid_name(parts[1]))
    bad_ref("'" + rest + "' is not a repo id of the form owner/name");
  out["repo"] = rest;
  return out;
}

json hub_repo(const json& doc) {
  if (!doc.is_object()) throw InputError("bad_type", "", "the repo document must be a JSON object");
  const std::string repo = req_str(doc, "repo", "");
  {
    const auto parts = split(repo, '/');
    if (parts.size() != 2 || !valid_name(parts[0]) || !valid_name(parts[1]))
      throw InputError("hub_bad_ref", "repo", "'" + repo + "' is not a repo id of the form owner/name");
  }
  if (!doc.contains("info") || !doc["info"].is_object())
    throw InputError("hub_bad_info", "info", "the Hub's model document is missing");
  const json& info = doc["info"];
  const std::string sha = info.value("sha", std::string(""));
  if (sha.empty()) throw InputError("hub_bad_info", "info.sha", "the Hub's answer has no revision (sha)");
  const auto want_quant = opt_str(doc, "quant", "");
  const auto want_file = opt_str(doc, "file", "");

  const std::vector<RepoFile> files = repo_files(doc);
  std::map<std::string, Row> rows;
  json mmproj = json::array();
  std::vector<RepoFile> mmproj_files;
  std::vector<RepoFile> st;
  bool has_consolidated = false, has_model_st = false;
  const RepoFile* config = nullptr;
  for (const auto& f : files) {
    const std::string base = basename(f.path), lb = lower(base);
    if (f.path == "config.json") config = &f;
    if (ends_with_ci(base, ".safetensors")) {
      st.push_back(f);
      (lb.rfind("consolidated", 0) == 0 ? has_consolidated : has_model_st) = true;
    }
    if (!ends_with_ci(base, ".gguf") || lb.rfind("imatrix", 0) == 0) continue;
    if (lb.rfind("mmproj", 0) == 0) {
      mmproj.push_back({{"path", f.path}, {"bytes", f.bytes}});
      mmproj_files.push_back(f);
      continue;
    }
    std::string stem = base.substr(0, base.size() - 5);
    int index = 0, count = 1;
    split_shard(stem, index, count);
    const std::string dir = f.path.substr(0, f.path.size() - base.size());
    Row& r = rows[dir + stem];
    if (r.key.empty()) {
      r.key = dir + stem;
      r.name = quant_name(stem);
      r.split = count;
    }
    r.files.push_back(f);
    r.bytes += f.bytes;
  }
  // Mistral repos carry the same weights twice (consolidated.safetensors for mistral-inference).
  if (has_consolidated && has_model_st)
    st.erase(std::remove_if(st.begin(), st.end(), [](const RepoFile& f) { return lower(basename(f.path)).rfind("consolidated", 0) == 0; }),
             st.end());

  const bool file_is_st = want_file && (ends_with_ci(*want_file, ".safetensors") || *want_file == "config.json");
  const bool gguf = !rows.empty() && !file_is_st && doc.value("format", std::string("")) != "safetensors";
  if (!gguf && !config)
    throw InputError("hub_no_model_files", "info.siblings",
                     "'" + repo + "' has neither a config.json nor a GGUF file, so there is no model to read");

  json out = {{"repo", repo}, {"revision", sha}, {"gated", info.contains("gated") ? info["gated"] : json(false)},
              {"read", json::array()}, {"read_limit_bytes", kHubReadLimit}, {"mmproj", mmproj}};
  if (info.contains("lastModified")) out["last_modified"] = info["lastModified"];

  if (gguf) {
    std::vector<Row> list;
    for (auto& [k, r] : rows) {
      std::sort(r.files.begin(), r.files.end(), [](const RepoFile& a, const RepoFile& b) { return a.path < b.path; });
      list.push_back(r);
    }
    std::stable_sort(list.begin(), list.end(), [](const Row& a, const Row& b) { return a.bytes > b.bytes; });
    const std::size_t chosen = choose_row(list, want_file, want_quant, repo);
    const Row& c = list[chosen];
    const RepoFile& first = c.files.front();
    // Every shard of a split file is read (all in the same round): the first carries the
    // metadata, each the infos of its own tensors, so only all of them give the file's plan.
    const bool all_shards = c.split > 1 && c.split <= kHubMaxShardsRead && static_cast<int>(c.files.size()) == c.split;
    const std::size_t n_read = all_shards ? c.files.size() : 1;
    std::vector<std::vector<std::uint8_t>> shard_bytes(n_read);
    bool have_all = true;
    for (std::size_t k = 0; k < n_read; ++k) {
      const RepoFile& f = c.files[k];
      const std::string b64 = b64_field(doc, "gguf", f.path);
      const std::uint64_t first_read = k == 0 ? kHubFirstRead : kHubFirstReadShard;
      if (b64.empty()) {
        out["read"].push_back({{"kind", "gguf"}, {"path", f.path}, {"bytes", f.bytes ? std::min(f.bytes, first_read) : first_read}});
        have_all = false;
        continue;
      }
      const std::string p = "gguf." + f.path;
      shard_bytes[k] = gguf_bytes_or_base64(b64, p);
      try {
        (void)parse_gguf_header(shard_bytes[k].data(), shard_bytes[k].size());
      } catch (const GgufTruncated& e) {
        out["read"].push_back(grow("gguf", f, e.needed_bytes(), shard_bytes[k].size()));
        have_all = false;
      } catch (const InputError&) {
        // Reported with its path by the load below.
      }
    }
    std::string proj_path;
    const std::optional<MmprojFile> proj = read_projector(doc, mmproj_files, repo, out, proj_path);
    std::optional<GgufModel> model;
    if (have_all) {
      std::vector<GgufShard> shards;
      for (std::size_t k = 0; k < n_read; ++k) shards.push_back({shard_bytes[k].data(), shard_bytes[k].size(), "gguf." + c.files[k].path});
      model = load_gguf_split_model(shards);
    }
    out["format"] = "gguf";
    out["chosen"] = chosen;
    out["quants"] = json::array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Row& r = list[i];
      json files_j = json::array();
      for (const auto& f : r.files) files_j.push_back(f.path);
      // The chosen file's plan is its own tensors (every shard's, for a split file); a quant not
      // read, or a split file with shards missing from the listing, is planned from the architecture.
      const bool from_header = i == chosen && (r.split == 1 || all_shards);
      json row = {{"label", r.name.label}, {"quant", r.name.quant}, {"known", !r.name.quant.empty() || from_header},
                  {"files", files_j}, {"bytes", r.bytes}, {"split", r.split},
                  {"complete", static_cast<int>(r.files.size()) == r.split}, {"from_header", from_header},
                  {"command", "llama-server -hf " + repo + ":" + r.name.label}};
      if (model && (from_header || !r.name.quant.empty())) {
        json m = {{"header", first.path}, {"id", "hf:" + repo + ":" + r.name.label}, {"name", model->name + " " + r.name.label}};
        if (!from_header) m["plan"] = "computed";
        if (proj) {
          m["mmproj"] = proj_path;
          m["mmproj_path"] = proj_path;
          m["mmproj_revision"] = sha;
        }
        if (from_header && all_shards) {
          m["shards"] = json::array();
          for (std::size_t k = 1; k < c.files.size(); ++k) m["shards"].push_back(c.files[k].path);
        }
        row["model"] = m;
      }
      out["quants"].push_back(row);
    }
    if (model) {
      out["architecture"] = model->arch.gguf_arch;
      out["name"] = model->name;
    }
    out["commands"] = {{"llama_server", "llama-server -hf " + repo + ":" + c.name.label}};
    return out;
  }

  // safetensors (or a config.json alone): the config and every shard's header.
  safetensors_part(doc, config, st, repo, out);
  return out;
}

}  // namespace wif
