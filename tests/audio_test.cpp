// The audio encoder (model/audio.hpp): Voxtral Mini 3B's Whisper tower derived by hand from its
// config.json, Qwen2-Audio and Ultravox from their configs' published dimensions, the published
// mmproj file of data/projectors.json, the audio mmproj read back, and the estimate's audio
// section, memory, context and coded errors.
#include <catch2/catch.hpp>

#include <functional>

#include "test_util.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/gguf/mmproj.hpp"
#include "willitfit/model/audio.hpp"

namespace audio_test_cases {

using namespace wif;
using nlohmann::json;

namespace {
using wif_test::estimate;

const json& model_config(const std::string& id) {
  const ModelEntry* e = wif_test::catalog().find_model(id);
  REQUIRE(e != nullptr);
  return e->raw["config"];
}

const json& projectors() {
  const json* d = wif_test::catalog().document("projectors.json");
  REQUIRE(d != nullptr);
  return *d;
}

// Whisper large-v3's encoder as Qwen2-Audio-7B and Ultravox v0.5 (whisper-large-v3-turbo's
// encoder) state it in their audio_config: 1280 wide, 32 blocks, 20 heads, 5120 FFN, 128 mel
// bins, 1500 positions.
json whisper_large_v3() {
  return {{"model_type", "whisper"}, {"d_model", 1280}, {"encoder_layers", 32}, {"encoder_attention_heads", 20},
          {"encoder_ffn_dim", 5120}, {"num_mel_bins", 128}, {"max_source_positions", 1500}};
}

// The encoder shared by the three families: conv 1 (3 x 128 x 1280 + bias), conv 2 (3 x 1280 x
// 1280 + bias), 1500 learned positions, 32 blocks, the final LayerNorm.
constexpr std::int64_t d = 1280, ff = 5120;
constexpr std::int64_t kConv = 3 * 128 * d + d + 3 * d * d + d;
constexpr std::int64_t kPos = 1500 * d;
constexpr std::int64_t kBlock = 2 * d + (d * d + d) + d * d + (d * d + d) + (d * d + d) + 2 * d + (d * ff + ff) + (ff * d + d);
constexpr std::int64_t kEncoder = kConv + kPos + 32 * kBlock + 2 * d;

json voxtral(double seconds) {
  return {{"model", "mistralai/Voxtral-Mini-3B-2507"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
          {"context", 8192}, {"audio_seconds", seconds}};
}
}  // namespace

TEST_CASE("Voxtral Mini 3B's Whisper tower and projector, derived by hand from its audio_config", "[audio]") {
  const AudioSpec a = audio_spec_from_config(model_config("mistralai/Voxtral-Mini-3B-2507"));
  REQUIRE(a.family == "voxtral");
  CHECK(a.hidden == 1280);
  CHECK(a.layers == 32);
  CHECK(a.heads == 20);
  CHECK(a.mel_bins == 128);
  CHECK(a.positions == 1500);
  CHECK(a.text_hidden == 3072);
  CHECK(a.stack == 4);
  CHECK(kBlock == 19676160);
  // The projector: 4 stacked frames (5120) -> 3072 -> 3072, no biases.
  const std::int64_t proj = 4 * d * 3072 + 3072 * 3072;
  const ProjectorPlan f16 = audio_projector_plan(a, GgmlType::F16);
  CHECK(f16.params == kEncoder + proj);
  CHECK(f16.params == 662134784);
  // 4 conv tensors, the positions, 15 per block (K has no bias), the final norm, 2 projector.
  CHECK(f16.tensors.size() == 4 + 1 + 32 * 15 + 2 + 2);
  // F16 file: the kernels F16 (forced), biases, norms and positions F32, the linear layers F16.
  const std::int64_t block_matrices = 4 * d * d + 2 * d * ff;
  const std::uint64_t conv_k = 2ull * (3 * 128 * d + 3 * d * d);
  const std::uint64_t f32 = 4ull * (2 * d + kPos + 32 * (kBlock - block_matrices) + 2 * d);
  CHECK(f16.bytes == conv_k + f32 + 2ull * (32 * block_matrices + proj));
  CHECK(f16.bytes == 1329102848);
  // Q8_0: every linear layer's rows hold whole 32-element blocks (34 bytes each).
  const ProjectorPlan q8 = audio_projector_plan(a, GgmlType::Q8_0);
  CHECK(q8.bytes == conv_k + f32 + 34ull * (32 * block_matrices + proj) / 32);
  CHECK(q8.bytes == 715685888);
  // Tokens: 187 per 30 s window (3000 frames / 4 stacked / 2 conv / 2 pooled); the preprocessor
  // appends 30 s of silence and keeps whole windows: 5 s and 29 s one window, exactly 30 s two,
  // 5 min eleven.
  CHECK(audio_cost(a, 5).tokens_per_window == 187);
  CHECK(audio_cost(a, 5).windows == 1);
  CHECK(audio_cost(a, 29).windows == 1);
  CHECK(audio_cost(a, 30).windows == 2);
  CHECK(audio_cost(a, 30).tokens == 374);
  CHECK(audio_cost(a, 300).windows == 11);
  CHECK(audio_cost(a, 300).tokens == 2057);
  CHECK(audio_cost(a, 0).tokens == 0);
  // One window's buffer: 1500 positions x (4 x 1280 + 5120) F32, plus 20 heads x 1500^2 F32
  // scores without flash attention.
  CHECK(audio_compute_bytes(a, true) == 4ull * 1500 * (4 * 1280 + 5120));
  CHECK(audio_compute_bytes(a, false) == 61440000ull + 180000000ull);
  // Encode work grows with the windows.
  CHECK(audio_encode_flops(a, audio_cost(a, 300)) == Approx(11 * audio_encode_flops(a, audio_cost(a, 5))));
}

TEST_CASE("Voxtral's mmproj file size within 1% of ggml-org's published Q8_0 file", "[audio]") {
  int rows = 0;
  for (const auto& row : projectors()["published_files"]) {
    if (row.value("tower", "vision") != "audio") continue;
    ++rows;
    INFO(row["file"].get<std::string>());
    const AudioSpec a = audio_spec_from_config(model_config(row["model"]));
    REQUIRE(!a.family.empty());
    const std::string t = row["type"];
    const GgmlType type = t == "f32" ? GgmlType::F32 : t == "q8_0" ? GgmlType::Q8_0 : GgmlType::F16;
    const double ours = static_cast<double>(audio_projector_plan(a, type).bytes);
    CHECK(ours == Approx(row["bytes"].get<double>()).epsilon(0.01));
  }
  CHECK(rows >= 1);
}

TEST_CASE("Qwen2-Audio, Qwen2.5-Omni and Ultravox towers from their configs", "[audio]") {
  // Qwen2-Audio-7B: one linear layer with bias into the 4096-wide text model, 750 tokens a window.
  const json q = {{"model_type", "qwen2_audio"}, {"audio_config", whisper_large_v3()}, {"text_config", {{"hidden_size", 4096}}}};
  const AudioSpec qa = audio_spec_from_config(q);
  REQUIRE(qa.family == "qwen2_audio");
  CHECK(audio_projector_plan(qa, GgmlType::F16).params == kEncoder + d * 4096 + 4096);
  CHECK(audio_cost(qa, 5).tokens == 750);
  CHECK(audio_cost(qa, 30).tokens == 1500);
  CHECK(audio_cost(qa, 300).tokens == 11 * 750);
  // Qwen2.5-Omni keeps the tower under thinker_config and projects to audio_config.output_dim.
  json omni_ac = whisper_large_v3();
  omni_ac["output_dim"] = 3584;
  const json omni = {{"model_type", "qwen2_5_omni"}, {"thinker_config", {{"audio_config", omni_ac}}}};
  const AudioSpec oa = audio_spec_from_config(omni);
  REQUIRE(oa.family == "qwen2_audio");
  CHECK(oa.text_hidden == 3584);
  omni_ac.erase("output_dim");
  const AudioSpec oi = audio_spec_from_config({{"model_type", "qwen2_5_omni"}, {"thinker_config", {{"audio_config", omni_ac}}}});
  CHECK(oi.code == "audio_config_incomplete");
  CHECK(oi.missing == "config.thinker_config.audio_config.output_dim");
  // Ultravox v0.5 (Llama 3.2 1B): 8 frames stacked (10240 wide), SwiGLU 4096 -> 2048, into 2048.
  const json u = {{"model_type", "ultravox"}, {"stack_factor", 8}, {"hidden_size", 4096},
                  {"audio_config", whisper_large_v3()}, {"text_config", {{"hidden_size", 2048}}}};
  const AudioSpec ua = audio_spec_from_config(u);
  REQUIRE(ua.family == "ultravox");
  CHECK(audio_projector_plan(ua, GgmlType::F16).params == kEncoder + 10240 + 10240 * 4096 + 2048 + 2048 * 2048);
  CHECK(audio_cost(ua, 30).tokens_per_window == 187);  // 3000 / 8 = 375, / 2
  // A config without a key the tower needs is named; another audio family is not modelled.
  json cut = model_config("mistralai/Voxtral-Mini-3B-2507");
  cut["audio_config"].erase("num_hidden_layers");
  const AudioSpec c = audio_spec_from_config(cut);
  CHECK(c.present);
  CHECK(c.family.empty());
  CHECK(c.code == "audio_config_incomplete");
  CHECK(c.missing == "config.audio_config.num_hidden_layers");
  const AudioSpec other = audio_spec_from_config({{"model_type", "qwen3_omni_moe"}, {"audio_config", whisper_large_v3()}});
  CHECK(other.code == "projector_family_unknown");
  CHECK(!audio_spec_from_config(model_config("google/gemma-3-27b-it")).present);
}

TEST_CASE("an audio mmproj header reads back as the tower it was written from", "[audio]") {
  const AudioSpec a = audio_spec_from_config(model_config("mistralai/Voxtral-Mini-3B-2507"));
  const ProjectorPlan p = audio_projector_plan(a, GgmlType::Q8_0);
  const auto bytes = write_gguf_header(mmproj_audio_metadata_for(a, "Voxtral", GgmlType::Q8_0), mmproj_tensors_for(p));
  const MmprojFile f = load_mmproj(bytes, "m");
  CHECK(!f.spec.present);
  REQUIRE(f.audio.family == "voxtral");
  CHECK(f.audio_projector_type == "voxtral");
  CHECK(f.audio.hidden == a.hidden);
  CHECK(f.audio.layers == a.layers);
  CHECK(f.audio.heads == a.heads);
  CHECK(f.audio.ff == a.ff);
  CHECK(f.audio.positions == 1500);
  CHECK(f.audio.stack == 4);
  CHECK(f.audio.avgpool);
  CHECK(f.audio.text_hidden == 3072);
  CHECK(f.plan.bytes == p.bytes);
  CHECK(f.audio_bytes == p.bytes);
  CHECK(f.plan.type == GgmlType::Q8_0);
  CHECK(audio_cost(f.audio, 30).tokens == audio_cost(a, 30).tokens);
  CHECK(audio_compute_bytes(f.audio, false) == audio_compute_bytes(a, false));
}

TEST_CASE("audio seconds per prompt load Voxtral's audio tower on the first GPU and count its tokens", "[audio]") {
  const json off = estimate(voxtral(0));
  REQUIRE(off.contains("audio"));
  CHECK(!off.contains("projector"));  // no vision tower
  CHECK(off["audio"]["loaded"] == false);
  CHECK(off["audio"]["code"] == "no_audio");
  CHECK(off["audio"]["bytes"] == 1329102848);  // stated even when not loaded (F16 by default)
  CHECK(off["memory"]["projector_bytes"] == 0);
  const json on = estimate(voxtral(300));
  const json& a = on["audio"];
  CHECK(a["loaded"] == true);
  CHECK(a["family"] == "voxtral");
  CHECK(a["placement"] == "device");
  CHECK(a["windows"] == 11);
  CHECK(a["tokens_per_window"] == 187);
  CHECK(a["tokens"] == 2057);
  const std::uint64_t resident = a["resident_bytes"];
  CHECK(resident == a["bytes"].get<std::uint64_t>() + a["compute_bytes"].get<std::uint64_t>());
  CHECK(on["memory"]["projector_bytes"] == resident);
  CHECK(on["memory"]["total_bytes"].get<std::uint64_t>() == off["memory"]["total_bytes"].get<std::uint64_t>() + resident);
  CHECK(a["kv_bytes"] == 2057 * on["memory"]["kv"]["bytes_per_token"].get<std::uint64_t>());
  CHECK(a["context_share"].get<double>() == Approx(2057.0 / 8192));
  CHECK(a["exceeds_context"] == false);
  // Prefill: the tokens at the prefill rate plus the encode at the FLOP rate prefill reaches.
  const double pp = on["speed"]["prefill_tps"];
  REQUIRE(pp > 0);
  CHECK(a["token_prefill_seconds"].get<double>() == Approx(2057 / pp));
  // The text model's matrices: every active weight but the token table (3072 x 131072).
  const double matrices = on["model"]["params_active"].get<double>() - 3072.0 * 131072;
  CHECK(a["encode_seconds"].get<double>() == Approx(a["encode_gflops"].get<double>() * 1e9 / (2 * matrices * pp)));
  CHECK(a["prefill_seconds"].get<double>() ==
        Approx(a["token_prefill_seconds"].get<double>() + a["encode_seconds"].get<double>()));
  // ggml-org's Q4_K_M repo: -hf fetches the projector with the model; text only says --no-mmproj.
  const std::string cmd = on["commands"]["llama_server"];
  CHECK(cmd.find(" -hf ggml-org/Voxtral-Mini-3B-2507-GGUF:Q4_K_M") != std::string::npos);
  CHECK(cmd.find("mmproj") == std::string::npos);
  CHECK(off["commands"]["llama_server"].get<std::string>().find(" --no-mmproj") != std::string::npos);
  // The Ollama Modelfile has no projector line: said for audio in its own words.
  bool audio_note = false;
  for (const auto& n : on["commands"].value("notes", json::array())) audio_note = audio_note || n.value("code", "") == "ollama_audio_not_loaded";
  CHECK(audio_note);
  // Five minutes overflow a 2048-token context: said, with the share.
  json small = voxtral(300);
  small["context"] = 2048;
  CHECK(estimate(small)["audio"]["exceeds_context"] == true);
  // With flash attention on, the scores are not materialised.
  json fa = voxtral(30);
  fa["flash_attn"] = true;
  CHECK(estimate(fa)["audio"]["compute_bytes"] == 61440000);
  fa["flash_attn"] = false;
  CHECK(estimate(fa)["audio"]["compute_bytes"] == 241440000);
  // On the CPU (--no-mmproj-offload) the tower goes to system RAM.
  json cpu = voxtral(30);
  cpu["mmproj_offload"] = false;
  const json c = estimate(cpu);
  CHECK(c["audio"]["placement"] == "cpu");
  CHECK(c["memory"]["projector_bytes"] == 0);
  CHECK(c["memory"]["host"]["projector_bytes"] == c["audio"]["resident_bytes"]);
  // The Q8_0 file ggml-org publishes, by type: its computed weights.
  json q8 = voxtral(30);
  q8["mmproj_type"] = "q8_0";
  CHECK(estimate(q8)["audio"]["bytes"] == 715685888);
}

TEST_CASE("the first token of a prompt with 60 s of audio is the text's plus the audio's tokens and encode", "[audio]") {
  const json on = estimate(voxtral(60));
  const json& s = on["speed"];
  const json& f = s["first_token"];
  const json& a = on["audio"];
  // 60 s and 30 s of appended silence: three whole 30 s windows of 187 tokens.
  CHECK(a["tokens"] == 3 * 187);
  CHECK(f["code"] == "includes_media");
  CHECK(f["audio_seconds"].get<double>() == 60);
  CHECK(f["audio_tokens"] == 3 * 187);
  CHECK(f["tokens"] == 512 + 3 * 187);
  CHECK(!f.contains("image_ms"));
  const double pp = s["prefill_tps"];
  REQUIRE(pp > 0);
  // The tokens at the prefill rate plus the encoder's work at the FLOP rate prefill reaches
  // (2 x the text model's matrices, every active weight but the 3072 x 131072 token table).
  const double matrices = on["model"]["params_active"].get<double>() - 3072.0 * 131072;
  const double encode_s = a["encode_gflops"].get<double>() * 1e9 / (2 * matrices * pp);
  CHECK(f["audio_ms"].get<double>() == Approx(1000.0 * (3 * 187 / pp + encode_s)));
  CHECK(f["audio_ms"].get<double>() == Approx(1000.0 * a["prefill_seconds"].get<double>()));
  CHECK(f["ms"].get<double>() == Approx(s["ttft_ms"].get<double>() + f["audio_ms"].get<double>()));
  CHECK(f["ms_low"].get<double>() == Approx(f["ms"].get<double>() * pp / s["prefill_tps_high"].get<double>()));
  CHECK(f["ms_high"].get<double>() == Approx(f["ms"].get<double>() * pp / s["prefill_tps_low"].get<double>()));
  // The text prompt's own figure does not move with the audio.
  CHECK(s["ttft_ms"].get<double>() == Approx(estimate(voxtral(0))["speed"]["ttft_ms"].get<double>()));
  // Five minutes (2,057 tokens) and the text in a 2,048-token context: the whole prompt overflows.
  json small = voxtral(300);
  small["context"] = 2048;
  const json o = estimate(small);
  CHECK(o["speed"]["first_token"]["tokens"] == 512 + 2057);
  CHECK(o["speed"]["first_token"]["exceeds_context"] == true);
  // Under vLLM the tower is the engine's own: a code, not a figure.
  json v = voxtral(60);
  v["engine"] = "vllm";
  v["hardware"] = "nvidia-h100-sxm";
  v.erase("quant");
  const json sv = estimate(v);
  REQUIRE(sv["speed"].contains("first_token"));
  CHECK(sv["speed"]["first_token"]["code"] == "media_not_modelled");
  CHECK(sv["speed"]["first_token"]["media_codes"]["audio"] == "engine_not_modelled");
  CHECK(!sv["speed"]["first_token"].contains("ms"));
}

TEST_CASE("audio inputs: coded errors with the field path, and engines that load the tower themselves", "[audio]") {
  for (const json& bad : {json(-1), json(1e9), json(14400.5), json("30")}) {
    json q = voxtral(0);
    q["audio_seconds"] = bad;
    const json r = estimate(q);
    CAPTURE(bad);
    CHECK(r["error"]["path"] == "audio_seconds");
    CHECK((r["error"]["code"] == "bad_value" || r["error"]["code"] == "bad_type"));
  }
  CHECK(estimate(voxtral(14400)).contains("audio"));
  const json text = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-rtx-4090"}, {"audio_seconds", 30}});
  CHECK(text["error"]["code"] == "no_audio_tower");
  CHECK(text["error"]["path"] == "audio_seconds");
  // A vision model without an audio tower refuses audio too, and keeps its projector section.
  const json g = estimate({{"model", "google/gemma-3-27b-it"}, {"hardware", "nvidia-rtx-4090"}, {"audio_seconds", 5}});
  CHECK(g["error"]["code"] == "no_audio_tower");
  CHECK(!estimate({{"model", "google/gemma-3-27b-it"}, {"hardware", "nvidia-rtx-4090"}}).contains("audio"));
  json v = voxtral(30);
  v["engine"] = "vllm";
  v["hardware"] = "nvidia-h100-sxm";
  v.erase("quant");
  const json s = estimate(v);
  REQUIRE(s.contains("audio"));
  CHECK(s["audio"]["code"] == "engine_not_modelled");
  CHECK(s["memory"]["projector_bytes"] == 0);
}

// Qwen2.5-Omni's mmproj holds both towers of its thinker (llama.cpp projector type qwen25o). By
// hand from the config:
//  * vision, Qwen2.5-VL's tower (1280 wide, 32 blocks, 16 heads, SiLU-gated FFN 3420, patch 14,
//    2x2 merge into 3584): two 2-D patch kernels 588 x 1280 (the Conv3d's two frames), per block
//    two RMSNorms, Q/K/V/O with biases and gate/up/down with biases; the merger's RMSNorm and MLP
//    5120 -> 5120 -> 3584 with biases. In the Q8_0 file every matrix whose rows hold whole
//    32-element blocks is Q8_0; the FFN down rows (3420 = 106 x 32 + 28) and the patch kernels
//    (588) are not, and stay F16; vectors F32.
//  * audio, the Whisper-style tower: the encoder shared with Voxtral (kEncoder above, its 1500
//    sinusoidal positions written in F32 by the converter), then AvgPool1d and one linear layer
//    with bias, 1280 -> 3584 (audio_config.output_dim).
TEST_CASE("Qwen2.5-Omni 7B's mmproj: Qwen2.5-VL's vision tower and the Whisper tower, derived by hand, within 1% of ggml-org's Q8_0 file", "[audio][projector]") {
  const json& cfg = model_config("Qwen/Qwen2.5-Omni-7B");
  const VisionSpec v = vision_spec_from_config(cfg);
  REQUIRE(v.family == "qwen2_5_vl");
  CHECK(v.hidden == 1280);
  CHECK(v.layers == 32);
  CHECK(v.heads == 16);
  CHECK(v.ff == 3420);
  CHECK(v.patch == 14);
  CHECK(v.text_hidden == 3584);
  CHECK(v.merge == 2);
  CHECK(v.temporal_patch == 2);
  constexpr std::int64_t h = 1280, vff = 3420, m = 4 * h, out = 3584, patch = 14 * 14 * 3;
  constexpr std::int64_t vblock_mat = 4 * h * h + 2 * h * vff + vff * h;
  constexpr std::int64_t vblock_vec = 2 * h + 4 * h + 2 * vff + h;
  constexpr std::int64_t vision = 2 * patch * h + 32 * (vblock_mat + vblock_vec) + h + (m * m + m) + (m * out + out);
  const ProjectorPlan vq8 = projector_plan(v, GgmlType::Q8_0);
  CHECK(vq8.params == vision);
  CHECK(vq8.params == 676550144);
  const std::uint64_t vbytes = 2ull * 2 * patch * h                                          // patch kernels, F16
                               + 32 * (34ull * (4 * h * h + 2 * h * vff) / 32 + 2ull * vff * h + 4ull * vblock_vec)
                               + 4ull * h + 34ull * (m * m + m * out) / 32 + 4ull * (m + out);  // merger
  CHECK(vq8.bytes == vbytes);
  CHECK(vq8.bytes == 853088256);
  const AudioSpec a = audio_spec_from_config(cfg);
  REQUIRE(a.family == "qwen2_audio");
  CHECK(a.text_hidden == 3584);
  const ProjectorPlan aq8 = audio_projector_plan(a, GgmlType::Q8_0);
  CHECK(aq8.params == kEncoder + d * out + out);
  CHECK(aq8.params == 641560064);
  const std::int64_t block_matrices = 4 * d * d + 2 * d * ff;
  const std::uint64_t conv_k = 2ull * (3 * 128 * d + 3 * d * d);
  const std::uint64_t f32 = 4ull * (2 * d + kPos + 32 * (kBlock - block_matrices) + 2 * d);
  CHECK(aq8.bytes == conv_k + f32 + 34ull * (32 * block_matrices + d * out) / 32 + 4ull * out);
  CHECK(aq8.bytes == 693835776);
  // The file as published: both towers, 1,546,924,032 bytes of tensors against 1.55 GB listed.
  int rows = 0;
  for (const auto& row : projectors()["published_files"]) {
    if (row.value("tower", "") != "vision+audio") continue;
    ++rows;
    INFO(row["file"].get<std::string>());
    const json& c = model_config(row["model"]);
    REQUIRE(row["type"] == "q8_0");
    const double ours = static_cast<double>(projector_plan(vision_spec_from_config(c), GgmlType::Q8_0).bytes +
                                            audio_projector_plan(audio_spec_from_config(c), GgmlType::Q8_0).bytes);
    CHECK(ours == Approx(row["bytes"].get<double>()).epsilon(0.01));
  }
  CHECK(rows >= 1);
  // Read before the fix, the towers under thinker_config were half missing: the vision one alone
  // is 55 % of the file, far outside 1 %.
  CHECK(static_cast<double>(aq8.bytes) < 0.5 * 1.55e9);
  // A vision key missing from the thinker is named with its path.
  json cut = cfg;
  cut["thinker_config"]["vision_config"].erase("depth");
  const VisionSpec vc = vision_spec_from_config(cut);
  CHECK(vc.code == "vision_config_incomplete");
  CHECK(vc.missing == "config.thinker_config.vision_config.depth");
}

TEST_CASE("Qwen2.5-Omni: audio alone loads the whole mmproj, both towers, and the estimate names both families", "[audio][projector]") {
  const json base = {{"model", "Qwen/Qwen2.5-Omni-7B"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
                     {"context", 8192}, {"mmproj_type", "q8_0"}};
  json q = base;
  q["audio_seconds"] = 30;
  const json r = estimate(q);
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["audio"]["family"] == "qwen2_audio");
  CHECK(r["audio"]["loaded"] == true);
  CHECK(r["audio"]["tokens"] == 2 * 750);  // two 30 s windows of 750 tokens
  CHECK(r["projector"]["family"] == "qwen2_5_vl");
  CHECK(r["projector"]["loaded"] == true);
  // The file's bytes are both towers, loaded whole.
  CHECK(r["projector"]["bytes"] == 853088256ull + 693835776ull);
  CHECK(r["audio"]["file_bytes"] == 853088256ull + 693835776ull);
  const json off = estimate(base);
  REQUIRE_FALSE(off.contains("error"));
  CHECK(off["memory"]["projector_bytes"] == 0);
  CHECK(r["memory"]["projector_bytes"].get<std::uint64_t>() >= 853088256ull + 693835776ull);
}

}  // namespace audio_test_cases
