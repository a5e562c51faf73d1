#include <cmath>
#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/api.hpp"
#include "willitfit/bench.hpp"
#include "willitfit/catalog.hpp"

using namespace wif;
using nlohmann::json;

namespace {
const Catalog& cat() { return wif_test::catalog(); }
const json& report() {
  static const json r = json::parse(api_accuracy(cat()))["accuracy"];
  return r;
}
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
  int multi = 0;
  for (const auto& r : rows) multi += r.value("gpu_count", 1) > 1 ? 1 : 0;
  CHECK(set.excluded.at("split over several GPUs (placement)") == multi);
  CHECK(set.cases.size() > 250);
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

TEST_CASE("the accuracy report lists points for a predicted-against-measured plot", "[bench]") {
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
