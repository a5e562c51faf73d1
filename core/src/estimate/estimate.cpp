#include "willitfit/estimate/estimate.hpp"
#include "willitfit/base/shown.hpp"
#include "willitfit/base/text.hpp"

#include "willitfit/speed/speed.hpp"

#include <algorithm>
#include <cmath>

#include "willitfit/base/error.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/defaults.hpp"
#include "willitfit/estimate/catalog_memo.hpp"
#include "willitfit/estimate/engine_fit.hpp"
#include "willitfit/estimate/engine_step.hpp"
#include "willitfit/estimate/launch_commands.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/handles.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"
#include "willitfit/model/scale_limits.hpp"
#include "willitfit/catalog/quality.hpp"
#include "willitfit/speed/mlx_speed.hpp"
#include "willitfit/speed/multi_device_speed.hpp"

namespace wif {
namespace {


GgmlType kv_type(const std::string& s, const std::string& path) {
  auto t = ggml_type_from_name(s);
  if (!t || !is_kv_cache_type(*t))
    throw InputError("bad_value", path,
                     "cache type '" + s + "' is not one of f16, bf16, f32, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl",
                     {"f16", "bf16", "f32", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"});
  return *t;
}

// The request's format for its engine (quantize.hpp resolve_format): aliases resolved, a format
// the engine cannot run replaced by its default, each with a coded note in the result.
void resolve_quant(const nlohmann::json& q, EstimateRequest& r) {
  const auto typed = opt_str(q, "quant", "");
  if (!typed) {
    r.quant = defaults::quant_for(r.engine, r.model.arch);
    return;
  }
  const auto f = resolve_format(*typed, r.engine);
  if (!f) {
    const auto ok = engine_formats(r.engine);
    std::string some;
    for (std::size_t i = 0; i < ok.size() && i < 6; ++i) some += (i ? ", " : "") + ok[i];
    throw InputError("unknown_quant", "quant",
                     "unknown quantization '" + *typed + "'; " + r.engine + " takes " + some + " … (willitfit list quants)", ok);
  }
  if (!engine_accepts(r.engine, *f)) {
    r.quant = defaults::quant_for(r.engine, r.model.arch);
    r.notes.push_back({"quant_replaced", {{"from", f->id}, {"to", r.quant}, {"engine", r.engine}}});
    return;
  }
  r.quant = f->id;
  const std::string u = text::upper(*typed), v = text::upper(f->id);
  if (u != v && !(u == "MXFP4" && v == "MXFP4_MOE"))
    r.notes.push_back({"quant_alias", {{"from", *typed}, {"to", f->id}, {"engine", r.engine}}});
}

// Ids and names of a few KB at most: they are echoed in every result, command and listing.
void check_name_lengths(const ResolvedModel& m, const std::string& path) {
  constexpr std::size_t kMaxName = 4096;
  for (const auto& [key, v] : {std::pair<const char*, const std::string*>{"id", &m.id}, {"name", &m.name}})
    if (v->size() > kMaxName)
      throw InputError("bad_value", join_path(path, key),
                       std::string("'") + key + "' is " + std::to_string(v->size()) + " bytes; the limit is " +
                           std::to_string(kMaxName));
}

// The `projector` section (projector.hpp): what the vision projector costs, loaded or not, and
// what the images of one prompt cost in the context and in prefill time.
nlohmann::json projector_json(const EstimateRequest& r, const Estimate& e, const nlohmann::json& out) {
  using nlohmann::json;
  const VisionSpec& v = r.model.vision;
  json j = {{"modelled", !v.family.empty()}, {"model_type", v.model_type}, {"images", r.proj.images}};
  if (r.model.mmproj) {  // read from the projector's own GGUF (gguf/mmproj.hpp), not computed from a config
    const MmprojFile& f = *r.model.mmproj;
    j["source"] = "mmproj_file";
    j["file"] = {{"path", r.model.mmproj_path}, {"revision", r.model.mmproj_revision}, {"projector_type", f.projector_type},
                 {"tensors", f.tensors}, {"header_bytes", f.header_bytes}, {"file_bytes", f.file_bytes},
                 {"tensor_bytes", f.plan.bytes}};
  }
  if (v.family.empty()) {
    j["loaded"] = false;
    j["code"] = v.code;
    if (!v.missing.empty()) j["missing"] = v.missing;
    return j;
  }
  if (e.proj_plan.tensors.empty()) {  // a listing ("detail": "summary") without images: not computed
    j["loaded"] = false;
    j["code"] = "no_images";
    return j;
  }
  const std::int64_t tokens = e.proj_image.tokens;
  const std::int64_t image_tokens = tokens * r.proj.images;
  const std::uint64_t kv_per_token = e.kv.bytes_per_token_full;
  j["family"] = v.family;
  j["loaded"] = e.proj_loaded;
  // vLLM and SGLang load a multimodal checkpoint's vision tower themselves, images or not: not
  // modelled here, and not "not loaded" either.
  j["code"] = e.proj_loaded ? "loaded" : r.engine != "llama.cpp" ? "engine_not_modelled" : "no_images";
  j["type"] = text::lower(ggml_type_name(r.proj.type));
  j["bytes"] = e.proj_bytes;
  j["bytes_source"] = r.model.mmproj ? "file" : r.proj.published_bytes > 0 ? "published" : "computed";
  j["computed_bytes"] = e.proj_plan.bytes;
  j["params"] = e.proj_plan.params;
  j["compute_bytes"] = e.proj_compute_bytes;
  j["resident_bytes"] = e.proj_loaded ? e.proj_bytes + e.proj_compute_bytes : 0;
  j["offload"] = r.proj.offload;
  if (e.proj_loaded) j["placement"] = e.proj_on_device ? "device" : "cpu";  // absent when not loaded
  if (e.proj_loaded && e.proj_on_device && !r.devices.empty()) j["device_id"] = r.devices.front().id;
  j["image"] = {{"width", e.proj_image.width}, {"height", e.proj_image.height},
                {"requested_width", r.proj.width}, {"requested_height", r.proj.height},
                {"positions", e.proj_image.positions}, {"size_dependent", v.family != "gemma3"}};
  j["tokens_per_image"] = tokens;
  j["image_tokens"] = image_tokens;
  j["image_kv_bytes"] = static_cast<std::uint64_t>(image_tokens) * kv_per_token;
  const std::int64_t n_ctx = e.kv.n_ctx;
  j["context_share"] = n_ctx > 0 ? static_cast<double>(image_tokens) / static_cast<double>(n_ctx) : 0.0;
  j["exceeds_context"] = n_ctx > 0 && image_tokens > n_ctx;
  // The encoder's work for one image. No encode time: llama.cpp's vision encode runs far below
  // the rate its text prefill reaches (a SigLIP-400M slice of 1,024 positions took about 70 ms on
  // an RTX 4090 in llama.cpp-omni PR #55, several times what that rate gives), and no public
  // measurement fixes the ratio yet.
  j["encode_gflops"] = projector_encode_flops(v, e.proj_plan, e.proj_image) / 1e9;
  // The image tokens go through the text model like prompt tokens: at the prefill rate.
  const double pp = out.contains("speed") ? out["speed"].value("prefill_tps", 0.0) : 0.0;
  if (pp > 0 && image_tokens > 0) j["image_prefill_seconds"] = static_cast<double>(image_tokens) / pp;
  return j;
}

// The `audio` section (audio.hpp): the audio tower of the mmproj file, loaded or not, and what
// the audio of one prompt costs: 30 s windows, tokens in the context, the encoder's work and
// the prefill time that adds. Codes and numbers only.
nlohmann::json audio_json(const EstimateRequest& r, const Estimate& e, const nlohmann::json& out) {
  using nlohmann::json;
  const AudioSpec& a = r.model.audio;
  json j = {{"modelled", !a.family.empty()}, {"model_type", a.model_type}, {"seconds", r.proj.audio_seconds}};
  if (r.model.mmproj) {
    j["source"] = "mmproj_file";
    j["projector_type"] = r.model.mmproj->audio_projector_type;
  }
  if (a.family.empty()) {
    j["loaded"] = false;
    j["code"] = a.code;
    if (!a.missing.empty()) j["missing"] = a.missing;
    return j;
  }
  if (e.audio_bytes == 0) {  // a listing ("detail": "summary") without audio: not computed
    j["loaded"] = false;
    j["code"] = "no_audio";
    return j;
  }
  const bool sent = r.proj.audio_seconds > 0;
  const bool loaded = e.proj_loaded && sent;
  j["family"] = a.family;
  j["loaded"] = loaded;
  // A server engine loads a checkpoint's audio tower itself: not modelled here.
  j["code"] = loaded ? "loaded" : r.engine != "llama.cpp" ? "engine_not_modelled" : "no_audio";
  j["type"] = text::lower(ggml_type_name(r.proj.type));
  j["bytes"] = e.audio_bytes;
  j["bytes_source"] = r.model.mmproj ? "file" : "computed";
  j["params"] = e.audio_params;
  j["compute_bytes"] = e.audio_compute_bytes;
  j["resident_bytes"] = loaded ? e.audio_bytes + e.audio_compute_bytes : 0;
  j["file_bytes"] = e.proj_bytes;  // the whole mmproj file as loaded (both towers where it has both)
  j["offload"] = r.proj.offload;
  if (loaded) j["placement"] = e.proj_on_device ? "device" : "cpu";
  if (loaded && e.proj_on_device && !r.devices.empty()) j["device_id"] = r.devices.front().id;
  const AudioCost& c = e.audio_cost;
  j["window_seconds"] = 30;
  j["windows"] = c.windows;
  j["positions"] = c.positions;
  j["tokens_per_window"] = c.tokens_per_window;
  j["tokens"] = c.tokens;
  j["kv_bytes"] = static_cast<std::uint64_t>(c.tokens) * e.kv.bytes_per_token_full;
  const std::int64_t n_ctx = e.kv.n_ctx;
  j["context_share"] = n_ctx > 0 ? static_cast<double>(c.tokens) / static_cast<double>(n_ctx) : 0.0;
  j["exceeds_context"] = n_ctx > 0 && c.tokens > n_ctx;
  const double flops = audio_encode_flops(a, c);
  j["encode_gflops"] = flops / 1e9;
  // Prefill with the audio: its tokens at the text prefill rate, plus the encoder's work at the
  // FLOP rate that prefill reaches (2 x the active matrix parameters per token: the token table
  // is a lookup, not a product). The encoder's own kernels are not measured here; no public
  // llama.cpp timing of them fixes a separate rate yet.
  const double pp = out.contains("speed") ? out["speed"].value("prefill_tps", 0.0) : 0.0;
  const std::int64_t matrix_params = e.params.active > e.params.embedding ? e.params.active - e.params.embedding : e.params.active;
  if (pp > 0 && c.tokens > 0) {
    const double tokens_s = static_cast<double>(c.tokens) / pp;
    const double encode_s = matrix_params > 0 ? flops / (2.0 * static_cast<double>(matrix_params) * pp) : 0.0;
    j["token_prefill_seconds"] = tokens_s;
    j["encode_seconds"] = encode_s;
    j["encode_basis"] = "prefill_flop_rate";
    j["prefill_seconds"] = tokens_s + encode_s;
  }
  return j;
}

// `speed.first_token`: the time to first token of the whole prompt the request describes, the
// text prompt (`speed.ttft_ms`, `prompt` tokens after `depth`) plus the prefill the images and the
// audio add, as their own sections give it (`projector.image_prefill_seconds`,
// `audio.prefill_seconds`). `prompt` counts text tokens only: image and audio tokens are never
// part of it, so each is counted once. Every part is a count of tokens at the same prefill rate
// (the audio's encode at the FLOP rate that rate reaches), so the whole carries the prefill range
// as ttft_ms does. Media the estimate does not model for the engine or the tower (their section's
// code is not `loaded`) leave `ms` out: `code` says so and `media_codes` gives each section's code.
nlohmann::json first_token_json(const EstimateRequest& r, const Estimate& e, const nlohmann::json& out) {
  using nlohmann::json;
  const json& s = out["speed"];
  const double text_ms = s["ttft_ms"].get<double>();
  json j = {{"prompt_tokens", r.speed.prompt}, {"depth", r.speed.depth}, {"text_ms", text_ms},
            {"images", r.proj.images}, {"audio_seconds", r.proj.audio_seconds}};
  double ms = text_ms;
  std::int64_t tokens = r.speed.prompt;
  json missing = json::object();
  // One kind of media: where its section is loaded, its tokens and prefill time join the text's
  // (under `<prefix>_tokens` and `<prefix>_ms`); otherwise the section's code says why it is left out.
  auto add_media = [&](const char* kind, const char* section, const char* prefix, const char* tokens_key,
                       const char* seconds_key) {
    const json& p = out.contains(section) ? out[section] : json::object();
    if (p.value("code", "") != "loaded" || !p.contains(seconds_key)) {
      missing[kind] = p.value("code", "projector_family_unknown");
      return false;
    }
    const std::int64_t n = p[tokens_key].get<std::int64_t>();
    const double t = 1000.0 * p[seconds_key].get<double>();
    j[std::string(prefix) + "_tokens"] = n;
    j[std::string(prefix) + "_ms"] = t;
    tokens += n;
    ms += t;
    return true;
  };
  // The vision encoder's own run is not timed (projector_json says why): said, not guessed.
  if (r.proj.images > 0 && add_media("images", "projector", "image", "image_tokens", "image_prefill_seconds"))
    j["image_encode"] = "not_modelled";
  if (r.proj.audio_seconds > 0) add_media("audio", "audio", "audio", "tokens", "prefill_seconds");
  if (!missing.empty()) {
    j["code"] = "media_not_modelled";
    j["media_codes"] = missing;
    j["engine"] = r.engine;
    return j;
  }
  j["tokens"] = tokens;
  // The whole prompt after `depth` against the context the cache holds.
  const std::int64_t n_ctx = e.kv.n_ctx;
  if (n_ctx > 0) {
    j["context"] = n_ctx;
    j["exceeds_context"] = r.speed.depth + tokens > n_ctx;
  }
  j["code"] = r.proj.images > 0 || r.proj.audio_seconds > 0 ? "includes_media" : "text_only";
  j["ms"] = ms;
  const double pp = s.value("prefill_tps", 0.0), lo = s.value("prefill_tps_low", 0.0), hi = s.value("prefill_tps_high", 0.0);
  if (pp > 0 && lo > 0 && hi > 0) {
    j["ms_low"] = ms * pp / hi;
    j["ms_high"] = ms * pp / lo;
  }
  return j;
}

}  // namespace

SpeedOptions speed_options(const EstimateRequest& r) {
  SpeedOptions o = r.speed;
  o.curve_max_depth = r.kv.n_ctx > 0 ? r.kv.n_ctx : r.model.arch.n_ctx_train;  // 0 = the model's own
  return o;
}

namespace {

// The model reference's own vision projector file, when it names one: a header registered
// under mmproj_handle (gguf/handles.hpp) or its first bytes in mmproj_header_base64
// (gguf/mmproj.hpp). Its dimensions replace the config's vision tower; mmproj_path and
// mmproj_revision say where it came from.
void attach_mmproj(const nlohmann::json& ref, const std::string& path, ResolvedModel& m) {
  if (ref.contains("mmproj_handle")) {
    const std::string h = req_str(ref, "mmproj_handle", path);
    m.mmproj = find_mmproj(h);
    if (!m.mmproj)
      throw InputError("unknown_mmproj_handle", join_path(path, "mmproj_handle"),
                       "no mmproj header is registered under '" + h.substr(0, 128) + "'; register its bytes first");
  } else if (ref.contains("mmproj_header_base64")) {
    const std::string p = join_path(path, "mmproj_header_base64");
    m.mmproj = std::make_shared<const MmprojFile>(load_mmproj(gguf_bytes_or_base64(req_str(ref, "mmproj_header_base64", path), p), p));
  } else {
    return;
  }
  m.vision = m.mmproj->spec;
  m.audio = m.mmproj->audio;
  m.mmproj_path = opt_str(ref, "mmproj_path", path).value_or("");
  m.mmproj_revision = opt_str(ref, "mmproj_revision", path).value_or("");
  for (const auto& [key, v] : {std::pair<const char*, const std::string*>{"mmproj_path", &m.mmproj_path}, {"mmproj_revision", &m.mmproj_revision}})
    if (v->size() > 1024)
      throw InputError("bad_value", join_path(path, key), std::string("'") + key + "' is longer than the limit of 1024 bytes");
}

ResolvedModel resolve_model_ref(const Catalog& cat, const nlohmann::json& ref, const std::string& path);

}  // namespace

namespace {

// A separate draft model (speculative.hpp): resolved like `model`, planned at draft_quant (the
// target's format by default), and checked against the target's tokenizer as llama.cpp does
// before drafting (common/speculative.cpp common_speculative_are_compatible).
void parse_draft(const Catalog& cat, const nlohmann::json& q, EstimateRequest& r) {
  if (!q.contains("draft_model") || q["draft_model"].is_null()) {
    if (q.contains("draft_quant") && !q["draft_quant"].is_null())
      throw InputError("missing_field", "draft_model", "draft_quant needs a draft_model");
    return;
  }
  if (r.spec.mtp)
    throw InputError("bad_value", "draft_model", "choose the model's own MTP layers or a draft model, not both");
  auto d = std::make_shared<ResolvedModel>(resolve_model(cat, q["draft_model"], "draft_model"));
  const Architecture& ta = r.model.arch;
  const Architecture& da = d->arch;
  const std::int64_t diff = ta.n_vocab > da.n_vocab ? ta.n_vocab - da.n_vocab : da.n_vocab - ta.n_vocab;
  if (diff > kSpecVocabMaxSizeDifference)
    throw InputError("draft_vocab_mismatch", "draft_model",
                     "the draft's vocabulary (" + std::to_string(da.n_vocab) + " tokens) differs from the target's (" +
                         std::to_string(ta.n_vocab) + ") by more than the 128 tokens llama.cpp tolerates");
  const std::string tg = r.model.entry ? tokenizer_group(cat, r.model.id) : "";
  const std::string dg = d->entry ? tokenizer_group(cat, d->id) : "";
  if (r.model.entry && d->entry) {
    if (tg.empty() || tg != dg)
      throw InputError("draft_tokenizer_mismatch", "draft_model",
                       "'" + d->id.substr(0, 200) + "' does not share the target's tokenizer; llama.cpp refuses such a draft");
  } else {
    r.notes.push_back({"draft_tokenizer_unchecked", {{"draft", d->id}}});  // a file or config: token texts unknown
  }
  // Its format: draft_quant, else the target's when the engine runs it.
  const auto typed = opt_str(q, "draft_quant", "");
  std::string quant = typed.value_or(r.quant);
  const auto f = resolve_format(quant, r.engine);
  if (!f || !engine_accepts(r.engine, *f))
    throw InputError("unknown_quant", "draft_quant", "unknown quantization '" + quant.substr(0, 64) + "' for " + r.engine,
                     engine_formats(r.engine));
  r.draft_quant = f->id;
  if (d->entry && d->entry->raw.contains("gguf") && d->entry->raw["gguf"].is_array())  // published GGUF repos
    for (const auto& g : d->entry->raw["gguf"])
      if (g.is_object() && g.contains("repo") && g.contains("quant") && g["repo"].is_string() && g["quant"].is_string())
        d->gguf.push_back({g["repo"].get<std::string>(), g["quant"].get<std::string>()});
  r.draft = std::move(d);
  r.spec.draft = true;
  if (!q.contains("draft_max") || q["draft_max"].is_null()) r.spec.draft_max = defaults::kDraftMaxModel;
}

}  // namespace

ResolvedModel resolve_model(const Catalog& cat, const nlohmann::json& ref, const std::string& path) {
  ResolvedModel m = resolve_model_ref(cat, ref, path);
  if (ref.is_object()) attach_mmproj(ref, path, m);
  return m;
}

namespace {

ResolvedModel resolve_model_ref(const Catalog& cat, const nlohmann::json& ref, const std::string& path) {
  ResolvedModel m;
  if (ref.is_string()) {
    const ModelEntry* e = cat.find_model(ref.get<std::string>());
    if (!e)
      throw InputError("unknown_model", path,
                       "no model '" + ref.get<std::string>().substr(0, 200) + "' in the catalog; pass a catalog id or a config.json");
    m.id = e->id;
    m.name = e->name;
    m.org = e->org;
    m.license = e->license;
    m.source = e->source;
    m.params_total_b = e->params_total_b;
    m.params_active_b = e->params_active_b;
    m.arch = e->arch;
    m.entry = e;
    if (e->raw.contains("config")) {
      m.vision = vision_spec_from_config(e->raw["config"]);
      m.audio = audio_spec_from_config(e->raw["config"]);
    }
    return m;
  }
  if (!ref.is_object()) throw InputError("bad_type", path, "model must be a catalog id or an object");
  if (ref.contains("gguf_handle")) {  // a header registered once (gguf/handles.hpp), parsed then
    const std::string h = req_str(ref, "gguf_handle", path);
    const auto g = find_gguf(h);
    if (!g)
      throw InputError("unknown_gguf_handle", join_path(path, "gguf_handle"),
                       "no GGUF header is registered under '" + h.substr(0, 128) + "'; register its bytes first");
    m.arch = g->arch;
    if (opt_str(ref, "plan", path).value_or("file") != "computed")
      m.plan = std::shared_ptr<const TensorPlan>(g, &g->plan);  // shares the registered model's plan
    m.name = opt_str(ref, "name", path).value_or(g->name);
    m.id = opt_str(ref, "id", path).value_or("gguf/" + m.arch.gguf_arch);
    check_name_lengths(m, path);
    return m;
  }
  if (ref.contains("gguf_header_base64")) {  // the first bytes of a local .gguf (gguf.hpp)
    const std::string p = join_path(path, "gguf_header_base64");
    const auto bytes = gguf_bytes_or_base64(req_str(ref, "gguf_header_base64", path), p);
    // A split file (gguf-split): the other shards' first bytes, in order (gguf.hpp load_gguf_split_model).
    std::vector<std::vector<std::uint8_t>> more;
    std::vector<GgufShard> shards{{bytes.data(), bytes.size(), p}};
    if (ref.contains("gguf_shards_base64")) {
      const std::string ps = join_path(path, "gguf_shards_base64");
      const json& list = ref["gguf_shards_base64"];
      if (!list.is_array() || list.size() > 998)
        throw InputError("bad_type", ps, "gguf_shards_base64 is the list of the other shards' first bytes (base64), at most 998");
      more.reserve(list.size());
      for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string pk = ps + "[" + std::to_string(k) + "]";
        if (!list[k].is_string()) throw InputError("bad_type", pk, "each shard is base64 text");
        more.push_back(gguf_bytes_or_base64(list[k].get<std::string>(), pk));
        shards.push_back({more.back().data(), more.back().size(), pk});
      }
    }
    GgufModel g = load_gguf_split_model(shards);
    m.arch = std::move(g.arch);
    // "plan": "computed" keeps the header's architecture but plans the requested quant (a Hub
    // repo's other files, hub_repo.hpp); by default the file's own tensor types are the plan.
    if (opt_str(ref, "plan", path).value_or("file") != "computed") m.plan = std::make_shared<const TensorPlan>(std::move(g.plan));
    m.name = opt_str(ref, "name", path).value_or(g.name);
    m.id = opt_str(ref, "id", path).value_or("gguf/" + m.arch.gguf_arch);
    check_name_lengths(m, path);
    return m;
  }
  if (ref.contains("config")) {
    // A person's own config may be of a type we do not model: estimate it as a llama-style
    // decoder and say so (architecture.approximate), rather than answer nothing.
    m.arch = architecture_from_hf_config(ref["config"], join_path(path, "config"), true);
    m.vision = vision_spec_from_config(ref["config"]);
    m.audio = audio_spec_from_config(ref["config"]);
  } else if (ref.contains("model_type") || ref.contains("text_config")) {
    m.arch = architecture_from_hf_config(ref, path, true);  // a bare config.json
    m.vision = vision_spec_from_config(ref);
    m.audio = audio_spec_from_config(ref);
  } else {
    throw InputError("missing_field", join_path(path, "config"),
                     "a custom model needs its config.json under 'config'");
  }
  m.id = opt_str(ref, "id", path).value_or("custom/" + m.arch.model_type);
  m.name = opt_str(ref, "name", path).value_or(m.id);
  check_name_lengths(m, path);
  return m;
}

}  // namespace

std::shared_ptr<const TensorPlan> model_plan(const Catalog& cat, const ResolvedModel& m, const std::string& quant,
                                             const QuantOptions& opt) {
  if (m.plan) return m.plan;
  if (m.entry) return memo_plan(cat, *m.entry, quant, opt);
  return std::make_shared<const TensorPlan>(plan_quantization(m.arch, quant, opt));
}

Device resolve_device(const Catalog& cat, const nlohmann::json& ref, const std::string& path) {
  if (ref.is_string()) {
    const Device* d = cat.find_device(ref.get<std::string>());
    if (!d)
      throw InputError("unknown_hardware", path,
                       "no device '" + ref.get<std::string>().substr(0, 200) + "' in the catalog; see 'willitfit list hardware'");
    Device out = *d;
    out.engines = cat.device_engines(out);
    out.ollama = cat.device_ollama(out);
    return out;
  }
  Device d = device_from_json(ref, path);
  // A stranger's device names a backend llama.cpp has (data/backends.json ids, or a spelling
  // speed.hpp backend_class maps onto one); an unknown one would silently get no overhead row.
  auto known_backend = [&cat](const std::string& b) {
    return cat.find_backend(b) != nullptr || cat.find_backend(backend_class(b)) != nullptr;
  };
  if (!known_backend(d.backend))
    throw InputError("bad_value", join_path(path, "backend"), "unknown backend '" + d.backend.substr(0, 64) + "'");
  for (std::size_t i = 0; i < d.backends.size(); ++i)
    if (!known_backend(d.backends[i]))
      throw InputError("bad_value", join_path(path, "backends") + "[" + std::to_string(i) + "]",
                       "unknown backend '" + d.backends[i].substr(0, 64) + "'");
  if (d.name.size() > 4096) throw InputError("bad_value", join_path(path, "name"), "'name' is longer than the limit of 4096 bytes");
  d.engines = cat.device_engines(d);
  d.ollama = cat.device_ollama(d);
  return d;
}

std::string format_applicability(const Catalog& cat, const Architecture& a, const Device& d, const std::string& quant) {
  // Formats that quantize only the routed experts (llama.cpp's MXFP4_MOE, the published FP8 / BF16
  // + MXFP4-expert checkpoints) are no choice for a dense model.
  if ((quant == "MXFP4_MOE" || quant == "FP8-MXFP4-MOE" || quant == "BF16-MXFP4-MOE") && !a.is_moe()) return "moe_only_format";
  // data/quants.json `backends`: where the format's kernels run (bitsandbytes: vLLM lists it for
  // CUDA and ROCm, vllm/platforms/rocm.py supported_quantization; not for XPU, CPU or Gaudi).
  const bool cuda = d.backend == "cuda" || std::find(d.backends.begin(), d.backends.end(), "cuda") != d.backends.end();
  const double cc = d.cuda_compute_capability;  // 0 when the catalog does not state it
  double native_cc = 0;
  for (const auto& q : cat.quants()) {
    const auto id = q.find("id");
    if (id == q.end() || !id->is_string() || !text::iequals(id->get_ref<const std::string&>(), quant)) continue;
    if (q.contains("backends")) {
      const auto& bs = q["backends"];
      const auto listed = [&](const std::string& b) { return std::find(bs.begin(), bs.end(), b) != bs.end(); };
      bool any = listed(d.backend);
      for (const auto& b : d.backends) any = any || listed(b);
      if (!any) return "backend_no_kernel";
    }
    // The format's lowest compute capability in vLLM's quantization hardware table (AWQ 7.5,
    // GPTQ 7.0, FP8 through Marlin 7.5): a CUDA device known to be older has no kernel for it.
    const double lo = q.value("min_cuda_compute_capability", 0.0);
    if (cuda && cc > 0 && lo > 0 && cc + 1e-9 < lo) return "cc_no_kernel";
    native_cc = q.value("native_min_cuda_compute_capability", 0.0);
    break;  // ids are unique in quants.json, case aside (the catalog refuses a repeated one: duplicate_id)
  }
  if (quant == "FP8") {
    // FP8 W8A8 runs on FP8 tensor cores: compute capability 8.9 and newer (native_cc, quants.json),
    // and the devices whose datasheet states an FP8 rate (the catalog's fp8_tflops: Ada, Hopper,
    // Blackwell, Instinct MI300 and later). Elsewhere vLLM keeps the FP8 weights and multiplies
    // in 16-bit through its Marlin kernel on CUDA (vllm/model_executor/layers/quantization/fp8.py,
    // Fp8LinearMethod falls back to apply_fp8_marlin_linear without FP8 support); ROCm has no such
    // fallback and serves FP8 only where it has FP8 math (vllm/platforms/rocm.py supports_fp8).
    // That includes RDNA 4 (gfx12: its on_rdna4()), whose datasheets state no FP8 rate: the
    // catalog's amd_gfx_target says which parts those are.
    const double fp8 = d.facts.is_object() ? d.facts.value("fp8_tflops", 0.0) : 0.0;
    const std::string gfx = d.facts.is_object() ? d.facts.value("amd_gfx_target", "") : "";
    const bool rocm = d.backend == "rocm" || std::find(d.backends.begin(), d.backends.end(), "rocm") != d.backends.end();
    if ((cc > 0 && native_cc > 0 && cc + 1e-9 >= native_cc) || fp8 > 0 || d.overhead_backend == "cuda-blackwell" ||
        (rocm && gfx.rfind("gfx12", 0) == 0)) return "";
    return cuda ? "fp8_weight_only" : "fp8_no_kernel";
  }
  if (quant == "NVFP4") {
    // Blackwell parts carry the cuda-blackwell overhead class (data/hardware). The Marlin
    // fallback needs compute capability 7.5 (Turing, first shipped 2018-09) or newer; where the
    // catalog gives no capability, an older launch date stands for it.
    if (d.overhead_backend == "cuda-blackwell" || cc >= 10.0) return "";
    const std::string launched = d.facts.is_object() ? d.facts.value("launch_date", "") : "";
    if (!cuda || (cc > 0 && cc < 7.5) || (cc <= 0 && !launched.empty() && launched < "2018-09")) return "fp4_no_kernel";
    return "fp4_weight_only";
  }
  return "";
}

bool format_has_no_kernel(const std::string& code) {
  return code == "fp4_no_kernel" || code == "backend_no_kernel" || code == "cc_no_kernel" || code == "fp8_no_kernel";
}

bool room_to_spare(std::uint64_t high_bytes, std::uint64_t usable_low_bytes) {
  return static_cast<double>(high_bytes) <= kRoomToSpareShare * static_cast<double>(usable_low_bytes);
}

const char* memory_verdict(std::uint64_t total_bytes, std::uint64_t high_bytes, std::uint64_t usable_bytes,
                           std::uint64_t usable_low_bytes) {
  if (total_bytes > usable_bytes) return "no_fit";
  return room_to_spare(high_bytes, usable_low_bytes) ? "fits" : "tight";
}

const std::vector<std::string>& estimate_request_fields() {
  // Kept beside parse_request and parse_serving / parse_draft (engine_fit.cpp, above): a field
  // read there and missing here is refused by the API as unknown, which the tests catch.
  static const std::vector<std::string> fields = {
      "model", "engine", "quant", "hardware", "count", "context", "parallel", "kv_unified", "ubatch",
      "flash_attn", "swa_full", "kv_type", "kv_type_k", "kv_type_v", "rules", "imatrix", "mla_v_less",
      "ram_gib", "wired_limit_mib", "gpu_share", "display", "ngl", "n_cpu_moe", "tensor_split", "mmap",
      "tensor_parallel", "concurrency", "mem_fraction_static", "gpu_memory_utilization", "max_num_seqs",
      "max_num_batched_tokens", "kv_cache_dtype", "block_size", "enforce_eager", "kv_bits", "kv_group_size",
      "mtp", "draft_max", "workload", "draft_model", "draft_quant", "images", "image_width", "image_height", "audio_seconds",
      "mmproj_offload", "mmproj_type", "mmproj_bytes", "prompt", "gen", "depth", "backend",
      "ram_bandwidth_gbs", "pcie_gbs", "detail"};
  return fields;
}

EstimateRequest parse_request(const Catalog& cat, const nlohmann::json& q) {
  if (!q.is_object()) throw InputError("bad_type", "", "the request must be a JSON object");
  EstimateRequest r;
  if (!q.contains("model") || q["model"].is_null()) throw InputError("missing_field", "model", "'model' is required");
  r.model = resolve_model(cat, q["model"], "model");
  namespace d = defaults;
  r.engine = opt_str(q, "engine", "").value_or(d::kEngine);
  if (!find_engine_step(r.engine)) {
    const std::vector<std::string> ids = engine_step_ids();
    std::string words;
    for (std::size_t i = 0; i < ids.size(); ++i) words += (i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ") + ids[i];
    throw InputError("bad_value", "engine", "engine must be " + words, ids);
  }
  resolve_quant(q, r);
  if (!q.contains("hardware") || q["hardware"].is_null()) throw InputError("missing_field", "hardware", "'hardware' is required");
  const bool hw_list = q["hardware"].is_array() && !q["hardware"].empty();
  r.device = resolve_device(cat, hw_list ? q["hardware"][0] : q["hardware"], hw_list ? "hardware[0]" : "hardware");
  r.count = static_cast<int>(opt_int(q, "count", "", 1, 64).value_or(d::kCount));
  r.kv.n_ctx = opt_int(q, "context", "", 0, 100000000).value_or(d::kContext);  // the one context
  r.context_given = q.contains("context") && !q["context"].is_null();
  if (r.kv.n_ctx == 0 && r.model.arch.n_ctx_train <= 0)
    throw InputError("bad_value", "context", "this model does not state its maximum context; give one");
  r.kv.n_seq = opt_int(q, "parallel", "", 1, 4096).value_or(d::kParallel);
  r.kv.unified = opt_bool(q, "kv_unified", "").value_or(d::kKvUnified);
  r.kv.n_ubatch = opt_int(q, "ubatch", "", 1, 65536).value_or(d::kUbatch);
  r.kv.flash_attn = opt_bool(q, "flash_attn", "").value_or(d::kFlashAttn);
  r.kv.swa_full = opt_bool(q, "swa_full", "").value_or(d::kSwaFull);
  const std::string kvt = opt_str(q, "kv_type", "").value_or(d::kKvType);
  r.kv.type_k = kv_type(opt_str(q, "kv_type_k", "").value_or(kvt), q.contains("kv_type_k") ? "kv_type_k" : "kv_type");
  r.kv.type_v = kv_type(opt_str(q, "kv_type_v", "").value_or(kvt), q.contains("kv_type_v") ? "kv_type_v" : "kv_type");
  if (!r.kv.flash_attn && !(r.kv.type_v == GgmlType::F16 || r.kv.type_v == GgmlType::F32 || r.kv.type_v == GgmlType::BF16))
    throw InputError("bad_value", q.contains("kv_type_v") ? "kv_type_v" : "kv_type",
                     "llama.cpp needs flash attention for a quantized V cache (-fa on)");
  const std::string rules = opt_str(q, "rules", "").value_or(d::kRules);
  if (rules == "2026") r.qopt.rules = QuantRules::Y2026;
  else if (rules != "2025-12") throw InputError("bad_value", "rules", "rules must be 2025-12 or 2026", {"2025-12", "2026"});
  r.qopt.imatrix = opt_bool(q, "imatrix", "").value_or(d::kImatrix);
  r.kv.mla_v_less = opt_bool(q, "mla_v_less", "").value_or(d::kMlaVLess);
  // Their sparse-MLA kernels (kv_cache.hpp); mlx-lm's DeepSeek V3.2 decode step takes the top-k
  // latent rows with take_along_axis before attending (mlx_lm/models/deepseek_v32.py, L == 1).
  r.kv.dsa_gather = r.engine == "vllm" || r.engine == "sglang" || r.engine == "mlx";
  r.ram_gib = opt_num(q, "ram_gib", "", 0, 1e6).value_or(d::kRamGib);
  if (r.device.kind == DeviceKind::Cpu && r.ram_gib > 0) r.device.memory_gib = r.ram_gib;
  if (auto w = opt_num(q, "wired_limit_mib", "", 0, 1e9)) r.overrides.wired_limit_mib = *w;
  if (auto g = opt_num(q, "gpu_share", "", 0.05, 1.0)) r.overrides.gpu_share = *g;
  r.overrides.display_attached = opt_bool(q, "display", "").value_or(d::kDisplay);
  parse_serving(cat, q, r);
  if (r.engine == "mlx") {
    // mlx-lm runs on Apple GPUs (data/engines.json; its CUDA build is not modelled here) and,
    // in this estimate, on one of them.
    if (std::find(r.device.engines.begin(), r.device.engines.end(), "mlx") == r.device.engines.end())
      throw InputError("engine_not_supported", "engine",
                       "MLX is estimated on Apple silicon only; '" + r.device.name.substr(0, 200) + "' runs llama.cpp, vLLM or SGLang",
                       {"llama.cpp", "vllm", "sglang"});
    if (r.count > 1) throw InputError("bad_value", q.contains("count") ? "count" : "hardware", "MLX is estimated on one device");
    const auto bits = opt_int(q, "kv_bits", "", 0, 8).value_or(0);
    if (bits == 1) throw InputError("bad_value", "kv_bits", "kv_bits is 0 (a 16-bit cache) or 2 to 8", {"0", "2", "3", "4", "5", "6", "8"});
    if (bits == 7) throw InputError("bad_value", "kv_bits", "kv_bits is 0 (a 16-bit cache) or 2 to 8", {"0", "2", "3", "4", "5", "6", "8"});
    // mlx_lm/models/cache.py: RotatingKVCache.to_quantized raises ("RotatingKVCache Quantization
    // NYI"), and generate.py's maybe_quantize_kv_cache calls it on every layer cache that has it:
    // --kv-bits fails on a model with sliding-window layers. A code of its own: a cache choice
    // that is valid for another model (a link or saved state may carry it to this one).
    if (bits > 0 && std::any_of(r.model.arch.layers.begin(), r.model.arch.layers.end(),
                                [](const LayerSpec& l) { return l.attn == AttnKind::Sliding && !l.is_mtp; }))
      throw InputError("kv_not_quantizable", "kv_bits",
                       "mlx-lm cannot quantize the cache of a sliding-window layer (RotatingKVCache); use kv_bits 0", {"0"});
    r.mlx.kv_bits = static_cast<int>(bits);
    const auto group = opt_int(q, "kv_group_size", "", 32, 128).value_or(64);
    if (group != 32 && group != 64 && group != 128)
      throw InputError("bad_value", "kv_group_size", "kv_group_size is 32, 64 or 128", {"32", "64", "128"});
    r.mlx.kv_group = static_cast<int>(group);
  }
  // Speculative decoding with the model's own MTP / NextN layers (speculative.hpp).
  r.spec.mtp = opt_bool(q, "mtp", "").value_or(d::kMtp);
  r.spec.draft_max = static_cast<int>(opt_int(q, "draft_max", "", 1, 16).value_or(d::kDraftMax));
  r.spec.workload = opt_str(q, "workload", "").value_or(d::kWorkload);
  if (r.spec.workload != "code" && r.spec.workload != "prose")
    throw InputError("bad_value", "workload", "workload must be code or prose", {"code", "prose"});
  if (r.spec.mtp && r.model.arch.n_layer_all() == r.model.arch.n_layer_main())
    throw InputError("no_mtp_layers", "mtp", "this model (or this file) holds no MTP / NextN layers to draft with");
  r.vllm.load_mtp = r.sglang.load_mtp = r.spec.mtp;
  parse_draft(cat, q, r);
  if (r.spec.mtp) {  // mlx-lm drafts with none; llama.cpp with the architectures the catalog lists
    const std::vector<std::string> drafting = mtp_draft_engines(cat, r.model.arch);
    if (std::find(drafting.begin(), drafting.end(), r.engine) == drafting.end())
      throw InputError("mtp_not_drafted", "mtp", r.engine + " keeps this model's MTP layers in the file but does not draft with them",
                       drafting);
  }
  // DeepSeek V4 under mlx-lm keeps its window in a RotatingKVCache and its pools in a
  // DeepseekV4Cache (mlx_lm/models/deepseek_v4.py make_cache; sized by mlx_kv_cache):
  // RotatingKVCache.to_quantized raises and DeepseekV4Cache has none, so no kv_bits applies.
  if (r.engine == "mlx" && r.mlx.kv_bits > 0 &&
      std::any_of(r.model.arch.layers.begin(), r.model.arch.layers.end(),
                  [](const LayerSpec& l) { return l.attn == AttnKind::Compressed; }))
    throw InputError("kv_not_quantizable", "kv_bits",
                     "mlx-lm cannot quantize this model's caches (a rotating window and compressed pools); kv_bits does not apply",
                     {"0"});
  // MLA layers under mlx-lm hold what the model's own file caches (mlx_mla_layout: the latent, the
  // latent beside DeepSeek V3.2's and GLM-5's indexer keys in a CacheList, or every head's keys and
  // values). A model_type whose file is not stated is refused rather than given the latent, and a
  // quantized cache is refused where mlx-lm's attention fails on one (the absorbed deepseek_v3.py,
  // glm4_moe_lite.py and kimi_k3.py) or cannot convert it (CacheList has no to_quantized): the same
  // code as the sliding-window case, the cache choice being valid for other models.
  if (r.engine == "mlx") {
    const MlxMlaLayout lay = mlx_mla_layout(r.model.arch);
    if (lay.cache == MlxMlaCache::Unknown)
      throw InputError("engine_cache_not_modelled", "engine",
                       "what mlx-lm caches on the MLA layers of model_type '" + r.model.arch.model_type.substr(0, 100) +
                           "' is not stated here; choose llama.cpp",
                       {"llama.cpp"});
    if (r.mlx.kv_bits > 0 && !lay.quantizable)
      throw InputError("kv_not_quantizable", "kv_bits",
                       "mlx-lm's attention for this model's MLA layers cannot use a quantized cache; kv_bits does not apply", {"0"});
  }
  // QuantizedKVCache quantizes the keys and the values of a layer with mx.quantize, which needs
  // each row's width to be a multiple of the group (mlx/ops.cpp quantize: "The last dimension of
  // the matrix needs to be divisible by the quantization group size"): a 192-wide decompressed MLA
  // key (Kimi Linear, mlx_mla_layout PerHead) cannot take groups of 128, a 80-wide head cannot take
  // 64. Refused rather than sized.
  if (r.engine == "mlx" && r.mlx.kv_bits > 0 && !mlx_kv_group_divides(r.model.arch, r.mlx.kv_group)) {
    std::vector<std::string> ok;
    for (const int g : {32, 64, 128})
      if (mlx_kv_group_divides(r.model.arch, g)) ok.push_back(std::to_string(g));
    throw InputError("bad_value", "kv_group_size",
                     "mlx-lm quantizes each cached row in groups of kv_group_size, and this model has a row width that is "
                     "not a multiple of " + std::to_string(r.mlx.kv_group),
                     ok);
  }
  // mlx-lm has a --draft-model of its own, but the MLX estimate plans no draft checkpoint (its
  // weights would be booked as zero): refused rather than counted wrong.
  if (r.draft && r.engine == "mlx")
    throw InputError("bad_value", "draft_model", "the MLX estimate does not model a draft model; choose llama.cpp, vLLM or SGLang for one");
  // Images per prompt and the vision projector (projector.hpp).
  r.proj.images = static_cast<int>(opt_int(q, "images", "", 0, 64).value_or(d::kImages));
  r.proj.width = opt_int(q, "image_width", "", 1, 16384).value_or(d::kImageWidth);
  r.proj.height = opt_int(q, "image_height", "", 1, 16384).value_or(d::kImageHeight);
  r.proj.offload = opt_bool(q, "mmproj_offload", "").value_or(d::kMmprojOffload);
  const std::string mt = text::lower(opt_str(q, "mmproj_type", "").value_or(d::kMmprojType));
  if (mt == "f16") r.proj.type = GgmlType::F16;
  else if (mt == "bf16") r.proj.type = GgmlType::BF16;
  else if (mt == "f32") r.proj.type = GgmlType::F32;
  else if (mt == "q8_0") r.proj.type = GgmlType::Q8_0;
  else throw InputError("bad_value", "mmproj_type", "mmproj_type must be f16, bf16, f32 or q8_0", {"f16", "bf16", "f32", "q8_0"});
  r.proj.published_bytes = static_cast<std::uint64_t>(opt_int(q, "mmproj_bytes", "", 1, 1000000000000ll).value_or(0));
  if (r.model.mmproj) {  // the projector's own file: its type and its tensors' bytes, exactly
    r.proj.type = r.model.mmproj->plan.type;
    r.proj.published_bytes = 0;
  }
  if (r.proj.images > 0 && !r.model.vision.present)
    throw InputError("no_projector", "images", "this model has no vision tower (its config has no vision_config); it reads text only");
  // Seconds of audio per prompt (audio.hpp): up to 4 hours, past any model's context.
  r.proj.audio_seconds = opt_num(q, "audio_seconds", "", 0, d::kMaxAudioSeconds).value_or(d::kAudioSeconds);
  if (r.proj.audio_seconds > 0 && !r.model.audio.present)
    throw InputError("no_audio_tower", "audio_seconds", "this model has no audio tower (its config has no audio_config); it does not take audio");
  r.speed.prompt = opt_int(q, "prompt", "", 1, 10000000).value_or(d::kPrompt);
  r.speed.gen = opt_int(q, "gen", "", 1, 10000000).value_or(d::kGen);
  r.speed.depth = opt_int(q, "depth", "", 0, 100000000).value_or(d::kDepth);
  {
    // A prompt (after `depth` tokens already in the cache) that the context cannot hold: the
    // speeds are still the benchmark's (llama-bench sizes its own context), but a server started
    // with this context would refuse the prompt, so the result says so.
    const std::int64_t ctx = r.kv.n_ctx > 0 ? r.kv.n_ctx : r.model.arch.n_ctx_train;
    if (q.contains("prompt") && ctx > 0 && r.speed.prompt + r.speed.depth > ctx)
      r.notes.push_back({"prompt_beyond_context", {{"prompt", r.speed.prompt}, {"depth", r.speed.depth}, {"context", ctx}}});
  }
  r.speed.n_ubatch = r.kv.n_ubatch;
  r.speed.backend = opt_str(q, "backend", "").value_or("");
  // The system RAM's bandwidth for what an offload plan keeps there: the person's figure, else the
  // memory the device ships with on its CPU side (a Grace CPU's LPDDR5X, data/SCHEMA.md
  // `host_memory`), else a dual-channel DDR5 desktop's.
  if (const auto bw = opt_num(q, "ram_bandwidth_gbs", "", 1, 100000)) {
    r.host_link.ram_bandwidth_gbs = *bw;
    r.host_link.ram_bandwidth_from = "request";
  }
  device_ram_bandwidth(r.host_link, r.device, d::kRamBandwidthGbs);
  r.host_link.pcie_gbs = opt_num(q, "pcie_gbs", "", 0.1, 10000).value_or(d::kPcieGbs);
  // A listing (every quant, every device) needs memory, verdict and speed, not the launch
  // commands, per-device loads, layer map, speed terms or decode curve: about a third of the
  // work and a fifth of the bytes of a full document.
  const std::string detail = opt_str(q, "detail", "").value_or(d::kDetail);
  if (detail != "full" && detail != "summary")
    throw InputError("bad_value", "detail", "detail must be full or summary", {"full", "summary"});
  r.summary = detail == "summary";
  r.speed.curve = !r.summary;
  if (!r.summary && r.model.entry && r.engine != "mlx")  // what the page offers as draft models (speculative.hpp)
    for (const auto& id : draft_candidates(cat, r.model.id)) {
      const ModelEntry* m = cat.find_model(id);
      r.draft_candidates.emplace_back(id, m ? m->name : id);
    }
  check_memory_scale(r.model.arch, r.kv);  // before any figure is multiplied out (llamacpp/kv_cache.hpp)
  return r;
}

namespace {
// Speculative decoding (the model's MTP layers or a draft model) changes how fast a person gets
// tokens, so the headline decode is the speculative figure for the request's workload (code or
// prose, default prose), the same range the "speculative" block gives for that workload
// (speculative_json: plain low x speedup at the low acceptance, plain high x at the high one,
// the plain figure x their mean). Every figure read from the decode rate -- the generation
// average, the curve over depth, the total time, the cost per token -- then moves with it. The
// plain figures stay in speed.decode_speculative, beside the workload and speedups used.
void apply_speculative_speed(const EstimateRequest& r, Estimate& e) {
  SpeedResult& s = e.speed;
  if (!r.spec.on() || s.decode_tps <= 0 || s.decode_tps_low <= 0 || s.decode_tps_high <= 0) return;
  const SpeculativeParams& sp = e.spec_params;
  const bool code = r.spec.workload == "code";
  const double plo = r.spec.draft ? (code ? sp.draft_code_low : sp.draft_prose_low) : (code ? sp.code_low : sp.prose_low);
  const double phi = r.spec.draft ? (code ? sp.draft_code_high : sp.draft_prose_high) : (code ? sp.code_high : sp.prose_high);
  const int k = r.spec.draft_max > 0 ? r.spec.draft_max : 1;
  // The same backend and engine as the "speculative" block (Metal's small-batch overhead, vLLM's
  // draft pass; speculative.hpp).
  const std::string& be = r.device.backend;
  const double slo = speculative_speedup(plo, k, e.spec_costs, sp, be, r.engine);
  const double shi = speculative_speedup(phi, k, e.spec_costs, sp, be, r.engine);
  const double mid = 0.5 * (slo + shi);
  if (!(slo > 0) || !(shi > 0)) return;
  nlohmann::json plain = {{"kind", r.spec.kind()}, {"workload", r.spec.workload}, {"draft_max", k},
                          {"plain_decode_tps", s.decode_tps}, {"plain_decode_tps_low", s.decode_tps_low},
                          {"plain_decode_tps_high", s.decode_tps_high}, {"plain_gen_avg_tps", s.gen_avg_tps},
                          {"speedup_low", slo}, {"speedup_high", shi}, {"speedup", mid}};
  if (s.prefill_available && s.total_ms > s.ttft_ms) {
    plain["plain_total_ms"] = s.total_ms;
    s.total_ms = s.ttft_ms + (s.total_ms - s.ttft_ms) / mid;
  }
  s.decode_tps *= mid;
  s.decode_tps_low *= slo;
  s.decode_tps_high *= shi;
  s.gen_avg_tps *= mid;
  for (double& v : s.curve_tps) v *= mid;
  if (!s.basis.is_object()) s.basis = nlohmann::json::object();
  s.basis["decode_speculative"] = plain;
}

// A device figure public sources do not settle (the catalog entry's `uncertain`, with the low and
// high figures the sources give) widens the range of the speeds that rest on it: decode streams the
// weights, so its range scales with the bandwidth's low and high; prefill is matrix work, so its
// range scales with the FP16 rate's. The central figure stays the listed one. Only ever wider: a
// low above the listed figure or a high below it changes nothing. The basis says which figure
// widened which range and by how much, for the page to say so.
void widen_for_uncertain_device(const EstimateRequest& r, Estimate& e) {
  SpeedResult& s = e.speed;
  const nlohmann::json& facts = r.device.facts;
  if (s.decode_tps <= 0 || !facts.is_object() || !facts.contains("uncertain") || !facts["uncertain"].is_object()) return;
  const nlohmann::json& u = facts["uncertain"];
  // {low factor, high factor} of one field: its low and high over the listed figure, else {1, 1}.
  auto factors = [&](const char* field, double listed) -> std::pair<double, double> {
    if (!(listed > 0) || !u.contains(field) || !u[field].is_object()) return {1.0, 1.0};
    const nlohmann::json& f = u[field];
    const double lo = f.contains("low") && f["low"].is_number() ? f["low"].get<double>() : listed;
    const double hi = f.contains("high") && f["high"].is_number() ? f["high"].get<double>() : listed;
    if (!(lo > 0) || !(hi > 0)) return {1.0, 1.0};
    return {std::min(1.0, lo / listed), std::max(1.0, hi / listed)};
  };
  nlohmann::json widened = nlohmann::json::array();
  const auto [blo, bhi] = factors("bandwidth_gbs", r.device.bandwidth_gbs);
  if (blo < 1.0 || bhi > 1.0) {
    s.decode_tps_low *= blo;
    s.decode_tps_high *= bhi;
    widened.push_back({{"field", "bandwidth_gbs"}, {"range", "decode"}, {"low_factor", blo}, {"high_factor", bhi}});
  }
  const auto [flo, fhi] = factors("fp16_tflops", r.device.fp16_tflops);
  if (s.prefill_available && s.prefill_tps > 0 && (flo < 1.0 || fhi > 1.0)) {
    s.prefill_tps_low *= flo;
    s.prefill_tps_high *= fhi;
    widened.push_back({{"field", "fp16_tflops"}, {"range", "prefill"}, {"low_factor", flo}, {"high_factor", fhi}});
  }
  if (widened.empty()) return;
  if (!s.basis.is_object()) s.basis = nlohmann::json::object();
  s.basis["device_uncertain"] = widened;
}

// The plain (no speculation) decode figures, whichever way the headline was set.
struct PlainDecode { double tps, low, high; };
PlainDecode plain_decode(const SpeedResult& s) {
  if (s.basis.is_object() && s.basis.contains("decode_speculative")) {
    const auto& p = s.basis["decode_speculative"];
    return {p.value("plain_decode_tps", 0.0), p.value("plain_decode_tps_low", 0.0), p.value("plain_decode_tps_high", 0.0)};
  }
  return {s.decode_tps, s.decode_tps_low, s.decode_tps_high};
}
}  // namespace

Estimate run_estimate(const Catalog& cat, const EstimateRequest& r) {
  return run_estimate(cat, r, EstimateContext{});
}

Estimate run_estimate(const Catalog& cat, const EstimateRequest& r, const EstimateContext& ctx) {
  Estimate e;
  const Architecture& a = r.model.arch;
  // A catalog model's plan and parameter count depend on model x quant only: made once (catalog_memo.hpp).
  e.plan = model_plan(cat, r.model, r.quant, r.qopt);
  e.params = r.model.entry ? memo_params(cat, *r.model.entry) : count_params(a);
  if (e.plan->from_file) {  // a real file: count what it holds
    e.params.total = 0;
    for (const auto& t : e.plan->tensors) e.params.total += t.n_elements();
  }
  e.quality = quality_json(cat, e.plan->quant);
  e.mtp_draft_engines = mtp_draft_engines(cat, a);
  e.applicability = format_applicability(cat, a, r.device, e.plan->quant);
  if (e.applicability == "cc_no_kernel")
    for (const auto& q : cat.quants())
      if (q.value("id", std::string()) == e.plan->quant) e.applicability_min_cc = q.value("min_cuda_compute_capability", 0.0);
  e.kv = llamacpp_kv_cache(a, r.kv);
  e.compute = llamacpp_compute_buffer(a, e.kv, r.kv.n_ubatch, r.kv.flash_attn, r.kv.n_seq);

  if (r.spec.mtp) {
    e.spec_costs = mtp_costs(a, *e.plan);
    e.spec_params = memo_speculative_params(cat);
    e.spec_basis = memo_speculative_basis(cat).value("by_kind", nlohmann::json::object()).value(r.spec.kind(), nlohmann::json::object());
  }
  if (r.draft) {
    // The draft's own context of the same size, its cache at llama.cpp's draft default (F16).
    e.draft_plan = model_plan(cat, *r.draft, r.draft_quant, r.qopt);
    KvOptions dk = r.kv;
    dk.n_ctx = e.kv.n_ctx;
    dk.type_k = dk.type_v = *ggml_type_from_name(defaults::kDraftKvType);
    e.draft_kv = llamacpp_kv_cache(r.draft->arch, dk);
    e.draft_compute = llamacpp_compute_buffer(r.draft->arch, e.draft_kv, r.kv.n_ubatch, r.kv.flash_attn, r.kv.n_seq);
    e.spec_costs = draft_costs(a, *e.plan, r.draft->arch, *e.draft_plan);
    e.spec_params = memo_speculative_params(cat);
    e.spec_basis = memo_speculative_basis(cat).value("by_kind", nlohmann::json::object()).value(r.spec.kind(), nlohmann::json::object());
  }
  // One mmproj file holds every tower the model has (Qwen2.5-Omni's both): loaded for images or
  // for audio, it brings all of them.
  const bool mm_input = r.proj.images > 0 || r.proj.audio_seconds > 0;
  if (!r.model.vision.family.empty() && (mm_input || !r.summary)) {
    const VisionSpec& v = r.model.vision;
    e.proj_plan = r.model.mmproj ? r.model.mmproj->plan : projector_plan(v, r.proj.type);
    e.proj_image = image_cost(v, r.proj.width, r.proj.height);
    e.proj_compute_bytes = projector_compute_bytes(v, e.proj_image, r.kv.flash_attn);
    e.proj_bytes = r.proj.published_bytes > 0 ? r.proj.published_bytes : e.proj_plan.bytes;
    e.proj_loaded = r.proj.images > 0 && r.engine == "llama.cpp";
  }
  // The audio tower of the same file (audio.hpp): its weights join the file's, its buffer (one
  // 30 s window) joins the vision one (libmtmd warms up both towers of a file that has both).
  if (!r.model.audio.family.empty() && (mm_input || !r.summary)) {
    const AudioSpec& au = r.model.audio;
    const bool vision_counted = !e.proj_plan.tensors.empty();
    if (r.model.mmproj) {
      e.audio_bytes = r.model.mmproj->audio_bytes;
      e.audio_params = r.model.mmproj->audio_params;
      if (!vision_counted) e.proj_bytes = r.model.mmproj->plan.bytes;  // the whole file
    } else {
      e.audio_plan = audio_projector_plan(au, r.proj.type);
      e.audio_bytes = e.audio_plan.bytes;
      e.audio_params = e.audio_plan.params;
      if (r.proj.published_bytes > 0) e.proj_bytes = r.proj.published_bytes;  // the file as listed
      else e.proj_bytes += e.audio_bytes;
    }
    e.audio_cost = audio_cost(au, r.proj.audio_seconds);
    e.audio_compute_bytes = audio_compute_bytes(au, r.kv.flash_attn);
    e.proj_compute_bytes += e.audio_compute_bytes;
    e.proj_loaded = e.proj_loaded || (r.proj.audio_seconds > 0 && r.engine == "llama.cpp");
  }
  // Weights, KV and compute per device, overhead and verdict: "placement with one device" or
  // several (engine_fit.cpp).
  place_estimate(cat, r, e);
  // Speed for the placement that was chosen: one device, several GPUs, or GPU + system RAM.
  const SpeedCoefficients& coef = ctx.coefficients ? *ctx.coefficients : memo_speed_coefficients(cat);
  nlohmann::json not_run;
  if (r.engine == "mlx") {
    // mlx-lm's own speed (speed/mlx_speed.hpp): calibrated on public mlx-lm runs.
    if (ctx.speed && r.device.bandwidth_gbs > 0 && e.verdict != "no_fit")
      e.speed = mlx_speed(memo_mlx_speed(cat), coef, a, *e.plan, r.device, r.kv, r.mlx.kv_bits, r.mlx.kv_group,
                          speed_options(r), r.model.id);
  } else if (ctx.speed && !llamacpp_runs_on(coef, r.device, &not_run)) {
    // No llama.cpp backend for this device (data/engines.json): a server engine that runs there
    // gets the speed model on the device's own figures; llama.cpp says why it has none.
    if (server_engine(r.engine)) server_speed_from_device_figures(cat, r, e, coef, speed_options(r));
    else e.speed.unavailable = not_run;
  } else if (ctx.speed && r.device.bandwidth_gbs > 0 && e.verdict != "no_fit") {
    e.speed = placed_speed(a, *e.plan, e.placement, r.devices, speed_kv_options(r, e), speed_options(r), coef, r.host_link);
    attach_speed_basis(e.speed, coef, r.model.id, e.plan->quant, r.device, r.count, a.is_moe());
    server_decode_speed(cat, r, e, coef);  // vLLM / SGLang across GPUs: tensor parallel, not a layer split
  }
  // The batched figures never promise a user more than the one-user estimate beside them
  // (at the same depth: the average over the generation).
  if (e.throughput && e.speed.decode_tps > 0 && e.speed.group != "tensor_parallel")
    cap_at_single_user(*e.throughput, e.speed.gen_avg_tps > 0 ? e.speed.gen_avg_tps : e.speed.decode_tps);
  widen_for_uncertain_device(r, e);  // before speculation, which scales the widened plain range
  apply_speculative_speed(r, e);
  return e;
}

namespace {

// estimate_to_json's sections, each a function of its own ([[gnu::noinline]]; in the wasm build
// the link's one-caller inlining limit keeps them apart too, wasm/CMakeLists.txt): a browser
// compiles a function that runs often a second time with its optimizing compiler, in a time that
// grows faster than the function's size. As one 73 KB function (wasm, -Os), estimate_to_json took
// 1.2 s of V8's optimizing compiler (Chromium 156) in every load of the page.

/// memory.kv: the cache by groups, what grows with the context and what does not.
[[gnu::noinline]] nlohmann::json kv_json(const EstimateRequest& r, const Estimate& e) {
  using nlohmann::json;
  json kv_groups = json::array();
  for (const auto& g : e.kv.groups)
    kv_groups.push_back({{"kind", g.kind}, {"layers", g.layers}, {"cells", g.cells},
                         {"bytes_per_token", g.bytes_per_token}, {"bytes", g.bytes}});
  // The cache in two parts, so a "per 1K tokens" figure times the context gives the total: what
  // grows with every token of context (groups that keep every cell) and what stays the same at
  // this context (a sliding or chunked window shorter than the context, a recurrent state; in
  // llama.cpp's llama-kv-cache-iswa.cpp the SWA cache is sized to the window, not n_ctx).
  // DeepSeek V4's compressed caches hold ceil(ctx / ratio) cells: fewer than the context, yet they
  // grow with it, at the rate the cache reports for them (bytes_per_token_full less the full and
  // MLA groups' own per-token bytes), so they count as growing, never as a fixed part.
  std::uint64_t kv_growing_per_token = 0, kv_fixed = 0, kv_full_mla_per_token = 0;
  bool kv_compressed = false;
  json kv_fixed_kinds = json::array();
  for (const auto& g : e.kv.groups) {
    if (g.kind == "compressed") {
      kv_compressed = true;
      continue;
    }
    const bool fixed = g.kind == "recurrent" || g.cells < e.kv.n_ctx;
    if (!fixed) {
      kv_growing_per_token += g.bytes_per_token;
      if (g.kind == "full" || g.kind == "mla") kv_full_mla_per_token += g.bytes_per_token;
      continue;
    }
    kv_fixed += g.bytes;
    if (std::find(kv_fixed_kinds.begin(), kv_fixed_kinds.end(), g.kind) == kv_fixed_kinds.end()) kv_fixed_kinds.push_back(g.kind);
  }
  if (kv_compressed) {
    if (e.kv.bytes_per_token_full > kv_full_mla_per_token)
      kv_growing_per_token += e.kv.bytes_per_token_full - kv_full_mla_per_token;
    // Their cells are padded to 256 past ceil(ctx / ratio): that padding does not grow token by
    // token either, so the fixed part is what the growing rate leaves of the total (they add up).
    const std::uint64_t grown = kv_growing_per_token * static_cast<std::uint64_t>(e.kv.n_ctx);
    kv_fixed = e.kv.total_bytes > grown ? e.kv.total_bytes - grown : 0;
  }
  return {{"groups", kv_groups}, {"bytes_per_token", e.kv.bytes_per_token_full},
                          {"bytes_per_token_covers", kv_fixed_kinds.empty() ? "all_layers" : "growing_layers"},
                          {"cache_type", r.kv.type_k == r.kv.type_v ? cache_type_flag(r.kv.type_k)
                                                                    : cache_type_flag(r.kv.type_k) + "/" + cache_type_flag(r.kv.type_v)},
                          {"growing_bytes_per_token", kv_growing_per_token},
                          {"growing_bytes_per_1k", kv_growing_per_token * 1024}, {"fixed_bytes", kv_fixed},
                          {"fixed_kinds", kv_fixed_kinds}, {"cells", e.kv.n_ctx}};
}

/// model: who it is, its counts and its shape.
[[gnu::noinline]] nlohmann::json model_json(const EstimateRequest& r, const Estimate& e) {
  using nlohmann::json;
  // Shape facts for the page's spec card, from the first attention layer that has heads.
  const Architecture& a = r.model.arch;
  // KV heads and head width come from the first layer that keeps a cache: a hybrid's Mamba or
  // delta-net layers have none, and printing their 0 would read as a value. Unknown is null.
  auto known = [](std::int64_t v) { return v > 0 ? json(v) : json(nullptr); };
  LayerSpec first, cached;
  bool have_first = false, have_cached = false;
  for (const auto& l : a.layers) {
    if (!have_first && l.n_head > 0) { first = l; have_first = true; }
    if (!have_cached && l.has_kv && l.n_head_kv > 0 && l.attn != AttnKind::Linear && l.attn != AttnKind::None) {
      cached = l;
      have_cached = true;
    }
  }
  json shape = {{"hidden_size", a.n_embd}, {"vocab_size", a.n_vocab}, {"n_head", known(first.n_head)},
                {"n_head_kv", known(cached.n_head_kv)}, {"head_dim", known(have_cached ? cached.head_dim_k : first.head_dim_k)},
                {"n_expert", a.moe.n_expert}, {"n_expert_used", a.moe.n_expert_used},
                {"mla_kv_lora_rank", a.mla.kv_lora_rank}};
  return {{"id", r.model.id}, {"name", r.model.name}, {"org", r.model.org},
                 {"model_type", r.model.arch.model_type}, {"topology", r.model.arch.topology()}, {"topology_code", r.model.arch.topology_code()},
                 {"layers", r.model.arch.n_layer_main()}, {"params_total", e.params.total},
                 {"params_active", e.params.active},
                 {"params_total_published_b", r.model.params_total_b > 0 ? json(r.model.params_total_b) : json(nullptr)},
                 // A published active count only where the publisher gives one apart from the total (a
                 // dense entry's active equals its total by the catalog's convention; Gemma 3n's 6.9B
                 // total is not an active figure beside our 4.5B without the per-layer lookups).
                 {"params_active_published_b", r.model.params_active_b > 0 && r.model.params_active_b < r.model.params_total_b
                                                   ? json(r.model.params_active_b) : json(nullptr)},
                 {"max_context", known(r.model.arch.n_ctx_train)}, {"license", r.model.license},
                 {"approximate", !a.approximate.empty()}, {"shape", shape}};
}

/// mtp: the NextN / MTP layers the file holds, and the engines that draft with them.
[[gnu::noinline]] nlohmann::json mtp_json(const EstimateRequest& r, const Estimate& e) {
  using nlohmann::json;
  const Architecture& a = r.model.arch;
  // NextN / MTP layers: stored in the file, skipped at load by llama.cpp (TENSOR_SKIP) unless it
  // drafts with them, so they explain most of the gap between the file and the resident weights.
  std::uint64_t mtp_bytes = 0;
  std::int64_t mtp_params = 0;
  for (const auto& t : e.plan->tensors)
    if (t.layer >= 0 && static_cast<std::size_t>(t.layer) < a.layers.size() &&
        a.layers[static_cast<std::size_t>(t.layer)].is_mtp) {
      mtp_bytes += t.bytes;
      mtp_params += t.n_elements();
    }
  // The engines that draft with those layers: the page offers the MTP switch under them only.
  const std::vector<std::string>& draft_engines = e.mtp_draft_engines;
  return {{"layers", a.n_layer_all() - a.n_layer_main()}, {"params", mtp_params},
               {"file_bytes", mtp_bytes}, {"resident_bytes", r.spec.mtp ? mtp_bytes : 0}, {"loaded", r.spec.mtp},
               {"draft_engines", draft_engines},
               {"drafts", std::find(draft_engines.begin(), draft_engines.end(), r.engine) != draft_engines.end()}};
}

/// hardware: the device as the request names it, with its uncertain figures.
[[gnu::noinline]] nlohmann::json hardware_json(const EstimateRequest& r) {
  using nlohmann::json;
  const json& facts = r.device.facts;
  const json uncertain = facts.is_object() && facts.contains("uncertain") && facts["uncertain"].is_object()
                             ? facts["uncertain"] : json::object();
  return {{"id", r.device.id}, {"name", r.device.name}, {"kind", device_kind_name(r.device.kind)},
                    {"count", r.count}, {"memory_gib", r.device.memory_gib},
                    {"bandwidth_gbs", r.device.bandwidth_gbs}, {"backend", r.device.backend},
                    {"uncertain", uncertain},
                    {"engines", r.device.engines},
                    {"engine_runs", std::find(r.device.engines.begin(), r.device.engines.end(), r.engine) != r.device.engines.end()}};
}

/// memory: every part of the total, the usable memory and the cache.
[[gnu::noinline]] nlohmann::json memory_json(const EstimateRequest& r, const Estimate& e) {
  using nlohmann::json;
  const double U = static_cast<double>(e.usable.usable_bytes);
  std::uint64_t proj_on_devices = 0, draft_on_devices = 0;  // the vision projector / a draft model booked on the accelerators
  for (const auto& d : e.full.devices) {
    proj_on_devices += d.projector_bytes;
    draft_on_devices += d.draft_bytes;
  }
  return {{"weights_bytes", e.weights_bytes},
                  {"host_weights_bytes", e.host_weights_bytes},
                  {"kv_cache_bytes", e.kv.total_bytes + e.spec_kv_bytes},
                  {"compute_bytes", e.compute.total_bytes},
                  {"overhead_bytes", e.overhead_bytes},
                  {"projector_bytes", proj_on_devices},
                  {"draft_bytes", draft_on_devices},
                  {"total_bytes", e.total_bytes},
                  {"total_high_bytes", e.total_high_bytes},
                  {"usable_bytes", e.usable.usable_bytes},
                  // Its low end, where the device's size is the vendor's figure (the verdict's
                  // room to spare is judged on it); usable_bytes otherwise.
                  {"usable_low_bytes", e.usable.usable_low_bytes},
                  {"physical_bytes", e.usable.physical_bytes},
                  {"margin_bytes", static_cast<std::int64_t>(e.usable.usable_bytes) - static_cast<std::int64_t>(e.total_bytes)},
                  {"utilization", U > 0 ? static_cast<double>(e.total_bytes) / U : 0.0},
                  {"usable_rule_code", {{"code", e.usable.rule_code}, {"params", e.usable.rule_params}}},
                  {"kv", kv_json(r, e)},
                  {"compute", {{"logits_bytes", e.compute.logits_bytes},
                               {"attention_bytes", e.compute.attention_bytes},
                               {"ffn_bytes", e.compute.ffn_bytes},
                               {"pipeline_copies_bytes", e.placement.pipeline_copies_bytes}}}};
}

/// run_state, quant.applicability, the product fields and speed (with a published run's check).
[[gnu::noinline]] void add_speed(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) {
  using nlohmann::json;
  // Whether the setup runs, as the solvers' runs() decides it: fully on the accelerators (fits or
  // tight) at the floor of "runs" at least (defaults.hpp kRunsOnMinDecodeTps, on the speed range's
  // low end; a device with no speed model is judged on memory alone), with layers or experts in
  // system RAM, or not at all. "too_slow": it fits but decodes below the floor.
  {
    const bool full = e.verdict == "fits" || e.verdict == "tight";
    const double tps = std::isfinite(e.speed.decode_tps) ? e.speed.decode_tps : 0.0;
    const double low = std::isfinite(e.speed.decode_tps_low) && e.speed.decode_tps_low > 0 ? e.speed.decode_tps_low : tps;
    out["run_state"] = full ? (tps > 0 && low + 1e-9 < defaults::kRunsOnMinDecodeTps ? "too_slow" : "runs")
                            : e.verdict == "offload" ? "runs_offloaded" : "does_not_run";
  }
  // A format that makes no sense here (or runs another way) says so (format_applicability).
  if (!e.applicability.empty()) {
    out["quant"]["applicability"] = {{"code", e.applicability}};
    // The figures behind a compute-capability code: the device's and the format's minimum.
    if (e.applicability == "cc_no_kernel")
      out["quant"]["applicability"]["values"] = {{"cuda_compute_capability", r.device.cuda_compute_capability},
                                                 {"min_cuda_compute_capability", e.applicability_min_cc}};
  }
  add_product_fields(out["hardware"], r.device);  // Mac Studio, Framework Desktop … (device.hpp)
  if (e.speed.decode_tps > 0) {
    out["speed"] = speed_to_json(e.speed, speed_options(r));
    if (r.summary) {
      out["speed"].erase("terms");
      out["speed"].erase("curve");
    }
    // A published run of this exact setup: the headline decode figure stays the model's estimate
    // (the same one every other page shows), and this says so beside the run, with the difference.
    const json& basis = out["speed"].contains("basis") ? out["speed"]["basis"] : json();
    if (basis.is_object() && basis.contains("measured") && basis["measured"].is_array())
      for (const auto& m : basis["measured"])
        if (m.is_object() && m.value("kind", "") == "tg" && m.contains("tps") && m["tps"].is_number() && m["tps"].get<double>() > 0) {
          const double meas = m["tps"].get<double>();
          const double est = plain_decode(e.speed).tps;  // a published run is plain decode
          out["speed"]["decode_measured"] = {{"measured_tps", meas}, {"estimate_tps", est},
                                             {"difference", est / meas - 1.0},
                                             {"test", m.value("test", "")}, {"row_id", m.value("row_id", "")}};
          // A difference that reads as 0 % (the page shows it in whole percent): a code to say so.
          if (shown::zero_pct(100.0 * (est / meas - 1.0), 0)) out["speed"]["decode_measured"]["difference_code"] = "same_as_shown";
          break;
        }
  }
}

/// speculative: the model's MTP layers or a separate draft model.
[[gnu::noinline]] void add_speculative(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) {
  using nlohmann::json;
  const Architecture& a = r.model.arch;
  const std::uint64_t draft_on_devices = out["memory"]["draft_bytes"].get<std::uint64_t>();
  if (r.spec.mtp) {
    // Speedup range by workload over the plain decode figures (speculative.hpp).
    const PlainDecode pd = plain_decode(e.speed);
    const double base = out.contains("speed") ? pd.tps : 0;
    out["speculative"] = speculative_json(r.spec, r.engine, e.spec_costs, e.spec_params, e.spec_weights_bytes,
                                          e.spec_kv_bytes, base, pd.low, pd.high,
                              r.device.backend);
    // llama.cpp's MTP context: its own compute buffer beside the block's weights and cache.
    out["speculative"]["compute_bytes"] = e.spec_compute_bytes;
    out["speculative"]["extra_bytes"] = e.spec_weights_bytes + e.spec_kv_bytes + e.spec_compute_bytes;
    out["speculative"]["label"] = "range_by_acceptance";
    out["speculative"]["basis"] = e.spec_basis;
  }
  if (r.draft) {
    // A separate draft model: its memory rows and the speedup range by workload (speculative.hpp).
    const PlainDecode pd = plain_decode(e.speed);
    const double base = out.contains("speed") ? pd.tps : 0;
    json s = speculative_json(r.spec, r.engine, e.spec_costs, e.spec_params, e.draft_weights_bytes,
                              e.draft_kv.total_bytes, base, pd.low, pd.high,
                              r.device.backend);
    s["compute_bytes"] = e.draft_compute.total_bytes;
    s["host_bytes"] = e.draft_host_bytes;
    s["extra_bytes"] = e.draft_weights_bytes + e.draft_kv.total_bytes + e.draft_compute.total_bytes + e.draft_host_bytes;
    // The part counted in the memory total (the "Draft model" row and Required): what the
    // accelerators hold (memory.draft_bytes); on a CPU-only device, all of it. The embedding
    // table llama.cpp keeps in system RAM (host_bytes) is named apart, as the target's is.
    s["counted_bytes"] = e.draft_on_device ? draft_on_devices : s["extra_bytes"].get<std::uint64_t>();
    s["placement"] = e.draft_on_device && r.device.kind != DeviceKind::Cpu ? "device" : "cpu";
    if (e.draft_on_device && !r.devices.empty()) s["device_id"] = r.devices.front().id;  // the first of those that hold it
    s["draft"] = {{"id", r.draft->id}, {"name", r.draft->name}, {"quant", e.draft_plan->quant},
                  {"params_total", count_params(r.draft->arch).total}, {"layers", r.draft->arch.n_layer_main()},
                  {"vocab_size", r.draft->arch.n_vocab}, {"target_vocab_size", a.n_vocab},
                  {"context", e.draft_kv.n_ctx}, {"kv_type", defaults::kDraftKvType}};
    if (r.engine != "llama.cpp") {  // the servers budget the draft per rank (servers/vllm.hpp)
      s.erase("compute_bytes");
      s.erase("host_bytes");
      s["placement"] = "device";
    }
    s["label"] = "range_by_acceptance";  // a range over the workload's acceptance, not a measurement
    s["basis"] = e.spec_basis;
    out["speculative"] = s;
  }
}

/// The rest: draft candidates, media, notes, the file against the weights, the server formats,
/// the engines compared on a Mac.
[[gnu::noinline]] void add_details(const EstimateRequest& r, const Estimate& e, nlohmann::json& out) {
  using nlohmann::json;
  const Architecture& a = r.model.arch;
  if (!r.summary) {
    json dc = json::array();
    for (const auto& [id, name] : r.draft_candidates) dc.push_back({{"id", id}, {"name", name}});
    out["draft_candidates"] = dc;
  }
  if (r.model.vision.present) out["projector"] = projector_json(r, e, out);
  if (r.model.audio.present) out["audio"] = audio_json(r, e, out);
  // After both media sections: the first token of the whole prompt reads their prefill times.
  if (out.contains("speed") && out["speed"].contains("ttft_ms")) out["speed"]["first_token"] = first_token_json(r, e, out);
  if (!a.approximate.empty()) out["model"]["approximate_code"] = a.approximate;
  if (e.speed.unavailable.is_object()) out["speed_unavailable"] = e.speed.unavailable;
  json notes = json::array();
  for (const auto& n : r.notes) notes.push_back({{"code", n.code}, {"values", n.values}});
  out["notes"] = notes;
  if (e.host_weights_bytes > 0 && !e.vllm) {  // a server engine keeps nothing in system RAM
    // What the host keeps of the all-on-accelerator plan: llama.cpp's input layer (the token
    // embedding, and Gemma 3n's per-layer embedding table), by tensor, so the gap between the file
    // and the accelerator figure is named by its parts.
    json parts = json::object();
    for (const auto& t : e.plan->tensors)
      if (t.role == TensorRole::TokenEmbd) {
        const std::string key = t.name.rfind("per_layer_token_embd", 0) == 0 ? "per_layer_token_embd" : "token_embd";
        parts[key] = parts.value(key, std::uint64_t{0}) + t.bytes;
      }
    out["memory"]["host_weights_parts"] = parts;
  }
  if (r.summary) out["detail"] = "summary";
  if (e.plan->from_file || (find_quant(e.plan->quant) && find_quant(e.plan->quant)->gguf)) {
    out["gguf_file_bytes"] = e.plan->file_bytes;
    // What of the file llama.cpp does not load (on the devices or in system RAM): the header,
    // alignment and tensors it skips, such as an MTP layer when multi-token prediction is off.
    const std::uint64_t loaded = e.weights_bytes + e.host_weights_bytes;
    out["gguf_file_unloaded_bytes"] = e.plan->file_bytes > loaded ? e.plan->file_bytes - loaded : 0;
  } else {
    out["checkpoint_bytes"] = e.plan->file_bytes;
    // A server engine: what of the checkpoint it does not load (an MTP layer without speculative
    // decoding), so the file beside the weights figure is explained by its parts.
    if (e.vllm) {
      const std::uint64_t loaded = e.vllm->weights.loaded_bytes;
      out["checkpoint_unloaded_bytes"] = e.plan->file_bytes > loaded ? e.plan->file_bytes - loaded : 0;
    }
  }
  if (e.vllm && !e.plan->from_file) {
    // The formats the server offers this model (defaults.hpp server_formats), each with the Hub repo
    // it is served from: the model's own repo for its published dtype, the catalog's published
    // checkpoint of another format, null where none is published (quantize it yourself).
    const std::string own = defaults::server_quant(r.model.arch);
    auto repo_of = [&](const std::string& q) -> json {
      if (q == own && r.model.entry) return r.model.id;
      if (r.model.entry)
        if (const PublishedCheckpoint* c = r.model.entry->checkpoint(q)) return c->repo;
      return nullptr;
    };
    // A summary (a row of a format table) carries only its own checkpoint; the list is the full
    // result's.
    if (!r.summary) {
      json formats = json::array();
      for (const auto& q : defaults::server_formats(r.model.arch, r.model.entry))
        formats.push_back({{"id", q}, {"repo", repo_of(q)}, {"code", q == own ? "publisher" : repo_of(q).is_null() ? "not_published" : "published"}});
      out["server_formats"] = formats;
    }
    // The estimated format's checkpoint: where it comes from, and its published size against the
    // computed one where the catalog records it (signed percent: + = ours larger).
    const json repo = repo_of(e.plan->quant);
    json cp = {{"repo", repo}, {"code", e.plan->quant == own ? "publisher" : repo.is_null() ? "not_published" : "published"}};
    if (r.model.entry)
      if (const PublishedCheckpoint* c = r.model.entry->checkpoint(e.plan->quant)) {
        cp["source"] = c->source;
        cp["checked"] = c->checked;
        cp["bits"] = c->bits;
        cp["group_size"] = c->group_size;
        cp["zero_point"] = c->zero_point;
        if (c->bytes > 0) {
          cp["published_bytes"] = c->bytes;
          cp["diff_pct"] = 100.0 * (static_cast<double>(e.plan->file_bytes) - static_cast<double>(c->bytes)) / static_cast<double>(c->bytes);
        }
      }
    out["checkpoint"] = cp;
  }
  // A Mac runs both llama.cpp and MLX: the formats of like size the page sets side by side (it
  // asks the core for both estimates; estimate_many).
  const auto runs = [&r](const char* eng) { return std::find(r.device.engines.begin(), r.device.engines.end(), eng) != r.device.engines.end(); };
  if (!r.summary && r.count == 1 && !r.model.plan && runs("mlx") && runs("llama.cpp") && (r.engine == "llama.cpp" || r.engine == "mlx"))
  {
    out["engine_compare"] = {{"engines", {"llama.cpp", "mlx"}},
                             {"quants", {{"llama.cpp", defaults::counterpart_quant(e.plan->quant, "llama.cpp")},
                                         {"mlx", defaults::counterpart_quant(e.plan->quant, "mlx")}}}};
    // MTP asked for: an engine that does not draft with the model's MTP layers (mlx-lm) is
    // compared without it rather than refused (mtp_not_drafted); the page says so.
    if (r.spec.mtp)
      for (const char* eng : {"llama.cpp", "mlx"})
        if (std::find(e.mtp_draft_engines.begin(), e.mtp_draft_engines.end(), eng) == e.mtp_draft_engines.end())
          out["engine_compare"]["request_overrides"][eng] = {{"mtp", false}};
  }
}

}  // namespace

nlohmann::json estimate_to_json(const EstimateRequest& r, const Estimate& e) {
  using nlohmann::json;
  json out = {
      {"model", model_json(r, e)},
      {"mtp", mtp_json(r, e)},
      {"quant", {{"id", e.plan->quant}, {"bits_per_weight", e.plan->bits_per_weight()},
                 {"quality", e.quality.is_null() ? nlohmann::json::object() : e.quality}}},
      {"hardware", hardware_json(r)},
      {"settings", {{"engine", r.engine}, {"context", e.kv.n_ctx}, {"context_requested", r.kv.n_ctx},
                    {"parallel", r.kv.n_seq}, {"ubatch", r.kv.n_ubatch}, {"flash_attn", r.kv.flash_attn},
                    {"kv_type_k", ggml_type_name(r.kv.type_k)}, {"kv_type_v", ggml_type_name(r.kv.type_v)},
                    {"ram_gib", r.ram_gib}}},
      {"memory", memory_json(r, e)},
      {"verdict", e.verdict},
  };
  add_speed(r, e, out);
  add_speculative(r, e, out);
  add_details(r, e, out);
  serving_to_json(r, e, out);
  return out;
}

}  // namespace wif
