// willitfit: the command-line face of the core. Builds one request document from flags, calls
// the same JSON API the wasm module exposes, and prints the result. Exit 0 on success, 2 on bad
// input (the error document is printed to stdout as JSON), 1 on internal failures.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/api.hpp"
#include "willitfit/base64.hpp"
#include "willitfit/catalog.hpp"
#include "gguf_file.hpp"

namespace {

using nlohmann::json;

const char* kUsage =
    "usage:\n"
    "  willitfit estimate --model <id|config.json|model.gguf> --quant <Q4_K_M…> --hardware <id|device.json>\n"
    "                     [--context N] [--kv-type f16|q8_0|…] [--parallel N] [--flash-attn on|off]\n"
    "                     [--ubatch N] [--engine llama.cpp|vllm] [--count N] [--ram-gib N] [--json]\n"
    "  willitfit gguf <model.gguf> [--json]   (reads only the header)\n"
    "  willitfit gguf-synth --model <id|config.json> --quant <Q4_K_M…> --out <file.gguf> [--full]\n"
    "                     (writes the header such a file would have; --full pads it to full size\n"
    "                     with zero (sparse) tensor data; for tests)\n"
    "  willitfit list models|hardware|quants|clouds [--json]\n"
    "  willitfit catalog-check\n";

int fail(const std::string& code, const std::string& path, const std::string& msg) {
  std::cout << wif::error_json({code, path, msg}) << "\n";
  return 2;
}

bool read_file(const std::string& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

bool is_gguf_path(const std::string& s) {
  return s.size() > 5 && (s.compare(s.size() - 5, 5, ".gguf") == 0 || s.compare(s.size() - 5, 5, ".GGUF") == 0);
}

bool looks_like_path(const std::string& s) {
  return s.find(".json") != std::string::npos || s.rfind("./", 0) == 0 || s.rfind("/", 0) == 0;
}

// A flag value that may be a catalog id or a path to a JSON file.
bool id_or_file(const std::string& flag, const std::string& v, const char* wrap, json& out, int& rc) {
  if (!looks_like_path(v)) {
    out = v;
    return true;
  }
  std::string text;
  if (!read_file(v, text)) {
    rc = fail("file_not_found", flag, "cannot read '" + v + "'");
    return false;
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    rc = fail("bad_json", flag, "'" + v + "' is not valid JSON");
    return false;
  }
  out = wrap ? json{{wrap, j}} : j;
  return true;
}

void print(const std::string& doc, bool pretty) {
  if (!pretty) {
    std::cout << doc << "\n";
    return;
  }
  std::cout << json::parse(doc).dump(2) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
  const std::string cmd = args[0];
  bool pretty = true;
  for (const auto& a : args)
    if (a == "--json") pretty = false;

  if (cmd == "list") {
    if (args.size() < 2) return fail("missing_field", "what", "list what? models, hardware, quants or clouds");
    const std::string doc = wif::api_list(cat, args[1]);
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  if (cmd == "catalog-check") {
    const std::string doc = wif::api_catalog_errors(cat);
    print(doc, true);
    return json::parse(doc)["errors"].empty() ? 0 : 2;
  }
  if (cmd == "gguf") {
    if (args.size() < 2 || args[1] == "--json") return fail("missing_field", "file", "gguf needs a file path");
    std::vector<std::uint8_t> bytes;
    std::string err;
    if (!wif_cli::read_gguf_header(args[1], bytes, err)) {
      print(err, pretty);
      return 2;
    }
    const std::string doc = wif::api_gguf_summary(std::string(bytes.begin(), bytes.end()));
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  if (cmd == "gguf-synth") {
    json model;
    std::string quant = "Q4_K_M", out;
    bool full = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--full") full = true;
      if (args[i] == "--full" || args[i] == "--json" || i + 1 >= args.size()) continue;
      int rc = 0;
      if (args[i] == "--model" && !id_or_file("--model", args[i + 1], "config", model, rc)) return rc;
      if (args[i] == "--quant") quant = args[i + 1];
      if (args[i] == "--out") out = args[i + 1];
      ++i;
    }
    if (model.is_null() || out.empty()) return fail("missing_field", "model", "gguf-synth needs --model and --out");
    const std::string doc = wif_cli::synth_gguf(model, quant, out, full);
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  if (cmd != "estimate") {
    std::cerr << kUsage;
    return fail("unknown_command", "command", "unknown command '" + cmd + "'");
  }

  json req = json::object();
  // flag -> (request key, kind)
  const std::map<std::string, std::pair<std::string, char>> flags = {
      {"--quant", {"quant", 's'}},         {"--context", {"context", 'i'}},
      {"--kv-type", {"kv_type", 's'}},     {"--kv-type-k", {"kv_type_k", 's'}},
      {"--kv-type-v", {"kv_type_v", 's'}}, {"--parallel", {"parallel", 'i'}},
      {"--ubatch", {"ubatch", 'i'}},       {"--engine", {"engine", 's'}},
      {"--count", {"count", 'i'}},         {"--ram-gib", {"ram_gib", 'n'}},
      {"--flash-attn", {"flash_attn", 'b'}}, {"--rules", {"rules", 's'}},
      {"--wired-limit-mib", {"wired_limit_mib", 'n'}}, {"--gpu-share", {"gpu_share", 'n'}},
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") continue;
    if (i + 1 >= args.size()) return fail("missing_value", a, "flag " + a + " needs a value");
    const std::string v = args[++i];
    int rc = 0;
    if (a == "--model" && is_gguf_path(v)) {
      std::vector<std::uint8_t> bytes;
      std::string err;
      if (!wif_cli::read_gguf_header(v, bytes, err)) {
        print(err, pretty);
        return 2;
      }
      req["model"] = {{"gguf_header_base64", wif::base64_encode(bytes)}};
    } else if (a == "--model") {
      json m;
      if (!id_or_file(a, v, "config", m, rc)) return rc;
      req["model"] = m;
    } else if (a == "--hardware") {
      json h;
      if (!id_or_file(a, v, nullptr, h, rc)) return rc;
      req["hardware"] = h;
    } else if (auto it = flags.find(a); it != flags.end()) {
      const auto& [key, kind] = it->second;
      try {
        std::size_t used = 0;
        if (kind == 's') req[key] = v;
        else if (kind == 'b') {
          if (v != "on" && v != "off") return fail("bad_value", key, a + " takes on or off");
          req[key] = v == "on";
        } else if (kind == 'i') {
          const long long x = std::stoll(v, &used);
          if (used != v.size()) throw std::invalid_argument(v);
          req[key] = x;
        } else {
          const double x = std::stod(v, &used);
          if (used != v.size()) throw std::invalid_argument(v);
          req[key] = x;
        }
      } catch (const std::exception&) {
        return fail("bad_value", key, a + " takes a number, not '" + v + "'");
      }
    } else {
      return fail("unknown_flag", a, "unknown flag " + a);
    }
  }
  const std::string doc = wif::api_estimate(cat, req.dump());
  print(doc, pretty);
  return json::parse(doc).contains("error") ? 2 : 0;
}
