#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/calibration/llama_bench.hpp"
#include "willitfit/catalog/catalog.hpp"

namespace bench_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
const json& report() { return wif_test::accuracy_report(); }
const json& row(const std::string& kind, const std::string& cls) {
  for (const auto& t : report()["table"])
    if (t["kind"] == kind && t["device_class"] == cls) return t;
  FAIL("no row " << kind << "/" << cls);
  static json none;
  return none;
}
}  // namespace

TEST_CASE("every llama-bench row is either predicted or counted under a reason", "[bench]") {
  const auto rows = wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/llamacpp_bench.jsonl");
  const BenchSet set = map_bench_rows(cat());
  CHECK(set.rows_total == static_cast<int>(rows.size()));
  int excluded = 0;
  for (const auto& [why, n] : set.excluded) excluded += n;
  CHECK(excluded + static_cast<int>(set.cases.size()) == set.rows_total);
  CHECK(set.cases.size() > 250);
}

TEST_CASE("every multi-GPU row whose hardware maps is predicted through the placement as its own group", "[bench]") {
  const auto rows = wif_test::read_jsonl(std::string(WIF_CALIBRATION_DIR) + "/llamacpp_bench.jsonl");
  const BenchSet set = map_bench_rows(cat());
  int multi_rows = 0;
  for (const auto& r : rows) multi_rows += r.value("gpu_count", 1) > 1 ? 1 : 0;
  int multi_cases = 0;
  for (const auto& c : set.cases) {
    if (c.group != "multi_gpu") continue;
    ++multi_cases;
    CAPTURE(c.row_id);
    CHECK(c.gpu_count > 1);
    CHECK(c.placed != nullptr);
    const double p = predict_case(c, speed_coefficients(cat()));
    CHECK(std::isfinite(p));
    CHECK(p > 0);
  }
  CHECK(multi_cases > 0);
  CHECK(multi_cases <= multi_rows);
  CHECK(set.excluded.count("split over several GPUs (placement)") == 0);
}

TEST_CASE("the report lists decode and prefill for every split, with rows equal to the mapped cases", "[bench][report]") {
  const BenchSet set = map_bench_rows(cat());
  std::map<std::string, std::size_t> want;
  for (const auto& c : set.cases) {
    if (c.group == "single") {
      ++want[c.kind + "/in_sample"];
      if (c.held_out) ++want[c.kind + "/held_out"];
    } else {
      ++want[c.kind + "/" + c.group];
    }
  }
  const json& groups = report()["groups"];
  REQUIRE(groups.size() == 8);
  std::set<std::string> seen;
  for (const auto& g : groups) {
    const std::string key = g["kind"].get<std::string>() + "/" + g["split"].get<std::string>();
    CAPTURE(key);
    seen.insert(key);
    CHECK(g["rows"].get<std::size_t>() == want[key]);
    for (const char* f : {"median_ape_pct", "within_25_pct"}) {
      CHECK(std::isfinite(g[f].get<double>()));
      CHECK(g[f].get<double>() >= 0);
    }
    CHECK(g["within_25_pct"].get<double>() <= 100.0);
  }
  for (const char* kind : {"tg", "pp"})
    for (const char* split : {"in_sample", "held_out", "multi_gpu", "offloaded"})
      CHECK(seen.count(std::string(kind) + "/" + split) == 1);
  CHECK(want["tg/held_out"] > 10);
  CHECK(want["tg/multi_gpu"] > 0);
}

TEST_CASE("the report states its error band and counts the in-sample rows within it", "[bench][report]") {
  const double band = report()["band_pct"].get<double>();
  CHECK(band == 25.0);
  for (const char* kind : {"tg", "pp"}) {
    int n = 0, in = 0;
    for (const auto& p : report()["points"])
      if (p["kind"] == kind && p["group"] == "single") {
        ++n;
        in += std::fabs(p["error_pct"].get<double>()) <= band ? 1 : 0;
      }
    for (const auto& g : report()["groups"])
      if (g["kind"] == kind && g["split"] == "in_sample") {
        CAPTURE(kind);
        REQUIRE(n > 0);
        CHECK(std::fabs(g["within_25_pct"].get<double>() - 100.0 * in / n) < 1e-9);
      }
  }
}

