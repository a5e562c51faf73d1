// Speed of a llama.cpp placement that spans devices: several GPUs, or GPUs plus system RAM
// (layers below -ngl, experts moved by --n-cpu-moe, the output when ngl <= n_layer).
//
// Decode: the layers run one after another, so one token costs the sum over devices of
// (weights that device holds and reads per token + its KV at depth) / its effective bandwidth,
// plus its per-layer fixed costs. System RAM is a device with the RAM's bandwidth and the CPU
// backend's efficiency.
// Prefill: llama.cpp's op offload runs big batches on the GPU and copies CPU-resident weights
// into the GPU compute buffer once per micro-batch, so the host part is bounded by the host link,
// PCIe or a superchip's NVLink-C2C (op_offload in ggml/src/ggml-backend.cpp); GPU-resident parts
// run as on one device.
// Ranges are wider than for one device: offloaded rows in the calibration set are few.
#pragma once
#include <string>
#include <vector>

#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/speed/speed.hpp"

namespace wif {

struct HostLink {
  double ram_bandwidth_gbs = 60;   // effective-ish peak of the system RAM (dual-channel DDR5 ~ 77)
  // Where ram_bandwidth_gbs came from: "request" (ram_bandwidth_gbs given), "device" (the
  // device's host_memory, a Grace CPU's LPDDR5X) or "default" (defaults.hpp kRamBandwidthGbs).
  std::string ram_bandwidth_from = "default";
  double pcie_gbs = 0;             // host <-> GPU link; 0 = from the first GPU's (host_link, else PCIe)
  // Whether host-resident weights sit in pinned (page-locked) memory, which the GPU copies at
  // the link's rate; pageable memory is copied at SpeedCoefficients::pageable_copy_share of it.
  // With --no-mmap llama.cpp loads CPU weights into the GPU backend's pinned host buffer type
  // (llama-model.cpp, make_cpu_buft_list); with mmap (the default) the loader keeps them in the
  // mapping, pageable, except tensors a -ot / --n-cpu-moe override sends to the CPU, which are
  // pinned since ggml-org/llama.cpp PR #20978 (2026-03-25).
  bool no_mmap = false;            // every host weight pinned
  bool pinned_overrides = true;    // override (expert) tensors pinned under mmap
};

/// The system RAM's bandwidth on device `d` when the request gave none (ram_bandwidth_from not
/// "request"): the memory the device ships with on its CPU side (Device::host_memory_gbs, a Grace
/// CPU's LPDDR5X, from "device"), else `fallback` (from "default").
void device_ram_bandwidth(HostLink& link, const Device& d, double fallback);

/// The host link an offloaded prefill copies system-RAM weights over, as used: `kind` "pcie" or
/// the device's host_link kind ("nvlink-c2c"), `gbs` its rate each way in GB/s, `from` "request"
/// (HostLink::pcie_gbs given), "device" (the catalog's host_link) or "pcie" (the first GPU's PCIe
/// generation at 80 % of the x16 line rate, times lanes / 16).
struct HostLinkUsed {
  std::string kind = "pcie";
  double gbs = 0;
  std::string from = "pcie";
};
HostLinkUsed host_link_used(const Device& first_gpu, const HostLink& link);

/// Speed for placement `p` over `gpus` (in placement order). Falls back to estimate_speed when
/// everything sits on one accelerator.
SpeedResult placed_speed(const Architecture& a, const TensorPlan& plan, const Placement& p,
                         const std::vector<Device>& gpus, const KvOptions& kv, const SpeedOptions& o,
                         const SpeedCoefficients& c, const HostLink& link);

/// PCIe x16 bandwidth in GB/s for a generation (at 80% of the line rate), 0 if unknown.
double pcie_x16_gbs(int gen);

}  // namespace wif
