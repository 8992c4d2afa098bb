#include "onnxq/hash/model_hash.hpp"

#include <algorithm>
#include <initializer_list>

#include "hash/multi_hasher.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/gguf/tensor_reader.hpp"

namespace onnxq {
namespace {

// Bytes fed to every selected hash before moving on, so that several types share one read of
// the data while it is still in the L2 cache.
constexpr std::size_t kFeedBytes = 256 * 1024;

// A tensor is read this much at a time: from a remote file through its source's cache, from a
// local one with pread into the scratch buffer.
constexpr std::uint64_t kReadBytes = 8 << 20;

void feed(std::span<const std::byte> bytes, std::initializer_list<MultiHasher*> hashers) {
  for (std::size_t at = 0; at < bytes.size(); at += kFeedBytes) {
    const auto piece = bytes.subspan(at, std::min(kFeedBytes, bytes.size() - at));
    for (MultiHasher* h : hashers)
      if (h) h->update(piece);
  }
}

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

std::vector<HashRow> hash_model(const GgufModel& model, const HashSelection& types, bool model_only, int threads) {
  if (!types.any()) fail(ErrorKind::InvalidArgument, "hash: no hash type selected");
  const unsigned workers = resolve_threads(threads);
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
  if (workers <= 1 || !layers || !reread_is_free) {
    // One pass: each chunk goes to the tensor's hashes and the model's while it is in cache.
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (layers)
        hash_tensor(i, &whole);
      else
        feed_tensor(model, tensors[i], {&whole});
    }
  } else {
    // The model hashes are one sequential stream: chunk 0 walks it in file order on one thread
    // while the others hash tensors independently.
    parallel_chunks(workers, tensors.size() + 1, [&](unsigned, std::uint64_t c) {
      if (c == 0)
        for (const TensorInfo& t : tensors) feed_tensor(model, t, {&whole});
      else
        hash_tensor(c - 1, nullptr);
    });
  }

  std::vector<HashRow> rows;
  for (std::size_t i = 0; i < tensor_hex.size(); ++i) {
    std::size_t k = 0;
    for (HashType t : kHashTypes)
      if (per_tensor[t]) rows.push_back({t, tensor_hex[i][k++], &tensors[i]});
  }
  for (HashType t : kHashTypes)
    if (types[t]) rows.push_back({t, whole.finish(t), nullptr});
  return rows;
}

}  // namespace onnxq
