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

#include "willitfit/api/api.hpp"
#include "willitfit/api/saved.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/calibration/llama_bench.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "gguf_file.hpp"
#include "hub_client.hpp"

namespace {

using nlohmann::json;

const char* kUsage =
    "usage:\n"
    "  willitfit estimate --model <id|config.json|model.gguf|hf:owner/repo[:QUANT]> --quant <Q4_K_M…> --hardware <id|device.json>\n"
    "                     (hf:… reads the repo from the Hugging Face Hub: its file list and headers; --offline refuses;\n"
    "                      HF_TOKEN for gated repos)\n"
    "                     [--context N] [--kv-type f16|q8_0|…] [--parallel N] [--flash-attn on|off]\n"
    "                     [--ubatch N] [--engine llama.cpp|vllm|sglang|mlx]\n"
    "                     [--kv-bits N] [--kv-group-size N] (mlx) [--count N] [--ram-gib N] [--json]\n"
    "                     [--hardware <id> again, for several GPUs] [--ngl N] [--n-cpu-moe N]\n"
    "                     [--tensor-split a,b] [--no-mmap on] [--gpu-memory-utilization F]\n"
    "                     [--tensor-parallel N] [--max-num-seqs N] [--kv-cache-dtype auto|fp8]\n"
    "                     [--prompt N] [--gen N] [--depth N] [--backend cuda|metal|rocm|vulkan|…]\n"
    "                     [--mtp on|off] [--draft-max K] [--workload code|prose]  (speculative decoding\n"
    "                      on the model's own MTP layers: their memory, flags and the speedup range)\n"
    "                     [--draft-model <catalog id>] [--draft-quant Q]  (a separate draft model with the\n"
    "                      same tokenizer: its weights, cache and compute buffer, flags and speedup range)\n"
    "                     [--images N] [--image-width PX] [--image-height PX] [--mmproj-offload on|off]\n"
    "                     [--mmproj-type f16|bf16|f32|q8_0] [--mmproj-bytes B]  (images per prompt: the\n"
    "                      vision projector's memory and placement, and the tokens the images cost)\n"
    "                     [--audio-seconds S]  (audio per prompt: the audio encoder's memory and\n"
    "                      placement, its 30 s windows, the tokens and the prefill time they add)\n"
    "                     [--mmproj-file PATH]  (hf:… GGUF repos: which mmproj file's header to read;\n"
    "                      by default the F16 one, else the first)\n"
    "  willitfit <estimate|plan|serve|tiers|runs-on|solve|train|cost> --request <request.json> [--json]\n"
    "                       the request document as it is, unchanged, to the same API\n"
    "  willitfit plan ...   (same flags) the llama.cpp placement, per-device memory and commands\n"
    "  willitfit serve --engine vllm|sglang ... [--concurrency N] [--mem-fraction-static F]\n"
    "                       the server's per-GPU budget, KV capacity, throughput and commands\n"
    "  willitfit tiers --model <id> [--quant Q4_K_M] [--context N] [--json]\n"
    "                       every GPU alone / with 32, 64, 128 GB RAM, every Mac and unified PC\n"
    "  willitfit runs-on --hardware <id|device.json> [--count N] [--ram-gib N] [--context N] [--json]\n"
    "                       every catalog model at its best quantization on that device, best first\n"
    "  willitfit solve --kind max_context|best_quant|make_it_fit|cheapest|picks|smallest_device|kv_outlook ...  (estimate flags, and\n"
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
    "                 (with --model, --decode-tps defaults to the estimate's and every cloud offer\n"
    "                 is estimated on its own GPUs)\n"
    "  willitfit list models|hardware|quants|clouds|markets|engines [--json]\n"
    "  willitfit defaults [--model <id|config.json>] [--json]   every default the core applies\n"
    "  willitfit api estimate|estimate_many|solve|tiers|runs_on|train|cost|defaults|check_saved <request.json|->\n"
    "                     one request document in, the result document out (as the wasm module)\n"
    "  willitfit accuracy [--json]      speed predictions against the shipped llama-bench rows\n"
    "  willitfit bench-paste FILE --hardware <id> [--count N] [--model <id>] [--quant Q] [--json]\n"
    "                                   saved llama-bench output (table or -o json) against our predictions\n"
    "  willitfit fit-speed              refit data/speed.json on those rows (prints the new file)\n"
    "  willitfit gguf <model.gguf> [--json]   (reads only the header)\n"
    "  willitfit gguf-synth --model <id|config.json> --quant <Q4_K_M…> --out <file.gguf> [--full] [--split-experts]\n"
    "                     [--split N]\n"
    "                     (writes the header such a file would have; --full pads it to full size\n"
    "                     with zero (sparse) tensor data; --split-experts writes one tensor per\n"
    "                     routed expert, the older llama.cpp layout; --split N writes gguf-split's\n"
    "                     N shard headers <file>-0000k-of-0000N.gguf; for tests)\n"
    "  willitfit gguf-synth --mmproj --model <id|config.json> [--quant f16|bf16|f32|q8_0] --out <file.gguf>\n"
    "                     (the projector's mmproj header, clip.* keys and tensors: the vision tower, or\n"
    "                      the audio tower of an audio-only model; for tests)\n"
    "  willitfit catalog-check\n";

int fail(const std::string& code, const std::string& path, const std::string& msg) {
  std::cout << wif::error_json({code, path, msg}) << "\n";
  return 2;
}

// A device or config file is a few KB; anything past 4 MiB (a stream like /dev/zero, a wrong
// file) is refused after reading at most that much, so no input can make the CLI read forever.
constexpr std::size_t kMaxJsonFileBytes = std::size_t{4} << 20;

enum class ReadResult { ok, missing, too_large };

ReadResult read_file(const std::string& p, std::string& out, std::size_t limit = kMaxJsonFileBytes) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return ReadResult::missing;
  out.clear();
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    out.append(buf, static_cast<std::size_t>(f.gcount()));
    if (out.size() > limit) return ReadResult::too_large;
  }
  return ReadResult::ok;
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
  const ReadResult got = read_file(v, text);
  if (got == ReadResult::missing) {
    rc = fail("file_not_found", flag, "cannot read '" + v + "'");
    return false;
  }
  if (got == ReadResult::too_large) {
    rc = fail("file_too_large", flag, "'" + v + "' is larger than the limit of " + std::to_string(kMaxJsonFileBytes) + " bytes");
    return false;
  }
  json j;
  try {  // depth and size checked before parsing (json_util.hpp), so no file can crash the CLI
    j = wif::parse_json(text, flag, kMaxJsonFileBytes);
  } catch (const wif::InputError& e) {
    const bool bounds = e.error().code != "bad_json";
    rc = fail(e.error().code, flag, bounds ? e.error().message : "'" + v + "' is not valid JSON");
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
  // A figure the core could not compute (no price or power for the device) is null: say so.
  auto usd = [](const json& v, const char* fmt) {
    if (v.is_null()) return std::string("unknown");
    char b[64];
    std::snprintf(b, sizeof b, fmt, v.get<double>());
    return std::string(b);
  };
  std::printf("electricity %s: $%.3f/kWh; owned %s W, %s purchase\n", r["electricity"]["market"].get<std::string>().c_str(),
              r["electricity"]["price_kwh_usd"].get<double>(), usd(o["power_w"], "%.0f").c_str(),
              usd(o["purchase_usd"], "$%.0f").c_str());
  std::printf("owned: %s per hour, %s per million tokens (one stream)", usd(o["per_hour_usd"]["total"], "$%.2f").c_str(),
              o["per_million_tokens_usd"].is_null() ? "unknown" : usd(o["per_million_tokens_usd"]["single"], "$%.3f").c_str());
  if (o["per_million_tokens_usd"].is_object() && o["per_million_tokens_usd"].contains("batched"))
    std::printf(", $%.3f batched", o["per_million_tokens_usd"]["batched"].get<double>());
  std::printf("\nelectricity per month: %s\n", usd(o["electricity_per_month_usd"], "$%.2f").c_str());
  for (const auto& u : o["unknown"]) std::printf("unknown: %s\n", u.get<std::string>().c_str());
  std::printf("cloud offers that fit (%zu):\n", r["clouds"].size());
  int shown = 0;
  for (const auto& c : r["clouds"]) {
    if (++shown > 10) break;
    // The core's verdict on the instance where it holds the model only tight (no room to spare on
    // the low end of a vendor's memory figure).
    const bool tight = c.contains("estimate") && c["estimate"].value("verdict", "") == "tight";
    std::printf("  %-12s %-40s %6.0f GB%s  $%7.2f/h  $%9.2f/month  %-10s", c["provider"].get<std::string>().c_str(),
                c["instance"].get<std::string>().c_str(), c["vram_gb"].get<double>(), tight ? " tight" : "      ",
                c["price_hour_usd"].get<double>(), c["monthly_usd"].get<double>(), c["billing"].get<std::string>().c_str());
    if (c.contains("per_million_tokens_usd"))
      std::printf("  %6.1f tok/s  $%.3f per million tokens", c["per_million_tokens_usd"]["decode_tps"].get<double>(),
                  c["per_million_tokens_usd"]["single"].get<double>());
    else if (c.contains("estimate"))
      std::printf("  no speed: %s", c["estimate"].contains("error") ? c["estimate"]["error"].get<std::string>().c_str()
                                                                  : c["estimate"]["verdict"].get<std::string>().c_str());
    std::printf("\n");
  }
  // The core's cheapest offer per million tokens: one with room to spare where any has a figure.
  if (r.contains("cheapest_offer")) {
    const auto& co = r["cheapest_offer"];
    std::printf("cheapest per million tokens: %s ($%.3f)", co["id"].get<std::string>().c_str(), co["usd"].get<double>());
    if (co.contains("tight_cheaper"))
      std::printf("; %s costs less ($%.3f) but holds it only tight", co["tight_cheaper"]["id"].get<std::string>().c_str(),
                  co["tight_cheaper"]["usd"].get<double>());
    std::printf("\n");
  }
  const auto& b = r["rent_vs_buy"];
  if (!b.is_null()) {
    std::printf("rent vs buy (%s) on the basis %s: %.1f h a day owned, %.1f h a day rented\n", b["offer"].get<std::string>().c_str(),
                b["basis"].get<std::string>().c_str(), b["hours_per_day"].get<double>(), b["cloud_hours_per_day"].get<double>());
    if (b.contains("unknown")) std::printf("rent vs buy (%s): not costed, the purchase price or power draw is unknown\n", b["offer"].get<std::string>().c_str());
    else if (b["break_even_months"].is_null()) std::printf("rent vs buy (%s): buying never breaks even\n", b["offer"].get<std::string>().c_str());
    else std::printf("rent vs buy (%s): buying breaks even after %.1f months\n", b["offer"].get<std::string>().c_str(),
                     b["break_even_months"].get<double>());
  }
}

