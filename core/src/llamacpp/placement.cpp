#include "willitfit/llamacpp/placement.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "willitfit/base/error.hpp"
#include "willitfit/base/units.hpp"

namespace wif {
namespace {

using units::kGiB;
using units::kMiB;
// ggml_backend_sched keeps this many copies of split inputs for pipeline parallelism
// (GGML_SCHED_MAX_COPIES, llama.cpp ggml/src/ggml-backend.cpp).
constexpr std::uint64_t kSchedMaxCopies = 4;
// llama.cpp's default --fit target margin per device (see auto_place).
constexpr std::uint64_t kFitTargetBytes = 1024 * kMiB;

// The first layer -ngl puts on a GPU, the output layer (index n_layer) counted among the ngl:
// llama_model_base::load_tensors has `i_gpu_start = max(n_layer_all + 1 - n_gpu_layers, 0)` since
// ggml-org/llama.cpp PR 18148 ("llama: offload output layer to GPU first", opened 2025-12-17, merged;
// https://github.com/ggml-org/llama.cpp/pull/18148; src/llama-model.cpp,
// https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp). Before it the start
// was n_layer - n_gpu_layers and the output went last, only when n_gpu_layers > n_layer. So -ngl 1
// is the output alone, -ngl k the output and the last k - 1 blocks; -ngl 0 keeps all on the CPU.
int gpu_start(int n_layer, int ngl) { return std::max(n_layer + 1 - ngl, 0); }

bool is_mtp_layer(const Architecture& a, int layer) {
  return layer >= 0 && static_cast<std::size_t>(layer) < a.layers.size() &&
         a.layers[static_cast<std::size_t>(layer)].is_mtp;
}

// The low end of a device's usable memory (hardware/device.hpp UsableMemory::usable_low_bytes);
// a PlacementDevice that states none has no range.
std::uint64_t low_of(const PlacementDevice& g) {
  return g.usable_low_bytes > 0 ? std::min(g.usable_low_bytes, g.usable_bytes) : g.usable_bytes;
}

void finish(DeviceLoad& d) {
  d.total_bytes = d.weights_bytes + d.kv_bytes + d.compute_bytes + d.overhead_bytes;
  d.fits = d.usable_bytes == 0 ? d.total_bytes == 0 : d.total_bytes <= d.usable_bytes;
}

void add_weight(DeviceLoad& d, const Tensor& t, const Architecture& a) {
  d.weights_bytes += t.bytes;
  if (t.is_expert()) {
    d.expert_weights_bytes += t.bytes;
    const double used = a.moe.n_expert > 0 ? static_cast<double>(a.moe.n_expert_used) / a.moe.n_expert : 1.0;
    d.read_per_token_bytes += static_cast<std::uint64_t>(static_cast<double>(t.bytes) * used);
  } else if (t.role == TensorRole::TokenEmbd) {
    d.dense_weights_bytes += t.bytes;  // a lookup: one row per token is read
    d.read_per_token_bytes += a.n_vocab > 0 ? t.bytes / static_cast<std::uint64_t>(a.n_vocab) : 0;
  } else {
    d.dense_weights_bytes += t.bytes;
    d.read_per_token_bytes += t.bytes;
  }
}

void note_layer(DeviceLoad& d, int il) {
  if (d.first_layer < 0) d.first_layer = il;
  d.n_layers += 1;
}

// Everything in one pool: Apple / unified memory, a CPU-only machine, or no accelerator at all.
Placement place_unified(const Architecture& a, const TensorPlan& plan, const KvCache& kv,
                        const ComputeBuffer& cb, const std::vector<PlacementDevice>& gpus,
                        double ram_gib) {
  Placement p;
  p.unified = true;
  p.n_layer = static_cast<int>(a.n_layer_main());
  p.ngl = p.n_layer + 1;
  p.full_offload = true;
  DeviceLoad d;
  if (gpus.empty()) {
    d.host = true;
    d.id = "cpu";
    d.name = "CPU";
    d.backend = "cpu";
    d.usable_bytes = d.usable_low_bytes = host_ram_usable(ram_gib);
  } else {
    for (const auto& g : gpus) {
      d.usable_bytes += g.usable_bytes;
      d.usable_low_bytes += low_of(g);
      d.overhead_bytes += g.overhead_bytes;
    }
    d.id = gpus.front().device.id;
    d.name = gpus.front().device.name;
    d.backend = gpus.front().device.backend;
    d.host = gpus.front().device.kind == DeviceKind::Cpu;
  }
  for (const auto& t : plan.tensors) {
    if (is_mtp_layer(a, t.layer)) continue;
    add_weight(d, t, a);
  }
  d.kv_bytes = kv.total_bytes;
  d.compute_bytes = device_compute_bytes(cb, true, true);
  d.first_layer = 0;
  d.n_layers = p.n_layer;
  d.has_output = true;
  d.split = 1;
  finish(d);
  p.layer_device.assign(static_cast<std::size_t>(p.n_layer), 0);
  p.split = {1.0};
  p.devices.push_back(d);
  p.fits = d.fits;
  return p;
}

// Split shares that fill the GPUs in order, layer by layer, each up to its room after overhead,
// compute buffer and (main GPU, partial offload) the op-offload copy: shares are layer counts
// (the file's NextN blocks included, as llama.cpp counts them), so -ts reproduces exactly this
// assignment. Empty when the GPU layers do not fit.
std::vector<double> greedy_split(const Architecture& a, const TensorPlan& plan, const KvCache& kv,
                                 const ComputeBuffer& cb, const std::vector<PlacementDevice>& gpus,
                                 int ngl, int n_cpu_moe) {
  const int n_layer = static_cast<int>(a.n_layer_main());
  const int i_gpu_start = gpu_start(n_layer, ngl);
  std::vector<std::uint64_t> layer_bytes(static_cast<std::size_t>(n_layer + 1), 0);  // [n_layer] = output
  std::uint64_t largest_cpu = 0;
  for (const auto& t : plan.tensors) {
    if (is_mtp_layer(a, t.layer) || t.role == TensorRole::TokenEmbd) continue;
    const int il = t.layer < 0 ? n_layer : t.layer;
    const bool on_cpu = il < i_gpu_start || (t.is_expert() && t.layer < n_cpu_moe);
    if (on_cpu) largest_cpu = std::max(largest_cpu, t.bytes);
    else layer_bytes[static_cast<std::size_t>(il)] += t.bytes;
  }
  for (int il = 0; il < n_layer && static_cast<std::size_t>(il) < kv.per_layer.size(); ++il)
    layer_bytes[static_cast<std::size_t>(il)] += kv.per_layer[static_cast<std::size_t>(il)];
  const int last = n_layer;  // the output is the first GPU layer (gpu_start)
  std::vector<double> counts(gpus.size(), 0.0);
  std::size_t d = 0;
  std::uint64_t used = 0;
  auto room = [&](std::size_t k) -> std::int64_t {
    std::int64_t r = static_cast<std::int64_t>(gpus[k].usable_bytes) - static_cast<std::int64_t>(gpus[k].overhead_bytes) -
                     static_cast<std::int64_t>(device_compute_bytes(cb, true, true));
    if (k == 0) r -= static_cast<std::int64_t>(largest_cpu);
    return r;
  };
  for (int il = i_gpu_start; il <= last; ++il) {
    const std::uint64_t b = layer_bytes[static_cast<std::size_t>(il)];
    while (d < gpus.size() && static_cast<std::int64_t>(used + b) > room(d)) {
      ++d;
      used = 0;
    }
    if (d >= gpus.size()) return {};
    used += b;
    counts[d] += 1;
  }
  // llama.cpp counts the NextN blocks (no bytes) just below the output: the output's device.
  if (last >= i_gpu_start && d < gpus.size()) counts[d] += nextn_blocks(a);
  return counts;
}

}  // namespace

std::uint64_t host_ram_usable(double ram_gib) {
  if (ram_gib <= 0) return 0;
  const double b = ram_gib * kGiB;
  return static_cast<std::uint64_t>(std::max(0.0, b - std::max(4.0 * kGiB, 0.1 * b)));
}

std::uint64_t backend_overhead_bytes(const Catalog& cat, const Device& d) {
  // The device says which runtime footprint applies (Blackwell cards measured a larger one:
  // backends.json "cuda-blackwell", set per device as `overhead_backend` in data/hardware).
  const BackendInfo* be = cat.find_backend(d.overhead_backend.empty() ? d.backend : d.overhead_backend);
  if (!be) be = cat.find_backend(d.backend);
  const double mib = be ? be->overhead_mib : 512.0;
  return static_cast<std::uint64_t>(mib * static_cast<double>(kMiB));
}

namespace {

// Split fractions: given (-ts) or proportional to each device's usable memory (llama.cpp uses
// free memory at load time, which is what usable memory stands for). Sets p.split_shares (as
// given) and p.split (normalised); returns the cumulative fractions.
std::vector<double> split_fractions(const std::vector<PlacementDevice>& gpus, const PlacementSettings& s,
                                    Placement& p) {
  const int n_dev = static_cast<int>(gpus.size());
  std::vector<double> split(static_cast<std::size_t>(n_dev), 0.0);
  if (!s.tensor_split.empty()) {
    if (static_cast<int>(s.tensor_split.size()) != n_dev)
      throw InputError("bad_value", "tensor_split", "tensor_split needs one share per device (" +
                                                        std::to_string(n_dev) + ")");
    split = s.tensor_split;
  } else {
    for (int d = 0; d < n_dev; ++d) split[static_cast<std::size_t>(d)] = static_cast<double>(gpus[static_cast<std::size_t>(d)].usable_bytes) / kGiB;
  }
  p.split_shares = split;
  double sum = 0;
  for (double x : split) {
    if (!(x >= 0) || !std::isfinite(x)) throw InputError("bad_value", "tensor_split", "shares must be non-negative numbers");
    sum += x;
  }
  if (sum <= 0) throw InputError("bad_value", "tensor_split", "at least one share must be positive");
  std::vector<double> cum(split.size());
  double run = 0;
  for (std::size_t d = 0; d < split.size(); ++d) {
    split[d] /= sum;
    run += split[d];
    cum[d] = run;
  }
  p.split = split;
  return cum;
}

// Layer il -> device (llama_model_base::load_tensors): upper_bound over cumulative fractions;
// -1 is the CPU. Positions are counted as llama.cpp counts them, over the file's blocks: the
// n_mtp NextN blocks sit between the decoder's last layer and the output (index n_layer + n_mtp),
// and share the split with them though they hold nothing. Fills p.layer_device and returns the
// device of the output layer.
int assign_layers(const std::vector<double>& cum, int n_dev, int n_mtp, Placement& p) {
  const int n_layer = p.n_layer, n_all = n_layer + n_mtp;
  const int flag = ngl_flag(p.ngl, n_mtp);
  const int i_gpu_start = gpu_start(n_all, flag);
  const int act_gpu_layers = std::min(flag, n_all + 1);
  auto gpu_of = [&](int il) -> int {
    if (il < i_gpu_start || act_gpu_layers <= 0) return -1;
    const double x = static_cast<double>(il - i_gpu_start) / act_gpu_layers;
    const auto it = std::upper_bound(cum.begin(), cum.end(), x);
    return std::min(static_cast<int>(it - cum.begin()), n_dev - 1);
  };
  p.layer_device.resize(static_cast<std::size_t>(n_layer));
  for (int il = 0; il < n_layer; ++il) p.layer_device[static_cast<std::size_t>(il)] = gpu_of(il);
  return gpu_of(n_all);
}

// One empty load per GPU (its name, usable memory, overhead and share) and the host's.
void start_loads(const std::vector<PlacementDevice>& gpus, Placement& p) {
  const int n_dev = static_cast<int>(gpus.size());
  p.devices.resize(static_cast<std::size_t>(n_dev));
  for (int d = 0; d < n_dev; ++d) {
    DeviceLoad& L = p.devices[static_cast<std::size_t>(d)];
    const auto& g = gpus[static_cast<std::size_t>(d)];
    L.id = g.device.id;
    L.name = g.device.name;
    L.backend = g.device.backend;
    L.usable_bytes = g.usable_bytes;
    L.usable_low_bytes = low_of(g);
    L.overhead_bytes = g.overhead_bytes;
    L.split = p.split[static_cast<std::size_t>(d)];
  }
  DeviceLoad& H = p.host;
  H.host = true;
  H.id = "cpu";
  H.name = "System RAM";
  H.backend = "cpu";
}

DeviceLoad& load_of(Placement& p, int dev) { return dev < 0 ? p.host : p.devices[static_cast<std::size_t>(dev)]; }

/// What the CPU keeps of the layers' weights: op offload copies the largest to the GPU.
struct CpuWeights {
  std::uint64_t largest = 0;
  bool holds_layer_weights = false;
};

// Every tensor to the device of its layer (the input layer on the CPU, experts of the first
// n_cpu_moe layers on the CPU), then each layer's KV cache beside it (offload_kqv, the default).
CpuWeights place_tensors(const Architecture& a, const TensorPlan& plan, const KvCache& kv, int out_dev,
                         Placement& p) {
  CpuWeights cpu;
  DeviceLoad& H = p.host;
  for (const auto& t : plan.tensors) {
    if (is_mtp_layer(a, t.layer)) continue;  // NextN/MTP: TENSOR_SKIP, not loaded
    int dev = -1;
    if (t.role == TensorRole::TokenEmbd) {
      dev = -1;  // the input layer always stays on the CPU
      if (a.tied_embeddings && out_dev >= 0 && is_main_token_table(t)) add_weight(load_of(p, out_dev), t, a);  // duplicated output
    } else if (t.layer < 0) {
      dev = out_dev;  // output, output_norm: the output layer
    } else {
      dev = p.layer_device[static_cast<std::size_t>(t.layer)];
      if (t.is_expert() && t.layer < p.n_cpu_moe) dev = -1;  // --n-cpu-moe
    }
    add_weight(load_of(p, dev), t, a);
    if (dev < 0 && t.role != TensorRole::TokenEmbd) {
      cpu.holds_layer_weights = true;
      cpu.largest = std::max(cpu.largest, t.bytes);
    }
  }
  if (a.tied_embeddings && out_dev < 0) {
    // The output shares token_embd's CPU buffer: it is read in full for every token.
    for (const auto& t : plan.tensors)
      if (is_main_token_table(t)) {
        H.read_per_token_bytes += t.bytes;
        cpu.holds_layer_weights = true;
        cpu.largest = std::max(cpu.largest, t.bytes);
      }
  }
  for (int il = 0; il < p.n_layer && static_cast<std::size_t>(il) < kv.per_layer.size(); ++il) {
    const int dev = p.layer_device[static_cast<std::size_t>(il)];
    load_of(p, dev).kv_bytes += kv.per_layer[static_cast<std::size_t>(il)];
    note_layer(load_of(p, dev), il);
  }
  if (out_dev >= 0) p.devices[static_cast<std::size_t>(out_dev)].has_output = true;
  else H.has_output = true;
  return cpu;
}

// Compute buffers: one layer's intermediates per device with layers; logits on the device of
// the output matmul. With partial offload the main GPU also runs the big CPU matmuls of prompt
// batches (op offload) and needs room for the copied weight and the logits.
void size_gpu_compute(const Architecture& a, const ComputeBuffer& cb, std::uint64_t ub, int out_dev,
                      const CpuWeights& cpu, Placement& p) {
  const int n_dev = static_cast<int>(p.devices.size());
  p.pipeline_copies_bytes = 0;
  for (int d = 0; d < n_dev; ++d) {
    DeviceLoad& L = p.devices[static_cast<std::size_t>(d)];
    const bool main_gpu = d == 0;
    const bool logits_here = L.has_output || (main_gpu && out_dev < 0);
    L.compute_bytes = device_compute_bytes(cb, L.n_layers > 0 || (main_gpu && !p.full_offload), logits_here);
    if (main_gpu && !p.full_offload) {
      L.op_offload_bytes = cpu.largest;
      L.compute_bytes += cpu.largest;
    }
    if (n_dev > 1 && p.full_offload && p.n_cpu_moe == 0) {  // pipeline parallelism: input copies
      p.pipeline_copies_bytes = (kSchedMaxCopies - 1) * 4 * ub * static_cast<std::uint64_t>(a.n_embd);
      L.compute_bytes += p.pipeline_copies_bytes;
    }
    finish(L);
  }
}

// Host: the embedding lookup's output, CPU layers' intermediates, logits if the output stays
// on the CPU, and the output buffer of n_vocab floats per sequence (llama_context::output_reserve
// in src/llama-context.cpp); then the RAM it needs
// with and without mmap, and whether everything fits.
void size_host(const Architecture& a, const ComputeBuffer& cb, std::uint64_t ub, const KvOptions& kvo,
               double ram_gib, const PlacementSettings& s, Placement& p) {
  DeviceLoad& H = p.host;
  H.compute_bytes = device_compute_bytes(cb, H.n_layers > 0, H.has_output) +
                    4 * ub * static_cast<std::uint64_t>(a.n_embd);
  H.compute_bytes += 4 * static_cast<std::uint64_t>(a.n_vocab) * static_cast<std::uint64_t>(std::max<std::int64_t>(1, kvo.n_seq));
  H.usable_bytes = H.usable_low_bytes = host_ram_usable(ram_gib);
  finish(H);
  if (ram_gib <= 0) H.fits = true;  // RAM not given: not a limit

  p.ram_no_mmap_bytes = H.total_bytes;
  p.page_cache_bytes = s.mmap ? H.weights_bytes : 0;
  p.ram_mmap_bytes = H.total_bytes - H.weights_bytes;
  p.ram_usable_bytes = H.usable_bytes;
  // mmap only moves CPU weights to the page cache; to run at speed they must stay resident, so
  // both ways need the same RAM (with mmap a machine short of RAM pages from disk instead).
  p.ram_fits = H.fits;
  p.fits = p.ram_fits;
  for (const auto& L : p.devices) p.fits = p.fits && L.fits;
}

}  // namespace

Placement place_llamacpp(const Architecture& a, const TensorPlan& plan, const KvCache& kv,
                         const KvOptions& kvo, const std::vector<PlacementDevice>& gpus,
                         double ram_gib, const PlacementSettings& s) {
  const ComputeBuffer cb = llamacpp_compute_buffer(a, kv, kvo.n_ubatch, kvo.flash_attn, kvo.n_seq);
  const bool discrete = !gpus.empty() && std::all_of(gpus.begin(), gpus.end(), [](const PlacementDevice& g) {
    return g.device.kind == DeviceKind::Gpu;
  });
  if (!discrete) return place_unified(a, plan, kv, cb, gpus, ram_gib);

  Placement p;
  const int n_layer = static_cast<int>(a.n_layer_main());
  const int n_dev = static_cast<int>(gpus.size());
  p.n_layer = n_layer;
  p.ngl = s.ngl < 0 ? n_layer + 1 : std::min(s.ngl, n_layer + 1);
  p.n_cpu_moe = a.is_moe() ? std::clamp(s.n_cpu_moe, 0, n_layer) : 0;

  const std::vector<double> cum = split_fractions(gpus, s, p);
  const int out_dev = assign_layers(cum, n_dev, nextn_blocks(a), p);
  start_loads(gpus, p);
  const CpuWeights cpu = place_tensors(a, plan, kv, out_dev, p);
  p.full_offload = !cpu.holds_layer_weights;
  const std::uint64_t ub = static_cast<std::uint64_t>(std::min<std::int64_t>(kvo.n_ubatch, kv.n_ctx));
  size_gpu_compute(a, cb, ub, out_dev, cpu, p);
  size_host(a, cb, ub, kvo, ram_gib, s, p);
  return p;
}

Placement auto_place(const Architecture& a, const TensorPlan& plan, const KvCache& kv,
                     const KvOptions& kvo, const std::vector<PlacementDevice>& gpus, double ram_gib,
                     bool mmap) {
  PlacementSettings s;
  s.mmap = mmap;
  Placement best = place_llamacpp(a, plan, kv, kvo, gpus, ram_gib, s);
  if (best.fits || best.unified) return best;
  const ComputeBuffer cb = llamacpp_compute_buffer(a, kv, kvo.n_ubatch, kvo.flash_attn, kvo.n_seq);
  const int n_layer = best.n_layer;

  // The search over settings for one list of devices (their usable bytes as given).
  auto search = [&](const std::vector<PlacementDevice>& devs, bool everything_only, Placement& found) -> bool {
    // Alternative split for several GPUs: proportional to what each has left for layers after
    // its overhead and compute buffer (the default, by free memory, ignores those fixed costs).
    std::vector<std::vector<double>> splits = {{}};
    if (devs.size() > 1) {
      const Placement first = place_llamacpp(a, plan, kv, kvo, devs, ram_gib, s);
      std::vector<double> room;
      for (const auto& L : first.devices)
        room.push_back(std::max(1.0, static_cast<double>(L.usable_bytes) -
                                         static_cast<double>(L.overhead_bytes + L.compute_bytes)));
      splits.push_back(room);
    }
    // One setting over every split candidate: `fits` when some split fits the GPUs and the RAM,
    // `gpus_ok` when some split fits the GPUs (the RAM may still be short).
    struct Try {
      bool fits = false, gpus_ok = false;
    };
    auto try_all_splits = [&](int ngl, int n_cpu_moe, Placement& out) {
      std::vector<std::vector<double>> cands = splits;
      if (devs.size() > 1) {
        auto g = greedy_split(a, plan, kv, cb, devs, ngl < 0 ? n_layer + 1 : ngl, n_cpu_moe);
        double total = 0;
        for (double x : g) total += x;
        if (total > 0) cands.push_back(g);  // no layer fits anywhere: nothing to try
      }
      Try t;
      for (const auto& sp : cands) {
        PlacementSettings st = s;
        st.ngl = ngl;
        st.n_cpu_moe = n_cpu_moe;
        st.tensor_split = sp;
        Placement p = place_llamacpp(a, plan, kv, kvo, devs, ram_gib, st);
        bool gpus_fit = true;
        for (const auto& L : p.devices) gpus_fit = gpus_fit && L.fits;
        t.gpus_ok = t.gpus_ok || gpus_fit;
        if (p.fits) {
          out = std::move(p);
          t.fits = true;
          return t;
        }
      }
      return t;
    };
    // The first setting in `order` (a range of ints walked by index) whose GPUs fit, found by
    // bisection: each step moves work off the GPUs, so what the GPUs hold only shrinks along the
    // order and what the RAM holds only grows. The first setting whose GPUs fit is therefore the
    // only candidate: if its RAM is short, every later one's is too. That is the answer a walk
    // through every setting gives, in log2(n) placements instead of n (a 92-layer MoE offloaded:
    // 7 instead of up to 92 per estimate).
    auto first_fit = [&](int count, const std::function<Try(int, Placement&)>& at, Placement& out) {
      int lo = 0, hi = count;  // answer in [lo, hi]; hi = none
      Placement scratch;
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (at(mid, scratch).gpus_ok) hi = mid;
        else lo = mid + 1;
      }
      return lo < count && at(lo, out).fits;
    };
    if (try_all_splits(-1, 0, found).fits) return true;
    if (everything_only || ram_gib <= 0) return false;  // nowhere to offload to
    // MoE: keep every layer on the GPUs and move the experts of the first N layers to the CPU.
    if (a.is_moe() && first_fit(n_layer, [&](int i, Placement& o) { return try_all_splits(-1, i + 1, o); }, found))
      return true;
    // Then whole layers, from the top of the stack down (-ngl), experts of GPU layers kept there
    // unless even that fails.
    for (int moe : a.is_moe() ? std::vector<int>{0, n_layer} : std::vector<int>{0})
      if (first_fit(n_layer + 1, [&](int i, Placement& o) { return try_all_splits(n_layer - i, moe, o); }, found))
        return true;
    return false;
  };

