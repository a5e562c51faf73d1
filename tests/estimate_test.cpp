#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include <algorithm>
#include <set>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/model/quantize.hpp"

namespace estimate_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;
json glm_air() { return {{"config", wif_test::golden_config("glm-4.5-air")}, {"name", "GLM-4.5-Air"}}; }
const json kM3Ultra512 = {{"name", "Mac Studio M3 Ultra 512GB"}, {"kind", "apple"}, {"memory_gib", 512},
                          {"bandwidth_gbs", 819}, {"backend", "metal"}};
const json kRtx4090 = {{"name", "RTX 4090"}, {"kind", "gpu"}, {"memory_gib", 24}, {"bandwidth_gbs", 1008},
                       {"backend", "cuda"}};
}  // namespace

TEST_CASE("GLM-4.5-Air Q4_K_M at 8K fits a 512 GB Mac Studio with about 70 GiB", "[estimate]") {
  const json r = estimate({{"model", glm_air()}, {"quant", "Q4_K_M"}, {"hardware", kM3Ultra512}, {"context", 8192}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["verdict"] == "fits");
  CHECK(r["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 188416ull * 8192);
  const double total = r["memory"]["total_bytes"].get<double>() / wif_test::kGiB;
  CHECK(total > 64);
  CHECK(total < 76);
  CHECK(r["memory"]["usable_bytes"].get<double>() / wif_test::kGiB == Approx(384));
  const auto& m = r["memory"];
  CHECK(m["total_bytes"].get<std::uint64_t>() ==
        m["weights_bytes"].get<std::uint64_t>() + m["kv_cache_bytes"].get<std::uint64_t>() +
            m["compute_bytes"].get<std::uint64_t>() + m["overhead_bytes"].get<std::uint64_t>());
}

TEST_CASE("GLM-4.5-Air on one RTX 4090 needs offload with 64 GB RAM and cannot run without it", "[estimate]") {
  json req = {{"model", glm_air()}, {"quant", "Q4_K_M"}, {"hardware", kRtx4090}, {"context", 8192}, {"ram_gib", 64}};
  CHECK(estimate(req)["verdict"] == "offload");
  req["ram_gib"] = 0;
  CHECK(estimate(req)["verdict"] == "no_fit");
  req["ram_gib"] = 16;
  CHECK(estimate(req)["verdict"] == "no_fit");
}

TEST_CASE("bad requests come back as error documents with code and path", "[estimate]") {
  auto err = [](const std::string& text) { return json::parse(api_estimate(cat(), text))["error"]; };
  CHECK(err("{")["code"] == "bad_json");
  CHECK(err(R"({"model":"nobody/nothing","hardware":"x"})")["code"] == "unknown_model");
  CHECK(err(R"({"model":"nobody/nothing","hardware":"x"})")["path"] == "model");
  const json base = {{"model", glm_air()}, {"hardware", kRtx4090}};
  auto with = [&](const char* k, json v) { json q = base; q[k] = v; return json::parse(api_estimate(cat(), q.dump()))["error"]; };
  CHECK(with("context", -1)["path"] == "context");
  CHECK(with("context", "lots")["code"] == "bad_type");
  CHECK(with("quant", "Q9_X")["code"] == "unknown_quant");
  CHECK(with("kv_type", "q3_k")["path"] == "kv_type");
  CHECK(with("hardware", "no-such-gpu")["code"] == "unknown_hardware");
  CHECK(with("parallel", 0)["path"] == "parallel");
  CHECK(with("engine", "magic")["path"] == "engine");
  json q = base;
  q.erase("hardware");
  CHECK(json::parse(api_estimate(cat(), q.dump()))["error"]["code"] == "missing_field");
}

TEST_CASE("more context, more bits or more sequences never need less memory", "[estimate]") {
  std::uint64_t prev = 0;
  for (int ctx : {1024, 4096, 8192, 32768, 131072}) {
    const json r = estimate({{"model", glm_air()}, {"quant", "Q4_K_M"}, {"hardware", kM3Ultra512}, {"context", ctx}});
    const auto t = r["memory"]["total_bytes"].get<std::uint64_t>();
    CHECK(t > prev);
    prev = t;
  }
  prev = 0;
  for (const char* q : {"IQ2_XXS", "Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "BF16"}) {
    CAPTURE(q);
    const json r = estimate({{"model", glm_air()}, {"quant", q}, {"hardware", kM3Ultra512}});
    const auto t = r["memory"]["weights_bytes"].get<std::uint64_t>();
    CHECK(t > prev);
    prev = t;
  }
}

TEST_CASE("catalog listings carry ids, names and device memory", "[estimate]") {
  const json h = json::parse(api_list(cat(), "hardware"));
  REQUIRE(h["hardware"].size() > 0);
  CHECK(h["hardware"][0].contains("memory_gib"));
  CHECK(h["hardware"][0].contains("bandwidth_gbs"));
  const json m = json::parse(api_list(cat(), "models"));
  REQUIRE(m["models"].size() > 0);
  CHECK(m["models"][0].contains("id"));
  CHECK(json::parse(api_list(cat(), "bogus"))["error"]["code"] == "bad_value");
}

// Issue 16: the page chose the devices to compare a model on with a rule of its own (a price, and
// a GPU or 32 GiB); the listing carries the decision and its code.
TEST_CASE("the hardware listing says which devices a page offers to compare, with a code", "[estimate][decisions]") {
  const json h = json::parse(api_list(cat(), "hardware"));
  int offered = 0, small = 0;
  for (const auto& d : h["hardware"]) {
    CAPTURE(d["id"]);
    const std::string code = d["compare_code"];
    const bool priced = d["price_usd"].is_number() && d["price_usd"].get<double>() > 0;
    const bool mem_ok = d["memory_gib"].is_number() && d["memory_gib"].get<double>() >= wif::defaults::kCompareMinUnifiedGib;
    const std::string expect = d["kind"] == "cpu" ? "cpu" : !priced ? "no_price" : d["kind"] == "gpu" ? "priced_gpu"
                             : mem_ok ? "priced_large_memory" : "small_memory";
    CHECK(code == expect);
    CHECK(d["compare"].get<bool>() == (code == "priced_gpu" || code == "priced_large_memory"));
    offered += d["compare"].get<bool>();
    small += code == "small_memory";
  }
  CHECK(offered > 20);
  CHECK(small >= 1);  // a priced Mac or mini PC under 32 GiB is in the catalog and left out
}

TEST_CASE("a catalog model's published GGUF of the estimated format is named beside the computed size", "[estimate]") {
  const ModelEntry* m = cat().find_model("zai-org/GLM-4.5-Air");
  REQUIRE(m != nullptr);
  json pub;
  for (const auto& g : m->raw["gguf"])
    if (g.value("quant", "") == "Q8_0") pub = g;
  REQUIRE(pub.is_object());
  const json r = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q8_0"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(r["gguf_file_published_bytes"] == pub["bytes"]);
  CHECK(r["gguf_file_published_repo"] == pub["repo"]);
  // Same tensors, same format: our computed file is within 3 % of the published one.
  const double ours = r["gguf_file_bytes"].get<double>(), theirs = pub["bytes"].get<double>();
  CHECK(std::abs(ours - theirs) / theirs < 0.03);
  CHECK(r["gguf_file_published_diff_pct"].get<double>() == Approx(100.0 * (ours - theirs) / theirs));
  // A model given by its config has no published file; nor does a format nobody published.
  CHECK_FALSE(estimate({{"model", glm_air()}, {"quant", "Q8_0"}, {"hardware", "nvidia-rtx-4090"}}).contains("gguf_file_published_bytes"));
  CHECK_FALSE(estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "IQ1_S"}, {"hardware", "nvidia-rtx-4090"}}).contains("gguf_file_published_bytes"));
}

// Issue 16 (screenshot review): Gemma 3n E4B read "Active per token 4.5B (published 6.9B)": the
// catalog's active figure of a dense entry is its total by convention, not a published active count.
TEST_CASE("a published active count is given only where the publisher gives one apart from the total", "[estimate]") {
  for (const char* id : {"google/gemma-3n-E4B-it", "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B"}) {
    const ModelEntry* m = cat().find_model(id);
    REQUIRE(m != nullptr);
    const json r = estimate({{"model", id}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
    REQUIRE_FALSE(r.contains("error"));
    CAPTURE(id, m->params_active_b, m->params_total_b);
    if (m->params_active_b > 0 && m->params_active_b < m->params_total_b)
      CHECK(r["model"]["params_active_published_b"] == m->params_active_b);
    else
      CHECK(r["model"]["params_active_published_b"].is_null());
  }
  CHECK(estimate({{"model", "google/gemma-3n-E4B-it"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}})["model"]["params_active_published_b"].is_null());
  CHECK(estimate({{"model", "Qwen/Qwen3-30B-A3B"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}})["model"]["params_active_published_b"] == Approx(3.3));
}

TEST_CASE("a summary estimate has the full estimate's figures without commands, loads, terms or curve", "[estimate]") {
  for (const json& base : {json{{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"ram_gib", 64}},
                           json{{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"}}}) {
    json q = base;
    const json full = estimate(q);
    q["detail"] = "summary";
    const json sum = estimate(q);
    REQUIRE(full.contains("memory"));
    REQUIRE(sum.contains("memory"));
    CHECK(sum["detail"] == "summary");
    for (const char* k : {"weights_bytes", "kv_cache_bytes", "compute_bytes", "overhead_bytes", "total_bytes", "usable_bytes"})
      CHECK(sum["memory"][k] == full["memory"][k]);
    CHECK(sum["verdict"] == full["verdict"]);
    CHECK(sum.value("gguf_file_bytes", json()) == full.value("gguf_file_bytes", json()));
    CHECK(sum.value("checkpoint_bytes", json()) == full.value("checkpoint_bytes", json()));
    REQUIRE(full.contains("speed"));
    CHECK(sum["speed"]["decode_tps"] == full["speed"]["decode_tps"]);
    CHECK(sum["speed"]["decode_tps_low"] == full["speed"]["decode_tps_low"]);
    CHECK(full["speed"].contains("curve"));
    CHECK_FALSE(sum["speed"].contains("curve"));
    CHECK_FALSE(sum["speed"].contains("terms"));
    CHECK(full.contains("commands"));
    CHECK_FALSE(sum.contains("commands"));
    CHECK_FALSE(sum["memory"].contains("devices"));
    CHECK(sum.dump().size() * 4 < full.dump().size() * 3);
  }
}

TEST_CASE("listings and estimates print an unknown value as null, never as 0", "[estimate]") {
  // Entries without max_position_embeddings (12 partial configs) once printed max_context 0.
  const json m = json::parse(api_list(cat(), "models"));
  int unknown_ctx = 0;
  for (const auto& e : m["models"]) {
    CAPTURE(e["id"]);
    for (const char* k : {"max_context", "params_total_b", "params_active_b"}) {
      CHECK((e[k].is_null() || e[k].get<double>() > 0));
      if (std::string(k) == "max_context" && e[k].is_null()) ++unknown_ctx;
    }
  }
  CHECK(unknown_ctx >= 1);
  const json h = json::parse(api_list(cat(), "hardware"));
  for (const auto& d : h["hardware"]) {
    CAPTURE(d["id"]);
    for (const char* k : {"memory_gib", "bandwidth_gbs", "fp16_tflops", "price_usd"})
      CHECK((d[k].is_null() || d[k].get<double>() > 0));
  }
  // A hybrid's shape names the KV heads of its attention layers, not the 0 of its Mamba layers.
  const json r = estimate({{"model", "nvidia/NVIDIA-Nemotron-Nano-9B-v2"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["model"]["shape"]["n_head_kv"].get<int>() > 0);
  for (const char* id : {"Qwen/Qwen2.5-32B-Instruct", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"}) {
    const json e = estimate({{"model", id}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", 4096}});
    CAPTURE(id);
    REQUIRE_FALSE(e.contains("error"));
    CHECK((e["model"]["max_context"].is_null() || e["model"]["max_context"].get<double>() > 0));
    for (const auto& [k, v] : e["model"]["shape"].items()) {
      CAPTURE(k);
      CHECK((v.is_null() || v.get<double>() >= 0));
    }
  }
}

TEST_CASE("a config of an unknown model_type is estimated approximately and says so; catalog models are exact", "[estimate]") {
  const json cfg = {{"model_type", "frobnicator"}, {"hidden_size", 2048}, {"num_hidden_layers", 16},
                    {"num_attention_heads", 16}, {"num_key_value_heads", 4}, {"intermediate_size", 8192},
                    {"vocab_size", 32000}, {"max_position_embeddings", 8192}};
  const json r = estimate({{"model", {{"config", cfg}}}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["model"]["approximate"] == true);
  CHECK(r["model"]["approximate_code"] == "unsupported_model_type");
  CHECK(r["model"]["model_type"] == "frobnicator");
  CHECK(r["memory"]["kv_cache_bytes"].get<std::uint64_t>() == 16ull * 2 * 4 * 128 * 2 * 8192);
  const json exact = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(exact["model"]["approximate"] == false);
  CHECK_FALSE(exact["model"].contains("approximate_code"));
  // Too little to go on: the coded error names the type.
  const json bad = estimate({{"model", {{"config", {{"model_type", "frobnicator"}, {"hidden_size", 64}}}}},
                             {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(bad["error"]["code"] == "unsupported_model_type");
  CHECK(bad["error"]["message"].get<std::string>().find("frobnicator") != std::string::npos);
}

TEST_CASE("an uncertain hardware figure reaches the result for the page to show", "[estimate]") {
  const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "amd-radeon-ai-pro-r9700"}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["hardware"]["uncertain"]["bandwidth_gbs"]["why"] == "derived");
  const json sure = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(sure["hardware"]["uncertain"].empty());
}

TEST_CASE("an uncertain bandwidth widens the decode range by its low and high, an uncertain FP16 rate the prefill range", "[estimate][uncertain]") {
  // The same card twice, once with figures public sources do not settle: the central figures stay,
  // the ranges that rest on the unsettled figure widen by low / listed and high / listed.
  const json card = {{"name", "Card"}, {"kind", "gpu"}, {"memory_gib", 24}, {"bandwidth_gbs", 1000}, {"fp16_tflops", 100}, {"backend", "cuda"}};
  json unsure = card;
  unsure["uncertain"] = {{"bandwidth_gbs", {{"why", "sources_disagree"}, {"low", 400}, {"high", 1250}}},
                         {"fp16_tflops", {{"why", "unverified"}, {"low", 80}, {"high", 100}}}};
  const json req = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"context", 4096}};
  json a = req, b = req;
  a["hardware"] = card;
  b["hardware"] = unsure;
  const json sure = estimate(a), wide = estimate(b);
  REQUIRE_FALSE(sure.contains("error"));
  REQUIRE_FALSE(wide.contains("error"));
  const json &s = sure["speed"], &w = wide["speed"];
  CHECK(w["decode_tps"].get<double>() == Approx(s["decode_tps"].get<double>()));
  CHECK(w["decode_tps_low"].get<double>() == Approx(s["decode_tps_low"].get<double>() * 0.4));
  CHECK(w["decode_tps_high"].get<double>() == Approx(s["decode_tps_high"].get<double>() * 1.25));
  CHECK(w["prefill_tps"].get<double>() == Approx(s["prefill_tps"].get<double>()));
  CHECK(w["prefill_tps_low"].get<double>() == Approx(s["prefill_tps_low"].get<double>() * 0.8));
  CHECK(w["prefill_tps_high"].get<double>() == Approx(s["prefill_tps_high"].get<double>()));
  CHECK(w["ttft_ms_high"].get<double>() == Approx(s["ttft_ms_high"].get<double>() / 0.8));
  REQUIRE(w["device_uncertain"].is_array());
  REQUIRE(w["device_uncertain"].size() == 2);
  CHECK(w["device_uncertain"][0]["field"] == "bandwidth_gbs");
  CHECK(w["device_uncertain"][0]["range"] == "decode");
  CHECK(w["device_uncertain"][0]["low_factor"].get<double>() == Approx(0.4));
  CHECK(w["device_uncertain"][0]["high_factor"].get<double>() == Approx(1.25));
  CHECK(w["device_uncertain"][1]["field"] == "fp16_tflops");
  CHECK(w["device_uncertain"][1]["high_factor"].get<double>() == Approx(1.0));
  CHECK_FALSE(s.contains("device_uncertain"));
  // No low or high given: marked on the page, but there is nothing to widen by.
  json bare = card;
  bare["uncertain"] = {{"bandwidth_gbs", {{"why", "unverified"}}}};
  json c = req;
  c["hardware"] = bare;
  const json u = estimate(c);
  REQUIRE_FALSE(u.contains("error"));
  CHECK(u["speed"]["decode_tps_low"].get<double>() == Approx(s["decode_tps_low"].get<double>()));
  CHECK_FALSE(u["speed"].contains("device_uncertain"));
}

TEST_CASE("the Ascend 910B's disputed bandwidth reaches vLLM's decode range, and the catalog's Chinese cards with unsettled figures load", "[estimate][uncertain]") {
  const json r = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "BF16"}, {"engine", "vllm"}, {"hardware", "huawei-ascend-910b"}});
  REQUIRE_FALSE(r.contains("error"));
  REQUIRE(r.contains("speed"));
  const json& sp = r["speed"];
  REQUIRE(sp["device_uncertain"].is_array());
  CHECK(sp["device_uncertain"][0]["field"] == "bandwidth_gbs");
  CHECK(sp["device_uncertain"][0]["low_factor"].get<double>() == Approx(400.0 / 1600.0));
  CHECK(sp["decode_tps_low"].get<double>() < 0.3 * sp["decode_tps"].get<double>());
  for (const char* id : {"metax-c500", "kunlunxin-p800", "cambricon-mlu590"}) {
    CAPTURE(id);
    const json e = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "BF16"}, {"engine", "vllm"}, {"hardware", id}});
    REQUIRE_FALSE(e.contains("error"));
    CHECK(e["hardware"]["uncertain"].contains("bandwidth_gbs"));
    CHECK(e["verdict"] != "no_fit");
    if (e.contains("speed")) {
      CHECK(e["speed"]["decode_tps_low"].get<double>() < e["speed"]["decode_tps"].get<double>());
      CHECK(e["speed"].contains("device_uncertain"));
    }
  }
}

TEST_CASE("GLM-4.5-Air's NextN layer is in the file but not resident, and the result says how much", "[estimate]") {
  const json r = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"ram_gib", 128}});
  REQUIRE_FALSE(r.contains("error"));
  const json& mtp = r["mtp"];
  CHECK(mtp["layers"] == 1);
  CHECK(mtp["loaded"] == false);
  CHECK(mtp["resident_bytes"] == 0);
  const double f = mtp["file_bytes"].get<double>();
  // The file minus what is resident is the NextN layer plus the header: most of the gap.
  const double gap = r["gguf_file_bytes"].get<double>() - r["memory"]["weights_bytes"].get<double>();
  CHECK(f > 0.8 * gap);
  CHECK(f <= gap);
  // The NextN layer (~2.37B) and its own embedding and head copies (2 x 151552 x 4096).
  CHECK(mtp["params"].get<double>() == Approx(2.37e9 + 2.0 * 151552 * 4096).epsilon(0.02));
  const json none = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK(none["mtp"]["layers"] == 0);
  CHECK(none["mtp"]["file_bytes"] == 0);
}

TEST_CASE("the topology is given as codes beside the CLI's English, and both say the same", "[estimate]") {
  const json air = estimate({{"model", "zai-org/GLM-4.5-Air"}, {"hardware", kRtx4090}, {"context", 8192}});
  REQUIRE_FALSE(air.contains("error"));
  const json& c = air["model"]["topology_code"];
  CHECK(c["ffn"] == "moe");
  CHECK(c["experts"] == 128);
  CHECK(c["experts_used"] == 8);
  CHECK(c["attention"] == "gqa");
  CHECK(c["window"] == "none");
  CHECK(air["model"]["topology"] == "MoE 128x8 + GQA");
  const json gemma = estimate({{"model", "google/gemma-3-27b-it"}, {"hardware", kRtx4090}, {"context", 8192}});
  REQUIRE_FALSE(gemma.contains("error"));
  CHECK(gemma["model"]["topology_code"]["ffn"] == "dense");
  CHECK_FALSE(gemma["model"]["topology_code"].contains("experts"));
  CHECK(gemma["model"]["topology_code"]["window"] == "some_layers");
  CHECK(gemma["model"]["topology"] == "dense + GQA + sliding window");
}

TEST_CASE("a prompt longer than the context is noted with its figures; one that fits is not", "[estimate]") {
  auto has_note = [](const json& r) {
    for (const auto& n : r["notes"])
      if (n["code"] == "prompt_beyond_context") return true;
    return false;
  };
  const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", kRtx4090}, {"context", 8192}};
  json q = base;
  q["prompt"] = 6144;
  q["depth"] = 4096;
  const json r = estimate(q);
  REQUIRE(has_note(r));
  for (const auto& n : r["notes"])
    if (n["code"] == "prompt_beyond_context") {
      CHECK(n["values"]["prompt"] == 6144);
      CHECK(n["values"]["depth"] == 4096);
      CHECK(n["values"]["context"] == 8192);
    }
  q["depth"] = 2048;
  CHECK_FALSE(has_note(estimate(q)));
  CHECK_FALSE(has_note(estimate(base)));  // the benchmark's default prompt is not the person's
}

TEST_CASE("the simulator's prompt lengths are those the request's context holds, with one to start on", "[defaults]") {
  const json all = json::parse(api_defaults(cat(), "{}"))["simulator"];
  REQUIRE(all["prompts"].size() >= 3);
  CHECK(all["prompt"] == 4096);
  const json small = json::parse(api_defaults(cat(), R"({"context": 2048})"))["simulator"];
  for (const auto& p : small["prompts"]) CHECK(p.get<std::int64_t>() <= 2048);
  CHECK(small["prompt"].get<std::int64_t>() <= 2048);
  const json tiny = json::parse(api_defaults(cat(), R"({"context": 300})"))["simulator"];
  CHECK(tiny["prompts"] == json::array({300}));
  CHECK(tiny["prompt"] == 300);
}

TEST_CASE("the defaults name each engine and its common formats, and the chart contexts follow the model's maximum", "[defaults]") {
  const json d = json::parse(api_defaults(cat(), "{}"));
  CHECK(d["engines"]["vllm"]["name"] == "vLLM");
  CHECK(d["engines"]["sglang"]["name"] == "SGLang");
  CHECK(d["engines"]["llama.cpp"]["name"] == "llama.cpp");
  for (const auto& [engine, e] : d["engines"].items()) {
    INFO(engine);
    REQUIRE(e["common_formats"].size() >= 4);
    // Every common format is one the engine accepts.
    for (const auto& f : e["common_formats"])
      CHECK(std::find(e["formats"].begin(), e["formats"].end(), f) != e["formats"].end());
  }
  // Without a model: 4K doubling to 128K.
  CHECK(d["context_steps"] == json::array({4096, 8192, 16384, 32768, 65536, 131072}));
  // Llama 3 8B stops at 8K; GLM-4.5-Air at 128K (131072); the last step is the maximum itself.
  const json l3 = json::parse(api_defaults(cat(), R"({"model": "meta-llama/Meta-Llama-3-8B"})"));
  CHECK(l3["context_steps"] == json::array({4096, 8192}));
  const json air = json::parse(api_defaults(cat(), R"({"model": "zai-org/GLM-4.5-Air"})"));
  const json list = json::parse(api_list(cat(), "models"));
  for (const auto& m : list["models"])
    if (m["id"] == "zai-org/GLM-4.5-Air") CHECK(air["context_steps"].back() == m["max_context"]);
  for (std::size_t i = 1; i < air["context_steps"].size(); ++i)
    CHECK(air["context_steps"][i].get<std::int64_t>() > air["context_steps"][i - 1].get<std::int64_t>());
  // The page's context input (issue 16: the steps and presets were written in the page's code):
  // 1K doubling to 1M, the presets among the steps, the default context among the presets.
  const json& ci = d["context_input"];
  REQUIRE(ci["steps"].size() == 11);
  CHECK(ci["steps"].front() == 1024);
  CHECK(ci["steps"].back() == 1048576);
  for (std::size_t i = 1; i < ci["steps"].size(); ++i) CHECK(ci["steps"][i].get<std::int64_t>() == 2 * ci["steps"][i - 1].get<std::int64_t>());
  for (const auto& p : ci["presets"]) CHECK(std::find(ci["steps"].begin(), ci["steps"].end(), p) != ci["steps"].end());
  CHECK(std::find(ci["presets"].begin(), ci["presets"].end(), json(wif::defaults::kContext)) != ci["presets"].end());
}

// Issue 16: "fits with room to spare" means real room: the upper bound of the total at most 85 %
// of the usable memory (estimate.hpp kRoomToSpareShare); above it, up to the limit, "tight".
TEST_CASE("room to spare starts at 15 percent of the usable memory free", "[estimate][verdict]") {
  const std::uint64_t usable = 20ull << 30;
  const auto at = [&](double share) { return static_cast<std::uint64_t>(share * static_cast<double>(usable)); };
  CHECK(room_to_spare(at(0.85), usable));
  CHECK_FALSE(room_to_spare(at(0.85) + (1ull << 20), usable));
  CHECK_FALSE(room_to_spare(at(0.91), usable));  // the reviewer's 91 %: not room to spare
  CHECK(room_to_spare(at(0.5), usable));
  // Through the estimate: over contexts the verdict is fits exactly when the upper bound is
  // within the share, tight above it while the total fits; both occur.
  bool fits = false, tight = false;
  for (std::int64_t ctx = 8192; ctx <= 131072; ctx += 8192) {
    const json r = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q8_0"}, {"hardware", kRtx4090}, {"context", ctx}});
    REQUIRE_FALSE(r.contains("error"));
    const double high = r["memory"]["total_high_bytes"].get<double>(), u = r["memory"]["usable_bytes"].get<double>();
    CAPTURE(ctx, high / u);
    if (r["verdict"] == "fits") { fits = true; CHECK(high <= kRoomToSpareShare * u); }
    if (r["verdict"] == "tight") { tight = true; CHECK(high > kRoomToSpareShare * u); }
  }
  CHECK(fits);
  CHECK(tight);
}

// Issue 16: a format that is no real choice for the model or device says so as a code.
TEST_CASE("MXFP4_MOE on a dense model and NVFP4 off Blackwell carry their applicability code", "[estimate][formats]") {
  const json dense = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "MXFP4_MOE"}, {"hardware", "nvidia-rtx-4090"}});
  REQUIRE_FALSE(dense.contains("error"));
  CHECK(dense["quant"]["applicability"]["code"] == "moe_only_format");
  const json moe = estimate({{"model", "openai/gpt-oss-20b"}, {"quant", "MXFP4_MOE"}, {"hardware", "nvidia-rtx-4090"}});
  REQUIRE_FALSE(moe.contains("error"));
  CHECK_FALSE(moe["quant"].contains("applicability"));
  const json q4 = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}});
  CHECK_FALSE(q4["quant"].contains("applicability"));
  const auto nvfp4 = [](const char* hw) {
    return estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"quant", "NVFP4"}, {"hardware", hw}});
  };
  const json ada = nvfp4("nvidia-rtx-4090");
  REQUIRE_FALSE(ada.contains("error"));
  CHECK(ada["quant"]["applicability"]["code"] == "fp4_weight_only");
  CHECK_FALSE(nvfp4("nvidia-rtx-5090")["quant"].contains("applicability"));
  CHECK(nvfp4("amd-rx-7900-xtx")["quant"]["applicability"]["code"] == "fp4_no_kernel");
  CHECK(nvfp4("nvidia-v100-sxm2-32gb")["quant"]["applicability"]["code"] == "fp4_no_kernel");
}