// Human-readable tier lists: one line per device, grouped by tier.
void print_tiers(const json& r) {
  std::printf("%s %s at %lld tokens of context\n", r["model"]["name"].get<std::string>().c_str(),
              r["quant"].get<std::string>().c_str(), r["context"].get<long long>());
  auto line = [](const json& e) {
    // "fits" with the core's verdict tight: it holds the model with no room to spare (judged on
    // the low end of a vendor's memory figure).
    std::string what = e["tier"] == "fits" ? (e["verdict"] == "tight" ? "runs fully on it, no room to spare" : "runs fully on it")
                       : e["tier"] == "offload" ? "possible but slow with " + std::to_string(e["ram_gib"].get<int>()) + " GB RAM"
                                                : "does not run";
    std::printf("  %-46s %6.0f GB  %-34s", e["device"]["name"].get<std::string>().c_str(),
                e["device"]["memory_gib"].get<double>(), what.c_str());
    if (e.contains("speed"))
      std::printf(" %6.1f tok/s (%.1f-%.1f)", e["speed"]["decode_tps"].get<double>(),
                  e["speed"]["decode_tps_low"].get<double>(), e["speed"]["decode_tps_high"].get<double>());
    if (e["tier"] == "offload" && e.contains("placement"))
      std::printf("  -ngl %d --n-cpu-moe %d", e["placement"]["ngl"].get<int>(), e["placement"]["n_cpu_moe"].get<int>());
    const json basis = e["device"].value("memory_basis", json::object());
    if (basis.value("code", "") == "vendor_figure")
      std::printf("  (the vendor's figure: the driver may report %.1f GiB)", basis["values"]["low_gib"].get<double>());
    std::printf("\n");
  };
  for (const char* group : {"gpus", "macs", "unified"}) {
    std::printf("%s:\n", group);
    for (const auto& e : r[group]) line(e);
  }
}

