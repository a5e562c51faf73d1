// GGUF headers: read one from the first bytes of a file, turn it into the tensor plan and the
// Architecture the estimator uses, summarise it as JSON, and write one back (for tests, fuzzers
// and the "config size == file size" invariant). Format as llama.cpp reads it
// (ggml/src/gguf.cpp, gguf_init_from_reader). The core does no I/O: callers pass bytes.
//
// Hostile input. Every count, length, type id, dims count, shape product and offset is checked
// before it is used; nothing is allocated in proportion to a count until the bytes that count
// claims are present. Failures are InputError with these codes (path "gguf" unless noted):
//   gguf_truncated    the bytes end inside the header. Thrown as GgufTruncated, whose
//                     needed_bytes() (also the error document's `needed_bytes` field) is a lower bound on
//                     the prefix that could parse further: read more and retry.
//   gguf_bad_magic    not a GGUF file;      gguf_bad_version  version other than 2 or 3
//   gguf_bad_type     unknown KV value type, array of arrays, unknown/removed ggml type id
//   gguf_too_large    a count or string length past the caps below
//   gguf_bad_dims     n_dims > 4;           gguf_bad_shape  negative ne, overflowing product,
//                                           or a row not divisible by the type's block size
//   gguf_bad_name     empty, duplicate or >= 64-byte tensor name (GGML_MAX_NAME = 64)
//   gguf_duplicate_key, gguf_bad_alignment (general.alignment not a u32 power of two),
//   gguf_bad_offset   a tensor's offset differs from the running padded sum llama.cpp requires
// Invalid UTF-8 in strings is not an error: such bytes become U+FFFD, so JSON output stays valid.
// Big-endian files (version field byte-swapped) are read, and reported as big_endian.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "willitfit/base/buffer.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/model/architecture.hpp"
#include "willitfit/model/quantize.hpp"

namespace wif {

/// GGUF metadata value types (gguf.h, enum gguf_type).
enum class GgufType : std::uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8,
  Array = 9, U64 = 10, I64 = 11, F64 = 12,
};

// Caps set from what real files use, so the work and memory a forged header can ask for stay
// within about a second and a few hundred MB (a header at the old 2^20-tensor cap took 11 s and
// 1.1 GB; 60 MiB strings 20-28 s). Each refusal is gguf_too_large with the bound in its message.
//  * tensors: 100,000. DeepSeek-V3 written with one tensor per routed expert (the older layout,
//    gguf-synth --split-experts) has ~45,456 tensors; Kimi-K2 (61 layers x 384 experts) in that
//    layout ~70,400; fused files have under 2,000.
//  * metadata pairs: 16,384 (real files: ~30-80 keys).
//  * array elements: 2^22 = 4,194,304 (the largest tokenizer tables: 262,144 tokens in Gemma 3,
//    ~151k tokens and merges in Qwen); arrays are skipped, not kept, past kGgufKeepArray.
//  * one string: 1 MiB (chat templates are up to ~100 KB; names a few KB).
//  * strings kept in the header in total (values and elements of kept arrays): 8 MiB.
constexpr std::uint64_t kGgufMaxTensors = 100000;
constexpr std::uint64_t kGgufMaxKv = 16384;
constexpr std::uint64_t kGgufMaxArray = std::uint64_t{1} << 22;
constexpr std::uint64_t kGgufMaxString = std::uint64_t{1} << 20;   // 1 MiB
constexpr std::uint64_t kGgufMaxKeptStrings = std::uint64_t{8} << 20;
/// The largest header the CLI and the page read before refusing (gguf_too_large): 64 MiB.
/// 100,000 tensor infos take under 10 MB, a 262k-token tokenizer about 6 MB.
constexpr std::uint64_t kGgufMaxHeaderBytes = std::uint64_t{64} << 20;
/// Arrays longer than this keep only their type and count (tokenizer tables), not their values.
constexpr std::uint64_t kGgufKeepArray = 4096;

/// One metadata pair. Scalars sit in `value` (u64/i64 keep full precision, f32/f64 as double,
/// strings as UTF-8). Arrays: `elem_type`, `count`, and `value` holds the elements when
/// count <= kGgufKeepArray, else null.
struct GgufKv {
  std::string key;
  GgufType type = GgufType::U32;
  GgufType elem_type = GgufType::U8;   // arrays only
  std::uint64_t count = 0;             // arrays only
  nlohmann::json value;
};

