// Tensor-parallel decode of the server engines (vLLM, SGLang): what a token costs when every GPU
// of the group holds a slice of every layer (Megatron-style column / row splits) instead of a run
// of whole layers as llama.cpp places them.
//
// One decode step on a tensor-parallel group of TP GPUs:
//  * every rank reads its own slice of the weights (1/TP of each split matrix, plus what is
//    replicated: norms, and in vLLM the embedding and output head split by vocabulary) and its
//    own KV heads, at once with the others: the step takes the slowest rank's time, not the sum;
//  * every transformer layer ends its attention block and its MLP block with an all-reduce of the
//    hidden state across the ranks (Megatron-LM, Shoeybi et al. 2019, section 3: two all-reduces
//    per layer in the forward pass; vLLM RowParallelLinear / SGLang the same layers);
//  * the all-reduce of a decode step moves a few kilobytes per request, so its time is a latency:
//    a fixed cost per all-reduce and a cost per further rank, set by the link (data/
//    tensor_parallel.json, fitted on published single-request runs), plus the bytes over the
//    link's bandwidth, which only matters for large batches.
// Links: "nvlink" when the GPUs sit in one NVLink / Infinity Fabric domain (SXM / OAM boards,
// nvlink_gbs >= 300), and also for two PCIe cards joined by a bridge of that class; otherwise
// "pcie" (consumer cards, whose bridges join pairs only, and any group of more than two PCIe
// cards). vLLM uses its own one-shot all-reduce kernel over NVLink for small messages and NCCL
// otherwise (vllm/distributed/device_communicators/custom_all_reduce.py); over PCIe the messages
// go through the host bridge, which is why a step costs tens of microseconds per all-reduce there.
// MoE models are out of scope for the single-request figure (engine_fit.hpp server_decode_speed
// applies it to dense models only); in the throughput steps their experts are treated as split
// like dense matrices (vLLM and SGLang without --enable-expert-parallel), with the all-reduce
// count of a dense layer. Expert parallelism is not modelled.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/hardware/device.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/speed/speed.hpp"

namespace wif {

class Catalog;

struct TpLinkCost {
  double base_us = 0;            // one all-reduce between two ranks
  double per_extra_rank_us = 0;  // added per rank beyond two
};

struct TensorParallelParams {
  TpLinkCost nvlink{5, 1}, pcie{30, 1};  // priors, replaced by data/tensor_parallel.json
  int allreduces_per_layer = 2;
  SpeedRange range{0.75, 1.25, 0};       // measured / predicted over the public rows
  int rows = 0, held_out_rows = 0;       // measurements behind the fit
  double held_out_max_error = 0;         // largest |measured / predicted - 1| kept out of the fit
  std::string source, checked;
};

/// From data/tensor_parallel.json, or the priors above when the file is absent. Throws
/// InputError on a malformed file.
TensorParallelParams tensor_parallel_params(const Catalog& cat);
TensorParallelParams tensor_parallel_params_from_json(const nlohmann::json& doc, const std::string& path);

/// "none" (tp < 2), "nvlink" or "pcie" for a group of `tp` devices like `d` (see above).
std::string tp_link(const Device& d, int tp);

/// Seconds for one all-reduce of `bytes` over a group of `tp` devices like `d`.
double allreduce_seconds(const TensorParallelParams& p, const Device& d, int tp, double bytes);

/// All-reduces per decode step: allreduces_per_layer x the repeating layers (MTP layers excluded).
std::int64_t allreduces_per_step(const TensorParallelParams& p, const Architecture& a);

}  // namespace wif
