// willitfit: the command-line face of the core. Builds one request document from flags, calls
// the same JSON API the wasm module exposes, and prints the result. Exit 0 on success, 2 on bad
// input (the error document is printed to stdout as JSON), 1 on internal failures.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/api.hpp"
#include "willitfit/bench.hpp"
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
    "                     [--hardware <id> again, for several GPUs] [--ngl N] [--n-cpu-moe N]\n"
    "                     [--tensor-split a,b] [--no-mmap on] [--gpu-memory-utilization F]\n"
    "                     [--tensor-parallel N] [--max-num-seqs N] [--kv-cache-dtype auto|fp8]\n"
    "  willitfit plan ...   (same flags) the llama.cpp placement, per-device memory and commands\n"
    "  willitfit serve --engine vllm|sglang ... [--concurrency N] [--mem-fraction-static F]\n"
    "                       the server's per-GPU budget, KV capacity, throughput and commands\n"
    "  willitfit tiers --model <id> [--quant Q4_K_M] [--context N] [--json]\n"
    "                       every GPU alone / with 32, 64, 128 GB RAM, every Mac and unified PC\n"
    "  willitfit runs-on --hardware <id|device.json> [--count N] [--ram-gib N] [--context N] [--json]\n"
    "                       every catalog model at its best quantization on that device, best first\n"
    "  willitfit solve --kind max_context|best_quant|make_it_fit|cheapest|picks ...  (estimate flags, and\n"
    "                  [--min-context N] [--allow-offload on|off] [--min-decode-tps N] [--max-count N])\n"
    "  willitfit train --model <id|config.json> --method full|lora|qlora --hardware <id|device.json>\n"
    "                  [--optimizer adamw|adamw_8bit|paged_adamw|paged_adamw_8bit|adafactor|sgd]\n"
    "                  [--batch N] [--seq N] [--checkpointing on|off] [--gpus N --zero 0-3]\n"
    "                  [--offload none|optimizer|params] [--lora-rank N] [--lora-targets q,k,v,o,gate,up,down]\n"
    "                  [--loss standard|chunked|fused] [--precision mixed|fp32] [--json]\n"
    "  willitfit cost --hardware <id> --decode-tps N [--batched-tps N --concurrency N] [--count N]\n"
    "                 [--market US|EU|UK|CN] [--price-kwh USD] [--power-w W] [--purchase-usd USD]\n"
    "                 [--hours-per-day H] [--amortization-months M] [--months M]\n"
    "                 [--memory-gib G | --model <id> --quant Q --context N] [--offer id] [--json]\n"
    "  willitfit list models|hardware|quants|clouds|markets [--json]\n"
    "  willitfit defaults [--model <id|config.json>] [--json]   every default the core applies\n"
    "                     [--prompt N] [--gen N] [--depth N] [--backend cuda|metal|rocm|vulkan|…]\n"
    "  willitfit accuracy [--json]      speed predictions against the shipped llama-bench rows\n"
    "  willitfit fit-speed              refit data/speed.json on those rows (prints the new file)\n"
    "  willitfit gguf <model.gguf> [--json]   (reads only the header)\n"
    "  willitfit gguf-synth --model <id|config.json> --quant <Q4_K_M…> --out <file.gguf> [--full] [--split-experts]\n"
    "                     (writes the header such a file would have; --full pads it to full size\n"
    "                     with zero (sparse) tensor data; --split-experts writes one tensor per\n"
    "                     routed expert, the older llama.cpp layout; for tests)\n"
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

double gib(const json& v) { return v.get<double>() / (1024.0 * 1024.0 * 1024.0); }

// Human-readable training summary: per-GPU memory by term and the verdict.
void print_train(const json& r) {
  const auto& s = r["settings"];
  std::printf("%s, %s, %s on %d x %s (ZeRO %d)\n", r["model"]["name"].get<std::string>().c_str(),
              s["method"].get<std::string>().c_str(), s["optimizer"].get<std::string>().c_str(),
              s["gpus"].get<int>(), r["hardware"]["name"].get<std::string>().c_str(), s["zero"].get<int>());
  std::printf("trainable %.3f B of %.3f B parameters\n", r["params"]["trainable"].get<double>() / 1e9,
              r["params"]["total"].get<double>() / 1e9);
  const auto& m = r["memory"]["per_gpu"];
  for (const char* k : {"weights", "gradients", "master", "optimizer", "activations", "logits", "workspace", "runtime", "total"})
    std::printf("  %-12s %9.2f GiB\n", k, gib(m[std::string(k) + "_bytes"]));
  if (r["memory"]["cpu_bytes"].get<double>() > 0) std::printf("  %-12s %9.2f GiB\n", "cpu RAM", gib(r["memory"]["cpu_bytes"]));
  std::printf("usable %.2f GiB per GPU -> %s\n", gib(r["memory"]["usable_bytes"]), r["verdict"].get<std::string>().c_str());
  if (!r["min_count"].is_null()) std::printf("fits on %d of this device\n", r["min_count"].get<int>());
  if (!r["cheapest"].is_null())
    std::printf("cheapest that fits: %d x %s ($%.0f)\n", r["cheapest"]["count"].get<int>(),
                r["cheapest"]["name"].get<std::string>().c_str(), r["cheapest"]["total_price_usd"].get<double>());
}

