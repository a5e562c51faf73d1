#include "willitfit/gguf/handles.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <mutex>
#include <utility>

#include "willitfit/base/error.hpp"

namespace wif {
namespace {

template <class T>
struct Registry {
  std::mutex mu;
  std::deque<std::pair<std::string, std::shared_ptr<const T>>> entries;  // oldest first
};

template <class T>
Registry<T>& registry() {
  static Registry<T> r;
  return r;
}

bool handle_ok(const std::string& h) {
  if (h.empty() || h.size() > 128) return false;
  return std::all_of(h.begin(), h.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '.' || c == '_' || c == '-';
  });
}

void check_handle(const std::string& h) {
  if (!handle_ok(h))
    throw InputError("bad_value", "handle", "a GGUF handle is 1 to 128 characters of letters, digits and : . _ -");
}

template <class T>
std::shared_ptr<const T> keep(const std::string& handle, std::shared_ptr<const T> model) {
  Registry<T>& r = registry<T>();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& es = r.entries;
  es.erase(std::remove_if(es.begin(), es.end(), [&](const auto& e) { return e.first == handle; }), es.end());
  es.emplace_back(handle, model);
  while (es.size() > kMaxGgufHandles) es.pop_front();
  return model;
}

}  // namespace

std::shared_ptr<const GgufModel> register_gguf(const std::string& handle, const std::vector<std::uint8_t>& bytes,
                                               const std::string& path) {
  check_handle(handle);
  return keep<GgufModel>(handle, std::make_shared<const GgufModel>(load_gguf_model(bytes.data(), bytes.size(), path)));
}

std::shared_ptr<const GgufModel> register_gguf_split(const std::string& handle,
                                                     const std::vector<std::vector<std::uint8_t>>& shards,
                                                     const std::string& path) {
  check_handle(handle);
  if (shards.empty()) throw InputError("bad_value", path, "a split GGUF needs at least one shard");
  std::vector<GgufShard> views;
  views.reserve(shards.size());
  for (std::size_t k = 0; k < shards.size(); ++k)
    views.push_back({shards[k].data(), shards[k].size(), path + "[" + std::to_string(k) + "]"});
  return keep<GgufModel>(handle, std::make_shared<const GgufModel>(load_gguf_split_model(views)));
}

template <class T>
std::shared_ptr<const T> find(const std::string& handle) {
  Registry<T>& r = registry<T>();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& e : r.entries)
    if (e.first == handle) return e.second;
  return nullptr;
}

std::shared_ptr<const GgufModel> find_gguf(const std::string& handle) { return find<GgufModel>(handle); }

std::shared_ptr<const MmprojFile> register_mmproj(const std::string& handle, const std::vector<std::uint8_t>& bytes,
                                                  const std::string& path) {
  check_handle(handle);
  return keep(handle, std::make_shared<const MmprojFile>(load_mmproj(bytes, path)));
}

std::shared_ptr<const MmprojFile> find_mmproj(const std::string& handle) { return find<MmprojFile>(handle); }

}  // namespace wif
