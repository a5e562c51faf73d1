#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/model/quantize.hpp"

namespace quantize_test_cases {

using namespace wif;

namespace {
const Tensor& find(const TensorPlan& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}
}  // namespace

TEST_CASE("the Llama-3.1-8B quantization ladder is reproduced from the config within 0.5%", "[quantize]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  const auto rows = wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/gguf_sizes.jsonl");
  int checked = 0;
  double worst = 0;
  for (const auto& r : rows) {
    if (r["model"] != "meta-llama/Llama-3.1-8B") continue;
    const std::string q = r["quant"];
    // The table's sizes show an importance matrix was used only for the i-quants below 4 bits:
    // IQ4_XS/IQ4_NL match llama.cpp's no-imatrix rule (Q5_K ffn_down in the first n/8 layers).
    QuantOptions opt;
    opt.imatrix = q.rfind("IQ1", 0) == 0 || q.rfind("IQ2", 0) == 0 || q.rfind("IQ3", 0) == 0;
    const TensorPlan p = plan_quantization(a, q, opt);
    // The table (tools/quantize/README.md) lists llama.cpp's model size: tensor bytes, GiB, 2 decimals.
    const double got = static_cast<double>(p.weights_bytes) / wif_test::kGiB;
    const double want = r["size_value"];
    const double err = (got - want) / want;
    worst = std::max(worst, std::fabs(err));
    std::printf("  ladder %-8s published %6.2f GiB  computed %7.3f GiB  error %+6.2f%%  [%s]\n", q.c_str(),
                want, got, 100 * err, r["row_id"].get<std::string>().c_str());
    CAPTURE(q, want, got, r["row_id"]);
    CHECK(std::fabs(err) <= 0.005);
    ++checked;
  }
  std::printf("  ladder rows %d, worst error %.2f%%\n", checked, 100 * worst);
  CHECK(checked == 23);
}

TEST_CASE("Q4_K_M gives attn_v and ffn_down Q6_K on use_more_bits layers and Q6_K output", "[quantize]") {
  const TensorPlan p = plan_quantization(wif_test::golden_arch("llama-3.1-8b"), "Q4_K_M");
  CHECK(find(p, "output.weight").type == GgmlType::Q6_K);
  CHECK(find(p, "token_embd.weight").type == GgmlType::Q4_K);
  // use_more_bits(i, 32): layers 0-3, 6, 9, …, 27 and 28-31.
  for (int il : {0, 3, 6, 9, 27, 28, 31}) {
    CAPTURE(il);
    CHECK(find(p, "blk." + std::to_string(il) + ".attn_v.weight").type == GgmlType::Q6_K);
    CHECK(find(p, "blk." + std::to_string(il) + ".ffn_down.weight").type == GgmlType::Q6_K);
  }
  for (int il : {4, 5, 7, 8, 26}) {
    CAPTURE(il);
    CHECK(find(p, "blk." + std::to_string(il) + ".attn_v.weight").type == GgmlType::Q4_K);
    CHECK(find(p, "blk." + std::to_string(il) + ".ffn_down.weight").type == GgmlType::Q4_K);
  }
  CHECK(find(p, "blk.0.attn_norm.weight").type == GgmlType::F32);
}

TEST_CASE("rows that do not divide into K-quant blocks fall back", "[quantize]") {
  // GLM-4.5-Air experts are 1408 wide: ffn_down_exps rows (ne0 = 1408) are not a multiple of
  // 256, so Q4_K becomes Q5_0 and Q6_K becomes Q8_0 (llama.cpp src/llama-quant.cpp, the ne0 fallback).
  const TensorPlan p = plan_quantization(wif_test::golden_arch("glm-4.5-air"), "Q4_K_M");
  const auto& down = find(p, "blk.10.ffn_down_exps.weight");
  CHECK((down.type == GgmlType::Q5_0 || down.type == GgmlType::Q8_0));
  CHECK(find(p, "blk.10.ffn_up_exps.weight").type == GgmlType::Q4_K);
  const TensorPlan p2 = plan_quantization(wif_test::golden_arch("glm-4.5-air"), "Q4_K_M", {true, QuantRules::Y2026});
  CHECK(find(p2, "blk.10.ffn_up_exps.weight").type == GgmlType::Q4_K);
}

TEST_CASE("GGUF file size is padded header plus padded tensors", "[quantize]") {
  const TensorPlan p = plan_quantization(wif_test::golden_arch("llama-3.1-8b"), "Q8_0");
  CHECK(p.file_bytes > p.weights_bytes);
  CHECK(p.file_bytes % 32 == 0);
  CHECK(p.file_bytes - p.weights_bytes < 16 * 1024 * 1024);
}

