#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/llamacpp/placement.hpp"

namespace placement_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;
double gib(const json& v) { return v.get<double>() / wif_test::kGiB; }

struct Fixture {
  Architecture a;
  TensorPlan plan;
  KvOptions kvo;
  KvCache kv;
  std::vector<PlacementDevice> gpus;
  Fixture(const char* model, const char* quant, const char* gpu, int n) {
    a = cat().find_model(model)->arch;
    plan = plan_quantization(a, quant);
    kv = llamacpp_kv_cache(a, kvo);
    const Device* d = cat().find_device(gpu);
    for (int i = 0; i < n; ++i) gpus.push_back({*d, usable_memory(*d).usable_bytes, backend_overhead_bytes(cat(), *d)});
  }
  std::uint64_t loaded_weights() const {
    std::uint64_t w = 0;
    for (const auto& t : plan.tensors)
      if (t.layer < 0 || !a.layers[static_cast<std::size_t>(t.layer)].is_mtp) w += t.bytes;
    return w;
  }
};
}  // namespace

TEST_CASE("GLM-4.5-Air Q4_K_M on one 24 GB GPU with 64 GB RAM moves early experts to the CPU", "[placement]") {
  const json r = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                           {"context", 8192}, {"ram_gib", 64}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["verdict"] == "offload");
  const auto& p = r["placement"];
  const int n_layer = p["n_layer"].get<int>();
  // Every layer stays on the GPU: -ngl counts them, the output and the file's NextN block (one).
  CHECK(r["mtp"]["layers"] == 1);
  CHECK(p["ngl"] == n_layer + 1 + 1);
  const int ncm = p["n_cpu_moe"].get<int>();
  CHECK(ncm > 0);
  CHECK(ncm < n_layer);
  const auto& gpu = r["memory"]["devices"][0];
  const auto& host = r["memory"]["host"];
  CHECK(gpu["fits"] == true);
  CHECK(gpu["total_bytes"].get<std::uint64_t>() <= gpu["usable_bytes"].get<std::uint64_t>());
  CHECK(gpu["op_offload_bytes"].get<std::uint64_t>() > 0);
  CHECK(host["ram_fits"] == true);
  CHECK(gib(host["expert_weights_bytes"]) > 30);
  // KV stays beside its layers: all of it on the GPU.
  CHECK(gpu["kv_bytes"] == r["memory"]["kv_cache_bytes"]);
  // The automatic plan is minimal: one layer fewer on the CPU would not fit.
  const json fewer = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                               {"context", 8192}, {"ram_gib", 64}, {"n_cpu_moe", ncm - 1}});
  CHECK(fewer["memory"]["devices"][0]["fits"] == false);
  CHECK(r["commands"]["llama_server"].get<std::string>().find("--n-cpu-moe " + std::to_string(ncm)) != std::string::npos);
  std::printf("  GLM-4.5-Air Q4_K_M, RTX 4090 + 64 GB: --n-cpu-moe %d, GPU %.2f of %.2f GiB (weights %.2f, KV %.2f, "
              "compute %.2f incl. op-offload %.2f), RAM %.2f GiB (page cache %.2f)\n",
              ncm, gib(gpu["total_bytes"]), gib(gpu["usable_bytes"]), gib(gpu["weights_bytes"]), gib(gpu["kv_bytes"]),
              gib(gpu["compute_bytes"]), gib(gpu["op_offload_bytes"]), gib(host["ram_no_mmap_bytes"]),
              gib(host["page_cache_bytes"]));
}

