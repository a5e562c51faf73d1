// vLLM and SGLang set a KV pool aside at start: the result says what the request needs (weights,
// activations and the stated sequences' cache at its context) against that share, the pool's room
// beyond them, how many sequences the pool holds against the engine's running-request cap, and the
// cost per token at one user and at the pool's concurrency.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"

namespace serving_demand_test_cases {

using nlohmann::json;

namespace {
const wif::Catalog& cat() { return wif_test::catalog(); }
using wif_test::estimate;
double num(const json& j) { return j.get<double>(); }
json sglang_8b(std::int64_t ctx) {
  return estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "sglang"},
                   {"hardware", "nvidia-rtx-4090"}, {"context", ctx}});
}
// The value after `flag` in a launch command.
long long flag_value(const std::string& cmd, const std::string& flag) {
  std::istringstream in(cmd);
  for (std::string w; in >> w;)
    if (w == flag && in >> w) return std::stoll(w);
  FAIL("no " << flag << " in " << cmd);
  return -1;
}
}  // namespace

TEST_CASE("SGLang: Required is the need of one sequence at the context, below the engine's share", "[serving_demand]") {
  const json r = sglang_8b(8192);
  REQUIRE(r["verdict"] == "fits");
  const json& m = r["memory"];
  const json& sv = r["sglang"];
  const json& d = sv["demand"];
  // Llama 3.1 8B: 32 layers x 8 KV heads x 128 x (K + V) x 2 bytes = 128 KiB a token.
  CHECK(num(sv["kv_bytes_per_token"]) == 131072);
  CHECK(d["sequences"] == 1);
  CHECK(d["sequences_code"] == "one");
  CHECK(d["context"] == 8192);
  CHECK(num(d["kv_bytes"]) == 8192.0 * 131072);  // 1 GiB
  CHECK(num(m["kv_cache_bytes"]) == num(d["kv_bytes"]));
  CHECK(num(m["kv_pool_bytes"]) == num(sv["per_gpu"]["kv_available_bytes"]));
  CHECK(num(m["total_bytes"]) == num(m["weights_bytes"]) + num(m["kv_cache_bytes"]) + num(m["compute_bytes"]) + num(m["overhead_bytes"]));
  // The engine's share is the same terms with the whole pool: all of usable memory for SGLang
  // (its static fraction plus what it leaves to activations), so the old "margin" was zero.
  CHECK(num(m["reserved_bytes"]) == num(m["total_bytes"]) - num(m["kv_cache_bytes"]) + num(m["kv_pool_bytes"]));
  CHECK(num(m["reserved_bytes"]) <= num(m["usable_bytes"]));
  CHECK(num(m["total_bytes"]) < num(m["reserved_bytes"]));
  // The margin is the pool's room beyond the one sequence: more than 3 GiB on a 4090.
  CHECK(num(m["margin_bytes"]) == num(m["kv_pool_bytes"]) - num(m["kv_cache_bytes"]));
  CHECK(num(m["margin_bytes"]) > 3.0 * wif_test::kGiB);
  CHECK(num(d["room_bytes"]) == num(m["margin_bytes"]));
  CHECK(num(m["utilization"]) < 0.9);
  // Sequences: what the pool holds at once at 8K against the engine's cap in the command.
  CHECK(d["pool_sequences"] == static_cast<std::int64_t>(std::floor(num(sv["max_concurrency"]))));
  CHECK(d["pool_sequences"] == 4);
  CHECK(d["room_sequences"] == 3);
  CHECK(d["engine_cap"] == sv["settings"]["max_num_seqs"]);
  CHECK(flag_value(r["commands"]["sglang"], "--max-running-requests") == d["engine_cap"].get<long long>());
  CHECK(d["engine_cap"].get<long long>() > 4);  // SGLang's default cap, reached by shorter requests
  CHECK(d["limit_code"] == "pool");
  CHECK(d["sequences_at_once"] == 4);
  CHECK(sv["throughput"]["max_concurrency"] == d["sequences_at_once"]);
  // Per device: the same need and the pool beside it.
  REQUIRE(m["devices"].size() == 1);
  CHECK(m["devices"][0]["total_bytes"] == m["total_bytes"]);
  CHECK(m["devices"][0]["kv_pool_bytes"] == m["kv_pool_bytes"]);
}

