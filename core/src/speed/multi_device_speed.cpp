#include "willitfit/speed/multi_device_speed.hpp"

#include <algorithm>
#include <cmath>

namespace wif {

double pcie_x16_gbs(int gen) {
  // Line rate per x16 link: gen3 15.75, gen4 31.5, gen5 63 GB/s; transfers reach about 80%.
  switch (gen) {
    case 3: return 0.8 * 15.75;
    case 4: return 0.8 * 31.5;
    case 5: return 0.8 * 63.0;
    case 6: return 0.8 * 126.0;
    default: return 0;
  }
}

void device_ram_bandwidth(HostLink& link, const Device& d, double fallback) {
  if (link.ram_bandwidth_from == "request") return;
  const bool own = d.host_memory_gbs > 0;
  link.ram_bandwidth_gbs = own ? d.host_memory_gbs : fallback;
  link.ram_bandwidth_from = own ? "device" : "default";
}

HostLinkUsed host_link_used(const Device& g0, const HostLink& link) {
  HostLinkUsed u;
  if (!g0.host_link_kind.empty()) u.kind = g0.host_link_kind;
  if (link.pcie_gbs > 0) {  // the person's own figure for their link
    u.gbs = link.pcie_gbs;
    u.from = "request";
  } else if (g0.host_link_gbs > 0) {
    // A superchip's link (GH200: NVLink-C2C, 450 GB/s each way, NVIDIA's figure): used as stated,
    // no public measurement of how much of it a copy reaches being in the catalog.
    u.gbs = g0.host_link_gbs;
    u.from = "device";
  } else {
    // The card's own link: its generation's x16 rate scaled to its lane count (cards with an x8
    // edge connector, e.g. Arc B580 or RTX 4060 Ti, move host weights at half the x16 rate).
    const double lanes = g0.pcie_lanes > 0 ? std::min(16, g0.pcie_lanes) / 16.0 : 1.0;
    u.gbs = pcie_x16_gbs(g0.pcie_gen > 0 ? g0.pcie_gen : 4) * lanes;
  }
  return u;
}

namespace {

// -2 = not loaded (MTP), -1 = host, otherwise the GPU index.
int device_of(const Architecture& a, const Placement& p, const Tensor& t) {
  if (t.role == TensorRole::TokenEmbd) return -1;
  if (t.layer < 0) {
    for (std::size_t d = 0; d < p.devices.size(); ++d)
      if (p.devices[d].has_output) return static_cast<int>(d);
    return -1;
  }
  const auto il = static_cast<std::size_t>(t.layer);
  if (il < a.layers.size() && a.layers[il].is_mtp) return -2;
  if (t.is_expert() && t.layer < p.n_cpu_moe) return -1;
  return il < p.layer_device.size() ? p.layer_device[il] : -1;
}

}  // namespace

SpeedResult placed_speed(const Architecture& a, const TensorPlan& plan, const Placement& p,
                         const std::vector<Device>& gpus, const KvOptions& kv, const SpeedOptions& o,
                         const SpeedCoefficients& c, const HostLink& link) {
  if (gpus.empty()) return SpeedResult{};
  if (p.unified || (p.full_offload && gpus.size() == 1))
    return estimate_speed(a, plan, gpus.front(), kv, o, c);

  SpeedResult s;
  s.family = quant_family(plan);
  s.work = model_work(a, plan);
  const int n_dev = static_cast<int>(gpus.size());
  struct Part { ModelWork w; DeviceRates r; int dev; };
  std::vector<Part> parts;
  Device host;
  host.id = "host-ram";
  host.name = "system RAM";
  host.kind = DeviceKind::Cpu;
  host.backend = "cpu";
  host.bandwidth_gbs = link.ram_bandwidth_gbs;
  for (int d = -1; d < n_dev; ++d) {
    auto on = [&](const Tensor& t) { return device_of(a, p, t) == d; };
    Part part{model_work(a, plan, on), {}, d};
    if (part.w.decode_weight_bytes <= 0 && part.w.layers == 0) continue;
    part.r = device_rates(d < 0 ? host : gpus[static_cast<std::size_t>(d)], d < 0 ? "cpu" : o.backend, s.family, c, plan_is_bf16(plan), plan_is_mmq_legacy(plan));
    parts.push_back(part);
  }
  s.rates = device_rates(gpus.front(), o.backend, s.family, c, plan_is_bf16(plan), plan_is_mmq_legacy(plan));
  s.backend = s.rates.backend;
  const double pcie = host_link_used(gpus.front(), link).gbs * 1e9;  // the host link, B/s

  // The layers the placement put on device `dev` (-1: system RAM).
  auto layers_on = [&p](int dev) {
    return [&p, dev](std::int64_t il) {
      if (il < 0 || static_cast<std::size_t>(il) >= p.layer_device.size()) return false;
      return p.layer_device[static_cast<std::size_t>(il)] == dev;
    };
  };
  auto decode_at = [&](std::int64_t depth, DecodeTerms* out) {
    DecodeTerms sum;
    for (const auto& part : parts) {
      const DecodeTerms t = decode_step(part.w, kv_read_bytes(a, kv, depth, layers_on(part.dev)), part.r);
      sum.weights_s += t.weights_s;
      sum.kv_s += t.kv_s;
      sum.overhead_s += t.overhead_s;
      sum.total_s += t.total_s;
    }
    if (out) *out = sum;
    return sum.total_s > 0 ? 1.0 / sum.total_s : 0.0;
  };
  s.decode_tps = decode_at(o.depth, &s.decode);
  // Ranges of the placement's own group (offloaded: layers or experts in system RAM; else several
  // GPUs), from the spread of that group's calibration rows (llama_bench.cpp fit_speed). The token
  // embedding, which llama.cpp keeps in RAM beside discrete GPUs in every plan, does not make a
  // plan "offloaded": with it counted, every multi-GPU estimate was labelled and ranged as one.
  const std::string group = p.full_offload ? "multi_gpu" : "offloaded";
  s.group = group;
  const SpeedRange dr = speed_range(c, "tg", group, s.backend), pr = speed_range(c, "pp", group, s.backend);
  s.decode_tps_low = s.decode_tps * dr.low;
  s.decode_tps_high = s.decode_tps * dr.high;
  const double mid = decode_at(o.depth + o.prompt + std::max<std::int64_t>(1, o.gen) / 2, nullptr);
  s.gen_avg_tps = mid;

  // Prefill: GPU parts on their own device. Host parts: for a micro-batch of 32 tokens or more the
  // scheduler runs their matmuls on the first GPU (ggml/src/ggml-backend.cpp,
  // ggml_backend_sched_backend_id_from_cur with op_offload; the CUDA backend's offload_op asks
  // for a batch of at least 32, ggml/src/ggml-cuda/ggml-cuda.cu), copying the CPU-resident
  // weights over the link once per micro-batch; for MUL_MAT_ID only the experts the batch routes
  // to are copied (ggml_backend_sched_compute_splits), 1 - (1 - k/n)^tokens of them under
  // uniform routing. The copy rate is the link's, capped by host_copy_gbs (fitted).
  double copy_bps = pcie;
  if (c.host_copy_gbs > 0) copy_bps = std::min(copy_bps, c.host_copy_gbs * 1e9);
  PrefillTerms total;
  total.available = true;
  for (const auto& part : parts) {
    DeviceRates r = part.dev < 0 ? s.rates : part.r;
    ModelWork w = part.w;
    if (part.dev < 0) {
      double expert_bytes = w.expert_pass_bytes;
      if (w.expert_share > 0) {
        // Only the routed-expert part shrinks: by the share of experts a micro-batch touches.
        const double ub = static_cast<double>(std::max<std::int64_t>(1, std::min(o.n_ubatch, o.prompt)));
        const double touched = 1.0 - std::pow(1.0 - w.expert_share, ub);
        w.pass_weight_bytes -= w.expert_pass_bytes * (1.0 - touched);
        expert_bytes *= touched;
      }
      // Pinned or pageable source (HostLink): experts sent to the CPU by --n-cpu-moe are an
      // override; whole layers left on the host by -ngl are not.
      const double pageable = copy_bps * c.pageable_copy_share;
      const double expert_rate = link.no_mmap || (p.n_cpu_moe > 0 && link.pinned_overrides) ? copy_bps : pageable;
      const double other_rate = link.no_mmap ? copy_bps : pageable;
      const double other_bytes = std::max(0.0, w.pass_weight_bytes - expert_bytes);
      const double copy_s = expert_bytes / expert_rate + other_bytes / other_rate;
      r.bw_bytes_s = std::min(r.bw_bytes_s, copy_s > 0 ? w.pass_weight_bytes / copy_s : copy_bps);
    }
    const PrefillTerms t = prefill_time(w, attention_flops(a, o.prompt, o.depth, layers_on(part.dev)), o.prompt, o.n_ubatch, r);
    if (!t.available) total.available = false;
    total.matmul_s += t.matmul_s;
    total.attention_s += t.attention_s;
    total.weights_s += t.weights_s;
    total.total_s += t.total_s;
  }
  s.prefill = total;
  s.prefill_available = total.available && total.total_s > 0;
  if (s.prefill_available) {
    s.prefill_tps = static_cast<double>(o.prompt) / total.total_s;
    s.prefill_tps_low = s.prefill_tps * pr.low;
    s.prefill_tps_high = s.prefill_tps * pr.high;
    s.ttft_ms = total.total_s * 1000.0;
  }
  s.total_ms = s.ttft_ms + (s.gen_avg_tps > 0 ? 1000.0 * static_cast<double>(o.gen) / s.gen_avg_tps : 0);
  s.kv_bytes_at_depth = kv_read_bytes(a, kv, o.depth);
  std::int64_t max_d = o.curve_max_depth > 0 ? o.curve_max_depth : (a.n_ctx_train > 0 ? a.n_ctx_train : 32768);
  max_d = std::min<std::int64_t>(max_d, 131072);
  for (int i = 0; o.curve && i <= 16; ++i) {
    const std::int64_t dd = max_d * i / 16;
    s.curve_depth.push_back(static_cast<double>(dd));
    s.curve_tps.push_back(decode_at(dd, nullptr));
  }
  return s;
}

}  // namespace wif
