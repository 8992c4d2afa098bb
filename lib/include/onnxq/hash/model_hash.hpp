// Hashes of a model's tensor data in the manifest format of llama.cpp's llama-gguf-hash: per
// tensor (its bytes as stored) and for the whole model (every tensor's bytes, concatenated in
// tensor-info order; padding between tensors is not hashed).
#pragma once

#include <string>
#include <vector>

#include "onnxq/gguf/model.hpp"
#include "onnxq/hash/hash_type.hpp"

namespace onnxq {

struct HashRow {
  HashType type;
  std::string hex;           // lowercase; the uuid in 8-4-4-4-12 form
  const TensorInfo* tensor;  // one of the model's tensors; null for a model row
};

// Hashes the selected types in one pass over each tensor's stored bytes. Rows come in the
// order llama-gguf-hash prints them: for each tensor all its selected types (none when
// `model_only`; never uuid, which names the model only), then one model row per type.
// `threads` as for resolve_threads; by default, with XXH types alone, one thread while other
// processes keep the CPUs busy (core/parallel.hpp: default_threads_if_cpus_free). Throws Error(Io) when a read
// fails, Error(InvalidArgument) for an empty selection.
std::vector<HashRow> hash_model(const GgufModel& model, const HashSelection& types, bool model_only, int threads = 0);

}  // namespace onnxq