TEST_CASE("the need grows with the context against a fixed engine share, and crosses it where the pool ends", "[serving_demand]") {
  double last = 0, reserved = 0;
  for (std::int64_t ctx : {4096, 8192, 16384, 32768}) {
    CAPTURE(ctx);
    const json r = sglang_8b(ctx);
    REQUIRE(r["verdict"] == "fits");
    const double total = num(r["memory"]["total_bytes"]);
    CHECK(total > last);
    CHECK(num(r["memory"]["total_bytes"]) <= num(r["memory"]["reserved_bytes"]));
    if (reserved > 0) CHECK(num(r["memory"]["reserved_bytes"]) == reserved);
    reserved = num(r["memory"]["reserved_bytes"]);
    last = total;
  }
  // 64K: one sequence needs 8 GiB of cache, more than the pool: the need is over the share.
  const json r = sglang_8b(65536);
  CHECK(r["verdict"] == "no_fit");
  CHECK(num(r["memory"]["total_bytes"]) > num(r["memory"]["reserved_bytes"]));
  CHECK(num(r["memory"]["margin_bytes"]) < 0);
  CHECK(r["sglang"]["demand"]["pool_sequences"] == 0);
}

TEST_CASE("vLLM: one sequence's blocks, the sequences asked, and a cap below the pool", "[serving_demand]") {
  const json r = estimate({{"model", "deepseek-ai/DeepSeek-V3-0324"}, {"engine", "vllm"}, {"hardware", "nvidia-h200-sxm"},
                           {"count", 8}, {"context", 32768}, {"concurrency", 3}});
  REQUIRE(r["verdict"] == "fits");
  const json& sv = r["vllm"];
  const json& d = sv["demand"];
  CHECK(d["sequences"] == 3);
  CHECK(d["sequences_code"] == "asked");
  // MLA on 61 layers at block 64: 32768 / 64 = 512 blocks of 61 x 64 x 576 latents x 2 bytes,
  // kept whole on each of the 8 GPUs.
  const double per_gpu = 512.0 * 61 * 64 * 576 * 2;
  CHECK(num(d["kv_per_sequence_bytes"]) == 8 * per_gpu);
  CHECK(num(d["kv_bytes"]) == 3 * 8 * per_gpu);
  CHECK(num(r["memory"]["kv_cache_bytes"]) == num(d["kv_bytes"]));
  CHECK(num(d["room_bytes"]) == num(d["kv_pool_bytes"]) - num(d["kv_bytes"]));
  CHECK(d["room_sequences"] == d["pool_sequences"].get<long long>() - 3);
  CHECK(flag_value(r["commands"]["vllm"], "--max-num-seqs") == d["engine_cap"].get<long long>());
  // A cap below what the pool holds limits the sequences at once, and says so.
  const json c = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"hardware", "nvidia-h100-sxm"},
                           {"context", 4096}, {"max_num_seqs", 8}});
  REQUIRE(c["verdict"] == "fits");
  CHECK(c["vllm"]["demand"]["pool_sequences"].get<long long>() > 8);
  CHECK(c["vllm"]["demand"]["limit_code"] == "engine_cap");
  CHECK(c["vllm"]["demand"]["sequences_at_once"] == 8);
}

TEST_CASE("a serving engine's cost per token is given at one user and at the pool's concurrency", "[serving_demand][cost]") {
  const json q = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "sglang"}, {"hardware", "nvidia-rtx-4090"},
                  {"context", 8192}, {"market", "US"}};
  const json c = json::parse(wif::api_cost(cat(), q.dump()));
  REQUIRE_FALSE(c.contains("error"));
  const json e = estimate(q);
  const json& tp = e["sglang"]["throughput"];
  REQUIRE(tp["concurrency"].get<int>() > 1);
  const json& pm = c["owned"]["per_million_tokens_usd"];
  CHECK(num(pm["decode_tps"]) == num(e["speed"]["decode_tps"]));
  REQUIRE(pm.contains("batched"));
  CHECK(num(pm["batched_tps"]) == num(tp["aggregate_tps"]));
  CHECK(pm["concurrency"] == tp["concurrency"]);
  CHECK(num(pm["batched"]) < num(pm["single"]));
  CHECK_THAT(num(pm["batched"]) * num(pm["batched_tps"]), Catch::Matchers::WithinRel(num(pm["single"]) * num(pm["decode_tps"]), 1e-9));
  // llama.cpp serves one request here: no batched figure is made up.
  json l = q;
  l["engine"] = "llama.cpp";
  l["quant"] = "Q4_K_M";
  const json cl = json::parse(wif::api_cost(cat(), l.dump()));
  REQUIRE_FALSE(cl.contains("error"));
  CHECK_FALSE(cl["owned"]["per_million_tokens_usd"].contains("batched"));
}

