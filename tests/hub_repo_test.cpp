#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include "test_util.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/hub/hub_repo.hpp"
#include "willitfit/model/quantize.hpp"

namespace hub_repo_test_cases {

using nlohmann::json;
using namespace wif;

namespace {

const char* kSha = "0123456789abcdef0123456789abcdef01234567";

json sibling(const std::string& name, std::uint64_t size) {
  return {{"rfilename", name}, {"size", size}, {"lfs", {{"sha256", "00"}, {"size", size}, {"pointerSize", 135}}}};
}

json info(std::initializer_list<json> list, json gated = false) {
  json siblings = json::array();
  for (const auto& e : list) siblings.push_back(e);
  return {{"_id", "x"}, {"id", "o/r"}, {"sha", kSha}, {"gated", gated}, {"private", false}, {"siblings", siblings}};
}

std::string error_code(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.error().code;
  }
  return "";
}

std::vector<std::uint8_t> llama_header(const std::string& quant) {
  const Architecture& a = wif_test::catalog_arch("meta-llama/Llama-3.1-8B-Instruct");
  const TensorPlan p = plan_quantization(a, quant);
  return write_gguf_header(gguf_metadata_for(a, "Llama 3.1 8B", quant), p.tensors);
}

// A safetensors header for `tensors` of (name, dtype, shape), data laid out in order.
std::vector<std::uint8_t> st_header(const std::vector<std::tuple<std::string, std::string, std::vector<std::uint64_t>, int>>& tensors,
                                    std::uint64_t* data_bytes = nullptr) {
  json h = {{"__metadata__", {{"format", "pt"}}}};
  std::uint64_t off = 0;
  for (const auto& [name, dt, shape, bits] : tensors) {
    std::uint64_t n = 1;
    for (auto s : shape) n *= s;
    const std::uint64_t b = (n * static_cast<std::uint64_t>(bits) + 7) / 8;
    h[name] = {{"dtype", dt}, {"shape", shape}, {"data_offsets", {off, off + b}}};
    off += b;
  }
  const std::string text = h.dump();
  // Byte by byte: gcc 12 reads vector::insert from a string's iterators as a memcpy from an empty
  // region (a -Wstringop-overread false positive).
  std::vector<std::uint8_t> out(8 + text.size());
  std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  for (std::size_t i = 0; i < text.size(); ++i) out[8 + i] = static_cast<std::uint8_t>(text[i]);
  if (data_bytes) *data_bytes = off;
  return out;
}

}  // namespace

TEST_CASE("Hub references: repo ids, -hf tags and every kind of Hub link give the repo", "[hub]") {
  using Row = std::tuple<const char*, const char*, const char*, const char*>;   // text, repo, quant, file
  auto [text, repo, quant, file] = GENERATE(table<const char*, const char*, const char*, const char*>({
      Row{"unsloth/GLM-4.5-Air-GGUF", "unsloth/GLM-4.5-Air-GGUF", "", ""},
      Row{"  bartowski/Qwen3-8B-GGUF:Q4_K_M ", "bartowski/Qwen3-8B-GGUF", "Q4_K_M", ""},
      Row{"hf:unsloth/Qwen3-8B-GGUF:UD-Q4_K_XL", "unsloth/Qwen3-8B-GGUF", "UD-Q4_K_XL", ""},
      Row{"https://huggingface.co/meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B", "", ""},
      Row{"https://huggingface.co/o/r/blob/main/Q4_K_M/o-Q4_K_M-00001-of-00002.gguf?download=true#x", "o/r", "",
          "Q4_K_M/o-Q4_K_M-00001-of-00002.gguf"},
      Row{"huggingface.co/o/r/resolve/abc123/model%20a.gguf", "o/r", "", "model a.gguf"},
      Row{"https://hf.co/o/r/tree/main", "o/r", "", ""},
      Row{"https://www.huggingface.co/models/o/r?library=gguf", "o/r", "", ""},
  }));
  CAPTURE(text);
  const json r = hub_parse_ref(text);
  CHECK(r["repo"] == repo);
  CHECK(r.value("quant", "") == std::string(quant));
  CHECK(r.value("file", "") == std::string(file));
}

