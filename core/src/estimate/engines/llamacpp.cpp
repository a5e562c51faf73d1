// llama.cpp's fit step: the layers, experts and buffers placed on the devices (llamacpp/
// placement.hpp), automatically or as the request's -ngl / --n-cpu-moe / -ts say, and the verdict
// from the per-device totals with the estimate's uncertainty.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engines.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/llamacpp/placement.hpp"
#include "willitfit/speed/multi_device_speed.hpp"
#include "willitfit/speed/speculative.hpp"

namespace wif::engines {
namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

// The estimate's uncertainty on one device: 2% of its total plus 256 MiB (the spread seen in
// calibration/llamacpp_buffers.jsonl for compute buffers and runtime overhead).
std::uint64_t high(std::uint64_t total) {
  return total + static_cast<std::uint64_t>(0.02 * static_cast<double>(total)) + 256 * kMiB;
}

nlohmann::json load_json(const DeviceLoad& d) {
  nlohmann::json j = {{"id", d.id}, {"name", d.name}, {"backend", d.backend},
          {"weights_bytes", d.weights_bytes}, {"kv_bytes", d.kv_bytes},
          {"compute_bytes", d.compute_bytes}, {"op_offload_bytes", d.op_offload_bytes},
          {"overhead_bytes", d.overhead_bytes}, {"projector_bytes", d.projector_bytes}, {"draft_bytes", d.draft_bytes}, {"total_bytes", d.total_bytes},
          {"usable_bytes", d.usable_bytes}, {"usable_low_bytes", d.usable_low_bytes}, {"fits", d.fits},
          // The page's tag for this device, on the headline's rule (estimate.hpp room_to_spare):
          // "tight" when it fits but the estimate's upper bound leaves no room to spare on the
          // low end of its usable memory.
          {"verdict", !d.fits ? "no_fit" : room_to_spare(high(d.total_bytes), d.usable_low_bytes) ? "fits" : "tight"},
          // The compute graph's buffers apart from the buffer llama.cpp keeps to run weights held
          // in RAM on the GPU (op_offload_bytes; compute_bytes holds both): the graph part is
          // what memory.compute_bytes counts when everything is on the accelerators.
          {"compute_graph_bytes", d.compute_bytes - std::min(d.compute_bytes, d.op_offload_bytes)},
          {"n_layers", d.n_layers}, {"has_output", d.has_output},
          {"split", d.split}, {"dense_weights_bytes", d.dense_weights_bytes},
          {"expert_weights_bytes", d.expert_weights_bytes},
          {"read_per_token_bytes", d.read_per_token_bytes}};
  if (d.first_layer >= 0) j["first_layer"] = d.first_layer;  // absent when it holds no layer
  return j;
}

class LlamaCppStep final : public EngineStep {
 public:
  const char* id() const override { return "llama.cpp"; }