// Issue 16: bitsandbytes under vLLM runs where vLLM has its kernels (data/quants.json `backends`:
// CUDA and ROCm; vllm/platforms/rocm.py lists it, the XPU platform does not). Elsewhere the
// estimate says so with a code instead of sizing a setup that cannot load.
TEST_CASE("bitsandbytes formats carry backend_no_kernel off CUDA and ROCm", "[estimate][formats]") {
  const auto bnb = [](const char* quant, const char* hw) {
    return estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"quant", quant}, {"hardware", hw}});
  };
  for (const char* quant : {"BNB-NF4", "BNB-INT8"}) {
    CAPTURE(quant);
    const json cuda = bnb(quant, "nvidia-rtx-4090"), rocm = bnb(quant, "amd-rx-7900-xtx"), xpu = bnb(quant, "intel-arc-a770-16gb");
    REQUIRE_FALSE(cuda.contains("error"));
    REQUIRE_FALSE(rocm.contains("error"));
    REQUIRE_FALSE(xpu.contains("error"));
    CHECK_FALSE(cuda["quant"].contains("applicability"));
    CHECK_FALSE(rocm["quant"].contains("applicability"));
    CHECK(xpu["quant"]["applicability"]["code"] == "backend_no_kernel");
  }
  // AWQ lists Intel GPUs (sycl) among its backends: not affected there.
  CHECK_FALSE(bnb("AWQ-4bit", "intel-arc-a770-16gb")["quant"].contains("applicability"));
  CHECK(format_has_no_kernel("backend_no_kernel"));
  CHECK(format_has_no_kernel("fp4_no_kernel"));
  CHECK_FALSE(format_has_no_kernel("fp4_weight_only"));
}

