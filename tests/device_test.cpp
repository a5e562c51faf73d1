#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/hardware/device.hpp"

namespace device_test_cases {

using namespace wif;

namespace {
Device dev(const char* kind, double gib) {
  return device_from_json({{"name", "x"}, {"kind", kind}, {"memory_gib", gib}, {"bandwidth_gbs", 100}}, "hardware");
}
}  // namespace

TEST_CASE("usable memory depends on the kind of device", "[device]") {
  CHECK(usable_memory(dev("gpu", 24)).usable_bytes / wif_test::kGiB == Approx(23.65));
  CHECK(usable_memory(dev("apple", 512)).usable_bytes / wif_test::kGiB == Approx(384));
  CHECK(usable_memory(dev("apple", 16)).usable_bytes / wif_test::kGiB == Approx(16.0 * 2 / 3));
  MemoryOverrides o;
  o.wired_limit_mib = 14000;
  CHECK(usable_memory(dev("apple", 16), o).usable_bytes / wif_test::kMiB == Approx(14000));
  o.wired_limit_mib = 100000;  // cannot exceed the RAM
  CHECK(usable_memory(dev("apple", 16), o).usable_bytes / wif_test::kGiB == Approx(16));
}

TEST_CASE("a device JSON with bad fields names the field", "[device]") {
  auto bad = [](nlohmann::json j, const std::string& path) {
    try {
      device_from_json(j, "hardware");
      FAIL("expected an error at " + path);
    } catch (const InputError& e) {
      CHECK(e.error().path == path);
    }
  };
  nlohmann::json ok = {{"name", "x"}, {"kind", "gpu"}, {"memory_gib", 24}, {"bandwidth_gbs", 1000}};
  auto j1 = ok; j1["kind"] = "toaster"; bad(j1, "hardware.kind");
  auto j2 = ok; j2["memory_gib"] = -1; bad(j2, "hardware.memory_gib");
  auto j3 = ok; j3.erase("bandwidth_gbs"); bad(j3, "hardware.bandwidth_gbs");
  auto j4 = ok; j4["memory_gib"] = "24GB"; bad(j4, "hardware.memory_gib");
}


// A superchip's host link and host memory (data/SCHEMA.md host_link, host_memory): a kind other
// than nvlink-c2c, a rate out of range, a source that is no https URL, a missing checked day or a
// memory type that is no short name is refused with a code at its path; in a catalog file, at the
// entry's path, and the entry is not loaded.
TEST_CASE("a bad host_link or host_memory gives a coded error at its path", "[device]") {
  const nlohmann::json link = {{"kind", "nvlink-c2c"}, {"gb_per_s", 450}, {"source", "https://example.org/c2c"}, {"checked", "2026-12-06"}};
  const nlohmann::json mem = {{"type", "LPDDR5X"}, {"gb", 480}, {"bandwidth_gbs", 512}, {"source", "https://example.org/m"}, {"checked", "2026-12-06"}};
  nlohmann::json ok = {{"name", "x"}, {"kind", "gpu"}, {"memory_gib", 96}, {"bandwidth_gbs", 4000}, {"host_link", link}, {"host_memory", mem}};
  const Device d = device_from_json(ok, "hardware");
  CHECK(d.host_link_kind == "nvlink-c2c");
  CHECK(d.host_link_gbs == 450);
  CHECK(d.host_memory_type == "LPDDR5X");
  CHECK(d.host_memory_gbs == 512);
  auto code_at = [&ok](const char* field, const char* key, const nlohmann::json& v) -> std::pair<std::string, std::string> {
    nlohmann::json j = ok;
    if (v.is_null()) j[field].erase(key);
    else j[field][key] = v;
    try {
      device_from_json(j, "hardware");
    } catch (const InputError& e) {
      return {e.error().code, e.error().path};
    }
    return {"", ""};
  };
  using P = std::pair<std::string, std::string>;
  CHECK(code_at("host_link", "kind", "pcie") == P{"bad_value", "hardware.host_link.kind"});
  CHECK(code_at("host_link", "gb_per_s", 0) == P{"bad_value", "hardware.host_link.gb_per_s"});
  CHECK(code_at("host_link", "gb_per_s", 1e6) == P{"bad_value", "hardware.host_link.gb_per_s"});
  CHECK(code_at("host_link", "gb_per_s", "fast") == P{"bad_type", "hardware.host_link.gb_per_s"});
  CHECK(code_at("host_link", "source", "http://example.org/") == P{"bad_value", "hardware.host_link.source"});
  CHECK(code_at("host_link", "checked", nullptr) == P{"missing_field", "hardware.host_link.checked"});
  CHECK(code_at("host_memory", "type", "LP DDR5X") == P{"bad_value", "hardware.host_memory.type"});
  CHECK(code_at("host_memory", "bandwidth_gbs", -5) == P{"bad_value", "hardware.host_memory.bandwidth_gbs"});
  nlohmann::json not_object = ok;
  not_object["host_link"] = 450;
  CHECK_THROWS_AS(device_from_json(not_object, "hardware"), InputError);

  nlohmann::json entry = ok;
  entry["id"] = "gpu-c2c";
  entry["source"] = "https://example.org/gpu";
  entry["checked"] = "2026-12-06";
  entry["host_link"]["gb_per_s"] = -450;
  const Catalog c = Catalog::load({{"hardware/c2c.json", nlohmann::json{{"devices", {entry}}}.dump()}});
  REQUIRE(c.errors().size() == 1);
  CHECK(c.errors()[0].code == "bad_value");
  CHECK(c.errors()[0].path == "hardware/c2c.json#gpu-c2c.host_link.gb_per_s");
  CHECK(c.find_device("gpu-c2c") == nullptr);
}

}  // namespace device_test_cases
