// A quantization's quality as words a surface translates: one band per quant, defined once in
// data/quants.json "quality_bands" (cut points on ppl_delta_pct), used by the core's results,
// the solvers' ordering and every surface.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "willitfit/catalog.hpp"

namespace wif {

/// quants.json's ppl_delta_pct for a format id (any case), when it states one.
std::optional<double> quant_ppl_delta_pct(const Catalog& cat, const std::string& quant);

/// The reading band ("lossless" | "near_lossless" | "good" | "noticeable" | "heavy" | "unknown").
std::string quality_band(const Catalog& cat, std::optional<double> ppl_delta_pct);

/// The ranking group ("high" | "reduced" | "low" | "unknown") and its order (0, 1, 2; 3 unknown).
std::string quality_rank_group(const Catalog& cat, std::optional<double> ppl_delta_pct);
int quality_rank_index(const Catalog& cat, std::optional<double> ppl_delta_pct);

/// {"band", "rank_group", "ppl_delta_pct" (absent when unknown)} for a result document.
nlohmann::json quality_json(const Catalog& cat, const std::string& quant);

}  // namespace wif