TEST_CASE("the plan's totals: accelerators plus system RAM, and what it holds beyond the all-on-GPU total", "[placement]") {
  const auto u = [](const json& v) { return v.get<std::uint64_t>(); };
  // Experts in RAM (GLM-4.5-Air) and whole layers in RAM (a dense 70B on one 24 GB GPU).
  for (const char* model : {"zai-org/GLM-4.5-Air", "meta-llama/Llama-3.1-70B-Instruct"}) {
    CAPTURE(model);
    const json r = estimate({{"model", model}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                             {"context", 16384}, {"ram_gib", 64}});
    REQUIRE(r["verdict"] == "offload");
    const auto& p = r["placement"];
    std::uint64_t on_gpus = 0, op = 0;
    for (const auto& d : r["memory"]["devices"]) {
      on_gpus += u(d["total_bytes"]);
      op += u(d["op_offload_bytes"]);
    }
    CHECK(u(p["devices_bytes"]) == on_gpus);
    CHECK(u(p["host_bytes"]) == u(r["memory"]["host"]["total_bytes"]));
    CHECK(u(p["total_bytes"]) == on_gpus + u(r["memory"]["host"]["total_bytes"]));
    CHECK(u(p["op_offload_bytes"]) == op);
    const std::int64_t over = p["over_full_bytes"].get<std::int64_t>();
    CHECK(over == static_cast<std::int64_t>(u(p["total_bytes"])) - static_cast<std::int64_t>(u(r["memory"]["total_bytes"])));
    // Holding part of the model in RAM costs memory, never saves it: at least the embedding kept
    // in RAM, at most that plus the GPU's expert buffer and a few hundred MiB of CPU buffers.
    CHECK(over >= static_cast<std::int64_t>(u(r["memory"]["host_weights_bytes"])));
    CHECK(over <= static_cast<std::int64_t>(u(r["memory"]["host_weights_bytes"]) + op + (512ull << 20)));
    // -ngl counts the output, which goes to the GPU first (llama.cpp PR 18148), and no NextN block
    // here (dense Llama files have none).
    const int n_layer = p["n_layer"].get<int>(), ngl = p["ngl"].get<int>();
    CHECK(p["cpu_layers"].get<int>() == (ngl > 0 ? std::max(0, n_layer + 1 - ngl) : n_layer));
  }
}

TEST_CASE("a 70B model over two 24 GB GPUs splits its layers between them", "[placement]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q4_K_M"},
                           {"hardware", {"nvidia-rtx-4090", "nvidia-rtx-4090"}}, {"context", 8192}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["verdict"] != "no_fit");
  CHECK(r["placement"]["full_offload"] == true);
  const auto& d = r["memory"]["devices"];
  REQUIRE(d.size() == 2);
  CHECK(d[0]["n_layers"].get<int>() + d[1]["n_layers"].get<int>() == 80);
  CHECK(d[0]["n_layers"].get<int>() >= 30);
  CHECK(d[1]["n_layers"].get<int>() >= 30);
  CHECK(d[1]["first_layer"] == d[0]["n_layers"]);
  CHECK(d[1]["has_output"] == true);  // the output layer is layer n_layer: the last device
  CHECK(d[0]["fits"] == true);
  CHECK(d[1]["fits"] == true);
  // Each device's compute buffer: the larger of one layer's scratch and (on the device with the
  // output) the logits, plus the pipeline's input copies, which the document states on its own so
  // the page's sentence about the buffer adds up (a reviewer saw 0.30 GiB beside "at most 0.26").
  const auto& c = r["memory"]["compute"];
  const std::uint64_t copies = c["pipeline_copies_bytes"].get<std::uint64_t>();
  CHECK(copies > 0);
  const std::uint64_t layer = c["attention_bytes"].get<std::uint64_t>() + c["ffn_bytes"].get<std::uint64_t>();
  CHECK(d[0]["compute_bytes"].get<std::uint64_t>() == layer + copies);
  CHECK(d[1]["compute_bytes"].get<std::uint64_t>() == std::max(layer, c["logits_bytes"].get<std::uint64_t>()) + copies);
  // One device: no pipeline, no copies.
  CHECK(estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                  {"context", 8192}})["memory"]["compute"]["pipeline_copies_bytes"] == 0);
  // The single-device contract still adds up, summed over devices.
  const auto& m = r["memory"];
  CHECK(m["total_bytes"].get<std::uint64_t>() == m["weights_bytes"].get<std::uint64_t>() + m["kv_cache_bytes"].get<std::uint64_t>() +
                                                      m["compute_bytes"].get<std::uint64_t>() + m["overhead_bytes"].get<std::uint64_t>());
  std::printf("  Llama-3.3-70B Q4_K_M on 2x RTX 4090: layers %d + %d, %.2f + %.2f GiB\n", d[0]["n_layers"].get<int>(),
              d[1]["n_layers"].get<int>(), gib(d[0]["total_bytes"]), gib(d[1]["total_bytes"]));
  // One 24 GB GPU alone cannot hold it.
  CHECK(estimate({{"model", "meta-llama/Llama-3.3-70B-Instruct"}, {"quant", "Q4_K_M"},
                  {"hardware", "nvidia-rtx-4090"}})["verdict"] == "no_fit");
}