// Human-readable "what runs on it": one line per model, best first.
void print_runs_on(const json& r) {
  std::printf("%s x%d, %.0f GB RAM, %lld tokens of context: %.1f GiB usable", r["device"]["name"].get<std::string>().c_str(),
              r["count"].get<int>(), r["ram_gib"].get<double>(), r["context"].get<long long>(),
              r["usable"]["usable_bytes"].get<double>() / 1073741824.0);
  // A vendor's memory figure: the usable memory's low end, on which "fits" needs room to spare.
  const json basis = r["device"].value("memory_basis", json::object());
  if (basis.value("code", "") == "vendor_figure" && r["usable"].contains("usable_low_bytes"))
    std::printf(" (%.1f GiB if the driver reports the vendor's figure as decimal GB)",
                r["usable"]["usable_low_bytes"].get<double>() / 1073741824.0);
  std::printf("\n");
  // A device llama.cpp does not run on: the list is another engine's (runs_on.hpp `engine`).
  if (r.contains("engine") && r["engine"].is_string() && r["engine"] != "llama.cpp")
    std::printf("llama.cpp does not run on it; the list is for %s\n", r["engine"].get<std::string>().c_str());
  for (const auto& e : r["models"]) {
    // A model that runs on the device with no room to spare says so (the core's verdict tight).
    const std::string tier = e["tier"] == "fits" && e["verdict"] == "tight" ? "tight" : e["tier"].get<std::string>();
    std::printf("  %-8s %-40s %-8s %7.1f GiB", tier.c_str(), e["model"]["name"].get<std::string>().c_str(),
                e["quant"].get<std::string>().c_str(), e["memory"]["total_bytes"].get<double>() / 1073741824.0);
    if (e.contains("speed"))
      std::printf(" %6.1f tok/s (%.1f-%.1f)", e["speed"]["decode_tps"].get<double>(),
                  e["speed"]["decode_tps_low"].get<double>(), e["speed"]["decode_tps_high"].get<double>());
    std::printf("\n");
  }
}


