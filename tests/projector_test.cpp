// The vision projector (model/projector.hpp): Gemma 3 27B's SigLIP tower derived by hand from its
// config.json, the published figures of data/projectors.json, and the estimate's projector
// section, memory, placement, commands and coded errors.
#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/model/projector.hpp"

namespace projector_test_cases {

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

json gemma(int images) {
  return {{"model", "google/gemma-3-27b-it"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-rtx-4090"},
          {"context", 8192}, {"images", images}};
}
}  // namespace

TEST_CASE("Gemma 3 27B's SigLIP tower, derived by hand from its vision_config", "[projector]") {
  const VisionSpec v = vision_spec_from_config(model_config("google/gemma-3-27b-it"));
  REQUIRE(v.family == "gemma3");
  CHECK(v.hidden == 1152);
  CHECK(v.layers == 27);
  CHECK(v.text_hidden == 5376);
  // h = 1152, ff = 4304, 27 layers, 14 px patches over 896 px (64 x 64 = 4096 positions).
  const std::int64_t h = 1152, ff = 4304;
  const std::int64_t patch = 14 * 14 * 3 * h + h;                 // conv kernel + bias: 678,528
  const std::int64_t pos = 4096 * h;                              // 4,718,592
  const std::int64_t layer = 2 * h + 4 * (h * h + h) + 2 * h + (h * ff + ff) + (ff * h + h);
  CHECK(layer == 15239504);
  const std::int64_t head = 2 * h + h * 5376 + h;                 // post-LN, input projection, soft-emb norm
  const ProjectorPlan p = projector_plan(v, GgmlType::F16);
  CHECK(p.params == patch + pos + 27 * layer + head);
  CHECK(p.params == 423060336);
  // F16 file: the 2-D layer weights in F16 (27 x 15,224,832 elements), 1-D tensors and both
  // embeddings in F32, the input projection in F16.
  const std::uint64_t f16 = 2ull * 27 * (4 * h * h + 2 * h * ff) + 2ull * h * 5376;
  const std::uint64_t f32 = 4ull * (27 * (layer - (4 * h * h + 2 * h * ff)) + patch + pos + 2 * h + h);
  CHECK(p.bytes == f16 + f32);
  CHECK(p.bytes == 857714112);
  const ImageCost c = image_cost(v, 3000, 2000);  // any size: resized to 896 px, 256 tokens
  CHECK(c.width == 896);
  CHECK(c.positions == 4096);
  CHECK(c.tokens == 256);
}

TEST_CASE("text model plus projector is transformers' published parameter count of Gemma 3 27B", "[projector]") {
  const json& row = projectors()["published_params"][0];
  REQUIRE(row["model"] == "google/gemma-3-27b-it");
  const json r = estimate(gemma(1));
  const double ours = r["model"]["params_total"].get<double>() + r["projector"]["params"].get<double>();
  CHECK(ours == Approx(row["params_total"].get<double>()).epsilon(1e-6));
}

TEST_CASE("mmproj file sizes within 0.6% of the published files (3 significant figures)", "[projector]") {
  for (const auto& row : projectors()["published_files"]) {
    if (row.value("tower", "vision") != "vision") continue;  // audio rows: tests/audio_test.cpp
    INFO(row["file"].get<std::string>());
    const VisionSpec v = vision_spec_from_config(model_config(row["model"]));
    REQUIRE(!v.family.empty());
    const std::string t = row["type"];
    const GgmlType type = t == "f32" ? GgmlType::F32 : t == "q8_0" ? GgmlType::Q8_0 : GgmlType::F16;
    const double ours = static_cast<double>(projector_plan(v, type).bytes);
    CHECK(ours == Approx(row["bytes"].get<double>()).epsilon(0.006));
  }
}

TEST_CASE("vision attention scores and compute buffer against published sizes", "[projector]") {
  constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
  for (const auto& row : projectors()["attention_buffers"]) {
    INFO(row["model"].get<std::string>());
    const VisionSpec v = vision_spec_from_config(model_config(row["model"]));
    REQUIRE(v.family == row["family"]);
    const ImageCost c = image_cost(v, 4096, 4096);  // the largest image the encoder takes
    CHECK(c.positions == row["positions"].get<std::int64_t>());
    const double scores = static_cast<double>(projector_compute_bytes(v, c, false) - projector_compute_bytes(v, c, true));
    CHECK(scores / GiB == Approx(row["gib"].get<double>()).epsilon(0.05));  // stated to 0.1 GiB
  }
  for (const auto& row : projectors()["compute_buffers"]) {
    const VisionSpec v = vision_spec_from_config(model_config(row["model"]));
    const std::int64_t px = row["image_px"];
    const ImageCost c = image_cost(v, px, px);
    const double ours = static_cast<double>(projector_compute_bytes(v, c, row["flash_attn"].get<bool>())) / GiB;
    CHECK(ours == Approx(row["gib"].get<double>()).epsilon(0.05));
  }
}

TEST_CASE("image tokens of the dynamic-resolution families follow the image size", "[projector]") {
  const VisionSpec q = vision_spec_from_config(model_config("Qwen/Qwen3.6-27B"));
  REQUIRE(q.family == "qwen3_vl");
  CHECK(image_cost(q, 1024, 1024).tokens == 32 * 32);    // 16 px patches, 2x2 merge: 32 px cells
  CHECK(image_cost(q, 1000, 500).tokens == 31 * 16);     // sides rounded to whole cells
  CHECK(image_cost(q, 512, 512).tokens * 4 == image_cost(q, 1024, 1024).tokens);
  const VisionSpec m = vision_spec_from_config(model_config("mistralai/Ministral-3-3B-Reasoning-2512"));
  REQUIRE(m.family == "pixtral");
  CHECK(image_cost(m, 1024, 1024).tokens == 37 * 37 + 37);  // 28 px cells plus a break token per row
  CHECK(image_cost(m, 3080, 1540).tokens == 55 * 28 + 28);  // scaled to 1540 px on the long side
  // A config that lacks a key the tower needs is named, not guessed: the catalog's Llama 4
  // configs are partial copies (Scout without heads, Maverick without a layer count).
  const VisionSpec s = vision_spec_from_config(model_config("meta-llama/Llama-4-Scout-17B-16E-Instruct"));
  CHECK(s.present);
  CHECK(s.family.empty());
  CHECK(s.code == "vision_config_incomplete");
  CHECK(s.missing == "config.vision_config.num_attention_heads");
  json l4 = model_config("meta-llama/Llama-4-Maverick-17B-128E-Instruct");
  CHECK(vision_spec_from_config(l4).missing == "config.vision_config.num_hidden_layers");
  // With the layer count Scout states (34), Maverick's tower is complete: 336 px tiles of 576
  // patches, 144 tokens each after the 2x2 pixel shuffle, plus the whole-image tile.
  l4["vision_config"]["num_hidden_layers"] = 34;
  const VisionSpec v4 = vision_spec_from_config(l4);
  REQUIRE(v4.family == "llama4");
  CHECK(image_cost(v4, 336, 336).tokens == 144);
  CHECK(image_cost(v4, 672, 336).tokens == 3 * 144);
  CHECK(image_cost(v4, 1024, 1024).tokens == 17 * 144);
  const std::int64_t h4 = 1408, f4 = 5632;
  const std::int64_t layer4 = 2 * h4 + 4 * (h4 * h4 + h4) + 2 * h4 + (h4 * f4 + f4) + (f4 * h4 + h4);
  const std::int64_t head4 = 14 * 14 * 3 * h4 + h4 + 577 * h4 + 4 * h4 + 4 * h4 * 4096 + 4096 * 4096 + 4096 * 5120;
  CHECK(projector_plan(v4, GgmlType::F16).params == 34 * layer4 + head4);
  json cfg = model_config("google/gemma-3-27b-it");
  cfg["vision_config"].erase("num_attention_heads");
  const VisionSpec g = vision_spec_from_config(cfg);
  CHECK(g.code == "vision_config_incomplete");
  CHECK(g.missing == "config.vision_config.num_attention_heads");
}

TEST_CASE("images per prompt load the projector on the first GPU and count it", "[projector]") {
  const json off = estimate(gemma(0));
  const json on = estimate(gemma(1));
  REQUIRE(off.contains("projector"));
  CHECK(off["projector"]["loaded"] == false);
  CHECK(off["projector"]["code"] == "no_images");
  CHECK(off["memory"]["projector_bytes"] == 0);
  CHECK(off["projector"]["bytes"] == 857714112);  // stated even when not loaded
  const std::uint64_t resident = on["projector"]["resident_bytes"];
  CHECK(on["projector"]["loaded"] == true);
  CHECK(on["projector"]["placement"] == "device");
  CHECK(resident == on["projector"]["bytes"].get<std::uint64_t>() + on["projector"]["compute_bytes"].get<std::uint64_t>());
  CHECK(on["memory"]["projector_bytes"] == resident);
  CHECK(on["memory"]["total_bytes"].get<std::uint64_t>() == off["memory"]["total_bytes"].get<std::uint64_t>() + resident);
  CHECK(on["memory"]["devices"][0]["projector_bytes"] == resident);
  CHECK(on["projector"]["image_tokens"] == 256);
  CHECK(on["projector"]["image_kv_bytes"] == 256 * on["memory"]["kv"]["bytes_per_token"].get<std::uint64_t>());
  // Q4_K_M is published (unsloth/gemma-3-27b-it-GGUF): -hf fetches the repo's projector with the
  // model, and a text-only run says --no-mmproj (llama.cpp common/arg.cpp).
  const std::string cmd = on["commands"]["llama_server"];
  CHECK(cmd.find(" -hf unsloth/gemma-3-27b-it-GGUF:Q4_K_M") != std::string::npos);
  CHECK(cmd.find("mmproj") == std::string::npos);
  CHECK(off["commands"]["llama_server"].get<std::string>().find(" --no-mmproj") != std::string::npos);
  // A format with no published file is loaded by name, with the projector file beside it.
  json local_on = gemma(1), local_off = gemma(0);
  local_on["quant"] = local_off["quant"] = "Q5_K_M";
  CHECK(estimate(local_on)["commands"]["llama_server"].get<std::string>().find("--mmproj mmproj-gemma-3-27b-it-f16.gguf") !=
        std::string::npos);
  CHECK(estimate(local_off)["commands"]["llama_server"].get<std::string>().find("mmproj") == std::string::npos);
  // On the CPU (--no-mmproj-offload) it leaves the GPU and goes to system RAM.
  json cpu = gemma(1);
  cpu["mmproj_offload"] = false;
  const json c = estimate(cpu);
  CHECK(c["projector"]["placement"] == "cpu");
  CHECK(c["memory"]["projector_bytes"] == 0);
  CHECK(c["memory"]["host"]["projector_bytes"] == resident);
  CHECK(c["commands"]["llama_server"].get<std::string>().find("--no-mmproj-offload") != std::string::npos);
  // Kept in a system RAM that holds the rest but not the projector too: the plan no longer fits.
  json tight = gemma(0);
  tight["mmproj_offload"] = false;
  tight["ram_gib"] = 6;
  const json ram_text = estimate(tight);
  REQUIRE(ram_text["memory"]["host"]["ram_fits"] == true);
  tight["images"] = 1;
  const json ram_img = estimate(tight);
  CHECK(ram_img["memory"]["host"]["total_bytes"].get<std::uint64_t>() ==
        ram_text["memory"]["host"]["total_bytes"].get<std::uint64_t>() + resident);
  CHECK(ram_img["memory"]["host"]["ram_fits"] == false);
  CHECK(ram_img["verdict"] == "no_fit");
  // A published file size (the Hub's listing) replaces the computed one.
  json pub = gemma(1);
  pub["mmproj_bytes"] = 858000000;
  CHECK(estimate(pub)["projector"]["bytes"] == 858000000);
  CHECK(estimate(pub)["projector"]["bytes_source"] == "published");
  // Many images fill the context: said, with the share.
  json many = gemma(40);
  many["context"] = 8192;
  const json m = estimate(many);
  CHECK(m["projector"]["exceeds_context"] == true);
  CHECK(m["projector"]["context_share"].get<double>() == Approx(40.0 * 256 / 8192));
}

TEST_CASE("the first token of a prompt with two images is the text's plus 512 image tokens at the prefill rate", "[projector]") {
  const json off = estimate(gemma(0));
  const json on = estimate(gemma(2));
  const json& s = on["speed"];
  const json& f = s["first_token"];
  // Text only: the whole prompt is the text prompt (512 tokens, llama-bench's -p).
  CHECK(off["speed"]["first_token"]["code"] == "text_only");
  CHECK(off["speed"]["first_token"]["ms"].get<double>() == off["speed"]["ttft_ms"].get<double>());
  CHECK(off["speed"]["first_token"]["tokens"] == 512);
  CHECK(!off["speed"]["first_token"].contains("image_ms"));
  // `prompt` counts text only: the images do not change the text's own figure.
  CHECK(s["ttft_ms"].get<double>() == Approx(off["speed"]["ttft_ms"].get<double>()));
  CHECK(f["code"] == "includes_media");
  CHECK(f["prompt_tokens"] == 512);
  CHECK(f["images"] == 2);
  CHECK(f["image_tokens"] == 2 * 256);  // Gemma 3: 256 tokens per image, whatever its size
  CHECK(f["image_encode"] == "not_modelled");  // the encoder's own run is said to be left out
  CHECK(f["tokens"] == 512 + 2 * 256);
  const double pp = s["prefill_tps"];
  REQUIRE(pp > 0);
  CHECK(f["text_ms"].get<double>() == s["ttft_ms"].get<double>());
  CHECK(f["image_ms"].get<double>() == Approx(1000.0 * 512 / pp));
  CHECK(f["image_ms"].get<double>() == Approx(1000.0 * on["projector"]["image_prefill_seconds"].get<double>()));
  CHECK(f["ms"].get<double>() == Approx(s["ttft_ms"].get<double>() + 1000.0 * 512 / pp));
  // 512 text + 512 image tokens at one rate: twice the text's wait.
  CHECK(f["ms"].get<double>() == Approx(2 * s["ttft_ms"].get<double>()));
  // The prefill range carries through: the fastest prefill gives the shortest wait.
  CHECK(f["ms_low"].get<double>() == Approx(f["ms"].get<double>() * pp / s["prefill_tps_high"].get<double>()));
  CHECK(f["ms_high"].get<double>() == Approx(f["ms"].get<double>() * pp / s["prefill_tps_low"].get<double>()));
  CHECK(f["ms_low"].get<double>() == Approx(2 * s["ttft_ms_low"].get<double>()));
  CHECK(f["ms_high"].get<double>() == Approx(2 * s["ttft_ms_high"].get<double>()));
  CHECK(f["exceeds_context"] == false);
  // Forty images (10,240 tokens) and the text overflow an 8,192-token context: said.
  const json many = estimate(gemma(40));
  CHECK(many["speed"]["first_token"]["tokens"] == 512 + 40 * 256);
  CHECK(many["speed"]["first_token"]["context"] == 8192);
  CHECK(many["speed"]["first_token"]["exceeds_context"] == true);
  // Split over two GPUs: the images at the placed prefill rate.
  json two = gemma(2);
  two["hardware"] = json::array({"nvidia-rtx-3090", "nvidia-rtx-3090"});
  const json t = estimate(two);
  REQUIRE(t["speed"].contains("first_token"));
  CHECK(t["speed"]["first_token"]["code"] == "includes_media");
  CHECK(t["speed"]["first_token"]["image_ms"].get<double>() == Approx(1000.0 * 512 / t["speed"]["prefill_tps"].get<double>()));
}

TEST_CASE("engines and towers that do not model the images give the first token's code, not a figure", "[projector]") {
  // vLLM loads the tower itself: the text's own figure stays, the whole prompt's is not given.
  const json v = estimate({{"model", "google/gemma-3-27b-it"}, {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"},
                           {"context", 8192}, {"images", 2}});
  REQUIRE(v["speed"].contains("first_token"));
  const json& f = v["speed"]["first_token"];
  CHECK(f["code"] == "media_not_modelled");
  CHECK(f["media_codes"]["images"] == "engine_not_modelled");
  CHECK(f["engine"] == "vllm");
  CHECK(!f.contains("ms"));
  CHECK(!f.contains("image_ms"));
  CHECK(f["text_ms"].get<double>() == v["speed"]["ttft_ms"].get<double>());
  // Without images vLLM's first token is the text's, as on every engine.
  const json v0 = estimate({{"model", "google/gemma-3-27b-it"}, {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"}, {"context", 8192}});
  REQUIRE(v0["speed"].contains("first_token"));
  CHECK(v0["speed"]["first_token"]["code"] == "text_only");
  CHECK(v0["speed"]["first_token"]["ms"].get<double>() == v0["speed"]["ttft_ms"].get<double>());
  // MLX on a Mac: mlx-lm's own handling of images is not modelled either.
  const json m = estimate({{"model", "google/gemma-3-27b-it"}, {"hardware", "apple-m4-max-40c-gpu-128gb"}, {"engine", "mlx"},
                           {"context", 8192}, {"images", 2}});
  REQUIRE(m["speed"].contains("first_token"));
  CHECK(m["speed"]["first_token"]["code"] == "media_not_modelled");
  CHECK(m["speed"]["first_token"]["engine"] == "mlx");
  CHECK(m["speed"]["first_token"]["media_codes"]["images"] == "engine_not_modelled");
  // A vision tower the core does not model (Kimi K2.5's MoonViT) on llama.cpp: its code.
  const json k = estimate({{"model", "moonshotai/Kimi-K2.5"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h200-sxm"},
                           {"count", 8}, {"context", 32768}, {"images", 1}});
  REQUIRE(k["speed"].contains("first_token"));
  CHECK(k["speed"]["first_token"]["code"] == "media_not_modelled");
  CHECK(k["speed"]["first_token"]["media_codes"]["images"] == "projector_family_unknown");
  CHECK(!k["speed"]["first_token"].contains("ms"));
}

TEST_CASE("llama-server -hf fetches the repo's mmproj itself: --no-mmproj keeps it out for text", "[projector]") {
  // The catalog's published Q4_0 repo of Gemma 3 27B is named with -hf.
  json q = gemma(0);
  q["quant"] = "Q4_0";
  const std::string text = estimate(q)["commands"]["llama_server"];
  REQUIRE(text.find(" -hf ") != std::string::npos);
  CHECK(text.find("--no-mmproj") != std::string::npos);
  q["images"] = 1;
  const std::string img = estimate(q)["commands"]["llama_server"];
  CHECK(img.find("mmproj") == std::string::npos);  // -hf loads it; no flag needed
  // A text-only model's command never names a projector.
  const std::string llama = estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-rtx-4090"}})["commands"]["llama_server"];
  CHECK(llama.find("mmproj") == std::string::npos);
}

TEST_CASE("a server engine's own vision tower is said to be outside the model, images or not", "[projector]") {
  for (int images : {0, 1}) {
    json v = {{"model", "google/gemma-3-27b-it"}, {"hardware", "nvidia-h100-sxm"}, {"engine", "vllm"}, {"images", images}};
    const json r = estimate(v);
    CHECK(r["projector"]["code"] == "engine_not_modelled");
    CHECK(r["projector"]["loaded"] == false);
    CHECK(r["memory"]["projector_bytes"] == 0);
  }
}

TEST_CASE("projector inputs: coded errors with the field path", "[projector]") {
  json text_only = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-rtx-4090"}, {"images", 1}};
  json r = estimate(text_only);
  CHECK(r["error"]["code"] == "no_projector");
  CHECK(r["error"]["path"] == "images");
  CHECK(!estimate({{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"hardware", "nvidia-rtx-4090"}}).contains("projector"));
  json bad = gemma(1);
  bad["mmproj_type"] = "q4_k";
  CHECK(estimate(bad)["error"]["code"] == "bad_value");
  CHECK(estimate(bad)["error"]["path"] == "mmproj_type");
  json neg = gemma(-1);
  CHECK(estimate(neg)["error"]["path"] == "images");
  json huge = gemma(1);
  huge["image_width"] = 100000;
  CHECK(estimate(huge)["error"]["path"] == "image_width");
}

TEST_CASE("Kimi K2.5's MoonViT tower is reported as not modelled, and its estimate loads no projector", "[projector]") {
  const VisionSpec v = vision_spec_from_config(model_config("moonshotai/Kimi-K2.5"));
  CHECK(v.present);
  CHECK(v.family.empty());
  CHECK(v.code == "projector_family_unknown");
  CHECK(v.model_type == "kimi_k25");
  const json r = estimate({{"model", "moonshotai/Kimi-K2.5"}, {"quant", "Q4_K_M"}, {"hardware", "nvidia-h200-sxm"},
                           {"count", 8}, {"context", 32768}, {"images", 1}});
  REQUIRE(r.contains("projector"));
  CHECK(r["projector"]["code"] == "projector_family_unknown");
  CHECK(r["projector"]["modelled"] == false);
  CHECK(r["memory"]["projector_bytes"] == 0);
}

}  // namespace projector_test_cases
