// SHA-256 over OpenSSL's EVP interface (SHA-NI where the CPU has it), kept out of this header.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace wheelmod::hash {

using Sha256Digest = std::array<std::uint8_t, 32>;

/// Incremental hasher: update() as bytes arrive, finish() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view bytes);
  /// The digest of everything passed to update(); the hasher is then reset.
  Sha256Digest finish();

 private:
  struct Context;
  std::unique_ptr<Context> m_context;
};

/// Lower-case hex, as index pages and sha256sum print it.
std::string to_hex(std::span<const std::uint8_t> bytes);

/// Reads `path` in 64 KiB blocks (memory stays flat): digest and size. IoError names the path.
struct FileDigest {
  Sha256Digest sha256{};
  std::uint64_t size = 0;
};
FileDigest sha256_file(const std::filesystem::path& path);

/// The crypto library wheelmod hashes with, as it reports itself at run time
/// ("OpenSSL 3.0.15 3 Sep 2024").
std::string crypto_library_version();

}  // namespace wheelmod::hash
