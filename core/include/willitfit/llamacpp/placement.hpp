// Where llama.cpp puts every tensor and every layer's KV cache when a model is loaded on one or
// several devices plus system RAM (llama.cpp src/llama-model.cpp, llama_model::load_tensors),
// and what each device then holds:
// weights, KV cache, compute buffer, runtime overhead. Also the automatic plan: the placement
// that keeps the most on the GPUs while every device stays inside its usable memory.
//
// Rules followed (llama.cpp `llama_model::load_tensors`, `common/common.h`):
//  * token_embd always stays on the CPU (GET_ROWS is never offloaded);
//  * i_gpu_start = max(n_layer + 1 - ngl, 0), act_gpu_layers = min(ngl, n_layer + 1); the output
//    layer counts as layer n_layer, so it is the first to go to a GPU (any ngl >= 1) and ngl = k
//    offloads it with the last k - 1 blocks (llama.cpp PR 18148, "offload output layer to GPU
//    first"; before it the output went last, only when ngl > n_layer);
//  * a GPU layer il goes to the first device whose cumulative split fraction exceeds
//    (il - i_gpu_start) / act_gpu_layers; the default split is proportional to free memory;
//  * --n-cpu-moe N keeps the routed expert tensors of layers 0..N-1 on the CPU;
//  * a layer's KV cache sits on the device of its layer;
//  * with partial offload, op offload copies CPU weights into the GPU compute buffer during
//    prompt processing (ggml_backend_sched's op_offload, ggml/src/ggml-backend.cpp): budget the
//    largest CPU-resident weight (token_embd excluded);
//  * MTP/NextN layers are not loaded (TENSOR_SKIP).
// Unified-memory devices (Apple, unified PCs) and CPU-only machines hold everything in one pool.
//
// Hooks for the speed model: each DeviceLoad says which weights it holds (dense / expert) and
// how many bytes one decoded token reads from it (experts scaled by n_expert_used / n_expert).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/hardware/device.hpp"
#include "willitfit/llamacpp/compute_buffer.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

/// One accelerator offered to the placement, with what it may use.
struct PlacementDevice {
  Device device;
  std::uint64_t usable_bytes = 0;     // usable_memory(device)
  std::uint64_t overhead_bytes = 0;   // runtime overhead of its backend (data/backends.json)
  std::uint64_t usable_low_bytes = 0; // usable_memory(device).usable_low_bytes (0 = usable_bytes)
};

/// llama.cpp's flags that decide the placement.
struct PlacementSettings {
  int ngl = -1;                       // -ngl; -1 = every layer and the output (n_layer + 1)
  int n_cpu_moe = 0;                  // --n-cpu-moe N
  std::vector<double> tensor_split;   // -ts; empty = proportional to each device's usable memory
  bool mmap = true;                   // false = --no-mmap
};

/// What one device (or the host) holds.
struct DeviceLoad {
  std::string id, name, backend;
  bool host = false;                  // system RAM / CPU backend
  std::uint64_t weights_bytes = 0;
  std::uint64_t kv_bytes = 0;
  std::uint64_t compute_bytes = 0;    // compute buffer, op-offload copy included
  std::uint64_t op_offload_bytes = 0; // part of compute_bytes: copy of the largest CPU weight
  std::uint64_t overhead_bytes = 0;
  std::uint64_t projector_bytes = 0;  // the vision projector and its encoder buffer (estimate/engines/llamacpp.cpp)
  std::uint64_t draft_bytes = 0;      // a draft model's weights, KV cache and compute buffer (estimate/engines/llamacpp.cpp)
  std::uint64_t total_bytes = 0;
  std::uint64_t usable_bytes = 0;
  std::uint64_t usable_low_bytes = 0; // the low end of usable_bytes (hardware/device.hpp UsableMemory)
  bool fits = true;
  // Layers held: [first_layer, first_layer + n_layers); -1/0 when none. has_output: output matrix.
  int first_layer = -1, n_layers = 0;
  bool has_output = false;
  // Speed hooks.
  std::uint64_t dense_weights_bytes = 0;   // read in full for every token
  std::uint64_t expert_weights_bytes = 0;  // routed experts held here
  std::uint64_t read_per_token_bytes = 0;  // dense + experts x used/total (+ one embedding row)
  double split = 0;                        // its -ts share (GPUs), 0 for the host
};

