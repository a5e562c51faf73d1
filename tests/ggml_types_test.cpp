#include <catch2/catch.hpp>

#include "willitfit/model/ggml_types.hpp"

namespace ggml_types_test_cases {

using namespace wif;

TEST_CASE("ggml block sizes give llama.cpp's bits per weight", "[ggml_types]") {
  auto row = GENERATE(table<const char*, int, int, double>({
      {"Q4_0", 32, 18, 4.5},     {"Q8_0", 32, 34, 8.5},     {"Q2_K", 256, 84, 2.625},
      {"Q3_K", 256, 110, 3.4375}, {"Q4_K", 256, 144, 4.5},  {"Q5_K", 256, 176, 5.5},
      {"Q6_K", 256, 210, 6.5625}, {"IQ4_XS", 256, 136, 4.25}, {"IQ2_XXS", 256, 66, 2.0625},
      {"IQ1_S", 256, 50, 1.5625}, {"IQ1_M", 256, 56, 1.75}, {"MXFP4", 32, 17, 4.25},
      {"BF16", 1, 2, 16.0},      {"F32", 1, 4, 32.0},
  }));
  CAPTURE(std::get<0>(row));
  auto t = ggml_type_from_name(std::get<0>(row));
  REQUIRE(t.has_value());
  CHECK(ggml_info(*t).block_size == std::get<1>(row));
  CHECK(ggml_info(*t).type_size == std::get<2>(row));
  CHECK(ggml_bits_per_weight(*t) == Approx(std::get<3>(row)));
}

TEST_CASE("row bytes are blocks times block bytes", "[ggml_types]") {
  CHECK(ggml_row_bytes(GgmlType::Q4_K, 4096) == 16 * 144);
  CHECK(ggml_row_bytes(GgmlType::F16, 4096) == 8192);
  CHECK(ggml_row_bytes(GgmlType::Q8_0, 576) == 18 * 34);
}

TEST_CASE("removed and out-of-range type ids are rejected", "[ggml_types]") {
  for (int id : {4, 5, 31, 32, 33, 36, 37, 38, 43, 1000, -1}) {
    CAPTURE(id);
    CHECK_FALSE(ggml_type_info(id).has_value());
  }
  CHECK(ggml_type_info(39).has_value());
  CHECK_FALSE(ggml_type_from_name("Q4_K_M").has_value());  // a file type, not a tensor type
  CHECK(ggml_type_from_name("q8_0") == GgmlType::Q8_0);
}

}  // namespace ggml_types_test_cases
