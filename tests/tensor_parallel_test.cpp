// Tensor-parallel decode of vLLM / SGLang (tensor_parallel.hpp, engine_fit.hpp server_decode_speed):
// decode rises with the number of GPUs as each rank reads 1/TP of the weights, stays under the
// bandwidth bound, gains less over PCIe than over NVLink, and stays within the stated error of the
// public single-request runs of data/tensor_parallel.json (fitted rows and held-out rows).
#include <catch2/catch.hpp>

#include <cmath>

#include "test_util.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/speed/tensor_parallel.hpp"

namespace tensor_parallel_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;

json server(const std::string& model, const std::string& hw, int count, const std::string& engine = "vllm",
            const std::string& quant = "", int context = 8192) {
  json r = {{"model", model}, {"hardware", hw}, {"count", count}, {"engine", engine}, {"context", context}};
  if (!quant.empty()) r["quant"] = quant;
  return r;
}

double decode(const json& r) {
  REQUIRE_FALSE(r.contains("error"));
  REQUIRE(r.contains("speed"));
  return r["speed"]["decode_tps"].get<double>();
}

const json& tp_doc() {
  const json* d = cat().document("tensor_parallel.json");
  REQUIRE(d != nullptr);
  return *d;
}

// The bandwidth bound of one GPU for a model: its weights once per token at the device's peak.
double bound_tps(const json& r) {
  const double weights = r["memory"]["weights_bytes"].get<double>();
  return r["hardware"]["bandwidth_gbs"].get<double>() * 1e9 / weights;
}
}  // namespace

TEST_CASE("70B BF16 under vLLM: 4 H100 SXM decode faster than 2, both under the bandwidth bound times TP", "[tensor_parallel]") {
  const std::string m = "meta-llama/Llama-3.1-70B-Instruct";
  const json two = estimate(server(m, "nvidia-h100-sxm", 2)), four = estimate(server(m, "nvidia-h100-sxm", 4));
  const double t2 = decode(two), t4 = decode(four);
  CHECK(t4 > 1.4 * t2);                 // each rank reads half as much
  CHECK(t4 < 2.0 * t2);                 // but the fixed and all-reduce costs do not halve
  CHECK(t2 < bound_tps(two) * 2);       // weights_bytes is the whole model (every rank summed)
  CHECK(t4 < bound_tps(four) * 4);
  CHECK(two["speed"]["decode_label"] == "tensor_parallel");
  CHECK(four["speed"]["basis"]["tensor_parallel"]["link"] == "nvlink");
  CHECK(four["speed"]["basis"]["tensor_parallel"]["allreduces_per_token"] == 160);  // 2 x 80 layers
  CHECK(four["speed"]["decode_tps_low"].get<double>() < t4);
  CHECK(four["speed"]["decode_tps_high"].get<double>() > t4);
  // The throughput curve at one request is the same step.
  CHECK(four["vllm"]["throughput"]["curve"]["per_user_tps"][0].get<double>() == Approx(t4).epsilon(0.05));
  CHECK(four["vllm"]["throughput"]["terms"]["allreduce_ms"].get<double>() > 0);
}

TEST_CASE("8B under vLLM and SGLang rises from 1 to 2 to 4 H100 and saturates by 8", "[tensor_parallel]") {
  for (const char* engine : {"vllm", "sglang"}) {
    const std::string m = "meta-llama/Llama-3.1-8B-Instruct";
    const double t1 = decode(estimate(server(m, "nvidia-h100-sxm", 1, engine)));
    const double t2 = decode(estimate(server(m, "nvidia-h100-sxm", 2, engine)));
    const double t4 = decode(estimate(server(m, "nvidia-h100-sxm", 4, engine)));
    const double t8 = decode(estimate(server(m, "nvidia-h100-sxm", 8, engine)));
    INFO(engine << " " << t1 << " " << t2 << " " << t4 << " " << t8);
    CHECK(t2 > 1.3 * t1);
    CHECK(t4 > t2);
    CHECK(t8 < 1.3 * t4);  // per-layer costs dominate once each rank reads 2 GB
  }
}

TEST_CASE("a PCIe card gains less from tensor parallelism than an NVLink part", "[tensor_parallel]") {
  // Same model, 2 -> 4 GPUs: the all-reduce over PCIe costs tens of microseconds, over NVLink a few.
  const std::string m = "meta-llama/Llama-3.1-70B-Instruct";
  const double nv2 = decode(estimate(server(m, "nvidia-h100-sxm", 2))), nv4 = decode(estimate(server(m, "nvidia-h100-sxm", 4)));
  const double pc2 = decode(estimate(server(m, "nvidia-l40s", 2, "vllm", "FP8"))),
               pc4 = decode(estimate(server(m, "nvidia-l40s", 4, "vllm", "FP8")));
  CHECK(pc4 > pc2);
  CHECK(pc4 / pc2 < nv4 / nv2);
  // The links as named: SXM boards share an NVLink domain; L40S and GeForce cards use PCIe;
  // PCIe cards with pair bridges use NVLink for two ranks only.
  auto dev = [](const char* id) { return *cat().find_device(id); };
  CHECK(tp_link(dev("nvidia-h100-sxm"), 8) == "nvlink");
  CHECK(tp_link(dev("nvidia-l40s"), 4) == "pcie");
  CHECK(tp_link(dev("nvidia-rtx-4090"), 2) == "pcie");
  CHECK(tp_link(dev("nvidia-h100-pcie"), 2) == "nvlink");
  CHECK(tp_link(dev("nvidia-h100-pcie"), 4) == "pcie");
  CHECK(tp_link(dev("nvidia-h100-sxm"), 1) == "none");
}