// Human-readable cost summary: owned cost per million tokens, cloud offers, break-even.
void print_cost(const json& r) {
  const auto& o = r["owned"];
  std::printf("electricity %s: $%.3f/kWh; owned %.0f W, $%.0f purchase\n", r["electricity"]["market"].get<std::string>().c_str(),
              r["electricity"]["price_kwh_usd"].get<double>(), o["power_w"].get<double>(), o["purchase_usd"].get<double>());
  std::printf("owned: $%.2f per hour, $%.3f per million tokens (one stream)", o["per_hour_usd"]["total"].get<double>(),
              o["per_million_tokens_usd"]["single"].get<double>());
  if (o["per_million_tokens_usd"].contains("batched"))
    std::printf(", $%.3f batched", o["per_million_tokens_usd"]["batched"].get<double>());
  std::printf("\nelectricity per month: $%.2f\n", o["electricity_per_month_usd"].get<double>());
  std::printf("cloud offers that fit (%zu):\n", r["clouds"].size());
  int shown = 0;
  for (const auto& c : r["clouds"]) {
    if (++shown > 10) break;
    std::printf("  %-12s %-40s %6.0f GB  $%7.2f/h  $%9.2f/month  %s\n", c["provider"].get<std::string>().c_str(),
                c["instance"].get<std::string>().c_str(), c["vram_gb"].get<double>(), c["price_hour_usd"].get<double>(),
                c["monthly_usd"].get<double>(), c["billing"].get<std::string>().c_str());
  }
  const auto& b = r["rent_vs_buy"];
  if (!b.is_null()) {
    if (b["break_even_months"].is_null()) std::printf("rent vs buy (%s): buying never breaks even\n", b["offer"].get<std::string>().c_str());
    else std::printf("rent vs buy (%s): buying breaks even after %.1f months\n", b["offer"].get<std::string>().c_str(),
                     b["break_even_months"].get<double>());
  }
}

// Human-readable tier lists: one line per device, grouped by tier.
void print_tiers(const json& r) {
  std::printf("%s %s at %lld tokens of context\n", r["model"]["name"].get<std::string>().c_str(),
              r["quant"].get<std::string>().c_str(), r["context"].get<long long>());
  auto line = [](const json& e) {
    std::string what = e["tier"] == "fits" ? "runs fully on it"
                       : e["tier"] == "offload" ? "possible but slow with " + std::to_string(e["ram_gib"].get<int>()) + " GB RAM"
                                                : "does not run";
    std::printf("  %-46s %6.0f GB  %-34s", e["device"]["name"].get<std::string>().c_str(),
                e["device"]["memory_gib"].get<double>(), what.c_str());
    if (e.contains("speed"))
      std::printf(" %6.1f tok/s (%.1f-%.1f)", e["speed"]["decode_tps"].get<double>(),
                  e["speed"]["decode_tps_low"].get<double>(), e["speed"]["decode_tps_high"].get<double>());
    if (e["tier"] == "offload" && e.contains("placement"))
      std::printf("  -ngl %d --n-cpu-moe %d", e["placement"]["ngl"].get<int>(), e["placement"]["n_cpu_moe"].get<int>());
    std::printf("\n");
  };
  for (const char* group : {"gpus", "macs", "unified"}) {
    std::printf("%s:\n", group);
    for (const auto& e : r[group]) line(e);
  }
}

