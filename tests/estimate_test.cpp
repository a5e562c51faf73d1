#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/catalog/catalog.hpp"

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
  // A model given by its config has no published file; nor does a format nobody published.
  CHECK_FALSE(estimate({{"model", glm_air()}, {"quant", "Q8_0"}, {"hardware", "nvidia-rtx-4090"}}).contains("gguf_file_published_bytes"));
  CHECK_FALSE(estimate({{"model", "zai-org/GLM-4.5-Air"}, {"quant", "IQ1_S"}, {"hardware", "nvidia-rtx-4090"}}).contains("gguf_file_published_bytes"));
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