// flag -> (request key, kind): s string, i integer, n number, b on|off, l comma-separated list.
const std::map<std::string, std::pair<std::string, char>>& request_flags() {
  static const std::map<std::string, std::pair<std::string, char>> flags = {
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
      {"--kv-bits", {"kv_bits", 'i'}},     {"--kv-group-size", {"kv_group_size", 'i'}},
      {"--mtp", {"mtp", 'b'}},             {"--draft-max", {"draft_max", 'i'}},
      {"--workload", {"workload", 's'}},
      {"--draft-model", {"draft_model", 's'}}, {"--draft-quant", {"draft_quant", 's'}},
      {"--images", {"images", 'i'}},       {"--audio-seconds", {"audio_seconds", 'n'}},       {"--image-width", {"image_width", 'i'}},
      {"--image-height", {"image_height", 'i'}}, {"--mmproj-offload", {"mmproj_offload", 'b'}},
      {"--mmproj-type", {"mmproj_type", 's'}}, {"--mmproj-bytes", {"mmproj_bytes", 'i'}},
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
  return flags;
}

// The first argument after the command that is not --json ("" when there is none).
std::string operand(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] != "--json") return args[i];
  return "";
}

// Commands that take no request: listings, the catalog check, the accuracy report, the refit.
// Returns -1 when `cmd` is not one of them.
int run_info_command(const wif::Catalog& cat, const std::vector<std::string>& args, bool pretty) {
  const std::string& cmd = args[0];
  if (cmd == "list") {
    const std::string what = operand(args);
    if (what.empty()) return fail("missing_field", "what", "list what? models, hardware, quants or clouds");
    const std::string doc = wif::api_list(cat, what);
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  if (cmd == "catalog-check") {
    const std::string doc = wif::api_catalog_errors(cat);
    print(doc, true);
    return json::parse(doc)["errors"].empty() ? 0 : 2;
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
    for (const char* sourced : {"tflops_per_core", "pageable_copy_share"})  // not fitted: kept with their sources
      if (old && old->contains(sourced)) out[sourced] = (*old)[sourced];
    if (old && old->contains("fit_notes")) out["fit_notes"] = (*old)["fit_notes"];  // why the model changed
    json doc = json{{"about", "Effective-efficiency coefficients of the speed model (core/src/speed/speed.cpp). Generated by `willitfit fit-speed > data/speed.json`: coordinate descent on the summed |log(predicted/measured)| over the llama-bench rows that map to the catalog (data/measurements/bench_mapping.json); ranges are the 5th/95th percentiles of measured/predicted (out-of-fold for single-device rows)."},
               {"source", "data/measurements/llamacpp_bench.jsonl (public llama-bench rows, each with its own source)"},
               {"derived", true}, {"checked", "2026-12-02"}, {"fitted_on", k.fitted_on}};
    doc.update(out);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  return -1;
}

// `gguf <file>` and `gguf-synth`: the header reader and writer. -1 when `cmd` is neither.
int run_gguf_command(const std::vector<std::string>& args, bool pretty) {
  const std::string& cmd = args[0];
  if (cmd == "gguf") {
    const std::string file = operand(args);
    if (file.empty()) return fail("missing_field", "file", "gguf needs a file path");
    std::vector<std::uint8_t> bytes;
    std::string err;
    if (!wif_cli::read_gguf_header(file, bytes, err)) {
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
    bool full = false, split = false, mmproj = false;
    int shards = 1;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--full") full = true;
      if (args[i] == "--split-experts") split = true;   // one tensor per routed expert (old layout)
      if (args[i] == "--mmproj") mmproj = true;          // the vision projector's file instead
      if (args[i] == "--full" || args[i] == "--split-experts" || args[i] == "--mmproj" || args[i] == "--json" || i + 1 >= args.size()) continue;
      int rc = 0;
      if (args[i] == "--model" && !id_or_file("--model", args[i + 1], "config", model, rc)) return rc;
      if (args[i] == "--quant") quant = args[i + 1];
      if (args[i] == "--out") out = args[i + 1];
      if (args[i] == "--split") {
        const std::string& v = args[i + 1];
        if (v.empty() || v.size() > 3 || v.find_first_not_of("0123456789") != std::string::npos)
          return fail("bad_value", "split", "--split takes a whole number of shards (2..999)");
        shards = std::stoi(v);
      }
      ++i;
    }
    if (model.is_null() || out.empty()) return fail("missing_field", "model", "gguf-synth needs --model and --out");
    if (mmproj) {
      const std::string doc = wif_cli::synth_mmproj(model, quant == "Q4_K_M" ? "f16" : quant, out);
      print(doc, pretty);
      return json::parse(doc).contains("error") ? 2 : 0;
    }
    const std::string doc = wif_cli::synth_gguf(model, quant, out, full, split, shards);
    print(doc, pretty);
    return json::parse(doc).contains("error") ? 2 : 0;
  }
  return -1;
}

// One flag's value into the request. Numbers must be finite and written in full (no "12abc");
// "-0" is refused (a sign on zero is a typo, not a value); the message never echoes the value,
// so NaN or Infinity cannot reach the output. Returns 0 or the exit code of the error printed.
int put_flag_value(json& req, const std::string& flag, const std::string& key, char kind, const std::string& v) {
  const std::string takes = kind == 'i' ? " takes a whole number" : " takes a finite number";
  try {
    std::size_t used = 0;
    if (kind == 's') {
      req[key] = v;
    } else if (kind == 'l') {  // comma-separated list
      json list = json::array();
      std::stringstream ss(v);
      for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) list.push_back(item);
      req[key] = list;
    } else if (kind == 'b') {
      if (v != "on" && v != "off") return fail("bad_value", key, flag + " takes on or off");
      req[key] = v == "on";
    } else if (kind == 'i') {
      const long long x = std::stoll(v, &used);
      if (used != v.size() || (x == 0 && v[0] == '-')) throw std::invalid_argument(v);
      req[key] = x;
    } else {
      const double x = std::stod(v, &used);
      // NaN and Infinity have no JSON form (they would be written as null, i.e. "absent").
      if (used != v.size() || !std::isfinite(x) || (x == 0 && v[0] == '-')) throw std::invalid_argument(v);
      req[key] = x;
    }
  } catch (const std::exception&) {
    return fail("bad_value", key, flag + takes);
  }
  return 0;
}

// --tensor-split a,b,…: finite numbers; the core rescales huge ones (serving.cpp).
int put_tensor_split(json& req, const std::string& v) {
  json ts = json::array();
  std::stringstream in(v);
  for (std::string part; std::getline(in, part, ',');) {
    try {
      std::size_t used = 0;
      const double x = std::stod(part, &used);
      if (used != part.size() || !std::isfinite(x)) throw std::invalid_argument(part);
      ts.push_back(x);
    } catch (const std::exception&) {
      return fail("bad_value", "tensor_split", "--tensor-split takes finite numbers like 3,1");
    }
  }
  req["tensor_split"] = ts;
  return 0;
}

// The flags after the command into one request document. Returns 0, or the exit code after
// printing the error (a GGUF read error is printed as it came).
// `hub` gets what was read of a Hub repo (--model hf:…), null otherwise.
int build_request(const std::string& cmd, const std::vector<std::string>& args, bool pretty, json& req, json& hub) {
  constexpr std::size_t kMaxDevices = 64;   // the core's bound on a device list (serving.cpp)
  const auto& flags = request_flags();
  req = json::object();
  if (cmd == "serve") req["engine"] = "vllm";  // --engine sglang, given later, replaces it
  json hardware = json::array();
  std::string hf_ref;   // --model hf:owner/repo[:QUANT], read once every flag is known
  std::string mmproj_file;   // --mmproj-file: the repo's projector file to read
  bool offline = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") continue;
    if (a == "--offline") {
      offline = true;
      continue;
    }
    if (i + 1 >= args.size()) return fail("missing_value", a, "flag " + a + " needs a value");
    const std::string v = args[++i];
    int rc = 0;
    if (a == "--model" && v.rfind("hf:", 0) == 0) {
      hf_ref = v;
    } else if (a == "--mmproj-file") {
      mmproj_file = v;
    } else if (a == "--model" && is_gguf_path(v)) {
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
      // Refused at the 65th, before reading any more files.
      if (hardware.size() >= kMaxDevices)
        return fail("bad_value", "hardware", "a list holds 1 to 64 devices; --hardware was given more often");
      json h;
      if (!id_or_file(a, v, nullptr, h, rc)) return rc;
      hardware.push_back(h);  // repeated --hardware: several (possibly different) GPUs
    } else if (a == "--tensor-split") {
      if ((rc = put_tensor_split(req, v))) return rc;
    } else if (a == "--no-mmap") {
      if (v != "on" && v != "off") return fail("bad_value", "mmap", "--no-mmap takes on or off");
      req["mmap"] = v == "off";
    } else if (auto it = flags.find(a); it != flags.end()) {
      if ((rc = put_flag_value(req, a, it->second.first, it->second.second, v))) return rc;
    } else {
      return fail("unknown_flag", a, "unknown flag " + a);
    }
  }
  hub = nullptr;
  if (!hf_ref.empty()) {
    json model;
    std::string quant, err;
    if (!wif_cli::hub_model(hf_ref, req.value("quant", ""), offline, model, quant, hub, err, mmproj_file)) {
      print(err, pretty);
      return 2;
    }
    req["model"] = model;
    if (!quant.empty()) req["quant"] = quant;
  }
  if (hardware.size() == 1) req["hardware"] = hardware[0];
  else if (hardware.size() > 1) req["hardware"] = hardware;
  return 0;
}