TEST_CASE("Hub references that are not a model get their own codes", "[hub]") {
  using Row = std::tuple<const char*, const char*>;
  auto [text, code] = GENERATE(table<const char*, const char*>({
      Row{"https://huggingface.co/datasets/o/d", "hub_not_model"},
      Row{"https://huggingface.co/spaces/o/s", "hub_not_model"},
      Row{"datasets/o/d", "hub_not_model"},
      Row{"https://github.com/ggml-org/llama.cpp", "hub_other_site"},
      Row{"https://huggingface.co.evil.example/o/r", "hub_other_site"},
      Row{"ftp://huggingface.co/o/r", "hub_other_site"},
      Row{"", "hub_bad_ref"},
      Row{"just-a-name", "hub_bad_ref"},
      Row{"o/r/x", "hub_bad_ref"},
      Row{"o/-r", "hub_bad_ref"},
      Row{"o/r:Q4 K", "hub_bad_ref"},
      Row{"https://huggingface.co/o", "hub_bad_ref"},
  }));
  CAPTURE(text);
  const std::string ref = text;  // a lambda may not capture a structured binding before C++20 (clang)
  CHECK(error_code([&] { hub_parse_ref(ref); }) == code);
}

TEST_CASE("A GGUF repo lists every quant with its published size, splits summed, and asks for one header", "[hub]") {
  const json doc = {{"repo", "o/r"},
                    {"info", info({sibling("README.md", 10), sibling("r-Q8_0.gguf", 8000), sibling("r-Q4_K_M.gguf", 4000),
                                   sibling("r-UD-Q4_K_XL.gguf", 4200), sibling("BF16/r-BF16-00001-of-00003.gguf", 5000),
                                   sibling("BF16/r-BF16-00002-of-00003.gguf", 5000), sibling("BF16/r-BF16-00003-of-00003.gguf", 4000),
                                   sibling("mmproj-F16.gguf", 900), sibling("imatrix_unsloth.gguf", 5)})}};
  const json r = hub_repo(doc);
  REQUIRE(r["format"] == "gguf");
  CHECK(r["revision"] == kSha);
  REQUIRE(r["quants"].size() == 4);
  CHECK(r["quants"][0]["label"] == "BF16");
  CHECK(r["quants"][0]["bytes"] == 14000);
  CHECK(r["quants"][0]["split"] == 3);
  CHECK(r["quants"][0]["complete"] == true);
  CHECK(r["quants"][0]["files"][0] == "BF16/r-BF16-00001-of-00003.gguf");
  const json& ud = r["quants"][2];
  CHECK(ud["label"] == "UD-Q4_K_XL");
  CHECK(ud["quant"] == "");   // the planner has no Q4_K_XL: only its own header can say
  CHECK(r["mmproj"].size() == 1);
  CHECK(r["mmproj"][0]["bytes"] == 900);
  const json& chosen = r["quants"][r["chosen"].get<std::size_t>()];
  CHECK(chosen["label"] == "Q4_K_M");
  // The model's header and, in the same round, the projector's (mmproj_test.cpp).
  REQUIRE(r["read"].size() == 2);
  CHECK(r["read"][0]["kind"] == "gguf");
  CHECK(r["read"][0]["path"] == "r-Q4_K_M.gguf");
  CHECK(r["read"][0]["bytes"] == 4000);   // never past the file
  CHECK(r["read"][1]["path"] == "mmproj-F16.gguf");
  CHECK(r["read"][1]["bytes"] == 900);
  CHECK(r["commands"]["llama_server"] == "llama-server -hf o/r:Q4_K_M");
  CHECK(!chosen.contains("model"));

  json q = doc;
  q["quant"] = "q8_0";
  CHECK(hub_repo(q)["read"][0]["path"] == "r-Q8_0.gguf");
  q["quant"] = "Q2_K";
  CHECK(error_code([&] { hub_repo(q); }) == "hub_quant_not_found");
  json f = doc;
  f["file"] = "BF16/r-BF16-00002-of-00003.gguf";
  CHECK(hub_repo(f)["read"][0]["path"] == "BF16/r-BF16-00001-of-00003.gguf");   // the header is in shard 1
}

