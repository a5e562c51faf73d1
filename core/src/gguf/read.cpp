// GGUF header reader (llama.cpp ggml/src/gguf.cpp, gguf_init_from_reader).
// Defensive by construction: each read first checks the bytes are there, each count is capped
// and checked against the bytes it needs before anything is allocated for it.
#include "willitfit/gguf/gguf.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace wif {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kI64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

[[noreturn]] void fail(const std::string& code, const std::string& msg) {
  throw InputError(code, "gguf", msg);
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return b > kU64Max - a ? kU64Max : a + b; }
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kU64Max / a ? kU64Max : a * b;
}
bool mul_ok(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > kU64Max / a) return false;
  out = a * b;
  return true;
}

// Fixed byte sizes of scalar value types; 0 for string/array (variable).
std::uint64_t scalar_size(std::uint32_t t) {
  switch (static_cast<GgufType>(t)) {
    case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
    case GgufType::U16: case GgufType::I16: return 2;
    case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
    case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
    default: return 0;
  }
}

// Replace bytes that are not valid UTF-8 with U+FFFD so the JSON we emit is always valid.
std::string utf8_clean(const char* s, std::size_t n) {
  std::size_t ascii = 0;   // fast path: tensor names and most keys are plain ASCII
  while (ascii < n && static_cast<unsigned char>(s[ascii]) < 0x80) ++ascii;
  if (ascii == n) return std::string(s, n);
  std::string out;
  out.reserve(n);
  std::size_t i = 0;
  const auto* u = reinterpret_cast<const unsigned char*>(s);
  while (i < n) {
    const unsigned char c = u[i];
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (u[i + k] & 0xC0) == 0x80;
    if (ok && len == 2) ok = c >= 0xC2;                                   // overlong
    if (ok && len == 3) ok = !(c == 0xE0 && u[i + 1] < 0xA0) && !(c == 0xED && u[i + 1] >= 0xA0);
    if (ok && len == 4) ok = c <= 0xF4 && !(c == 0xF0 && u[i + 1] < 0x90) && !(c == 0xF4 && u[i + 1] >= 0x90);
    if (ok) {
      out.append(s + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      i += 1;
    }
  }
  return out;
}

struct Reader {
  const std::uint8_t* p;
  std::uint64_t n;
  std::uint64_t pos = 0;
  bool be = false;

  void need(std::uint64_t k) const {
    if (k > n - pos) throw GgufTruncated(sat_add(pos, k), n);
  }
  template <class T>
  T num() {
    need(sizeof(T));
    std::uint8_t b[sizeof(T)];
    std::memcpy(b, p + pos, sizeof(T));
    if (be)
      for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    T v;
    std::memcpy(&v, b, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::uint64_t str_len(std::uint64_t cap, const char* what) {
    const std::uint64_t len = num<std::uint64_t>();
    if (len > cap)
      fail("gguf_too_large", std::string(what) + " of " + std::to_string(len) + " bytes is past the limit of " +
                                 std::to_string(cap));
    need(len);
    return len;
  }
  std::uint64_t kept = 0;   // bytes of strings kept so far (kGgufMaxKeptStrings)
  std::string str(std::uint64_t cap, const char* what) {
    const std::uint64_t len = str_len(cap, what);
    kept += len;
    if (kept > kGgufMaxKeptStrings)
      fail("gguf_too_large", "the header's strings pass the limit of " + std::to_string(kGgufMaxKeptStrings) + " bytes in all");
    std::string s = utf8_clean(reinterpret_cast<const char*>(p + pos), static_cast<std::size_t>(len));
    pos += len;
    return s;
  }
  void skip(std::uint64_t k) {
    need(k);
    pos += k;
  }

  nlohmann::json scalar(std::uint32_t t) {
    switch (static_cast<GgufType>(t)) {
      case GgufType::U8: return num<std::uint8_t>();
      case GgufType::I8: return num<std::int8_t>();
      case GgufType::U16: return num<std::uint16_t>();
      case GgufType::I16: return num<std::int16_t>();
      case GgufType::U32: return num<std::uint32_t>();
      case GgufType::I32: return num<std::int32_t>();
      case GgufType::F32: return static_cast<double>(num<float>());
      case GgufType::Bool: return num<std::uint8_t>() != 0;
      case GgufType::U64: return num<std::uint64_t>();
      case GgufType::I64: return num<std::int64_t>();
      case GgufType::F64: return num<double>();
      case GgufType::String: return str(kGgufMaxString, "a string value");
      default: fail("gguf_bad_type", "value type " + std::to_string(t) + " is not a GGUF type");
    }
  }
};

void read_kv(Reader& r, GgufKv& kv) {
  const std::uint32_t t = r.num<std::uint32_t>();
  if (t > static_cast<std::uint32_t>(GgufType::F64))
    fail("gguf_bad_type", "key '" + kv.key + "' has value type " + std::to_string(t) + ", which GGUF does not define");
  kv.type = static_cast<GgufType>(t);
  if (kv.type != GgufType::Array) {
    kv.value = r.scalar(t);
    return;
  }
  const std::uint32_t et = r.num<std::uint32_t>();
  if (et == static_cast<std::uint32_t>(GgufType::Array))
    fail("gguf_bad_type", "key '" + kv.key + "' is an array of arrays, which GGUF rejects");
  if (et > static_cast<std::uint32_t>(GgufType::F64))
    fail("gguf_bad_type", "key '" + kv.key + "' has array element type " + std::to_string(et) + ", which GGUF does not define");
  kv.elem_type = static_cast<GgufType>(et);
  kv.count = r.num<std::uint64_t>();
  if (kv.count > kGgufMaxArray)
    fail("gguf_too_large", "key '" + kv.key + "' claims " + std::to_string(kv.count) + " elements, past the limit of " +
                               std::to_string(kGgufMaxArray));
  const std::uint64_t esz = scalar_size(et);
  // The bytes every element needs at least (8 for a string's length) must be present first.
  r.need(kv.count * (esz ? esz : 8));
  if (kv.count <= kGgufKeepArray) {
    kv.value = nlohmann::json::array();
    for (std::uint64_t i = 0; i < kv.count; ++i) kv.value.push_back(r.scalar(et));
  } else if (esz) {
    r.skip(kv.count * esz);
  } else {
    for (std::uint64_t i = 0; i < kv.count; ++i) r.skip(r.str_len(kGgufMaxString, "a string element"));
  }
}

}  // namespace

GgufTruncated::GgufTruncated(std::uint64_t needed, std::uint64_t have, const std::string& path)
    : InputError(Error{"gguf_truncated", path,
                       "the GGUF header needs " + std::to_string(needed) + " bytes; only " + std::to_string(have) +
                           " were given (read more of the file, or the file is cut short)",
                       {}, needed}),
      needed_(needed) {}

const GgufKv* GgufHeader::find(const std::string& key) const {
  for (const auto& k : kv)
    if (k.key == key) return &k;
  return nullptr;
}

GgufHeader parse_gguf_header(const std::uint8_t* data, std::size_t size) {
  Reader r{data, static_cast<std::uint64_t>(size)};
  GgufHeader h;
  r.need(4);
  if (std::memcmp(data, "GGUF", 4) != 0) fail("gguf_bad_magic", "not a GGUF file: it does not start with 'GGUF'");
  r.pos = 4;
  std::uint32_t v = r.num<std::uint32_t>();
  // A big-endian file stores 3 as 00 00 00 03; read little-endian its low half is zero.
  if ((v & 0xFFFFu) == 0 && v != 0) {
    r.be = true;
    v = ((v >> 24) & 0xFF) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
    h.big_endian = true;
  }
  if (v == 1) fail("gguf_bad_version", "GGUF version 1 is no longer supported by llama.cpp; re-convert the model");
  if (v != 2 && v != 3) fail("gguf_bad_version", "GGUF version " + std::to_string(v) + " is not 2 or 3");
  h.version = v;
  const std::int64_t n_tensors = r.num<std::int64_t>();
  const std::int64_t n_kv = r.num<std::int64_t>();
  if (n_tensors < 0 || static_cast<std::uint64_t>(n_tensors) > kGgufMaxTensors)
    fail("gguf_too_large", "tensor count " + std::to_string(n_tensors) + " is outside 0.." + std::to_string(kGgufMaxTensors));
  if (n_kv < 0 || static_cast<std::uint64_t>(n_kv) > kGgufMaxKv)
    fail("gguf_too_large", "metadata count " + std::to_string(n_kv) + " is outside 0.." + std::to_string(kGgufMaxKv));
  // Smallest encodings: a pair is key length + type + 1 byte; a tensor info is 8+1+4+8+4+8.
  r.need(sat_add(sat_mul(static_cast<std::uint64_t>(n_kv), 13), sat_mul(static_cast<std::uint64_t>(n_tensors), 33)));

  std::unordered_set<std::string> keys;
  h.kv.reserve(static_cast<std::size_t>(n_kv));
  for (std::int64_t i = 0; i < n_kv; ++i) {
    GgufKv kv;
    kv.key = r.str(65535, "a key");
    if (!keys.insert(kv.key).second) fail("gguf_duplicate_key", "key '" + kv.key + "' appears twice");
    read_kv(r, kv);
    h.kv.push_back(std::move(kv));
  }
  if (const GgufKv* a = h.find("general.alignment")) {
    const std::uint64_t al = a->type == GgufType::U32 ? a->value.get<std::uint64_t>() : 0;
    if (al == 0 || (al & (al - 1)) != 0)
      fail("gguf_bad_alignment", "general.alignment must be a u32 power of two");
    h.alignment = al;
  }

  // Duplicates are checked on the raw name bytes, as llama.cpp does, after the loop: each name's
  // hash and view into `data` go in one flat array, sorted by hash and then by the bytes, so
  // equal names end up side by side. No allocation per tensor, and n log n comparisons at worst
  // (names forged to share a hash only fall back to comparing bytes).
  struct NameKey {
    std::uint64_t hash;
    std::string_view raw;
  };
  std::vector<NameKey> names;
  names.reserve(static_cast<std::size_t>(n_tensors));
  h.tensors.reserve(static_cast<std::size_t>(n_tensors));
  for (std::int64_t i = 0; i < n_tensors; ++i) {
    GgufTensorInfo t;
    const std::uint64_t len = r.num<std::uint64_t>();
    // GGML_MAX_NAME = 64 including the terminator.
    if (len == 0 || len >= 64)
      fail("gguf_bad_name", "tensor " + std::to_string(i) + " has a name of " + std::to_string(len) + " bytes (1..63 allowed)");
    r.need(len);
    const char* raw = reinterpret_cast<const char*>(data + r.pos);
    t.name = utf8_clean(raw, static_cast<std::size_t>(len));
    r.pos += len;
    std::uint64_t hash = 1469598103934665603ull;   // FNV-1a, 64-bit
    for (std::uint64_t k = 0; k < len; ++k) hash = (hash ^ static_cast<unsigned char>(raw[k])) * 1099511628211ull;
    names.push_back({hash, std::string_view(raw, static_cast<std::size_t>(len))});
    const std::uint32_t nd = r.num<std::uint32_t>();
    if (nd > 4) fail("gguf_bad_dims", "tensor '" + t.name + "' has " + std::to_string(nd) + " dimensions (at most 4)");
    t.n_dims = static_cast<int>(nd);
    for (std::uint32_t d = 0; d < nd; ++d) {
      t.ne[d] = r.num<std::int64_t>();
      if (t.ne[d] < 0) fail("gguf_bad_shape", "tensor '" + t.name + "' has a negative dimension");
    }
    const std::uint32_t ty = r.num<std::uint32_t>();
    const auto info = ggml_type_info(static_cast<int>(ty));
    if (ty > 1000 || !info)
      fail("gguf_bad_type", "tensor '" + t.name + "' has ggml type " + std::to_string(ty) + ", which no current loader accepts");
    t.type = static_cast<GgmlType>(ty);
    t.offset = r.num<std::uint64_t>();
    // Shape checks as llama.cpp makes them: the element count must fit in int64.
    std::uint64_t nel = 1;
    for (int d = 0; d < 4; ++d)
      if (!mul_ok(nel, static_cast<std::uint64_t>(t.ne[d]), nel) || nel > kI64Max)
        fail("gguf_bad_shape", "tensor '" + t.name + "' has more elements than int64 can count");
    if (t.ne[0] % info->block_size != 0)
      fail("gguf_bad_shape", "tensor '" + t.name + "' has rows of " + std::to_string(t.ne[0]) + " elements, not a multiple of " +
                                 info->name + "'s block size " + std::to_string(info->block_size));
    const std::uint64_t rows = static_cast<std::uint64_t>(t.ne[1]) * static_cast<std::uint64_t>(t.ne[2]) *
                               static_cast<std::uint64_t>(t.ne[3]);
    std::uint64_t row_bytes = 0;
    if (!mul_ok(static_cast<std::uint64_t>(t.ne[0]) / static_cast<std::uint64_t>(info->block_size),
                static_cast<std::uint64_t>(info->type_size), row_bytes) ||
        !mul_ok(row_bytes, rows, t.bytes) || t.bytes > kI64Max)
      fail("gguf_bad_shape", "tensor '" + t.name + "' is too large to address");
    h.tensors.push_back(std::move(t));
  }
  std::sort(names.begin(), names.end(), [](const NameKey& a, const NameKey& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.raw < b.raw;
  });
  for (std::size_t i = 1; i < names.size(); ++i)
    if (names[i].hash == names[i - 1].hash && names[i].raw == names[i - 1].raw)
      fail("gguf_bad_name", "tensor '" + utf8_clean(names[i].raw.data(), names[i].raw.size()) + "' appears twice");
  h.header_bytes = r.pos;
  h.data_offset = (h.header_bytes + h.alignment - 1) / h.alignment * h.alignment;
  // Offsets must be the running sum of padded sizes (llama.cpp rejects anything else), which
  // is what makes every tensor's size knowable from the header alone.
  std::uint64_t off = 0;
  for (const auto& t : h.tensors) {
    if (t.offset != off)
      fail("gguf_bad_offset", "tensor '" + t.name + "' is at offset " + std::to_string(t.offset) + ", expected " +
                                  std::to_string(off));
    const std::uint64_t padded = (t.bytes + h.alignment - 1) / h.alignment * h.alignment;
    if (padded > kI64Max - off) fail("gguf_too_large", "the tensor data is too large to address");
    off += padded;
  }
  h.data_bytes = off;
  return h;
}

}  // namespace wif
