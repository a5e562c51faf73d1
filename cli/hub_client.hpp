// The CLI's Hugging Face Hub client: `--model hf:owner/repo[:QUANT]` read over HTTP with libcurl,
// the same loop as the page's web/hub.js around the core's hub_repo (core/include/willitfit/
// hub_repo.hpp), the same error codes. The Hub's base URL is https://huggingface.co; the
// WILLITFIT_HUB_URL environment variable points it at a local mock for the tests only. An
// access token for gated repos is taken from HF_TOKEN and sent to the Hub's origin only (the
// redirect to the file host is followed by hand, without it).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace wif_cli {

/// Read the repo named by `ref` (anything hub_parse_ref takes) for `quant` (may be empty).
/// On success sets `model` (a request's "model"), `quant_out` (the request's "quant", empty for
/// a GGUF read from its header) and `hub` ({repo, revision, gated, quant row, quantization,
/// requests, bytes_read}); returns false with `error_json` otherwise. With `offline`, nothing is
/// fetched and the answer is the hub_offline error.
/// A repo with mmproj files: the one named `mmproj_file` (else the F16 one, else the first) is
/// read too, and `model` carries its first bytes (mmproj_header_base64).
bool hub_model(const std::string& ref, const std::string& quant, bool offline, nlohmann::json& model,
               std::string& quant_out, nlohmann::json& hub, std::string& error_json,
               const std::string& mmproj_file = "");

}  // namespace wif_cli
