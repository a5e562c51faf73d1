// What a catalog GPU's memory figure rests on. A vendor's "GB" read as GiB overstates the memory a
// model can use: NVIDIA sells the B300 as 288 GB, and nvidia-smi reports 275040 MiB (268.59 GiB)
// on an "NVIDIA B300 SXM6 AC", 7 % less. The catalog holds every data-center GPU to one of two
// statements: the driver's total with the page that shows it, or `memory_basis` saying the figure
// is the vendor's (data/SCHEMA.md). These tests hold the rule, not only the entries fixed so far.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "test_util.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/hardware/device.hpp"

namespace device_memory_test_cases {

using namespace wif;
using nlohmann::json;

// One data-center GPU entry in a catalog file of its own; `fields` carries the memory fields.
Catalog load_one(const std::string& fields, const std::string& segment = "datacenter") {
  const std::string entry = R"({"id":"gpu-m","name":"M","vendor":"NVIDIA","kind":"gpu","segment":")" + segment +
                            R"(","bandwidth_gbs":8000,"source":"https://example.org/m","checked":"2026-12-07",)" + fields + "}";
  return Catalog::load({{"hardware/m.json", R"({"devices":[)" + entry + "]}"}});
}

TEST_CASE("a data-center GPU states the driver's memory total or why it gives the vendor's figure", "[catalog][hardware]") {
  // Accepted: the driver's total with its page; the vendor's figure saying so; a consumer card as before.
  CHECK(load_one(R"("memory_gib":268.59,"memory_sold_gb":288,"memory_reported_mib":275040,"memory_reported_source":"https://example.org/smi")").errors().empty());
  CHECK(load_one(R"("memory_gib":288,"memory_basis":"vendor_figure")").errors().empty());
  CHECK(load_one(R"("memory_gib":24)", "consumer").errors().empty());
  auto [fields, code, field] = GENERATE(table<std::string, std::string, std::string>({
      // the B300 as it was: NVIDIA's 288 GB typed into memory_gib, with nothing said about it
      {R"("memory_gib":288)", "missing_field", "memory_basis"},
      // the vendor's figure kept apart, but no driver total for it to stand beside
      {R"("memory_gib":268.59,"memory_sold_gb":288)", "missing_field", "memory_reported_mib"},
      // a reason the schema does not know
      {R"("memory_gib":288,"memory_basis":"datasheet")", "bad_value", "memory_basis"},
      {R"("memory_gib":288,"memory_basis":1)", "bad_type", "memory_basis"},
      // a basis beside a driver total contradicts it
      {R"("memory_gib":268.59,"memory_sold_gb":288,"memory_reported_mib":275040,"memory_reported_source":"https://example.org/smi","memory_basis":"vendor_figure")", "bad_value", "memory_basis"},
  }));
  CAPTURE(fields);
  const Catalog c = load_one(fields);
  REQUIRE(c.errors().size() == 1);
  CHECK(c.errors()[0].code == code);
  CHECK(c.errors()[0].path == "hardware/m.json#gpu-m." + field);
  CHECK(c.devices().empty());  // a refused entry is not half-loaded
}

TEST_CASE("the vendor's figure beside no driver total is refused in the catalog, on any segment", "[catalog][hardware]") {
  const Catalog c = load_one(R"("memory_gib":22.49,"memory_sold_gb":24)", "consumer");
  REQUIRE(c.errors().size() == 1);
  CHECK(c.errors()[0].code == "missing_field");
  CHECK(c.errors()[0].path == "hardware/m.json#gpu-m.memory_reported_mib");
}

TEST_CASE("a device described in a request keeps the memory figure it gives", "[hardware]") {
  // The catalog rule is about what the catalog claims; a person's own device is taken as given.
  const json d = {{"id", "my-gpu"}, {"name", "My GPU"}, {"kind", "gpu"}, {"segment", "datacenter"},
                  {"memory_gib", 96}, {"bandwidth_gbs", 4000}};
  CHECK(device_from_json(d, "hardware").memory_gib == 96);
  // ... but a basis it gives must still be one the schema knows.
  json bad = d;
  bad["memory_basis"] = "guess";
  CHECK_THROWS_AS(device_from_json(bad, "hardware"), InputError);
}

TEST_CASE("every shipped data-center GPU gives the driver's total or says its figure is the vendor's", "[catalog][hardware]") {
  const Catalog& c = wif_test::catalog();
  int reported = 0, vendor = 0;
  for (const auto& d : c.devices()) {
    const json& f = d.facts;
    if (d.kind != DeviceKind::Gpu || f.value("segment", "") != "datacenter") continue;
    CAPTURE(d.id, d.memory_gib);
    if (f.contains("memory_reported_mib")) {
      ++reported;
      CHECK(std::fabs(d.memory_gib - f["memory_reported_mib"].get<double>() / 1024.0) <= 0.01);
      CHECK(f.value("memory_reported_source", "").rfind("https://", 0) == 0);
      CHECK_FALSE(f.contains("memory_basis"));
    } else {
      ++vendor;
      CHECK(f.value("memory_basis", "") == "vendor_figure");
      CHECK_FALSE(f.contains("memory_sold_gb"));
    }
  }
  CHECK(reported >= 19);
  CHECK(vendor >= 1);
}

TEST_CASE("the catalog refuses the B300 entry as it was: NVIDIA's 288 GB as GiB with nothing said", "[catalog][hardware]") {
  const Device* b300 = wif_test::catalog().find_device("nvidia-b300");
  REQUIRE(b300 != nullptr);
  CHECK(b300->memory_gib == Approx(268.59));
  json old = b300->facts;
  for (const char* k : {"memory_sold_gb", "memory_reported_mib", "memory_reported_source"}) old.erase(k);
  old["memory_gib"] = 288;
  const Catalog c = Catalog::load({{"hardware/nvidia-datacenter.json", json{{"devices", json::array({old})}}.dump()}});
  REQUIRE(c.errors().size() == 1);
  CHECK(c.errors()[0].code == "missing_field");
  CHECK(c.errors()[0].path == "hardware/nvidia-datacenter.json#nvidia-b300.memory_basis");
}

// One catalog entry that holds its driver's total: the MiB, the sold figure (0: the name's
// figure is the GiB), memory_gib as that total in GiB, the date read, and a usable budget below it.
struct ReportedRow { const char* id; double mib; double sold; };
void check_reported(const Catalog& c, const ReportedRow& r) {
  CAPTURE(r.id);
  const Device* d = c.find_device(r.id);
  REQUIRE(d != nullptr);
  CHECK(d->facts["memory_reported_mib"].get<double>() == r.mib);
  CHECK(d->memory_gib == Approx(r.mib / 1024.0).margin(0.006));
  CHECK(d->facts.value("memory_sold_gb", 0.0) == r.sold);
  CHECK(d->facts.value("checked", "") == "2026-12-07");
  CHECK(usable_memory(*d).usable_bytes < static_cast<std::uint64_t>(r.mib * 1048576.0));
}

// The entries fixed for issue 19, each against the driver total its source shows (URLs in the
// entries): sold figure where it differs, and a usable budget below the driver's total.
TEST_CASE("B300, GB200, H20 96GB, L4, A10, L40S, T4 and MI300X hold the driver's total, A800 and A100 40GB their exact GiB", "[catalog][hardware]") {
  const Catalog& c = wif_test::catalog();
  for (const ReportedRow& r : {ReportedRow{"nvidia-b300", 275040, 288}, ReportedRow{"nvidia-gb200-gpu", 189471, 186},
                       ReportedRow{"nvidia-h20-96gb", 97871, 96}, ReportedRow{"nvidia-l4", 23034, 24}, ReportedRow{"nvidia-a10", 23028, 24},
                       ReportedRow{"nvidia-l40s", 46068, 48}, ReportedRow{"nvidia-t4", 15360, 16}, ReportedRow{"nvidia-a800-80gb-sxm", 81920, 0},
                       ReportedRow{"nvidia-a800-80gb-pcie", 81920, 0}, ReportedRow{"nvidia-a100-40gb-sxm", 40960, 0},
                       ReportedRow{"amd-mi300x", 196592, 192}}) {
    check_reported(c, r);
  }
}

// A vendor's figure is not exact: read as decimal GB, "24 GB" is 24 x 10^9 bytes, 22.35 GiB, and a
// driver may report that. The figures below are worked out by hand from the rule in
// hardware/device.cpp usable_memory (a discrete GPU keeps 0.35 GiB for its driver):
//   physical           24 x 2^30                 = 25 769 803 776 bytes
//   usable             25 769 803 776 - 0.35 x 2^30 = 25 393 994 137.6
//   physical, low end  24 x 10^9                 = 24 000 000 000
//   usable, low end    24 x 10^9 - 0.35 x 2^30   = 23 624 190 361.6
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kUsable24 = 24 * kGiB - 0.35 * kGiB;
constexpr double kUsableLow24 = 24e9 - 0.35 * kGiB;

// A 24 GiB GPU described in a request, its memory stated one of three ways.
json gpu24(const std::string& basis) {
  json d = {{"name", "Test GPU 24"}, {"vendor", "NVIDIA"}, {"kind", "gpu"}, {"memory_gib", 24}, {"bandwidth_gbs", 1000},
            {"fp16_tflops", 100}, {"int8_tops", 200}, {"backend", "cuda"}, {"cuda_compute_capability", 8.0}};
  if (basis == "vendor_figure") d["memory_basis"] = "vendor_figure";
  if (basis == "driver_reported") {
    d["memory_reported_mib"] = 24576;  // 24 x 1024: the same 24 GiB, as the driver's total
    d["memory_reported_source"] = "https://example.org/smi";
  }
  return d;
}

TEST_CASE("a vendor's memory figure has a low end at 10^9/2^30 of itself; a driver's total or a stated size has none", "[hardware][memory_basis]") {
  const Device v = device_from_json(gpu24("vendor_figure"), "hardware");
  CHECK(v.memory_basis == "vendor_figure");
  const UsableMemory u = usable_memory(v);
  CHECK(u.physical_bytes == 25769803776ull);
  CHECK(static_cast<double>(u.usable_bytes) == Approx(kUsable24).margin(1));
  CHECK(static_cast<double>(u.physical_low_bytes) == Approx(24e9).margin(1));
  CHECK(static_cast<double>(u.usable_low_bytes) == Approx(kUsableLow24).margin(1));
  // The result document's words for it: the code, the low end in GiB and the share below the figure.
  const json b = memory_basis_json(v);
  CHECK(b["code"] == "vendor_figure");
  CHECK(b["values"]["low_gib"].get<double>() == Approx(24e9 / kGiB));                  // 22.35 GiB
  CHECK(b["values"]["less_share"].get<double>() == Approx(1.0 - 1e9 / kGiB).epsilon(1e-9));  // 6.87 %
  // A display on the card moves both ends by the same 0.5 GiB.
  const UsableMemory ud = usable_memory(v, MemoryOverrides{std::nullopt, std::nullopt, true});
  CHECK(static_cast<double>(ud.usable_low_bytes) == Approx(kUsableLow24 - 0.5 * kGiB).margin(1));
  for (const char* basis : {"driver_reported", "capacity"}) {
    CAPTURE(basis);
    const Device d = device_from_json(gpu24(basis), "hardware");
    CHECK(d.memory_basis == basis);
    const UsableMemory w = usable_memory(d);
    CHECK(w.usable_bytes == u.usable_bytes);
    CHECK(w.usable_low_bytes == w.usable_bytes);
    CHECK(w.physical_low_bytes == w.physical_bytes);
    CHECK(memory_basis_json(d) == json{{"code", basis}});
  }
}

TEST_CASE("one verdict rule: fits needs room to spare on the low end, tight on the upper part, no fit past the usable memory", "[estimate][verdict][memory_basis]") {
  constexpr std::uint64_t G = 1ull << 30;
  // usable 20 GiB, low end 18 GiB: room to spare ends at 0.85 x 18 = 15.3 GiB of upper bound.
  CHECK(std::string(memory_verdict(14 * G, 15 * G, 20 * G, 18 * G)) == "fits");
  CHECK(std::string(memory_verdict(14 * G, 16 * G, 20 * G, 18 * G)) == "tight");  // 16 <= 0.85 x 20 = 17, but not 15.3
  CHECK(std::string(memory_verdict(14 * G, 16 * G, 20 * G, 20 * G)) == "fits");   // the same on a size that is exact
  CHECK(std::string(memory_verdict(20 * G, 21 * G, 20 * G, 18 * G)) == "tight");
  CHECK(std::string(memory_verdict(20 * G + 1, 21 * G, 20 * G, 18 * G)) == "no_fit");
}

TEST_CASE("llama.cpp on a vendor's 24 GB: a setup that fits only above its low end is tight; on a driver's 24 GiB it fits", "[estimate][verdict][memory_basis]") {
  // Qwen3 8B at Q8_0 over contexts from 4K to 128K: the upper bound crosses 0.85 x the low end
  // (18.70 GiB) and 0.85 x the usable memory (20.10 GiB) at different contexts.
  int flipped = 0, vendor_fits = 0;
  for (int ctx = 4096; ctx <= 131072; ctx += 4096) {
    CAPTURE(ctx);
    const json base = {{"model", "Qwen/Qwen3-8B"}, {"quant", "Q8_0"}, {"context", ctx}};
    json qv = base, qd = base, qc = base;
    qv["hardware"] = gpu24("vendor_figure");
    qd["hardware"] = gpu24("driver_reported");
    qc["hardware"] = gpu24("capacity");
    const json v = wif_test::estimate(qv), d = wif_test::estimate(qd), c = wif_test::estimate(qc);
    REQUIRE_FALSE(v.contains("error"));
    REQUIRE_FALSE(d.contains("error"));
    CHECK(v["hardware"]["memory_basis"]["code"] == "vendor_figure");
    CHECK(d["hardware"]["memory_basis"] == json{{"code", "driver_reported"}});
    CHECK(static_cast<double>(v["memory"]["usable_bytes"].get<std::uint64_t>()) == Approx(kUsable24).margin(1));
    CHECK(static_cast<double>(v["memory"]["usable_low_bytes"].get<std::uint64_t>()) == Approx(kUsableLow24).margin(1));
    CHECK(d["memory"]["usable_low_bytes"] == d["memory"]["usable_bytes"]);
    // The memory the setup takes does not depend on how the device's size is stated.
    const double total = v["memory"]["total_bytes"].get<double>(), high = v["memory"]["total_high_bytes"].get<double>();
    CHECK(d["memory"]["total_bytes"].get<double>() == total);
    if (total > kUsable24) continue;  // offload or no fit on both: not this rule's question
    const std::string want_v = high <= 0.85 * kUsableLow24 ? "fits" : "tight";
    const std::string want_d = high <= 0.85 * kUsable24 ? "fits" : "tight";
    CHECK(v["verdict"] == want_v);
    CHECK(d["verdict"] == want_d);
    // A driver's total of the same size says what a stated size says: nothing changed there.
    CHECK(c["verdict"] == d["verdict"]);
    // The device's own tag follows the headline.
    CHECK(v["memory"]["devices"][0]["verdict"] == want_v);
    flipped += want_v == "tight" && want_d == "fits";
    vendor_fits += want_v == "fits";
  }
  CHECK(flipped >= 1);      // fits -> tight happened
  CHECK(vendor_fits >= 1);  // and a setup well inside the low end still fits
}

TEST_CASE("vLLM on a vendor's 24 GB: tight where its budget starts on the figure but not on the low end", "[estimate][verdict][memory_basis][vllm]") {
  // The low end is the same GPU sold as exactly 24 x 10^9 bytes: a GPU stated at that size
  // (22.35 GiB) answers whether vLLM's budget starts there.
  json low = gpu24("capacity");
  low["memory_gib"] = 24e9 / kGiB;
  int flipped = 0, fits = 0;
  for (int ctx = 2048; ctx <= 40960; ctx += 2048) {
    CAPTURE(ctx);
    const json base = {{"model", "Qwen/Qwen3-8B"}, {"engine", "vllm"}, {"quant", "BF16"}, {"context", ctx}};
    json qv = base, qd = base, ql = base;
    qv["hardware"] = gpu24("vendor_figure");
    qd["hardware"] = gpu24("driver_reported");
    ql["hardware"] = low;
    const json v = wif_test::estimate(qv), d = wif_test::estimate(qd), l = wif_test::estimate(ql);
    REQUIRE_FALSE(v.contains("error"));
    const std::string on_figure = d["verdict"], on_low = l["verdict"];
    CHECK(on_figure != "tight");  // a stated size: vLLM fits or does not start
    const std::string want = on_figure == "no_fit" ? "no_fit" : on_low == "fits" ? "fits" : "tight";
    CHECK(v["verdict"] == want);
    CHECK(static_cast<double>(v["memory"]["usable_low_bytes"].get<std::uint64_t>()) == Approx(kUsableLow24).margin(1));
    if (v["memory"].contains("devices")) CHECK(v["memory"]["devices"][0]["verdict"] == want);
    flipped += want == "tight";
    fits += want == "fits";
  }
  CHECK(flipped >= 1);
  CHECK(fits >= 1);
}

TEST_CASE("a catalog GPU sold by the vendor's figure carries it into the result: MTT S4000", "[estimate][memory_basis]") {
  const json r = wif_test::estimate({{"model", "Qwen/Qwen3-0.6B"}, {"quant", "Q4_K_M"}, {"hardware", "moorethreads-mtt-s4000"}});
  REQUIRE_FALSE(r.contains("error"));
  const Device* d = wif_test::catalog().find_device("moorethreads-mtt-s4000");
  REQUIRE(d != nullptr);
  REQUIRE(d->memory_basis == "vendor_figure");
  CHECK(r["hardware"]["memory_basis"]["code"] == "vendor_figure");
  CHECK(r["hardware"]["memory_basis"]["values"]["low_gib"].get<double>() == Approx(d->memory_gib * 1e9 / kGiB));
  CHECK(r["memory"]["usable_low_bytes"].get<double>() < r["memory"]["usable_bytes"].get<double>());
  CHECK(r["verdict"] == "fits");  // a small model fits on either end
}

// The entries given their driver's total in the second pass (URLs and readings in each entry's
// notes): nvidia-smi's FB total for the NVIDIA cards, the device pool rocminfo lists for the AMD
// ones (AMD's GiB less 16 MiB, as the MI300X's rocm-smi total), npu-smi / mx-smi / xpu_smi for the
// others. A package the driver lists as several devices holds their sum: an MI250X's two GCDs of
// 65520 MiB, a 910C's two dies of 65536 MiB.
TEST_CASE("A40, A100 80GB SXM4, V100 SXM2, MI100 to MI355X and the Chinese accelerators hold their driver's total", "[catalog][hardware]") {
  const Catalog& c = wif_test::catalog();
  for (const ReportedRow& r : {ReportedRow{"nvidia-a40", 46068, 48}, ReportedRow{"nvidia-a100-80gb-sxm", 81920, 0},
                       ReportedRow{"nvidia-v100-sxm2-32gb", 32768, 0}, ReportedRow{"amd-mi100", 32752, 32}, ReportedRow{"amd-mi210", 65520, 64},
                       ReportedRow{"amd-mi250x", 2 * 65520, 128}, ReportedRow{"amd-mi325x", 262128, 256}, ReportedRow{"amd-mi355x", 294896, 288},
                       ReportedRow{"huawei-ascend-910b", 65536, 0}, ReportedRow{"huawei-ascend-910c", 2 * 65536, 0}, ReportedRow{"metax-c500", 65536, 0},
                       ReportedRow{"kunlunxin-p800", 98304, 0}}) {
    CAPTURE(r.id);
    check_reported(c, r);
    CHECK_FALSE(c.find_device(r.id)->facts.contains("memory_basis"));
  }
  // The sold figure read as GiB overstated the A40 by 7 %.
  CHECK(c.find_device("nvidia-a40")->memory_gib < 45);
}

// The third pass (session 26; URLs and readings in each entry's notes): nvidia-smi's totals for
// the A100 80GB and 40GB PCIe (81920 and 40960 MiB, as their SXM4 siblings), the V100 PCIe 32GB
// (32768 MiB, as the SXM2), the L20 (46068 MiB, as the L40S) and the H800 (81559 MiB, as the H100); the rocminfo device pool of the gfx906 MI60
// (33538048 KB = 32752 MiB); hl-smi's 98304 MiB for the Gaudi 2 (HL-225); and npu-smi's two 310P3
// chips of the Atlas 300I Duo (44280 + 43693 MiB, the same sum on a second card), whose total
// sits 3.9 % under its 96 GB read as decimal.
TEST_CASE("A100 PCIe 80GB and 40GB, V100 PCIe 32GB, L20, H800, MI60, Gaudi 2 and Atlas 300I Duo hold their driver's total", "[catalog][hardware]") {
  const Catalog& c = wif_test::catalog();
  for (const ReportedRow& r : {ReportedRow{"nvidia-a100-80gb-pcie", 81920, 0}, ReportedRow{"nvidia-a100-40gb-pcie", 40960, 0},
                               ReportedRow{"nvidia-l20", 46068, 48}, ReportedRow{"nvidia-h800-sxm", 81559, 80},
                               ReportedRow{"nvidia-v100-pcie-32gb", 32768, 0},
                               ReportedRow{"amd-mi60", 32752, 32}, ReportedRow{"intel-gaudi-2", 98304, 0},
                               ReportedRow{"huawei-atlas-300i-duo", 44280 + 43693, 96}}) {
    CAPTURE(r.id);
    check_reported(c, r);
    CHECK_FALSE(c.find_device(r.id)->facts.contains("memory_basis"));
    CHECK(c.find_device(r.id)->memory_basis == "driver_reported");
  }
}

// The fourth pass (session 27; URLs and readings in each entry's notes): nvidia-smi's totals for
// the Tesla P40 (23040 MiB with ECC on under a 515 driver; the 418 to 470 drivers showed 22919),
// the Tesla M40 24GB (22939 MiB with ECC on, driver 367.48) and the H20 141GB, which the driver
// names "NVIDIA H20-3e" (143771 MiB, the H200's total); hl-smi's 131072 MiB, exactly 128 GiB, for
// a Gaudi 3 (HL-325); and the rocminfo device pool of a 60-CU gfx906 board on a host of MI50 32GB
// cards (33538048 KB = 32752 MiB, the MI60's total).
TEST_CASE("Tesla P40, Tesla M40 24GB, H20 141GB, Gaudi 3 and MI50 32GB hold their driver's total", "[catalog][hardware]") {
  const Catalog& c = wif_test::catalog();
  for (const ReportedRow& r : {ReportedRow{"nvidia-tesla-p40", 23040, 24}, ReportedRow{"nvidia-tesla-m40-24gb", 22939, 24},
                               ReportedRow{"nvidia-h20-141gb", 143771, 141}, ReportedRow{"intel-gaudi-3", 131072, 0},
                               ReportedRow{"amd-mi50-32gb", 32752, 32}}) {
    CAPTURE(r.id);
    check_reported(c, r);
    CHECK_FALSE(c.find_device(r.id)->facts.contains("memory_basis"));
    CHECK(c.find_device(r.id)->memory_basis == "driver_reported");
  }
  // The MI50 32GB and the MI60 are the same gfx906 board with 32 GB of HBM2: the same total.
  CHECK(c.find_device("amd-mi50-32gb")->memory_gib == c.find_device("amd-mi60")->memory_gib);
}

// The Tesla P40 as the catalog had it: "24 GB" taken as 24 GiB, a vendor's figure read as 22.35 to
// 24 GiB. Its driver offers 23040 MiB, below the figure's top end; by hand, with 0.35 GiB kept for
// the runtime (hardware/device.cpp usable_memory):
//   physical  23040 x 2^20                    = 24 159 191 040 bytes
//   usable    24 159 191 040 - 0.35 x 2^30    = 23 783 381 401.6
// which is 1.5 GiB under the 25 393 994 137.6 bytes the old entry's top end gave, and exact: no
// vendor-figure range, so the verdict no longer rests on a low end.
TEST_CASE("the Tesla P40's memory is the driver's 23040 MiB: a fixed budget 1.5 GiB under the old figure's top", "[hardware][memory_basis]") {
  const Device* d = wif_test::catalog().find_device("nvidia-tesla-p40");
  REQUIRE(d != nullptr);
  CHECK(d->memory_gib == Approx(22.5).margin(0.001));
  const UsableMemory u = usable_memory(*d);
  CHECK(static_cast<double>(u.usable_bytes) == Approx(23040.0 * 1048576 - 0.35 * kGiB).margin(1));
  CHECK(u.usable_low_bytes == u.usable_bytes);
  CHECK(static_cast<double>(u.usable_bytes) < kUsable24 - 1.4 * kGiB);
  CHECK(static_cast<double>(u.physical_bytes) > 24e9);  // above 24 decimal GB: the same memory
  CHECK(memory_basis_json(*d) == json{{"code", "driver_reported"}});
}

// The Atlas 300I Duo: Huawei sells 96 GB; the driver offers 87973 MiB (85.91 GiB), 3.9 % under
// even the decimal reading (96 x 10^9 B = 89.41 GiB). Kept as the vendor's figure, the card would
// be taken to hold 89.41 to 96 GiB and be said to fit models its driver cannot place; so the
// entry holds the driver's total and says why in memory_sold_differs. By hand, with 0.35 GiB kept
// for the runtime as for any discrete device (hardware/device.cpp usable_memory):
//   physical  87973 x 2^20                      = 92 246 884 352 bytes
//   usable    92 246 884 352 - 0.35 x 2^30      = 91 871 074 713.6
TEST_CASE("the Atlas 300I Duo's memory is the driver's 87973 MiB, not 96 GB: no range, no low end above it", "[hardware][memory_basis]") {
  const Device* d = wif_test::catalog().find_device("huawei-atlas-300i-duo");
  REQUIRE(d != nullptr);
  CHECK(d->memory_gib == Approx(85.91).margin(0.001));
  CHECK(d->facts["memory_sold_gb"] == 96);
  CHECK(d->facts.contains("memory_sold_differs"));
  const UsableMemory u = usable_memory(*d);
  CHECK(static_cast<double>(u.usable_bytes) == Approx(87973.0 * 1048576 - 0.35 * kGiB).margin(0.011 * kGiB));
  CHECK(u.usable_low_bytes == u.usable_bytes);  // a driver total is exact: no vendor-figure range
  CHECK(static_cast<double>(u.physical_bytes) < 96e9);  // below even 96 decimal GB
  CHECK(memory_basis_json(*d) == json{{"code", "driver_reported"}});
  // An 8B model at Q8_0: the estimate reads the card as its driver does, without a range.
  const json r = wif_test::estimate({{"model", "Qwen/Qwen3-8B"}, {"quant", "Q8_0"}, {"hardware", "huawei-atlas-300i-duo"}});
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["hardware"]["memory_basis"]["code"] == "driver_reported");
  CHECK(r["memory"]["usable_low_bytes"] == r["memory"]["usable_bytes"]);
  CHECK(r["memory"]["usable_bytes"].get<double>() < 87973.0 * 1048576);
}

}  // namespace device_memory_test_cases
