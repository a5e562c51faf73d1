// gguf/write.cpp's per-expert layout (gguf_split_experts), and the reader's handling of it: the
// tensors a GGUF of the older llama.cpp layout holds must count as routed experts, so the
// estimate of such a file is the estimate of the same model with expert stacks.
#include <catch2/catch.hpp>
#include <set>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/model/quantize.hpp"

namespace gguf_write_test_cases {

using namespace wif;
using nlohmann::json;

namespace {

const ModelEntry& mixtral() {
  const ModelEntry* m = wif_test::catalog().find_model("mistralai/Mixtral-8x7B-Instruct-v0.1");
  REQUIRE(m != nullptr);
  return *m;
}

std::uint64_t expert_bytes(const std::vector<Tensor>& ts) {
  std::uint64_t b = 0;
  for (const auto& t : ts)
    if (t.is_expert()) b += t.bytes;
  return b;
}

}  // namespace

TEST_CASE("splitting expert stacks gives one 2-D tensor per expert, named as llama.cpp's older layout, with the same bytes", "[gguf]") {
  const Architecture& a = mixtral().arch;
  const TensorPlan plan = plan_quantization(a, "Q4_K_M");
  const auto split = gguf_split_experts(plan.tensors);
  std::size_t stacks = 0;
  for (const auto& t : plan.tensors) stacks += t.is_expert() && t.n_dims == 3;
  REQUIRE(stacks == 32 * 3);
  CHECK(split.size() == plan.tensors.size() - stacks + stacks * 8);
  CHECK(expert_bytes(split) == expert_bytes(plan.tensors));
  std::set<std::string> names;
  for (const auto& t : split) {
    names.insert(t.name);
    CHECK(t.name.find("_exps") == std::string::npos);
    if (!t.is_expert()) continue;
    CHECK(t.n_dims == 2);
    CHECK(t.ne[2] == 1);
    CHECK(t.bytes == ggml_row_bytes(t.type, static_cast<std::uint64_t>(t.ne[0])) * static_cast<std::uint64_t>(t.ne[1]));
  }
  CHECK(names.size() == split.size());
  for (const char* n : {"blk.0.ffn_gate.0.weight", "blk.0.ffn_up.7.weight", "blk.31.ffn_down.7.weight", "blk.5.ffn_gate_inp.weight"})
    CHECK(names.count(n) == 1);
  // Everything that is not an expert stack keeps its place in the order.
  std::vector<std::string> rest_before, rest_after;
  for (const auto& t : plan.tensors)
    if (!t.is_expert()) rest_before.push_back(t.name);
  for (const auto& t : split)
    if (!t.is_expert()) rest_after.push_back(t.name);
  CHECK(rest_before == rest_after);
}

TEST_CASE("a header with one tensor per expert is read as routed experts, not dense FFN weights", "[gguf]") {
  const ModelEntry& m = mixtral();
  const TensorPlan plan = plan_quantization(m.arch, "Q4_K_M");
  const auto kv = gguf_metadata_for(m.arch, m.name, plan.quant);
  const GgufHeader stacked = parse_gguf_header(write_gguf_header(kv, plan.tensors));
  const GgufHeader split = parse_gguf_header(write_gguf_header(kv, gguf_split_experts(plan.tensors)));
  REQUIRE(split.tensors.size() == stacked.tensors.size() + 32 * 3 * 7);
  const TensorPlan a = gguf_tensor_plan(stacked), b = gguf_tensor_plan(split);
  CHECK(b.weights_bytes == a.weights_bytes);
  CHECK(expert_bytes(b.tensors) == expert_bytes(a.tensors));
  CHECK(expert_bytes(b.tensors) > b.weights_bytes / 2);   // Mixtral is mostly experts
  int gate = 0, up = 0, down = 0;
  for (const auto& t : b.tensors) {
    gate += t.role == TensorRole::ExpGate;
    up += t.role == TensorRole::ExpUp;
    down += t.role == TensorRole::ExpDown;
    if (t.name == "blk.4.ffn_gate_inp.weight") CHECK(t.role == TensorRole::Router);
    if (t.is_expert()) CHECK(t.layer >= 0);
  }
  CHECK(gate == 32 * 8);
  CHECK(up == 32 * 8);
  CHECK(down == 32 * 8);
  const Architecture arch = gguf_architecture(split);
  REQUIRE(arch.is_moe());
  for (const auto& L : arch.layers) CHECK(L.ffn == FfnKind::MoE);
  // What the estimator gets is the stacks llama.cpp merges them into at load.
  const auto bytes = write_gguf_header(kv, gguf_split_experts(plan.tensors));
  const GgufModel gm = load_gguf_model(bytes.data(), bytes.size(), "gguf");
  REQUIRE(gm.plan.tensors.size() == a.tensors.size());
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    CAPTURE(a.tensors[i].name);
    CHECK(gm.plan.tensors[i].name == a.tensors[i].name);
    CHECK(gm.plan.tensors[i].ne == a.tensors[i].ne);
    CHECK(gm.plan.tensors[i].bytes == a.tensors[i].bytes);
    CHECK(gm.plan.tensors[i].role == a.tensors[i].role);
  }
}

