// A vision projector's own GGUF (gguf/mmproj.hpp): headers written with the converter's clip.*
// keys and the tensors projector.hpp lays out, read back; the figures equal the config's;
// hostile headers are coded errors; the estimate and a Hub repo use the file.
#include <catch2/catch.hpp>

#include <functional>

#include "test_util.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/handles.hpp"
#include "willitfit/gguf/mmproj.hpp"
#include "willitfit/hub/hub_repo.hpp"
#include "willitfit/model/projector.hpp"
#include "willitfit/model/quantize.hpp"

namespace mmproj_test_cases {

using namespace wif;
using nlohmann::json;

namespace {

const json& config_of(const std::string& id) {
  const ModelEntry* e = wif_test::catalog().find_model(id);
  REQUIRE(e != nullptr);
  return e->raw["config"];
}

std::vector<std::uint8_t> mmproj_bytes(const VisionSpec& v, GgmlType t, const std::string& name = "mmproj") {
  const ProjectorPlan p = projector_plan(v, t);
  return write_gguf_header(mmproj_metadata_for(v, name, t), mmproj_tensors_for(p));
}

std::vector<std::uint8_t> gemma_mmproj(GgmlType t = GgmlType::F16) {
  return mmproj_bytes(vision_spec_from_config(config_of("google/gemma-3-27b-it")), t);
}

// "GGUF" and then zeros: version 0.
std::vector<std::uint8_t> not_gguf() {
  std::vector<std::uint8_t> b(64, 0);
  b[0] = 'G'; b[1] = 'G'; b[2] = 'U'; b[3] = 'F';
  return b;
}

Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.error();
  }
  return {};
}

// The Gemma 3 metadata with one key replaced (or dropped when `value` is null).
std::vector<std::uint8_t> gemma_with(const std::string& key, GgufType type, const json& value) {
  const VisionSpec v = vision_spec_from_config(config_of("google/gemma-3-27b-it"));
  std::vector<GgufKv> kv = mmproj_metadata_for(v, "x", GgmlType::F16);
  std::vector<GgufKv> out;
  for (auto& k : kv)
    if (k.key != key) out.push_back(k);
  if (!value.is_null()) out.push_back(gguf_kv(key, type, value));
  return write_gguf_header(out, mmproj_tensors_for(projector_plan(v, GgmlType::F16)));
}

}  // namespace

TEST_CASE("Every modelled projector of the catalog, written as an mmproj file and read back, gives the config's figures", "[mmproj]") {
  int families = 0;
  for (const auto& m : wif_test::catalog().models()) {
    if (!m.raw.contains("config")) continue;
    const VisionSpec v = vision_spec_from_config(m.raw["config"]);
    if (v.family.empty()) continue;
    CAPTURE(m.id, v.family);
    ++families;
    for (GgmlType t : {GgmlType::F16, GgmlType::Q8_0}) {
      const ProjectorPlan want = projector_plan(v, t);
      const auto bytes = mmproj_bytes(v, t);
      const MmprojFile f = load_mmproj(bytes, "mmproj");
      CHECK(f.projector_type == mmproj_projector_type(v.family));
      CHECK(f.spec.family == v.family);
      CHECK(f.tensors == want.tensors.size());
      // The weights: the sum of every tensor as stored, which is what the config computes.
      const GgufHeader h = parse_gguf_header(bytes);
      std::uint64_t sum = 0;
      for (const auto& x : h.tensors) sum += x.bytes;
      CHECK(f.plan.bytes == sum);
      CHECK(f.plan.bytes == want.bytes);
      CHECK(f.plan.params == want.params);
      CHECK(f.plan.type == t);
      CHECK(f.file_bytes == h.file_bytes());
      // Tokens and the encoder's buffer for the same image: the same rules on the same dims.
      for (auto [w, hgt] : {std::pair<int, int>{1024, 1024}, {3000, 2000}, {300, 500}}) {
        const ImageCost a = image_cost(v, w, hgt), b = image_cost(f.spec, w, hgt);
        CHECK(a.tokens == b.tokens);
        CHECK(a.positions == b.positions);
        CHECK(a.width == b.width);
        for (bool fa : {false, true}) CHECK(projector_compute_bytes(v, a, fa) == projector_compute_bytes(f.spec, b, fa));
      }
    }
  }
  CHECK(families >= 4);  // Gemma 3, Qwen-VL, Pixtral / Mistral 3, Llama 4 at least
}

