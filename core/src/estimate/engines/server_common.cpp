// What vLLM's and SGLang's fit steps share: the need of the stated sequences written as the
// result's memory terms with the pool and the engine's share beside them, the budget under the
// engine's own key (one shape, read alike by views), and batched throughput.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engines.hpp"
#include "willitfit/base/shown.hpp"
#include "willitfit/base/units.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/servers/vllm.hpp"
#include "willitfit/speed/server_throughput.hpp"
#include "willitfit/speed/tensor_parallel.hpp"

namespace wif::engines {
namespace {

// Why a server budget does not fit, as codes with their numbers (empty when it fits).
nlohmann::json diagnostics(const VllmBudget& b) {
  nlohmann::json d = nlohmann::json::array();
  if (b.reason_code == "context_exceeds_kv")
    d.push_back({{"code", b.reason_code}, {"values", {{"max_model_len", b.max_model_len}, {"max_model_len_fit", b.max_model_len_fit}}}});
  else if (!b.reason_code.empty())
    d.push_back({{"code", b.reason_code}, {"values", nlohmann::json::object()}});
  return d;
}

nlohmann::json budget_json(const VllmBudget& b, double util) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : b.groups)
    groups.push_back({{"kind", g.kind}, {"layers", g.layers}, {"page_bytes", g.page_bytes},
                      {"blocks_per_request", g.blocks_per_request}});
  nlohmann::json parts = nlohmann::json::object();
  for (const auto& [k, v] : b.weights.parts) parts[k] = v;
  nlohmann::json out = {{"settings", {{"tensor_parallel", b.tensor_parallel}, {"max_model_len", b.max_model_len},
                        {"gpu_memory_utilization", util}, {"kv_cache_dtype", b.kv_cache_dtype},
                        {"max_num_seqs", b.max_num_seqs}, {"max_num_batched_tokens", b.max_num_batched_tokens},
                        {"block_size", b.block_size},
                        // auto resolved by the engine for this model and GPU (vllm.hpp), or none
                        {"kv_cache_dtype_code", b.kv_cache_dtype_code.empty() ? std::string("asked") : b.kv_cache_dtype_code}}},
          {"per_gpu", {{"total_bytes", b.total_bytes}, {"requested_bytes", b.requested_bytes},
                       {"weights_bytes", b.weights_bytes}, {"activation_bytes", b.activation_bytes},
                       {"non_torch_bytes", b.non_torch_bytes}, {"cuda_graph_bytes", b.cuda_graph_bytes},
                       {"cuda_context_bytes", b.cuda_context_bytes},
                       {"kv_available_bytes", b.kv_available_bytes}, {"process_bytes", b.process_bytes},
                       {"replicated_weights_bytes", b.weights.replicated_bytes}}},
          // Weights over the group against the checkpoint: what loads (counted once), what every
          // rank keeps whole by part, and the copies beyond the first (TP x per GPU - loaded).
          {"weights", {{"loaded_bytes", b.weights.loaded_bytes}, {"replicated_parts", parts},
                       {"extra_copies_bytes", b.weights.extra_copies_bytes}}},
          // How many GPUs keep the same token's cache (MLA: all of them), and why.
          {"kv_copies", b.kv_copies},
          {"kv_copies_code", b.kv_copies > 1 ? b.kv_copies_code : std::string("none")},
          {"kv_groups", groups}, {"layers_per_group", b.layers_per_group},
          {"num_blocks", b.num_blocks}, {"kv_tokens", b.kv_tokens},
          {"pool_code", b.pool_code}, {"blocks_per_request", b.blocks_per_request},
          {"kv_bytes_per_token", b.kv_bytes_per_token},
          {"max_concurrency", b.max_concurrency}, {"max_model_len_fit", b.max_model_len_fit},
          {"graphs_fit_headroom", b.graphs_fit_headroom}, {"fits", b.fits},
          // SGLang, hybrid models: running requests its recurrent-state pool holds (0: no such pool).
          {"state_slots", b.state_slots},
          {"diagnostics", diagnostics(b)}};
  // DeepSeek sparse attention: the per-token cache split into the latent (read for at most top_k
  // entries a step) and the indexer keys (read whole), and the workspace inside activation_bytes.
  // DeepSeek V4 (kind dsv4): the "latent" part is the ratio-4 compressed keys, read for top_k tokens
  // (top_entries compressed entries) a layer, the "indexer" part the indexer keys and the ratio-128
  // keys, read whole, and each layer also reads its window of window_tokens.
  if (b.sparse_top_k > 0) {
    out["sparse_attention"] = {{"kind", b.sparse_kind.empty() ? std::string("dsa") : b.sparse_kind},
                               {"top_k", b.sparse_top_k}, {"latent_bytes_per_token", b.kv_latent_bytes_per_token},
                               {"indexer_bytes_per_token", b.kv_indexer_bytes_per_token},
                               {"workspace_bytes", b.sparse_workspace_bytes}};
    if (b.sparse_kind == "dsv4")
      out["sparse_attention"].update({{"top_entries", b.sparse_top_k / 4}, {"window_tokens", b.window_tokens},
                                      {"window_read_bytes", b.kv_window_read_bytes}});
  }
  return out;
}

