#include "willitfit/api/api.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "willitfit/base/shown.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/calibration/bench_paste.hpp"
#include "willitfit/calibration/llama_bench.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/handles.hpp"
#include "willitfit/hub/hub_repo.hpp"
#include "willitfit/model/quantize.hpp"
#include "willitfit/money/cost.hpp"
#include "willitfit/catalog/quality.hpp"
#include "willitfit/questions/runs_on.hpp"
#include "willitfit/questions/solve.hpp"
#include "willitfit/questions/tiers.hpp"
#include "willitfit/speed/speed_basis.hpp"
#include "willitfit/training/training.hpp"

namespace wif {
namespace {

template <class F>
std::string guarded(F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    return error_json(e.error());
  } catch (const std::exception& e) {
    return error_json({"internal_error", "", e.what()});
  }
}

// A result document with its schema version at the top.
std::string versioned(json doc, bool replace_bad_utf8 = false) {
  doc["schema_version"] = kSchemaVersion;
  return replace_bad_utf8 ? doc.dump(-1, ' ', false, json::error_handler_t::replace) : doc.dump();
}

// A published file of the estimated format (catalog model's `gguf` list, data/SCHEMA.md), so the
// page can show it beside the computed size. Only for catalog models named by id: a model read
// from a GGUF header is its own file.
void add_published_size(const Catalog& cat, const json& q, json& out) {
  if (!q.contains("model") || !q["model"].is_string()) return;
  const ModelEntry* m = cat.find_model(q["model"].get<std::string>());
  if (!m || !m->raw.contains("gguf") || !m->raw["gguf"].is_array()) return;
  const std::string quant = out["quant"].value("id", "");
  for (const auto& g : m->raw["gguf"])
    if (g.is_object() && g.value("quant", "") == quant && g.contains("bytes") && g["bytes"].is_number_unsigned() &&
        g["bytes"].get<std::uint64_t>() > 0) {
      out["gguf_file_published_bytes"] = g["bytes"];
      out["gguf_file_published_repo"] = g.value("repo", "");
      // How far the computed file is from the published one, in percent (signed: + = ours larger).
      const double pub = g["bytes"].get<double>();
      if (out.contains("gguf_file_bytes") && out["gguf_file_bytes"].is_number()) {
        const double pct = 100.0 * (out["gguf_file_bytes"].get<double>() - pub) / pub;
        out["gguf_file_published_diff_pct"] = pct;
        // A difference that reads as 0.0 %: the two sizes agree as shown (a code, not "differs by 0.0 %").
        if (shown::zero_pct(pct)) out["gguf_file_published_diff_code"] = "same_as_shown";
      }
      return;
    }
}

// At most `n` bytes of `s`, cut on a UTF-8 boundary (a key is valid UTF-8: parse_json checked it),
// so a path quoted in an error or a warning is never a broken sequence, whatever its length.
std::string cut_utf8(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t end = n;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

// Levenshtein distance of two short names (the caller keeps both to 64 bytes).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The request's top-level fields that none of `known` names. A field is never dropped without a
// word: one within a letter or two of a known field the request does not also give ("ram_gb" for
// ram_gib, "contxt" for context) is a misspelling that would change the answer, refused as
// unknown_field with the field meant in `accepted`; any other is answered beside the result as a
// warning {code: unknown_field, path}. Bounded for any input: names past 64 bytes are compared
// with nothing, and at most 64 warnings are listed (then one warnings_left_out with the count).
json unknown_fields(const json& q, std::initializer_list<const std::vector<std::string>*> known) {
  json warnings = json::array();
  if (!q.is_object()) return warnings;  // the reader's own bad_type answers it
  std::size_t left_out = 0;
  for (const auto& item : q.items()) {
    const std::string& key = item.key();
    bool found = false;
    for (const auto* set : known)
      if (std::find(set->begin(), set->end(), key) != set->end()) found = true;
    if (found) continue;
    std::string near;
    if (key.size() <= 64) {
      std::string lower = key;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t best = 3;
      for (const auto* set : known)
        for (const auto& f : *set) {
          const std::size_t d = edit_distance(lower, f);
          if (d < best && d <= (f.size() <= 4 ? 1u : 2u)) {
            best = d;
            near = f;
          }
        }
    }
    const std::string path = cut_utf8(key, 200);
    if (!near.empty() && !q.contains(near))
      throw InputError("unknown_field", path, "unknown field '" + path + "'; did you mean '" + near + "'?", {near});
    if (warnings.size() >= 64) {
      ++left_out;
      continue;
    }
    json w = {{"code", "unknown_field"}, {"path", path}};
    if (!near.empty()) w["did_you_mean"] = near;
    warnings.push_back(w);
  }
  if (left_out > 0) warnings.push_back({{"code", "warnings_left_out"}, {"path", ""}, {"count", left_out}});
  return warnings;
}

// The result with the request's warnings beside it (absent when there are none).
json with_warnings(json doc, json warnings) {
  if (!warnings.empty()) doc["warnings"] = std::move(warnings);
  return doc;
}

// One estimate document, the same for api_estimate and each entry of api_estimate_many.
std::string estimate_one(const Catalog& cat, const json& q) {
  json warnings = unknown_fields(q, {&estimate_request_fields()});
  const EstimateRequest r = parse_request(cat, q);
  json out = estimate_to_json(r, run_estimate(cat, r));
  add_published_size(cat, q, out);
  return versioned(with_warnings(std::move(out), std::move(warnings)));
}

}  // namespace

std::string error_json(const Error& e) {
  json err = {{"code", e.code}, {"path", e.path}, {"message", e.message}};
  if (!e.accepted.empty()) err["accepted"] = e.accepted;
  if (e.code == "gguf_truncated") err["needed_bytes"] = e.needed_bytes;
  if (!e.values.empty()) {
    json v = json::object();
    for (const auto& [k, x] : e.values) v[k] = x;
    err["values"] = v;
  }
  return json{{"schema_version", kSchemaVersion}, {"error", err}}.dump();
}

std::string api_defaults(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    const json q = request_json.empty() ? json::object() : parse_json(request_json, "");
    return versioned(defaults_json(cat, q));
  });
}

