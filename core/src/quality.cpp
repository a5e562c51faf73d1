#include "willitfit/quality.hpp"

#include "willitfit/quantize.hpp"

namespace wif {
namespace {

const nlohmann::json& bands(const Catalog& cat, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json* doc = cat.document("quants.json");
  if (!doc || !doc->contains("quality_bands") || !(*doc)["quality_bands"].is_object()) return empty;
  const auto& qb = (*doc)["quality_bands"];
  return qb.contains(key) && qb[key].is_array() ? qb[key] : empty;
}

// Index of the first band whose max_ppl_delta_pct holds `d` (a band without one takes the rest).
int index_in(const nlohmann::json& list, std::optional<double> d) {
  if (!d || list.empty()) return -1;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& b = list[i];
    if (!b.contains("max_ppl_delta_pct") || !b["max_ppl_delta_pct"].is_number() ||
        *d <= b["max_ppl_delta_pct"].get<double>())
      return static_cast<int>(i);
  }
  return static_cast<int>(list.size()) - 1;
}

std::string name_at(const nlohmann::json& list, int i) {
  return i < 0 ? "unknown" : list[static_cast<std::size_t>(i)].value("id", "unknown");
}

}  // namespace

std::optional<double> quant_ppl_delta_pct(const Catalog& cat, const std::string& quant) {
  const auto f = find_quant(quant);
  if (!f) return std::nullopt;
  for (const auto& e : cat.quants()) {
    const auto g = find_quant(e.value("id", ""));
    if (g && g->id == f->id && e.contains("ppl_delta_pct") && e["ppl_delta_pct"].is_number())
      return e["ppl_delta_pct"].get<double>();
  }
  return std::nullopt;
}

std::string quality_band(const Catalog& cat, std::optional<double> d) {
  const auto& l = bands(cat, "bands");
  return name_at(l, index_in(l, d));
}

std::string quality_rank_group(const Catalog& cat, std::optional<double> d) {
  const auto& l = bands(cat, "ranking");
  return name_at(l, index_in(l, d));
}

int quality_rank_index(const Catalog& cat, std::optional<double> d) {
  const int i = index_in(bands(cat, "ranking"), d);
  return i < 0 ? 3 : i;
}

nlohmann::json quality_json(const Catalog& cat, const std::string& quant) {
  const auto d = quant_ppl_delta_pct(cat, quant);
  nlohmann::json j = {{"band", quality_band(cat, d)}, {"rank_group", quality_rank_group(cat, d)}};
  if (d) j["ppl_delta_pct"] = *d;
  return j;
}

}  // namespace wif
