// A fresh directory under $TMPDIR for one test, removed with everything in
// it when the test ends (pass or fail).
#pragma once

#include <stdlib.h>  // mkdtemp (POSIX)

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

namespace wheelmod::test {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "wheelmod-test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  /// Writes `text` to the file `name` inside the directory.
  void write(const std::string& name, std::string_view text) const {
    std::ofstream(m_path / name, std::ios::binary) << text;
  }

 private:
  std::filesystem::path m_path;
};

}  // namespace wheelmod::test