// The request through the command's API call; a table for people or the document for --json.
int run_request(const wif::Catalog& cat, const std::string& cmd, const json& req, const json& hub, bool pretty) {
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
    const json doc = json::parse(d);
    const bool err = doc.contains("error");
    if (pretty && !err) cmd == "train" ? print_train(doc) : print_cost(doc);
    else print(d, pretty);
    return err ? 2 : 0;
  }
  if (cmd == "solve") {
    const std::string d = wif::api_solve(cat, req.dump());
    print(d, pretty);
    return json::parse(d).contains("error") ? 2 : 0;
  }
  const std::string doc = wif::api_estimate(cat, req.dump());
  const json d = json::parse(doc);
  if (pretty && cmd != "estimate" && !d.contains("error")) {
    // plan / serve: the part of the result that answers the question.
    json view = {{"verdict", d["verdict"]}, {"commands", d["commands"]}};
    if (cmd == "plan") {
      view["placement"] = d["placement"];
      view["devices"] = d["memory"]["devices"];
      view["host"] = d["memory"]["host"];
    } else {
      const std::string key = d.contains("sglang") ? "sglang" : "vllm";  // the server's own key
      view[key] = d[key];
      view["devices"] = d["memory"]["devices"];
    }
    if (d.contains("speculative")) view["speculative"] = d["speculative"];
    if (d.contains("projector")) view["projector"] = d["projector"];
    if (d.contains("audio")) view["audio"] = d["audio"];
    // With images or audio, the first token of the whole prompt beside their sections.
    if ((d.contains("projector") || d.contains("audio")) && d.contains("speed") && d["speed"].contains("first_token"))
      view["first_token"] = d["speed"]["first_token"];
    std::cout << view.dump(2) << "\n";
    return 0;
  }
  if (!hub.is_null() && !d.contains("error")) {   // what was read, and from which revision
    json with_hub = d;
    with_hub["hub"] = hub;
    print(with_hub.dump(), pretty);
    return 0;
  }
  print(doc, pretty);
  return d.contains("error") ? 2 : 0;
}

