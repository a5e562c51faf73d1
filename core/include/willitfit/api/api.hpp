// The JSON boundary shared by the CLI, the wasm module and the page: text in, text out.
// Every function returns a JSON document with "schema_version" (kSchemaVersion) at its top;
// failures are {"schema_version", "error": {"code", "path", "message", "accepted"?, "needed_bytes"?}}.
// The documents are described by core/schema/request.schema.json and result.schema.json, and for
// JavaScript by web/willitfit.d.ts.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/base/buffer.hpp"
#include "willitfit/catalog/catalog.hpp"

namespace wif {

/// Version of the request and result documents; bumped when a field changes meaning or goes.
inline constexpr int kSchemaVersion = 1;

/// Every default the request readers apply (defaults.hpp), per engine, for cost, training and the
/// solvers. `request_json`: "" or "{}", or {"model": id|config} for the model's server format.
std::string api_defaults(const Catalog& cat, const std::string& request_json);

/// Estimate for one request document (see estimate.hpp for its fields).
std::string api_estimate(const Catalog& cat, const std::string& request_json);

/// Many estimates in one call: a JSON array of request documents in, a JSON array of results out,
/// one per request in order; a failed request gives its error document in its place, so one bad
/// combination never hides the others. Input that is not an array is an error document.
/// At most kMaxBatch requests per call (too_many_requests); web/api.js estimateMany chunks
/// longer lists and reports progress between chunks.
constexpr std::size_t kMaxBatch = 1024;
std::string api_estimate_many(const Catalog& cat, const std::string& requests_json);

/// Tier lists for a model, quant and context over every GPU (alone and with 32/64/128 GiB of
/// system RAM), Mac and unified-memory PC (tiers.hpp for the request and result).
std::string api_tiers(const Catalog& cat, const std::string& request_json);

/// Every catalog model at its best quantization on one device, best first (runs_on.hpp).
std::string api_runs_on(const Catalog& cat, const std::string& request_json);

/// A solver over the estimate: request["solve"] = max_context | best_quant | make_it_fit |
/// cheapest | picks, with an estimate request's fields (see solve.hpp).
std::string api_solve(const Catalog& cat, const std::string& request_json);

/// Training memory for one request document (see training.hpp for its fields).
std::string api_train(const Catalog& cat, const std::string& request_json);

/// Cost per million tokens, cloud offers that fit and rent vs buy (see cost.hpp).
std::string api_cost(const Catalog& cat, const std::string& request_json);

/// Catalog listings: what = "models" | "hardware" | "quants" | "clouds" | "markets".
std::string api_list(const Catalog& cat, const std::string& what);

/// Problems found while loading the catalog (empty list when clean).
std::string api_catalog_errors(const Catalog& cat);

/// The speed accuracy report over the shipped llama-bench measurements (calibration/llama_bench.hpp).
std::string api_accuracy(const Catalog& cat);

/// Pasted llama-bench output against our predictions (bench_paste.hpp): {"text", "hardware", …}.
std::string api_bench_paste(const Catalog& cat, const std::string& request_json);
/// Summary of a GGUF header (gguf.hpp gguf_summary). `bytes_or_base64`: the first bytes of the
/// file (starting "GGUF") or their base64 text. A short prefix gives gguf_truncated, whose
/// error document carries `needed_bytes` (an integer: read at least that many and retry).
/// `options_json` (may be empty): {"tensors": "list" | "columns" | "none"} (gguf.hpp GgufTensorList).
std::string api_gguf_summary(const std::string& bytes_or_base64, const std::string& options_json = "");

/// Parse a GGUF header once and keep it under `handle` (gguf/handles.hpp); a model reference
/// {"gguf_handle": handle} then names it. Returns {"handle", "name", "architecture"} or an error.
std::string api_gguf_register(const std::string& handle, const std::string& bytes_or_base64);
/// A vision projector's GGUF header (gguf/mmproj.hpp) kept under `handle` (gguf/handles.hpp
/// register_mmproj); a model reference {"gguf_handle": …, "mmproj_handle": handle} then
/// names it. Returns {"handle", "name", "projector_type", "family", "modelled", "tensors",
/// "tensor_bytes"} or an error (path "mmproj").
std::string api_mmproj_register(const std::string& handle, const std::string& bytes_or_base64);
/// A split GGUF (gguf-split) under one handle: `shards_json` is a JSON array of the shards'
/// first bytes as base64, in order (the first holds the metadata).
std::string api_gguf_register_split(const std::string& handle, const std::string& shards_json);

/// The summary without per-tensor JSON, and the tensor infos as gguf.hpp GgufTensorTable's
/// columns: `json` is api_gguf_summary's document (or the error document, and then `table` is
/// empty) with "tensor_table" holding the table's layout. `bytes` are the file's first bytes
/// (not base64). For the wasm boundary, where 45,000 tensors as JSON cost more than the parse.
struct GgufSummaryTable {
  std::string json;
  ByteBuffer table;
};
GgufSummaryTable api_gguf_summary_table(const std::uint8_t* bytes, std::size_t size);

/// A Hub model reference parsed (hub_repo.hpp hub_parse_ref): {"repo", "quant"?, "file"?, "revision"?}.
std::string api_hub_ref(const std::string& text);

/// A Hub repository from what was read of it (hub_repo.hpp hub_repo): quants with published
/// sizes, what to read next, and the estimate's model for each quant.
std::string api_hub_repo(const std::string& doc_json);

/// Wrap an error as the error document (with schema_version).
std::string error_json(const Error& e);

}  // namespace wif