  Placement found;
  // Everything on the GPUs with another split first (several GPUs): no offload, no margin.
  if (search(gpus, true, found)) return found;
  if (ram_gib <= 0) return best;
  // An offload plan is what llama.cpp's --fit (on by default) makes, and --fit leaves a target
  // margin free on every device: `fit_params_target`, 1024 MiB per device by default
  // (common/common.h; `-fitt/--fit-target`, "target margin per device for --fit", common/arg.cpp,
  // https://github.com/ggml-org/llama.cpp/blob/master/common/arg.cpp). The plan is searched with
  // that margin held back, always: a plan that fills a GPU to its last byte is not one llama.cpp
  // makes (and fragmentation can fail it), so a setup that runs only without the margin is no fit
  // of the automatic plan (explicit -ngl/--n-cpu-moe flags are placed as given).
  std::vector<PlacementDevice> held = gpus;
  for (auto& g : held) g.usable_bytes = g.usable_bytes > kFitTargetBytes ? g.usable_bytes - kFitTargetBytes : 0;
  if (search(held, false, found)) {
    // The devices' usable memory is what it is; the margin is reported beside it.
    for (std::size_t i = 0; i < found.devices.size() && i < gpus.size(); ++i) {
      found.devices[i].usable_bytes = gpus[i].usable_bytes;
      found.devices[i].usable_low_bytes = low_of(gpus[i]);
      finish(found.devices[i]);
    }
    found.fit_margin_bytes = kFitTargetBytes;
    return found;
  }
  return best;
}

