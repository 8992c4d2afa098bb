// The same-file guard: which files this process reads, so that no output is written onto one of
// them (a command's -o, the library's writers). It asks the kernel (open descriptors, mappings)
// rather than trusting a list, and keeps a list only of inputs already read and closed.
#pragma once

#include <sys/types.h>

#include <string>

namespace onnxq {

// Records an input file (by inode) that is read and closed before outputs are opened, so that
// an output onto it is refused even though it is no longer open or mapped.
void note_input_file(const std::string& path);

// True when the regular file with this device and inode is one of the process's inputs: a noted
// input, an open descriptor other than stdout and stderr (stdin included), or a mapping (a GGUF or
// .npy file stays mapped while its tensors are in use, its descriptor already closed).
bool is_process_input(dev_t device, ino_t inode);

// Throws Error(InvalidArgument) "refusing to write to PATH: it is one of the input files" when
// `path` names an existing regular file that is one of the process's inputs; AtomicFile::create
// applies it, and planners that must refuse before anything is opened call it first.
void refuse_output_onto_input(const std::string& path);

}  // namespace onnxq
