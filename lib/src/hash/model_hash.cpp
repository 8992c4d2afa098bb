#include "onnxq/hash/model_hash.hpp"

#include <algorithm>
#include <optional>

#include "hash/multi_hasher.hpp"
#include "onnxq/core/error.hpp"
#include "onnxq/core/parallel.hpp"
#include "onnxq/core/pipeline.hpp"
#include "onnxq/gguf/tensor_reader.hpp"

namespace onnxq {
namespace {

// A remote file is asked for this much ahead of the pipeline's small reads, so that its cache
// fetches large ranges.
constexpr std::uint64_t kPrefetchBytes = 8 << 20;

// One pipeline chunk: a piece of one tensor (chunks never span two, so each has one owner).
struct Piece {
  std::size_t tensor;
  std::uint64_t offset, length;
};

std::vector<Piece> pieces_of(const std::vector<TensorInfo>& tensors) {
  std::vector<Piece> pieces;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    for (std::uint64_t at = 0; at < tensors[i].byte_size; at += kPipelineChunkBytes)
      pieces.push_back({i, at, std::min<std::uint64_t>(kPipelineChunkBytes, tensors[i].byte_size - at)});
  return pieces;
}

// The per-tensor hashes, fed in file order: each tensor's hashers start when its first piece
// comes and finish when a later tensor's does (or at the end), so empty tensors get the hashes of
// no bytes, as llama-gguf-hash prints them.
class TensorHashes {
 public:
  TensorHashes(const HashSelection& types, std::size_t count) : types_(types), hex_(count) {}

  void update(std::size_t tensor, std::span<const std::byte> bytes) {
    while (next_ <= tensor) advance();
    current_->update(bytes);
  }
  // update(), and the same bytes to `model` in the same pass.
  void update_with(MultiHasher& model, std::size_t tensor, std::span<const std::byte> bytes) {
    while (next_ <= tensor) advance();
    current_->update_with(model, bytes);
  }
  std::vector<std::vector<std::string>> finish() {
    while (current_ || next_ < hex_.size()) advance();
    return std::move(hex_);
  }

 private:
  void advance() {  // finishes the current tensor and starts the next one
    if (current_)
      for (HashType t : kHashTypes)
        if (types_[t]) hex_[next_ - 1].push_back(current_->finish(t));
    current_.reset();
    if (next_ < hex_.size()) {
      current_.emplace(types_);
      ++next_;
    }
  }

  HashSelection types_;
  std::vector<std::vector<std::string>> hex_;
  std::optional<MultiHasher> current_;
  std::size_t next_ = 0;  // tensors started so far
};

}  // namespace

std::vector<HashRow> hash_model(const GgufModel& model, const HashSelection& types, bool model_only, int threads) {
  if (!types.any()) fail(ErrorKind::InvalidArgument, "hash: no hash type selected");
  const std::vector<TensorInfo>& tensors = model.tensors();
  HashSelection per_tensor = types;
  per_tensor[HashType::Uuid] = false;  // uuid names the model only
  const bool layers = !model_only && per_tensor.any();

  std::vector<TensorReader> readers;
  readers.reserve(tensors.size());
  for (const TensorInfo& t : tensors) readers.emplace_back(model, t);
  const std::vector<Piece> pieces = pieces_of(tensors);
  MultiHasher whole(types);
  TensorHashes each(per_tensor, layers ? tensors.size() : 0);

  const auto fill = [&](std::uint64_t c, std::span<std::byte> buffer) {
    const Piece& p = pieces[c];
    if (p.offset % kPrefetchBytes == 0) readers[p.tensor].prefetch(p.offset, kPrefetchBytes);
    return readers[p.tensor].stored(p.offset, p.length, buffer);
  };
  const bool digests = types[HashType::Sha1] || types[HashType::Sha256] || types[HashType::Uuid];
  if (digests) {
    // SHA-1 and SHA-256 take several times longer than the reads: the model hashes (consumer 0)
    // and the tensors' (consumer 1) each get a thread of their own beside the reads.
    parallel_pipeline(resolve_threads(threads), pieces.size(), layers ? 2 : 1, fill,
                      [&](unsigned consumer, std::uint64_t c, std::span<const std::byte> bytes) {
                        if (consumer == 0)
                          whole.update(bytes);
                        else
                          each.update(pieces[c].tensor, bytes);
                      });
  } else {
    // XXH64 and XXH3 hash about as fast as the reads copy: each thread reads chunks of its own and
    // hashes them in turn while they are in its cache, the tensor and model hashes in one pass.
    const unsigned workers = threads > 0 ? resolve_threads(threads) : default_threads_if_cpus_free();
    relay_pipeline(workers, pieces.size(), fill, [&](std::uint64_t c, std::span<const std::byte> bytes) {
      if (layers)
        each.update_with(whole, pieces[c].tensor, bytes);
      else
        whole.update(bytes);
    });
  }
  for (const TensorReader& r : readers) r.check();  // a mapped file that shrank meanwhile

  const std::vector<std::vector<std::string>> tensor_hex = each.finish();
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
