#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/servers/sglang.hpp"

namespace sglang_test_cases {

using namespace wif;
using nlohmann::json;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;
const Architecture& arch(const char* id) { return wif_test::catalog_arch(id); }
json row(const char* id) {
  for (const auto& r : wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/vllm_memory.jsonl"))
    if (r["row_id"] == id) return r;
  FAIL("row " << id << " missing");
  return json{};
}
}  // namespace

TEST_CASE("SGLang's static fraction follows its server_args rule for the GPU's memory", "[sglang]") {
  // gpu MiB, TP -> chunked prefill, graph batch, fraction, worked by hand from sglang.hpp's rule:
  // reserved = 512 + max(chunk, 2048) x 1.5 + graph_bs x 2 + TP / 8 x 1024 (>= 10240 above 60 GiB).
  struct Row { double mib; int tp; std::int64_t chunk; int bs; double frac; };
  const Row rows[] = {
      {16 * 1024, 1, 2048, 8, 0.772},        // (16384 - 3728) / 16384
      {24576, 1, 2048, 24, 0.847},           // (24576 - 3760) / 24576: RTX 4090
      {24576, 4, 2048, 80, 0.827},           // (24576 - 4256) / 24576
      {49152, 1, 4096, 32, 0.861},           // (49152 - 6848) / 49152: L40S
      {81920, 1, 8192, 256, 0.836},          // (81920 - 13440) / 81920: H100
      {144384, 8, 8192, 512, 0.897},         // (144384 - 14848) / 144384: H200 at TP 8
      {184320, 1, 16384, 512, 0.858},        // (184320 - 26240) / 184320: B200
  };
  for (const auto& r : rows) {
    CAPTURE(r.mib, r.tp);
    const SglangDefaults d = sglang_defaults(r.mib, r.tp);
    CHECK(d.chunked_prefill_size == r.chunk);
    CHECK(d.cuda_graph_max_bs == r.bs);
    CHECK_THAT(d.mem_fraction_static, WithinAbs(r.frac, 1e-9));
  }
  CHECK(sglang_defaults(0, 1).mem_fraction_static == 0.88);  // memory unknown: the fallback
}

TEST_CASE("SGLang's KV pool is the static fraction of free memory less the weights, unlike vLLM's budget", "[sglang]") {
  const Architecture& a = arch("meta-llama/Llama-3.1-8B-Instruct");
  const TensorPlan plan = plan_quantization(a, "SAFETENSORS-BF16");
  const Device* d = cat().find_device("nvidia-rtx-4090");
  REQUIRE(d);
  const double usable = usable_memory(*d).usable_bytes / wif_test::kGiB;
  SglangOptions o;
  o.context_length = 8192;
  double frac = 0;
  const VllmBudget s = sglang_budget(a, plan, usable, d->memory_gib, o, &frac);
  CHECK_THAT(frac, WithinAbs(0.847, 1e-9));
  const double free_before = (usable - o.cuda_context_gib) * wif_test::kGiB;
  CHECK_THAT(static_cast<double>(s.kv_available_bytes), WithinRel(free_before * frac - static_cast<double>(s.weights_bytes), 1e-6));
  // One token per page: the pool divided by the per-token cell (32 layers x 8 KV heads x 128 x 2 x 2 B).
  CHECK(s.kv_bytes_per_token == 32u * 8 * 128 * 2 * 2);
  CHECK(s.kv_tokens == static_cast<std::int64_t>(static_cast<double>(s.kv_available_bytes) / (32.0 * 8 * 128 * 2 * 2)));
  CHECK(s.block_size == 1);
  CHECK(s.max_num_batched_tokens == 2048);
  // max_running_requests, unset: min(max(tokens / context x 512, 2048), 4096).
  const auto expect_seqs = std::min<std::int64_t>(std::max<std::int64_t>(s.kv_tokens * 512 / 8192, 2048), 4096);
  CHECK(s.max_num_seqs == expect_seqs);
  VllmOptions v;
  v.max_model_len = 8192;
  const VllmBudget vb = vllm_budget(a, plan, usable, v);
  CHECK(vb.weights_bytes == s.weights_bytes);
  // vLLM keeps 0.92 of the whole card less a profiled activation peak; SGLang 0.847 of what is
  // free, with activations in the rest: their pools differ by what the two rules set aside.
  const double vllm_expected = std::ceil(usable * wif_test::kGiB * 0.92) - static_cast<double>(vb.weights_bytes) -
                               static_cast<double>(vb.activation_bytes) - static_cast<double>(vb.non_torch_bytes);
  CHECK_THAT(static_cast<double>(vb.kv_available_bytes), WithinRel(vllm_expected, 1e-6));
  const double diff = static_cast<double>(vb.kv_available_bytes - s.kv_available_bytes);
  CHECK_THAT(diff, WithinRel(usable * wif_test::kGiB * 0.92 - free_before * frac - static_cast<double>(vb.activation_bytes + vb.non_torch_bytes), 1e-5));
  CHECK(s.kv_available_bytes < vb.kv_available_bytes);  // 0.847 of free < 0.92 of total less ~1.5 GiB
}

TEST_CASE("the SGLang pool rule reproduces the calibration rows vllm-0014 and vllm-0015", "[sglang][calibration]") {
  {  // DeepSeek-V4-Pro on 8x H200: 125.65 GB weights, 12.25 GB free after load; 0.88 leaves no pool.
    const json r = row("vllm-0014");
    const double w = r["model_weights_gb"].get<double>() * wif_test::kGiB;
    const double before = w + r["avail_mem_after_load_gb"].get<double>() * wif_test::kGiB;
    CHECK(sglang_kv_pool_bytes(before, w, r["mem_fraction_static"].get<double>()) < 0);
    const double min_frac = r["min_viable_mem_fraction_static"]["non-MTP"].get<double>();
    CHECK(sglang_kv_pool_bytes(before, w, min_frac) > 0);
    CHECK(sglang_kv_pool_bytes(before, w, min_frac - 0.001) < 0);  // the row's minimum is tight
  }
  {  // Qwen3-30B-A3B bf16, fraction 0.911: the pool less the AITER workspace holds the logged tokens.
    const json r = row("vllm-0015");
    const double w = r["model_weights_gb"].get<double>() * wif_test::kGiB;
    const double before = w + r["avail_mem_after_load_gb"].get<double>() * wif_test::kGiB;
    const double pool = sglang_kv_pool_bytes(before, w, r["mem_fraction_static"].get<double>()) -
                        r["aiter_workspace_gb"].get<double>() * wif_test::kGiB;
    const Architecture& a = arch("Qwen/Qwen3-30B-A3B");
    SglangOptions o;
    o.context_length = 32768;
    const VllmBudget b = sglang_budget(a, plan_quantization(a, "SAFETENSORS-BF16"), 300, 300, o);
    const double predicted = pool / static_cast<double>(b.kv_bytes_per_token);
    const double measured = r["kv_cache_tokens"].get<double>();
    std::printf("  vllm-0015 SGLang Qwen3-30B-A3B tokens: measured %.0f predicted %.0f error %+.2f%%\n", measured,
                predicted, 100 * (predicted - measured) / measured);
    CHECK(std::abs(predicted - measured) / measured < 0.10);
  }
}

TEST_CASE("engine sglang gives SGLang's budget and a launch command that carries it", "[sglang]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "sglang"},
                           {"hardware", "nvidia-rtx-4090"}, {"context", 8192}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["verdict"] == "fits");
  CHECK_FALSE(r.contains("vllm"));  // SGLang's budget under its own key
  const auto& v = r["sglang"];
  CHECK(v["engine"] == "sglang");
  CHECK_THAT(v["settings"]["mem_fraction_static"].get<double>(), WithinAbs(0.847, 1e-9));
  CHECK(r["commands"].count("vllm") == 0);
  const std::string cmd = r["commands"]["sglang"];
  CAPTURE(cmd);
  std::istringstream in(cmd);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  REQUIRE(w.size() > 4);
  CHECK(w[0] == "python3");
  CHECK(w[1] == "-m");
  CHECK(w[2] == "sglang.launch_server");
  std::map<std::string, std::string> f;
  const std::set<std::string> known = {"--model-path", "--tp", "--context-length", "--mem-fraction-static",
                                       "--kv-cache-dtype", "--max-running-requests", "--chunked-prefill-size", "--quantization"};
  for (std::size_t i = 3; i < w.size(); i += 2) {
    CAPTURE(w[i]);
    REQUIRE(known.count(w[i]) == 1);
    REQUIRE(i + 1 < w.size());
    REQUIRE(f.count(w[i]) == 0);
    f[w[i]] = w[i + 1];
  }
  CHECK(f.at("--model-path") == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(std::stoi(f.at("--tp")) == 1);
  CHECK(std::stoll(f.at("--context-length")) == v["settings"]["max_model_len"].get<long long>());
  CHECK(std::stod(f.at("--mem-fraction-static")) == Approx(0.847));
  CHECK(std::stoll(f.at("--chunked-prefill-size")) == v["settings"]["max_num_batched_tokens"].get<long long>());
  CHECK(std::stoll(f.at("--max-running-requests")) == v["settings"]["max_num_seqs"].get<long long>());
  // A fraction the person sets replaces the default.
  const json g = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "sglang"},
                           {"hardware", "nvidia-rtx-4090"}, {"context", 8192}, {"mem_fraction_static", 0.8}});
  CHECK(g["sglang"]["settings"]["mem_fraction_static"] == 0.8);
  CHECK(g["sglang"]["kv_tokens"].get<double>() < v["kv_tokens"].get<double>());
}