nlohmann::json demand_json(const ServerDemand& d, std::uint64_t tp) {
  const auto all = [&](std::int64_t v) { return v * static_cast<std::int64_t>(tp); };
  return {{"sequences", d.sequences}, {"sequences_code", d.sequences_code}, {"context", d.context},
          {"kv_per_sequence_bytes", all(static_cast<std::int64_t>(d.kv_per_sequence_bytes))},
          {"kv_bytes", all(static_cast<std::int64_t>(d.kv_bytes))},
          {"kv_pool_bytes", all(static_cast<std::int64_t>(d.kv_pool_bytes))},
          {"room_bytes", all(d.room_bytes)},
          {"pool_sequences", d.pool_sequences}, {"room_sequences", d.room_sequences},
          {"engine_cap", d.engine_cap}, {"sequences_at_once", d.sequences_at_once}, {"limit_code", d.limit_code}};
}

}  // namespace

ServerDemand server_demand(const EstimateRequest& r, const VllmBudget& b) {
  ServerDemand d;
  d.sequences = r.vllm.concurrency > 0 ? r.vllm.concurrency : 1;
  d.sequences_code = r.vllm.concurrency > 0 ? "asked" : "one";
  d.context = b.max_model_len;
  d.kv_per_sequence_bytes = b.kv_request_bytes;
  d.kv_bytes = b.kv_request_bytes * static_cast<std::uint64_t>(d.sequences);
  d.kv_pool_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, b.kv_available_bytes));
  // Signed: a pool below zero (the weights alone overrun the engine's share) adds its deficit.
  d.room_bytes = b.kv_available_bytes - static_cast<std::int64_t>(d.kv_bytes);
  d.pool_sequences = static_cast<std::int64_t>(std::floor(std::max(0.0, b.max_concurrency)));
  d.room_sequences = d.pool_sequences - d.sequences;
  d.engine_cap = b.max_num_seqs;
  d.sequences_at_once = std::min(d.pool_sequences, d.engine_cap);
  d.limit_code = d.pool_sequences > d.engine_cap ? "engine_cap" : "pool";
  return d;
}

void set_server_totals(const EstimateRequest& r, Estimate& e) {
  const VllmBudget& b = *e.vllm;
  const std::uint64_t tp = static_cast<std::uint64_t>(std::max(1, b.tensor_parallel));
  const std::uint64_t over = b.non_torch_bytes + b.cuda_context_bytes + b.cuda_graph_bytes;
  e.total_bytes = (b.weights_bytes + server_demand(r, b).kv_bytes + b.activation_bytes + over) * tp;
  e.total_high_bytes = e.total_bytes;
}

double server_low_gib(const EstimateRequest& r) {
  double low = 1e300;
  for (const auto& d : r.devices)
    low = std::min(low, static_cast<double>(usable_memory(d, r.overrides).usable_low_bytes) / units::kGiB);
  return low;
}

const char* server_verdict(bool fits, bool fits_low) { return !fits ? "no_fit" : fits_low ? "fits" : "tight"; }

void server_throughput(const Catalog& cat, const EstimateRequest& r, Estimate& e) {
  // Each request holds depth + prompt + half its generation (the mean over its decode).
  const VllmBudget& b = e.vllm_fit ? *e.vllm_fit : *e.vllm;
  if (b.fits && r.devices.front().bandwidth_gbs > 0) {
    const std::int64_t depth = std::min<std::int64_t>(b.max_model_len, r.speed.depth + r.speed.prompt + r.speed.gen / 2);
    const TensorParallelParams& tp = memo_tensor_parallel_params(cat);
    e.throughput = serving_throughput(r.model.arch, *e.plan, r.devices.front(), b, r.vllm.concurrency, depth,
                                      memo_speed_coefficients(cat), &tp);
  }
}

