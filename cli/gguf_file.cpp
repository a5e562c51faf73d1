#include "gguf_file.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "willitfit/api/api.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/base/text.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/mmproj.hpp"

namespace wif_cli {

bool read_gguf_header(const std::string& path, std::vector<std::uint8_t>& bytes, std::string& error_json) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) {
    error_json = wif::error_json({"file_not_found", "gguf", "cannot read '" + path + "'"});
    return false;
  }
  const std::uint64_t size = static_cast<std::uint64_t>(f.tellg());
  std::uint64_t want = 1u << 16;   // most headers without a big tokenizer fit in 64 KiB
  bytes.clear();
  for (;;) {
    const std::uint64_t n = std::min(want, size);
    if (n > bytes.size()) {   // read only the part not read yet
      const std::size_t old = bytes.size();
      bytes.resize(static_cast<std::size_t>(n));
      f.seekg(static_cast<std::streamoff>(old));
      f.read(reinterpret_cast<char*>(bytes.data() + old), static_cast<std::streamsize>(n - old));
      if (!f) {
        error_json = wif::error_json({"file_not_found", "gguf", "could not read '" + path + "'"});
        return false;
      }
    }
    try {
      wif::parse_gguf_header(bytes);
      return true;
    } catch (const wif::GgufTruncated& e) {
      if (n >= size) {   // the whole file is shorter than its header claims
        error_json = wif::error_json({e.error().code, e.error().path,
                                      "'" + path + "' ends at " + std::to_string(size) + " bytes, inside its header (" +
                                          e.error().message + ")"});
        return false;
      }
      want = std::max(e.needed_bytes(), 2 * n);
      if (want > wif::kGgufMaxHeaderBytes) {   // no real header is near 64 MiB; a forged count is
        error_json = wif::error_json({"gguf_too_large", "gguf", "'" + path + "' claims a header over " +
                                      std::to_string(wif::kGgufMaxHeaderBytes) + " bytes (the limit)"});
        return false;
      }
    } catch (const wif::InputError& e) {
      error_json = wif::error_json(e.error());
      return false;
    }
  }
}

namespace {

// gguf-split's shards (llama.cpp tools/gguf-split/gguf-split.cpp): "<prefix>-%05d-of-%05d.gguf",
// the tensors in order cut into `n` runs; the first shard carries every metadata key, the others
// only the split.* keys (split.no u16, split.count u16, split.tensors.count i32); each shard's
// offsets start again at 0 (its own data section).
nlohmann::json write_split(const std::vector<wif::GgufKv>& meta, const std::vector<wif::Tensor>& tensors, int n,
                           const std::string& out) {
  std::string prefix = out;
  if (prefix.size() > 5 && prefix.compare(prefix.size() - 5, 5, ".gguf") == 0) prefix.resize(prefix.size() - 5);
  nlohmann::json files = nlohmann::json::array();
  const std::size_t per = (tensors.size() + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
  for (int k = 0; k < n; ++k) {
    std::vector<wif::GgufKv> kv = k == 0 ? meta : std::vector<wif::GgufKv>{};
    kv.push_back(wif::gguf_kv("split.no", wif::GgufType::U16, k));
    kv.push_back(wif::gguf_kv("split.count", wif::GgufType::U16, n));
    kv.push_back(wif::gguf_kv("split.tensors.count", wif::GgufType::I32, static_cast<std::int64_t>(tensors.size())));
    const std::size_t a = std::min(tensors.size(), per * static_cast<std::size_t>(k)), b = std::min(tensors.size(), a + per);
    const std::vector<wif::Tensor> part(tensors.begin() + static_cast<std::ptrdiff_t>(a), tensors.begin() + static_cast<std::ptrdiff_t>(b));
    const auto bytes = wif::write_gguf_header(kv, part);
    char name[32];
    std::snprintf(name, sizeof name, "-%05d-of-%05d.gguf", k + 1, n);
    const std::string path = prefix + name;
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) throw wif::InputError("file_not_written", "out", "cannot write '" + path + "'");
    std::uint64_t data = 0;
    for (const auto& t : part) data += (t.bytes + 31) / 32 * 32;
    files.push_back({{"path", path}, {"header_bytes", bytes.size()}, {"tensors", part.size()}, {"file_bytes", bytes.size() + data}});
  }
  return files;
}

}  // namespace