TEST_CASE("points that look the same name the fields that differ between them", "[bench][report]") {
  std::map<std::string, std::vector<const json*>> same;
  for (const auto& p : report()["points"]) {
    REQUIRE(p.contains("distinct"));
    REQUIRE(p.contains("setup"));
    same[p["model"].get<std::string>() + "|" + p["hardware"].get<std::string>() + "|" + p["gpu_count"].dump() + "|" +
         p["quant"].get<std::string>() + "|" + p["test"].get<std::string>() + "|" + p["device_class"].get<std::string>() + "|" +
         p.value("settings", "")].push_back(&p);
  }
  int sets = 0;
  for (const auto& [key, ps] : same) {
    CAPTURE(key);
    if (ps.size() == 1) {
      CHECK((*ps[0])["distinct"].empty());
      continue;
    }
    ++sets;
    const json& d = (*ps[0])["distinct"];
    REQUIRE_FALSE(d.empty());
    for (const json* p : ps) CHECK((*p)["distinct"] == d);
    // Each named field (other than the row id) really takes two values within the set.
    for (const auto& f : d) {
      if (f == "row_id") continue;
      std::set<std::string> values;
      for (const json* p : ps) values.insert(f == "source" ? (*p)["source"].dump() : (*p)["setup"][f.get<std::string>()].dump());
      CHECK(values.size() > 1);
    }
  }
  CHECK(sets > 0);
  // GLM-4.5-Air on Strix Halo: the same test under two Vulkan drivers and flash attention on/off.
  for (const auto& p : report()["points"])
    if (p["row_id"] == "bench-0343") {
      CHECK(p["setup"]["backend"] == "Vulkan AMDVLK");
      CHECK(p["distinct"] == json::array({"backend", "flash_attn"}));
    }
}

TEST_CASE("held-out decode stays within the issue's bar on devices the fit never saw", "[bench][report]") {
  for (const auto& g : report()["groups"])
    if (g["kind"] == "tg" && g["split"] == "held_out") {
      CAPTURE(g.dump());
      CHECK(g["median_ape_pct"].get<double>() <= 12.0);
      CHECK(g["within_25_pct"].get<double>() >= 80.0);
    }
}

// Issue 18's "Done when" figures that the shipped data meets (npm run accuracy): a change that
// makes one of them fail must say why in the data, not quietly.
TEST_CASE("prefill and decode groups stay within issue 18's bars", "[bench][report]") {
  std::map<std::string, json> g;
  for (const auto& x : report()["groups"]) g[x["kind"].get<std::string>() + "/" + x["split"].get<std::string>()] = x;
  auto median = [&](const char* k) { CAPTURE(k); return g.at(k)["median_ape_pct"].get<double>(); };
  CHECK(median("pp/in_sample") <= 12.0);
  CHECK(median("pp/held_out") <= 12.0);
  CHECK(median("pp/multi_gpu") <= 15.0);
  CHECK(median("pp/offloaded") <= 25.0);
  CHECK(median("tg/offloaded") <= 10.0);
  // Decode held out: 5 % on the 34 rows issue 18 judged; 7 % since four more held-out devices were
  // linked (bench_mapping.json about: RTX 4070 Ti on Vulkan, Radeon AI PRO R9700 on ROCm and Vulkan,
  // Tesla P40; 38 rows, median 6.9 %), the P40 (Pascal) decoding 19 % below the CUDA fit.
  CHECK(median("tg/held_out") <= 7.0);
  // Ranges: about 80 % of held-out rows inside, between 70 % and 90 %.
  for (const char* k : {"tg/held_out", "pp/held_out"}) {
    CAPTURE(k);
    CHECK(g.at(k)["coverage_basis"] == "held_out");
    CHECK(g.at(k)["coverage_pct"].get<double>() >= 70.0);
    CHECK(g.at(k)["coverage_pct"].get<double>() <= 90.0);
  }
}