// SGLang's --mem-fraction-static is the usable memory itself: its share reads as all of it, and
// the core says so as a code rather than leaving a page to print "23.65 of 23.65 GiB".
TEST_CASE("an engine share that reads as the whole usable memory carries reserved_code all_usable", "[sglang][decisions]") {
  const json q = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-rtx-4090"}, {"engine", "sglang"}, {"context", 8192}};
  const json r = json::parse(wif::api_estimate(wif_test::catalog(), q.dump()));
  INFO(r["memory"].dump());
  const double reserved = r["memory"]["reserved_bytes"].get<double>(), usable = r["memory"]["usable_bytes"].get<double>();
  REQUIRE(std::llround(reserved / 1073741824.0 * 100) == std::llround(usable / 1073741824.0 * 100));
  CHECK(r["memory"]["reserved_code"] == "all_usable");
  // vLLM's share of a 24 GB card is its utilization's, and the page says it as a figure.
  json v = q;
  v["engine"] = "vllm";
  const json rv = json::parse(wif::api_estimate(wif_test::catalog(), v.dump()));
  INFO(rv["memory"].dump());
  const bool same = std::llround(rv["memory"]["reserved_bytes"].get<double>() / 1073741824.0 * 100) ==
                    std::llround(rv["memory"]["usable_bytes"].get<double>() / 1073741824.0 * 100);
  CHECK(rv["memory"].contains("reserved_code") == same);
}

}  // namespace sglang_test_cases