std::string synth_gguf(const nlohmann::json& model_ref, const std::string& quant, const std::string& out, bool full,
                       bool split_experts, int split) {
  try {
    const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
    const wif::ResolvedModel m = wif::resolve_model(cat, model_ref, "model");
    wif::TensorPlan plan = wif::plan_quantization(m.arch, quant);
    if (!wif::find_quant(plan.quant)->gguf)
      throw wif::InputError("bad_value", "quant", "'" + quant + "' is not a GGUF file type");
    if (split_experts) plan.tensors = wif::gguf_split_experts(plan.tensors);
    if (split > 1) {
      if (full) throw wif::InputError("bad_value", "split", "--split writes headers only (no --full)");
      if (split > 999 || static_cast<std::size_t>(split) > plan.tensors.size())
        throw wif::InputError("bad_value", "split", "--split takes 2 up to the number of tensors (at most 999)");
      const nlohmann::json files = write_split(wif::gguf_metadata_for(m.arch, m.name, plan.quant), plan.tensors, split, out);
      return nlohmann::json{{"files", files}, {"tensors", plan.tensors.size()}, {"weights_bytes", plan.weights_bytes}}.dump();
    }
    const auto bytes = wif::write_gguf_header(wif::gguf_metadata_for(m.arch, m.name, plan.quant), plan.tensors);
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) throw wif::InputError("file_not_written", "out", "cannot write '" + out + "'");
    std::uint64_t data = 0;
    for (const auto& t : plan.tensors) data += (t.bytes + 31) / 32 * 32;
    std::error_code ec;
    if (full) std::filesystem::resize_file(out, bytes.size() + data, ec);
    if (ec) throw wif::InputError("file_not_written", "out", "cannot extend '" + out + "': " + ec.message());
    return nlohmann::json{{"path", out}, {"header_bytes", bytes.size()}, {"tensors", plan.tensors.size()},
                          {"weights_bytes", plan.weights_bytes}, {"file_bytes", bytes.size() + data}}.dump();
  } catch (const wif::InputError& e) {
    return wif::error_json(e.error());
  }
}

std::string synth_mmproj(const nlohmann::json& model_ref, const std::string& type, const std::string& out) {
  try {
    const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
    const wif::ResolvedModel m = wif::resolve_model(cat, model_ref, "model");
    // An audio-only model (Voxtral) gets its audio tower's file; a model with a vision tower its
    // vision file.
    const bool audio = m.vision.family.empty() && !m.audio.family.empty();
    if (m.vision.family.empty() && !audio)
      throw wif::InputError("no_projector", "model", m.vision.present ? "this model's vision projector is not modelled"
                                                                       : "this model has no vision tower");
    const std::string t = wif::text::lower(type);
    const wif::GgmlType wt = t == "f32" ? wif::GgmlType::F32 : t == "bf16" ? wif::GgmlType::BF16
                             : t == "q8_0" ? wif::GgmlType::Q8_0 : wif::GgmlType::F16;
    if (t != "f16" && t != "f32" && t != "bf16" && t != "q8_0")
      throw wif::InputError("bad_value", "quant", "an mmproj file is f16, bf16, f32 or q8_0");
    const wif::ProjectorPlan plan = audio ? wif::audio_projector_plan(m.audio, wt) : wif::projector_plan(m.vision, wt);
    const auto tensors = wif::mmproj_tensors_for(plan);
    const auto bytes = wif::write_gguf_header(
        audio ? wif::mmproj_audio_metadata_for(m.audio, m.name, wt) : wif::mmproj_metadata_for(m.vision, m.name, wt), tensors);
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) throw wif::InputError("file_not_written", "out", "cannot write '" + out + "'");
    std::uint64_t data = 0;
    for (const auto& x : tensors) data += (x.bytes + 31) / 32 * 32;
    return nlohmann::json{{"path", out}, {"header_bytes", bytes.size()}, {"tensors", tensors.size()},
                          {"tensor_bytes", plan.bytes}, {"file_bytes", bytes.size() + data},
                          {"projector_type", audio ? wif::mmproj_audio_projector_type(m.audio.family) : wif::mmproj_projector_type(m.vision.family)}}.dump();
  } catch (const wif::InputError& e) {
    return wif::error_json(e.error());
  }
}

}  // namespace wif_cli