TEST_CASE("layers go to the first device whose cumulative split exceeds their position", "[placement]") {
  Fixture f("meta-llama/Llama-3.1-8B-Instruct", "Q4_K_M", "nvidia-rtx-4090", 3);
  PlacementSettings s;
  s.tensor_split = {1, 2, 1};
  const Placement p = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 0, s);
  const int n = 32, act = 33;
  const double cum[] = {0.25, 0.75, 1.0};
  for (int il = 0; il < n; ++il) {
    CAPTURE(il);
    const double x = static_cast<double>(il) / act;
    const int want = static_cast<int>(std::upper_bound(std::begin(cum), std::end(cum), x) - std::begin(cum));
    CHECK(p.layer_device[static_cast<std::size_t>(il)] == want);
  }
  CHECK(p.devices[2].has_output);
}

TEST_CASE("llama.cpp's fixed rules: embeddings on the CPU, the output the first layer -ngl offloads", "[placement]") {
  Fixture f("meta-llama/Llama-3.1-8B-Instruct", "Q4_K_M", "nvidia-rtx-4090", 1);
  std::uint64_t embd = 0, output = 0, output_norm = 0, layer0_largest = 0;
  for (const auto& t : f.plan.tensors) {
    if (t.role == TensorRole::TokenEmbd) embd = t.bytes;
    if (t.role == TensorRole::Output) output = t.bytes;
    if (t.layer < 0 && t.role == TensorRole::Norm) output_norm = t.bytes;
    if (t.layer == 0) layer0_largest = std::max(layer0_largest, t.bytes);
  }
  REQUIRE(output_norm == 4 * 4096);  // f32
  PlacementSettings s;
  const Placement all = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 64, s);
  CHECK(all.full_offload);
  CHECK(all.host.weights_bytes == embd);
  CHECK(all.devices[0].weights_bytes + all.host.weights_bytes == f.loaded_weights());
  CHECK(all.devices[0].op_offload_bytes == 0);

  s.ngl = 32;  // = n_layer: the output and layers 1..31 on the GPU, layer 0 with its KV in RAM
  const Placement one_off = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 64, s);
  CHECK(one_off.devices[0].has_output);
  CHECK_FALSE(one_off.host.has_output);
  CHECK(one_off.layer_device[0] == -1);
  CHECK(one_off.layer_device[1] == 0);
  CHECK(one_off.devices[0].n_layers == 31);
  CHECK(one_off.host.kv_bytes == f.kv.per_layer[0]);
  CHECK(one_off.devices[0].op_offload_bytes == layer0_largest);  // the largest CPU weight, copied for prompts

  s.ngl = 1;  // the output alone
  const Placement out_only = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 64, s);
  CHECK(out_only.devices[0].has_output);
  CHECK(out_only.devices[0].n_layers == 0);
  CHECK(out_only.devices[0].weights_bytes == output + output_norm);
  CHECK(out_only.devices[0].kv_bytes == 0);

  s.ngl = 0;  // nothing on the GPU
  const Placement none = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 64, s);
  CHECK(none.host.has_output);
  CHECK(none.devices[0].weights_bytes == 0);
  CHECK(none.host.weights_bytes == f.loaded_weights());

  s.ngl = 20;  // the output and layers 13..31; layers 0..12 stay on the CPU with their KV
  const Placement part = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 64, s);
  CHECK(part.layer_device[12] == -1);
  CHECK(part.layer_device[13] == 0);
  CHECK(part.host.kv_bytes == 13 * f.kv.per_layer[0]);
  CHECK(part.devices[0].kv_bytes == 19 * f.kv.per_layer[0]);
  CHECK(part.devices[0].weights_bytes + part.host.weights_bytes == f.loaded_weights());
  CHECK(part.ram_no_mmap_bytes == part.ram_mmap_bytes + part.page_cache_bytes);
}

