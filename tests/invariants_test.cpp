// Invariants over the whole catalog: every model, a device of each kind and vendor, every GGUF
// quantization and several contexts. Whatever the inputs, the answer is a set of usable numbers
// (no NaN, Infinity or negative figure), memory never shrinks when the context, the parallel
// sequences or the bits grow, "fits"/"tight" means the total is within usable memory, and the
// same request always gives the same document.
#include <catch2/catch.hpp>

#include "test_util.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "result_checks.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/speed/speed.hpp"

namespace invariants_test_cases {

using namespace wif;

namespace {

const Catalog& catalog() { return wif_test::catalog(); }

// One device per (kind, vendor): the sample keeps the run short but covers every usable-memory
// rule (discrete VRAM, Apple wired limit, unified shares, CPU RAM).
std::vector<const Device*> sample_devices() {
  std::map<std::string, const Device*> pick;
  for (const auto& d : catalog().devices()) pick.emplace(std::string(device_kind_name(d.kind)) + "/" + d.vendor, &d);
  std::vector<const Device*> out;
  for (const auto& [k, d] : pick) out.push_back(d);
  return out;
}

EstimateRequest request(const ModelEntry& m, const Device& d, const std::string& quant, std::int64_t ctx) {
  EstimateRequest r;
  r.model.id = m.id;
  r.model.name = m.name;
  r.model.arch = m.arch;
  // As the API resolves a catalog model: through its entry, so that its tensor plan and
  // parameter count are made once per model and format (catalog_memo.hpp) and not again for
  // each device and context; custom configs take the other path in hf_config_test.cpp.
  r.model.entry = &m;
  r.device = d;
  r.quant = quant;
  r.kv.n_ctx = ctx;
  return r;
}

// Memory must be usable numbers and its terms must add up (a wrapped 64-bit sum would not).
void check_document(const EstimateRequest& r, const Estimate& e, std::size_t& checked) {
  const auto doc = estimate_to_json(r, e);
  const std::string bad = wif_test::first_bad_value(doc);
  // The document is written out only when a check fails: serializing it for every one of the
  // tens of thousands of estimates was most of this file's run time.
  if (!bad.empty()) FAIL(bad << " in " << doc.dump());
  REQUIRE(e.total_bytes == e.weights_bytes + e.kv.total_bytes + e.compute.total_bytes + e.overhead_bytes);
  REQUIRE(e.total_high_bytes >= e.total_bytes);
  const bool within = e.total_bytes <= e.usable.usable_bytes;
  REQUIRE(within == (e.verdict == "fits" || e.verdict == "tight"));
  if (e.verdict == "fits") REQUIRE(static_cast<double>(e.total_high_bytes) <= 0.95 * static_cast<double>(e.usable.usable_bytes));
  ++checked;
}

}  // namespace

TEST_CASE("every catalog model on a device of each kind gives usable, consistent numbers that grow with context and parallel sequences", "[invariants]") {
  const auto devices = sample_devices();
  REQUIRE(devices.size() >= 6);
  std::size_t checked = 0;
  for (const auto& m : catalog().models()) {
    CAPTURE(m.id);
    for (const Device* d : devices) {
      CAPTURE(d->id);
      for (const char* quant : {"Q4_K_M", "Q8_0", "BF16"}) {
        CAPTURE(quant);
        std::uint64_t last = 0;
        for (std::int64_t ctx : {512, 4096, 32768, 131072}) {
          CAPTURE(ctx);
          const auto r = request(m, *d, quant, ctx);
          const auto e = run_estimate(catalog(), r);
          check_document(r, e, checked);
          CHECK(e.total_bytes >= last);
          CHECK(e.kv.total_bytes > 0);
          last = e.total_bytes;
        }
        std::uint64_t last_par = 0;
        for (std::int64_t par : {1, 2, 4, 16}) {
          auto r = request(m, *d, quant, 8192);
          r.kv.n_seq = par;
          const auto e = run_estimate(catalog(), r);
          check_document(r, e, checked);
          CHECK(e.total_bytes >= last_par);
          last_par = e.total_bytes;
        }
      }
    }
  }
  std::printf("invariants: %zu model x device x quant x context/parallel combinations checked (%zu models, %zu devices)\n",
              checked, catalog().models().size(), devices.size());
  CHECK(checked >= catalog().models().size() * devices.size() * 3 * 8);
}

TEST_CASE("every catalog model under every quantization gives usable numbers, and memory grows with the bits", "[invariants]") {
  const Device* gpu = catalog().find_device("nvidia-rtx-4090");
  REQUIRE(gpu);
  // Ladders where each step stores every tensor in at least as many bits as the one before
  // (llama.cpp ftype rules, src/llama-quant.cpp): weights and totals may not shrink along them.
  const std::vector<std::vector<std::string>> ladders = {
      {"Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16", "F32"},
      {"IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ4_XS", "Q5_K_S", "Q8_0"},
      {"Q4_0", "Q5_0", "Q8_0", "BF16"},
  };
  std::size_t checked = 0, quants = 0;
  for (const auto& m : catalog().models()) {
    CAPTURE(m.id);
    std::map<std::string, std::uint64_t> weights;
    for (const auto& q : quant_formats()) {
      CAPTURE(q.id);
      const auto r = request(m, *gpu, q.id, 4096);
      const auto e = run_estimate(catalog(), r);
      check_document(r, e, checked);
      CHECK(e.plan->weights_bytes > 0);
      weights[q.id] = e.plan->weights_bytes;
    }
    quants = weights.size();
    for (const auto& ladder : ladders)
      for (std::size_t i = 1; i < ladder.size(); ++i) {
        CAPTURE(ladder[i - 1], ladder[i]);
        REQUIRE(weights.count(ladder[i]));
        CHECK(weights[ladder[i]] >= weights[ladder[i - 1]]);
      }
    std::uint64_t last_kv = 0;
    for (GgmlType t : {GgmlType::Q4_0, GgmlType::Q8_0, GgmlType::F16, GgmlType::F32}) {
      auto r = request(m, *gpu, "Q4_K_M", 32768);
      r.kv.type_k = r.kv.type_v = t;
      const auto e = run_estimate(catalog(), r);
      check_document(r, e, checked);
      CHECK(e.kv.total_bytes >= last_kv);
      last_kv = e.kv.total_bytes;
    }
  }
  std::printf("invariants: %zu model x quantization / KV type combinations checked (%zu quantizations)\n", checked, quants);
  CHECK(quants >= 30);
}

TEST_CASE("the same request gives the same document every time", "[invariants]") {
  const auto devices = sample_devices();
  std::size_t n = 0;
  for (const auto& m : catalog().models()) {
    const auto r = request(m, *devices[n % devices.size()], n % 2 ? "Q4_K_M" : "IQ3_M", 16384);
    const std::string a = estimate_to_json(r, run_estimate(catalog(), r)).dump();
    const std::string b = estimate_to_json(r, run_estimate(catalog(), r)).dump();
    CHECK(a == b);
    ++n;
  }
  CHECK(n == catalog().models().size());
}

TEST_CASE("over the whole catalog, decode never speeds up as the context fills, and prefill and TTFT are usable", "[invariants][speed]") {
  const SpeedCoefficients k = speed_coefficients(catalog());
  std::vector<const Device*> devices;
  for (const char* id : {"nvidia-rtx-4090", "apple-m3-max-40c-gpu-48gb", "amd-ryzen-ai-max-plus-395-128gb"})
    if (const Device* d = catalog().find_device(id)) devices.push_back(d);
  REQUIRE(devices.size() == 3);
  std::size_t checked = 0;
  for (const auto& m : catalog().models()) {
    CAPTURE(m.id);
    for (const char* quant : {"Q4_K_M", "Q8_0", "BF16"}) {
      CAPTURE(quant);
      const TensorPlan plan = plan_quantization(m.arch, quant);
      for (const Device* d : devices)
        for (bool fa : {true, false}) {
          CAPTURE(d->id, fa);
          KvOptions kv;
          kv.flash_attn = fa;
          double last = 0;
          for (std::int64_t depth : {0, 4096, 16384, 65536}) {
            if (depth > 0 && m.arch.n_ctx_train > 0 && depth > m.arch.n_ctx_train) continue;
            CAPTURE(depth);
            SpeedOptions o;
            o.depth = depth;
            const SpeedResult s = estimate_speed(m.arch, plan, *d, kv, o, k);
            REQUIRE(std::isfinite(s.decode_tps));
            CHECK(s.decode_tps > 0);
            if (depth > 0) CHECK(s.decode_tps <= last);
            last = s.decode_tps;
            REQUIRE(s.prefill_available);
            CHECK(std::isfinite(s.prefill_tps));
            CHECK(s.prefill_tps > 0);
            CHECK(std::isfinite(s.ttft_ms));
            CHECK(s.ttft_ms > 0);
            ++checked;
          }
        }
    }
  }
  std::printf("invariants: %zu model x quant x device x depth speed checks\n", checked);
  CHECK(checked >= catalog().models().size() * 3 * 3 * 2);
}

}  // namespace invariants_test_cases
