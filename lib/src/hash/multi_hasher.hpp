// One object updating every selected hash type over the same bytes, so that several types share
// one read of the data while it is in cache.
#pragma once

#include <openssl/evp.h>
#include <xxhash.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "hash/xxh64.hpp"
#include "onnxq/hash/hash_type.hpp"

namespace onnxq {

class MultiHasher {
 public:
  explicit MultiHasher(const HashSelection& types);
  void update(std::span<const std::byte> bytes);
  // update(bytes) on this and on `other` (of the same types), their XXH64 states sharing one pass.
  void update_with(MultiHasher& other, std::span<const std::byte> bytes);
  // The digest of one selected type, as a manifest prints it; call once per type, at the end.
  std::string finish(HashType type);

 private:
  struct Xxh3Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  struct EvpFree {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  using EvpCtx = std::unique_ptr<EVP_MD_CTX, EvpFree>;
  static EvpCtx new_digest(const EVP_MD* md);

  // Each digest's bytes, bar XXH64's; the shared part of update and update_with.
  void update_others(std::span<const std::byte> bytes);

  std::optional<Xxh64> xxh64_;
  std::unique_ptr<XXH3_state_t, Xxh3Free> xxh3_;
  EvpCtx sha1_, sha256_, uuid_;
};

}  // namespace onnxq
