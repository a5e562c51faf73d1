#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "test_util.hpp"
#include "willitfit/api.hpp"
#include "willitfit/catalog.hpp"
#include "willitfit/commands.hpp"

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;

// Shell words of one simple command line (no quoting is ever needed in what we print: a quote
// or other shell metacharacter would itself be a failure).
std::vector<std::string> words(const std::string& cmd) {
  for (char c : cmd) REQUIRE(std::string("'\"`$;|<>\\").find(c) == std::string::npos);
  std::istringstream in(cmd);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// Parse `prog flag value ...` against the tool's flags (name -> takes a value). Fails on an
// unknown flag, a missing value or a repeated flag; returns flag -> value ("" for switches).
std::map<std::string, std::string> parse(const std::vector<std::string>& w, std::size_t from,
                                         const std::map<std::string, bool>& known) {
  std::map<std::string, std::string> out;
  for (std::size_t i = from; i < w.size(); ++i) {
    CAPTURE(w[i]);
    const auto it = known.find(w[i]);
    REQUIRE(it != known.end());
    REQUIRE(out.count(w[i]) == 0);
    if (it->second) {
      REQUIRE(i + 1 < w.size());
      out[w[i]] = w[i + 1];
      ++i;
    } else {
      out[w[i]] = "";
    }
  }
  return out;
}

const std::map<std::string, bool> kLlamaServer = {
    {"-m", true}, {"-hf", true}, {"-c", true}, {"-ngl", true}, {"-fa", true}, {"-ctk", true},
    {"-ctv", true}, {"--n-cpu-moe", true}, {"-ts", true}, {"-np", true}, {"-kvu", false},
    {"-ub", true}, {"--no-mmap", false}};
const std::map<std::string, bool> kVllm = {
    {"--tensor-parallel-size", true}, {"--max-model-len", true}, {"--gpu-memory-utilization", true},
    {"--kv-cache-dtype", true}, {"--max-num-seqs", true}, {"--max-num-batched-tokens", true},
    {"--quantization", true}};
const std::map<std::string, bool> kSglang = {
    {"--model-path", true}, {"--tp", true}, {"--context-length", true}, {"--mem-fraction-static", true},
    {"--kv-cache-dtype", true}, {"--max-running-requests", true}, {"--quantization", true}};

std::vector<double> numbers(const std::string& csv) {
  std::vector<double> v;
  std::stringstream in(csv);
  for (std::string p; std::getline(in, p, ',');) v.push_back(std::stod(p));
  return v;
}
}  // namespace

