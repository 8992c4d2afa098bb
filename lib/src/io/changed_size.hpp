// The one message for a file that changed size while it was being read, whichever reader saw it
// (the mapping guard, a pread that ended early).
#pragma once

#include <cstdint>
#include <string>

namespace onnxq::detail {

// "PATH changed size while it was being read (N bytes when opened, M now)"; the size now is left
// out when the file can no longer be stat'ed.
std::string changed_size_message(const std::string& path, std::uint64_t size_then);

}  // namespace onnxq::detail
