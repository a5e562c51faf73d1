#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "test_util.hpp"
#include "willitfit/catalog.hpp"
#include "willitfit/tensors.hpp"

using namespace wif;

TEST_CASE("the shipped catalog loads without a single error", "[catalog]") {
  const Catalog c = Catalog::load(embedded_catalog());
  for (const auto& e : c.errors()) std::printf("  catalog error %s at %s: %s\n", e.code.c_str(), e.path.c_str(), e.message.c_str());
  CHECK(c.errors().empty());
  CHECK(c.models().size() >= 2);
  CHECK(c.devices().size() >= 3);
}

TEST_CASE("a broken entry is reported with file, entry and field, and the rest still loads", "[catalog]") {
  const std::string good = R"({"devices":[{"id":"gpu-a","name":"A","kind":"gpu","memory_gib":24,"bandwidth_gbs":1000,"source":"https://example.org/a","checked":"2026-12-02"}]})";
  const std::string bad = R"({"devices":[{"id":"gpu-b","name":"B","kind":"gpu","memory_gib":"lots","bandwidth_gbs":1000,"source":"https://example.org/b","checked":"2026-12-02"},
                                         {"id":"gpu-c","name":"C","kind":"gpu","memory_gib":8,"bandwidth_gbs":300,"source":"https://example.org/c","checked":"yesterday"},
                                         {"id":"gpu-a","name":"A again","kind":"gpu","memory_gib":8,"bandwidth_gbs":300,"source":"https://example.org/c","checked":"2026-12-02"}]})";
  const Catalog c = Catalog::load({{"hardware/a.json", good}, {"hardware/b.json", bad}, {"hardware/c.json", "{not json"}});
  REQUIRE(c.errors().size() == 4);
  CHECK(c.errors()[0].path == "hardware/b.json#gpu-b.memory_gib");
  CHECK(c.errors()[0].code == "bad_type");
  CHECK(c.errors()[1].path == "hardware/b.json#gpu-c.checked");
  CHECK(c.errors()[2].code == "duplicate_id");
  CHECK(c.errors()[3].code == "bad_json");
  CHECK(c.errors()[3].path == "hardware/c.json");
  CHECK(c.devices().size() == 1);
  CHECK(c.find_device("gpu-a") != nullptr);
}

TEST_CASE("a model entry without a source or with a bad config is rejected with its path", "[catalog]") {
  const std::string m = R"({"id":"org/m","name":"M","org":"O","params_total_b":1,"checked":"2026-12-02",
                            "config":{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100}})";
  const Catalog c = Catalog::load({{"models/o/m.json", m}});
  REQUIRE(c.errors().size() == 1);
  CHECK(c.errors()[0].path == "models/o/m.json#org/m.source");
  CHECK(c.errors()[0].code == "missing_field");
}

TEST_CASE("Apple chips expand into one device per memory option", "[catalog]") {
  const std::string a = R"({"devices":[{"id":"apple-m9","name":"M9","kind":"apple","memory_options_gib":[16,32],"bandwidth_gbs":100,"source":"https://example.org","checked":"2026-12-02"}]})";
  const Catalog c = Catalog::load({{"hardware/apple.json", a}});
  CHECK(c.errors().empty());
  REQUIRE(c.find_device("apple-m9-32gb") != nullptr);
  CHECK(c.find_device("apple-m9-32gb")->memory_gib == 32);
}

TEST_CASE("every catalog model's parameter count from its architecture matches the published total within 2%", "[catalog]") {
  const Catalog c = Catalog::load(embedded_catalog());
  int bad = 0;
  for (const auto& m : c.models()) {
    const ParamCounts pc = count_params(m.arch);
    // Parts the core does not model (a vision encoder) are stated per entry with their size.
    const double published = (m.params_total_b - m.raw.value("params_excluded_b", 0.0)) * 1e9;
    // A headline figure ("1T", "1.2B") is only as precise as its last digit, at most 5%.
    double tol = 0.02;
    if (m.raw.value("params_total_rounded", false)) {
      double unit = 1000;
      while (unit > 0.001 && std::fabs(m.params_total_b / unit - std::round(m.params_total_b / unit)) > 1e-9) unit /= 10;
      tol = std::max(tol, std::min(0.05, unit / 2 / m.params_total_b));
    }
    // Vendors count either the main layers or everything stored (NextN/MTP layers included).
    const double e_main = (static_cast<double>(pc.total - pc.mtp) - published) / published;
    const double e_all = (static_cast<double>(pc.total) - published) / published;
    const double err = std::fabs(e_main) < std::fabs(e_all) ? e_main : e_all;
    if (std::fabs(err) > tol) {
      ++bad;
      std::printf("  params %-45s published %8.2fB computed %8.2fB (%+.1f%%)\n", m.id.c_str(),
                  m.params_total_b, static_cast<double>(pc.total) / 1e9, 100 * err);
    }
    CAPTURE(m.id, m.params_total_b, pc.total, pc.mtp);
    CHECK(std::fabs(err) <= tol);
  }
  std::printf("  params: %zu models, %d outside 2%%\n", c.models().size(), bad);
}
