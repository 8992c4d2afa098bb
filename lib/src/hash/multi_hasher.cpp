#include "hash/multi_hasher.hpp"

#include <algorithm>
#include <new>

#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

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

}  // namespace

MultiHasher::EvpCtx MultiHasher::new_digest(const EVP_MD* md) {
  EvpCtx ctx(EVP_MD_CTX_new());
  if (!ctx) throw std::bad_alloc();
  crypto_check(EVP_DigestInit_ex(ctx.get(), md, nullptr));
  return ctx;
}

MultiHasher::MultiHasher(const HashSelection& types) {
  if (types[HashType::Xxh64]) xxh64_.emplace();
  if (types[HashType::Xxh3]) {
    xxh3_.reset(XXH3_createState());
    if (!xxh3_) throw std::bad_alloc();
    XXH3_64bits_reset(xxh3_.get());
  }
  if (types[HashType::Sha1]) sha1_ = new_digest(EVP_sha1());
  if (types[HashType::Sha256]) sha256_ = new_digest(EVP_sha256());
  if (types[HashType::Uuid]) {
    uuid_ = new_digest(EVP_sha1());
    crypto_check(EVP_DigestUpdate(uuid_.get(), kUuidNamespace, sizeof kUuidNamespace));
  }
}

void MultiHasher::update(std::span<const std::byte> bytes) {
  if (xxh64_) xxh64_->update(bytes);
  update_others(bytes);
}

void MultiHasher::update_with(MultiHasher& other, std::span<const std::byte> bytes) {
  if (xxh64_ && other.xxh64_)
    Xxh64::update_both(*xxh64_, *other.xxh64_, bytes);
  else if (xxh64_ || other.xxh64_)
    (xxh64_ ? *xxh64_ : *other.xxh64_).update(bytes);
  update_others(bytes);
  other.update_others(bytes);
}

void MultiHasher::update_others(std::span<const std::byte> bytes) {
  const std::byte* p = bytes.data();
  const std::size_t n = bytes.size();
  if (n == 0) return;
  if (xxh3_) XXH3_64bits_update(xxh3_.get(), p, n);
  if (sha1_) crypto_check(EVP_DigestUpdate(sha1_.get(), p, n));
  if (sha256_) crypto_check(EVP_DigestUpdate(sha256_.get(), p, n));
  if (uuid_) crypto_check(EVP_DigestUpdate(uuid_.get(), p, n));
}

std::string MultiHasher::finish(HashType type) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  switch (type) {
    case HashType::Xxh64: return hex_u64(xxh64_->digest());
    case HashType::Xxh3: return hex_u64(XXH3_64bits_digest(xxh3_.get()));
    case HashType::Sha1: crypto_check(EVP_DigestFinal_ex(sha1_.get(), md, &len)); return hex_bytes(md, len);
    case HashType::Sha256: crypto_check(EVP_DigestFinal_ex(sha256_.get(), md, &len)); return hex_bytes(md, len);
    case HashType::Uuid: crypto_check(EVP_DigestFinal_ex(uuid_.get(), md, &len)); return uuid_text(md);
  }
  return {};
}

}  // namespace onnxq