void write_server(const EstimateRequest& r, const Estimate& e, double util, nlohmann::json& out) {
  using nlohmann::json;
  const VllmBudget& b = *e.vllm;
  const std::uint64_t tp = static_cast<std::uint64_t>(b.tensor_parallel);
  const std::uint64_t kv = static_cast<std::uint64_t>(std::max<std::int64_t>(0, b.kv_available_bytes));
  const std::uint64_t over = b.non_torch_bytes + b.cuda_context_bytes + b.cuda_graph_bytes;
  // A preallocating engine's share of memory (weights, activations, the pool it fills) is a
  // budget, not a requirement. What the request needs is the weights, the activations and the
  // cache of the sequences it states (one when it states none) at its context; the margin is
  // the pool's room beyond them (negative: the engine's share lacks that much).
  const ServerDemand d = server_demand(r, b);
  const std::uint64_t need_kv = d.kv_bytes;   // one rank
  auto& m = out["memory"];
  m["weights_bytes"] = b.weights_bytes * tp;
  m["host_weights_bytes"] = 0;
  m["kv_cache_bytes"] = need_kv * tp;
  m["kv_pool_bytes"] = kv * tp;
  m["compute_bytes"] = b.activation_bytes * tp;
  m["overhead_bytes"] = over * tp;
  m["total_bytes"] = e.total_bytes;  // set_server_totals: the same terms, over the ranks
  m["total_high_bytes"] = e.total_high_bytes;
  // The engine's share is what it asks for: weights, activations, runtime and the pool they leave.
  // Where the weights alone exceed it the pool is negative (the engine does not start) and the share
  // stays what it asks for, not the weights plus an empty pool, which would read as setting aside
  // more than the usable memory ("136.64 of 127.30 GiB").
  const std::int64_t share = static_cast<std::int64_t>(b.weights_bytes + b.activation_bytes + over) + b.kv_available_bytes;
  m["reserved_bytes"] = static_cast<std::uint64_t>(std::max<std::int64_t>(0, share)) * tp;
  m["usable_bytes"] = b.total_bytes * tp;
  m["usable_low_bytes"] = std::min(b.total_bytes, static_cast<std::uint64_t>(server_low_gib(r) * units::kGiB)) * tp;
  // The engine's share that reads as the whole usable memory (SGLang's --mem-fraction-static is
  // the usable figure itself): a code, so "sets aside 23.65 of 23.65 GiB" is worded as all of it.
  if (shown::same_gib(m["reserved_bytes"].get<double>(), m["usable_bytes"].get<double>())) m["reserved_code"] = "all_usable";
  m["margin_bytes"] = d.room_bytes * static_cast<std::int64_t>(tp);
  m["utilization"] = b.total_bytes > 0 ? m["total_bytes"].get<double>() / static_cast<double>(b.total_bytes * tp) : 0.0;
  // The per-token figure is the engine's own, at its cache dtype (an fp8 cache is half of bf16;
  // DeepSeek sparse attention adds FP8 indexer keys with scales): the distinct bytes a token of
  // context adds over the group (each rank's, less the copies of it), on the layers that grow
  // with the context; what it covers is a code (bytes_per_token_covers).
  if (m.contains("kv")) {
    json& kvj = m["kv"];
    kvj["bytes_per_token"] = b.kv_growing_bytes_per_token * tp / static_cast<std::uint64_t>(std::max(1, b.kv_copies));
    kvj["bytes_per_token_covers"] = b.kv_fixed_layers > 0 ? "growing_layers" : "all_layers";
    kvj["fixed_layers"] = b.kv_fixed_layers;
    kvj["element_bytes"] = b.kv_element_bytes;
    // The cache type the figure is at: kv_cache_dtype as asked, "auto" as the compute dtype it
    // means (vllm.cpp dtype_bytes: fp8 / MXFP4 checkpoints compute in bf16).
    kvj["cache_type"] = b.kv_cache_dtype != "auto" ? b.kv_cache_dtype
                        : b.kv_element_bytes == 4 ? "float32" : r.model.arch.native_dtype == "fp16" ? "float16" : "bfloat16";
  }
  json& sv = out[r.engine];
  sv = budget_json(b, util);
  sv["engine"] = r.engine;
  sv["demand"] = demand_json(d, tp);
  // The launch command's flag that carries engine_cap (launch_commands.cpp).
  sv["demand"]["engine_cap_flag"] = r.engine == "sglang" ? "--max-running-requests" : "--max-num-seqs";
  if (e.vllm_fit) sv["fit"] = budget_json(*e.vllm_fit, util);
  if (e.throughput) sv["throughput"] = serving_throughput_json(*e.throughput);
  out["settings"]["context"] = b.max_model_len;
  if (r.summary) return;  // no per-device loads
  json devs = json::array();
  for (std::uint64_t i = 0; i < tp; ++i) {
    const Device& dv = r.devices[static_cast<std::size_t>(i)];
    // Each GPU's part of the need, as memory's terms; the pool it sets aside beside it.
    const std::uint64_t total = b.weights_bytes + b.activation_bytes + need_kv + over;
    devs.push_back({{"id", dv.id}, {"name", dv.name}, {"backend", dv.backend},
                    {"weights_bytes", b.weights_bytes}, {"kv_bytes", need_kv}, {"kv_pool_bytes", kv},
                    {"compute_bytes", b.activation_bytes},
                    {"overhead_bytes", over}, {"total_bytes", total}, {"usable_bytes", b.total_bytes},
                    {"fits", b.fits}, {"read_per_token_bytes", b.weights_bytes},
                    {"usable_low_bytes", m["usable_low_bytes"].get<std::uint64_t>() / tp},
                    // The headline's code for each GPU (the server preallocates its budget, so
                    // fits, tight on a vendor's figure, or not: vllm.cpp / sglang.cpp server_verdict).
                    {"verdict", e.verdict}, {"compute_graph_bytes", b.activation_bytes}});
  }
  m["devices"] = devs;
}

}  // namespace wif::engines
