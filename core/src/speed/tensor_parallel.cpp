#include "willitfit/speed/tensor_parallel.hpp"

#include <algorithm>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/speed/multi_device_speed.hpp"

namespace wif {
namespace {

double nvlink_gbs(const Device& d) {
  const auto& f = d.facts;
  if (!f.is_object() || !f.contains("interconnect") || !f["interconnect"].is_object()) return 0;
  const auto& ic = f["interconnect"];
  return ic.contains("nvlink_gbs") && ic["nvlink_gbs"].is_number() ? ic["nvlink_gbs"].get<double>() : 0;
}

// PCIe cards sold with NVLink bridges (A100 / H100 PCIe, H100 / H200 NVL) join pairs, not the
// whole group; their catalog ids say so.
bool bridged_card(const Device& d) {
  return d.id.find("-pcie") != std::string::npos || d.id.find("-nvl") != std::string::npos;
}

TpLinkCost link_cost(const nlohmann::json& j, const std::string& path) {
  TpLinkCost c;
  c.base_us = req_num(j, "base_us", path, 0, 1000);
  c.per_extra_rank_us = req_num(j, "per_extra_rank_us", path, 0, 1000);
  return c;
}

}  // namespace

TensorParallelParams tensor_parallel_params_from_json(const nlohmann::json& doc, const std::string& path) {
  TensorParallelParams p;
  if (!doc.is_object()) throw InputError("bad_type", path, "tensor_parallel.json holds one object");
  p.source = opt_str(doc, "source", path).value_or("");
  p.checked = opt_str(doc, "checked", path).value_or("");
  p.allreduces_per_layer = static_cast<int>(opt_int(doc, "allreduces_per_layer", path, 0, 16).value_or(2));
  if (doc.contains("links")) {
    const auto& l = doc["links"];
    const std::string lp = join_path(path, "links");
    if (!l.is_object()) throw InputError("bad_type", lp, "links is an object by link id");
    if (l.contains("nvlink")) p.nvlink = link_cost(l["nvlink"], join_path(lp, "nvlink"));
    if (l.contains("pcie")) p.pcie = link_cost(l["pcie"], join_path(lp, "pcie"));
  }
  if (doc.contains("range")) {
    const std::string rp = join_path(path, "range");
    p.range.low = req_num(doc["range"], "low", rp, 0.01, 1);
    p.range.high = req_num(doc["range"], "high", rp, 1, 100);
    p.held_out_max_error = opt_num(doc["range"], "held_out_max_error", rp, 0, 100).value_or(0);
  }
  if (doc.contains("measurements") && doc["measurements"].is_array()) {
    for (const auto& m : doc["measurements"]) {
      ++p.rows;
      if (m.is_object() && m.value("fitted", true) == false) ++p.held_out_rows;
    }
  }
  p.range.rows = p.rows;
  return p;
}

TensorParallelParams tensor_parallel_params(const Catalog& cat) {
  if (const nlohmann::json* d = cat.document("tensor_parallel.json"))
    return tensor_parallel_params_from_json(*d, "tensor_parallel.json");
  return TensorParallelParams{};
}

std::string tp_link(const Device& d, int tp) {
  if (tp < 2) return "none";
  const double nv = nvlink_gbs(d);
  if (nv >= 300 && (!bridged_card(d) || tp == 2)) return "nvlink";
  return "pcie";
}

double allreduce_seconds(const TensorParallelParams& p, const Device& d, int tp, double bytes) {
  const std::string link = tp_link(d, tp);
  if (link == "none") return 0;
  const TpLinkCost& c = link == "nvlink" ? p.nvlink : p.pcie;
  const double latency_s = (c.base_us + c.per_extra_rank_us * static_cast<double>(tp - 2)) * 1e-6;
  // Ring all-reduce moves 2 (tp - 1) / tp of the message over each link (NCCL's bus-bandwidth
  // definition, nccl-tests doc/PERFORMANCE.md); NVLink figures are both directions together.
  const double gbs = link == "nvlink" ? nvlink_gbs(d) / 2 : pcie_x16_gbs(d.pcie_gen > 0 ? d.pcie_gen : 4);
  const double bus_s = gbs > 0 ? 2.0 * (tp - 1) / tp * bytes / (gbs * 1e9) : 0;
  return latency_s + bus_s;
}

std::int64_t allreduces_per_step(const TensorParallelParams& p, const Architecture& a) {
  return static_cast<std::int64_t>(p.allreduces_per_layer) * a.n_layer_main();
}

}  // namespace wif