TEST_CASE("a row the mapping leaves out by id is counted under its stated reason", "[bench]") {
  std::vector<CatalogFile> files = embedded_catalog();
  const json row = {{"row_id", "test-excluded-1"}, {"model", "Meta-Llama-3-8B"}, {"quant", "Q4_K_M"},
                    {"backend", "CUDA"}, {"hardware", "NVIDIA GeForce RTX 3090"}, {"gpu_count", 1},
                    {"test", "tg128"}, {"tps", 100.0}, {"source", "test"}};
  files.push_back({"measurements/test_excluded.jsonl", row.dump() + "\n"});
  const int before = static_cast<int>(map_bench_rows(Catalog::load(files)).cases.size());
  for (auto& f : files)
    if (f.path == "measurements/bench_mapping.json") {
      json m = json::parse(f.text);
      m["rows_excluded"].push_back({{"rows", {"test-excluded-1"}}, {"reason", "test: setup differs"}});
      f.text = m.dump();
    }
  const BenchSet set = map_bench_rows(Catalog::load(files));
  CHECK(static_cast<int>(set.cases.size()) == before - 1);
  CHECK(set.excluded.at("test: setup differs") == 1);
  for (const auto& c : set.cases) CHECK(c.row_id != "test-excluded-1");
}

TEST_CASE("the held-out split is a fixed rule on the device id, not a draw", "[bench]") {
  const BenchSet a = map_bench_rows(cat());
  const BenchSet b = map_bench_rows(cat());
  REQUIRE(a.cases.size() == b.cases.size());
  std::set<std::string> held, all;
  for (std::size_t i = 0; i < a.cases.size(); ++i) {
    CHECK(a.cases[i].held_out == b.cases[i].held_out);
    CHECK(a.cases[i].held_out == held_out_device(a.cases[i].device_id));
    all.insert(a.cases[i].device_id);
    if (a.cases[i].held_out) held.insert(a.cases[i].device_id);
  }
  // About one device in four, and every held-out device has only held-out rows.
  CHECK(held.size() * 10 >= all.size() * 1);
  CHECK(held.size() * 10 <= all.size() * 4);
  CHECK(held_out_device("nvidia-rtx-5080") == held_out_device(std::string("nvidia-rtx-") + "5080"));
  // Refitting without the held-out devices is deterministic too.
  const SpeedCoefficients k1 = fit_speed(a, speed_coefficients(cat()), true);
  const SpeedCoefficients k2 = fit_speed(b, speed_coefficients(cat()), true);
  CHECK(k1.backends.at("cuda").bw_eff == k2.backends.at("cuda").bw_eff);
}

TEST_CASE("an offloaded row (-ngl below the layer count, experts on the CPU) is its own group", "[bench][report]") {
  // Add one more offloaded run to a copy of the catalog: it must land in the offloaded group.
  auto offloaded_tg_rows = [](const json& rep) {
    for (const auto& g : rep["groups"])
      if (g["kind"] == "tg" && g["split"] == "offloaded") return g["rows"].get<int>();
    return -1;
  };
  const int shipped = offloaded_tg_rows(report());
  std::vector<CatalogFile> files = embedded_catalog();
  const json row = {{"row_id", "test-offload-1"}, {"model", "GLM-4.5-Air"}, {"quant", "Q4_K_M"},
                    {"backend", "CUDA"}, {"hardware", "NVIDIA GeForce RTX 3090"}, {"gpu_count", 1},
                    {"test", "tg128"}, {"tps", 10.0}, {"source", "test"}, {"flags", "-ngl 99 --n-cpu-moe 40"},
                    {"ram_gib", 128}, {"ram_bandwidth_gbs", 80}};
  files.push_back({"measurements/test_offload.jsonl", row.dump() + "\n"});
  const Catalog c = Catalog::load(files);
  const BenchSet set = map_bench_rows(c);
  const BenchCase* found = nullptr;
  for (const auto& bc : set.cases)
    if (bc.row_id == "test-offload-1") found = &bc;
  REQUIRE(found != nullptr);
  CHECK(found->group == "offloaded");
  CHECK(found->settings.find("--n-cpu-moe 40") != std::string::npos);
  const double p = predict_case(*found, speed_coefficients(c));
  CHECK(std::isfinite(p));
  CHECK(p > 0);
  // 40 of 46 layers' experts stream from 80 GB/s RAM: far slower than on the GPU alone would be.
  CHECK(p < 40.0);
  CHECK(offloaded_tg_rows(accuracy_report(c)["accuracy"]) == shipped + 1);
}

