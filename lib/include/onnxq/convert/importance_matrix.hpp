// Importance matrices as llama-imatrix writes them, read as llama-quantize reads them: one weight
// per column of each matrix a tensor holds (a 3-D expert tensor has one row of weights per
// expert, back to back). Two formats:
//  - GGUF: for each tensor NAME, an F32 tensor NAME.in_sum2 of [columns, matrices] (the summed
//    squares of the activations) and an F32 tensor NAME.counts of [1, matrices]; the weight is
//    in_sum2 / counts per matrix, or 1 where a count is 0 (a matrix that saw no input); the keys
//    imatrix.datasets, imatrix.chunk_count and imatrix.chunk_size must be present.
//  - the older .dat: int32 entry count, then per entry int32 name length, the name, int32 ncall,
//    int32 value count and that many float32 values (divided by ncall when it is positive), and
//    optionally int32 last chunk, int32 dataset name length and the dataset name.
// Entries are matched to tensors by their exact name.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onnxq {

struct ImportanceMatrix {
  std::string path;
  bool legacy = false;                                // the .dat format
  std::map<std::string, std::vector<float>> entries;  // tensor name -> weights (all finite)

  const std::vector<float>* find(std::string_view tensor_name) const;
};

// Reads a file of either format (GGUF when it starts with "GGUF"). Throws Error(Io) when it cannot
// be read, Error(InvalidInput) with one line naming the file, the entry or byte offset and what was
// expected: a size past the end, an entry count below 1, a name or value count out of range, an
// in_sum2 without its counts (or the reverse), a tensor that is not F32, counts that do not match
// in_sum2's matrices, a missing imatrix.* key, bytes after the last entry, a duplicate entry, a
// weight that is not finite.
ImportanceMatrix read_importance_matrix(const std::string& path);
// The same over bytes in memory; `name` is used in messages.
ImportanceMatrix parse_importance_matrix(std::span<const std::byte> bytes, const std::string& name);

}  // namespace onnxq