TEST_CASE("expert offload keeps only the first N layers' experts on the CPU", "[placement]") {
  Fixture f("zai-org/GLM-4.5-Air", "Q4_K_M", "nvidia-rtx-4090", 1);
  PlacementSettings s;
  s.n_cpu_moe = 10;
  const Placement p = place_llamacpp(f.a, f.plan, f.kv, f.kvo, f.gpus, 64, s);
  std::uint64_t early_experts = 0;
  for (const auto& t : f.plan.tensors)
    if (t.is_expert() && t.layer < 10) early_experts += t.bytes;
  CHECK(p.host.expert_weights_bytes == early_experts);
  CHECK(p.devices[0].expert_weights_bytes > 0);
  CHECK(p.devices[0].weights_bytes + p.host.weights_bytes == f.loaded_weights());
  // Speed hook: routed experts are read in proportion n_expert_used / n_expert.
  const double used = static_cast<double>(f.a.moe.n_expert_used) / f.a.moe.n_expert;
  CHECK(p.host.read_per_token_bytes < p.host.weights_bytes * (used + 0.05));
  CHECK(p.devices[0].n_layers == static_cast<int>(f.a.n_layer_main()));
}

TEST_CASE("a Mac keeps the whole model in one pool and the single-device numbers are unchanged", "[placement]") {
  const json m = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"},
                           {"hardware", {{"name", "Mac"}, {"kind", "apple"}, {"memory_gib", 128}, {"bandwidth_gbs", 546}}}});
  REQUIRE_FALSE(m.contains("error"));
  REQUIRE(m["memory"]["devices"].size() == 1);
  CHECK(m["memory"]["devices"][0]["weights_bytes"] == m["memory"]["weights_bytes"]);
  CHECK(m["memory"]["host_weights_bytes"] == 0);
  CHECK(m["memory"]["devices"][0]["total_bytes"] == m["memory"]["total_bytes"]);
}

TEST_CASE("bad placement flags come back as errors with their path", "[placement]") {
  const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", {"nvidia-rtx-4090", "nvidia-rtx-3090"}}};
  auto err = [&](const char* k, json v) { json q = base; q[k] = v; return estimate(q)["error"]; };
  CHECK(err("tensor_split", json::array({1}))["path"] == "tensor_split");
  CHECK(err("tensor_split", "3,1")["code"] == "bad_type");
  CHECK(err("ngl", -5)["path"] == "ngl");
  CHECK(err("count", 2)["path"] == "count");
  json mixed = base;
  mixed["hardware"] = {"nvidia-rtx-4090", {{"name", "Mac"}, {"kind", "apple"}, {"memory_gib", 64}, {"bandwidth_gbs", 400}}};
  CHECK(estimate(mixed)["error"]["path"] == "hardware[1]");
}

