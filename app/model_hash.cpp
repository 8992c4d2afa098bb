#include "model_hash.hpp"

#include <openssl/evp.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>

#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/gguf/tensor_reader.hpp"

namespace onnxq::cli {
namespace {

// Bytes fed to every selected hash before moving on, so that several types share one read of
// the data while it is still in the L2 cache.
constexpr std::size_t kChunkBytes = 256 * 1024;

// uuid.uuid5(uuid.NAMESPACE_URL, "en.wikipedia.org/wiki/Llama.cpp"): the namespace llama-gguf-hash uses.
constexpr unsigned char kUuidNamespace[16] = {0xef, 0x00, 0x12, 0x06, 0xda, 0xdc, 0x5f, 0x6d,
                                              0xa1, 0x5f, 0x33, 0x59, 0xe5, 0x77, 0xd4, 0xe5};

std::string hex_bytes(const unsigned char* p, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  return out;
}

std::string hex_u64(std::uint64_t v) {  // most significant byte first
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (56 - 8 * i));
  return hex_bytes(b, 8);
}

std::string uuid_text(const unsigned char sha1[20]) {
  unsigned char u[16];
  std::copy(sha1, sha1 + 16, u);
  u[6] = static_cast<unsigned char>((u[6] & 0x0F) | 0x50);  // version 5
  u[8] = static_cast<unsigned char>((u[8] & 0x3F) | 0x80);  // variant 0b10
  const std::string h = hex_bytes(u, 16);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

void crypto_check(int ok) {
  if (ok != 1) fail(ErrorKind::Io, "OpenSSL digest failed");
}

struct Xxh64Deleter {
  void operator()(XXH64_state_t* s) const { XXH64_freeState(s); }
};
struct Xxh3Deleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

struct EvpDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using EvpCtx = std::unique_ptr<EVP_MD_CTX, EvpDeleter>;

EvpCtx new_digest(const EVP_MD* md) {
  EvpCtx ctx(EVP_MD_CTX_new());
  if (!ctx) throw std::bad_alloc();
  crypto_check(EVP_DigestInit_ex(ctx.get(), md, nullptr));
  return ctx;
}

// The running state of every selected hash type over one byte stream.
class MultiHasher {
 public:
  explicit MultiHasher(const HashSelection& types) : types_(types) {
    if (types_[HashType::Xxh64]) {
      xxh64_.reset(XXH64_createState());
      if (!xxh64_) throw std::bad_alloc();
      XXH64_reset(xxh64_.get(), 0);
    }
    if (types_[HashType::Xxh3]) {
      xxh3_.reset(XXH3_createState());
      if (!xxh3_) throw std::bad_alloc();
      XXH3_64bits_reset(xxh3_.get());
    }
    if (types_[HashType::Sha1]) sha1_ = new_digest(EVP_sha1());
    if (types_[HashType::Sha256]) sha256_ = new_digest(EVP_sha256());
    if (types_[HashType::Uuid]) {
      uuid_ = new_digest(EVP_sha1());
      crypto_check(EVP_DigestUpdate(uuid_.get(), kUuidNamespace, sizeof kUuidNamespace));
    }
  }

  void update(const std::byte* p, std::size_t n) {
    if (n == 0) return;
    if (xxh64_) XXH64_update(xxh64_.get(), p, n);
    if (xxh3_) XXH3_64bits_update(xxh3_.get(), p, n);
    if (sha1_) crypto_check(EVP_DigestUpdate(sha1_.get(), p, n));
    if (sha256_) crypto_check(EVP_DigestUpdate(sha256_.get(), p, n));
    if (uuid_) crypto_check(EVP_DigestUpdate(uuid_.get(), p, n));
  }

  std::string finish(HashType type) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    switch (type) {
      case HashType::Xxh64: return hex_u64(XXH64_digest(xxh64_.get()));
      case HashType::Xxh3: return hex_u64(XXH3_64bits_digest(xxh3_.get()));
      case HashType::Sha1: crypto_check(EVP_DigestFinal_ex(sha1_.get(), md, &len)); return hex_bytes(md, len);
      case HashType::Sha256: crypto_check(EVP_DigestFinal_ex(sha256_.get(), md, &len)); return hex_bytes(md, len);
      case HashType::Uuid: crypto_check(EVP_DigestFinal_ex(uuid_.get(), md, &len)); return uuid_text(md);
    }
    return {};
  }

 private:
  HashSelection types_;
  std::unique_ptr<XXH64_state_t, Xxh64Deleter> xxh64_;
  std::unique_ptr<XXH3_state_t, Xxh3Deleter> xxh3_;
  EvpCtx sha1_, sha256_, uuid_;
};

// Feeds `bytes` to every hasher, chunk by chunk.
void feed(std::span<const std::byte> bytes, std::initializer_list<MultiHasher*> hashers) {
  for (std::size_t at = 0; at < bytes.size(); at += kChunkBytes) {
    const std::size_t n = std::min(kChunkBytes, bytes.size() - at);
    for (MultiHasher* h : hashers)
      if (h) h->update(bytes.data() + at, n);
  }
}

// A tensor is read this much at a time: from a remote file through its source's cache, from a
// mapping with its pages brought in at once (faulting them one by one costs more than hashing).
constexpr std::uint64_t kReadBytes = 8 << 20;

// Feeds a tensor's stored bytes, piece by piece.
void feed_tensor(const GgufModel& model, const TensorInfo& tensor, std::initializer_list<MultiHasher*> hashers) {
  const TensorReader reader(model, tensor);
  std::vector<std::byte> piece;
  for (std::uint64_t at = 0; at < tensor.byte_size; at += kReadBytes) {
    const std::uint64_t n = std::min(kReadBytes, tensor.byte_size - at);
    reader.prefetch(at, n);
    reader.read_stored(at, n, piece, [&](std::span<const std::byte> bytes) { feed(bytes, hashers); });
  }
}

}  // namespace