// Issue 16: the formats vLLM serves from published checkpoints and where its kernels run them
// (vLLM's quantization hardware table, data/quants.json min_cuda_compute_capability and
// native_min_cuda_compute_capability): FP8 natively from 8.9 or where the datasheet states an FP8
// rate, weight-only through Marlin on older CUDA GPUs, not at all on a ROCm part without FP8 math;
// AWQ from 7.5, GPTQ from 7.0. A format that cannot run stays in the result with its code.
TEST_CASE("vLLM's quantized checkpoints: the repo served, the sizes and the kernel rule by device", "[estimate][formats]") {
  const auto vllm = [](const char* model, const char* quant, const char* hw) {
    return estimate({{"model", model}, {"engine", "vllm"}, {"quant", quant}, {"hardware", hw}, {"context", 8192}});
  };
  const char* l8 = "meta-llama/Llama-3.1-8B-Instruct";
  const json fp8_ada = vllm(l8, "FP8", "nvidia-rtx-4090"), fp8_amp = vllm(l8, "FP8", "nvidia-rtx-3090");
  REQUIRE_FALSE(fp8_ada.contains("error"));
  REQUIRE_FALSE(fp8_amp.contains("error"));
  CHECK_FALSE(fp8_ada["quant"].contains("applicability"));
  CHECK(fp8_amp["quant"]["applicability"]["code"] == "fp8_weight_only");
  CHECK_FALSE(vllm(l8, "FP8", "nvidia-h100-sxm")["quant"].contains("applicability"));
  CHECK_FALSE(vllm(l8, "FP8", "nvidia-l20")["quant"].contains("applicability"));  // 8.9, no FP8 figure stated
  CHECK_FALSE(vllm(l8, "FP8", "amd-mi300x")["quant"].contains("applicability"));
  CHECK(vllm(l8, "FP8", "amd-mi250x")["quant"]["applicability"]["code"] == "fp8_no_kernel");
  // RDNA 4 (gfx12, vllm/platforms/rocm.py on_rdna4) has FP8 math without a stated FP8 rate;
  // RDNA 3 has none.
  for (const char* hw : {"amd-rx-9070-xt", "amd-rx-9070", "amd-radeon-ai-pro-r9700"}) {
    const json e = vllm(l8, "FP8", hw);
    INFO(hw);
    REQUIRE_FALSE(e.contains("error"));
    CHECK_FALSE(e["quant"].contains("applicability"));
  }
  CHECK(vllm(l8, "FP8", "amd-rx-7900-xtx")["quant"]["applicability"]["code"] == "fp8_no_kernel");
  CHECK(vllm(l8, "FP8", "intel-arc-a770-16gb")["quant"]["applicability"]["code"] == "backend_no_kernel");
  // AWQ needs Turing (7.5); GPTQ runs from Volta (7.0).
  const json awq_v100 = vllm(l8, "AWQ-4bit", "nvidia-v100-sxm2-32gb");
  REQUIRE_FALSE(awq_v100.contains("error"));
  CHECK(awq_v100["quant"]["applicability"]["code"] == "cc_no_kernel");
  CHECK(awq_v100["quant"]["applicability"]["values"]["min_cuda_compute_capability"] == 7.5);
  CHECK(awq_v100["quant"]["applicability"]["values"]["cuda_compute_capability"] == 7.0);
  CHECK_FALSE(vllm(l8, "GPTQ-4bit", "nvidia-v100-sxm2-32gb")["quant"].contains("applicability"));
  CHECK(vllm(l8, "GPTQ-4bit", "nvidia-tesla-p40")["quant"]["applicability"]["code"] == "cc_no_kernel");
  CHECK(format_has_no_kernel("cc_no_kernel"));
  CHECK(format_has_no_kernel("fp8_no_kernel"));
  CHECK_FALSE(format_has_no_kernel("fp8_weight_only"));

  // The formats offered and the repo each is served from: the publisher's for its dtype, the
  // catalog's published checkpoints, null for a common format none is published of.
  std::map<std::string, json> repo;
  for (const auto& f : fp8_ada.at("server_formats")) repo[f.at("id").get<std::string>()] = f.at("repo");
  CHECK(fp8_ada.at("server_formats").at(0).at("id") == "SAFETENSORS-BF16");
  CHECK(repo.at("SAFETENSORS-BF16") == l8);
  CHECK(repo.at("FP8") == "nvidia/Llama-3.1-8B-Instruct-FP8");
  CHECK(repo.at("AWQ-4bit") == "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4");
  CHECK(repo.at("GPTQ-4bit") == "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16");
  CHECK(repo.count("NVFP4") == 0);  // no published NVFP4 checkpoint of it in the catalog
  CHECK(fp8_ada.at("checkpoint").at("code") == "published");
  // The command serves that repo, which declares its quantization itself.
  const std::string cmd = fp8_ada.at("commands").at("vllm").get<std::string>();
  CHECK(cmd.rfind("vllm serve nvidia/Llama-3.1-8B-Instruct-FP8 ", 0) == 0);
  CHECK(cmd.find("--quantization") == std::string::npos);
  // Llama 3.3 70B has NVIDIA's NVFP4 checkpoint; Qwen3-30B-A3B no AWQ one: listed, none published,
  // and the command says it must be made first.
  const json l70 = vllm("meta-llama/Llama-3.3-70B-Instruct", "NVFP4", "nvidia-b200");
  REQUIRE_FALSE(l70.contains("error"));
  CHECK(l70.at("checkpoint").at("repo") == "nvidia/Llama-3.3-70B-Instruct-FP4");
  const json q30 = vllm("Qwen/Qwen3-30B-A3B", "AWQ-4bit", "nvidia-h100-sxm");
  REQUIRE_FALSE(q30.contains("error"));
  CHECK(q30.at("checkpoint").at("code") == "not_published");
  CHECK(q30.at("checkpoint").at("repo").is_null());
  bool note = false;
  for (const auto& n : q30.at("commands").at("notes")) note = note || n.at("code") == "checkpoint_not_published";
  CHECK(note);
  // Sizes: the published checkpoint's storage. RedHat's symmetric GPTQ keeps no zero points, so
  // it is smaller than AWQ's by 4 bits per 128 weights of the 6,979,321,856 linear ones.
  const json gptq = vllm(l8, "GPTQ-4bit", "nvidia-rtx-4090"), awq = vllm(l8, "AWQ-4bit", "nvidia-rtx-4090");
  CHECK(awq.at("checkpoint_bytes").get<std::uint64_t>() - gptq.at("checkpoint_bytes").get<std::uint64_t>() == 6979321856ull / 256);
}