// llama.cpp's --fit (on by default) leaves a target margin free on every device, 1 GiB unless
// -fitt says otherwise (common/common.h `fit_params_target`, common/arg.cpp `--fit-target`). An
// automatic offload plan that fills the GPU to its last byte is not what llama.cpp would run:
// GLM-4.5-Air Q4_K_M on an RTX 4090 with 64 GB of RAM at 16K filled 23.65 of 23.65 GiB.
TEST_CASE("an automatic offload plan leaves llama.cpp's --fit margin free on each GPU", "[placement]") {
  const nlohmann::json r = wif_test::estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                                               {"context", 16384}, {"ram_gib", 64}});
  REQUIRE_FALSE(r.contains("error"));
  REQUIRE(r["verdict"] == "offload");
  const double margin = r["placement"]["fit_margin_bytes"].get<double>();
  CHECK(margin == 1024.0 * 1024 * 1024);
  for (const auto& d : r["memory"]["devices"]) {
    CAPTURE(d.dump());
    CHECK(d["total_bytes"].get<double>() + margin <= d["usable_bytes"].get<double>());
    // The usable figure stays the device's own (the margin is beside it, not taken out of it).
    CHECK(d["usable_bytes"].get<double>() == Approx(r["memory"]["usable_bytes"].get<double>()));
  }
  // A model that fits whole needs no plan: no margin is claimed.
  const nlohmann::json small = wif_test::estimate({{"model", "Qwen/Qwen3-0.6B"}, {"quant", "Q8_0"}, {"hardware", "nvidia-rtx-4090"}, {"ram_gib", 64}});
  CHECK(small["placement"]["fit_margin_bytes"] == 0);
}

TEST_CASE("one plan, one set of figures: the graph buffers apart from the offload buffer, a verdict per device", "[placement][plan]") {
  const auto u = [](const json& v) { return v.get<std::uint64_t>(); };
  const json r = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                           {"context", 16384}, {"ram_gib", 64}});
  REQUIRE(r["verdict"] == "offload");
  const auto& gpu = r["memory"]["devices"][0];
  // compute_bytes holds the graph and llama.cpp's buffer for weights held in RAM; the graph part
  // is the compute figure of the model on the accelerators (memory.compute_bytes) on one GPU.
  CHECK(u(gpu["compute_graph_bytes"]) + u(gpu["op_offload_bytes"]) == u(gpu["compute_bytes"]));
  CHECK(u(gpu["compute_graph_bytes"]) == u(r["memory"]["compute_bytes"]));
  CHECK(u(gpu["op_offload_bytes"]) > 0);
  // -ngl counts the output layer as one more than the repeating layers: the GPU holds every
  // layer and the output, which is what the page says beside "-ngl" (which also counts the
  // file's NextN blocks, r.mtp.layers).
  CHECK(gpu["n_layers"] == r["placement"]["n_layer"]);
  CHECK(gpu["has_output"] == true);
  CHECK(r["placement"]["ngl"].get<int>() == gpu["n_layers"].get<int>() + 1 + r["mtp"]["layers"].get<int>());
  // The device's tag comes from the headline's rule: an offload plan fills the GPU up to
  // llama.cpp's --fit margin, past the share that leaves room to spare, so it is "tight".
  const double share = static_cast<double>(u(gpu["total_bytes"])) / static_cast<double>(u(gpu["usable_bytes"]));
  CHECK(share > kRoomToSpareShare);
  CHECK(gpu["verdict"] == "tight");
  CHECK(r["memory"]["host"]["verdict"] == "fits");
}

