#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <functional>

#include "test_util.hpp"
#include "willitfit/api/api.hpp"
#include "willitfit/base/base64.hpp"
#include "willitfit/catalog/catalog.hpp"
#include "willitfit/gguf/gguf.hpp"
#include "willitfit/llamacpp/kv_cache.hpp"

namespace gguf_test_cases {

using namespace wif;
using nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::uint64_t pad(std::uint64_t x, std::uint64_t a) { return (x + a - 1) / a * a; }

Tensor tensor(const std::string& name, std::initializer_list<std::int64_t> shape, GgmlType type) {
  Tensor t;
  t.name = name;
  int i = 0;
  for (auto d : shape) t.ne[i++] = d;
  t.n_dims = static_cast<int>(shape.size());
  t.type = type;
  return t;
}

// A small but complete llama header: 2 layers, 4 heads (2 KV) of 16, vocab 8.
std::vector<GgufKv> tiny_kv() {
  return {gguf_kv("general.architecture", GgufType::String, "llama"),
          gguf_kv("general.name", GgufType::String, "Tiny"),
          gguf_kv("general.file_type", GgufType::U32, 15),
          gguf_kv("llama.block_count", GgufType::U32, 2),
          gguf_kv("llama.context_length", GgufType::U32, 4096),
          gguf_kv("llama.embedding_length", GgufType::U32, 64),
          gguf_kv("llama.feed_forward_length", GgufType::U32, 256),
          gguf_kv("llama.attention.head_count", GgufType::U32, 4),
          gguf_kv("llama.attention.head_count_kv", GgufType::U32, 2),
          gguf_kv("llama.rope.freq_base", GgufType::F32, 500000.0),
          gguf_kv("llama.attention.layer_norm_rms_epsilon", GgufType::F32, 1e-5),
          gguf_kv("tokenizer.ggml.add_bos_token", GgufType::Bool, true),
          gguf_kv("tokenizer.ggml.bos_token_id", GgufType::U32, 1),
          gguf_kv("general.size_label", GgufType::String, "tiny"),
          gguf_kv("test.i64", GgufType::I64, -5),
          gguf_kv_array("tokenizer.ggml.tokens", GgufType::String, json{"<s>", "</s>", "a", "b", "c", "d", "e", "f"}),
          gguf_kv_array("tokenizer.ggml.scores", GgufType::F32, json{0, 0, 1.5, 2, 3, 4, 5, 6})};
}
std::vector<Tensor> tiny_tensors() {
  std::vector<Tensor> v = {tensor("token_embd.weight", {64, 8}, GgmlType::Q8_0),
                           tensor("output_norm.weight", {64}, GgmlType::F32),
                           tensor("output.weight", {64, 8}, GgmlType::Q8_0)};
  for (int il = 0; il < 2; ++il) {
    const std::string b = "blk." + std::to_string(il) + ".";
    v.push_back(tensor(b + "attn_norm.weight", {64}, GgmlType::F32));
    v.push_back(tensor(b + "attn_q.weight", {64, 64}, GgmlType::Q8_0));
    v.push_back(tensor(b + "attn_k.weight", {64, 32}, GgmlType::Q8_0));
    v.push_back(tensor(b + "attn_v.weight", {64, 32}, GgmlType::F16));
    v.push_back(tensor(b + "attn_output.weight", {64, 64}, GgmlType::Q4_0));
    v.push_back(tensor(b + "ffn_norm.weight", {64}, GgmlType::F32));
    v.push_back(tensor(b + "ffn_gate.weight", {256, 64}, GgmlType::Q4_K));
    v.push_back(tensor(b + "ffn_up.weight", {256, 64}, GgmlType::Q4_K));
    v.push_back(tensor(b + "ffn_down.weight", {256, 64}, GgmlType::Q6_K));
  }
  return v;
}
Bytes tiny() { return write_gguf_header(tiny_kv(), tiny_tensors()); }

std::size_t find_bytes(const Bytes& b, const std::string& s) {
  for (std::size_t i = 0; i + s.size() <= b.size(); ++i)
    if (std::memcmp(b.data() + i, s.data(), s.size()) == 0) return i;
  throw std::runtime_error("no '" + s + "' in the header");
}
template <class T>
void put(Bytes& b, std::size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof(T));
}
std::string code_of(const Bytes& b) {
  try {
    parse_gguf_header(b);
    return "ok";
  } catch (const InputError& e) {
    return e.error().code;
  }
}

}  // namespace

