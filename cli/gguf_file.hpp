// Reading a GGUF header from disk for the CLI: only as many bytes as the header needs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wif_cli {

/// Read the prefix of `path` that holds the whole GGUF header: start small and grow the read to
/// max(what the parser asks for, twice the last read) until it parses. On failure returns false
/// and sets `error_json` to the error document (file_not_found, or the parser's error).
bool read_gguf_header(const std::string& path, std::vector<std::uint8_t>& bytes, std::string& error_json);

/// Write the header a llama.cpp quantization of `model_ref` (catalog id or {"config": …}) would
/// have, with placeholder tokenizer strings and no tensor data, to `out`. Returns the result or
/// error document; for tests and for checking other GGUF tools against ours. With `full`, the
/// file is extended (sparse, zero data) to the size the real file would have. With
/// `split_experts`, routed experts are written one tensor each (wif::gguf_split_experts). With
/// `split` > 1, the header is written as gguf-split's shards "<out stem>-0000k-of-0000N.gguf"
/// (the result lists them under "files").
/// The header of the vision projector (mmproj) llama.cpp's converter would write for a model
/// with a modelled vision tower, in `type` (f16, bf16, f32, q8_0): gguf/mmproj.hpp's clip.*
/// metadata and projector.hpp's tensors. Returns {path, header_bytes, tensors, tensor_bytes,
/// file_bytes, projector_type} or an error document.
std::string synth_mmproj(const nlohmann::json& model_ref, const std::string& type, const std::string& out);
std::string synth_gguf(const nlohmann::json& model_ref, const std::string& quant, const std::string& out, bool full,
                       bool split_experts = false, int split = 1);

}  // namespace wif_cli