  void fit(const Catalog& cat, const EstimateRequest& r, Estimate& e) const override {
    const Architecture& a = r.model.arch;
    std::vector<PlacementDevice> gpus;
    for (const auto& d : r.devices) {
      const UsableMemory u = usable_memory(d, r.overrides);
      gpus.push_back({d, u.usable_bytes, backend_overhead_bytes(cat, d), u.usable_low_bytes});
    }
    // --- speculative MTP hook (speculative.hpp) ---
    // llama.cpp with --spec-type draft-mtp loads the NextN block and gives it one layer's cache
    // (PR #26534 / #25980), in a context of its own whose compute buffer is counted as large as
    // the main context's: one layer's scratch or the logits over a ubatch (PR #25980 measured the
    // MTP context roughly doubling the compute-buffer overhead). They sit with the output layer: reserved on
    // the last device before placing, so the automatic plan leaves room, then booked there.
    e.spec_weights_bytes = e.spec_kv_bytes = e.spec_compute_bytes = 0;
    if (r.spec.mtp && !gpus.empty()) {
      e.spec_weights_bytes = mtp_weight_bytes(a, *e.plan);
      const std::int64_t n_main = a.n_layer_main(), n_mtp = a.n_layer_all() - n_main;
      if (r.engine == "llama.cpp" && n_main > 0 && static_cast<std::size_t>(n_main) <= e.kv.per_layer.size())
        e.spec_kv_bytes = e.kv.per_layer[static_cast<std::size_t>(n_main - 1)] * static_cast<std::uint64_t>(n_mtp);
      if (r.engine == "llama.cpp") {
        e.spec_compute_bytes = device_compute_bytes(e.compute, true, true);
        gpus.back().overhead_bytes += e.spec_weights_bytes + e.spec_kv_bytes + e.spec_compute_bytes;
      }
    }
    auto book_spec = [&e, &r](Placement& p) {
      if (!r.spec.mtp || r.engine != "llama.cpp" || p.devices.empty()) return;
      DeviceLoad& d = p.devices.back();
      const std::uint64_t extra = e.spec_weights_bytes + e.spec_kv_bytes + e.spec_compute_bytes;
      if (d.overhead_bytes < extra) return;
      d.overhead_bytes -= extra;
      d.weights_bytes += e.spec_weights_bytes;
      d.kv_bytes += e.spec_kv_bytes;
      d.compute_bytes += e.spec_compute_bytes;
    };
    // --- end of the speculative MTP hook ---
    // --- vision projector hook (model/projector.hpp) ---
    // libmtmd loads the mmproj on the first GPU by default (mtmd_context_params.use_gpu, which
    // llama-server's --no-mmproj-offload turns off) and reserves the encoder's compute buffer
    // there at warm-up: reserved before placing so the layers leave room, then booked as the
    // device's projector_bytes. Off the GPU (or with no accelerator) it sits in system RAM.
    const std::uint64_t proj = e.proj_loaded ? e.proj_bytes + e.proj_compute_bytes : 0;
    e.proj_on_device = proj > 0 && r.proj.offload && !gpus.empty();
    if (e.proj_on_device) gpus.front().overhead_bytes += proj;
    auto book_proj = [&e, proj](Placement& p) {
      if (proj == 0) return;
      if (e.proj_on_device && !p.devices.empty() && p.devices.front().overhead_bytes >= proj) {
        p.devices.front().overhead_bytes -= proj;
        p.devices.front().projector_bytes += proj;
      } else if (!e.proj_on_device) {
        // In system RAM: the host's need grows with it, with and without mmap, and so may
        // its verdict when the RAM is given (placement.cpp size_host).
        DeviceLoad& H = p.host;
        H.projector_bytes += proj;
        H.total_bytes += proj;
        p.ram_no_mmap_bytes += proj;
        p.ram_mmap_bytes += proj;
        if (H.usable_bytes > 0 && H.total_bytes > H.usable_bytes) {
          H.fits = false;
          p.ram_fits = false;
          p.fits = false;
        }
      }
    };
    // --- end of the vision projector hook ---
    // --- draft model hook (speculative.hpp) ---
    // llama-server with -md loads the draft with all its layers on the GPUs (-ngld), its own
    // context of the same size and its own compute buffer (common/speculative.cpp, tools/server);
    // its embedding table stays in system RAM like the target's. With several GPUs and no
    // --spec-draft-device it is split over all of them by their free memory, as the target's
    // layers are by default (llama_model_load: tensor_split from free memory): reserved that way
    // on each accelerator before placing, then booked as the device's draft_bytes. Without an
    // accelerator the whole draft sits in system RAM.
    e.draft_weights_bytes = e.draft_host_bytes = 0;
    e.draft_on_device = false;
    std::vector<std::uint64_t> draft_share;  // per accelerator
    if (r.draft && e.draft_plan) {
      const Architecture& da = r.draft->arch;
      for (const auto& t : e.draft_plan->tensors) {
        if (t.layer >= 0 && static_cast<std::size_t>(t.layer) < da.layers.size() && da.layers[static_cast<std::size_t>(t.layer)].is_mtp) continue;
        if (t.role == TensorRole::TokenEmbd) {
          e.draft_host_bytes += t.bytes;
          if (da.tied_embeddings && is_main_token_table(t)) e.draft_weights_bytes += t.bytes;  // duplicated output
        } else {
          e.draft_weights_bytes += t.bytes;
        }
      }
      // One memory pool (Apple, a CPU-only machine; llamacpp/placement.cpp place_unified): the
      // embedding table is in it too, on the one device.
      const bool pooled = !gpus.empty() && std::any_of(gpus.begin(), gpus.end(), [](const PlacementDevice& g) {
        return g.device.kind != DeviceKind::Gpu;
      });
      if (pooled) {
        e.draft_weights_bytes += e.draft_host_bytes;
        e.draft_host_bytes = 0;
        if (da.tied_embeddings)  // the output is the table itself, not a copy, in one pool
          for (const auto& t : e.draft_plan->tensors)
            if (is_main_token_table(t)) {
              e.draft_weights_bytes -= t.bytes;
              break;
            }
      }
      const std::uint64_t draft_dev = e.draft_weights_bytes + e.draft_kv.total_bytes + e.draft_compute.total_bytes;
      e.draft_on_device = !gpus.empty();
      if (e.draft_on_device) {
        double sum = 0;
        for (const auto& g : gpus) sum += static_cast<double>(g.usable_bytes);
        std::uint64_t given = 0;
        for (std::size_t i = 0; i < gpus.size(); ++i) {
          if (pooled && i > 0) break;  // one device holds the pool
          const std::uint64_t part = pooled || i + 1 == gpus.size() ? draft_dev - given
                                     : sum > 0 ? static_cast<std::uint64_t>(static_cast<double>(draft_dev) * static_cast<double>(gpus[i].usable_bytes) / sum)
                                               : 0;
          draft_share.push_back(part);
          given += part;
          gpus[i].overhead_bytes += part;
        }
      } else {
        e.draft_host_bytes += draft_dev;
      }
    }
    auto book_draft = [&e, &draft_share](Placement& p) {
      for (std::size_t i = 0; i < draft_share.size() && i < p.devices.size(); ++i)
        if (p.devices[i].overhead_bytes >= draft_share[i]) {
          p.devices[i].overhead_bytes -= draft_share[i];
          p.devices[i].draft_bytes += draft_share[i];
        }
      if (e.draft_host_bytes == 0) return;
      DeviceLoad& H = p.host;  // system RAM: the embedding table (mmap'd), or the whole draft
      H.draft_bytes += e.draft_host_bytes;
      H.total_bytes += e.draft_host_bytes;
      p.ram_no_mmap_bytes += e.draft_host_bytes;
      p.ram_mmap_bytes += e.draft_host_bytes;
      if (H.usable_bytes > 0 && H.total_bytes > H.usable_bytes) {
        H.fits = false;
        p.ram_fits = false;
        p.fits = false;
      }
    };
    // --- end of the draft model hook ---
    PlacementSettings all;
    all.mmap = r.placement.mmap;
    e.full = place_llamacpp(a, *e.plan, e.kv, r.kv, gpus, r.ram_gib, all);
    if (r.placement_given) {
      // The request's ngl is llama.cpp's -ngl, which counts the file's NextN blocks (placement.hpp).
      PlacementSettings s = r.placement;
      s.ngl = ngl_from_flag(s.ngl, nextn_blocks(a));
      e.placement = place_llamacpp(a, *e.plan, e.kv, r.kv, gpus, r.ram_gib, s);
    } else if (e.full.fits) {
      e.placement = e.full;
    } else {
      e.placement = auto_place(a, *e.plan, e.kv, r.kv, gpus, r.ram_gib, r.placement.mmap);
    }
    book_spec(e.full);
    book_spec(e.placement);
    book_proj(e.full);
    book_proj(e.placement);
    book_draft(e.full);
    book_draft(e.placement);

    // memory.*_bytes: everything on the accelerators (the single-device contract), summed.
    e.weights_bytes = e.overhead_bytes = e.total_bytes = e.total_high_bytes = 0;
    e.compute.total_bytes = 0;
    e.usable = usable_memory(r.device, r.overrides);
    e.usable.usable_bytes = e.usable.usable_low_bytes = e.usable.physical_bytes = 0;
    for (const auto& d : r.devices) e.usable.physical_bytes += usable_memory(d, r.overrides).physical_bytes;
    bool all_fit = true, all_margin = true;
    for (const auto& d : e.full.devices) {
      e.weights_bytes += d.weights_bytes;
      e.compute.total_bytes += d.compute_bytes;
      e.overhead_bytes += d.overhead_bytes;
      e.total_bytes += d.total_bytes;
      e.total_high_bytes += high(d.total_bytes);
      e.usable.usable_bytes += d.usable_bytes;
      e.usable.usable_low_bytes += d.usable_low_bytes;
      all_fit = all_fit && d.total_bytes <= d.usable_bytes;
      all_margin = all_margin && room_to_spare(high(d.total_bytes), d.usable_low_bytes);  // estimate.hpp
    }
    e.host_weights_bytes = e.full.unified ? 0 : e.full.host.weights_bytes;

    const Placement& p = e.placement;
    if (p.full_offload && all_fit && p.fits) e.verdict = all_margin ? "fits" : "tight";
    else if (p.fits && !p.full_offload) e.verdict = "offload";
    else e.verdict = "no_fit";
    if (p.fits && p.full_offload && !all_fit) e.verdict = "tight";  // a forced split that fits
  }