TEST_CASE("a written header reads back with every tensor, offset, type and metadata value", "[gguf]") {
  const Bytes b = tiny();
  const GgufHeader h = parse_gguf_header(b);
  CHECK(h.version == 3);
  CHECK_FALSE(h.big_endian);
  REQUIRE(h.tensors.size() == tiny_tensors().size());
  CHECK(h.kv.size() == tiny_kv().size());
  CHECK(h.data_offset == b.size());
  CHECK(h.data_offset % 32 == 0);
  std::uint64_t off = 0;
  const auto want = tiny_tensors();
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    const auto& t = h.tensors[i];
    const auto& w = want[i];
    CAPTURE(t.name);
    CHECK(t.name == w.name);
    CHECK(t.type == w.type);
    CHECK(t.ne == w.ne);
    CHECK(t.offset == off);
    off += pad(t.bytes, 32);
  }
  CHECK(h.file_bytes() == b.size() + off);
  CHECK(h.find("llama.rope.freq_base")->value.get<double>() == 500000.0);
  CHECK(h.find("test.i64")->value.get<std::int64_t>() == -5);
  CHECK(h.find("tokenizer.ggml.add_bos_token")->value.get<bool>());
  CHECK(h.find("tokenizer.ggml.tokens")->count == 8);
  CHECK(h.find("tokenizer.ggml.tokens")->value[2] == "a");
  // Q4_K rows of 256: 144 bytes per row, 64 rows.
  CHECK(h.tensors[9].bytes == 144u * 64);
  CHECK(h.tensors[0].bytes == 34u * 2 * 8);
}

TEST_CASE("every prefix of a header is truncated, and the bytes it asks for converge on the header", "[gguf]") {
  const Bytes full = tiny();
  const std::uint64_t header = parse_gguf_header(full).header_bytes;
  for (std::size_t n = 0; n < header; ++n) {
    CAPTURE(n);
    try {
      parse_gguf_header(full.data(), n);
      FAIL("a prefix parsed");
    } catch (const GgufTruncated& e) {
      CHECK(e.error().code == "gguf_truncated");
      CHECK(e.needed_bytes() > n);
      CHECK(e.needed_bytes() <= header);
      CHECK(e.error().message.find("needs " + std::to_string(e.needed_bytes()) + " bytes") != std::string::npos);
    }
  }
  CHECK_NOTHROW(parse_gguf_header(full.data(), header));
  // A reader that grows its read to max(needed, 2 x what it has), as the CLI does, needs few rounds
  // and never reads past the header by more than a factor of two.
  std::size_t have = 16;
  int rounds = 0;
  for (;; ++rounds) {
    try {
      parse_gguf_header(full.data(), std::min(have, full.size()));
      break;
    } catch (const GgufTruncated& e) {
      have = std::max<std::size_t>(e.needed_bytes(), 2 * have);
    }
  }
  CHECK(rounds <= 8);
  CHECK(have < 2 * header);
}

