// What the network tests share: the servers the CTest fixtures started
// (nginx over the sample index, fault_server.py for failures), the sample
// tree, temp directories.
#pragma once

#include <stdlib.h>  // mkdtemp, setenv (POSIX)

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include <catch2/catch.hpp>

#include "hash/sha256.hpp"
#include "temp_dir.hpp"

namespace net_test {

namespace fs = std::filesystem;

inline const fs::path k_sample = WHEELMOD_SAMPLE_INDEX_DIR;
inline const fs::path k_nginx_state = WHEELMOD_NGINX_STATE_DIR;
inline const fs::path k_fault_state = WHEELMOD_FAULT_STATE_DIR;

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

struct Servers {
  std::string nginx;  // http://127.0.0.1:P/whl (the index root)
  std::string fault;  // http://127.0.0.1:Q
};

/// The fixtures' servers; fails with a hint when they are not running.
inline const Servers& servers() {
  static const Servers found = [] {
    // The servers are local: a proxy from the environment must not get
    // these requests (libcurl honours no_proxy).
    ::setenv("no_proxy", "127.0.0.1,localhost", 1);
    ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    INFO(
        "run through ctest (fixtures http.nginx_start, http.fault_server_start), or start "
        "tests/integration/nginx_fixture.py and fault_server.py with these state directories");
    REQUIRE(fs::exists(k_nginx_state / "url"));
    REQUIRE(fs::exists(k_fault_state / "url"));
    return Servers{trimmed(read_file(k_nginx_state / "url")),
                   trimmed(read_file(k_fault_state / "url"))};
  }();
  return found;
}

/// The page nginx serves for `relative` (under /whl/), as rendered.
inline std::string rendered_page(const std::string& relative) {
  return read_file(k_nginx_state / "pages" / "whl" / relative / "index.html");
}

/// A name no other test (or earlier run) uses, for fault_server counters.
inline std::string unique_token() {
  static std::atomic<unsigned> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return "t" + std::to_string(now) + "-" + std::to_string(counter++);
}

inline std::string sha256_hex(std::string_view bytes) {
  wheelmod::hash::Sha256 hasher;
  hasher.update(bytes);
  return wheelmod::hash::to_hex(hasher.finish());
}

using wheelmod::test::TempDir;

}  // namespace net_test
