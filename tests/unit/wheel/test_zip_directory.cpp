// Zip structures from byte ranges (PKWARE APPNOTE 6.3.10): the sample
// index's real wheels, ZIP64 archives (written byte by byte here, and by
// Info-ZIP's `zip -fz` when installed), long comments, and archives that
// are truncated or lie.
#include <stdlib.h>  // mkdtemp (POSIX)
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include "wheel/zip_directory.hpp"

using wheelmod::wheel::CentralDirectoryLocation;
using wheelmod::wheel::extract_entry_data;
using wheelmod::wheel::find_central_directory;
using wheelmod::wheel::local_header_length;
using wheelmod::wheel::parse_central_directory;
using wheelmod::wheel::ZipEntryInfo;

namespace {

namespace fs = std::filesystem;

std::span<const std::uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tail_of(const std::string& archive, std::size_t length) {
  return archive.substr(archive.size() - std::min(length, archive.size()));
}

/// The whole path a range reader takes: end record from `tail_size` last
/// bytes, central directory, the entry named `name`, its local header, its
/// data. Returns the entry's bytes.
std::string walk_to(const std::string& archive, std::size_t tail_size, std::string_view name,
                    std::vector<ZipEntryInfo>* all = nullptr) {
  const auto tail = tail_of(archive, tail_size);
  const auto location = find_central_directory(bytes_of(tail), archive.size());
  REQUIRE(location.has_value());
  REQUIRE(location->offset + location->size <= archive.size());
  const auto cd = bytes_of(archive).subspan(location->offset, location->size);
  const auto entries = parse_central_directory(cd, location->entries);
  REQUIRE(entries.has_value());
  if (all != nullptr) *all = *entries;
  for (const auto& entry : *entries) {
    if (entry.name != name) continue;
    const auto local = bytes_of(archive).subspan(entry.local_header_offset);
    const auto header = local_header_length(local);
    REQUIRE(header.has_value());
    const auto text = extract_entry_data(entry, local.subspan(*header));
    REQUIRE(text.has_value());
    return *text;
  }
  FAIL("no entry " << name);
  return {};
}

// --- A tiny zip writer (stored entries), APPNOTE §4.3 layout --------------

void put16(std::string& out, std::uint32_t value) {
  out.push_back(static_cast<char>(value & 0xff));
  out.push_back(static_cast<char>((value >> 8) & 0xff));
}
void put32(std::string& out, std::uint32_t value) {
  put16(out, value & 0xffff);
  put16(out, value >> 16);
}
void put64(std::string& out, std::uint64_t value) {
  put32(out, static_cast<std::uint32_t>(value & 0xffffffff));
  put32(out, static_cast<std::uint32_t>(value >> 32));
}

std::uint32_t crc_of(std::string_view data) {
  return static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

struct Member {
  std::string name;
  std::string data;
};

enum class Zip64 { no, yes };

/// Stored members; with Zip64::yes every size, offset and count is moved
/// to the ZIP64 extra field / end record (§4.5.3, §4.3.14, §4.3.15).
std::string build_zip(const std::vector<Member>& members, Zip64 zip64,
                      std::string_view comment = {}) {
  const bool z = zip64 == Zip64::yes;
  std::string out;
  std::string central;
  for (const auto& member : members) {
    const auto offset = out.size();
    const auto size = static_cast<std::uint32_t>(member.data.size());
    put32(out, 0x04034b50);
    put16(out, z ? 45 : 20);
    put16(out, 0);
    put16(out, 0);  // stored
    put32(out, 0);  // time, date
    put32(out, crc_of(member.data));
    put32(out, z ? 0xFFFFFFFF : size);
    put32(out, z ? 0xFFFFFFFF : size);
    put16(out, static_cast<std::uint32_t>(member.name.size()));
    put16(out, z ? 20 : 0);
    out += member.name;
    if (z) {
      put16(out, 0x0001);
      put16(out, 16);
      put64(out, size);
      put64(out, size);
    }
    out += member.data;

    put32(central, 0x02014b50);
    put16(central, 0x031e);
    put16(central, z ? 45 : 20);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, crc_of(member.data));
    put32(central, z ? 0xFFFFFFFF : size);
    put32(central, z ? 0xFFFFFFFF : size);
    put16(central, static_cast<std::uint32_t>(member.name.size()));
    put16(central, z ? 28 : 0);
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);
    put32(central, 0);
    put32(central, z ? 0xFFFFFFFF : static_cast<std::uint32_t>(offset));
    central += member.name;
    if (z) {
      put16(central, 0x0001);
      put16(central, 24);
      put64(central, size);
      put64(central, size);
      put64(central, offset);
    }
  }
  const auto cd_offset = out.size();
  out += central;
  const auto count = members.size();
  if (z) {
    const auto record = out.size();
    put32(out, 0x06064b50);
    put64(out, 44);
    put16(out, 0x031e);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, count);
    put64(out, count);
    put64(out, central.size());
    put64(out, cd_offset);
    put32(out, 0x07064b50);
    put32(out, 0);
    put64(out, record);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, z ? 0xFFFF : static_cast<std::uint32_t>(count));
  put16(out, z ? 0xFFFF : static_cast<std::uint32_t>(count));
  put32(out, z ? 0xFFFFFFFF : static_cast<std::uint32_t>(central.size()));
  put32(out, z ? 0xFFFFFFFF : static_cast<std::uint32_t>(cd_offset));
  put16(out, static_cast<std::uint32_t>(comment.size()));
  out += comment;
  return out;
}