TEST_CASE("vLLM and SGLang read the form's parallel sequences as the sequences the person states", "[serving_demand]") {
  for (const char* engine : {"sglang", "vllm"}) {
    INFO(engine);
    const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", engine},
                       {"hardware", "nvidia-rtx-4090"}, {"context", 8192}};
    json by_parallel = base, by_concurrency = base;
    by_parallel["parallel"] = 3;
    by_concurrency["concurrency"] = 3;
    const json one = estimate(base), p = estimate(by_parallel), c = estimate(by_concurrency);
    const json& dp = p[engine]["demand"];
    CHECK(dp["sequences"] == 3);
    CHECK(c[engine]["demand"]["sequences"] == 3);
    CHECK(one[engine]["demand"]["sequences"] == 1);
    // The same need either way, and three sequences' cache more than one's.
    CHECK(num(p["memory"]["total_bytes"]) == num(c["memory"]["total_bytes"]));
    CHECK(num(p["memory"]["kv_cache_bytes"]) == Approx(3 * num(one["memory"]["kv_cache_bytes"])).epsilon(1e-9));
    // concurrency, where both are given, is the one that counts.
    json both = by_parallel;
    both["concurrency"] = 2;
    CHECK(estimate(both)[engine]["demand"]["sequences"] == 2);
  }
  // llama.cpp keeps parallel as its -np (cells per sequence), not a server's demand.
  const json l = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"quant", "Q4_K_M"},
                           {"hardware", "nvidia-rtx-4090"}, {"context", 8192}, {"parallel", 3}});
  CHECK(l["settings"]["parallel"] == 3);
}

// Every caller of an estimate's total (solve, cost's cloud filter) reads the serving engine's
// memory, the figure the estimate document states as memory.total_bytes, not the llama.cpp
// placement the engine step starts from.
// Issue 16: Llama 3.1 70B in BF16 on two Ascend 910B (64 GB each): the weights alone exceed each
// rank's share, the engine does not start, and the share it sets aside is what it asks for, never
// more than the usable memory (it read "sets aside 136.64 GiB of 127.30 GiB usable" for vLLM and
// 158.48 GiB for SGLang, the weights plus an empty pool).
TEST_CASE("vLLM and SGLang: when the weights exceed the engine's share it sets aside its share, not more than usable", "[serving_demand]") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const json r = estimate({{"model", "meta-llama/Llama-3.1-70B-Instruct"}, {"engine", engine},
                             {"hardware", "huawei-ascend-910b"}, {"count", 2}, {"context", 8192}});
    REQUIRE_FALSE(r.contains("error"));
    REQUIRE(r["verdict"] == "no_fit");
    const json& m = r["memory"];
    const json& pg = r[engine]["per_gpu"];
    REQUIRE(pg["kv_available_bytes"].get<double>() < 0);
    CHECK(num(m["kv_pool_bytes"]) == 0);
    CHECK(num(m["reserved_bytes"]) <= num(m["usable_bytes"]));
    // The share is the same terms with the (negative) pool: weights, activations, runtime and pool.
    CHECK(num(m["reserved_bytes"]) == 2 * (num(pg["weights_bytes"]) + num(pg["activation_bytes"]) + num(pg["non_torch_bytes"]) +
                                           num(pg["cuda_context_bytes"]) + num(pg["cuda_graph_bytes"]) + num(pg["kv_available_bytes"])));
    // What the request needs is still more than that share: the card says by how much.
    CHECK(num(m["total_bytes"]) > num(m["reserved_bytes"]));
  }
}

