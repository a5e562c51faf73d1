// The training request and result documents (see training.hpp), and the searches for the least
// count of the chosen device and the cheapest catalog GPU set that fits.
#include <algorithm>
#include <cmath>
#include <map>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/training/training.hpp"

namespace wif {
namespace {

template <class E>
E pick(const json& q, const char* key, std::initializer_list<std::pair<const char*, E>> opts, const char* dflt) {
  const std::string s0 = opt_str(q, key, "").value_or(dflt);  // defaults.hpp names the default
  const std::optional<std::string> s = s0;
  std::string all;
  for (const auto& [name, v] : opts) {
    if (*s == name) return v;
    all += all.empty() ? name : std::string(", ") + name;
  }
  std::vector<std::string> names;
  for (const auto& o : opts) names.push_back(o.first);
  throw InputError("bad_value", key, std::string(key) + " must be one of " + all + ", not '" + *s + "'", names);
}

bool fits(const TrainMemory& m, const UsableMemory& u) { return m.total_bytes <= u.usable_bytes; }

// The upper bound of the per-GPU total: the activation and runtime terms are the uncertain ones
// (about 15 % against the calibration rows), the weights and states are exact.
std::uint64_t total_high_bytes(const TrainMemory& m) {
  const double unsure = 0.15 * static_cast<double>(m.activations_bytes + m.logits_bytes + m.runtime_bytes);
  return m.total_bytes + static_cast<std::uint64_t>(unsure);
}

// The verdict on the one rule every estimate uses (estimate.hpp memory_verdict): "fits" when the
// upper bound leaves room to spare on the low end of the usable memory, "tight" when only the
// total itself is within it.
std::string verdict(const TrainMemory& m, const UsableMemory& u) {
  return memory_verdict(m.total_bytes, total_high_bytes(m), u.usable_bytes, u.usable_low_bytes);
}

// Whether the usual fine-tuning stack (PyTorch, PEFT, DeepSpeed ZeRO / FSDP) runs on one of the
// device's backends (data/backends.json `training`): only those devices are offered.
bool training_runs(const Catalog& cat, const Device& d) {
  auto runs = [&](const std::string& b) {
    const BackendInfo* be = cat.find_backend(b);
    return be && be->raw.is_object() && be->raw.value("training", "") == "runs";
  };
  if (runs(d.backend)) return true;
  return std::any_of(d.backends.begin(), d.backends.end(), runs);
}

TrainOptions with_gpus(TrainOptions o, int n) {
  o.gpus = n;
  if (n > 1 && o.zero < 3) o.zero = 3;  // more GPUs only help memory when the states are sharded
  if (n == 1) { o.zero = 0; if (o.offload == Offload::Params) o.offload = Offload::Optimizer; }
  return o;
}

// What the parameter counts are of, beside the model's published total: the language model's
// tensors as the estimate enumerates them (MTP layers left out: they are not trained with the
// model). A published figure is rounded ("1T", "109B"), so a difference within half a unit of
// its last non-zero digit, or within 1 %, is no difference; a larger one is said with its likely
// cause: a vision tower in the config (its weights are not in these counts), MTP layers, or
// neither (the published figure counts differently).
json params_basis(const TrainRequest& r, const TrainParams& p) {
  json j = {{"counted", p.total}};
  const double pub_b = r.model.params_total_b;
  const double pub = pub_b * 1e9;
  if (!(pub > 0) || p.total <= 0) return j;
  j["published"] = static_cast<std::int64_t>(std::llround(pub));
  double unit = 0.001;  // billions: the published figures carry three decimals at most
  while (unit < pub_b && std::fabs(std::remainder(pub_b, unit * 10)) < 1e-9) unit *= 10;
  const double diff = (pub - static_cast<double>(p.total)) / pub;
  if (std::fabs(diff) <= 0.01 || std::fabs(pub - static_cast<double>(p.total)) <= unit * 0.5e9) {
    j["code"] = "matches_published";
    return j;
  }
  const bool mtp = std::any_of(r.model.arch.layers.begin(), r.model.arch.layers.end(), [](const LayerSpec& l) { return l.is_mtp; });
  j["code"] = diff > 0 && r.model.vision.present ? "vision_tower_not_counted"
            : diff > 0 && mtp                  ? "mtp_layers_not_counted"
                                               : "published_counts_differently";
  return j;
}

}  // namespace

TrainRequest parse_train_request(const Catalog& cat, const nlohmann::json& q) {
  if (!q.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  TrainRequest r;
  if (!q.contains("model")) throw InputError("missing_field", "model", "'model' is required");
  r.model = resolve_model(cat, q["model"], "model");
  if (!q.contains("hardware")) throw InputError("missing_field", "hardware", "'hardware' is required");
  r.device = resolve_device(cat, q["hardware"], "hardware");
  TrainOptions& o = r.opt;
  o.method = pick<TrainMethod>(q, "method", {{"full", TrainMethod::Full}, {"lora", TrainMethod::Lora},
                                             {"qlora", TrainMethod::Qlora}}, defaults::kTrainMethod);
  o.optimizer = pick<Optimizer>(q, "optimizer", {{"adamw", Optimizer::AdamW}, {"adamw_8bit", Optimizer::AdamW8bit},
                                                 {"paged_adamw", Optimizer::PagedAdamW},
                                                 {"paged_adamw_8bit", Optimizer::PagedAdamW8bit},
                                                 {"adafactor", Optimizer::Adafactor}, {"sgd", Optimizer::SgdMomentum}},
                                defaults::kOptimizer);
  o.mixed_precision = pick<bool>(q, "precision", {{"mixed", true}, {"fp32", false}}, defaults::kPrecision);
  o.loss = pick<LossKind>(q, "loss", {{"standard", LossKind::Standard}, {"chunked", LossKind::Chunked},
                                      {"fused", LossKind::Fused}}, defaults::kLoss);
  o.offload = pick<Offload>(q, "offload", {{"none", Offload::None}, {"optimizer", Offload::Optimizer},
                                           {"params", Offload::Params}}, defaults::kOffload);
  o.batch = opt_int(q, "batch", "", 1, 65536).value_or(defaults::kBatch);
  o.seq = opt_int(q, "seq", "", 1, 10000000).value_or(defaults::kSeq);
  o.checkpointing = opt_bool(q, "checkpointing", "").value_or(defaults::kCheckpointing);
  o.offload_activations = opt_bool(q, "offload_activations", "").value_or(defaults::kOffloadActivations);
  o.flash_attn = opt_bool(q, "flash_attn", "").value_or(defaults::kFlashAttn);
  o.double_quant = opt_bool(q, "double_quant", "").value_or(defaults::kDoubleQuant);
  o.adapters_fp32 = pick<bool>(q, "adapter_precision", {{"fp32", true}, {"bf16", false}}, defaults::kAdapterPrecision);
  o.kbit_prep_fp32 = opt_bool(q, "kbit_prep_fp32", "").value_or(defaults::kKbitPrepFp32);
  o.lora_rank = static_cast<int>(opt_int(q, "lora_rank", "", 1, 65536).value_or(defaults::kLoraRank));
  if (q.contains("lora_targets")) {
    const auto& t = q["lora_targets"];
    if (!t.is_array() || t.empty()) throw InputError("bad_type", "lora_targets", "lora_targets is a non-empty list");
    o.lora_targets.clear();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::string p = "lora_targets[" + std::to_string(i) + "]";
      if (!t[i].is_string()) throw InputError("bad_type", p, "a LoRA target is a string");
      const std::string s = t[i].get<std::string>();
      static const char* known[] = {"q", "k", "v", "o", "gate", "up", "down"};
      if (std::find(std::begin(known), std::end(known), s) == std::end(known))
        throw InputError("bad_value", p, "LoRA targets are q, k, v, o, gate, up, down; not '" + s + "'");
      o.lora_targets.push_back(s);
    }
  }
  o.gpus = static_cast<int>(opt_int(q, "gpus", "", 1, 1024).value_or(defaults::kGpus));
  o.zero = static_cast<int>(opt_int(q, "zero", "", 0, 3).value_or(defaults::kZero));
  r.owned = static_cast<int>(opt_int(q, "count", "", 1, 64).value_or(defaults::kCount));
  r.overrides.display_attached = opt_bool(q, "display", "").value_or(defaults::kDisplay);
  return r;
}

namespace {

// train_to_json's two searches, out of line ([[gnu::noinline]], and wasm/CMakeLists.txt's
// one-caller inlining limit): a browser compiles a function whose loops run long a second time with
// its optimizing compiler, in a time that grows faster than the function's size; with the searches
// inside it, train_to_json was a 37 KB function (wasm, -Os) that took 0.5-0.6 s of V8's optimizing
// compiler (Chromium 156) in every load of the page. Out of line, the loops are small functions.

struct LeastCount {
  nlohmann::json count = nullptr;  // null: no count up to search_to holds it
  std::uint64_t bytes = 0;         // what each GPU holds at that count
};

/// The least count of the device, from one to search_to, whose per-GPU share fits u.
[[gnu::noinline]] LeastCount least_count(const Architecture& a, const TrainOptions& o, const UsableMemory& u, int search_to) {
  LeastCount out;
  for (int n = 1; n <= search_to; ++n) {
    const TrainMemory mn = training_memory(a, with_gpus(o, n));
    if (fits(mn, u)) { out.count = n; out.bytes = mn.total_bytes; break; }
  }
  return out;
}

struct CheapestSet {
  nlohmann::json set = nullptr;  // the cheapest catalog GPU set that holds it, or null
  double best = 0;               // its total price
  // Segments whose cap left out a set that would hold it: {segment: {cap, that set's price}}.
  std::map<std::string, std::pair<int, double>> capped;
};

/// The cheapest catalog GPU set: one footprint per count, compared with every priced GPU.
[[gnu::noinline]] CheapestSet cheapest_set(const Catalog& cat, const Architecture& a, const TrainOptions& o) {
  using nlohmann::json;
  CheapestSet out;
  for (int n = 1; n <= 8; ++n) {
    const TrainMemory mn = training_memory(a, with_gpus(o, n));
    for (const auto& d : cat.devices()) {
      if (d.kind != DeviceKind::Gpu || d.price_usd <= 0) continue;
      if (!training_runs(cat, d)) continue;  // e.g. no Arc card: no ZeRO-3 recipe for it
      // bitsandbytes' NF4 kernels are CUDA-first (ROCm and others are previews): QLoRA picks CUDA.
      if (o.method == TrainMethod::Qlora &&
          std::find(d.backends.begin(), d.backends.end(), "cuda") == d.backends.end()) continue;
      // No more cards than a machine of the card's segment holds (data/segments.json, the same
      // rule as the solvers' count_cap).
      const int seg = cat.segment_max_count(d);
      if (!fits(mn, usable_memory(d))) continue;
      if (seg > 0 && n > seg) {
        auto& c = out.capped[d.facts["segment"].get<std::string>()];
        if (c.first == 0 || d.price_usd * n < c.second) c = {seg, d.price_usd * n};
        continue;
      }
      const double price = d.price_usd * n;
      if (out.set.is_null() || price < out.best) {
        out.best = price;
        out.set = {{"id", d.id}, {"name", d.name}, {"count", n}, {"zero", n > 1 ? 3 : 0},
                   {"memory_gib", d.memory_gib}, {"price_usd", d.price_usd}, {"total_price_usd", price},
                   {"per_gpu_bytes", mn.total_bytes}};
      }
    }
  }
  return out;
}

}  // namespace

nlohmann::json train_to_json(const Catalog& cat, const TrainRequest& r) {
  const Architecture& a = r.model.arch;
  const TrainOptions& o = r.opt;
  const TrainMemory m = training_memory(a, o);
  const UsableMemory u = usable_memory(r.device, r.overrides);

  // The least count of the chosen device that fits, with the memory each of those GPUs holds
  // (sharded: not the one-GPU total above). Every count from one, not powers of two: DeepSpeed
  // ZeRO-3 and FSDP shard over any number of ranks (no count restriction, unlike tensor
  // parallelism's divisor of the heads). Only graphics cards are counted past one: a Mac or a
  // unified-memory PC is one machine whose memory is not pooled with another's for training.
  // Past kMaxTrainCount the part each GPU keeps whole (activations, runtime) decides: the
  // per-GPU total there is given as the floor no count goes below.
  constexpr int kMaxTrainCount = 1024;
  const int search_to = r.device.kind == DeviceKind::Gpu ? kMaxTrainCount : 1;
  const LeastCount least = least_count(a, o, u, search_to);
  const json& min_count = least.count;
  const std::uint64_t min_count_bytes = least.bytes;
  // How many of the chosen device a machine holds (data/segments.json; one of anything else),
  // and why that many: the device's segment, a machine that is one device, or the default of 8.
  const int own_seg = r.device.kind == DeviceKind::Gpu ? cat.segment_max_count(r.device) : 0;
  const int own_cap = r.device.kind != DeviceKind::Gpu ? 1 : own_seg > 0 ? own_seg : 8;
  const char* own_cap_code = r.device.kind != DeviceKind::Gpu ? "one_machine" : own_seg > 0 ? "segment" : "default_max";
  const bool own_runs = training_runs(cat, r.device);
  // The cheapest catalog GPU set: one footprint per count, compared with every priced GPU.
  CheapestSet found = cheapest_set(cat, a, o);
  const json& cheapest = found.set;
  std::map<std::string, std::pair<int, double>>& capped = found.capped;
  const double best = found.best;
  const double U = static_cast<double>(u.usable_bytes);
  json targets = json::array();
  for (const auto& t : o.lora_targets) targets.push_back(t);
  json settings = {{"method", train_method_name(o.method)}, {"optimizer", optimizer_name(o.optimizer)},
                   {"precision", o.mixed_precision ? "mixed" : "fp32"}, {"batch", o.batch}, {"seq", o.seq},
                   {"checkpointing", o.checkpointing}, {"offload_activations", o.offload_activations},
                   {"flash_attn", o.flash_attn},
                   {"loss", o.loss == LossKind::Standard ? "standard" : o.loss == LossKind::Chunked ? "chunked" : "fused"},
                   {"gpus", o.gpus}, {"zero", o.zero},
                   {"offload", o.offload == Offload::None ? "none" : o.offload == Offload::Optimizer ? "optimizer" : "params"}};
  if (o.method != TrainMethod::Full) {
    settings["lora_rank"] = o.lora_rank;
    settings["lora_targets"] = targets;
    settings["adapter_precision"] = o.adapters_fp32 ? "fp32" : "bf16";
  }
  if (o.method == TrainMethod::Qlora) {
    settings["double_quant"] = o.double_quant;
    settings["kbit_prep_fp32"] = o.kbit_prep_fp32;
  }
  json out = {
      {"model", {{"id", r.model.id}, {"name", r.model.name}, {"model_type", a.model_type},
                 {"topology", a.topology()}, {"topology_code", a.topology_code()}, {"layers", a.n_layer_main()}}},
      {"hardware", {{"id", r.device.id}, {"name", r.device.name}, {"kind", device_kind_name(r.device.kind)}, {"device_type", device_type_json(r.device)},
                    {"count", o.gpus}, {"memory_gib", r.device.memory_gib}, {"memory_basis", memory_basis_json(r.device)}}},
      {"settings", settings},
      {"params", {{"total", m.params.total}, {"trainable", m.params.trainable}, {"frozen", m.params.frozen},
                  {"quantized", m.params.quantized},
                  {"trainable_pct", m.params.total > 0 ? 100.0 * static_cast<double>(m.params.trainable) /
                                                             static_cast<double>(m.params.total) : 0.0}}},
      {"params_basis", params_basis(r, m.params)},
      {"memory", {{"per_gpu", {{"weights_bytes", m.weights_bytes},
                               {"frozen_weights_bytes", m.frozen_weights_bytes},
                               {"trainable_weights_bytes", m.trainable_weights_bytes}, {"gradients_bytes", m.gradients_bytes},
                               {"master_bytes", m.master_bytes}, {"optimizer_bytes", m.optimizer_bytes},
                               {"activations_bytes", m.activations_bytes}, {"logits_bytes", m.logits_bytes},
                               {"workspace_bytes", m.workspace_bytes}, {"runtime_bytes", m.runtime_bytes},
                               {"tensors_bytes", m.tensors_bytes}, {"total_bytes", m.total_bytes},
                               {"total_high_bytes", total_high_bytes(m)},
                               // The three columns a table shows: optimizer state (fp32 master copy and
                               // moments), activations (with the logits), and the rest (workspace, runtime).
                               {"optimizer_state_bytes", m.master_bytes + m.optimizer_bytes},
                               {"activation_total_bytes", m.activations_bytes + m.logits_bytes},
                               {"other_bytes", m.workspace_bytes + m.runtime_bytes}}},
                  {"cpu_bytes", m.cpu_bytes},
                  {"state_bytes_per_param", m.state_bytes_per_param},
                  {"usable_bytes", u.usable_bytes},
                  {"usable_low_bytes", u.usable_low_bytes},
                  {"usable_rule_code", {{"code", u.rule_code}, {"params", u.rule_params}}},
                  {"margin_bytes", static_cast<std::int64_t>(u.usable_bytes) - static_cast<std::int64_t>(m.total_bytes)},
                  {"utilization", U > 0 ? static_cast<double>(m.total_bytes) / U : 0.0}}},
      {"verdict", verdict(m, u)},
      {"min_count", min_count},
      {"cheapest", cheapest},
  };
  // Beside one GPU's total: what each GPU holds at min_count (ZeRO-3 shards the states), and
  // whether the request's own GPU count is sharded at all (plain data parallel copies everything
  // to every GPU, so its per-GPU total is the one-GPU total).
  if (!min_count.is_null())
    out["min_count_detail"] = {{"count", min_count}, {"zero", min_count.get<int>() > 1 ? 3 : 0},
                               {"per_gpu_bytes", min_count_bytes}, {"within_cap", min_count.get<int>() <= own_cap},
                               {"max_count", own_cap}, {"cap_code", own_cap_code}};
  else {
    // No count holds it: one machine that is too small ("one_machine"), or graphics cards whose
    // unsharded part alone is more than one of them holds at any count ("unsharded_exceeds",
    // with what each GPU keeps at kMaxTrainCount).
    out["min_count_detail"] = {{"within_cap", false}, {"max_count", own_cap}, {"cap_code", own_cap_code},
                               {"code", r.device.kind == DeviceKind::Gpu ? "unsharded_exceeds" : "one_machine_too_small"}};
    if (r.device.kind == DeviceKind::Gpu)
      out["min_count_detail"]["floor_bytes"] = training_memory(a, with_gpus(o, kMaxTrainCount)).total_bytes;
  }
  // Whose cap max_count is: the device's segment (data/segments.json), so a note on the caps can
  // name the one the table counts against; absent for a device without one (its cap is 1 or 8).
  if (r.device.kind == DeviceKind::Gpu && cat.segment_max_count(r.device) > 0)
    out["min_count_detail"]["segment"] = r.device.facts.value("segment", "");
  out["memory"]["per_gpu_basis"] = o.gpus <= 1 ? "one_gpu" : o.zero == 0 ? "replicated" : "sharded";
  // The advice, in order: the person's own device when a machine holds enough of them and the
  // training stack runs on it -- with how many more than they have when it takes more (`owned`,
  // the request's count); else the cheapest catalog set, with its segment's card cap. When the
  // own device holds it by memory but the usual stacks are not verified on it, that is said
  // ("own_device_unverified"), and no set to buy is advised: the person's device does it.
  // When the own device needs more cards than a machine holds (or more than 64), `instead` says
  // what would do: QLoRA when it fits the own device within the cap, and the memory one GPU needs.
  const int have = r.owned;
  const bool own_holds = !min_count.is_null() && min_count.get<int>() <= own_cap;
  auto own = [&](const char* code) {
    const int n = min_count.get<int>();
    json j = {{"code", code}, {"id", r.device.id}, {"name", r.device.name}, {"count", n},
              {"zero", n > 1 ? 3 : 0}, {"per_gpu_bytes", min_count_bytes}, {"have", have}, {"more", std::max(0, n - have)}};
    return j;
  };
  auto buy = [&]() {
    json j = {{"code", "cheapest_set"}, {"id", cheapest["id"]}, {"name", cheapest["name"]}, {"count", cheapest["count"]},
              {"zero", cheapest["zero"]}, {"per_gpu_bytes", cheapest["per_gpu_bytes"]}};
    if (const Device* d = cat.find_device(cheapest["id"].get<std::string>()); d && cat.segment_max_count(*d) > 0) {
      j["segment"] = d->facts.value("segment", "");
      j["segment_max_count"] = cat.segment_max_count(*d);
    }
    return j;
  };
  json advice;
  if (own_runs && own_holds)
    advice = own("own_device");
  else if (!own_runs && own_holds)
    // The person's own device holds it: no set to buy is advised beside it (the usual stacks
    // not being verified there is said by the own_device note below).
    advice = own("own_device_unverified");
  else if (!cheapest.is_null()) {
    advice = buy();
    // A Mac or a unified-memory PC is one machine that no count of it helps: the set is other
    // hardware in place of it, not more of it ("cheapest_set_instead", with the own device's kind).
    if (r.device.kind != DeviceKind::Gpu) {
      advice["code"] = "cheapest_set_instead";
      advice["own_kind"] = device_kind_name(r.device.kind);
    }
  } else
    advice = {{"code", "none_within_caps"}};
  if (!own_runs) advice["own_device"] = "training_stack_not_verified";
  if (min_count.is_null() || min_count.get<int>() > own_cap) {
    json instead = json::array();
    // QLoRA's NF4 kernels are CUDA-first (the cheapest-set rule above).
    const bool cuda = std::find(r.device.backends.begin(), r.device.backends.end(), "cuda") != r.device.backends.end();
    if (o.method != TrainMethod::Qlora && own_runs && cuda) {
      TrainOptions q = o;
      q.method = TrainMethod::Qlora;
      for (int n = 1; n <= own_cap; ++n)
        if (fits(training_memory(a, with_gpus(q, n)), u)) {
          instead.push_back({{"code", "qlora"}, {"count", n}, {"have", have}, {"more", std::max(0, n - have)}});
          break;
        }
    }
    instead.push_back({{"code", "one_gpu_memory"}, {"memory_bytes", m.total_bytes}});
    advice["instead"] = instead;
  }
  out["advice"] = advice;
  // Said when the cheapest-set search left out a set because of its segment's cap (the solvers'
  // count_caps: {code, segment, segment_max_count, max_count}).
  json caps = json::array();
  for (const auto& [s, c] : capped)
    if (cheapest.is_null() || c.second < best)  // the cap changed the answer
      caps.push_back({{"code", "segment_max_count"}, {"segment", s}, {"segment_max_count", c.first}, {"max_count", 8}});
  if (!caps.empty()) out["count_caps"] = caps;
  return out;
}

}  // namespace wif