// Every published checkpoint in the catalog (data/models/*.json `checkpoints`) is what vLLM and
// SGLang are told to serve for its format: the result names its repo, its source and its storage,
// and the command serves that repo; where the catalog records the Hub's size of its safetensors,
// the computed checkpoint is within 3 % of it (the tolerance of the GGUF sizes).
TEST_CASE("every published checkpoint is served by its repo under vLLM, with its storage and, where recorded, its size", "[estimate][formats]") {
  int checked = 0;
  for (const ModelEntry& m : cat().models()) {
    for (const PublishedCheckpoint& c : m.checkpoints) {
      CAPTURE(m.id, c.quant, c.repo);
      const json r = estimate({{"model", m.id}, {"engine", "vllm"}, {"quant", c.quant}, {"hardware", "nvidia-b200"}, {"count", 8}, {"context", 8192}});
      REQUIRE_FALSE(r.contains("error"));
      CHECK(r.at("quant").at("id") == c.quant);
      CHECK(r.at("checkpoint").at("repo") == c.repo);
      CHECK(r.at("checkpoint").at("code") == "published");
      CHECK(r.at("checkpoint").at("source") == c.source);
      CHECK(r.at("checkpoint").at("bits") == c.bits);
      CHECK(r.at("checkpoint").at("group_size") == c.group_size);
      const std::string cmd = r.at("commands").at("vllm").get<std::string>();
      CHECK(cmd.rfind("vllm serve " + c.repo + " ", 0) == 0);
      if (c.bytes > 0) {
        const double ours = r.at("checkpoint_bytes").get<double>();
        CHECK(std::fabs(ours / static_cast<double>(c.bytes) - 1.0) <= 0.03);
        CHECK(r.at("checkpoint").at("published_bytes") == c.bytes);
      }
      ++checked;
    }
  }
  // The first list's 12 checkpoints and the 6 added with Qwen2.5-72B's AWQ, the 235B and GLM-4.5-Air
  // FP8 ones, Gemma 3 27B's and Mistral Small 3.2's.
  CHECK(checked >= 18);
}