std::string api_estimate(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    return estimate_one(cat, parse_json(request_json, ""));
  });
}

std::string api_estimate_many(const Catalog& cat, const std::string& requests_json) {
  return guarded([&] {
    const json qs = parse_json(requests_json, "");
    if (!qs.is_array()) throw InputError("bad_type", "", "estimateMany takes a JSON array of requests");
    // One call stays short (the JS wrapper sends chunks and reports progress between them).
    if (qs.size() > kMaxBatch)
      throw InputError("too_many_requests", "", "estimateMany takes at most " + std::to_string(kMaxBatch) +
                                                    " requests per call, not " + std::to_string(qs.size()));
    std::string out = "[";
    for (std::size_t i = 0; i < qs.size(); ++i) {
      if (i) out += ",";
      out += guarded([&] { return estimate_one(cat, qs[i]); });
    }
    return out + "]";
  });
}

std::string api_tiers(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    const json q = parse_json(request_json, "");
    json w = unknown_fields(q, {&estimate_request_fields()});
    return versioned(with_warnings(tier_lists(cat, q), std::move(w)));
  });
}

std::string api_runs_on(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    const json q = parse_json(request_json, "");
    json w = unknown_fields(q, {&estimate_request_fields(), &runs_on_request_fields()});
    return versioned(with_warnings(runs_on(cat, q), std::move(w)));
  });
}

std::string api_solve(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    const json q = parse_json(request_json, "");
    json w = unknown_fields(q, {&estimate_request_fields(), &solve_request_fields()});
    return versioned(with_warnings(run_solve(cat, q), std::move(w)));
  });
}

std::string api_train(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    const json q = parse_json(request_json, "");
    return versioned(train_to_json(cat, parse_train_request(cat, q)));
  });
}

std::string api_cost(const Catalog& cat, const std::string& request_json) {
  return guarded([&] {
    const json q = parse_json(request_json, "");
    json w = unknown_fields(q, {&estimate_request_fields(), &cost_request_fields()});
    return versioned(with_warnings(cost_to_json(cat, parse_cost_request(cat, q)), std::move(w)));
  });
}

