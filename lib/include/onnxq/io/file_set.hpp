// Several AtomicFiles committed all or none (a model's shards and their index): until commit()
// returns, no file of the set has its name, and the old targets are intact.
//
// commit() works in two steps. First every file is made ready to be named: closed under a
// temporary name beside its target (an unnamed file whose target does not exist stays unnamed,
// so kill -9 leaves nothing); a failure here names nothing. Then the files are put onto their
// targets one by one: an exchange where a regular file is replaced, so the old file survives
// under the temporary name; a link or a rename where the name is new. A failure between two of
// these undoes the ones already made, last first: exchanged files are exchanged back (the old
// target returns), new names are removed, and the error is thrown. Only when all are in place
// are the old files removed. The undo is best effort: it is a rename or an unlink per file, not
// itself safe against a crash or kill -9 (a signal handler calling remove_live_temporaries()
// removes the old files waiting at temporary names: a partial set stays). A target that was a
// symlink is replaced by the rename and comes back as no file. Devices and FIFOs are written in
// place and cannot be taken back.
#pragma once

#include <cstddef>
#include <vector>

#include "onnxq/io/atomic_file.hpp"

namespace onnxq {

class FileSet {
 public:
  // The files stay the caller's, not yet committed, and must outlive commit().
  void add(AtomicFile& file) { files_.push_back(&file); }
  std::size_t size() const { return files_.size(); }

  // Names all the files, or none (see above) and throws the first error. The files are done
  // either way: a failed set is discarded.
  void commit();

  // A test hook: called before each swap with the number of files already swapped in; a throw
  // from it is a failure between two commits.
  using BeforeSwap = void (*)(std::size_t swapped);
  void set_before_swap_for_testing(BeforeSwap hook) { before_swap_ = hook; }

 private:
  std::vector<AtomicFile*> files_;
  BeforeSwap before_swap_ = nullptr;
};

}  // namespace onnxq
