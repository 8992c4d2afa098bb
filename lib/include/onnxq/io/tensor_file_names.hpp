// File names for tensors written into a directory (dequant --out-dir, run's outputs): safe for any
// name an untrusted model holds, and distinct on the file system they are written to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace onnxq {

// The file name of a tensor written beside others (dequant --all, --filter, several --tensor):
// the name percent-encoded, then `extension`. Bytes A-Z a-z 0-9 . _ - stand for themselves
// (a leading '.' excepted); every other byte, '%' itself, '/', control bytes and every byte from
// 0x80 (so UTF-8 names are encoded byte by byte, and no file system can normalize or reject
// them), is %XX with two upper-case hex digits. The empty name is "%". So two different tensor
// names never share a file name, a name never leaves the directory or hides (no '/', no leading
// '.'), and urllib.parse.unquote(stem) gives the tensor's name back. Throws Error(InvalidInput),
// showing the start of the encoded name, when the result would not fit a file name (255 bytes;
// GGUF names have at most 63).
std::string tensor_file_name(std::string_view tensor_name, std::string_view extension);

// Before anything is written to `dir`: file names that differ only in case (a.npy, A.npy) are
// one file on a file system that ignores case; there, Error(Io) names both tensors as
// `shown_names` shows them. `names[i]` is the file name of the tensor shown as `shown_names[i]`.
void check_file_names_distinct(const std::string& dir, const std::vector<std::string>& names,
                               const std::vector<std::string>& shown_names);

// Stems for files named after graph outputs (`onnxq run`): only [A-Za-z0-9._-] (any other byte
// becomes '_'), no leading dot, never empty ("output_K" then), and distinct: a stem already taken
// gets "_K" appended. K is the output's index.
std::vector<std::string> output_file_stems(const std::vector<std::string>& names);

}  // namespace onnxq
