// Your own measurements: pasted `llama-bench` output (its markdown table, `-o json` or
// `-o jsonl`) parsed into rows, each matched to a catalog model, quant and device and shown as
// predicted against measured, with a data row in the shape of data/measurements/llamacpp_bench.jsonl
// that a person can send.
//
// Request: {"text": "...", "hardware": "<device id>", "count": 1,
//           "model": "<model id>" (optional), "quant": "<quant id>" (optional)}
// The model and quant come from the request when given; otherwise from the row's llama-bench
// model string ("llama 8B Q4_K - Medium"): the quant from its file-type name, the model from the
// published rows that carry the same string (bench_mapping.json). The device must be named in
// the request (llama-bench's table does not print it); `-o json` rows' gpu_info is kept.
// A paste with no readable row is an error naming the first offending line; a row that cannot
// be matched or predicted carries its own coded error with the line.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace wif {

class Catalog;

/// {"bench_paste": {format, rows: [...], matched, errors}} or throws InputError (coded, with
/// path "text:line N") when nothing in the paste is a llama-bench row.
nlohmann::json bench_paste(const Catalog& cat, const nlohmann::json& request);

/// llama-bench's file-type name (llama_model_ftype_name) to a quant id: "Q4_K - Medium" ->
/// "Q4_K_M", "MXFP4 MoE" -> "MXFP4_MOE"; empty when unknown.
std::string quant_from_ftype_name(const std::string& ftype);

}  // namespace wif