TEST_CASE("vLLM and SGLang: solve's and cost's totals are the engine's memory, as the estimate states it", "[serving_demand][solve][cost]") {
  for (const char* engine : {"vllm", "sglang"}) {
    INFO(engine);
    const json base = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", engine}, {"context", 8192}, {"parallel", 3}};
    json on4090 = base;
    on4090["hardware"] = "nvidia-rtx-4090";
    const json e = estimate(on4090);
    REQUIRE(e["verdict"] == "fits");
    const double need = num(e["memory"]["total_bytes"]);
    // max_context at the model's own limit or below: the total is the estimate's at that context.
    json mc = on4090;
    mc["solve"] = "max_context";
    mc["min_context"] = 8192;
    const json m = json::parse(wif::api_solve(cat(), mc.dump()));
    REQUIRE_FALSE(m.contains("error"));
    REQUIRE(m["max_context"].get<std::int64_t>() > 0);
    json at = on4090;
    at["context"] = m["max_context"];
    CHECK(num(m["total_bytes"]) == num(estimate(at)["memory"]["total_bytes"]));
    // smallest_device: the device's total is that device's estimate's.
    json sd = base;
    sd["solve"] = "smallest_device";
    const json s = json::parse(wif::api_solve(cat(), sd.dump()));
    REQUIRE(s["found"] == true);
    json direct = base;
    direct["hardware"] = s["device"]["id"];
    direct["ram_gib"] = 0;
    CHECK(num(s["device"]["total_bytes"]) == num(estimate(direct)["memory"]["total_bytes"]));
    // cost: the need the cloud offers are filtered by is the estimate's.
    json cq = on4090;
    cq["market"] = "US";
    const json c = json::parse(wif::api_cost(cat(), cq.dump()));
    REQUIRE_FALSE(c.contains("error"));
    CHECK(num(c["memory_need_bytes"]) == need);
  }
}

// The cheapest cloud offer per token and the table's order read one figure, on the basis the
// request states: one user, or the sequences a serving engine is asked to hold at once.
TEST_CASE("cost ranks cloud offers per token on the stated basis: one user, or the stated sequences", "[serving_demand][cost]") {
  for (const int seqs : {0, 4}) {
    INFO("parallel " << seqs);
    json q = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"engine", "vllm"}, {"hardware", "nvidia-rtx-4090"},
              {"context", 8192}, {"market", "US"}};
    if (seqs > 0) q["parallel"] = seqs;
    const json c = json::parse(wif::api_cost(cat(), q.dump()));
    REQUIRE_FALSE(c.contains("error"));
    const bool stated = seqs > 1;
    CHECK(c["cloud_basis"]["code"] == (stated ? "stated_sequences" : "one_user"));
    CHECK(c["cloud_basis"]["sequences"] == (stated ? seqs : 1));
    double lowest = 1e300;
    std::string lowest_id;
    int batched_rows = 0;
    for (const auto& o : c["clouds"]) {
      if (!o.contains("per_million_tokens_usd")) continue;
      const json& pm = o["per_million_tokens_usd"];
      if (stated && pm.contains("batched")) {
        ++batched_rows;
        CHECK(num(pm["basis_usd"]) == num(pm["batched"]));
        CHECK(pm["basis_sequences"] == pm["concurrency"]);
        CHECK(pm["concurrency"].get<int>() <= seqs);
      } else {
        CHECK(num(pm["basis_usd"]) == num(pm["single"]));
        CHECK(pm["basis_sequences"] == 1);
      }
      if (num(pm["basis_usd"]) < lowest) {
        lowest = num(pm["basis_usd"]);
        lowest_id = o["id"].get<std::string>();
      }
    }
    REQUIRE(c.contains("cheapest_offer"));
    CHECK(num(c["cheapest_offer"]["usd"]) == lowest);
    CHECK(c["cheapest_offer"]["id"] == lowest_id);
    if (stated) {
      CHECK(batched_rows > 0);
      // Four users at once cost less per token than one on the same offer.
      CHECK(lowest < num(json::parse(wif::api_cost(cat(), [&] { json o = q; o.erase("parallel"); return o.dump(); }()))["cheapest_offer"]["usd"]));
    }
  }
}

}  // namespace serving_demand_test_cases