TEST_CASE("Gemma 3's mmproj: 256 tokens an image, its SigLIP weights to the byte", "[mmproj]") {
  const MmprojFile f = load_mmproj(gemma_mmproj(), "mmproj");
  CHECK(f.projector_type == "gemma3");
  CHECK(f.spec.hidden == 1152);
  CHECK(f.spec.layers == 27);
  CHECK(f.spec.text_hidden == 5376);
  CHECK(f.spec.tokens_fixed == 256);      // 64 x 64 patches pooled 4 x 4 (clip.vision.projector.scale_factor)
  CHECK(f.plan.bytes == 857714112);       // projector_test's hand derivation of the F16 file
  CHECK(f.plan.type == GgmlType::F16);
  // Without the scale factor key, llama.cpp's Gemma 3 default of 4 gives the same 256.
  const MmprojFile g = load_mmproj(gemma_with("clip.vision.projector.scale_factor", GgufType::U32, nullptr), "mmproj");
  CHECK(g.spec.tokens_fixed == 256);
}

TEST_CASE("An mmproj header that is truncated, hostile or not a projector is a coded error", "[mmproj]") {
  const auto good = gemma_mmproj();
  const std::vector<std::uint8_t> cut(good.begin(), good.begin() + 200);
  const Error t = error_of([&] { load_mmproj(cut, "model.mmproj_header_base64"); });
  CHECK(t.code == "gguf_truncated");
  CHECK(t.path == "model.mmproj_header_base64");
  try {
    load_mmproj(cut, "m");
  } catch (const GgufTruncated& e) {
    CHECK(e.needed_bytes() > cut.size());
  }
  CHECK(error_of([] { load_mmproj(not_gguf(), "m"); }).code == "gguf_bad_version");
  // A text model's header is not a projector.
  const Architecture& a = wif_test::catalog_arch("meta-llama/Llama-3.1-8B-Instruct");
  const auto llama = write_gguf_header(gguf_metadata_for(a, "Llama", "Q4_K_M"), plan_quantization(a, "Q4_K_M").tensors);
  const Error nc = error_of([&] { load_mmproj(llama, "m"); });
  CHECK(nc.code == "mmproj_not_clip");
  CHECK(nc.path == "m.general.architecture");
  // Dimensions past any projector: bad_value at the key, before any figure is multiplied out.
  const Error big = error_of([&] { load_mmproj(gemma_with("clip.vision.block_count", GgufType::U64, 1ull << 40), "m"); });
  CHECK(big.code == "bad_value");
  CHECK(big.path == "m.clip.vision.block_count");
  CHECK(error_of([&] { load_mmproj(gemma_with("clip.vision.patch_size", GgufType::U32, 1), "m"); }).path == "m.clip.vision.patch_size");
  CHECK(error_of([&] { load_mmproj(gemma_with("clip.vision.image_size", GgufType::I32, -5), "m"); }).code == "bad_value");
  CHECK(error_of([&] { load_mmproj(gemma_with("clip.vision.image_size", GgufType::String, "896"), "m"); }).code == "bad_value");
  CHECK(error_of([&] { load_mmproj(gemma_with("clip.has_vision_encoder", GgufType::Bool, false), "m"); }).code == "mmproj_no_encoder");
  // A type the core does not model, or a dimension missing: not an error, not modelled.
  const MmprojFile u = load_mmproj(gemma_with("clip.projector_type", GgufType::String, "resampler"), "m");
  CHECK(u.spec.family.empty());
  CHECK(u.spec.code == "projector_family_unknown");
  CHECK(u.spec.model_type == "resampler");
  CHECK(u.plan.bytes == 857714112);
  const MmprojFile i = load_mmproj(gemma_with("clip.vision.block_count", GgufType::U32, nullptr), "m");
  CHECK(i.spec.code == "vision_config_incomplete");
  CHECK(i.spec.missing == "m.clip.vision.block_count");
}