const std::vector<Member> k_members = {
    {"pkg/__init__.py", "print('hello')\n"},
    {"pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"},
    {"pkg-1.0.dist-info/RECORD", ""},
};

using wheelmod::test::TempDir;

const fs::path k_sample = WHEELMOD_SAMPLE_INDEX_DIR;
constexpr std::size_t k_full_tail = 64 * 1024 + 22;

}  // namespace

TEST_CASE("zip: METADATA of the sample wheels equals their .metadata files", "[wheel][zip]") {
  // PEP 658: the .metadata file is the wheel's METADATA byte for byte; the
  // sample generator writes both (index-mirrors/sample/README.md).
  struct Case {
    const char* wheel;
    const char* metadata_entry;
  };
  const Case cases[] = {
      {"whl/cu126/torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
       "torch-2.6.0+cu126.dist-info/METADATA"},
      {"whl/cu126/torch-2.6.0+cu126-cp311-cp311-linux_aarch64.whl",
       "torch-2.6.0+cu126.dist-info/METADATA"},
      {"whl/cpu/torchvision-0.21.0+cpu-cp313-cp313-linux_x86_64.whl",
       "torchvision-0.21.0+cpu.dist-info/METADATA"},
      {"whl/rocm6.2.4/torchaudio-2.6.0+rocm6.2.4-cp312-cp312-linux_x86_64.whl",
       "torchaudio-2.6.0+rocm6.2.4.dist-info/METADATA"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.wheel);
    const auto archive = read_file(k_sample / c.wheel);
    const auto expected = read_file(k_sample / (std::string(c.wheel) + ".metadata"));
    std::vector<ZipEntryInfo> entries;
    CHECK(walk_to(archive, k_full_tail, c.metadata_entry, &entries) == expected);
    // The exact minimum: a tail that starts at the central directory.
    const auto location =
        find_central_directory(bytes_of(tail_of(archive, k_full_tail)), archive.size());
    REQUIRE(location);
    CHECK(walk_to(archive, archive.size() - location->offset, c.metadata_entry) == expected);
    // RECORD lists every member, itself included (PEP 376), one per line.
    const std::string record_name =
        std::string(c.metadata_entry)
            .replace(std::string(c.metadata_entry).size() - 8, 8, "RECORD");
    const auto record = walk_to(archive, k_full_tail, record_name);
    CHECK(entries.size() ==
          static_cast<std::size_t>(std::count(record.begin(), record.end(), '\n')));
    CHECK(entries.back().name == record_name);
  }
}

