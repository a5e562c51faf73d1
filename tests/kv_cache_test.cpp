#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/error.hpp"
#include "willitfit/kv_cache.hpp"

using namespace wif;

TEST_CASE("GLM-4.5-Air f16 cache is 188416 bytes per token: 46 layers x 8 heads x 128 x 2 x 2", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("glm-4.5-air");
  KvOptions o;
  o.n_ctx = 8192;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(kv.bytes_per_token_full == 188416);
  CHECK(kv.total_bytes == 188416ull * 8192);
  CHECK(static_cast<double>(kv.total_bytes) / wif_test::kGiB == Approx(1.4375));
  REQUIRE(kv.groups.size() == 1);
  CHECK(kv.groups[0].layers == 46);  // the NextN layer keeps no cache
}

TEST_CASE("Llama 3.1 8B cache per token by cache type", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  auto row = GENERATE(table<GgmlType, std::uint64_t>({
      {GgmlType::F16, 131072}, {GgmlType::Q8_0, 69632}, {GgmlType::Q4_0, 36864}, {GgmlType::F32, 262144}}));
  KvOptions o;
  o.type_k = o.type_v = std::get<0>(row);
  CAPTURE(ggml_type_name(std::get<0>(row)));
  CHECK(llamacpp_kv_cache(a, o).bytes_per_token_full == std::get<1>(row));
}

TEST_CASE("context is padded to 256 cells and split per stream when not unified", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  KvOptions o;
  o.n_ctx = 8000;
  CHECK(llamacpp_kv_cache(a, o).n_ctx == 8192);
  o.n_ctx = 10000;
  o.n_seq = 4;
  o.unified = false;
  CHECK(llamacpp_kv_cache(a, o).n_ctx == 4 * 2560);  // PAD(10000/4, 256) * 4
  o.unified = true;
  CHECK(llamacpp_kv_cache(a, o).n_ctx == 10240);
}

TEST_CASE("a quantized V cache without flash attention is refused like llama.cpp does", "[kv_cache]") {
  KvOptions o;
  o.type_v = GgmlType::Q8_0;
  o.flash_attn = false;
  CHECK_THROWS_AS(llamacpp_kv_cache(wif_test::golden_arch("llama-3.1-8b"), o), InputError);
  o.n_ctx = -5;
  o.flash_attn = true;
  CHECK_THROWS_AS(llamacpp_kv_cache(wif_test::golden_arch("llama-3.1-8b"), o), InputError);
}

TEST_CASE("cache grows monotonically with context", "[kv_cache]") {
  const Architecture a = wif_test::golden_arch("glm-4.5-air");
  std::uint64_t prev = 0;
  for (std::int64_t ctx = 256; ctx <= 131072; ctx *= 2) {
    KvOptions o;
    o.n_ctx = ctx;
    const auto b = llamacpp_kv_cache(a, o).total_bytes;
    CHECK(b > prev);
    prev = b;
  }
}
