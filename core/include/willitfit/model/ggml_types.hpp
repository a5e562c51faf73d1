// The ggml tensor types: elements and bytes per block, as defined by llama.cpp's
// ggml/src/ggml-common.h block structs and the type_traits table in ggml/src/ggml.c.
// Row bytes are type_size * ne0 / block_size; ne0 must be a multiple of the block size.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace wif {

enum class GgmlType : int {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22,
  IQ4_XS = 23, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
  TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39, NVFP4 = 40, Q1_0 = 41, Q2_0 = 42,
};

struct GgmlTypeInfo {
  const char* name;     // as llama.cpp prints it: "q4_K", "f16" …
  int block_size;       // elements per block
  int type_size;        // bytes per block
};

/// Traits of a type id as found in a GGUF file; nullopt for ids that no current loader accepts
/// (removed types 4, 5, 31-33, 36-38, or anything out of range).
std::optional<GgmlTypeInfo> ggml_type_info(int type_id);

/// Traits of a known type (never fails for enumerators above).
GgmlTypeInfo ggml_info(GgmlType t);

/// Upper-case display name ("Q4_K", "F16", "MXFP4").
std::string ggml_type_name(GgmlType t);

/// Parse a type name case-insensitively ("q8_0", "F16", "iq4_nl"); nullopt if unknown.
std::optional<GgmlType> ggml_type_from_name(const std::string& name);

/// Bytes of one row of ne0 elements. Requires ne0 % block_size == 0.
std::uint64_t ggml_row_bytes(GgmlType t, std::uint64_t ne0);

/// Bits per weight of the type (bytes*8/block).
double ggml_bits_per_weight(GgmlType t);

}  // namespace wif