TEST_CASE("non-GGUF formats size weights by their storage", "[quantize]") {
  const Architecture a = wif_test::golden_arch("llama-3.1-8b");
  const double bf16 = static_cast<double>(plan_quantization(a, "SAFETENSORS-BF16").weights_bytes);
  CHECK(bf16 == Approx(8.03e9 * 2).epsilon(0.005));
  const double awq = static_cast<double>(plan_quantization(a, "AWQ-4bit").weights_bytes);
  CHECK(awq < bf16 * 0.40);
  CHECK(awq > bf16 * 0.30);  // embeddings and head stay 16-bit
  const double fp8 = static_cast<double>(plan_quantization(a, "FP8").weights_bytes);
  // Linear layers halve; the embedding and output tables (2 x 4096 x 128256 x 2 bytes) stay 16-bit.
  const double tables = 2.0 * 4096 * 128256 * 2;
  CHECK(fp8 == Approx((bf16 - tables) / 2 + tables).epsilon(0.002));

  // A published checkpoint's own storage (catalog `checkpoints`, checkpoint_linear_bits): AutoAWQ
  // with zero points stores 4 + (16 + 4) / 128 bits per weight, compressed-tensors' symmetric
  // GPTQ 4 + 16 / 128, GPTQ 8-bit with zeros 8 + 24 / 128, NVFP4 4 + 8 / 16, a 128 x 128-block FP8
  // 8 + 32 / 16384, a per-tensor FP8 8.
  CHECK(checkpoint_linear_bits("AWQ-4bit", 4, 128, true, "p") == 4.15625);
  CHECK(checkpoint_linear_bits("GPTQ-4bit", 4, 128, false, "p") == 4.125);
  CHECK(checkpoint_linear_bits("GPTQ-8bit", 8, 128, true, "p") == 8.1875);
  CHECK(checkpoint_linear_bits("NVFP4", 4, 16, false, "p") == 4.5);
  CHECK(checkpoint_linear_bits("FP8", 8, 128, false, "p") == 8.0 + 32.0 / 16384.0);
  CHECK(checkpoint_linear_bits("FP8", 8, 0, false, "p") == 8.0);
  for (const auto& bad : {std::make_tuple("AWQ-4bit", 8, 128, true), std::make_tuple("GPTQ-4bit", 4, 100, false),
                          std::make_tuple("NVFP4", 4, 32, false), std::make_tuple("FP8", 8, 64, false),
                          std::make_tuple("FP8", 8, 0, true), std::make_tuple("Q4_K_M", 4, 128, false)}) {
    CAPTURE(std::get<0>(bad), std::get<1>(bad), std::get<2>(bad));
    CHECK_THROWS_AS(checkpoint_linear_bits(std::get<0>(bad), std::get<1>(bad), std::get<2>(bad), std::get<3>(bad), "p"), InputError);
  }
  // Hand-derived: Llama 3.1 8B's linear layers are 32 x (2 x 4096^2 + 2 x 4096 x 1024 +
  // 3 x 4096 x 14336) = 6,979,321,856 weights; at 4.125 bits that is 3,598,712,832 bytes. The rest
  // (token table, output head, norms) is the BF16 plan less its linear layers.
  const std::uint64_t linear = 32ull * (2ull * 4096 * 4096 + 2ull * 4096 * 1024 + 3ull * 4096 * 14336);
  REQUIRE(linear == 6979321856ull);
  QuantOptions o;
  o.linear_bits = 4.125;
  const std::uint64_t gptq = plan_quantization(a, "GPTQ-4bit", o).weights_bytes;
  const std::uint64_t rest = plan_quantization(a, "SAFETENSORS-BF16").weights_bytes - linear * 2;
  CHECK(gptq == 3598712832ull + rest);
  CHECK(rest == Approx(2.0 * 4096 * 128256 * 2 + 65.0 * 4096 * 2).margin(1024));  // tables + norms
}

TEST_CASE("an unknown quantization is an error", "[quantize]") {
  try {
    plan_quantization(wif_test::golden_arch("llama-3.1-8b"), "Q7_K_Z");
    FAIL("expected unknown_quant");
  } catch (const InputError& e) {
    CHECK(e.error().code == "unknown_quant");
    CHECK(e.error().path == "quant");
  }
}

}  // namespace quantize_test_cases