TEST_CASE("zip: a ZIP64 archive written by hand", "[wheel][zip]") {
  const auto archive = build_zip(k_members, Zip64::yes);
  const auto location = find_central_directory(bytes_of(archive), archive.size());
  REQUIRE(location);
  CHECK(location->entries == 3);
  const auto entries = parse_central_directory(
      bytes_of(archive).subspan(location->offset, location->size), location->entries);
  REQUIRE(entries);
  REQUIRE(entries->size() == 3);
  for (std::size_t i = 0; i < k_members.size(); ++i) {
    CAPTURE(i);
    CHECK((*entries)[i].name == k_members[i].name);
    CHECK((*entries)[i].uncompressed_size == k_members[i].data.size());
    CHECK((*entries)[i].compressed_size == k_members[i].data.size());
  }
  CHECK((*entries)[0].local_header_offset == 0);
  CHECK(walk_to(archive, k_full_tail, "pkg-1.0.dist-info/METADATA") == k_members[1].data);
  // And the tail holds no more than the ZIP64 end structures (56 + 20 + 22).
  CHECK(walk_to(archive, archive.size() - location->offset, "pkg/__init__.py") ==
        k_members[0].data);
}

TEST_CASE("zip: the hand-written ZIP64 archive is valid for Python's zipfile", "[wheel][zip]") {
  // Cross-checks the writer above against an independent reader.
  if (!fs::exists("/usr/bin/python3")) {
    WARN("no /usr/bin/python3; skipped");
    return;
  }
  TempDir dir;
  const auto path = dir.path() / "zip64.zip";
  std::ofstream(path, std::ios::binary) << build_zip(k_members, Zip64::yes);
  const std::string command =
      "/usr/bin/python3 -c \"import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
      "assert z.testzip() is None; assert len(z.infolist()) == 3\" " +
      path.string();
  CHECK(std::system(command.c_str()) == 0);
}

TEST_CASE("zip: a ZIP64 archive from Info-ZIP zip -fz", "[wheel][zip]") {
  // zip -fz writes the ZIP64 end record and the uncompressed size in the
  // ZIP64 extra field only (a partial ZIP64 header, §4.5.3).
  if (!fs::exists("/usr/bin/zip")) {
    WARN("no /usr/bin/zip; skipped");
    return;
  }
  TempDir dir;
  std::string content;
  for (int i = 0; i < 200; ++i) content += "Requires-Dist: nvidia-cublas-cu12==12.6.4.1\n";
  std::ofstream(dir.path() / "METADATA", std::ios::binary) << content;
  const std::string command =
      "cd '" + dir.path().string() + "' && /usr/bin/zip -q -fz -9 a.zip METADATA";
  REQUIRE(std::system(command.c_str()) == 0);
  const auto archive = read_file(dir.path() / "a.zip");
  std::vector<ZipEntryInfo> entries;
  CHECK(walk_to(archive, k_full_tail, "METADATA", &entries) == content);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].method == 8);
  CHECK(entries[0].uncompressed_size == content.size());
  CHECK(entries[0].compressed_size < content.size());
}

TEST_CASE("zip: archives with comments", "[wheel][zip]") {
  // §4.3.16: the comment follows the end record, up to 65535 bytes.
  struct Case {
    const char* label;
    std::string comment;
    Zip64 zip64;
    std::size_t tail;
  };
  // With the longest comment, the ZIP64 locator (20 bytes) and record (56)
  // lie before the last 64 KiB + 22 bytes.
  const Case cases[] = {
      {"short", "built by hand", Zip64::no, k_full_tail},
      {"1000 bytes", std::string(1000, 'c'), Zip64::no, k_full_tail},
      {"maximum length", std::string(65535, 'x'), Zip64::no, k_full_tail},
      {"maximum length, ZIP64", std::string(65535, 'x'), Zip64::yes, k_full_tail + 20 + 56},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto archive = build_zip(k_members, c.zip64, c.comment);
    CHECK(walk_to(archive, c.tail, "pkg-1.0.dist-info/METADATA") == k_members[1].data);
  }
}