TEST_CASE("With the header read, the chosen quant estimates from the file and the others from its architecture", "[hub]") {
  const auto h = llama_header("Q4_K_M");
  json doc = {{"repo", "o/r"},
              {"info", info({sibling("r-Q4_K_M.gguf", h.size() + 4'000'000'000ull), sibling("r-Q8_0.gguf", 8'500'000'000ull)})}};
  // A short first read asks for more, twice as much at least.
  doc["gguf"] = {{"r-Q4_K_M.gguf", base64_encode(h.data(), 1000)}};
  json r = hub_repo(doc);
  REQUIRE(r["read"].size() == 1);
  CHECK(r["read"][0]["bytes"].get<std::uint64_t>() >= 2000);
  doc["gguf"] = {{"r-Q4_K_M.gguf", base64_encode(h)}};
  r = hub_repo(doc);
  CHECK(r["read"].empty());
  CHECK(r["architecture"] == "llama");
  const json& q4 = r["quants"][1];
  REQUIRE(q4["label"] == "Q4_K_M");
  CHECK(q4["from_header"] == true);
  CHECK(!q4["model"].contains("plan"));
  const json& q8 = r["quants"][0];
  CHECK(q8["model"]["plan"] == "computed");

  // The estimate of each: the file's own types for Q4_K_M, the planner's for Q8_0.
  auto est = [&](const json& row) {
    json m = row["model"];
    m["gguf_header_base64"] = doc["gguf"][m["header"].get<std::string>()];
    return wif_test::estimate({{"model", m}, {"quant", row["quant"]}, {"hardware", "nvidia-rtx-4090"}, {"context", 4096}});
  };
  const json e4 = est(q4), e8 = est(q8);
  REQUIRE(!e4.contains("error"));
  REQUIRE(!e8.contains("error"));
  const json c8 = wif_test::estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q8_0"},
                                      {"hardware", "nvidia-rtx-4090"}, {"context", 4096}});
  CHECK(e8["memory"]["weights_bytes"] == c8["memory"]["weights_bytes"]);
  CHECK(e4["memory"]["weights_bytes"].get<std::uint64_t>() < e8["memory"]["weights_bytes"].get<std::uint64_t>());
}

TEST_CASE("Headers past the read limit, files cut inside their header and damaged headers are coded errors", "[hub]") {
  const auto h = llama_header("Q4_K_M");
  json doc = {{"repo", "o/r"}, {"info", info({sibling("r-Q4_K_M.gguf", 1500)})}};
  doc["gguf"] = {{"r-Q4_K_M.gguf", base64_encode(h.data(), 1500)}};
  CHECK(error_code([&] { hub_repo(doc); }) == "gguf_truncated");
  auto bad = h;
  std::memcpy(bad.data(), "GGUX", 4);
  doc["info"] = info({sibling("r-Q4_K_M.gguf", 1u << 30)});
  doc["gguf"] = {{"r-Q4_K_M.gguf", base64_encode(bad)}};
  CHECK(error_code([&] { hub_repo(doc); }) == "gguf_bad_magic");
  // A string array whose count alone claims more bytes than the read limit: the GGUF reader's own
  // bound on array elements (gguf.hpp) refuses it before the Hub read would grow.
  std::vector<std::uint8_t> huge = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  auto put = [&](std::uint64_t v, int n) { for (int i = 0; i < n; ++i) huge.push_back(static_cast<std::uint8_t>(v >> (8 * i))); };
  put(0, 8); put(1, 8); put(1, 8); huge.push_back('a'); put(9, 4); put(8, 4); put(std::uint64_t{1} << 26, 8);
  doc["info"] = info({sibling("r-Q4_K_M.gguf", std::uint64_t{1} << 40)});
  doc["gguf"] = {{"r-Q4_K_M.gguf", base64_encode(huge)}};
  CHECK(error_code([&] { hub_repo(doc); }) == "gguf_too_large");
}