TEST_CASE("the shipped offloaded rows are all predicted through the placement path", "[bench]") {
  // Rows with -ngl below the layer count, --n-cpu-moe or every expert on the CPU (data/measurements).
  const BenchSet set = map_bench_rows(cat());
  int offloaded = 0;
  for (const auto& c : set.cases) {
    if (c.group != "offloaded") continue;
    ++offloaded;
    CAPTURE(c.row_id);
    CHECK(c.placed != nullptr);
    CHECK(!c.settings.empty());
    const double p = predict_case(c, speed_coefficients(cat()));
    CHECK(std::isfinite(p));
    CHECK(p > 0);
  }
  CHECK(offloaded >= 20);
}

TEST_CASE("decode predictions meet the issue's bar and beat both naive baselines", "[bench]") {
  const json& t = row("tg", "all");
  CAPTURE(t.dump());
  CHECK(t["ours"]["median_ape_pct"].get<double>() <= 12.0);
  CHECK(t["ours"]["within_25_pct"].get<double>() >= 80.0);
  CHECK(t["ours"]["median_ape_pct"].get<double>() < 0.5 * t["bandwidth_over_size_scaled"]["median_ape_pct"].get<double>());
  CHECK(t["ours"]["median_ape_pct"].get<double>() < t["bandwidth_over_size"]["median_ape_pct"].get<double>());
}

TEST_CASE("prefill predictions meet the issue's bar and beat both naive baselines", "[bench]") {
  const json& t = row("pp", "all");
  CAPTURE(t.dump());
  CHECK(t["ours"]["median_ape_pct"].get<double>() <= 25.0);
  CHECK(t["ours"]["median_ape_pct"].get<double>() < 0.5 * t["bandwidth_over_size_scaled"]["median_ape_pct"].get<double>());
}

TEST_CASE("the accuracy report lists points for a predicted-against-measured plot", "[bench][report]") {
  const json& pts = report()["points"];
  CHECK(pts.size() == report()["rows_used"].get<std::size_t>());
  for (const auto& p : pts) {
    CHECK(p["predicted_tps"].get<double>() > 0);
    CHECK(p["measured_tps"].get<double>() > 0);
  }
}

TEST_CASE("refitting the coefficients on the same rows does not make decode worse", "[bench]") {
  const BenchSet set = map_bench_rows(cat());
  const SpeedCoefficients now = speed_coefficients(cat());
  const SpeedCoefficients refit = fit_speed(set, now);
  auto err = [&](const SpeedCoefficients& k) {
    double s = 0;
    for (const auto& c : set.cases)
      if (c.kind == "tg") s += std::fabs(std::log(predict_case(c, k) / c.measured_tps));
    return s;
  };
  CHECK(err(refit) <= err(now) * 1.01);
}

TEST_CASE("the size report compares every published GGUF with the file computed from the config", "[bench][report]") {
  const json& z = report()["sizes"];
  REQUIRE(z["rows"].is_array());
  CHECK(z["compared"].get<int>() >= 100);
  CHECK(z["files"].get<std::size_t>() == z["rows"].size());
  std::vector<double> abs_err;
  for (const auto& r : z["rows"]) {
    CAPTURE(r["model"], r["quant"]);
    const double pub = r["published_bytes"], ours = r["computed_bytes"];
    CHECK_THAT(r["error_pct"].get<double>(), Catch::Matchers::WithinAbs((ours - pub) / pub * 100.0, 1e-9));
    CHECK(r["source"].get<std::string>().rfind("https://", 0) == 0);
    if (!r.contains("size_differs")) abs_err.push_back(std::fabs(r["error_pct"].get<double>()));
  }
  CHECK(abs_err.size() == z["compared"].get<std::size_t>());
  std::sort(abs_err.begin(), abs_err.end());
  CHECK(z["max_abs_error_pct"].get<double>() == abs_err.back());
  CHECK(z["median_abs_error_pct"].get<double>() <= z["p90_abs_error_pct"].get<double>());
  CHECK(z["p90_abs_error_pct"].get<double>() <= z["max_abs_error_pct"].get<double>());
  // The memory claim: half the files within 0.5 %, none unflagged beyond 3 % (catalog_test).
  CHECK(z["median_abs_error_pct"].get<double>() < 0.5);
  CHECK(z["max_abs_error_pct"].get<double>() <= 3.0);
}

}  // namespace bench_test_cases
