// One object updating every selected hash type over the same bytes, so that several types share
// one read of the data while it is in cache.
#pragma once

#include <openssl/evp.h>
#include <xxhash.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "onnxq/hash/hash_type.hpp"

namespace onnxq {

class MultiHasher {
 public:
  explicit MultiHasher(const HashSelection& types);
  void update(std::span<const std::byte> bytes);
  // The digest of one selected type, as a manifest prints it; call once per type, at the end.
  std::string finish(HashType type);

 private:
  struct Xxh64Free {
    void operator()(XXH64_state_t* s) const { XXH64_freeState(s); }
  };
  struct Xxh3Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  struct EvpFree {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  using EvpCtx = std::unique_ptr<EVP_MD_CTX, EvpFree>;
  static EvpCtx new_digest(const EVP_MD* md);

  std::unique_ptr<XXH64_state_t, Xxh64Free> xxh64_;
  std::unique_ptr<XXH3_state_t, Xxh3Free> xxh3_;
  EvpCtx sha1_, sha256_, uuid_;
};

}  // namespace onnxq