TEST_CASE("llama.cpp across GPUs keeps its layer split (no tensor-parallel label)", "[tensor_parallel]") {
  const json r = estimate(server("meta-llama/Llama-3.1-8B-Instruct", "nvidia-h100-sxm", 2, "llama.cpp", "Q4_K_M"));
  REQUIRE(r.contains("speed"));
  CHECK(r["speed"]["decode_label"] != "tensor_parallel");
  CHECK_FALSE(r["speed"]["basis"].contains("tensor_parallel"));
}

TEST_CASE("the public single-request runs: fitted rows within 3%, held-out rows within the stated error and range", "[tensor_parallel]") {
  const json& doc = tp_doc();
  const double low = doc["range"]["low"].get<double>(), high = doc["range"]["high"].get<double>();
  const double stated = doc["range"]["held_out_max_error"].get<double>();
  int fitted = 0, held = 0;
  double worst_held = 0;
  for (const auto& m : doc["measurements"]) {
    INFO(m["row_id"].get<std::string>());
    REQUIRE(m.contains("source"));
    REQUIRE(m["checked"] == "2026-12-04");
    const json r = estimate(server(m["model"], m["device"], m["count"], m["engine"], m["quant"], m["context"]));
    const double pred = decode(r), meas = m["tps"].get<double>();
    const double ratio = meas / pred;
    INFO("measured " << meas << " predicted " << pred);
    CHECK(ratio >= low);
    CHECK(ratio <= high);
    // A measured row of this model, format, device and count is named next to the figure.
    if (m["count"].get<int>() > 1) {
      CHECK(r["speed"]["decode_label"] == "measured");
      CHECK(r["speed"]["basis"]["measured"][0]["row_id"] == m["row_id"]);
    }
    if (m["fitted"].get<bool>()) {
      ++fitted;
      CHECK(std::fabs(ratio - 1) < 0.03);
    } else {
      ++held;
      worst_held = std::max(worst_held, std::fabs(ratio - 1));
    }
  }
  CHECK(fitted >= 3);
  CHECK(held >= 4);
  // The error the data file states is the one the rows give (to half a point).
  CHECK(worst_held == Approx(stated).margin(0.005));
}

TEST_CASE("MoE under vLLM keeps the layer-split figure and its label (no MoE row to check a TP step)", "[tensor_parallel]") {
  const json r = estimate(server("deepseek-ai/DeepSeek-V3-0324", "nvidia-h200-sxm", 8, "vllm", "", 32768));
  REQUIRE(r.contains("speed"));
  CHECK(r["speed"]["decode_label"] != "tensor_parallel");
  CHECK_FALSE(r["speed"]["basis"].contains("tensor_parallel"));
}

TEST_CASE("the tensor-parallel step by part: shares add to one, the bound is the largest part, the total is the step", "[tensor_parallel][step]") {
  for (int n : {2, 4, 8}) {
    const json r = estimate(server("meta-llama/Meta-Llama-3-8B", "nvidia-h100-sxm", n, "vllm", "SAFETENSORS-BF16"));
    REQUIRE_FALSE(r.contains("error"));
    const json& st = r["speed"]["basis"]["tensor_parallel"]["step"];
    CAPTURE(n, st.dump());
    double sum = 0, most = 0;
    std::string largest;
    for (const auto& [k, v] : st["share"].items()) {
      sum += v.get<double>();
      if (st["ms"][k].get<double>() > most) { most = st["ms"][k].get<double>(); largest = k; }
    }
    CHECK_THAT(sum, Catch::Matchers::WithinRel(1.0, 1e-9));
    CHECK(st["bound"] == largest);
    CHECK_THAT(st["total_ms"].get<double>(), Catch::Matchers::WithinRel(r["speed"]["terms"]["decode_step_ms"].get<double>(), 1e-9));
    CHECK_THAT(st["ms"]["allreduce"].get<double>(),
               Catch::Matchers::WithinRel(r["speed"]["basis"]["tensor_parallel"]["allreduce_ms"].get<double>(), 1e-9));
  }
  // 8B over 8 H100: each rank reads 1/8 of 16 GB in well under a millisecond, so the per-layer
  // launches, not the reads, take most of the step: the sentence must not say "bandwidth".
  const json r8 = estimate(server("meta-llama/Meta-Llama-3-8B", "nvidia-h100-sxm", 8, "vllm", "SAFETENSORS-BF16"));
  CHECK(r8["speed"]["basis"]["tensor_parallel"]["step"]["bound"] == "overhead");
  CHECK(r8["speed"]["basis"]["tensor_parallel"]["step"]["share"]["weights"].get<double>() < 0.5);
}

TEST_CASE("a published run of the exact setup: the headline stays the estimate, with the run and the difference beside it", "[tensor_parallel][measured]") {
  const json r = estimate(server("meta-llama/Meta-Llama-3-8B", "nvidia-h100-sxm", 4, "vllm", "SAFETENSORS-BF16"));
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["speed"]["decode_label"] == "measured");
  const json& dm = r["speed"]["decode_measured"];
  CHECK(dm["measured_tps"] == 260.4);  // data/tensor_parallel.json lambda-h100-llama3-8b-tp4
  CHECK(dm["estimate_tps"] == r["speed"]["decode_tps"]);
  CHECK_THAT(dm["difference"].get<double>(), Catch::Matchers::WithinRel(r["speed"]["decode_tps"].get<double>() / 260.4 - 1, 1e-12));
  CHECK(dm["row_id"] == "lambda-h100-llama3-8b-tp4");
  // No published run of the setup: no comparison.
  const json o = estimate(server("meta-llama/Meta-Llama-3-8B", "nvidia-h100-sxm", 2, "vllm", "SAFETENSORS-BF16"));
  CHECK_FALSE(o["speed"].contains("decode_measured"));
}

}  // namespace tensor_parallel_test_cases