TEST_CASE("the cache per 1K tokens times the context plus its fixed part is the cache total", "[estimate][kv_split]") {
  // Sliding-window and hybrid models: windowed layers and recurrent state do not grow with the
  // context; the growing part per token times the cells, plus the fixed part, is the total.
  const auto u = [](const json& v) { return v.get<std::uint64_t>(); };
  struct Case { const char* model; bool fixed; };
  for (const Case c : {Case{"google/gemma-3-27b-it", true}, Case{"google/gemma-4-26B-A4B-it", true},
                       Case{"stepfun-ai/Step-3.5-Flash", true}, Case{"nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", true},
                       Case{"zai-org/GLM-4.5-Air", false}, Case{"moonshotai/Kimi-K2.5", false}}) {
    for (int ctx : {8192, 32768}) {
      CAPTURE(c.model, ctx);
      const json r = estimate({{"model", c.model}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"}, {"context", ctx}});
      REQUIRE_FALSE(r.contains("error"));
      const auto& kv = r["memory"]["kv"];
      const std::uint64_t cells = u(kv["cells"]);
      CHECK(u(kv["growing_bytes_per_token"]) * cells + u(kv["fixed_bytes"]) == u(r["memory"]["kv_cache_bytes"]));
      CHECK((u(kv["fixed_bytes"]) > 0) == c.fixed);
      CHECK(kv["fixed_kinds"].empty() == !c.fixed);
      CHECK(u(kv["growing_bytes_per_1k"]) == 1024 * u(kv["growing_bytes_per_token"]));
      if (!c.fixed) CHECK(u(kv["growing_bytes_per_token"]) == u(kv["bytes_per_token"]));
    }
  }
}

// Issue 16: the model page's reference device and the RAM choices were written in the page's
// code; the core names them (defaults), and the device it names is one of the catalog's GPUs.
TEST_CASE("the defaults name the model page's reference device and the RAM choices", "[estimate][defaults]") {
  const json d = json::parse(api_defaults(cat(), "{}"));
  const json& ref = d["reference_device"];
  CHECK(ref["code"] == "consumer_discrete_gpu");
  const Device* dev = cat().find_device(ref["id"].get<std::string>());
  REQUIRE(dev != nullptr);
  CHECK(dev->kind == DeviceKind::Gpu);
  CHECK(dev->price_usd > 0);  // a card one can buy: the cheapest-setup solve starts from it
  // The limit formats are formats the core knows, the smallest below the high one in size.
  const json lf = d["limit_formats"];
  REQUIRE(find_quant(lf["high"].get<std::string>()));
  REQUIRE(find_quant(lf["smallest"].get<std::string>()));
  const json hi = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", lf["high"]}, {"hardware", ref["id"]}});
  const json lo = estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", lf["smallest"]}, {"hardware", ref["id"]}});
  CHECK(lo["memory"]["weights_bytes"].get<double>() < hi["memory"]["weights_bytes"].get<double>() / 3);
  // The main form's choices: none first, then ascending; the device page's are none and the
  // model page's RAM tiers, each one of the main form's choices.
  const json& ram = d["ram_input"];
  REQUIRE(ram["choices"].size() >= 2);
  CHECK(ram["choices"].front() == 0);
  for (std::size_t i = 1; i < ram["choices"].size(); ++i) CHECK(ram["choices"][i].get<double>() > ram["choices"][i - 1].get<double>());
  const json tl = json::parse(api_tiers(cat(), R"({"model": "Qwen/Qwen3-8B", "quant": "Q4_K_M"})"));
  REQUIRE(tl.contains("ram_tiers_gib"));
  json want = json::array({0});
  for (const auto& g : tl["ram_tiers_gib"]) want.push_back(g);
  CHECK(ram["device_page"] == want);
  for (const auto& g : ram["device_page"])
    CHECK(std::find(ram["choices"].begin(), ram["choices"].end(), g) != ram["choices"].end());
  // The cache choices: llama.cpp's default among its kv_types; each server's default among its
  // dtypes, and each of them one the core accepts under that engine.
  const json& ll = d["engines"]["llama.cpp"];
  CHECK(std::find(ll["kv_types"].begin(), ll["kv_types"].end(), ll["kv_type"]) != ll["kv_types"].end());
  for (const char* en : {"vllm", "sglang"}) {
    const json& e = d["engines"][en];
    CHECK(std::find(e["kv_cache_dtypes"].begin(), e["kv_cache_dtypes"].end(), e["kv_cache_dtype"]) != e["kv_cache_dtypes"].end());
    for (const auto& dt : e["kv_cache_dtypes"]) {
      CAPTURE(en, dt);
      CHECK_FALSE(estimate({{"model", "Qwen/Qwen3-8B"}, {"hardware", "nvidia-h100-sxm"}, {"engine", en}, {"kv_cache_dtype", dt}}).contains("error"));
    }
  }
  for (const auto& t : ll["kv_types"])
    CHECK_FALSE(estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "Q4_K_M"}, {"hardware", ref["id"]}, {"kv_type", t}}).contains("error"));
  // The fine-tuning sequence choices hold the default sequence length, ascending.
  const json& seqs = d["training"]["seq_choices"];
  REQUIRE(seqs.size() >= 3);
  CHECK(std::find(seqs.begin(), seqs.end(), d["training"]["seq"]) != seqs.end());
  for (std::size_t i = 1; i < seqs.size(); ++i) CHECK(seqs[i].get<std::int64_t>() > seqs[i - 1].get<std::int64_t>());
}