std::string api_list(const Catalog& cat, const std::string& what) {
  return guarded([&] {
    json items = json::array();
    // A figure the catalog does not state is null, never 0 (a 0 reads as a value).
    auto known = [](double v) { return v > 0 ? json(v) : json(nullptr); };
    if (what == "models") {
      for (const auto& m : cat.models()) {
        // The counts an estimate of the model computes (params_total/params_active, as its
        // model.params_total), beside the publisher's round figures (params_total_b).
        const ParamCounts& pc = memo_params(cat, m);
        items.push_back({{"id", m.id}, {"name", m.name}, {"org", m.org}, {"family", m.family},
                         {"params_total_b", known(m.params_total_b)}, {"params_active_b", known(m.params_active_b)},
                         {"params_total", pc.total}, {"params_active", pc.active},
                         {"topology", m.arch.topology()}, {"topology_code", m.arch.topology_code()}, {"max_context", known(static_cast<double>(m.arch.n_ctx_train))},
                         {"release", m.release}, {"license", m.license}});
      }
    } else if (what == "hardware") {
      const SpeedCoefficients& coef = memo_speed_coefficients(cat);
      // The order a list of devices to run a model on follows (accelerators, not bare CPUs):
      // smallest memory first, then the cheaper; an unknown price after the known ones (a device
      // one can look up and buy is the more useful answer). "order" is the place in it, null for CPUs.
      std::vector<const Device*> acc;
      for (const auto& d : cat.devices())
        if (d.kind != DeviceKind::Cpu) acc.push_back(&d);
      std::stable_sort(acc.begin(), acc.end(), [](const Device* a, const Device* b) {
        if (a->memory_gib != b->memory_gib) return a->memory_gib < b->memory_gib;
        const double pa = a->price_usd > 0 ? a->price_usd : 1e12, pb = b->price_usd > 0 ? b->price_usd : 1e12;
        return pa < pb;
      });
      std::map<std::string, std::size_t> order;
      for (std::size_t i = 0; i < acc.size(); ++i) order[acc[i]->id] = i;
      for (const auto& d : cat.devices()) {
        json it = {{"id", d.id}, {"name", d.name}, {"vendor", d.vendor},
                   {"kind", device_kind_name(d.kind)}, {"memory_gib", known(d.memory_gib)},
                   {"bandwidth_gbs", known(d.bandwidth_gbs)}, {"fp16_tflops", known(d.fp16_tflops)},
                   {"fp32_tflops", known(d.fp32_tflops)},
                   {"backend", d.backend}, {"price_usd", known(d.price_usd)},
                   {"uncertain", d.facts.is_object() && d.facts.contains("uncertain") ? d.facts["uncertain"] : json::object()}};
        // The engines the core estimates on it (data/backends.json, the same list as an
        // estimate's hardware.engines): a list of devices for one engine keeps only these.
        it["engines_run"] = cat.device_engines(d);
        // Whether a page offers it among the devices to compare a model on, with the reason.
        const defaults::CompareOffer offer = defaults::compare_offer(d);
        it["compare"] = offer.offered;
        it["compare_code"] = offer.code;
        it["order"] = order.count(d.id) ? json(order[d.id]) : json(nullptr);
        if (coef.basis) {  // which engines run on it (data/engines.json, speed_basis.hpp)
          it["engines"] = device_engines_json(*coef.basis, d);
          it["llamacpp_status"] = llamacpp_status(*coef.basis, d);
        }
        // The products people know the device by (the Macs a chip ships in, a mini PC's name).
        add_product_fields(it, d);
        items.push_back(it);
      }
    } else if (what == "engines") {
      const SpeedCoefficients& coef = memo_speed_coefficients(cat);
      if (coef.basis)
        for (const auto& e : coef.basis->engines) {
          json r = {{"engine", e.engine}, {"name", defaults::engine_name(e.engine)}, {"backend", e.backend}, {"status", e.status}, {"source", e.source},
                    {"checked", e.checked}};
          if (!e.via.empty()) r["via"] = e.via;
          if (!e.notes.empty()) r["notes"] = e.notes;
          items.push_back(r);
        }
    } else if (what == "quants") {
      for (const auto& q : quant_formats()) {
        json it = {{"id", q.id}, {"container", q.container}, {"gguf", q.gguf}};
        for (const auto& e : cat.quants())
          if (e.value("id", "") == q.id) {
            // quality_model and source: the one reference model the quality figure was measured
            // on, and where (the page words the quality column as that model's figure).
            for (const char* k : {"family", "bits_per_weight_nominal", "description", "ppl_delta_pct", "kld_mean", "rank",
                                  "quality_model", "source"})
              if (e.contains(k)) it[k] = e[k];
          }
        it["quality"] = quality_json(cat, q.id);
        it["engines"] = json::array();
        for (const char* en : {"llama.cpp", "vllm", "sglang"})
          if (engine_accepts(en, q)) it["engines"].push_back(en);
        items.push_back(it);
      }
    } else if (what == "clouds") {
      for (const auto& c : cat.clouds()) items.push_back(c);
    } else if (what == "markets") {
      for (const auto& m : cat.markets()) items.push_back(m);
    } else {
      throw InputError("bad_value", "what", "list models, hardware, quants, clouds, markets or engines",
                       {"models", "hardware", "quants", "clouds", "markets", "engines"});
    }
    return versioned(json{{what, items}});
  });
}