struct GgufTensorInfo {
  std::string name;
  int n_dims = 1;
  std::array<std::int64_t, 4> ne{1, 1, 1, 1};
  GgmlType type = GgmlType::F32;
  std::uint64_t offset = 0;            // relative to the data section
  std::uint64_t bytes = 0;             // ggml_nbytes: row bytes x rows
};

struct GgufHeader {
  std::uint32_t version = 3;
  bool big_endian = false;
  std::vector<GgufKv> kv;
  std::vector<GgufTensorInfo> tensors;
  std::uint64_t alignment = 32;
  std::uint64_t header_bytes = 0;      // magic .. end of the last tensor info
  std::uint64_t data_offset = 0;       // header_bytes padded to alignment
  std::uint64_t data_bytes = 0;        // sum of tensor sizes, each padded to alignment
  std::uint64_t file_bytes() const { return data_offset + data_bytes; }

  const GgufKv* find(const std::string& key) const;   // nullptr when absent
};

/// The bytes end inside the header; needed_bytes() is how many the parser wants at least.
class GgufTruncated : public InputError {
 public:
  GgufTruncated(std::uint64_t needed, std::uint64_t have, const std::string& path = "gguf");
  std::uint64_t needed_bytes() const { return needed_; }

 private:
  std::uint64_t needed_;
};

/// Parse the header at the start of `data` (a file prefix is enough; tensor data is never read).
GgufHeader parse_gguf_header(const std::uint8_t* data, std::size_t size);
inline GgufHeader parse_gguf_header(const std::vector<std::uint8_t>& b) {
  return parse_gguf_header(b.data(), b.size());
}

/// Every tensor with its real type and bytes, roles and layers from the names (as tensors.cpp
/// assigns them), file_bytes = data offset + padded tensors, header_bytes exact, from_file.
/// `quant` becomes the file type's name (general.file_type) or "GGUF" when absent/unknown.
TensorPlan gguf_tensor_plan(const GgufHeader& h);

/// The Architecture from the {arch}.* keys (llama.cpp src/llama-arch.cpp LLM_KV_NAMES; SWA
/// patterns from src/llama-model.cpp load_hparams). Known archs:
/// llama, qwen2, qwen3, qwen3moe, qwen2moe, glm4moe, deepseek2, gpt-oss, gemma2, gemma3, phi3,
/// qwen3next, cohere2, llama4 and the generic transformer case; others work when head counts
/// exist. Throws InputError("gguf_missing_key", "gguf.<key>") when a needed key is absent.
Architecture gguf_architecture(const GgufHeader& h);

/// general.file_type number -> llama_ftype name ("Q4_K_M"); "" when unknown.
std::string gguf_file_type_name(std::int64_t ftype);

/// The summary document: general.name, architecture, file type, counts, sizes, a histogram of
/// tensor types with bytes, params, KV-relevant hyperparameters, metadata and tensor infos.
/// If the architecture cannot be built the summary still returns, with "architecture_error".
/// `tensors` chooses the per-tensor part: List (default) an array of {name, type, shape, bytes,
/// offset}; Columns one array per field ("tensor_columns": name[], type[] (index into
/// type_names[]), n_dims[], ne[] (4 per tensor), bytes[], offset[]), which is much cheaper to
/// build and to parse for headers with tens of thousands of tensors; None leaves it out (the
/// per-type histogram and everything else are still computed from every tensor); Table is
/// None here, and api_gguf_summary_table adds "tensor_table" (gguf_tensor_table's layout) with
/// the tensors in that table's bytes (the wasm boundary hands them over as one typed array: no
/// per-tensor JSON is written or parsed).
enum class GgufTensorList { List, Columns, None, Table };
nlohmann::json gguf_summary(const GgufHeader& h, GgufTensorList tensors = GgufTensorList::List);