// Issue 16: the order of a list of devices to run a model on (the page sorted it itself): the
// core's "order", smallest memory first, a known price before an unknown one, none for a CPU.
TEST_CASE("the welcome's examples are one setup of each kind, each answering as its kind says; the first opens the page", "[estimate][defaults]") {
  const json w = json::parse(api_defaults(cat(), "{}")).at("welcome");
  CHECK(w.at("rule") == "one_per_kind");
  const json& ex = w.at("examples");
  REQUIRE(ex.size() >= 5);
  CHECK(w.at("model") == ex.at(0).at("model"));
  CHECK(w.at("hardware") == ex.at(0).at("hardware"));
  std::set<std::string> kinds;
  for (const json& e : ex) {
    const std::string kind = e.at("kind");
    CAPTURE(kind);
    CHECK(kinds.insert(kind).second);  // one of each
    json q = {{"model", e.at("model")}, {"quant", e.at("quant")}, {"hardware", e.at("hardware")}, {"count", e.at("count")},
              {"ram_gib", e.at("ram_gib")}, {"engine", e.at("engine")}, {"detail", "summary"}};
    const json r = estimate(q);
    REQUIRE_FALSE(r.contains("error"));
    CHECK(r.at("quant").at("id") == e.at("quant"));  // the format is the one shown, not replaced
    const std::string run = r.at("run_state");
    if (kind == "ram_offload") CHECK(run == "runs_offloaded");
    else CHECK(run == "runs");
    const std::string hk = r.at("hardware").at("kind");
    if (kind == "one_gpu") CHECK((hk == "gpu" && e.at("count") == 1));
    if (kind == "mac") CHECK(hk == "apple");
    if (kind == "unified_pc") CHECK(hk == "unified");
    if (kind == "several_gpus" || kind == "server") CHECK(e.at("count").get<int>() > 1);
    if (kind == "server") CHECK(e.at("engine") != "llama.cpp");
    else CHECK(e.at("engine") == "llama.cpp");
  }
}