TEST_CASE("An estimate with the model's mmproj file counts the file's weights and the config's tokens and buffer", "[mmproj]") {
  const json cfg = config_of("google/gemma-3-27b-it");
  const auto bytes = gemma_mmproj();
  const json base = {{"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", 8192}, {"images", 2}};
  json cat = base;
  cat["model"] = "google/gemma-3-27b-it";
  json file = base;
  file["model"] = {{"config", cfg}, {"mmproj_header_base64", base64_encode(bytes)}, {"mmproj_path", "mmproj-F16.gguf"},
                   {"mmproj_revision", "abc123"}};
  file["mmproj_type"] = "q8_0";   // the file's own type wins
  const json a = wif_test::estimate(cat), b = wif_test::estimate(file);
  REQUIRE(!a.contains("error"));
  REQUIRE(!b.contains("error"));
  const json &pa = a["projector"], &pb = b["projector"];
  CHECK(pb["source"] == "mmproj_file");
  CHECK(pb["bytes_source"] == "file");
  CHECK(pb["file"]["path"] == "mmproj-F16.gguf");
  CHECK(pb["file"]["revision"] == "abc123");
  CHECK(pb["file"]["projector_type"] == "gemma3");
  CHECK(pb["type"] == "f16");
  CHECK(pb["bytes"] == pa["bytes"]);
  CHECK(pb["bytes"] == 857714112);
  CHECK(pb["compute_bytes"] == pa["compute_bytes"]);
  CHECK(pb["tokens_per_image"] == 256);
  CHECK(pb["image_tokens"] == pa["image_tokens"]);
  CHECK(b["memory"]["projector_bytes"] == a["memory"]["projector_bytes"]);
  CHECK(!pa.contains("source"));
  // The command names the real file.
  CHECK(b["commands"]["llama_server"].get<std::string>().find(" --mmproj mmproj-F16.gguf") != std::string::npos);
  // By handle, as the page does.
  const json reg = json::parse(api_mmproj_register("test:gemma-mmproj", std::string(bytes.begin(), bytes.end())));
  CHECK(reg["projector_type"] == "gemma3");
  CHECK(reg["tensor_bytes"] == 857714112);
  json byh = file;
  byh["model"].erase("mmproj_header_base64");
  byh["model"]["mmproj_handle"] = "test:gemma-mmproj";
  CHECK(wif_test::estimate(byh)["projector"]["bytes"] == 857714112);
  byh["model"]["mmproj_handle"] = "test:nothing";
  CHECK(wif_test::estimate(byh)["error"]["code"] == "unknown_mmproj_handle");
  // A hostile header in a request: a coded error at its path.
  json bad = file;
  bad["model"]["mmproj_header_base64"] = base64_encode(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 100));
  const json e = wif_test::estimate(bad);
  CHECK(e["error"]["code"] == "gguf_truncated");
  CHECK(e["error"]["path"] == "model.mmproj_header_base64");
  // An unmodelled projector type: the section says so, nothing counted.
  json unk = file;
  unk["model"]["mmproj_header_base64"] = base64_encode(gemma_with("clip.projector_type", GgufType::String, "resampler"));
  const json u = wif_test::estimate(unk);
  CHECK(u["projector"]["modelled"] == false);
  CHECK(u["projector"]["code"] == "projector_family_unknown");
  CHECK(u["projector"]["source"] == "mmproj_file");
  CHECK(u["memory"]["projector_bytes"] == 0);
}

