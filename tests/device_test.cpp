#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
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

}  // namespace device_test_cases
