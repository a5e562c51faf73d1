// Speculative decoding on a model's own MTP layers (speculative.hpp): memory booked, commands,
// the speedup model against the public measurements of data/speculative.json, coded errors.
#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/speed/speculative.hpp"

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;

json glm(bool mtp, const std::string& hw = "apple-m3-ultra-80c-gpu-512gb") {
  json r = {{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", hw}, {"context", 8192}};
  if (mtp) r["mtp"] = true;
  return r;
}

std::uint64_t u(const json& j) { return j.get<std::uint64_t>(); }

const json& spec_doc() {
  const json* d = cat().document("speculative.json");
  REQUIRE(d != nullptr);
  return *d;
}
}  // namespace

TEST_CASE("acceptance rate of k drafted tokens from a per-position acceptance", "[speculative]") {
  CHECK(acceptance_rate(0.9, 1) == Approx(0.9));
  CHECK(acceptance_rate(0.9, 2) == Approx((0.9 + 0.81) / 2));
  CHECK(acceptance_rate(0.8, 3) < acceptance_rate(0.8, 2));  // later positions are accepted less
  SpeculativeCosts free;  // nothing to draft or verify: k accepted tokens are k times faster
  SpeculativeParams none;
  none.overhead_per_draft_token = 0;
  CHECK(speculative_speedup_at_rate(1.0, 3, free, none) == Approx(4.0));
}

TEST_CASE("MTP off: the NextN layer is in the file, not in memory, and no command drafts", "[speculative]") {
  const json r = estimate(glm(false));
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["mtp"]["layers"] == 1);
  CHECK(r["mtp"]["loaded"] == false);
  CHECK(u(r["mtp"]["resident_bytes"]) == 0);
  CHECK(u(r["mtp"]["file_bytes"]) > 1500ull << 20);  // ~1.59 GiB at Q4_K_M
  CHECK_FALSE(r.contains("speculative"));
  CHECK(r["commands"]["llama_server"].get<std::string>().find("draft-mtp") == std::string::npos);
}

TEST_CASE("MTP on (llama.cpp): the layer's weights and one layer's cache are added, exactly", "[speculative]") {
  const json off = estimate(glm(false)), on = estimate(glm(true));
  REQUIRE_FALSE(on.contains("error"));
  const auto& a = off["memory"];
  const auto& b = on["memory"];
  const std::uint64_t w = u(on["mtp"]["file_bytes"]);
  // GLM-4.5-Air: 8 KV heads x 128 x (K + V) x f16 = 4096 bytes per token for one layer.
  const std::uint64_t kv = 4096ull * u(on["settings"]["context"]);
  CHECK(on["mtp"]["loaded"] == true);
  CHECK(u(on["mtp"]["resident_bytes"]) == w);
  CHECK(u(b["weights_bytes"]) == u(a["weights_bytes"]) + w);
  CHECK(u(b["kv_cache_bytes"]) == u(a["kv_cache_bytes"]) + kv);
  CHECK(u(b["total_bytes"]) == u(a["total_bytes"]) + w + kv);
  CHECK(u(b["overhead_bytes"]) == u(a["overhead_bytes"]));
  CHECK(u(b["total_bytes"]) == u(b["weights_bytes"]) + u(b["kv_cache_bytes"]) + u(b["compute_bytes"]) + u(b["overhead_bytes"]));
  const json& s = on["speculative"];
  CHECK(s["kind"] == "mtp");
  CHECK(s["draft_max"] == 1);
  CHECK(u(s["weights_bytes"]) == w);
  CHECK(u(s["kv_bytes"]) == kv);
  CHECK(on["commands"]["llama_server"].get<std::string>().find(" --spec-type draft-mtp --spec-draft-n-max 1") != std::string::npos);
  CHECK_FALSE(on["commands"].contains("ollama"));  // Ollama cannot draft with the MTP layer
}

TEST_CASE("MTP speedup: code above prose, the decode range is plain decode times the speedup", "[speculative]") {
  const json r = estimate(glm(true));
  const json& w = r["speculative"]["workloads"];
  REQUIRE(w.size() == 2);
  const json& code = w[0]["workload"] == "code" ? w[0] : w[1];
  const json& prose = w[0]["workload"] == "code" ? w[1] : w[0];
  CHECK(code["speedup_low"].get<double>() > prose["speedup_low"].get<double>());
  CHECK(code["speedup_high"].get<double>() > code["speedup_low"].get<double>());
  // GLM-4.5-Air drafting one token: llama.cpp PR #26534 measured ~1.17-1.20x.
  CHECK(code["speedup_low"].get<double>() > 1.05);
  CHECK(code["speedup_high"].get<double>() < 1.35);
  CHECK(code["decode_tps_low"].get<double>() == Approx(r["speed"]["decode_tps_low"].get<double>() * code["speedup_low"].get<double>()));
  CHECK(code["decode_tps_high"].get<double>() == Approx(r["speed"]["decode_tps_high"].get<double>() * code["speedup_high"].get<double>()));
  json k3 = glm(true);
  k3["draft_max"] = 3;
  const json r3 = estimate(k3);
  CHECK(r3["speculative"]["draft_max"] == 3);
  CHECK(r3["commands"]["llama_server"].get<std::string>().find("--spec-draft-n-max 3") != std::string::npos);
  CHECK(r3["speculative"]["workloads"][0]["acceptance_low"].get<double>() < w[0]["acceptance_low"].get<double>());
}

