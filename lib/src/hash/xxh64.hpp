// XXH64 (the hash llama-gguf-hash's --xxh64 prints), computed here rather than by libxxhash so that
// the model and tensor hashes of a manifest, which see the same bytes, share one pass over them
// (Xxh64::update_both). Equal to libxxhash's XXH64 for every input and seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace onnxq {

class Xxh64 {
 public:
  explicit Xxh64(std::uint64_t seed = 0);
  void update(std::span<const std::byte> bytes);
  // The hash of every byte given so far; the state stays as it is.
  std::uint64_t digest() const;
  // a.update(bytes) and b.update(bytes), in one pass over the bytes where the CPU allows.
  static void update_both(Xxh64& a, Xxh64& b, std::span<const std::byte> bytes);

 private:
  // Fills the partial stripe from p (at most n bytes) and hashes it once full; returns the bytes
  // taken (0 when no stripe is partial).
  std::size_t complete_stripe(const std::byte* p, std::size_t n);
  // Takes n bytes into the state without counting them in total_.
  void absorb(const std::byte* p, std::size_t n);

  std::uint64_t seed_;
  std::uint64_t acc_[4];
  std::uint64_t total_ = 0;  // bytes given so far
  std::byte partial_[32];    // the bytes of the stripe not yet complete
  std::size_t partial_size_ = 0;
};

}  // namespace onnxq