TEST_CASE("the hardware list orders the accelerators by memory, then price", "[estimate][defaults]") {
  const json list = json::parse(api_list(cat(), "hardware"))["hardware"];
  std::vector<const json*> acc;
  for (const auto& d : list) {
    CAPTURE(d["id"]);
    if (d["kind"] == "cpu") CHECK(d["order"].is_null());
    else { REQUIRE(d["order"].is_number_integer()); acc.push_back(&d); }
  }
  std::sort(acc.begin(), acc.end(), [](const json* a, const json* b) { return (*a)["order"].get<int>() < (*b)["order"].get<int>(); });
  REQUIRE(acc.size() > 10);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const json& a = *acc[i];
    CAPTURE(a["id"]);
    CHECK(a["order"].get<std::size_t>() == i);  // distinct places 0..n-1
    if (i == 0) continue;
    const json& p = *acc[i - 1];
    const double ma = a["memory_gib"].is_number() ? a["memory_gib"].get<double>() : 0, mp = p["memory_gib"].is_number() ? p["memory_gib"].get<double>() : 0;
    CHECK(ma >= mp);
    if (ma == mp && a["price_usd"].is_number()) {
      REQUIRE(p["price_usd"].is_number());  // no unknown price before a known one
      CHECK(a["price_usd"].get<double>() >= p["price_usd"].get<double>());
    }
  }
}