// The core's warnings about the request (an unknown field: `warnings` in the result), one line
// each on standard error, so a person running a request file sees the field that was not read.
void print_warnings(const json& d) {
  if (!d.is_object() || !d.contains("warnings") || !d["warnings"].is_array()) return;
  for (const auto& w : d["warnings"])
    if (w.is_object())
      std::cerr << "warning: " << w.value("code", std::string()) << " '" << w.value("path", std::string()) << "'"
                << (w.contains("did_you_mean") ? " (did you mean '" + w.value("did_you_mean", std::string()) + "'?)" : std::string())
                << "\n";
}

// `<command> --request file.json`: the request document as written, unchanged, to the API (the
// same text the wasm module would get); read to the API's own bound plus one byte, so an
// oversized file gets the API's json_too_large.
int run_request_file(const wif::Catalog& cat, const std::string& cmd, const std::string& file, bool pretty) {
  std::string text;
  const ReadResult got = read_file(file, text, wif::kMaxRequestBytes + 1);
  if (got == ReadResult::missing) return fail("file_not_found", "--request", "cannot read '" + file + "'");
  std::string doc;
  if (cmd == "solve") doc = wif::api_solve(cat, text);
  else if (cmd == "runs-on") doc = wif::api_runs_on(cat, text);
  else if (cmd == "tiers") doc = wif::api_tiers(cat, text);
  else if (cmd == "train") doc = wif::api_train(cat, text);
  else if (cmd == "cost") doc = wif::api_cost(cat, text);
  else doc = wif::api_estimate(cat, text);
  print(doc, pretty);
  const json d = json::parse(doc);
  print_warnings(d);
  return d.contains("error") ? 2 : 0;
}

