// Internal: libcurl, loaded when the first remote file is opened rather than linked. Linked, it
// brings some 30 shared libraries (TLS, Kerberos, LDAP, IDN, ...) that every command would load
// and relocate at start-up, though most runs never touch the network.
#pragma once

#include <curl/curl.h>

namespace onnxq::remote_detail {

// The libcurl entry points onnxq uses, resolved from libcurl.so.4 (the soname of libcurl 7 and 8).
struct CurlLibrary {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL* curl, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL* curl);
  CURLcode (*easy_getinfo)(CURL* curl, CURLINFO info, ...);
  const char* (*easy_strerror)(CURLcode code);
  void (*easy_cleanup)(CURL* curl);
  curl_slist* (*slist_append)(curl_slist* list, const char* text);
  void (*slist_free_all)(curl_slist* list);
};

// Loads and initializes libcurl once per process (thread-safe). Throws Error(Io) naming the
// library and the loader's reason when it cannot be loaded, or lacks an entry point.
const CurlLibrary& curl_library();

}  // namespace onnxq::remote_detail
