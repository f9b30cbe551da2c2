#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "hash/sha256.hpp"
#include "temp_dir.hpp"

using wheelmod::hash::Sha256;
using wheelmod::hash::sha256_file;
using wheelmod::hash::Sha256Digest;
using wheelmod::hash::to_hex;

namespace {

std::string hex_of(std::string_view content) {
  Sha256 hasher;
  hasher.update(content);
  return to_hex(hasher.finish());
}

using wheelmod::test::TempDir;

/// `size` bytes that are not all alike, so a block read twice or skipped
/// changes the digest.
std::string pseudo_random_bytes(std::size_t size) {
  std::string out(size, '\0');
  std::uint32_t state = 2463534242U;
  for (auto& c : out) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    c = static_cast<char>(state & 0xff);
  }
  return out;
}

void write_file(const std::filesystem::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  REQUIRE(out.good());
}

}  // namespace

TEST_CASE("Sha256 matches the FIPS 180-2 vectors", "[hash]") {
  // FIPS 180-2 appendix B.1 ("abc") and B.2 (the 448-bit message); the empty
  // message's digest is the well-known e3b0c442… (sha256sum < /dev/null).
  struct {
    std::string_view input;
    std::string_view hex;
  } const cases[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    CHECK(hex_of(c.input) == c.hex);
  }
}

TEST_CASE("Sha256 hashes one million 'a' fed in uneven chunks", "[hash]") {
  // FIPS 180-2 appendix B.3. Chunk sizes straddle the 64-byte block so
  // update() must carry partial blocks over.
  const std::string million(1'000'000, 'a');
  const std::size_t chunk_sizes[] = {1, 63, 64, 65, 127, 1000, 4097, 65536};
  Sha256 hasher;
  std::size_t offset = 0;
  for (std::size_t i = 0; offset < million.size(); ++i) {
    const std::size_t n =
        std::min(chunk_sizes[i % std::size(chunk_sizes)], million.size() - offset);
    hasher.update(std::string_view(million).substr(offset, n));
    offset += n;
  }
  CHECK(to_hex(hasher.finish()) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  CHECK(hex_of(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("Sha256::update takes bytes and text alike", "[hash]") {
  const std::vector<std::uint8_t> bytes{'a', 'b', 'c'};
  Sha256 hasher;
  hasher.update(std::span<const std::uint8_t>(bytes));
  CHECK(to_hex(hasher.finish()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("Sha256::finish resets the hasher", "[hash]") {
  Sha256 hasher;
  hasher.update("abc");
  CHECK(to_hex(hasher.finish()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // nothing since the last finish(): the empty message
  CHECK(to_hex(hasher.finish()) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  hasher.update("ab");
  hasher.update("c");
  CHECK(to_hex(hasher.finish()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("Sha256 keeps its state when moved", "[hash]") {
  Sha256 first;
  first.update("ab");
  Sha256 second(std::move(first));
  second.update("c");
  CHECK(to_hex(second.finish()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 third;
  third.update("unrelated");
  second.update("ab");
  third = std::move(second);
  third.update("c");
  CHECK(to_hex(third.finish()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("to_hex writes lower-case hex", "[hash]") {
  struct {
    std::vector<std::uint8_t> bytes;
    std::string_view hex;
  } const cases[] = {
      {{}, ""},
      {{0x00}, "00"},
      {{0x00, 0x0f, 0xf0, 0xff}, "000ff0ff"},
      {{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}, "0123456789abcdef"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.hex);
    CHECK(to_hex(c.bytes) == c.hex);
  }
}

TEST_CASE("sha256_file agrees with the in-memory digest", "[hash]") {
  // Sizes around the 64 KiB read block of sha256_file.
  const std::size_t k_block = 64 * 1024;
  const std::size_t sizes[] = {0, 1, k_block - 1, k_block, k_block + 1, 3 * k_block + 123};
  const TempDir dir;
  for (const auto size : sizes) {
    CAPTURE(size);
    const auto content = pseudo_random_bytes(size);
    const auto path = dir.path() / ("file-" + std::to_string(size));
    write_file(path, content);
    const auto digest = sha256_file(path);
    CHECK(digest.size == size);
    CHECK(to_hex(digest.sha256) == hex_of(content));
  }
}

TEST_CASE("sha256_file of an empty file is the empty digest", "[hash]") {
  const TempDir dir;
  write_file(dir.path() / "empty", "");
  const auto digest = sha256_file(dir.path() / "empty");
  CHECK(digest.size == 0);
  CHECK(to_hex(digest.sha256) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("sha256_file throws IoError naming a missing file", "[hash]") {
  const TempDir dir;
  const auto path = dir.path() / "missing.whl";
  try {
    (void)sha256_file(path);
    FAIL("no exception for a missing file");
  } catch (const wheelmod::IoError& error) {
    CHECK(error.code() == wheelmod::ExitCode::io);
    CHECK(static_cast<int>(error.code()) == 4);
    CHECK(error.subject() == path.string());
    CHECK(error.cause() == "cannot open: No such file or directory");
    CHECK_THAT(error.render(), Catch::Contains(path.string()));
  }
}

TEST_CASE("sha256_file throws IoError naming a directory", "[hash]") {
  const TempDir dir;
  try {
    (void)sha256_file(dir.path());
    FAIL("no exception for a directory");
  } catch (const wheelmod::IoError& error) {
    CHECK(static_cast<int>(error.code()) == 4);
    CHECK(error.subject() == dir.path().string());
    // Linux opens a directory read-only and fails the read (EISDIR).
    CHECK_THAT(error.cause(), Catch::Contains("Is a directory"));
  }
}