TEST_CASE("A safetensors repo is read from config.json and every shard's header, FP8 scales counted", "[hub]") {
  json cfg = wif_test::golden_config("llama-3.1-8b");
  cfg["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}};
  std::uint64_t d1 = 0, d2 = 0;
  const auto s1 = st_header({{"model.layers.0.mlp.up_proj.weight", "F8_E4M3", {256, 128}, 8},
                             {"model.layers.0.mlp.up_proj.weight_scale_inv", "F32", {2, 1}, 32}}, &d1);
  const auto s2 = st_header({{"model.embed_tokens.weight", "BF16", {64, 128}, 16}}, &d2);
  json doc = {{"repo", "o/fp8"},
              {"info", info({sibling("config.json", 700), sibling("model-00001-of-00002.safetensors", s1.size() + d1),
                             sibling("model-00002-of-00002.safetensors", s2.size() + d2),
                             sibling("consolidated.safetensors", 99)})}};
  json r = hub_repo(doc);
  REQUIRE(r["format"] == "safetensors");
  CHECK(r["read"].size() == 3);   // config + two shards (consolidated.* duplicates them)
  doc["config"] = cfg.dump();
  doc["safetensors"] = {{"model-00001-of-00002.safetensors", base64_encode(s1.data(), 100)},
                        {"model-00002-of-00002.safetensors", base64_encode(s2)}};
  r = hub_repo(doc);
  REQUIRE(r["read"].size() == 1);   // shard 1 was read short
  CHECK(r["read"][0]["bytes"].get<std::uint64_t>() == s1.size());   // exactly the header the length claims
  doc["safetensors"]["model-00001-of-00002.safetensors"] = base64_encode(s1);
  r = hub_repo(doc);
  REQUIRE(r["read"].empty());
  CHECK(r["quantization"]["format"] == "FP8");
  CHECK(r["safetensors"]["bytes"] == d1 + d2);
  json byd;
  for (const auto& d : r["safetensors"]["dtypes"]) byd[d["dtype"].get<std::string>()] = d;
  CHECK(byd["F8_E4M3"]["bytes"] == 256 * 128);
  CHECK(byd["F32"]["bytes"] == 8);
  CHECK(byd["BF16"]["params"] == 64 * 128);
  CHECK(r["quants"][0]["quant"] == "FP8");
  CHECK(r["quants"][0]["bytes"] == s1.size() + d1 + s2.size() + d2);
  CHECK(r["commands"]["vllm"] == "vllm serve o/fp8");
  const json e = wif_test::estimate({{"model", r["quants"][0]["model"]}, {"quant", "FP8"}, {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"}});
  CHECK(!e.contains("error"));
}

TEST_CASE("Quantization configs map to our formats", "[hub]") {
  json base = wif_test::golden_config("llama-3.1-8b");
  using Row = std::tuple<const char*, const char*>;
  auto [qc, fmt] = GENERATE(table<const char*, const char*>({
      Row{R"({"quantization_config": {"quant_method": "awq", "bits": 4}})", "AWQ-4bit"},
      Row{R"({"quantization_config": {"quant_method": "gptq", "bits": 8}})", "GPTQ-8bit"},
      Row{R"({"quantization_config": {"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "float"}}}}})", "NVFP4"},
      Row{R"({"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true}})", "BNB-NF4"},
      Row{R"({"quantization": {"group_size": 64, "bits": 4}})", "MLX-4bit"},
      Row{R"({"torch_dtype": "float16"})", "SAFETENSORS-FP16"},
  }));
  json cfg = base;
  cfg.update(json::parse(qc));
  const json doc = {{"repo", "o/r"}, {"info", info({sibling("config.json", 10)})}, {"config", cfg.dump()}};
  CAPTURE(qc);
  CHECK(hub_repo(doc)["quantization"]["format"] == fmt);
}

TEST_CASE("Repos without a model, unsupported architectures and hostile safetensors headers are coded", "[hub]") {
  CHECK(error_code([&] { hub_repo({{"repo", "o/r"}, {"info", info({sibling("README.md", 5), sibling("data.csv", 5)})}}); }) ==
        "hub_no_model_files");
  CHECK(error_code([&] { hub_repo({{"repo", "o/r"}, {"info", {{"siblings", json::array()}}}}); }) == "hub_bad_info");
  const json doc = {{"repo", "o/r"}, {"info", info({sibling("config.json", 10)})}, {"config", R"({"model_type": "mamba9"})"}};
  try {
    hub_repo(doc);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unsupported_model_type");
    CHECK(e.error().message.find("mamba9") != std::string::npos);
  }
  auto st = st_header({{"w", "BF16", {4, 4}, 16}});
  json d2 = {{"repo", "o/r"}, {"info", info({sibling("config.json", 10), sibling("model.safetensors", st.size() + 32)})},
             {"config", wif_test::golden_config("llama-3.1-8b").dump()}};
  auto shape_lie = st_header({{"w", "BF16", {4, 4}, 8}});   // 16 bytes for 16 BF16 values
  d2["safetensors"] = {{"model.safetensors", base64_encode(shape_lie)}};
  CHECK(error_code([&] { hub_repo(d2); }) == "safetensors_bad_header");
  std::vector<std::uint8_t> big(8, 0xff);
  d2["safetensors"] = {{"model.safetensors", base64_encode(big)}};
  CHECK(error_code([&] { hub_repo(d2); }) == "hub_header_too_large");
  std::vector<std::uint8_t> junk = st;
  junk[10] = '[';
  d2["safetensors"] = {{"model.safetensors", base64_encode(junk)}};
  CHECK(error_code([&] { hub_repo(d2); }) == "safetensors_bad_header");
}

}  // namespace hub_repo_test_cases
