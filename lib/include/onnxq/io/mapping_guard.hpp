// Reading a mapped file that shrinks under its mapping (a download still running, a converter
// rewriting the model) raises SIGBUS on the first page past the new end. The guard turns that
// into an error: its SIGBUS handler, for an address inside a MappedFile, maps zero pages over the
// rest of that mapping and marks the file changed, so the read goes on (reading zeros); whoever
// reads mapped data checks after each chunk it read (MappedSource::check, TensorReader's reads
// do it for their callers), which throws Error(Io) naming the file. A fault anywhere else goes to the handler that was
// installed before (a sanitizer's, or the default action: the process dies of SIGBUS as it would have).
#pragma once

#include <optional>
#include <string>

namespace onnxq {

// Installs the SIGBUS handler; the first call only. A front end calls it at start-up. Without it,
// a file that shrinks under its mapping kills the process.
void install_mapping_fault_guard();

// The error message for the first mapped file of this process that shrank under its mapping,
// whether or not it is still mapped (for a front end that reports once the readers are gone);
// nullopt when none did.
std::optional<std::string> mapped_file_change();

// Throws Error(Io) "FILE changed size while it was being read ..." when a mapped file has
// shrunk under its mapping; cheap (one atomic load) otherwise.
void throw_if_mapped_file_changed();

}  // namespace onnxq