TEST_CASE("names that only look like per-expert tensors keep their roles", "[gguf]") {
  std::vector<Tensor> ts(5);
  const char* names[] = {"blk.0.ffn_up_shexp.weight", "blk.0.ffn_gate_inp.weight", "blk.0.ffn_down.weight",
                         "blk.0.ffn_up.3.bias", "blk.0.ffn_gate.x.weight"};
  for (int i = 0; i < 5; ++i) {
    ts[i].name = names[i];
    ts[i].ne = {64, 64, 1, 1};
    ts[i].n_dims = 2;
    ts[i].type = GgmlType::F16;
  }
  const TensorPlan p = gguf_tensor_plan(parse_gguf_header(write_gguf_header({}, ts)));
  CHECK(p.tensors[0].role == TensorRole::FfnUp);
  CHECK(p.tensors[1].role == TensorRole::Router);
  CHECK(p.tensors[2].role == TensorRole::FfnDown);
  CHECK(p.tensors[3].role == TensorRole::Bias);
  CHECK(p.tensors[4].role == TensorRole::FfnGate);
}

TEST_CASE("an estimate from a per-expert GGUF equals the estimate from the stacked GGUF of the same model", "[gguf]") {
  const ModelEntry& m = mixtral();
  const TensorPlan plan = plan_quantization(m.arch, "Q4_K_M");
  const auto kv = gguf_metadata_for(m.arch, m.name, plan.quant);
  // Too big for the card alone, so experts are offloaded (--n-cpu-moe) and their role matters.
  const json hw = {{"name", "RTX 4090"}, {"kind", "gpu"}, {"memory_gib", 24}, {"bandwidth_gbs", 1008}, {"backend", "cuda"}};
  auto run = [&](const std::vector<Tensor>& ts) {
    const json req = {{"model", {{"gguf_header_base64", base64_encode(write_gguf_header(kv, ts))}}},
                      {"hardware", hw}, {"ram_gib", 64}, {"context", 8192}};
    return json::parse(api_estimate(wif_test::catalog(), req.dump()));
  };
  const json a = run(plan.tensors), b = run(gguf_split_experts(plan.tensors));
  REQUIRE_FALSE(a.contains("error"));
  REQUIRE_FALSE(b.contains("error"));
  INFO(json::diff(a["memory"], b["memory"]).dump());
  CHECK(b["memory"] == a["memory"]);
  REQUIRE(a.contains("speed"));
  CHECK(a["placement"]["n_cpu_moe"].get<int>() > 0);   // experts offloaded: their role decides it
  CHECK(b["placement"] == a["placement"]);
  CHECK(b["verdict"] == a["verdict"]);
  CHECK(b["speed"] == a["speed"]);
  CHECK(b["model"]["params_total"] == a["model"]["params_total"]);
  CHECK(b["model"]["params_active"] == a["model"]["params_active"]);
}

}  // namespace gguf_write_test_cases
