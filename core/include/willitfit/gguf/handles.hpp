// GGUF headers imported once and referred to by a handle afterwards. The page imports a local
// .gguf once (its header, up to megabytes with the tokenizer); every later request names it as
// {"model": {"gguf_handle": "<handle>"}} instead of carrying the bytes, and the core parses the
// header once, when it is registered. The caller picks the handle (dist/api.js uses the SHA-256
// of the bytes, "sha256:<hex>"), so the same bytes registered twice are one entry.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/mmproj.hpp"

namespace wif {

/// At most this many headers are kept; registering one more drops the least recently registered.
inline constexpr std::size_t kMaxGgufHandles = 16;

/// Parse `bytes` (a GGUF prefix, path `path` in errors) and keep the model under `handle`
/// (1..128 characters of [A-Za-z0-9:._-]). Throws InputError (bad_value at "handle", or what
/// load_gguf_model throws); nothing is kept then.
std::shared_ptr<const GgufModel> register_gguf(const std::string& handle, const std::vector<std::uint8_t>& bytes,
                                               const std::string& path);

/// The same for a split file (gguf-split): the shards' first bytes in order, the first holding
/// the metadata (gguf.hpp load_gguf_split_model); one handle names the whole model.
std::shared_ptr<const GgufModel> register_gguf_split(const std::string& handle,
                                                     const std::vector<std::vector<std::uint8_t>>& shards,
                                                     const std::string& path);

/// The model registered under `handle`, or nullptr.
std::shared_ptr<const GgufModel> find_gguf(const std::string& handle);

/// A vision projector's header (gguf/mmproj.hpp) kept under `handle`, in a registry of its own
/// (as many as kMaxGgufHandles); a model reference then names it as {"mmproj_handle": handle}.
/// Throws as register_gguf does, or what load_mmproj throws.
std::shared_ptr<const MmprojFile> register_mmproj(const std::string& handle, const std::vector<std::uint8_t>& bytes,
                                                  const std::string& path);
std::shared_ptr<const MmprojFile> find_mmproj(const std::string& handle);

}  // namespace wif