// Issue 16: gpt-oss's server default read BF16 while its checkpoint is MXFP4. The kind: a
// server engine's default is the checkpoint as published, and a config read alone (an import)
// says so through its quantization_config, as the catalog entry does.
TEST_CASE("the server default is the published checkpoint, from the config alone too", "[estimate][defaults]") {
  std::size_t quantized = 0;
  for (const auto& m : cat().models()) {
    if (!m.raw.contains("config")) continue;
    CAPTURE(m.id);
    const json cfg = m.raw["config"];
    const bool has_q = cfg.contains("quantization_config") ||
                       (cfg.contains("text_config") && cfg["text_config"].is_object() && cfg["text_config"].contains("quantization_config"));
    const json a = json::parse(api_defaults(cat(), json({{"model", m.id}}).dump()));
    const json b = json::parse(api_defaults(cat(), json({{"model", {{"config", cfg}, {"name", m.name}}}}).dump()));
    if (a.contains("error") || b.contains("error")) continue;
    if (!has_q) continue;
    ++quantized;
    // Read with at(): a missing engine or field is a failed check naming it, not a lookup of a
    // key that is not there.
    for (const char* engine : {"vllm", "sglang"}) {
      CAPTURE(engine);
      CHECK(a.at("engines").at(engine).at("quant") == b.at("engines").at(engine).at("quant"));
    }
  }
  CHECK(quantized >= 8);
  const json oss = json::parse(api_defaults(cat(), R"({"model": "openai/gpt-oss-20b"})"));
  CHECK(oss["engines"]["vllm"]["quant"] == "BF16-MXFP4-MOE");
  CHECK(oss["engines"]["sglang"]["quant"] == "BF16-MXFP4-MOE");
  const json r1 = json::parse(api_defaults(cat(), R"({"model": "deepseek-ai/DeepSeek-R1"})"));
  CHECK(r1["engines"]["vllm"]["quant"] == "FP8");
  // The MXFP4 checkpoint: the experts at 4.25 bits, attention and embeddings in BF16: above the
  // GGUF that keeps those in Q8_0, under the 16 GB the model card names, a third of BF16 or less.
  const auto weights = [](const char* q, const char* engine) {
    const json r = estimate({{"model", "openai/gpt-oss-20b"}, {"quant", q}, {"hardware", "nvidia-h100-sxm"}, {"engine", engine}});
    REQUIRE_FALSE(r.contains("error"));
    return r.contains("checkpoint_bytes") && r["checkpoint_bytes"].is_number() ? r["checkpoint_bytes"].get<double>()
                                                                                 : r.at("gguf_file_bytes").get<double>();
  };
  const double st = weights("BF16-MXFP4-MOE", "vllm"), gg = weights("MXFP4_MOE", "llama.cpp"), bf = weights("SAFETENSORS-BF16", "vllm");
  CHECK(st > gg);
  CHECK(st < 16e9);
  CHECK(st < bf / 3);
  // A server engine reads "MXFP4" as that checkpoint, llama.cpp as its GGUF type.
  const json v = estimate({{"model", "openai/gpt-oss-20b"}, {"quant", "MXFP4"}, {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"}});
  REQUIRE_FALSE(v.contains("error"));
  CHECK(v["quant"]["id"] == "BF16-MXFP4-MOE");
}

}  // namespace estimate_test_cases