TEST_CASE("a per-device tag never says fits where the headline says tight", "[placement][verdict]") {
  // Two 24 GB cards holding a 70B Q4_K_M at 8K: the headline's verdict is the devices' worst tag.
  for (const json& q : {json{{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-3090"}, {"count", 2}, {"context", 8192}},
                        json{{"model", "Qwen/Qwen3-8B"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", 8192}},
                        json{{"model", "Qwen/Qwen3-32B"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", 8192}}}) {
    CAPTURE(q.dump());
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    const std::string v = r["verdict"];
    if (v != "fits" && v != "tight") continue;
    bool any_tight = false;
    for (const auto& d : r["memory"]["devices"]) {
      const bool spare = room_to_spare(static_cast<std::uint64_t>(d["total_bytes"].get<double>() * 1.02) + (256ull << 20), d["usable_low_bytes"].get<std::uint64_t>());
      CHECK(d["verdict"] == (spare ? "fits" : "tight"));
      any_tight = any_tight || d["verdict"] == "tight";
    }
    CHECK(any_tight == (v == "tight"));
  }
}


namespace {
// llama.cpp's layer assignment for a -ngl and -ts over the file's blocks (llama_model_base::load_tensors,
// https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp, since PR 18148:
// i_gpu_start = max(n_layer_all + 1 - ngl, 0) with n_layer_all = block_count, act = min(ngl,
// block_count + 1), a block at position k = il - i_gpu_start goes to the first device whose
// cumulative share exceeds k / act); -1 = CPU. Index block_count is the output layer.
std::vector<int> llamacpp_blocks(int block_count, int ngl, const std::vector<double>& ts) {
  const int start = std::max(block_count + 1 - ngl, 0), act = std::min(ngl, block_count + 1);
  // In float, as llama.cpp keeps its split points (a share of 71/80 must compare equal).
  std::vector<float> cum;
  float sum = 0;
  for (double x : ts) cum.push_back(sum += static_cast<float>(x));
  for (float& x : cum) x /= sum;
  std::vector<int> dev(static_cast<std::size_t>(block_count + 1), -1);
  for (int il = 0; il <= block_count; ++il) {
    if (il < start || il - start >= act) continue;
    const float x = float(il - start) / act;
    int d = static_cast<int>(std::upper_bound(cum.begin(), cum.end(), x) - cum.begin());
    dev[static_cast<std::size_t>(il)] = std::min(d, static_cast<int>(ts.size()) - 1);
  }
  return dev;
}

// The flags a command carries: -ngl's value and -ts's shares (one share when there is no -ts).
std::pair<int, std::vector<double>> ngl_ts(const std::string& cmd) {
  const auto n = cmd.find(" -ngl ");
  REQUIRE(n != std::string::npos);
  const int ngl = std::stoi(cmd.substr(n + 6));
  std::vector<double> ts{1};
  const auto t = cmd.find(" -ts ");
  if (t != std::string::npos) {
    ts.clear();
    std::string v = cmd.substr(t + 5, cmd.find(' ', t + 5) - t - 5);
    for (std::size_t i = 0; i <= v.size();) {
      const std::size_t c = std::min(v.find(',', i), v.size());
      ts.push_back(std::stod(v.substr(i, c - i)));
      i = c + 1;
    }
  }
  return {ngl, ts};
}
}  // namespace

// Issue 19: GLM-4.5-Air's and GLM-5's GGUF files carry a NextN (MTP) block after the decoder's
// (block_count 47 = 46 + 1, and 79 = 78 + 1), which llama.cpp's -ngl counts though its tensors are
// skipped (TENSOR_SKIP) and take no memory. The -ngl and -ts the estimate prints, run through
// llama.cpp's assignment over block_count, put every decoder layer and the output where the plan
// holds them; a -ngl a person gives counts the block too; a file without one keeps n_layer + 1.
TEST_CASE("-ngl and -ts count a GLM file's NextN block, so llama.cpp places the layers as planned", "[placement]") {
  struct Case { const char* model; const char* hw; int count; double ram; };
  for (const Case c : {Case{"zai-org/GLM-4.5-Air", "nvidia-h100-sxm", 1, 0}, Case{"zai-org/GLM-4.5-Air", "nvidia-rtx-4090", 1, 128},
                       Case{"zai-org/GLM-4.5-Air", "nvidia-rtx-4090", 2, 128}, Case{"zai-org/GLM-5", "nvidia-h100-sxm", 4, 512},
                       Case{"zai-org/GLM-5", "nvidia-h100-sxm", 8, 0}}) {
    CAPTURE(c.model, c.hw, c.count);
    const Architecture& a = cat().find_model(c.model)->arch;
    const int n_main = static_cast<int>(a.n_layer_main()), blocks = static_cast<int>(a.n_layer_all());
    REQUIRE(blocks == n_main + 1);
    json q = {{"model", c.model}, {"quant", "Q4_K_M"}, {"hardware", c.hw}, {"count", c.count}, {"context", 16384}};
    if (c.ram > 0) q["ram_gib"] = c.ram;
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    REQUIRE(r["verdict"] != "no_fit");
    const auto [ngl, ts] = ngl_ts(r["commands"]["llama_server"].get<std::string>());
    CHECK(r["placement"]["ngl"] == ngl);
    CHECK(static_cast<int>(ts.size()) == (c.count > 1 ? c.count : 1));
    const std::vector<int> dev = llamacpp_blocks(blocks, ngl, ts);
    // The plan: each device's run of decoder layers and which one holds the output.
    std::vector<int> planned(static_cast<std::size_t>(n_main + 1), -1);
    for (std::size_t d = 0; d < r["memory"]["devices"].size(); ++d) {
      const json& L = r["memory"]["devices"][d];
      for (int i = 0; i < L["n_layers"].get<int>(); ++i) planned[static_cast<std::size_t>(L["first_layer"].get<int>() + i)] = static_cast<int>(d);
      if (L["has_output"].get<bool>()) planned[static_cast<std::size_t>(n_main)] = static_cast<int>(d);
    }
    for (int il = 0; il < n_main; ++il) {
      CAPTURE(il);
      CHECK(dev[static_cast<std::size_t>(il)] == planned[static_cast<std::size_t>(il)]);
    }
    CHECK(dev[static_cast<std::size_t>(blocks)] == planned[static_cast<std::size_t>(n_main)]);  // the output
    if (r["placement"]["full_offload"].get<bool>()) CHECK(ngl == blocks + 1);
  }

  // A -ngl as a person types it: 30 of GLM-4.5-Air's 48 layers (47 blocks and the output) on the
  // GPU are the output, the NextN block and 28 decoder layers, and the plan reports the same 30.
  const json typed = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h100-sxm"},
                               {"ram_gib", 128}, {"context", 16384}, {"ngl", 30}});
  REQUIRE_FALSE(typed.contains("error"));
  CHECK(typed["placement"]["ngl"] == 30);
  CHECK(typed["memory"]["devices"][0]["has_output"] == true);
  CHECK(typed["memory"]["devices"][0]["n_layers"] == 28);
  CHECK(typed["memory"]["devices"][0]["first_layer"] == 46 - 28);
  CHECK(typed["commands"]["llama_server"].get<std::string>().find(" -ngl 30 ") != std::string::npos);

  // No NextN block in the file (Qwen3-30B-A3B): everything is n_layer + 1, as before.
  const json plain = estimate({{"model", "Qwen/Qwen3-30B-A3B"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h100-sxm"}, {"context", 16384}});
  REQUIRE_FALSE(plain.contains("error"));
  CHECK(plain["placement"]["ngl"] == plain["placement"]["n_layer"].get<int>() + 1);
  CHECK(ngl_flag(10, 0) == 10);
  CHECK(ngl_from_flag(-1, 1) == -1);
  CHECK(ngl_from_flag(1, 1) == 1);  // the output alone
  CHECK(ngl_from_flag(2, 1) == 1);  // the output and the NextN block, no decoder layer
  CHECK(ngl_from_flag(3, 1) == 2);
  CHECK(ngl_flag(0, 1) == 0);
}

// Issue 19: which layers a -ngl below everything offloads. llama.cpp counts the output layer as
// the last of n_layer_all + 1 and offloads from the top, so -ngl k holds the output and the last
// k - 1 blocks (ggml-org/llama.cpp PR 18148). Every typed -ngl of a dense file and of a file with
// a NextN block, on one and on three GPUs with a -ts, placed by the core and replayed through
// llama.cpp's own loop over the file's blocks with the -ngl the estimate prints back: the same
// device for every decoder layer and the output. The printed flag is the one typed, except that
// on a file with NextN blocks every flag from 1 to 1 + n_mtp holds the output alone (the blocks
// between hold nothing), which the estimate prints as 1 + n_mtp.
TEST_CASE("a typed -ngl puts the output and the last blocks where llama.cpp's load_tensors puts them", "[placement]") {
  struct Case { const char* model; int count; const char* ts; };
  const Case c = GENERATE(Case{"meta-llama/Llama-3.1-8B-Instruct", 1, ""}, Case{"meta-llama/Llama-3.1-8B-Instruct", 3, "1,2,1"},
                          Case{"zai-org/GLM-4.5-Air", 1, ""}, Case{"zai-org/GLM-4.5-Air", 3, "5,2,3"});
  const Architecture& a = cat().find_model(c.model)->arch;
  const int n_main = static_cast<int>(a.n_layer_main()), blocks = static_cast<int>(a.n_layer_all());
  const int n_mtp = blocks - n_main;
  std::vector<double> ts{1};
  if (c.count > 1) ts = {c.ts[0] - '0' + 0.0, c.ts[2] - '0' + 0.0, c.ts[4] - '0' + 0.0};
  for (const int flag : {0, 1, 2, 3, blocks / 2, blocks - 1, blocks, blocks + 1}) {
    CAPTURE(c.model, c.count, flag);
    json q = {{"model", c.model}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h200-sxm"}, {"count", c.count},
              {"ram_gib", 512}, {"context", 4096}, {"ngl", flag}, {"n_cpu_moe", 0}};
    if (c.count > 1) q["tensor_split"] = ts;
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    const int shown = flag >= 1 && flag <= 1 + n_mtp ? 1 + n_mtp : flag;
    CHECK(r["placement"]["ngl"] == shown);
    CHECK(ngl_flag(ngl_from_flag(flag, n_mtp), n_mtp) == shown);
    const std::vector<int> want = llamacpp_blocks(blocks, shown, ts);
    if (c.count == 1) {  // typed or printed, on one device: the same decoder layers and output
      const std::vector<int> typed = llamacpp_blocks(blocks, flag, ts);
      for (int il = 0; il < n_main; ++il) CHECK(typed[static_cast<std::size_t>(il)] == want[static_cast<std::size_t>(il)]);
      CHECK(typed[static_cast<std::size_t>(blocks)] == want[static_cast<std::size_t>(blocks)]);
    }
    std::vector<int> got(static_cast<std::size_t>(n_main + 1), -1);
    for (std::size_t d = 0; d < r["memory"]["devices"].size(); ++d) {
      const json& L = r["memory"]["devices"][d];
      for (int i = 0; i < L["n_layers"].get<int>(); ++i) got[static_cast<std::size_t>(L["first_layer"].get<int>() + i)] = static_cast<int>(d);
      if (L["has_output"].get<bool>()) got[static_cast<std::size_t>(n_main)] = static_cast<int>(d);
    }
    CHECK(r["memory"]["host"]["has_output"].get<bool>() == (flag == 0));
    for (int il = 0; il < n_main; ++il) {
      CAPTURE(il);
      CHECK(got[static_cast<std::size_t>(il)] == want[static_cast<std::size_t>(il)]);
    }
    CHECK(got[static_cast<std::size_t>(n_main)] == want[static_cast<std::size_t>(blocks)]);  // the output
    // Decoder layers on the GPUs: the flag less the output and the NextN blocks above them.
    int on_gpu = 0;
    for (int il = 0; il < n_main; ++il) on_gpu += got[static_cast<std::size_t>(il)] >= 0 ? 1 : 0;
    CHECK(on_gpu == std::clamp(flag - 1 - n_mtp, 0, n_main));
  }
}

}  // namespace placement_test_cases