std::string_view hash_type_name(HashType type) {
  switch (type) {
    case HashType::Xxh64: return "xxh64";
    case HashType::Xxh3: return "xxh3";
    case HashType::Sha1: return "sha1";
    case HashType::Sha256: return "sha256";
    case HashType::Uuid: return "uuid";
  }
  return "?";
}

bool parse_hash_type(std::string_view name, HashType& type) {
  for (HashType t : kHashTypes)
    if (hash_type_name(t) == name) {
      type = t;
      return true;
    }
  return false;
}

bool HashSelection::any() const {
  return std::any_of(std::begin(enabled), std::end(enabled), [](bool b) { return b; });
}

std::vector<HashLine> hash_model(const GgufModel& model, const HashSelection& types, bool model_only, int threads) {
  const std::vector<TensorInfo>& tensors = model.tensors();
  HashSelection per_tensor = types;
  per_tensor[HashType::Uuid] = false;  // uuid names the model only
  const bool layers = !model_only && per_tensor.any();
  std::vector<std::vector<std::string>> tensor_hex(layers ? tensors.size() : 0);
  MultiHasher whole(types);

  auto hash_tensor = [&](std::size_t i, MultiHasher* also) {
    MultiHasher one(per_tensor);
    feed_tensor(model, tensors[i], {&one, also});
    for (HashType t : kHashTypes)
      if (per_tensor[t]) tensor_hex[i].push_back(one.finish(t));
  };

  // Two passes read every tensor twice: only where that costs no second fetch.
  const bool reread_is_free = std::all_of(
      tensors.begin(), tensors.end(), [&](const TensorInfo& t) { return TensorReader(model, t).stored_in_memory(); });
  if (threads <= 1 || !layers || !reread_is_free) {
    // One pass: each chunk goes to the tensor's hashes and the model's while it is in cache.
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (layers)
        hash_tensor(i, &whole);
      else
        feed_tensor(model, tensors[i], {&whole});
    }
  } else {
    // The model hashes are one sequential stream: chunk 0 walks it in file order on one thread
    // while the others hash tensors independently (largest first would not help: the stream is
    // the long pole).
    parallel_chunks(static_cast<unsigned>(threads), tensors.size() + 1, [&](unsigned, std::uint64_t c) {
      if (c == 0)
        for (const TensorInfo& t : tensors) feed_tensor(model, t, {&whole});
      else
        hash_tensor(c - 1, nullptr);
    });
  }

  std::vector<HashLine> lines;
  for (std::size_t i = 0; i < tensor_hex.size(); ++i) {
    std::size_t k = 0;
    for (HashType t : kHashTypes)
      if (per_tensor[t]) lines.push_back({t, tensor_hex[i][k++], &tensors[i]});
  }
  for (HashType t : kHashTypes)
    if (types[t]) lines.push_back({t, whole.finish(t), nullptr});
  return lines;
}

}  // namespace onnxq::cli
