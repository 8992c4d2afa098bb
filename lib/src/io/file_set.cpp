#include "onnxq/io/file_set.hpp"

#include <optional>
#include <string>

#include "onnxq/core/error.hpp"
#include "onnxq/io/mapping_guard.hpp"

namespace onnxq {

void FileSet::commit() {
  if (files_.size() == 1) return files_.front()->commit();  // one file is already all or none
  std::vector<bool> exchanged;  // per file swapped in: whether an old file waits at its temporary name
  try {
    if (const auto change = mapped_file_change()) fail(ErrorKind::Io, *change);
    for (AtomicFile* file : files_) file->stage();
    for (AtomicFile* file : files_) {
      if (before_swap_) before_swap_(exchanged.size());
      if (file->kind() == AtomicFile::Kind::InPlace) {
        exchanged.push_back(false);
        continue;
      }
      exchanged.push_back(file->swap_in());
    }
  } catch (...) {
    for (std::size_t i = exchanged.size(); i-- > 0;)
      if (files_[i]->kind() != AtomicFile::Kind::InPlace) files_[i]->undo_swap(exchanged[i]);
    for (AtomicFile* file : files_) file->discard();
    throw;
  }
  // Every name is given: now the old files go, and the set is done even if one of them stays.
  std::optional<Error> first_error;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    try {
      files_[i]->drop_replaced(exchanged[i]);
      files_[i]->sync_directory();
    } catch (const Error& e) {
      if (!first_error) first_error = e;
    }
    files_[i]->done_ = true;
  }
  if (first_error) throw *first_error;
}

}  // namespace onnxq