TEST_CASE("hostile counts, lengths, types, dims and shapes give their error codes", "[gguf]") {
  const Bytes ok = tiny();
  const std::size_t q = find_bytes(ok, "blk.0.attn_q.weight") + 19;  // n_dims of attn_q
  const std::size_t key0 = 24;                                      // first key's length
  const std::size_t type0 = key0 + 8 + std::strlen("general.architecture");
  const std::size_t tok = find_bytes(ok, "tokenizer.ggml.tokens") + 21;  // its value type
  using Patch = std::function<void(Bytes&)>;
  const std::vector<std::tuple<const char*, const char*, Patch>> cases = {
      {"bad magic", "gguf_bad_magic", [](Bytes& b) { b[3] = 'X'; }},
      {"version 1", "gguf_bad_version", [](Bytes& b) { put<std::uint32_t>(b, 4, 1); }},
      {"version 9", "gguf_bad_version", [](Bytes& b) { put<std::uint32_t>(b, 4, 9); }},
      {"negative tensor count", "gguf_too_large", [](Bytes& b) { put<std::int64_t>(b, 8, -1); }},
      {"2^40 tensors", "gguf_too_large", [](Bytes& b) { put<std::int64_t>(b, 8, std::int64_t{1} << 40); }},
      {"2^62 pairs", "gguf_too_large", [](Bytes& b) { put<std::int64_t>(b, 16, std::int64_t{1} << 62); }},
      {"more pairs than bytes", "gguf_truncated", [](Bytes& b) { put<std::int64_t>(b, 16, 10000); }},
      {"pairs past the cap", "gguf_too_large", [](Bytes& b) { put<std::int64_t>(b, 16, kGgufMaxKv + 1); }},
      {"tensors past the cap", "gguf_too_large", [](Bytes& b) { put<std::int64_t>(b, 8, kGgufMaxTensors + 1); }},
      {"2^60-byte key", "gguf_too_large", [&](Bytes& b) { put<std::uint64_t>(b, key0, std::uint64_t{1} << 60); }},
      {"key longer than the file", "gguf_truncated", [&](Bytes& b) { put<std::uint64_t>(b, key0, 60000); }},
      {"value type 13", "gguf_bad_type", [&](Bytes& b) { put<std::uint32_t>(b, type0, 13); }},
      {"value type 2^31", "gguf_bad_type", [&](Bytes& b) { put<std::uint32_t>(b, type0, 0x80000000u); }},
      {"array of arrays", "gguf_bad_type", [&](Bytes& b) { put<std::uint32_t>(b, tok + 4, 9); }},
      {"array element type 77", "gguf_bad_type", [&](Bytes& b) { put<std::uint32_t>(b, tok + 4, 77); }},
      {"2^50 elements", "gguf_too_large", [&](Bytes& b) { put<std::uint64_t>(b, tok + 8, std::uint64_t{1} << 50); }},
      {"2^21 elements in a small file", "gguf_truncated", [&](Bytes& b) { put<std::uint64_t>(b, tok + 8, 1u << 21); }},
      {"elements past the cap", "gguf_too_large", [&](Bytes& b) { put<std::uint64_t>(b, tok + 8, kGgufMaxArray + 1); }},
      {"a string value past 1 MiB", "gguf_too_large", [&](Bytes& b) { put<std::uint64_t>(b, tok + 16, kGgufMaxString + 1); }},
      {"string element of 2^62 bytes", "gguf_too_large", [&](Bytes& b) { put<std::uint64_t>(b, tok + 16, std::uint64_t{1} << 62); }},
      {"5 dimensions", "gguf_bad_dims", [&](Bytes& b) { put<std::uint32_t>(b, q, 5); }},
      {"2^32 dimensions", "gguf_bad_dims", [&](Bytes& b) { put<std::uint32_t>(b, q, 0xFFFFFFFFu); }},
      {"negative ne", "gguf_bad_shape", [&](Bytes& b) { put<std::int64_t>(b, q + 4, -64); }},
      {"overflowing shape", "gguf_bad_shape", [&](Bytes& b) {
         put<std::int64_t>(b, q + 4, std::int64_t{1} << 40);
         put<std::int64_t>(b, q + 12, std::int64_t{1} << 40);
       }},
      {"row not a multiple of the block", "gguf_bad_shape", [&](Bytes& b) { put<std::int64_t>(b, q + 4, 48); }},
      {"removed type 4", "gguf_bad_type", [&](Bytes& b) { put<std::uint32_t>(b, q + 20, 4); }},
      {"type 4000000000", "gguf_bad_type", [&](Bytes& b) { put<std::uint32_t>(b, q + 20, 4000000000u); }},
      {"wrong offset", "gguf_bad_offset", [&](Bytes& b) { put<std::uint64_t>(b, q + 24, 7); }},
      {"64-byte tensor name", "gguf_bad_name", [&](Bytes& b) { put<std::uint64_t>(b, q - 19 - 8, 64); }},
      {"duplicate tensor name", "gguf_bad_name", [&](Bytes& b) { b[q - 19 + 4] = '1'; }},  // blk.1.attn_q.weight
      {"duplicate key", "gguf_duplicate_key", [&](Bytes& b) { std::memcpy(b.data() + find_bytes(b, "llama.context_length"), "general.architecture", 20); }},
  };
  for (const auto& [what, code, patch] : cases) {
    Bytes b = ok;
    patch(b);
    CAPTURE(what);
    CHECK(code_of(b) == code);
  }
}

