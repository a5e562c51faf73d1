// The wasm module's surface: JSON text in, JSON text out, over the same API as the CLI.
// No logic here; errors come back as {"error": {...}} documents, never as traps.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/api/api.hpp"
#include "willitfit/api/saved.hpp"
#include "willitfit/catalog/catalog.hpp"

namespace {

// Out of line ([[gnu::noinline]], and the link's one-caller inlining limit, wasm/CMakeLists.txt):
// catalog() runs before every call, and with the catalog's loading inlined into it, it was an 18 KB
// function that the browser compiled a second time with its optimizing compiler (0.37 s of V8's in
// every load of the page, Chromium 156).
[[gnu::noinline]] wif::Catalog load_catalog() { return wif::Catalog::load(wif::embedded_catalog()); }

const wif::Catalog& catalog() {
  static const wif::Catalog c = load_catalog();
  return c;
}

std::string estimate(const std::string& request) { return wif::api_estimate(catalog(), request); }
std::string estimate_many(const std::string& requests) { return wif::api_estimate_many(catalog(), requests); }
std::string tiers(const std::string& request) { return wif::api_tiers(catalog(), request); }
std::string runs_on(const std::string& request) { return wif::api_runs_on(catalog(), request); }
std::string solve(const std::string& request) { return wif::api_solve(catalog(), request); }
std::string train(const std::string& request) { return wif::api_train(catalog(), request); }
std::string cost(const std::string& request) { return wif::api_cost(catalog(), request); }
std::string defaults(const std::string& request) { return wif::api_defaults(catalog(), request); }
std::string list(const std::string& what) { return wif::api_list(catalog(), what); }
std::string accuracy_report() { return wif::api_accuracy(catalog()); }
std::string bench_paste(const std::string& request) { return wif::api_bench_paste(catalog(), request); }
// Accepts a JS string (base64) or a Uint8Array/ArrayBuffer of the file's first bytes.
// options: {"tensors": "list" | "columns" | "none"} as JSON text ("" for the default list).
std::string gguf_summary(const std::string& bytes_or_base64, const std::string& options) {
  return wif::api_gguf_summary(bytes_or_base64, options);
}
// A header parsed once and kept under `handle`; requests then name {"gguf_handle": handle}.
std::string gguf_register(const std::string& handle, const std::string& bytes_or_base64) {
  return wif::api_gguf_register(handle, bytes_or_base64);
}
// A vision projector's header under `handle`; requests then name {"mmproj_handle": handle}.
std::string mmproj_register(const std::string& handle, const std::string& bytes_or_base64) {
  return wif::api_mmproj_register(handle, bytes_or_base64);
}
// A split file's shards (JSON array of base64 texts, first with the metadata) under one handle.
std::string gguf_register_split(const std::string& handle, const std::string& shards_json) {
  return wif::api_gguf_register_split(handle, shards_json);
}

// The summary as {json, table}: `table` is a Uint8Array VIEW of wasm memory holding the tensor
// columns (api.hpp api_gguf_summary_table), valid only until the next call into the module, so
// api.js copies it at once. `bytes` (a Uint8Array) is copied in with one TypedArray.set (embind's
// std::string conversion copies byte by byte in JS).
emscripten::val gguf_summary_table(const emscripten::val& bytes) {
  static wif::ByteBuffer in, table;   // resize() does not zero-fill: both are written in full
  in.resize(bytes["length"].as<std::size_t>());
  emscripten::val(emscripten::typed_memory_view(in.size(), in.data())).call<void>("set", bytes);
  wif::GgufSummaryTable r = wif::api_gguf_summary_table(in.data(), in.size());
  in = {};   // no 5 MB kept between calls
  table = std::move(r.table);
  emscripten::val out = emscripten::val::object();
  out.set("json", r.json);
  out.set("table", emscripten::val(emscripten::typed_memory_view(table.size(), table.data())));
  return out;
}
std::string hub_ref(const std::string& text) { return wif::api_hub_ref(text); }
std::string hub_repo(const std::string& doc) { return wif::api_hub_repo(doc); }
std::string catalog_errors() { return wif::api_catalog_errors(catalog()); }
std::string check_saved(const std::string& text) { return wif::api_check_saved(catalog(), text); }
std::string version() { return "{\"schema_version\":1,\"version\":\"0.1.0\"}"; }

}  // namespace

EMSCRIPTEN_BINDINGS(willitfit) {
  emscripten::function("estimate", &estimate);
  emscripten::function("estimateMany", &estimate_many);
  emscripten::function("tiers", &tiers);
  emscripten::function("runsOn", &runs_on);
  emscripten::function("solve", &solve);
  emscripten::function("train", &train);
  emscripten::function("cost", &cost);
  emscripten::function("list", &list);
  emscripten::function("defaults", &defaults);
  emscripten::function("catalogErrors", &catalog_errors);
  emscripten::function("accuracyReport", &accuracy_report);
  emscripten::function("benchPaste", &bench_paste);
  emscripten::function("checkSaved", &check_saved);
  emscripten::function("ggufSummary", &gguf_summary);
  emscripten::function("ggufRegister", &gguf_register);
  emscripten::function("ggufRegisterSplit", &gguf_register_split);
  emscripten::function("mmprojRegister", &mmproj_register);
  emscripten::function("ggufSummaryTable", &gguf_summary_table);
  emscripten::function("hubRef", &hub_ref);
  emscripten::function("hubRepo", &hub_repo);
  emscripten::function("version", &version);
}
