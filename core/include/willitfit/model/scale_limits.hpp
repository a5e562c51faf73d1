// Scale limits: the largest model and the largest memory figure the core will compute. Inputs
// come from strangers (config.json, GGUF headers, URL parameters); each field has its own range,
// but products of fields in range can still overflow 64-bit byte counts. These checks bound the
// products in long double *before* anything is allocated or multiplied in integers, so every
// later sum stays exact and no figure wraps around, and refuse with the field to change.
#pragma once
#include <string>

#include "willitfit/model/architecture.hpp"

namespace wif {

/// 2^50 weights (about 1.1e15): the largest published models have about 2e12.
constexpr long double kMaxWeights = 1125899906842624.0L;
/// 2^60 bytes (1 EiB) for the KV cache or a compute buffer: far beyond any machine, and the sum
/// of all terms still fits in 63 bits.
constexpr long double kMaxBytes = 1152921504606846976.0L;

/// Generous upper bound of the weights an architecture implies (every tensor the tensor plan can
/// create, counted at its widest), and of its per-sequence recurrent state, in long double.
long double weights_upper_bound(const Architecture& a);
long double recurrent_state_upper_bound(const Architecture& a);

/// Throws InputError("bad_value", path) when the architecture is beyond kMaxWeights or its
/// recurrent state beyond kMaxWeights elements. `path` is the config's path ("model.config").
void check_architecture_scale(const Architecture& a, const std::string& path);

// check_memory_scale, the same bound for a KV cache and compute buffer, is in
// llamacpp/kv_cache.hpp: it needs llama.cpp's cache options.

}  // namespace wif
