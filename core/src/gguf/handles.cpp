#include "willitfit/gguf/handles.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <mutex>
#include <utility>

#include "willitfit/base/error.hpp"

namespace wif {
namespace {

struct Registry {
  std::mutex mu;
  std::deque<std::pair<std::string, std::shared_ptr<const GgufModel>>> entries;  // oldest first
};

Registry& registry() {
  static Registry r;
  return r;
}

bool handle_ok(const std::string& h) {
  if (h.empty() || h.size() > 128) return false;
  return std::all_of(h.begin(), h.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

std::shared_ptr<const GgufModel> register_gguf(const std::string& handle, const std::vector<std::uint8_t>& bytes,
                                               const std::string& path) {
  if (!handle_ok(handle))
    throw InputError("bad_value", "handle", "a GGUF handle is 1 to 128 characters of letters, digits and : . _ -");
  auto model = std::make_shared<const GgufModel>(load_gguf_model(bytes.data(), bytes.size(), path));
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& es = r.entries;
  es.erase(std::remove_if(es.begin(), es.end(), [&](const auto& e) { return e.first == handle; }), es.end());
  es.emplace_back(handle, model);
  while (es.size() > kMaxGgufHandles) es.pop_front();
  return model;
}

std::shared_ptr<const GgufModel> find_gguf(const std::string& handle) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& e : r.entries)
    if (e.first == handle) return e.second;
  return nullptr;
}

}  // namespace wif
