#include "curl_library.hpp"

#include <dlfcn.h>

#include <string>

#include "onnxq/core/error.hpp"

namespace onnxq::remote_detail {
namespace {

constexpr const char* kSoname = "libcurl.so.4";

// Resolves `name` into `fn`, or fails naming the missing entry point.
template <typename Fn>
void resolve(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!fn) fail(ErrorKind::Io, std::string("remote files need libcurl: ") + kSoname + " has no " + name);
}

CurlLibrary load() {
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    fail(ErrorKind::Io, std::string("remote files need libcurl (Debian package libcurl4): cannot load ") + kSoname +
                            (why ? std::string(": ") + why : std::string()));
  }
  CurlLibrary lib{};
  resolve(handle, "curl_global_init", lib.global_init);
  resolve(handle, "curl_easy_init", lib.easy_init);
  resolve(handle, "curl_easy_setopt", lib.easy_setopt);
  resolve(handle, "curl_easy_perform", lib.easy_perform);
  resolve(handle, "curl_easy_getinfo", lib.easy_getinfo);
  resolve(handle, "curl_easy_strerror", lib.easy_strerror);
  resolve(handle, "curl_easy_cleanup", lib.easy_cleanup);
  resolve(handle, "curl_slist_append", lib.slist_append);
  resolve(handle, "curl_slist_free_all", lib.slist_free_all);
  if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) fail(ErrorKind::Io, "libcurl failed to initialize");
  return lib;  // the handle stays open for the life of the process
}

}  // namespace

const CurlLibrary& curl_library() {
  static const CurlLibrary lib = load();  // a failed load throws and is tried again next time
  return lib;
}

}  // namespace onnxq::remote_detail