// Human-readable "what runs on it": one line per model, best first.
void print_runs_on(const json& r) {
  std::printf("%s x%d, %.0f GB RAM, %lld tokens of context: %.1f GiB usable\n", r["device"]["name"].get<std::string>().c_str(),
              r["count"].get<int>(), r["ram_gib"].get<double>(), r["context"].get<long long>(),
              r["usable"]["usable_bytes"].get<double>() / 1073741824.0);
  for (const auto& e : r["models"]) {
    std::printf("  %-8s %-40s %-8s %7.1f GiB", e["tier"].get<std::string>().c_str(), e["model"]["name"].get<std::string>().c_str(),
                e["quant"].get<std::string>().c_str(), e["memory"]["total_bytes"].get<double>() / 1073741824.0);
    if (e.contains("speed"))
      std::printf(" %6.1f tok/s (%.1f-%.1f)", e["speed"]["decode_tps"].get<double>(),
                  e["speed"]["decode_tps_low"].get<double>(), e["speed"]["decode_tps_high"].get<double>());
    std::printf("\n");
  }
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
  if (cmd == "defaults") {  // every default the core applies; --model <id> for its server format
    json q = json::object();
    for (std::size_t i = 1; i + 1 < args.size(); ++i)
      if (args[i] == "--model") {
        int rc = 0;
        json m;
        if (!id_or_file("--model", args[i + 1], "config", m, rc)) return rc;
        q["model"] = m;
      }
    const std::string doc = wif::api_defaults(cat, q.dump());
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
    bool full = false, split = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--full") full = true;
      if (args[i] == "--split-experts") split = true;   // one tensor per routed expert (old layout)
      if (args[i] == "--full" || args[i] == "--split-experts" || args[i] == "--json" || i + 1 >= args.size()) continue;
      int rc = 0;
      if (args[i] == "--model" && !id_or_file("--model", args[i + 1], "config", model, rc)) return rc;
      if (args[i] == "--quant") quant = args[i + 1];
      if (args[i] == "--out") out = args[i + 1];
      ++i;
    }
    if (model.is_null() || out.empty()) return fail("missing_field", "model", "gguf-synth needs --model and --out");
    const std::string doc = wif_cli::synth_gguf(model, quant, out, full, split);
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  if (cmd == "accuracy") {
    const std::string doc = wif::api_accuracy(cat);
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  if (cmd == "fit-speed") {
    const wif::SpeedCoefficients k = wif::fit_speed(wif::map_bench_rows(cat), wif::speed_coefficients(cat));
    json out = wif::speed_coefficients_to_json(k);
    const json* old = cat.document("speed.json");
    if (old && old->contains("tflops_per_core")) out["tflops_per_core"] = (*old)["tflops_per_core"];
    if (old && old->contains("fit_notes")) out["fit_notes"] = (*old)["fit_notes"];  // why the model changed
    json doc = json{{"about", "Effective-efficiency coefficients of the speed model (core/src/speed.cpp). Generated by `willitfit fit-speed > data/speed.json`: coordinate descent on the summed |log(predicted/measured)| over the llama-bench rows that map to the catalog (data/measurements/bench_mapping.json); ranges are the 10th/90th percentiles of measured/predicted."},
               {"source", "data/measurements/llamacpp_bench.jsonl (rows from the shared public calibration set, each with its own source)"},
               {"checked", "2026-12-02"}, {"fitted_on", k.fitted_on}};
    doc.update(out);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  if (cmd != "estimate" && cmd != "plan" && cmd != "serve" && cmd != "train" && cmd != "cost" &&
      cmd != "tiers" && cmd != "solve" && cmd != "runs-on") {
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
      {"--ngl", {"ngl", 'i'}},             {"--n-cpu-moe", {"n_cpu_moe", 'i'}},
      {"--tensor-parallel", {"tensor_parallel", 'i'}}, {"--max-num-seqs", {"max_num_seqs", 'i'}},
      {"--max-num-batched-tokens", {"max_num_batched_tokens", 'i'}},
      {"--gpu-memory-utilization", {"gpu_memory_utilization", 'n'}},
      {"--kv-cache-dtype", {"kv_cache_dtype", 's'}},
      {"--mem-fraction-static", {"mem_fraction_static", 'n'}},
      // train
      {"--method", {"method", 's'}},       {"--optimizer", {"optimizer", 's'}},
      {"--batch", {"batch", 'i'}},         {"--seq", {"seq", 'i'}},
      {"--checkpointing", {"checkpointing", 'b'}}, {"--gpus", {"gpus", 'i'}},
      {"--zero", {"zero", 'i'}},           {"--offload", {"offload", 's'}},
      {"--offload-activations", {"offload_activations", 'b'}}, {"--lora-rank", {"lora_rank", 'i'}},
      {"--lora-targets", {"lora_targets", 'l'}}, {"--loss", {"loss", 's'}},
      {"--precision", {"precision", 's'}}, {"--double-quant", {"double_quant", 'b'}},
      // cost
      {"--decode-tps", {"decode_tps", 'n'}}, {"--batched-tps", {"batched_tps", 'n'}},
      {"--concurrency", {"concurrency", 'i'}}, {"--market", {"market", 's'}},
      {"--price-kwh", {"price_kwh_usd", 'n'}}, {"--power-w", {"power_w", 'n'}},
      {"--purchase-usd", {"purchase_usd", 'n'}}, {"--hours-per-day", {"hours_per_day", 'n'}},
      {"--amortization-months", {"amortization_months", 'n'}}, {"--months", {"months", 'i'}},
      {"--memory-gib", {"memory_gib", 'n'}}, {"--offer", {"offer", 's'}},
      {"--prompt", {"prompt", 'i'}},       {"--gen", {"gen", 'i'}},
      {"--depth", {"depth", 'i'}},         {"--backend", {"backend", 's'}},
      // solve
      {"--kind", {"solve", 's'}},          {"--min-context", {"min_context", 'i'}},
      {"--allow-offload", {"allow_offload", 'b'}}, {"--min-decode-tps", {"min_decode_tps", 'n'}},
      {"--max-count", {"max_count", 'i'}},
  };
  if (cmd == "serve") req["engine"] = "vllm";  // --engine sglang, given later, replaces it
  json hardware = json::array();
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
      hardware.push_back(h);  // repeated --hardware: several (possibly different) GPUs
    } else if (a == "--tensor-split") {
      json ts = json::array();
      std::stringstream in(v);
      for (std::string part; std::getline(in, part, ',');) {
        try {
          std::size_t used = 0;
          ts.push_back(std::stod(part, &used));
          if (used != part.size()) throw std::invalid_argument(part);
        } catch (const std::exception&) {
          return fail("bad_value", "tensor_split", "--tensor-split takes numbers like 3,1");
        }
      }
      req["tensor_split"] = ts;
    } else if (a == "--no-mmap") {
      if (v != "on" && v != "off") return fail("bad_value", "mmap", "--no-mmap takes on or off");
      req["mmap"] = v == "off";
    } else if (auto it = flags.find(a); it != flags.end()) {
      const auto& [key, kind] = it->second;
      try {
        std::size_t used = 0;
        if (kind == 's') req[key] = v;
        else if (kind == 'l') {  // comma-separated list
          json list = json::array();
          std::stringstream ss(v);
          for (std::string item; std::getline(ss, item, ',');)
            if (!item.empty()) list.push_back(item);
          req[key] = list;
        } else if (kind == 'b') {
          if (v != "on" && v != "off") return fail("bad_value", key, a + " takes on or off");
          req[key] = v == "on";
        } else if (kind == 'i') {
          const long long x = std::stoll(v, &used);
          if (used != v.size()) throw std::invalid_argument(v);
          req[key] = x;
        } else {
          const double x = std::stod(v, &used);
          // NaN and Infinity have no JSON form (they would be written as null, i.e. "absent").
          if (used != v.size() || !std::isfinite(x)) throw std::invalid_argument(v);
          req[key] = x;
        }
      } catch (const std::exception&) {
        return fail("bad_value", key, a + " takes a number, not '" + v + "'");
      }
    } else {
      return fail("unknown_flag", a, "unknown flag " + a);
    }
  }
  if (hardware.size() == 1) req["hardware"] = hardware[0];
  else if (hardware.size() > 1) req["hardware"] = hardware;
  if (cmd == "tiers" || cmd == "runs-on") {  // lists: a table for people, the document for --json
    const bool tiers = cmd == "tiers";
    const std::string d = tiers ? wif::api_tiers(cat, req.dump()) : wif::api_runs_on(cat, req.dump());
    const json doc = json::parse(d);
    const bool err = doc.contains("error");
    if (pretty && !err) tiers ? print_tiers(doc) : print_runs_on(doc);
    else print(d, pretty);
    return err ? 2 : 0;
  }
  if (cmd == "train" || cmd == "cost") {
    const std::string d = cmd == "train" ? wif::api_train(cat, req.dump()) : wif::api_cost(cat, req.dump());
    const bool err = json::parse(d).contains("error");
    if (pretty && !err) {
      if (cmd == "train") print_train(json::parse(d));
      else print_cost(json::parse(d));
    } else {
      print(d, pretty);
    }
    return err ? 2 : 0;
  }
  if (cmd == "solve") {
    const std::string d = wif::api_solve(cat, req.dump());
    print(d, pretty);
    return json::parse(d).contains("error") ? 2 : 0;
  }
  const std::string doc = wif::api_estimate(cat, req.dump());
  if (pretty && cmd != "estimate" && !json::parse(doc).contains("error")) {
    // plan / serve: the part of the result that answers the question.
    const json d = json::parse(doc);
    json view = {{"verdict", d["verdict"]}, {"commands", d["commands"]}};
    if (cmd == "plan") {
      view["placement"] = d["placement"];
      view["devices"] = d["memory"]["devices"];
      view["host"] = d["memory"]["host"];
    } else {
      view["vllm"] = d["vllm"];
      view["devices"] = d["memory"]["devices"];
    }
    std::cout << view.dump(2) << "\n";
    return 0;
  }
  print(doc, pretty);
  return json::parse(doc).contains("error") ? 2 : 0;
}