TEST_CASE("general.alignment pads the data section and every tensor, and must be a power of two", "[gguf]") {
  auto kv = tiny_kv();
  kv.push_back(gguf_kv("general.alignment", GgufType::U32, 256));
  const Bytes b = write_gguf_header(kv, tiny_tensors());
  const GgufHeader h = parse_gguf_header(b);
  CHECK(h.alignment == 256);
  CHECK(h.data_offset % 256 == 0);
  CHECK(h.data_offset == b.size());
  std::uint64_t sum = 0;
  for (const auto& t : h.tensors) {
    CHECK(t.offset % 256 == 0);
    sum += pad(t.bytes, 256);
  }
  CHECK(h.file_bytes() == h.data_offset + sum);
  CHECK(gguf_tensor_plan(h).file_bytes == h.file_bytes());
  kv.back() = gguf_kv("general.alignment", GgufType::U32, 48);
  CHECK(code_of(write_gguf_header(kv, {})) == "gguf_bad_alignment");
  kv.back() = gguf_kv("general.alignment", GgufType::U64, 64);  // llama.cpp wants a u32
  CHECK(code_of(write_gguf_header(kv, {})) == "gguf_bad_alignment");
}

TEST_CASE("big-endian files are detected and read", "[gguf]") {
  const Bytes be = write_gguf_header(tiny_kv(), tiny_tensors(), 3, true);
  const GgufHeader h = parse_gguf_header(be);
  const GgufHeader l = parse_gguf_header(tiny());
  CHECK(h.big_endian);
  CHECK(h.file_bytes() == l.file_bytes());
  CHECK(h.find("test.i64")->value == -5);
  CHECK(h.find("llama.rope.freq_base")->value == 500000.0);
  CHECK(h.tensors[3].ne == l.tensors[3].ne);
}

TEST_CASE("invalid UTF-8 in strings is replaced, so the summary is valid JSON", "[gguf]") {
  auto kv = tiny_kv();
  kv[1] = gguf_kv("general.name", GgufType::String, "ok");
  Bytes b = write_gguf_header(kv, tiny_tensors());
  b[find_bytes(b, "ok")] = 0xFF;
  const json s = json::parse(api_gguf_summary(std::string(b.begin(), b.end())));
  CHECK(s["name"] == "\xEF\xBF\xBDk");
}

TEST_CASE("the summary names the model, counts tensors by type and gives the KV hyperparameters", "[gguf]") {
  const Bytes b = tiny();
  const json s = json::parse(api_gguf_summary(base64_encode(b)));
  REQUIRE_FALSE(s.contains("error"));
  CHECK(s["name"] == "Tiny");
  CHECK(s["architecture"] == "llama");
  CHECK(s["file_type"]["name"] == "Q4_K_M");
  CHECK(s["gguf"]["n_tensors"] == 21);
  std::uint64_t bytes = 0;
  int tensors = 0;
  for (const auto& t : s["types"]) {
    bytes += t["bytes"].get<std::uint64_t>();
    tensors += t["tensors"].get<int>();
  }
  CHECK(bytes == s["weights_bytes"].get<std::uint64_t>());
  CHECK(tensors == 21);
  const auto& hp = s["hyperparameters"];
  CHECK(hp["n_layer"] == 2);
  CHECK(hp["n_head_kv"] == 2);
  CHECK(hp["head_dim_k"] == 16);
  CHECK(hp["n_vocab"] == 8);
  CHECK(hp["kv_bytes_per_token_f16"] == 2 * 2 * (2 * 16 * 2));
  CHECK(s["metadata"]["tokenizer.ggml.tokens"].size() == 8);
  const json e = json::parse(api_gguf_summary("not base64!"));
  CHECK(e["error"]["code"] == "bad_base64");
  const json t = json::parse(api_gguf_summary(std::string(b.begin(), b.begin() + 100)));
  CHECK(t["error"]["code"] == "gguf_truncated");
}

TEST_CASE("random byte corruption of a header gives a result or an InputError, never a crash", "[gguf]") {
  const Bytes ok = tiny();
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;   // fixed: the same 5000 corruptions every run
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    Bytes b = ok;
    const int flips = 1 + static_cast<int>(next() % 4);
    for (int k = 0; k < flips; ++k) b[next() % b.size()] = static_cast<std::uint8_t>(next());
    if (next() % 3 == 0) b.resize(next() % b.size());
    try {
      const GgufHeader h = parse_gguf_header(b);
      (void)gguf_summary(h).dump(-1, ' ', false, json::error_handler_t::strict);   // valid UTF-8 too
      ++parsed;
    } catch (const InputError&) {
      ++rejected;
    }
  }
  CHECK(parsed + rejected == 5000);
  CHECK(rejected > 0);
  CHECK(parsed > 0);
}

}  // namespace gguf_test_cases
