// Money: cost per million generated tokens on owned hardware and on cloud offers, the cloud offers
// that hold a given memory need, and rent versus buy over months. Throughput is an input (decode
// tokens/s for one stream, and optionally the aggregate tokens/s of a batched server at a given
// concurrency), so the figures follow whatever speed model or measurement feeds them.
//
// Owned:  per hour = power (kW) x price per kWh + purchase / (amortisation months x hours used a month)
// Cloud:  per hour = the offer's price per hour; a month bills hours/day x 30.4375 days, rounded up
//         to whole hours a day for per-hour billing.
// Per million tokens = per hour / (tokens/s x 3600) x 1e6.
// Rent vs buy: owned cumulative = purchase + electricity x months; cloud cumulative = monthly x
// months; they cross at purchase / (cloud monthly - electricity monthly) months (never if the
// cloud is cheaper than the electricity alone). The two serve the same load when speeds are
// known (basis "same_tokens"): the owned setup's tokens a month (its decode speed x its hours),
// which the instance makes in hours x owned speed / its own speed a day, billed as it bills.
// Without a speed for any offer the basis is "same_hours" (both used the same hours a day).
// rent_vs_buy.break_even {code, amortization_months} sets that point against the period the
// purchase is written off over: within_amortisation, beyond_amortisation (buying pays only after
// the hardware's written-off life: renting is cheaper over it) or never. rent_vs_buy.break_even_life
// {code, months, source} sets the point (or the least point, when only the power is unknown)
// against the hardware's useful life in data/segments.json: beyond_useful_life or
// within_useful_life (absent when the point is never, or the catalog states no life).
// Unknowns: owned.unknown lists no_purchase_price / no_power_figure; a figure that needs one is
// null. With the price known and the power not, owned.purchase_only_per_million_tokens_usd is the
// purchase part alone (a lower bound) and rent_vs_buy.break_even_months_at_least the purchase over
// the cloud's month (electricity only pushes the point later).
// Offers: each row carries name_gb when the instance's name states a GB figure ("80GB"), so a page
// showing GiB names the provider's GB without reading the name. cloud_engine is null, or, when the
// request's engine runs on no offer's device (MLX: Apple silicon only), {code:
// "engine_not_on_cloud", engine, shown_engine, shown_quant, memory_need_bytes}: the offers are
// then estimated for that other setup (engine_fit.hpp cloud_fallback_request), which the page says
// once; shown_engine is null when no offer runs that one either (the list is then empty).
// Basis: cloud_basis {code, sequences} says which figure ranks the offers per token: "one_user"
// (one stream's decode) unless a vLLM / SGLang request states several sequences (concurrency, or
// the form's parallel sequences), then "stated_sequences" (the aggregate at those sequences, or
// at as many as the offer's pool holds when fewer). Each offer's per_million_tokens_usd carries
// basis_usd and basis_sequences on that basis, and cheapest_offer {id, usd, sequences} names the
// lowest (absent when no offer has a speed): the card and the table's order read the same figure.
// Room to spare: an offer whose own estimate holds the model only tight (estimate.verdict tight:
// no room to spare on the low end of a vendor's memory figure) is passed over by cheapest_offer
// and by rent_vs_buy's own choice while any offer with room has a figure; cheapest_offer then
// carries tight_cheaper {id, usd}, the cheapest tight offer where it costs less per token.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/hardware/device.hpp"

namespace wif {

constexpr double kDaysPerMonth = 365.25 / 12.0;

struct Throughput {
  double decode_tps = 0;          // one stream
  double decode_tps_low = 0, decode_tps_high = 0;  // the estimate's range of it (0 = none given)
  int concurrency = 1;
  double batched_tps = 0;         // aggregate over `concurrency` streams (0 = not given)
};

struct CostRequest {
  Device device;                  // owned hardware
  int count = 1;
  Throughput owned;
  std::map<std::string, Throughput> speeds;   // per catalog device id, for the cloud offers (given)
  // The estimate request for the model (the cost request without its money fields), when the
  // request names a model: each cloud offer that holds it is then estimated on its own device
  // and GPU count (no system RAM), unless `speeds` gives that device's figures.
  std::optional<nlohmann::json> estimate_request;
  std::string market = "US";
  double price_kwh_usd = 0;       // resolved from the market unless given
  std::string price_source;
  double power_w = 0;             // total draw under load (default: TDP x count)
  double purchase_usd = 0;        // default: catalog price x count
  // Neither given nor in the catalog (a device without a price or a power figure): the figures
  // that need it are unknown (null in the document), never computed as if it were zero.
  bool power_known = true;
  bool purchase_known = true;
  double amortization_months = 36;
  double hours_per_day = 8;
  int months = 36;                // horizon of the cumulative series; 0 = "auto" (from the break-even point)
  std::uint64_t need_bytes = 0;   // memory the model needs (total over GPUs); 0 = list every offer
  std::string offer;              // offer for rent vs buy ("" = cheapest that fits)
  // The sequences a vLLM / SGLang request states (its concurrency, or parallel): more than one
  // makes them the basis of the per-token ranking of offers; 0 or 1 is one user.
  std::int64_t stated_sequences = 0;
};

/// The fields a cost request reads beyond an estimate request's (its money fields, memory_gib).
const std::vector<std::string>& cost_request_fields();

/// How a cloud offer's stated memory per GPU (clouds.json vram_gb / gpu_count, "GB" as the
/// provider writes it) reads against its catalog device's memory_gib:
///   "gib_figure"  the same number as the device's GiB (within 2 %): providers that copy
///                 nvidia-smi's MiB / 1024 and call it GB (B200: 180, or 179 = 183359 MiB)
///   "decimal_gb"  the device's memory in 10^9 bytes (within 2 %): B200 as 192 GB
///   "less"        less than the device has: the instance exposes part of it (the offer must say
///                 why in vram_reason; the catalog test checks)
///   "more"        more than the device has: a catalog mistake (the catalog test fails on it)
///   "no_device"   no catalog device to compare with
std::string cloud_vram_code(double per_gpu_gb, double device_memory_gib);

/// Dollars per million tokens at `tps` for a cost of `usd_per_hour`; 0 when tps is 0.
double usd_per_million_tokens(double usd_per_hour, double tps);

/// Hours billed per month for an offer's billing granularity ("per-second", "per-minute",
/// "per-hour", "monthly") at `hours_per_day`.
double billed_hours_per_month(const std::string& billing, double hours_per_day);

/// Parse a cost request. With "memory_gib" the need is given; with "model" the need is the
/// estimate of the same request document (estimate.hpp) on the owned hardware, "decode_tps" may
/// be left out (the owned estimate's decode speed), and each cloud offer is estimated too
/// (its row's `estimate`: verdict and decode speed on that instance), so one call answers.
CostRequest parse_cost_request(const Catalog& cat, const nlohmann::json& q);

nlohmann::json cost_to_json(const Catalog& cat, const CostRequest& r);

}  // namespace wif
