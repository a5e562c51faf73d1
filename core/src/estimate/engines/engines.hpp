// What the engine steps (engine_step.hpp) share: llama.cpp's placement, which every engine starts
// from (the memory terms and the speed model read it), and the server engines' common writer.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/engine_step.hpp"
#include "willitfit/estimate/request.hpp"

namespace wif::engines {

const EngineStep& llamacpp_step();

/// vLLM and SGLang: aggregate decode at the requested concurrency for the budget the commands
/// carry (e.vllm_fit when set, else e.vllm).
void server_throughput(const Catalog& cat, const EstimateRequest& r, Estimate& e);

/// vLLM and SGLang: what the request needs of the preallocated pool against what the pool holds.
/// The stated sequences (the request's concurrency, else one) at the budget's context take
/// kv_bytes; room_bytes is the pool beyond them (signed); pool_sequences how many of that length
/// the pool holds at once, engine_cap the running-request cap the command passes
/// (--max-num-seqs / --max-running-requests), sequences_at_once the smaller and limit_code which
/// one limits ("pool" | "engine_cap"). Bytes are per GPU.
struct ServerDemand {
  std::int64_t sequences = 1;
  std::string sequences_code;      // "asked" (the request's concurrency) | "one" (none stated)
  std::int64_t context = 0;
  std::uint64_t kv_per_sequence_bytes = 0, kv_bytes = 0, kv_pool_bytes = 0;
  std::int64_t room_bytes = 0;
  std::int64_t pool_sequences = 0, room_sequences = 0, engine_cap = 0, sequences_at_once = 0;
  std::string limit_code;
};
ServerDemand server_demand(const EstimateRequest& r, const VllmBudget& b);

/// vLLM and SGLang: the estimate's total (and its high end) becomes the engine's memory as the
/// estimate document states it: weights, activations, the engine's fixed overheads and the cache of
/// the stated sequences (one when none is stated), over every tensor-parallel rank. Every caller of
/// Estimate::total_bytes (solve, cost's cloud filter, the tiers) then reads the engine's figure, not
/// llama.cpp's placement the step started from. Called by each server fit step once its budget is set.
void set_server_totals(const EstimateRequest& r, Estimate& e);

/// vLLM and SGLang: the least low end of usable memory over the request's GPUs, in GiB
/// (hardware/device.hpp UsableMemory::usable_low_bytes: below the usable memory only where a
/// GPU's size is the vendor's figure).
double server_low_gib(const EstimateRequest& r);

/// vLLM and SGLang's verdict on the rule of estimate.hpp room_to_spare: the engine preallocates
/// its share, so its budget decides whether it starts; a budget that fits on the usable memory
/// but not on its low end (`fits_low`) is "tight", never "fits".
const char* server_verdict(bool fits, bool fits_low);

/// vLLM and SGLang: the need (weights, activations, the stated sequences' cache) as memory.*,
/// the pool (memory.kv_pool_bytes) and the engine's whole share (memory.reserved_bytes) beside it, memory.devices[] (one per tensor-parallel rank), the
/// budget under the engine's own key (`util`: the memory fraction it used), settings.context.
void write_server(const EstimateRequest& r, const Estimate& e, double util, nlohmann::json& out);

}  // namespace wif::engines
