// Our memory terms against llama.cpp's own load logs (data/measurements/llamacpp_buffers.jsonl).
// Each case names its row; the bar is 5% or 256 MiB per term.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "test_util.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/llamacpp/compute_buffer.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/quantize.hpp"

namespace calibration_buffers_test_cases {

using namespace wif;

namespace {
const Architecture& arch(const std::string& id) {
  const Catalog& cat = wif_test::catalog();
  const ModelEntry* m = cat.find_model(id);
  if (!m) throw std::runtime_error("catalog lacks " + id);
  return m->arch;
}
double mib(std::uint64_t b) { return static_cast<double>(b) / wif_test::kMiB; }
void near(const char* row, const char* term, double got, double want) {
  const double err = got - want;
  std::printf("  %s %-22s log %9.2f MiB  ours %9.2f MiB  (%+.1f%%)\n", row, term, want, got, 100 * err / want);
  CAPTURE(row, term, want, got);
  CHECK((std::fabs(err) <= 0.05 * want || std::fabs(err) <= 256.0));
}
}  // namespace

TEST_CASE("Llama-3-8B Q4_K_M on CUDA matches its load log term by term (buf-0001)", "[calibration]") {
  const Architecture& a = arch("meta-llama/Meta-Llama-3-8B");
  const TensorPlan p = plan_quantization(a, "Q4_K_M");
  std::uint64_t embd = 0;
  for (const auto& t : p.tensors)
    if (t.role == TensorRole::TokenEmbd) embd = t.bytes;
  near("buf-0001", "model buffer CPU", mib(embd), 281.81);
  near("buf-0001", "model buffer CUDA0", mib(p.weights_bytes - embd), 4403.49);
  CHECK(std::fabs(mib(p.weights_bytes - embd) - 4403.49) < 0.01 * 4403.49);  // tighter: exact shapes
  KvOptions o;
  o.n_ctx = 512;
  o.flash_attn = false;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(mib(kv.total_bytes) == Approx(64.0));
  near("buf-0001", "compute buffer CUDA0", mib(llamacpp_compute_buffer(a, kv, 512, false, 1).total_bytes), 258.5);
}

TEST_CASE("small models on CPU: KV and compute buffers match their logs", "[calibration]") {
  struct Row { const char* row; const char* id; std::int64_t ctx; bool fa; double kv, compute; };
  auto r = GENERATE(values<Row>({
      {"buf-0003", "meta-llama/Llama-3.2-1B-Instruct", 1024, true, 32.0, 254.5},
      {"buf-0004", "Qwen/Qwen3-1.7B", 1024, true, 112.0, 300.75},
      {"buf-0005", "meta-llama/Llama-3.2-1B-Instruct", 4096, false, 128.0, 280.01},
  }));
  const Architecture& a = arch(r.id);
  KvOptions o;
  o.n_ctx = r.ctx;
  o.flash_attn = r.fa;
  const KvCache kv = llamacpp_kv_cache(a, o);
  CHECK(mib(kv.total_bytes) == Approx(r.kv));
  near(r.row, "compute buffer", mib(llamacpp_compute_buffer(a, kv, 512, r.fa, 1).total_bytes), r.compute);
}

TEST_CASE("gpt-oss-120b's split caches match Ollama's log with two unshared sequences (buf-0038)", "[calibration]") {
  KvOptions o;
  o.n_ctx = 262144;
  o.n_seq = 2;
  o.unified = false;
  o.n_ubatch = 1024;
  const KvCache kv = llamacpp_kv_cache(arch("openai/gpt-oss-120b"), o);
  for (const auto& g : kv.groups) {
    if (g.kind == "full") {
      CHECK(g.cells == 131072);
      CHECK(mib(g.bytes) == Approx(9216.0));
    } else {
      CHECK(g.cells == 1280);
      CHECK(mib(g.bytes) == Approx(90.0));
    }
  }
  // buf-0039: an older build padded to 32 cells (2016 + 640); ours pads to 256 as llama.cpp does
  // since Nov 2025 (PR #17046), which stays within the bar.
  KvOptions o2;
  o2.n_ctx = 2000;
  o2.flash_attn = false;
  near("buf-0039", "KV (full + SWA)", mib(llamacpp_kv_cache(arch("openai/gpt-oss-120b"), o2).total_bytes), 70.88 + 22.5);
}

}  // namespace calibration_buffers_test_cases
