// Devices and how much of their memory a model may use.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wif {

enum class DeviceKind { Gpu, Apple, Unified, Cpu };

struct Device {
  std::string id;
  std::string name;
  std::string vendor;
  DeviceKind kind = DeviceKind::Gpu;
  double memory_gib = 0;          // physical capacity
  bool memory_assumed = false;    // CPU entries without a RAM size (64 GiB until the user says)
  // What memory_gib stands on (data/SCHEMA.md): "driver_reported" (the catalog's
  // memory_reported_mib, the total the driver shows), "vendor_figure" (the catalog's memory_basis:
  // the vendor's own number, which the driver may show as up to 7 % less) or "capacity" (the size
  // as stated: a consumer card's binary GB, a Mac's RAM, a device a person describes).
  std::string memory_basis = "capacity";
  double bandwidth_gbs = 0;       // peak, GB/s
  double fp16_tflops = 0;         // dense
  double bf16_tflops = 0;         // dense BF16 where slower than FP16 (GeForce: FP32 accumulate); 0 = same
  double fp32_tflops = 0;         // FP32 shader rate (0 = not stated)
  double int8_tops = 0;           // dense INT8 (before Volta: dp4a, 4x FP32); 0 = not stated
  // NVIDIA's CUDA compute capability (6.1 for a Tesla P40), 0 = not stated. Below 7.0 (Volta) a card
  // has no tensor cores and llama.cpp's CUDA backend takes other matrix paths (speed.cpp device_rates).
  double cuda_compute_capability = 0;
  double tdp_w = 0;
  std::string backend;            // primary backend: cuda, rocm, metal, vulkan, sycl, cann, cpu …
  std::string overhead_backend;   // backends.json id whose runtime overhead applies ("cuda-blackwell");
                                  // the catalog's `overhead_backend`, else `backend`
  std::vector<std::string> backends;
  // The serving engines that run on this device (llama.cpp, vllm, sglang …): the union of its
  // backends' `engines` in data/backends.json, filled when a request resolves the device
  // (estimate.cpp resolve_device); empty when none of its backends is known to run one.
  std::vector<std::string> engines;
  // Whether Ollama runs on this device's accelerator (a backend with `ollama` "runs" in
  // data/backends.json: its CUDA, ROCm, Metal and Vulkan builds), filled with `engines`; without
  // it the estimate offers no Ollama command (Ollama has no CANN build for an Ascend NPU).
  bool ollama = false;
  double gpu_share_default = 0;   // unified PCs: fraction of RAM the GPU may use by default
  double gpu_share_max = 0;
  int pcie_gen = 0;
  int pcie_lanes = 0;             // lanes of the card's host link (0 = not stated: 16)
  // A host link other than the card's PCIe connector (data/SCHEMA.md `host_link`): a Grace
  // Hopper superchip's GPU reaches the Grace CPU's memory over NVLink-C2C. Empty kind = PCIe.
  std::string host_link_kind;     // "nvlink-c2c"
  double host_link_gbs = 0;       // its rate each way, GB/s
  // Memory that ships with the device on the CPU side (`host_memory`: the Grace CPU's LPDDR5X):
  // its type and peak bandwidth, the default system-RAM bandwidth of an estimate on the device.
  std::string host_memory_type;   // "LPDDR5X"
  double host_memory_gb = 0;      // the vendor's capacity, GB
  double host_memory_gbs = 0;     // peak, GB/s (0 = not stated)
  double price_usd = 0;           // street price if known, else launch price (0 = unknown)
  double used_price_usd = 0;
  nlohmann::json facts;           // the catalog entry as loaded (for display)
};

/// What a vendor's memory figure holds in GiB if its "GB" were decimal: 10^9 / 2^30. A figure with
/// memory_basis vendor_figure lies between this share of itself and itself (NVIDIA's "288 GB" B300
/// shows 275040 MiB = 268.59 GiB in nvidia-smi, 0.933 of 288).
inline constexpr double kVendorFigureLowShare = 1e9 / (1024.0 * 1024.0 * 1024.0);

struct UsableMemory {
  std::uint64_t physical_bytes = 0;
  std::uint64_t usable_bytes = 0;
  // The low end of usable_bytes: the same rule on the physical size at its low end, which is
  // kVendorFigureLowShare of memory_gib for a vendor_figure device; usable_bytes for any other.
  // Room to spare is judged against it (estimate.hpp room_to_spare), so no verdict says "fits"
  // on memory the driver may not report.
  std::uint64_t usable_low_bytes = 0;
  std::uint64_t physical_low_bytes = 0;  // the physical size's low end, the same way
  std::string rule_code;          // gpu_driver_reserve | gpu_driver_reserve_display | metal_wired_limit |
                                  // metal_working_set_small | metal_working_set_large | unified_gpu_share |
                                  // cpu_os_reserve
  nlohmann::json rule_params = nlohmann::json::object();  // the rule's numbers (GiB, fractions)
};

/// Options a person can set about their machine.
struct MemoryOverrides {
  std::optional<double> wired_limit_mib;   // macOS iogpu.wired_limit_mb
  std::optional<double> gpu_share;         // unified PCs: BIOS/driver GPU share (0..1)
  bool display_attached = false;           // a desktop on the GPU keeps ~0.5 GiB more
};

/// What a model may use on the device (for Apple: Metal's recommendedMaxWorkingSetSize, device.cpp).
UsableMemory usable_memory(const Device& d, const MemoryOverrides& o = {});

/// What the device's memory figure stands on, for a result document: {"code": memory_basis} and,
/// for vendor_figure, {"values": {"low_gib", "less_share"}}: the figure read as decimal GB
/// (memory_gib x kVendorFigureLowShare) and the share it is below memory_gib (1 - that share).
nlohmann::json memory_basis_json(const Device& d);

/// Parse a device object (catalog entry or user JSON). `path` prefixes error paths.
Device device_from_json(const nlohmann::json& j, const std::string& path);

const char* device_kind_name(DeviceKind k);

/// What the vendor calls a discrete device, the word a page names it and its memory by: "gpu",
/// "npu" (Huawei Ascend) or "accelerator" (Intel Gaudi, Cambricon MLU, Kunlunxin), from the
/// catalog's `device_type` (data/SCHEMA.md; "gpu" when absent); for kind apple, unified and cpu,
/// the kind's own name. Every device document that names a device carries it.
nlohmann::json device_type_json(const Device& d);

/// The products people know a device by (data/SCHEMA.md `products`, `chip`): `products` the model
/// names ("Mac Studio (2025)"), `product_lines` their lines once each in catalog order ("MacBook
/// Pro", "Mac Studio"), `chip` the chip's short name ("M3 Ultra"), `gpu_cores` and `cpu_cores`
/// (null when the entry gives none), and `memory_basis` (memory_basis_json). Written into `out`
/// (list hardware, the estimate's `hardware`).
void add_product_fields(nlohmann::json& out, const Device& d);

/// The launch price of one memory option of an Apple chip entry (data/SCHEMA.md
/// `option_prices_usd`: {"<GiB>": {"usd", "config", "source", "date"}}), or null when the entry
/// states none for `gib` (the chip's base-configuration `launch_price_usd` then stands, labelled
/// as such). Checks the whole map: each key names one of `memory_options_gib`, each price is a
/// positive number with its source and date. Throws InputError at the offending field.
nlohmann::json option_price(const nlohmann::json& chip, double gib, const std::string& path);

}  // namespace wif