// `api <function> <request.json|->`: one request document, as the wasm module takes it, to the
// API function of that name; and `defaults [--model <id|config.json>]`, every default the core
// applies. -1 when `cmd` is neither.
int run_api_command(const wif::Catalog& cat, const std::vector<std::string>& args, bool pretty) {
  const std::string& cmd = args[0];
  if (cmd == "api") {
    if (args.size() < 3) return fail("missing_field", "request", "api needs a function name and a request file (or -)");
    std::string text;
    if (args[2] == "-") {  // standard input, to the same bound as a file
      char buf[1 << 16];
      while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > kMaxJsonFileBytes)
          return fail("file_too_large", "request", "the request is larger than the limit of " + std::to_string(kMaxJsonFileBytes) + " bytes");
      }
    } else {
      const ReadResult got = read_file(args[2], text);
      if (got == ReadResult::missing) return fail("file_not_found", "request", "cannot read '" + args[2].substr(0, 256) + "'");
      if (got == ReadResult::too_large)
        return fail("file_too_large", "request", "the request is larger than the limit of " + std::to_string(kMaxJsonFileBytes) + " bytes");
    }
    const std::string& fn = args[1];
    std::string doc;
    if (fn == "estimate") doc = wif::api_estimate(cat, text);
    else if (fn == "estimate_many") doc = wif::api_estimate_many(cat, text);
    else if (fn == "solve") doc = wif::api_solve(cat, text);
    else if (fn == "tiers") doc = wif::api_tiers(cat, text);
    else if (fn == "runs_on") doc = wif::api_runs_on(cat, text);
    else if (fn == "train") doc = wif::api_train(cat, text);
    else if (fn == "cost") doc = wif::api_cost(cat, text);
    else if (fn == "defaults") doc = wif::api_defaults(cat, text);
    else if (fn == "check_saved") doc = wif::api_check_saved(cat, text);
    else return fail("bad_value", "function", "api functions: estimate, estimate_many, solve, tiers, runs_on, train, cost, defaults, check_saved");
    std::cout << doc << "\n";
    const json d = json::parse(doc);
    print_warnings(d);
    if (d.is_array())
      for (const auto& x : d) print_warnings(x);
    return d.is_object() && d.contains("error") ? 2 : 0;
  }
  if (cmd == "defaults") {
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
  return -1;
}

