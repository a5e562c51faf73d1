// Aggregate decode throughput of a vLLM / SGLang server at a concurrency (requests decoding at
// once, continuous batching), from the same speed model as one llama.cpp stream (speed.hpp).
//
// One decode step advances every running request by one token. Per GPU of the tensor-parallel
// group it reads:
//  * the weights on that rank once, for the whole batch; for MoE the routed experts any request
//    of the batch uses: with n requests each picking k of E experts, a share 1 - (1 - k/E)^n of
//    them (independent, uniform routing: an approximation);
//  * every request's KV cache at its depth (per-rank bytes per token x depth, vllm.hpp);
// over the rank's effective bandwidth, plus the speed model's fixed per-layer cost per step.
// The step is never faster than the compute bound: 2 x active parameters x n FLOPs, split over
// the ranks, at the effective FLOP rate.
// Aggregate tokens/s = n / step; per-user tokens/s = 1 / step. With tensor parallelism each step
// also waits for two all-reduces per layer (tensor_parallel.hpp): a latency set by the link
// (NVLink or PCIe) plus the batch's hidden states over the link's bandwidth. The ranks work at
// once, so the step is one rank's time, not the sum over ranks (as for llama.cpp's layer split).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/hardware/device.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/speed.hpp"
#include "willitfit/speed/tensor_parallel.hpp"

namespace wif {

struct ServingPoint {
  std::int64_t concurrency = 0;
  double step_ms = 0, weights_ms = 0, kv_ms = 0, overhead_ms = 0, compute_ms = 0, allreduce_ms = 0;
  double aggregate_tps = 0, per_user_tps = 0;
  bool compute_bound = false;
};

struct ServingThroughput {
  std::int64_t depth = 0;              // context each request holds while decoding (tokens)
  std::int64_t max_concurrency = 0;    // KV capacity at max_model_len, capped at max_num_seqs
  ServingPoint at;                     // at the requested (or default = max) concurrency
  bool exceeds_capacity = false;       // the requested concurrency is above max_concurrency
  std::vector<ServingPoint> curve;     // concurrency 1, 2, 4, … up to max_concurrency
  double single_user_cap_tps = 0;      // > 0: per-user speeds capped at the one-user estimate
};

/// Each user of a batch decodes no faster than one user alone: where this serving model gives
/// more per user than the estimate's own one-user figure (a MoE step at a few requests, which the
/// single-request figure does not take from this model), every point is capped at `tps` and its
/// aggregate is `tps` x concurrency; `single_user_cap_tps` records it. No change when none is over.
void cap_at_single_user(ServingThroughput& t, double tps);

/// Cache bytes one decoding sequence reads per step at `depth` tokens, on one rank: the whole
/// cache for dense attention; for DeepSeek sparse attention every indexer key but at most
/// sparse_top_k latent entries a layer.
double serving_kv_read_bytes(const VllmBudget& b, std::int64_t depth);

/// One step at `n` requests of `depth` tokens each, on `gpu` (every rank alike) for budget `b`.
/// `tp` gives the all-reduce costs (nullptr: the built-in priors).
ServingPoint serving_step(const Architecture& a, const TensorPlan& plan, const Device& gpu,
                          const VllmBudget& b, std::int64_t n, std::int64_t depth, const SpeedCoefficients& c,
                          const TensorParallelParams* tp = nullptr);

/// The point at `concurrency` (0 = max) and the curve. Needs a budget that fits.
ServingThroughput serving_throughput(const Architecture& a, const TensorPlan& plan, const Device& gpu,
                                     const VllmBudget& b, std::int64_t concurrency, std::int64_t depth,
                                     const SpeedCoefficients& c, const TensorParallelParams* tp = nullptr);

/// {depth, concurrency, max_concurrency, aggregate_tps, per_user_tps, step_ms, terms{…},
///  compute_bound, exceeds_capacity, curve{concurrency[], aggregate_tps[], per_user_tps[]}}.
nlohmann::json serving_throughput_json(const ServingThroughput& t);

}  // namespace wif
