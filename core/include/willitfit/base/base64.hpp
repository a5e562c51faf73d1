// Base64 (RFC 4648, standard alphabet) for binary inputs that travel inside JSON documents,
// such as the first bytes of a GGUF file in an estimate request.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wif {

/// Decode; whitespace is ignored, padding is optional. Throws InputError("bad_base64", path)
/// on any other character or a dangling single symbol.
std::vector<std::uint8_t> base64_decode(const std::string& text, const std::string& path);

std::string base64_encode(const std::uint8_t* data, std::size_t size);
inline std::string base64_encode(const std::vector<std::uint8_t>& b) { return base64_encode(b.data(), b.size()); }

}  // namespace wif