// `bench-paste FILE --hardware ID [--count N] [--model ID] [--quant Q] [--json]`: a saved
// llama-bench output (markdown, -o json or -o jsonl) against our predictions. -1 when `cmd` is not it.
int run_bench_paste(const wif::Catalog& cat, const std::vector<std::string>& args, bool pretty) {
  if (args[0] != "bench-paste") return -1;
  if (args.size() < 2 || args[1].rfind("--", 0) == 0) return fail("missing_field", "file", "bench-paste needs a file path");
  std::string text;
  const ReadResult got = read_file(args[1], text);
  if (got == ReadResult::missing) return fail("file_not_found", "file", "cannot read '" + args[1].substr(0, 256) + "'");
  if (got == ReadResult::too_large)
    return fail("file_too_large", "file", "the file is larger than the limit of " + std::to_string(kMaxJsonFileBytes) + " bytes");
  json q = {{"text", text}};
  for (std::size_t i = 2; i + 1 < args.size(); ++i) {
    if (args[i] == "--hardware") q["hardware"] = args[i + 1];
    else if (args[i] == "--model") q["model"] = args[i + 1];
    else if (args[i] == "--quant") q["quant"] = args[i + 1];
    else if (args[i] == "--count") {
      if (int rc = put_flag_value(q, "--count", "count", 'i', args[i + 1])) return rc;
    } else continue;
    ++i;
  }
  const std::string doc = wif::api_bench_paste(cat, q.dump());
  const json r = json::parse(doc);
  if (!pretty || r.contains("error")) {
    print(doc, pretty);
    return r.contains("error") ? 2 : 0;
  }
  for (const auto& row : r["bench_paste"]["rows"]) {
    if (row.contains("error")) {
      std::printf("line %-4d %-14s %s: %s\n", row["line"].get<int>(), row["test"].get<std::string>().c_str(),
                  row["error"]["code"].get<std::string>().c_str(), row["error"]["message"].get<std::string>().c_str());
      continue;
    }
    std::printf("line %-4d %-14s measured %9.2f  predicted %9.2f (%.2f-%.2f)  %+6.1f%%  %s %s\n", row["line"].get<int>(),
                row["test"].get<std::string>().c_str(), row["measured_tps"].get<double>(), row["predicted_tps"].get<double>(),
                row["predicted_low"].get<double>(), row["predicted_high"].get<double>(), row["error_pct"].get<double>(),
                row["model"].get<std::string>().c_str(), row["quant"].get<std::string>().c_str());
  }
  for (const auto& e : r["bench_paste"]["errors"])
    std::printf("%s: %s %s\n", e["path"].get<std::string>().c_str(), e["code"].get<std::string>().c_str(),
                e["message"].get<std::string>().c_str());
  return 0;
}

bool is_request_command(const std::string& cmd) {
  for (const char* c : {"estimate", "plan", "serve", "train", "cost", "tiers", "solve", "runs-on"})
    if (cmd == c) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage;
    return 0;
  }
  // No command (nothing, or only --json): usage for people on stderr, the error document on stdout.
  if (args.empty() || args[0] == "--json") {
    std::cerr << kUsage;
    return fail("missing_field", "command", "give a command: estimate, plan, serve, tiers, runs-on, solve, train, cost, list, gguf …");
  }
  bool pretty = true;
  for (const auto& a : args)
    if (a == "--json") pretty = false;
  const std::string& cmd = args[0];
  if (int rc = run_gguf_command(args, pretty); rc >= 0) return rc;
  const wif::Catalog cat = wif::Catalog::load(wif::embedded_catalog());
  if (int rc = run_info_command(cat, args, pretty); rc >= 0) return rc;
  if (int rc = run_bench_paste(cat, args, pretty); rc >= 0) return rc;
  if (int rc = run_api_command(cat, args, pretty); rc >= 0) return rc;
  if (!is_request_command(cmd)) {
    std::cerr << kUsage;
    return fail("unknown_command", "command", "unknown command '" + cmd.substr(0, 64) + "'");
  }
  if (args.size() >= 3 && args[1] == "--request") return run_request_file(cat, cmd, args[2], pretty);
  json req, hub;
  if (int rc = build_request(cmd, args, pretty, req, hub)) return rc;
  return run_request(cat, cmd, req, hub, pretty);
}