/// Every tensor info as one little-endian block of columns, in this order (each column starts
/// at the byte offset the layout's "columns" gives; f64 first so every column is aligned):
///   bytes f64[n], offset f64[n], ne f64[4n] (4 per tensor, 1-padded), name_end u32[n] (end of
///   each name in the decoded names string, in UTF-16 code units, as JS strings count),
///   type u8[n] (index into type_names), n_dims u8[n], names: the names' UTF-8 concatenated.
/// Sizes and offsets are below 2^63 (the reader refuses more); f64 holds them exactly up to
/// 2^53 bytes (8 PiB), as JSON numbers parsed by JS would.
struct GgufTensorTable {
  nlohmann::json layout;            // {count, type_names[], names_bytes, columns{name: byte offset}}
  ByteBuffer bytes;                 // the columns, every byte written (no padding)
};
GgufTensorTable gguf_tensor_table(const GgufHeader& h);

/// Everything the estimator takes from a header. Errors carry `path` in place of "gguf"
/// (e.g. "model.gguf_header_base64" or "model.gguf_header_base64.llama.block_count"). A file
/// with one tensor per routed expert gets a plan with the merged stacks llama.cpp loads.
struct GgufModel {
  GgufHeader header;
  Architecture arch;
  TensorPlan plan;
  std::string name;   // general.name, else "<arch> (GGUF)"
};
GgufModel load_gguf_model(const std::uint8_t* data, std::size_t size, const std::string& path);

/// A model cut by gguf-split into shards "<stem>-0000k-of-0000N.gguf" (llama.cpp
/// tools/gguf-split/gguf-split.cpp): shard 1 carries every metadata key and its own tensors, the
/// others the split.* keys (split.no, split.count, split.tensors.count) and theirs; llama.cpp
/// loads them as one model (src/llama-model-loader.cpp). `shards[k]` is the first bytes of shard
/// k+1 with its error path. The plan holds every shard's tensors, header_bytes and file_bytes
/// summed over the shards; the architecture and name come from shard 1. Errors as
/// load_gguf_model (a GgufTruncated carries the shard's path), and gguf_split_mismatch (path of
/// the shard) when a shard's split.no or split.count, or the total of tensors against shard 1's
/// split.tensors.count, disagree; gguf_bad_name when two shards hold the same tensor.
struct GgufShard {
  const std::uint8_t* data;
  std::size_t size;
  std::string path;
};
GgufModel load_gguf_split_model(const std::vector<GgufShard>& shards);

/// Bytes that are either a GGUF prefix (starting "GGUF") or its base64 text.
std::vector<std::uint8_t> gguf_bytes_or_base64(const std::string& in, const std::string& path);

// ---- writing ----

/// Tensor infos and metadata to header bytes (magic .. padding up to the data offset). Offsets
/// are assigned as running padded sums; `kv` is written in order (general.alignment included
/// if present). Values are taken from GgufKv::value, arrays must carry all their elements.
std::vector<std::uint8_t> write_gguf_header(const std::vector<GgufKv>& kv,
                                            const std::vector<Tensor>& tensors,
                                            std::uint32_t version = 3, bool big_endian = false);

/// The metadata llama.cpp's converter would write for `arch` (general.*, {arch}.*, and a
/// tokenizer.ggml.tokens array of n_vocab placeholder strings), the inverse of gguf_architecture.
std::vector<GgufKv> gguf_metadata_for(const Architecture& arch, const std::string& name,
                                      const std::string& file_type);

/// The routed expert stacks of `tensors` (3-D "blk.N.ffn_{gate,up,down}_exps.*", ne2 = experts)
/// rewritten as one 2-D tensor per expert, "blk.N.ffn_gate.E.weight", in the older layout
/// llama.cpp's converter wrote before merged stacks (early Mixtral GGUFs; llama-arch.cpp
/// LLM_TENSOR_FFN_GATE_EXP "blk.%d.ffn_gate.%d"), same type and total bytes, each stack's
/// experts in its place in the order. Other tensors are unchanged.
std::vector<Tensor> gguf_split_experts(const std::vector<Tensor>& tensors);

/// Helpers to build GgufKv values.
GgufKv gguf_kv(const std::string& key, GgufType t, nlohmann::json value);
GgufKv gguf_kv_array(const std::string& key, GgufType elem, nlohmann::json values);

}  // namespace wif
