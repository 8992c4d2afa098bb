#include "onnxq/io/same_file.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "onnxq/core/error.hpp"

namespace onnxq {
namespace {

struct FileId {
  dev_t dev;
  ino_t ino;
  bool operator==(const FileId&) const = default;
};

std::mutex g_inputs_mutex;
std::vector<FileId> g_noted_inputs;

bool is_noted(const FileId& id) {
  std::lock_guard lock(g_inputs_mutex);
  for (const FileId& f : g_noted_inputs)
    if (f == id) return true;
  return false;
}

bool is_open_descriptor(const FileId& id) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const std::string fd_name = entry.path().filename().string();
    if (fd_name == "1" || fd_name == "2") continue;  // stdout and stderr are outputs
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && FileId{st.st_dev, st.st_ino} == id)
      return true;
  }
  return false;
}

// /proc/self/maps lines: "start-end perms offset major:minor inode path", the numbers of the
// device in hex. Read only when an output would replace an existing file.
bool is_mapped(const FileId& id) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned major_number = 0, minor_number = 0;
    unsigned long long inode = 0;
    if (std::sscanf(line.c_str(), "%*s %*s %*s %x:%x %llu", &major_number, &minor_number, &inode) != 3) continue;
    if (inode != 0 && inode == id.ino && makedev(major_number, minor_number) == id.dev) return true;
  }
  return false;
}

}  // namespace

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the reader reports a missing file itself
  std::lock_guard lock(g_inputs_mutex);
  g_noted_inputs.push_back({st.st_dev, st.st_ino});
}

bool is_process_input(dev_t device, ino_t inode) {
  const FileId id{device, inode};
  return is_noted(id) || is_open_descriptor(id) || is_mapped(id);
}

void refuse_output_onto_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && is_process_input(st.st_dev, st.st_ino))
    throw Error(ErrorKind::InvalidArgument, "refusing to write to " + path + ": it is one of the input files");
}

}  // namespace onnxq
