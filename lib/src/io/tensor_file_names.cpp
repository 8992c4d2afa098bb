#include "onnxq/io/tensor_file_names.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "onnxq/core/error.hpp"

namespace onnxq {

std::string tensor_file_name(std::string_view tensor_name, std::string_view extension) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < tensor_name.size(); ++i) {
    const auto c = static_cast<unsigned char>(tensor_name[i]);
    const bool letter_or_digit = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (letter_or_digit || c == '_' || c == '-' || (c == '.' && i > 0)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (out.empty()) out.push_back('%');
  out += extension;
  if (out.size() > 255)
    invalid_input("the file name " + out.substr(0, 32) + "... of a tensor would be " + std::to_string(out.size()) +
                  " bytes, more than a file name may have (255)");
  return out;
}

namespace {

std::string lower_ascii(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Whether `dir` treats names that differ only in case as one: a probe file is made under a
// lower-case name and looked up under the upper-case one.
bool directory_ignores_case(const std::string& dir) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
  std::mt19937_64 rng(std::random_device{}());
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = ".onnxq-case-probe-";
    for (int i = 0; i < 8; ++i) name += letters[rng() % 26];
    const std::string lower = (std::filesystem::path(dir) / name).string();
    const int fd = ::open(lower.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) fail(ErrorKind::Io, "cannot create a file in " + dir + ": " + std::strerror(errno));
    ::close(fd);
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    struct stat a {
    }, b{};
    const bool same = ::stat(lower.c_str(), &a) == 0 && ::stat((std::filesystem::path(dir) / upper).c_str(), &b) == 0 &&
                      a.st_ino == b.st_ino && a.st_dev == b.st_dev;
    ::unlink(lower.c_str());
    return same;
  }
  fail(ErrorKind::Io, "cannot create a file in " + dir + ": every probe name is taken");
}

}  // namespace

void check_file_names_distinct(const std::string& dir, const std::vector<std::string>& names,
                               const std::vector<std::string>& shown_names) {
  std::map<std::string, std::size_t> seen;  // lower-cased name -> index
  std::vector<std::pair<std::size_t, std::size_t>> clashes;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto [it, inserted] = seen.emplace(lower_ascii(names[i]), i);
    if (!inserted) clashes.emplace_back(it->second, i);
  }
  if (clashes.empty() || !directory_ignores_case(dir)) return;
  const auto [a, b] = clashes.front();
  fail(ErrorKind::Io, "tensors '" + shown_names[a] + "' and '" + shown_names[b] + "' would be written to " + names[a] +
                          " and " + names[b] + ", which are one file in " + dir + " (its file system ignores case)");
}

std::vector<std::string> output_file_stems(const std::vector<std::string>& names) {
  std::vector<std::string> stems;
  std::set<std::string> used;
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::string stem;
    for (unsigned char c : names[k]) {
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
      stem += ok ? static_cast<char>(c) : '_';
    }
    // Appended, not "output_" + ...: GCC 12 warns falsely (-Wrestrict) on that.
    if (stem.empty()) stem = std::string("output_").append(std::to_string(k));
    if (stem[0] == '.') stem[0] = '_';
    if (!used.insert(stem).second) stem.append("_").append(std::to_string(k));
    used.insert(stem);
    stems.push_back(std::move(stem));
  }
  return stems;
}

}  // namespace onnxq
