// Private to wheelmod_net: RAII owners for libcurl's easy handle and
// header list, so no path out of a request leaks them. Setting an option
// that libcurl rejects is a bug here (or a libcurl too old), not a user
// error, so it throws std::logic_error naming the option.
#pragma once

#include <curl/curl.h>

#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace wheelmod::net {

/// curl_global_init exactly once per process, before the first handle.
inline void ensure_curl_initialised() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw std::runtime_error("libcurl: curl_global_init failed");
  });
}

class CurlHandle {
 public:
  CurlHandle() {
    ensure_curl_initialised();
    m_handle = curl_easy_init();
    if (m_handle == nullptr) throw std::runtime_error("libcurl: curl_easy_init failed");
  }
  ~CurlHandle() { curl_easy_cleanup(m_handle); }
  CurlHandle(const CurlHandle&) = delete;
  CurlHandle& operator=(const CurlHandle&) = delete;

  [[nodiscard]] CURL* get() const { return m_handle; }

  /// Back to the defaults; the connection cache survives, so the next
  /// request to the same host reuses the connection.
  void reset() { curl_easy_reset(m_handle); }

  template <class T>
  void set(CURLoption option, T value, const char* name) {
    const CURLcode code = curl_easy_setopt(m_handle, option, value);
    if (code != CURLE_OK)
      throw std::logic_error(std::string("libcurl rejected ") + name + ": " +
                             curl_easy_strerror(code));
  }

 private:
  CURL* m_handle = nullptr;
};

/// Owns a curl_slist of request headers.
class CurlHeaderList {
 public:
  CurlHeaderList() = default;
  ~CurlHeaderList() { curl_slist_free_all(m_list); }
  CurlHeaderList(const CurlHeaderList&) = delete;
  CurlHeaderList& operator=(const CurlHeaderList&) = delete;

  void append(const std::string& header) {
    curl_slist* grown = curl_slist_append(m_list, header.c_str());
    if (grown == nullptr) throw std::bad_alloc();
    m_list = grown;
  }
  [[nodiscard]] curl_slist* get() const { return m_list; }

 private:
  curl_slist* m_list = nullptr;
};

}  // namespace wheelmod::net