TEST_CASE("A GGUF repo with mmproj files reads the F16 one's header with the model's, and its rows carry it", "[mmproj][hub]") {
  const Architecture& a = wif_test::catalog_arch("google/gemma-3-4b-it");
  const TensorPlan p = plan_quantization(a, "Q4_K_M");
  const auto model = write_gguf_header(gguf_metadata_for(a, "Gemma 3 4B", "Q4_K_M"), p.tensors);
  const VisionSpec v = vision_spec_from_config(config_of("google/gemma-3-4b-it"));
  const auto f16 = mmproj_bytes(v, GgmlType::F16), bf16 = mmproj_bytes(v, GgmlType::BF16);
  auto sib = [](const std::string& n, std::uint64_t s) {
    return json{{"rfilename", n}, {"size", s}, {"lfs", {{"sha256", "00"}, {"size", s}, {"pointerSize", 135}}}};
  };
  json doc = {{"repo", "o/gemma-GGUF"},
              {"info", {{"sha", "feedface"}, {"siblings", {sib("g-Q4_K_M.gguf", 3000000000), sib("mmproj-BF16.gguf", 900000000),
                                                            sib("mmproj-F16.gguf", 900000000)}}}}};
  json r = hub_repo(doc);
  REQUIRE(r["read"].size() == 2);
  CHECK(r["read"][1]["path"] == "mmproj-F16.gguf");
  CHECK(r["read"][1]["bytes"] == kHubFirstReadMmproj);
  CHECK(r["mmproj_chosen"] == 1);
  doc["gguf"] = {{"g-Q4_K_M.gguf", base64_encode(model)}, {"mmproj-F16.gguf", base64_encode(f16)}};
  r = hub_repo(doc);
  CHECK(r["read"].empty());
  REQUIRE(r.contains("projector"));
  CHECK(r["projector"]["path"] == "mmproj-F16.gguf");
  CHECK(r["projector"]["tensor_bytes"] == projector_plan(v, GgmlType::F16).bytes);
  const json& m = r["quants"][r["chosen"].get<std::size_t>()]["model"];
  CHECK(m["mmproj"] == "mmproj-F16.gguf");
  CHECK(m["mmproj_revision"] == "feedface");
  // The person's choice; a name not in the repo.
  doc["mmproj_file"] = "mmproj-BF16.gguf";
  r = hub_repo(doc);
  REQUIRE(r["read"].size() == 1);
  CHECK(r["read"][0]["path"] == "mmproj-BF16.gguf");
  doc["gguf"]["mmproj-BF16.gguf"] = base64_encode(bf16);
  CHECK(hub_repo(doc)["projector"]["tensor_bytes"] == projector_plan(v, GgmlType::BF16).bytes);
  doc["mmproj_file"] = "mmproj-Q4.gguf";
  CHECK(error_of([&] { hub_repo(doc); }).code == "hub_file_not_found");
  // A projector that is not readable leaves the model standing, with the reason.
  doc.erase("mmproj_file");
  doc["gguf"]["mmproj-F16.gguf"] = base64_encode(not_gguf());
  r = hub_repo(doc);
  CHECK(r["mmproj_error"]["code"] == "gguf_bad_version");
  CHECK(!r.contains("projector"));
  CHECK(!r["quants"][r["chosen"].get<std::size_t>()]["model"].contains("mmproj"));
  // Offline with a repo cached before its projector was read (mmproj_skip): no read asked, the
  // model answers and the projector says why it is missing.
  doc["gguf"].erase("mmproj-F16.gguf");
  doc["mmproj_skip"] = true;
  r = hub_repo(doc);
  CHECK(r["read"].empty());
  CHECK(r["mmproj_error"]["code"] == "hub_offline");
  CHECK(r["mmproj_error"]["path"] == "mmproj_file");
  CHECK(!r.contains("projector"));
}

}  // namespace mmproj_test_cases