struct Placement {
  std::vector<DeviceLoad> devices;    // accelerators in order
  DeviceLoad host;                    // system RAM (CPU weights, CPU KV, CPU compute, output buffer)
  int ngl = 0;                        // effective -ngl (n_layer + 1 = everything)
  int n_cpu_moe = 0;
  int n_layer = 0;
  std::vector<double> split;          // -ts actually used (normalised, one per device)
  std::vector<double> split_shares;   // the same as given: -ts values, or usable GiB by default
  std::vector<int> layer_device;      // per main layer: device index, -1 = CPU
  bool unified = false;               // one memory pool (Apple / unified / CPU-only)
  std::uint64_t ram_no_mmap_bytes = 0;  // host RAM with --no-mmap (all host buffers anonymous)
  std::uint64_t ram_mmap_bytes = 0;     // anonymous host RAM with mmap (CPU weights in page cache)
  std::uint64_t page_cache_bytes = 0;   // CPU weights kept in the page cache with mmap
  std::uint64_t ram_usable_bytes = 0;
  bool ram_fits = true;
  bool fits = true;                   // every device and the RAM
  bool full_offload = false;          // all layers and the output on accelerators, no experts on CPU
  // Memory an automatic offload plan leaves free on each device: llama.cpp's --fit target margin
  // (1 GiB by default); 0 when no offload plan was made (every layer on the GPUs, flags given, or
  // nothing fits).
  std::uint64_t fit_margin_bytes = 0;
  // With pipeline parallelism (several devices, everything on them) each device's compute buffer
  // also holds copies of its input (llama.cpp's scheduler keeps GGML_SCHED_MAX_COPIES of them):
  // the part of every device's compute_bytes that is not the largest single-layer or logits scratch.
  std::uint64_t pipeline_copies_bytes = 0;
};

/// llama.cpp's -ngl counts the GGUF's blocks: load_tensors places blocks by hparams.n_layer, the
/// file's block_count, and for GLM-4.5/4.6, GLM-5, DeepSeek V3.2 and Step 3.5 files that count
/// includes the NextN (MTP) blocks after the decoder's (block_count = num_hidden_layers +
/// num_nextn_predict_layers; their tensors are created with TENSOR_SKIP, so they take no memory
/// unless an MTP draft loads them). The placement counts decoder layers only (Placement::ngl over
/// Architecture::n_layer_main), so the flag a person types and the plan's count differ by those
/// blocks wherever layers sit on a GPU: `ngl_flag` is the -ngl that realises a plan's `ngl`
/// (0 stays 0; everything, n_layer_main + 1, becomes block_count + 1), `ngl_from_flag` the plan's
/// count for a typed -ngl (-1, "everything", stays -1; 1 up to 1 + n_mtp are the output, with
/// the NextN blocks that follow it down the stack). `n_mtp` = nextn_blocks(arch).
int nextn_blocks(const Architecture& arch);
int ngl_flag(int ngl, int n_mtp);
int ngl_from_flag(int flag, int n_mtp);

/// The -ts values that reproduce the plan's layer assignment under llama.cpp's counting: the
/// split shares as used when the file has no NextN blocks; with them, each GPU's layer count (its
/// output layer included) with the NextN blocks on the last GPU, where the draft hook books them.
std::vector<double> split_flag(const Placement& p, int n_mtp);

/// Usable host RAM for offload: RAM less what the OS keeps (10%, at least 4 GiB).
std::uint64_t host_ram_usable(double ram_gib);

/// The runtime overhead of a device's backend from the catalog (Blackwell CUDA cards measured
/// more); 512 MiB when the backend is unknown.
std::uint64_t backend_overhead_bytes(const Catalog& cat, const Device& d);

/// Place the model with the given flags. `plan` gives every tensor's bytes, `kv` the per-layer
/// cache. `ram_gib` = 0 means host RAM is not considered (then RAM never limits `fits`).
Placement place_llamacpp(const Architecture& arch, const TensorPlan& plan, const KvCache& kv,
                         const KvOptions& kvo, const std::vector<PlacementDevice>& gpus,
                         double ram_gib, const PlacementSettings& s);

/// The automatic plan: all layers on the accelerators if they fit; else (MoE) the fewest early
/// layers with experts on the CPU; else the most layers (-ngl) that fit. When several GPUs'
/// default split overflows one of them, a split proportional to each device's room for layers
/// is tried too. An offload plan leaves llama.cpp's --fit margin free on every device when it
/// can (`fit_margin_bytes`). Returns the best placement found; `fits` says whether it fits at all.
Placement auto_place(const Architecture& arch, const TensorPlan& plan, const KvCache& kv,
                     const KvOptions& kvo, const std::vector<PlacementDevice>& gpus, double ram_gib,
                     bool mmap = true);

}  // namespace wif