TEST_CASE("the speedup model reproduces the fitted measurements and brackets the held-out one", "[speculative]") {
  const SpeculativeParams sp = speculative_params(cat());
  const json& d = spec_doc();
  CHECK(sp.overhead_per_draft_token == Approx(d["overhead_per_draft_token"].get<double>()));
  int fitted = 0, held = 0;
  for (const auto& row : d["measurements"]) {
    INFO(row["row_id"].get<std::string>());
    CHECK(row.contains("source"));
    CHECK(row.contains("checked"));
    if (row.value("outside_model", false)) continue;
    SpeculativeCosts c;
    c.draft_cost = row["draft_cost"].get<double>();
    c.routed_share = row["routed_expert_share"].get<double>();
    const int k = row["draft_max"].get<int>();
    if (row["fitted"].get<bool>()) {
      CHECK(speculative_speedup_at_rate(row["acceptance_rate"].get<double>(), k, c, sp) ==
            Approx(row["speedup"].get<double>()).epsilon(0.05));
      ++fitted;
    } else {
      const double lo = speculative_speedup_at_rate(row["acceptance_rate_range"][0].get<double>(), k, c, sp);
      const double hi = speculative_speedup_at_rate(row["acceptance_rate_range"][1].get<double>(), k, c, sp);
      CHECK(lo <= row["speedup_range"][0].get<double>());
      CHECK(hi >= row["speedup_range"][1].get<double>());
      ++held;
    }
  }
  CHECK(fitted == 2);
  CHECK(held == 1);
}

TEST_CASE("the GLM-4.5-Air row's draft cost and expert share are what the core computes", "[speculative]") {
  const ModelEntry* m = cat().find_model("zai-org/GLM-4.5-Air");
  REQUIRE(m != nullptr);
  const TensorPlan plan = plan_quantization(m->arch, "Q4_K_M");
  const SpeculativeCosts c = mtp_costs(m->arch, plan);
  for (const auto& row : spec_doc()["measurements"])
    if (row["row_id"] == "spec-0002") {
      CHECK(c.draft_cost == Approx(row["draft_cost"].get<double>()).margin(0.01));
      CHECK(c.routed_share == Approx(row["routed_expert_share"].get<double>()).margin(0.02));
    }
}

TEST_CASE("vLLM and SGLang with MTP: the layer on every rank and the drafting flags", "[speculative]") {
  json req = {{"model", "zai-org/GLM-4.5-Air"}, {"hardware", "nvidia-h100-sxm"}, {"count", 4}, {"engine", "vllm"}, {"context", 32768}};
  const json off = estimate(req);
  req["mtp"] = true;
  const json on = estimate(req);
  REQUIRE_FALSE(on.contains("error"));
  CHECK(u(on["vllm"]["per_gpu"]["weights_bytes"]) > u(off["vllm"]["per_gpu"]["weights_bytes"]));
  CHECK(u(on["vllm"]["kv_bytes_per_token"]) > u(off["vllm"]["kv_bytes_per_token"]));
  CHECK(on["commands"]["vllm"].get<std::string>().find("--speculative-config.method mtp --speculative-config.num_speculative_tokens 1") != std::string::npos);
  req["engine"] = "sglang";
  const json sg = estimate(req);
  REQUIRE_FALSE(sg.contains("error"));
  CHECK(sg["commands"]["sglang"].get<std::string>().find("--speculative-algorithm EAGLE --speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2") != std::string::npos);
}

TEST_CASE("MTP on a model without MTP layers, or a bad workload, is a coded error", "[speculative]") {
  const json r = estimate({{"model", "Qwen/Qwen3-8B"}, {"hardware", "nvidia-rtx-4090"}, {"mtp", true}});
  REQUIRE(r.contains("error"));
  CHECK(r["error"]["code"] == "no_mtp_layers");
  CHECK(r["error"]["path"] == "mtp");
  json bad = glm(true);
  bad["workload"] = "poetry";
  CHECK(estimate(bad)["error"]["code"] == "bad_value");
  bad = glm(true);
  bad["draft_max"] = 0;
  CHECK(estimate(bad)["error"]["path"] == "draft_max");
}
