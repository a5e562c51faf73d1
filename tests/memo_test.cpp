// The memo (catalog_memo.hpp): derived data is made once per catalog and never changes an answer.
#include <catch2/catch.hpp>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/estimate/catalog_memo.hpp"

namespace memo_test_cases {

using nlohmann::json;

namespace {

const wif::Catalog& cat() { return wif_test::catalog(); }

}  // namespace

TEST_CASE("a catalog model's plan is made once per quant and options, and equals a fresh plan", "[memo]") {
  const wif::ModelEntry* m = cat().find_model("zai-org/GLM-4.5-Air");
  REQUIRE(m);
  const auto a = wif::memo_plan(cat(), *m, "Q4_K_M", {});
  const auto b = wif::memo_plan(cat(), *m, "Q4_K_M", {});
  CHECK(a.get() == b.get());
  CHECK(wif::memo_plan(cat(), *m, "Q8_0", {}).get() != a.get());
  wif::QuantOptions no_imatrix;
  no_imatrix.imatrix = false;
  CHECK(wif::memo_plan(cat(), *m, "Q4_K_M", no_imatrix).get() != a.get());
  const wif::TensorPlan fresh = wif::plan_quantization(m->arch, "Q4_K_M");
  CHECK(a->file_bytes == fresh.file_bytes);
  CHECK(a->weights_bytes == fresh.weights_bytes);
  REQUIRE(a->tensors.size() == fresh.tensors.size());
  CHECK(wif::memo_params(cat(), *m).total == wif::count_params(m->arch).total);
}

TEST_CASE("an unknown quant through the memo is the planner's error, and nothing is cached", "[memo]") {
  const wif::ModelEntry* m = cat().find_model("zai-org/GLM-4.5-Air");
  REQUIRE(m);
  CHECK_THROWS_AS(wif::memo_plan(cat(), *m, "Q4_K_Z", {}), wif::InputError);
  CHECK_THROWS_AS(wif::memo_plan(cat(), *m, "Q4_K_Z", {}), wif::InputError);
}

TEST_CASE("repeated and interleaved estimates give byte-identical documents", "[memo]") {
  const std::string glm = R"({"model":"zai-org/GLM-4.5-Air","quant":"Q4_K_M","hardware":"nvidia-rtx-4090","ram_gib":64})";
  const std::string llama = R"({"model":"meta-llama/Llama-3.1-8B-Instruct","quant":"Q4_K_M","hardware":"apple-m4-max-40c-gpu-128gb"})";
  // A fresh catalog: the first answer is computed, the later ones come from its memo.
  const wif::Catalog fresh = wif::Catalog::load(wif::embedded_catalog());
  const std::string g1 = wif::api_estimate(fresh, glm), l1 = wif::api_estimate(fresh, llama);
  CHECK(wif::api_estimate(fresh, glm) == g1);
  CHECK(wif::api_estimate(fresh, llama) == l1);
  CHECK(wif::api_estimate(cat(), glm) == g1);  // another catalog's memo agrees
  CHECK(json::parse(g1).contains("memory"));
}

TEST_CASE("a custom model that borrows a catalog id is planned from its own config", "[memo]") {
  // Warm the memo for the catalog entry, then ask with a config of a different shape under the
  // same id: the answer must be the custom model's, not the cached catalog plan.
  const std::string id = "zai-org/GLM-4.5-Air";
  const json cat_doc = json::parse(wif::api_estimate(cat(), R"({"model":")" + id + R"(","hardware":"nvidia-rtx-4090"})"));
  json cfg = wif_test::golden_config("llama-3.1-8b");
  json q = {{"model", {{"id", id}, {"config", cfg}}}, {"hardware", "nvidia-rtx-4090"}};
  const json custom = json::parse(wif::api_estimate(cat(), q.dump()));
  REQUIRE(custom.contains("memory"));
  CHECK(custom["memory"]["weights_bytes"].get<double>() < cat_doc["memory"]["weights_bytes"].get<double>() / 4);
}

TEST_CASE("the plan store keeps the recent plans only, and an evicted plan stays valid for its holder", "[memo]") {
  const wif::Catalog fresh = wif::Catalog::load(wif::embedded_catalog());
  const wif::ModelEntry& first = fresh.models().front();
  const auto held = wif::memo_plan(fresh, first, "Q4_K_M", {});
  const std::uint64_t bytes = held->file_bytes;
  int made = 0;
  for (const auto& m : fresh.models()) {
    if (&m == &first) continue;
    for (const char* q : {"Q4_K_M", "Q8_0"}) {
      wif::memo_plan(fresh, m, q, {});
      ++made;
    }
    if (made > 60) break;
  }
  REQUIRE(made > 48);
  CHECK(held->file_bytes == bytes);  // still ours to read
  const auto again = wif::memo_plan(fresh, first, "Q4_K_M", {});
  CHECK(again.get() != held.get());  // evicted, so made anew
  CHECK(again->file_bytes == bytes);
}

TEST_CASE("plans made from a model's shared skeleton equal fresh plans, tensor by tensor", "[memo]") {
  // memo_plan reuses a model's skeleton (its tensors and llama-quantize's order) across formats;
  // the models alternate so that a skeleton is reused after another model's, and each plan is
  // checked against plan_quantization made from nothing.
  const wif::Catalog fresh = wif::Catalog::load(wif::embedded_catalog());
  const auto& models = fresh.models();
  int compared = 0;
  for (std::size_t i = 0; i < models.size(); ++i) {
    for (std::size_t k : {i, i > 0 ? i - 1 : i}) {
      const wif::ModelEntry& m = models[k];
      for (const char* q : {"Q4_K_M", "IQ2_XXS", "FP8", "AWQ-4bit"}) {
        wif::QuantOptions opt;
        if (const wif::PublishedCheckpoint* c = m.checkpoint(q)) opt.linear_bits = c->linear_bits;
        std::shared_ptr<const wif::TensorPlan> a;
        try {
          a = wif::memo_plan(fresh, m, q, {});
        } catch (const wif::InputError&) {
          CHECK_THROWS_AS(wif::plan_quantization(m.arch, q, opt), wif::InputError);
          continue;
        }
        const wif::TensorPlan b = wif::plan_quantization(m.arch, q, opt);
        INFO(m.id << " " << q);
        REQUIRE(a->tensors.size() == b.tensors.size());
        bool same = a->file_bytes == b.file_bytes && a->header_bytes == b.header_bytes;
        for (std::size_t t = 0; t < b.tensors.size() && same; ++t)
          same = a->tensors[t].name == b.tensors[t].name && a->tensors[t].type == b.tensors[t].type &&
                 a->tensors[t].bytes == b.tensors[t].bytes;
        CHECK(same);
        ++compared;
      }
    }
  }
  CHECK(compared > 4 * static_cast<int>(models.size()));
}

}  // namespace memo_test_cases
