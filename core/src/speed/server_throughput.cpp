#include "willitfit/speed/server_throughput.hpp"
#include "willitfit/base/json_util.hpp"

#include <algorithm>
#include <cmath>

namespace wif {
double serving_kv_read_bytes(const VllmBudget& b, std::int64_t depth) {
  const double d = static_cast<double>(std::max<std::int64_t>(0, depth));
  if (b.sparse_top_k <= 0) return static_cast<double>(b.kv_bytes_per_token) * d;
  // DeepSeek sparse attention: the indexer scores every cached key, then the sparse-MLA kernel
  // gathers only the top-k latent rows it picked (vLLM flashmla_sparse.py, SGLang nsa_backend.py:
  // index_topk indices per query token), so the latent read stops growing past top_k.
  // DeepSeek V4 also reads each layer's window (kv_window_read_bytes), which does not grow.
  return static_cast<double>(b.kv_indexer_bytes_per_token) * d +
         static_cast<double>(b.kv_latent_bytes_per_token) * std::min(d, static_cast<double>(b.sparse_top_k)) +
         static_cast<double>(b.kv_window_read_bytes) * std::min(1.0, d);
}

ServingPoint serving_step(const Architecture& a, const TensorPlan& plan, const Device& gpu,
                          const VllmBudget& b, std::int64_t n, std::int64_t depth, const SpeedCoefficients& c,
                          const TensorParallelParams* tpp) {
  ServingPoint p;
  p.concurrency = std::max<std::int64_t>(1, n);
  const double N = static_cast<double>(p.concurrency);
  const ModelWork all = model_work(a, plan);
  const ModelWork experts = model_work(a, plan, [](const Tensor& t) { return t.is_expert(); });
  double model_bytes = 0;
  for (const auto& t : plan.tensors)
    if (t.layer < 0 || static_cast<std::size_t>(t.layer) >= a.layers.size() || !a.layers[static_cast<std::size_t>(t.layer)].is_mtp)
      model_bytes += static_cast<double>(t.bytes);  // MTP layers are not loaded (as vllm_weights_per_rank)
  // The share of the model one rank holds (1/TP plus what is replicated).
  const double rank_share = model_bytes > 0 ? static_cast<double>(b.weights_bytes) / model_bytes : 1.0;

  double step_bytes = all.decode_weight_bytes;
  if (a.is_moe() && a.moe.n_expert > 0) {
    const double k = static_cast<double>(a.moe.n_expert_used) / static_cast<double>(a.moe.n_expert);
    const double touched = 1.0 - std::pow(1.0 - k, N);
    // Dense part as one token reads it, plus the experts the batch touches.
    step_bytes = all.decode_weight_bytes - experts.pass_weight_bytes * k + experts.pass_weight_bytes * touched;
  }
  const DeviceRates r = device_rates(gpu, "", quant_family(plan), c, false, plan_is_mmq_legacy(plan));
  const double tp = static_cast<double>(std::max(1, b.tensor_parallel));
  p.weights_ms = r.bw_bytes_s > 0 ? step_bytes * rank_share / r.bw_bytes_s * 1e3 : 0;
  p.kv_ms = r.kv_bw_bytes_s > 0 ? N * serving_kv_read_bytes(b, depth) / r.kv_bw_bytes_s * 1e3 : 0;
  p.overhead_ms = static_cast<double>(all.layers) * r.layer_s * 1e3;
  p.compute_ms = r.flops_s > 0 ? all.decode_flops * N / tp / r.flops_s * 1e3 : 0;
  // Two all-reduces per layer of the batch's hidden states (16-bit activations), which no rank
  // can overlap with its own reads: they sit between the layer's matmuls.
  if (b.tensor_parallel > 1) {
    static const TensorParallelParams priors;
    const TensorParallelParams& tpp_ = tpp ? *tpp : priors;
    const double bytes = N * static_cast<double>(a.n_embd) * 2.0;
    p.allreduce_ms = static_cast<double>(allreduces_per_step(tpp_, a)) *
                     allreduce_seconds(tpp_, gpu, b.tensor_parallel, bytes) * 1e3;
  }
  const double memory_ms = p.weights_ms + p.kv_ms + p.overhead_ms;
  p.compute_bound = p.compute_ms > memory_ms;
  p.step_ms = std::max(memory_ms, p.compute_ms) + p.allreduce_ms;
  p.per_user_tps = p.step_ms > 0 ? 1e3 / p.step_ms : 0;
  p.aggregate_tps = p.per_user_tps * N;
  return p;
}

ServingThroughput serving_throughput(const Architecture& a, const TensorPlan& plan, const Device& gpu,
                                     const VllmBudget& b, std::int64_t concurrency, std::int64_t depth,
                                     const SpeedCoefficients& c, const TensorParallelParams* tpp) {
  ServingThroughput t;
  t.depth = depth;
  t.max_concurrency = std::max<std::int64_t>(
      1, std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(b.max_concurrency)), b.max_num_seqs));
  const std::int64_t n = concurrency > 0 ? concurrency : t.max_concurrency;
  t.exceeds_capacity = n > t.max_concurrency;
  t.at = serving_step(a, plan, gpu, b, n, depth, c, tpp);
  for (std::int64_t k = 1;; k *= 2) {
    const std::int64_t m = std::min(k, t.max_concurrency);
    t.curve.push_back(serving_step(a, plan, gpu, b, m, depth, c, tpp));
    if (m == t.max_concurrency) break;
  }
  return t;
}

void cap_at_single_user(ServingThroughput& t, double tps) {
  if (!(tps > 0)) return;
  auto cap = [&](ServingPoint& p) {
    if (!(p.per_user_tps > tps)) return;
    p.per_user_tps = tps;
    p.aggregate_tps = tps * static_cast<double>(p.concurrency);
    p.step_ms = 1e3 / tps;
    t.single_user_cap_tps = tps;
  };
  cap(t.at);
  for (auto& p : t.curve) cap(p);
}

nlohmann::json serving_throughput_json(const ServingThroughput& t) {
  using nlohmann::json;
  json cc = json::array(), agg = json::array(), user = json::array();
  for (const auto& p : t.curve) {
    cc.push_back(p.concurrency);
    agg.push_back(finite_or_zero(p.aggregate_tps));
    user.push_back(finite_or_zero(p.per_user_tps));
  }
  const ServingPoint& p = t.at;
  json out = {{"depth", t.depth}, {"concurrency", p.concurrency}, {"max_concurrency", t.max_concurrency},
          {"aggregate_tps", finite_or_zero(p.aggregate_tps)}, {"per_user_tps", finite_or_zero(p.per_user_tps)},
          {"step_ms", finite_or_zero(p.step_ms)},
          {"terms", {{"weights_ms", finite_or_zero(p.weights_ms)}, {"kv_ms", finite_or_zero(p.kv_ms)},
                     {"overhead_ms", finite_or_zero(p.overhead_ms)}, {"compute_ms", finite_or_zero(p.compute_ms)},
                     {"allreduce_ms", finite_or_zero(p.allreduce_ms)}}},
          {"compute_bound", p.compute_bound}, {"exceeds_capacity", t.exceeds_capacity},
          {"curve", {{"concurrency", cc}, {"aggregate_tps", agg}, {"per_user_tps", user}}}};
  if (t.single_user_cap_tps > 0) {
    out["single_user_cap_tps"] = t.single_user_cap_tps;
    // Whether the requested point itself was capped (the curve's few-user points may be alone).
    out["capped"] = p.per_user_tps == t.single_user_cap_tps;  // the value cap_at_single_user assigned
  }
  return out;
}

}  // namespace wif
