// A byte buffer whose resize() leaves new bytes uninitialised, for blocks that are written in
// full right after (the GGUF tensor table, the header bytes copied in from JS): a plain
// std::vector<uint8_t> zero-fills them first, which in wasm was half the time of reading a
// 45,000-tensor header.
#pragma once
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace wif {

/// std::allocator whose construct() with no arguments default-initialises (for bytes: nothing).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind { using other = DefaultInitAllocator<U>; };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// Bytes that are all written after a resize (the caller's promise).
using ByteBuffer = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

}  // namespace wif