// The NextN blocks sit above the decoder's in the file (blk.{n_layer_main} … blk.{block_count-1}),
// between the decoder and the output layer, so a -ngl over block_count puts them on the GPUs
// after the output and before any decoder layer: llama.cpp's llama_model_base::load_tensors
// (https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp) gives a layer to a GPU
// from i_gpu_start = n_layer_all + 1 - n_gpu_layers, where n_layer_all is the file's block_count
// (NextN blocks included; hparams.n_layer_nextn of them), and the NextN tensors are created
// TENSOR_SKIP unless an MTP draft loads them. So the plan's count (output + decoder layers) is
// the flag less the NextN blocks once the flag reaches past the output.
int nextn_blocks(const Architecture& a) { return static_cast<int>(a.n_layer_all() - a.n_layer_main()); }

int ngl_flag(int ngl, int n_mtp) { return ngl > 0 ? ngl + n_mtp : ngl; }

// -ngl 1 is the output alone; the next n_mtp count the NextN blocks, then the decoder layers.
int ngl_from_flag(int flag, int n_mtp) { return flag > 0 ? 1 + std::max(0, flag - 1 - n_mtp) : flag; }

std::vector<double> split_flag(const Placement& p, int n_mtp) {
  if (n_mtp == 0 || p.devices.empty()) return p.split_shares;
  // Layer counts place exactly: llama.cpp sends the k-th GPU layer to the first device whose
  // cumulative share exceeds k / act_gpu_layers.
  // The NextN blocks come just below the output, on its device (the last one when the output
  // stays in RAM).
  std::vector<double> counts;
  std::size_t out = p.devices.size() - 1;
  for (std::size_t i = 0; i < p.devices.size(); ++i) {
    counts.push_back(p.devices[i].n_layers + (p.devices[i].has_output ? 1 : 0));
    if (p.devices[i].has_output) out = i;
  }
  counts[out] += n_mtp;
  return counts;
}

}  // namespace wif
