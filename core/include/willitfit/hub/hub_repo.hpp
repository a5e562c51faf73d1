// A Hugging Face Hub model repository, read from what the surfaces fetched (the browser's fetch
// layer web/hub.js, the CLI's libcurl client): the core never does I/O. It is given the Hub's
// model document, the text of config.json and the first bytes of GGUF / safetensors files, and
// says what it still needs to read. The surfaces loop:
//
//     ref  = hub_parse_ref(text)                  // what the person typed or pasted
//     info = GET {hub}/api/models/{ref.repo}?blobs=true
//     doc  = {repo, info, quant?, file?}
//     while (r = hub_repo(doc)).read is not empty:
//         for each item: GET {hub}/{repo}/resolve/{r.revision}/{item.path}, Range: bytes=0-(item.bytes-1)
//         doc.config = text | doc.gguf[path] = base64 | doc.safetensors[path] = base64
//     r.quants[i].model is a request's "model" for an estimate of that quant.
//
// Errors (InputError, path in parentheses):
//   hub_bad_ref (ref)        not a repo id or Hub link;   hub_other_site (ref) a link to another site
//   hub_not_model (ref)      a dataset or a Space;        hub_bad_info (info) not the Hub's model document
//   hub_no_model_files (info) neither config.json nor a GGUF file
//   hub_quant_not_found (quant), hub_file_not_found (file)  the person's choice is not in the repo
//   hub_header_too_large (gguf.<path> / safetensors.<path>) the header is past kHubReadLimit
//   safetensors_truncated, safetensors_bad_header (safetensors.<path>), gguf_* from gguf.hpp,
//   unsupported_model_type (config.model_type) naming it, bad_json (config).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace wif {

/// First read of a header: one Range request holds most GGUF headers (tokenizer tables of 150k
/// tokens and their merges are a few MiB) and every safetensors shard header seen in practice.
constexpr std::uint64_t kHubFirstRead = 8u << 20;
constexpr std::uint64_t kHubFirstReadSafetensors = 1u << 20;
/// First read of shards 2..N of a split GGUF: they carry only split.* keys and their own tensor
/// infos (a few hundred tensors, tens of KB; grown like any header when that is short).
constexpr std::uint64_t kHubFirstReadShard = 512u << 10;
/// Split files with more shards than this are planned from the first shard's architecture, as
/// an unread quant is (the largest published splits have ~50 shards; 128 first reads are 64 MiB).
constexpr int kHubMaxShardsRead = 128;
/// First read of a vision projector (mmproj) header: no tokenizer, a few hundred tensor infos
/// (Gemma 3's SigLIP: 439 tensors, a 25 KB header; Qwen-VL and Pixtral ones 14-23 KB); grown
/// like any header when short.
constexpr std::uint64_t kHubFirstReadMmproj = 128u << 10;
/// No header is read past this many bytes (safetensors itself refuses headers over 100 MB).
constexpr std::uint64_t kHubReadLimit = 96u << 20;

/// Parse a model reference: "owner/repo", "owner/repo:QUANT", "hf:owner/repo[:QUANT]",
/// "https://huggingface.co/owner/repo[/tree|blob|resolve/<rev>/<file>][?…][#…]", "hf.co/…".
/// Returns {"repo", "quant"?, "file"?, "revision"?}.
nlohmann::json hub_parse_ref(const std::string& text);

/// What the repo holds, given what was read so far (see the loop above). Input fields:
///   repo      "owner/name"
///   info      the Hub's /api/models/{repo}?blobs=true document: sha, gated, siblings[{rfilename,
///             size, lfs{size}}] (a tree listing [{type, path, size, lfs{size}}] in "tree" is
///             taken instead when given)
///   quant, file  the person's choice (optional)
///   mmproj_file  the projector file to read (optional; a path among the repo's mmproj files,
///             else hub_file_not_found at "mmproj_file"); by default the F16 one, else the first
///   config    config.json text; gguf / safetensors {path: base64 of the file's first bytes}
/// Output:
///   repo, revision, gated, format ("gguf" | "safetensors"), read [{kind, path, bytes}] (empty
///   when done), read_limit_bytes, chosen (index into quants), quants [{label, quant, known,
///   files, bytes (published, summed over splits), split, complete, from_header, model?}]
///   (model: {header, shards? (paths of shards 2..N: the estimate's gguf_shards_base64, in
///   order), plan? ("computed"), id, name}; every shard of the chosen split file is read),
///   mmproj [{path, bytes}] (every mmproj*.gguf), mmproj_chosen (index of the one read: a GGUF
///   repo with mmproj files always reads that header, kHubFirstReadMmproj, in the same round as
///   the model's), projector {path, bytes, projector_type, family, modelled, tensors,
///   tensor_bytes} once read, or mmproj_error {code, path, message} when its header is not a
///   readable projector (the model rows still stand, without it); each row's model then has
///   mmproj (the path read, which the surfaces replace by mmproj_handle or
///   mmproj_header_base64), mmproj_path and mmproj_revision; safetensors {bytes, tensors, dtypes[{dtype, tensors, bytes,
///   params}], quantization{method, bits, format}} (safetensors repos), commands
///   {llama_server | vllm} for exactly this repo and file, model_type / architecture.
nlohmann::json hub_repo(const nlohmann::json& doc);

}  // namespace wif
