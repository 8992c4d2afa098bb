// The address ranges of the process's MappedFiles, for the SIGBUS guard (onnxq/io/mapping_guard.hpp).
#pragma once

#include <cstddef>
#include <string>

namespace onnxq::detail {

// Lists a mapping; returns its slot, or -1 when every slot is taken (the mapping is then unguarded).
int register_mapping(const void* begin, std::size_t size, const std::string& path);
// Removes it; a file that faulted is remembered, so that the error can still name it.
void unregister_mapping(int slot);

}  // namespace onnxq::detail