TEST_CASE("zip: archives that zip readers would read differently are refused", "[wheel][zip]") {
  // Python's zipfile takes the last end-record signature, libzip the most consistent record:
  // exactly one record may end the file, and the central directory must end where it begins.
  std::string fake;  // an end record whose comment length (500) does not fit what follows it
  put32(fake, 0x06054b50);
  fake += std::string(16, '\0');
  put16(fake, 500);
  const std::vector<Member> other = {{"evil/__init__.py", "print('other archive')\n"}};
  const auto hidden = build_zip(other, Zip64::no);
  const auto good = build_zip(k_members, Zip64::no);
  auto gap = good;  // two bytes between the central directory and the end record
  gap.insert(gap.size() - 22, std::string(2, '\0'));
  struct Case {
    const char* label;
    std::string archive;
    const char* message;
  };
  const Case cases[] = {
      {"a second archive in the comment", build_zip(k_members, Zip64::no, hidden),
       "two end-of-central-directory records"},
      {"the same, ZIP64", build_zip(k_members, Zip64::yes, hidden),
       "two end-of-central-directory records"},
      {"a signature inside the comment", build_zip(k_members, Zip64::no, "a " + fake + " b"),
       "does not end the archive"},
      {"a signature ending the comment", build_zip(k_members, Zip64::no, "yy" + fake),
       "does not end the archive"},
      {"bytes after the end record", good + "trailing", "does not end the archive"},
      {"bytes before the archive", "#!/bin/sh\n" + good, "does not end where the end record"},
      {"a gap before the end record", gap, "does not end where the end record"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto location = find_central_directory(bytes_of(c.archive), c.archive.size());
    REQUIRE_FALSE(location.has_value());
    CHECK_THAT(location.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("zip: check_entry_ranges refuses overlapping entries and bytes outside", "[wheel][zip]") {
  const auto entry = [](std::string name, std::uint64_t offset, std::uint64_t size,
                        std::uint16_t flags = 0) {
    ZipEntryInfo info;
    info.name = std::move(name);
    info.local_header_offset = offset;
    info.compressed_size = size;
    info.flags = flags;
    return info;
  };
  // Local headers of 40 bytes: a at 0..140, b at 140..240, then 20 bytes of gap.
  const std::vector<ZipEntryInfo> apart = {entry("b", 140, 60), entry("a", 0, 100)};
  const std::vector<std::uint64_t> lengths = {40, 40};
  const auto covered = check_entry_ranges(apart, lengths, 260);
  REQUIRE(covered);
  CHECK(*covered == 240);
  // Fifield's overlap: every entry's data is the same bytes.
  const std::vector<ZipEntryInfo> shared = {entry("a", 0, 100), entry("b", 0, 100)};
  const auto overlapped = check_entry_ranges(shared, lengths, 260);
  REQUIRE_FALSE(overlapped);
  CHECK_THAT(overlapped.error().message, Catch::Contains("overlaps 'a'"));
  // One byte into the next header, through a data descriptor (flag bit 3, 12 bytes).
  const std::vector<ZipEntryInfo> descriptor = {entry("a", 0, 88, 0x8), entry("b", 140, 60)};
  CHECK(check_entry_ranges(descriptor, lengths, 260));
  const std::vector<ZipEntryInfo> into = {entry("a", 0, 89, 0x8), entry("b", 140, 60)};
  CHECK_FALSE(check_entry_ranges(into, lengths, 260));
  CHECK_FALSE(check_entry_ranges(descriptor, std::vector<std::uint64_t>{41, 40}, 260));
  // Past the central directory, and sizes whose sum passes 2^64.
  CHECK_FALSE(check_entry_ranges(apart, lengths, 239));
  const std::vector<ZipEntryInfo> huge = {entry("a", 0, ~std::uint64_t{0} - 10)};
  const auto wrapped = check_entry_ranges(huge, std::vector<std::uint64_t>{40}, 260);
  REQUIRE_FALSE(wrapped);
  CHECK_THAT(wrapped.error().message, Catch::Contains("run past the start of the central"));
  CHECK_FALSE(check_entry_ranges(apart, std::vector<std::uint64_t>{40}, 260));
}

TEST_CASE("zip: a ZIP64 locator before the tail asks for more bytes", "[wheel][zip]") {
  const auto archive = build_zip(k_members, Zip64::yes, std::string(65535, 'x'));
  const auto location =
      find_central_directory(bytes_of(tail_of(archive, k_full_tail)), archive.size());
  REQUIRE_FALSE(location.has_value());
  CHECK_THAT(location.error().message, Catch::Contains("read more of the archive's end"));
}

TEST_CASE("zip: find_central_directory rejects truncated and damaged tails", "[wheel][zip]") {
  const auto good = build_zip(k_members, Zip64::no);
  const auto good64 = build_zip(k_members, Zip64::yes);
  auto bad_signature = good;
  bad_signature[bad_signature.size() - 22] = 'Q';
  auto cd_past_end = good;  // central directory offset points past the end record
  cd_past_end[cd_past_end.size() - 3] = static_cast<char>(0x7f);
  auto split = good;  // "number of this disk" = 1
  split[split.size() - 18] = 1;
  auto marked_no_locator = good;  // entries = 0xFFFF without ZIP64 structures
  marked_no_locator[marked_no_locator.size() - 12] = static_cast<char>(0xff);
  marked_no_locator[marked_no_locator.size() - 11] = static_cast<char>(0xff);
  auto locator_lies = good64;  // the locator points at the start of the file
  locator_lies.replace(locator_lies.size() - 22 - 12, 8, std::string(8, '\0'));
  struct Case {
    const char* label;
    std::string tail;
    std::uint64_t archive_size;
    const char* message;
  };
  const Case cases[] = {
      {"empty", "", 0, "no end-of-central-directory record"},
      {"21 bytes", tail_of(good, 21), good.size(), "no end-of-central-directory record"},
      {"last byte missing", good.substr(0, good.size() - 1), good.size() - 1,
       "no end-of-central-directory record"},
      {"signature damaged", bad_signature, good.size(), "no end-of-central-directory record"},
      {"not a zip", std::string(4096, 'a'), 4096, "no end-of-central-directory record"},
      {"tail longer than the archive", good, good.size() - 1, "more bytes"},
      {"central directory past the end record", cd_past_end, good.size(), "does not end where"},
      {"split archive", split, good.size(), "multi-disk"},
      {"ZIP64 marker without locator", marked_no_locator, good.size(), "no ZIP64 end locator"},
      {"ZIP64 record outside the tail", tail_of(good64, 22 + 20 + 10), good64.size(),
       "not within the bytes read"},
      {"ZIP64 locator points elsewhere", locator_lies, good64.size(), "bad signature"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto location = find_central_directory(bytes_of(c.tail), c.archive_size);
    REQUIRE_FALSE(location.has_value());
    CHECK_THAT(location.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("zip: parse_central_directory rejects lying directories", "[wheel][zip]") {
  const auto archive = build_zip(k_members, Zip64::no);
  const auto location = find_central_directory(bytes_of(archive), archive.size());
  REQUIRE(location);
  const std::string cd = archive.substr(location->offset, location->size);
  auto bad_signature = cd;
  bad_signature[0] = 'X';
  auto long_name = cd;  // first name length 0xFFFF: runs past the directory
  long_name[28] = static_cast<char>(0xff);
  long_name[29] = static_cast<char>(0xff);
  auto marked_zip64 = cd;  // compressed size 0xFFFFFFFF, no extra field
  marked_zip64.replace(20, 4, std::string(4, static_cast<char>(0xff)));
  const auto archive64 = build_zip(k_members, Zip64::yes);
  const auto location64 = find_central_directory(bytes_of(archive64), archive64.size());
  REQUIRE(location64);
  auto short_extra = archive64.substr(location64->offset, location64->size);
  short_extra[46 + k_members[0].name.size() + 2] = 8;  // ZIP64 field of 8 bytes, needs 24
  struct Case {
    const char* label;
    std::string bytes;
    std::uint64_t count;
    const char* message;
  };
  const Case cases[] = {
      {"more entries than fit", cd, 1000, "cannot fit"},
      {"absurd count", cd, 0xFFFFFFFFFFFFULL, "cannot fit"},
      {"truncated", cd.substr(0, 100), 2, "truncated"},
      {"bad signature", bad_signature, 3, "bad signature"},
      {"name past the end", long_name, 3, "runs past"},
      {"ZIP64 size without extra field", marked_zip64, 3, "no ZIP64 extra field"},
      {"ZIP64 extra field too short", short_extra, 3, "too short"},
      // Python's zipfile reads entries until the size is used up: it would see a third one.
      {"fewer entries than the directory holds", cd, 2, "bytes after its 2 entries"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto entries = parse_central_directory(bytes_of(c.bytes), c.count);
    REQUIRE_FALSE(entries.has_value());
    CHECK_THAT(entries.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("zip: local_header_length", "[wheel][zip]") {
  const auto archive = build_zip(k_members, Zip64::yes);
  // 30 fixed + "pkg/__init__.py" (15) + the ZIP64 extra field (20).
  const auto length = local_header_length(bytes_of(archive));
  REQUIRE(length);
  CHECK(*length == 30 + 15 + 20);
  // Only the fixed part is needed.
  const auto fixed_part_only = local_header_length(bytes_of(archive.substr(0, 30)));
  REQUIRE(fixed_part_only);
  CHECK(*fixed_part_only == *length);
}

TEST_CASE("zip: local_header_length rejects what is not a local header", "[wheel][zip]") {
  const auto archive = build_zip(k_members, Zip64::no);
  struct Case {
    const char* label;
    std::string bytes;
    const char* message;
  };
  const Case cases[] = {
      {"29 bytes", archive.substr(0, 29), "truncated"},
      {"empty", "", "truncated"},
      {"central header", archive.substr(archive.find("PK\x01\x02")), "bad signature"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto length = local_header_length(bytes_of(c.bytes));
    REQUIRE_FALSE(length.has_value());
    CHECK_THAT(length.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("zip: extract_entry_data rejects corrupt and oversized entries", "[wheel][zip]") {
  // A real deflated member: torch's METADATA from a sample wheel.
  const auto archive =
      read_file(k_sample / "whl/cu124/torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl");
  std::vector<ZipEntryInfo> entries;
  walk_to(archive, k_full_tail, "torch-2.5.1+cu124.dist-info/WHEEL", &entries);
  const auto it = std::find_if(entries.begin(), entries.end(), [](const ZipEntryInfo& e) {
    return e.name == "torch-2.5.1+cu124.dist-info/METADATA";
  });
  REQUIRE(it != entries.end());
  const ZipEntryInfo entry = *it;
  REQUIRE(entry.method == 8);
  const auto local = bytes_of(archive).subspan(entry.local_header_offset);
  const std::string data(archive.substr(entry.local_header_offset + *local_header_length(local),
                                        entry.compressed_size));
  REQUIRE(extract_entry_data(entry, bytes_of(data)).has_value());

  auto wrong_crc = entry;
  wrong_crc.crc32 ^= 1;
  auto bigger = entry;
  bigger.uncompressed_size += 1;
  auto smaller = entry;
  smaller.uncompressed_size -= 1;
  auto huge = entry;
  huge.uncompressed_size = 1ULL << 40;
  auto bzip2 = entry;
  bzip2.method = 12;
  auto stored_mismatch = entry;
  stored_mismatch.method = 0;
  auto garbled = data;
  garbled[garbled.size() / 2] = static_cast<char>(garbled[garbled.size() / 2] ^ 0x55);
  struct Case {
    const char* label;
    ZipEntryInfo entry;
    std::string data;
    const char* message;
  };
  const Case cases[] = {
      {"CRC mismatch", wrong_crc, data, "CRC-32 mismatch"},
      {"stated size too large", bigger, data, "inflates to"},
      {"stated size too small (a bomb)", smaller, data, "more than the stated"},
      {"over the size limit", huge, data, "over the limit"},
      {"unsupported method", bzip2, data, "compression method 12"},
      {"stored, sizes differ", stored_mismatch, data, "stored entry"},
      {"truncated data", entry, data.substr(0, data.size() / 2), "truncated"},
      {"deflate stream cut short",
       [&] {
         auto e = entry;
         e.compressed_size = data.size() / 2;
         return e;
       }(),
       data.substr(0, data.size() / 2), "ends early"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.label);
    const auto text = extract_entry_data(c.entry, bytes_of(c.data));
    REQUIRE_FALSE(text.has_value());
    CHECK_THAT(text.error().message, Catch::Contains(c.message));
  }
  // Damaged deflate data fails one way or the other, never silently.
  const auto damaged = extract_entry_data(entry, bytes_of(garbled));
  CHECK_FALSE(damaged.has_value());
}