  void write(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) const override {
    using nlohmann::json;
    const Placement& p = e.placement;
    json host = load_json(p.host);
    host["ram_no_mmap_bytes"] = p.ram_no_mmap_bytes;
    host["ram_mmap_bytes"] = p.ram_mmap_bytes;
    host["page_cache_bytes"] = p.page_cache_bytes;
    host["ram_usable_bytes"] = p.ram_usable_bytes;
    host["ram_fits"] = p.ram_fits;
    // System RAM as the request states it: no vendor's figure, its low end is itself.
    host["verdict"] = !p.ram_fits ? "no_fit" : room_to_spare(high(p.host.total_bytes), p.ram_usable_bytes) ? "fits" : "tight";
    // What one token reads from the accelerators' memory, all devices together (the offload
    // limit sentence sets it beside what it reads from system RAM).
    std::uint64_t devices_read = 0;
    for (const auto& d : p.devices) devices_read += d.read_per_token_bytes;
    host["devices_read_per_token_bytes"] = devices_read;
    // The host link and the system RAM's bandwidth the offloaded speed used, and where each
    // figure came from (multi_device_speed.hpp): the page names a superchip's NVLink-C2C and
    // LPDDR5X with their figures where it would otherwise say PCIe.
    if (!r.devices.empty()) {
      const HostLinkUsed link = host_link_used(r.devices.front(), r.host_link);
      host["link"] = {{"kind", link.kind}, {"gbs", link.gbs}, {"from", link.from}};
    }
    host["ram_bandwidth"] = {{"gbs", r.host_link.ram_bandwidth_gbs}, {"from", r.host_link.ram_bandwidth_from}};
    if (r.host_link.ram_bandwidth_from == "device") host["ram_bandwidth"]["memory_type"] = r.device.host_memory_type;
    out["memory"]["host"] = host;
    out["placement"] = {{"engine", "llama.cpp"}, {"ngl", ngl_flag(p.ngl, nextn_blocks(r.model.arch))}, {"n_cpu_moe", p.n_cpu_moe},
                        {"tensor_split", p.split}, {"mmap", r.placement.mmap},
                        {"full_offload", p.full_offload}, {"fits", p.fits}, {"automatic", !r.placement_given},
                        {"n_layer", p.n_layer}, {"fit_margin_bytes", p.fit_margin_bytes}};
    // The plan in all: what it holds on the accelerators and in system RAM, and how far that is
    // from memory.total_bytes (everything on the accelerators). An offload plan holds more: the
    // token embedding stays in RAM either way (memory.host_weights_bytes), and each GPU keeps a
    // buffer to run the experts held in RAM on the GPU for large batches (op_offload_bytes).
    std::uint64_t on_devices = 0, op_offload = 0;
    for (const auto& d : p.devices) {
      on_devices += d.total_bytes;
      op_offload += d.op_offload_bytes;
    }
    std::int64_t cpu_layers = 0;
    for (const int dev : p.layer_device) cpu_layers += dev < 0 ? 1 : 0;
    const std::uint64_t planned = on_devices + p.host.total_bytes;
    out["placement"]["devices_bytes"] = on_devices;
    out["placement"]["host_bytes"] = p.host.total_bytes;
    out["placement"]["total_bytes"] = planned;
    out["placement"]["op_offload_bytes"] = op_offload;
    out["placement"]["over_full_bytes"] = static_cast<std::int64_t>(planned) - static_cast<std::int64_t>(e.total_bytes);
    out["placement"]["cpu_layers"] = cpu_layers;
    if (r.summary) return;  // no per-device loads, no layer runs
    json devs = json::array();
    for (const auto& d : p.devices) devs.push_back(load_json(d));
    out["memory"]["devices"] = devs;
    json layers = json::array();
    int run_start = 0;
    for (int il = 1; il <= p.n_layer; ++il)
      if (il == p.n_layer || p.layer_device[static_cast<std::size_t>(il)] != p.layer_device[static_cast<std::size_t>(run_start)]) {
        const int dev = p.layer_device.empty() ? 0 : p.layer_device[static_cast<std::size_t>(run_start)];
        // A run on the CPU has no accelerator index ("device": "cpu" says where it is).
        json run = {{"device", dev < 0 ? "cpu" : p.devices[static_cast<std::size_t>(dev)].id},
                    {"first", run_start}, {"count", il - run_start}};
        if (dev >= 0) run["device_index"] = dev;
        layers.push_back(run);
        run_start = il;
      }
    out["placement"]["layers"] = layers;
  }
};

}  // namespace

const EngineStep& llamacpp_step() {
  static const LlamaCppStep step;
  return step;
}

}  // namespace wif::engines