TEST_CASE("llama-server commands carry exactly the placement and settings beside them", "[commands]") {
  const json reqs[] = {
      {{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"ram_gib", 64},
       {"context", 16384}, {"kv_type", "q8_0"}},
      {{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", {"nvidia-rtx-4090", "nvidia-rtx-3090"}},
       {"ram_gib", 64}, {"context", 32768}, {"parallel", 4}},
      {{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
       {"count", 2}, {"flash_attn", false}, {"mmap", false}},
      {{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q3_K_M"}, {"hardware", "nvidia-rtx-3060-12gb"},
       {"ram_gib", 64}},
  };
  for (const auto& q : reqs) {
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    const std::string cmd = r["commands"]["llama_server"];
    CAPTURE(cmd);
    const auto w = words(cmd);
    REQUIRE(w[0] == "llama-server");
    const auto f = parse(w, 1, kLlamaServer);
    CHECK((f.count("-m") + f.count("-hf")) == 1);
    const auto& s = r["settings"];
    const auto& p = r["placement"];
    CHECK(std::stoll(f.at("-c")) == s["context"].get<long long>());
    CHECK(std::stoi(f.at("-ngl")) == p["ngl"].get<int>());
    CHECK(f.at("-fa") == (s["flash_attn"].get<bool>() ? "on" : "off"));
    std::string kt = s["kv_type_k"], vt = s["kv_type_v"];
    for (auto* t : {&kt, &vt})
      for (auto& c : *t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(f.at("-ctk") == kt);
    CHECK(f.at("-ctv") == vt);
    CHECK(std::stoi(f.at("-np")) == s["parallel"].get<int>());
    CHECK(std::stoi(f.at("-ub")) == s["ubatch"].get<int>());
    CHECK((f.count("--no-mmap") == 1) == !p["mmap"].get<bool>());
    const int ncm = p["n_cpu_moe"];
    CHECK((ncm > 0 ? std::stoi(f.at("--n-cpu-moe")) : 0) == ncm);
    const auto& devs = r["memory"]["devices"];
    if (devs.size() > 1) {
      // Re-derive llama.cpp's layer boundaries from the printed -ts: they must be the estimate's.
      const auto ts = numbers(f.at("-ts"));
      REQUIRE(ts.size() == devs.size());
      double sum = 0;
      for (double x : ts) sum += x;
      std::vector<double> cum;
      double run = 0;
      for (double x : ts) cum.push_back(run += x / sum);
      const int ngl = p["ngl"], n_layer = p["n_layer"];
      const int start = std::max(n_layer - ngl, 0), act = std::min(ngl, n_layer + 1);
      std::vector<int> count(devs.size(), 0);
      for (int il = start; il < n_layer; ++il) {
        const double x = static_cast<double>(il - start) / act;
        count[static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), x) - cum.begin())] += 1;
      }
      for (std::size_t d = 0; d < devs.size(); ++d) CHECK(count[d] == devs[d]["n_layers"].get<int>());
    } else {
      CHECK(f.count("-ts") == 0);
    }
    // Ollama cannot keep experts in system RAM: no Modelfile for such a plan (it would put
    // num_gpu layers on the GPU, experts included, and not fit).
    if (p["n_cpu_moe"].get<int>() > 0) {
      CHECK_FALSE(r["commands"].contains("ollama_modelfile"));
      CHECK_FALSE(r["commands"].contains("ollama"));
      continue;
    }
    // Ollama: the same context and layers.
    const std::string mf = r["commands"]["ollama_modelfile"];
    CHECK(mf.find("PARAMETER num_ctx " + std::to_string(s["context"].get<long long>()) + "\n") != std::string::npos);
    CHECK(mf.find("PARAMETER num_gpu " + std::to_string(p["ngl"].get<int>()) + "\n") != std::string::npos);
    const auto ow = words(r["commands"]["ollama"]);
    REQUIRE(ow.size() == 9);
    CHECK(ow[0] == "ollama");
    CHECK(ow[1] == "create");
    CHECK(ow[3] == "-f");
    CHECK(ow[5] == "&&");
    CHECK(ow[8] == ow[2]);
    CHECK(ow[7] == "run");
  }
}

TEST_CASE("vllm serve and SGLang commands carry the vLLM budget's settings", "[commands]") {
  const json reqs[] = {
      {{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"}, {"hardware", "nvidia-h200-sxm"}, {"count", 8}},
      {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"hardware", "nvidia-rtx-3090"},
       {"context", 16384}, {"gpu_memory_utilization", 0.85}, {"kv_cache_dtype", "fp8"}, {"quant", "AWQ-4bit"}},
      {{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"engine", "vllm"}, {"hardware", "nvidia-a100-80gb-sxm"},
       {"count", 4}, {"tensor_parallel", 2}, {"context", 32768}, {"max_num_seqs", 64}},
  };
  for (const auto& q : reqs) {
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    const std::string cmd = r["commands"]["vllm"];
    CAPTURE(cmd);
    const auto w = words(cmd);
    REQUIRE(w.size() > 3);
    CHECK(w[0] == "vllm");
    CHECK(w[1] == "serve");
    CHECK(w[2] == r["model"]["id"]);
    const auto f = parse(w, 3, kVllm);
    const auto& v = r["vllm"].contains("fit") && !r["vllm"]["fits"].get<bool>() ? r["vllm"]["fit"] : r["vllm"];
    const auto& s = v["settings"];
    CHECK(std::stoi(f.at("--tensor-parallel-size")) == s["tensor_parallel"].get<int>());
    CHECK(std::stoll(f.at("--max-model-len")) == s["max_model_len"].get<long long>());
    CHECK(std::stod(f.at("--gpu-memory-utilization")) == Approx(s["gpu_memory_utilization"].get<double>()));
    CHECK(f.at("--kv-cache-dtype") == s["kv_cache_dtype"]);
    CHECK(std::stoll(f.at("--max-num-seqs")) == s["max_num_seqs"].get<long long>());
    CHECK(std::stoll(f.at("--max-num-batched-tokens")) == s["max_num_batched_tokens"].get<long long>());
    if (r["quant"]["id"] == "AWQ-4bit") CHECK(f.at("--quantization") == "awq");

    const auto sw = words(r["commands"]["sglang"]);
    REQUIRE(sw.size() > 3);
    CHECK(sw[0] == "python3");
    CHECK(sw[1] == "-m");
    CHECK(sw[2] == "sglang.launch_server");
    const auto g = parse(sw, 3, kSglang);
    CHECK(std::stoi(g.at("--tp")) == s["tensor_parallel"].get<int>());
    CHECK(std::stoll(g.at("--context-length")) == s["max_model_len"].get<long long>());
    CHECK(std::stoll(g.at("--max-running-requests")) == s["max_num_seqs"].get<long long>());
    CHECK(r["commands"].count("llama_server") == 0);  // a safetensors checkpoint is not a GGUF
  }
}

TEST_CASE("Apple devices get an mlx_lm command and a GGUF on a Mac gets no vLLM command", "[commands]") {
  const json mac = {{"name", "Mac Studio"}, {"kind", "apple"}, {"memory_gib", 128}, {"bandwidth_gbs", 546}};
  const json r = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "MLX-4bit"}, {"hardware", mac}});
  REQUIRE_FALSE(r.contains("error"));
  const auto w = words(r["commands"]["mlx"]);
  REQUIRE(w.size() > 8);
  CHECK(w[0] == "mlx_lm.convert");
  const auto amp = std::find(w.begin(), w.end(), "&&");
  REQUIRE(amp != w.end());
  const auto conv = parse(std::vector<std::string>(w.begin(), amp), 1,
                          {{"--hf-path", true}, {"-q", false}, {"--q-bits", true}, {"--q-group-size", true}, {"--mlx-path", true}});
  CHECK(conv.at("--hf-path") == "Qwen/Qwen3-8B");
  CHECK(conv.at("--q-bits") == "4");
  CHECK(conv.at("--q-group-size") == "64");
  REQUIRE(amp + 1 != w.end());
  CHECK(*(amp + 1) == "mlx_lm.server");
  const auto srv = parse(std::vector<std::string>(amp + 1, w.end()), 1, {{"--model", true}, {"--port", true}});
  CHECK(srv.at("--model") == conv.at("--mlx-path"));
  const json g = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "Q4_K_M"}, {"hardware", mac}});
  CHECK(g["commands"].count("llama_server") == 1);
  CHECK(g["commands"].count("vllm") == 0);
}

TEST_CASE("a published GGUF repo for the quant becomes -hf repo:quant", "[commands]") {
  LaunchInput in;
  in.model_id = "zai-org/GLM-4.5-Air";
  in.quant = "Q4_K_M";
  in.gguf = {{"unsloth/GLM-4.5-Air-GGUF", "Q4_K_M"}, {"unsloth/GLM-4.5-Air-GGUF", "Q8_0"}};
  const json c = launch_commands(in);
  const auto f = parse(words(c["llama_server"]), 1, kLlamaServer);
  CHECK(f.at("-hf") == "unsloth/GLM-4.5-Air-GGUF:Q4_K_M");
  CHECK(f.count("-m") == 0);
  CHECK(c["ollama_modelfile"].get<std::string>().rfind("FROM hf.co/unsloth/GLM-4.5-Air-GGUF:Q4_K_M\n", 0) == 0);
  in.quant = "IQ2_XXS";  // not published there: a local file
  CHECK(parse(words(launch_commands(in)["llama_server"]), 1, kLlamaServer).count("-m") == 1);
}
