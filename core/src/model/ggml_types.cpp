#include "willitfit/model/ggml_types.hpp"
#include "willitfit/base/text.hpp"

#include <algorithm>
#include <cctype>

namespace wif {
namespace {

struct Row {
  int id;
  GgmlTypeInfo info;
};

// Block sizes and byte sizes from llama.cpp ggml/src/ggml-common.h (the block_* structs, QK_K =
// 256) and the type_traits table in ggml/src/ggml.c (.blck_size, .type_size).
constexpr Row kTypes[] = {
    {0, {"F32", 1, 4}},       {1, {"F16", 1, 2}},        {2, {"Q4_0", 32, 18}},
    {3, {"Q4_1", 32, 20}},    {6, {"Q5_0", 32, 22}},     {7, {"Q5_1", 32, 24}},
    {8, {"Q8_0", 32, 34}},    {9, {"Q8_1", 32, 36}},     {10, {"Q2_K", 256, 84}},
    {11, {"Q3_K", 256, 110}}, {12, {"Q4_K", 256, 144}},  {13, {"Q5_K", 256, 176}},
    {14, {"Q6_K", 256, 210}}, {15, {"Q8_K", 256, 292}},  {16, {"IQ2_XXS", 256, 66}},
    {17, {"IQ2_XS", 256, 74}}, {18, {"IQ3_XXS", 256, 98}}, {19, {"IQ1_S", 256, 50}},
    {20, {"IQ4_NL", 32, 18}}, {21, {"IQ3_S", 256, 110}}, {22, {"IQ2_S", 256, 82}},
    {23, {"IQ4_XS", 256, 136}}, {24, {"I8", 1, 1}},      {25, {"I16", 1, 2}},
    {26, {"I32", 1, 4}},      {27, {"I64", 1, 8}},       {28, {"F64", 1, 8}},
    {29, {"IQ1_M", 256, 56}}, {30, {"BF16", 1, 2}},      {34, {"TQ1_0", 256, 54}},
    {35, {"TQ2_0", 256, 66}}, {39, {"MXFP4", 32, 17}},   {40, {"NVFP4", 64, 36}},
    {41, {"Q1_0", 128, 18}},  {42, {"Q2_0", 64, 18}},
};


}  // namespace

std::optional<GgmlTypeInfo> ggml_type_info(int type_id) {
  for (const auto& r : kTypes)
    if (r.id == type_id) return r.info;
  return std::nullopt;
}

GgmlTypeInfo ggml_info(GgmlType t) { return *ggml_type_info(static_cast<int>(t)); }

std::string ggml_type_name(GgmlType t) { return ggml_info(t).name; }

std::optional<GgmlType> ggml_type_from_name(const std::string& name) {
  const std::string u = text::upper(name);
  for (const auto& r : kTypes)
    if (u == r.info.name) return static_cast<GgmlType>(r.id);
  return std::nullopt;
}

std::uint64_t ggml_row_bytes(GgmlType t, std::uint64_t ne0) {
  const auto i = ggml_info(t);
  return ne0 / static_cast<std::uint64_t>(i.block_size) * static_cast<std::uint64_t>(i.type_size);
}

double ggml_bits_per_weight(GgmlType t) {
  const auto i = ggml_info(t);
  return 8.0 * i.type_size / i.block_size;
}

}  // namespace wif
