// What the engine steps (engine_step.hpp) share: llama.cpp's placement, which every engine starts
// from (the memory terms and the speed model read it), and the server engines' common writer.
#pragma once
#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/estimate/engine_step.hpp"
#include "willitfit/estimate/request.hpp"

namespace wif::engines {

const EngineStep& llamacpp_step();

/// vLLM and SGLang: aggregate decode at the requested concurrency for the budget the commands
/// carry (e.vllm_fit when set, else e.vllm).
void server_throughput(const Catalog& cat, const EstimateRequest& r, Estimate& e);

/// vLLM and SGLang: the pool as memory.*, memory.devices[] (one per tensor-parallel rank), the
/// budget under the engine's own key (`util`: the memory fraction it used), settings.context.
void write_server(const EstimateRequest& r, const Estimate& e, double util, nlohmann::json& out);

}  // namespace wif::engines