std::string api_bench_paste(const Catalog& cat, const std::string& request_json) {
  return guarded([&] { return versioned(bench_paste(cat, parse_json(request_json, "request"))); });
}

std::string api_accuracy(const Catalog& cat) {
  return guarded([&] { return versioned(accuracy_report(cat)); });
}

std::string api_gguf_summary(const std::string& bytes_or_base64, const std::string& options_json) {
  return guarded([&] {
    GgufTensorList mode = GgufTensorList::List;
    if (!options_json.empty()) {
      const json o = parse_json(options_json, "options");
      const std::string t = o.is_object() ? o.value("tensors", std::string("list")) : "list";
      if (t == "columns") mode = GgufTensorList::Columns;
      else if (t == "none") mode = GgufTensorList::None;
      else if (t != "list") throw InputError("bad_value", "options.tensors", "tensors must be list, columns or none (table: api_gguf_summary_table)");
    }
    const auto b = gguf_bytes_or_base64(bytes_or_base64, "gguf");
    return versioned(gguf_summary(parse_gguf_header(b), mode), true);
  });
}

std::string api_gguf_register(const std::string& handle, const std::string& bytes_or_base64) {
  return guarded([&] {
    const auto b = gguf_bytes_or_base64(bytes_or_base64, "gguf");
    const auto g = register_gguf(handle, b, "gguf");
    return versioned(json{{"handle", handle}, {"name", g->name}, {"architecture", g->arch.gguf_arch}});
  });
}

std::string api_mmproj_register(const std::string& handle, const std::string& bytes_or_base64) {
  return guarded([&] {
    const auto b = gguf_bytes_or_base64(bytes_or_base64, "mmproj");
    const auto f = register_mmproj(handle, b, "mmproj");
    json doc = {{"handle", handle}, {"name", f->name}, {"projector_type", f->projector_type},
                {"family", f->spec.family}, {"modelled", !f->spec.family.empty()},
                {"tensors", f->tensors}, {"tensor_bytes", f->plan.bytes}};
    if (f->audio.present)  // the file's audio tower (model/audio.hpp)
      doc["audio"] = {{"projector_type", f->audio_projector_type}, {"family", f->audio.family},
                      {"modelled", !f->audio.family.empty()}, {"tensor_bytes", f->audio_bytes}};
    return versioned(doc);
  });
}

std::string api_gguf_register_split(const std::string& handle, const std::string& shards_json) {
  return guarded([&] {
    const json list = parse_json(shards_json, "shards");
    if (!list.is_array() || list.empty() || list.size() > 999)
      throw InputError("bad_type", "shards", "the shards are a JSON array of 1 to 999 base64 texts, the first holding the metadata");
    std::vector<std::vector<std::uint8_t>> shards;
    shards.reserve(list.size());
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string pk = "shards[" + std::to_string(k) + "]";
      if (!list[k].is_string()) throw InputError("bad_type", pk, "each shard is base64 text");
      shards.push_back(gguf_bytes_or_base64(list[k].get<std::string>(), pk));
    }
    const auto g = register_gguf_split(handle, shards, "shards");
    return versioned(json{{"handle", handle}, {"name", g->name}, {"architecture", g->arch.gguf_arch},
                          {"shards", shards.size()}});
  });
}

GgufSummaryTable api_gguf_summary_table(const std::uint8_t* bytes, std::size_t size) {
  GgufSummaryTable out;
  out.json = guarded([&] {
    // The same bound gguf_bytes_or_base64 sets for api_gguf_summary, before anything is read.
    if (size > kGgufMaxHeaderBytes)
      throw InputError("gguf_too_large", "gguf", "the header is " + std::to_string(size) + " bytes; the limit is " +
                                                     std::to_string(kGgufMaxHeaderBytes) + " bytes");
    const GgufHeader h = parse_gguf_header(bytes, size);
    GgufTensorTable t = gguf_tensor_table(h);
    json doc = gguf_summary(h, GgufTensorList::Table);
    doc["tensor_table"] = std::move(t.layout);
    out.table = std::move(t.bytes);
    return versioned(std::move(doc), true);
  });
  return out;
}

std::string api_hub_ref(const std::string& text) {
  return guarded([&] { return versioned(hub_parse_ref(text)); });
}

std::string api_hub_repo(const std::string& doc_json) {
  return guarded([&] { return versioned(hub_repo(parse_json(doc_json, "")), true); });
}

std::string api_catalog_errors(const Catalog& cat) {
  json errs = json::array();
  for (const auto& e : cat.errors()) errs.push_back({{"code", e.code}, {"path", e.path}, {"message", e.message}});
  return versioned(json{{"errors", errs}});
}

}  // namespace wif
