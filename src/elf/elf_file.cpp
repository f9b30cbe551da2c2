#include "elf/elf_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/timings.hpp"
#include "core/unique_fd.hpp"
#include "elf_image.hpp"

namespace wheelmod::elf {

namespace {

// O_NONBLOCK: a FIFO given by mistake must not hang the open.
UniqueFd open_for_reading(const std::filesystem::path& file) {
  return UniqueFd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
}

bool has_elf_magic(int fd) {
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) return false;
  std::array<unsigned char, SELFMAG> magic{};
  ssize_t got = -1;
  do {
    got = ::pread(fd, magic.data(), magic.size(), 0);
  } while (got < 0 && errno == EINTR);
  return got == static_cast<ssize_t>(magic.size()) &&
         std::memcmp(magic.data(), ELFMAG, SELFMAG) == 0;
}

}  // namespace

bool is_text_by_name(std::string_view filename) {
  const auto dot = filename.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  const auto suffix = filename.substr(dot + 1);
  // Python (PEP 3147 bytecode, stubs), C, C++ and CUDA sources and headers, build files, docs,
  // data and image formats. Matched exactly and case-sensitively: what wheels ship.
  static constexpr std::array<std::string_view, 34> k_text = {
      "py",    "pyc", "pyi",   "pyx",  "pxd", "h",   "hpp",  "hh",   "hxx", "cuh",  "inl", "c",
      "cc",    "cpp", "cu",    "txt",  "md",  "rst", "json", "yaml", "yml", "toml", "cfg", "ini",
      "cmake", "pc",  "typed", "html", "css", "js",  "png",  "svg",  "jpg", "pem"};
  return std::find(k_text.begin(), k_text.end(), suffix) != k_text.end();
}

bool is_elf(const std::filesystem::path& file) {
  const UniqueFd fd = open_for_reading(file);
  return fd && has_elf_magic(fd.get());
}

bool is_elf(int fd) { return has_elf_magic(fd); }

std::optional<DynamicInfo> read_dynamic(const std::filesystem::path& file) {
  const UniqueFd fd = open_for_reading(file);
  if (!fd) throw IoError(file.string(), std::string("cannot open: ") + std::strerror(errno));
  return read_dynamic(fd.get(), file);
}

std::optional<DynamicInfo> read_dynamic(int fd, const std::filesystem::path& file) {
  const timings::Scope phase("elf-read");
  if (!has_elf_magic(fd)) return std::nullopt;
  timings::count("elf files read");

  const detail::ElfImage image(fd, file);
  DynamicInfo info;
  info.elf_class = image.elf_class();
  info.machine = image.machine();
  info.type = image.type();
  info.little_endian = image.little_endian();
  info.interpreter = image.interpreter();
  // gABI "Dynamic Section": DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH
  // hold offsets into the DT_STRTAB string table. Of repeated SONAME /
  // RPATH / RUNPATH entries the last counts, as in ld.so.
  for (const auto& entry : image.dynamic()) {
    switch (entry.tag) {
      case DT_NEEDED:
        info.needed.push_back(image.read_string(entry.value));
        break;
      case DT_SONAME:
        info.soname = image.read_string(entry.value);
        break;
      case DT_RPATH:
        info.rpath = image.read_string(entry.value);
        ++info.search_path_entries;
        break;
      case DT_RUNPATH:
        info.runpath = image.read_string(entry.value);
        ++info.search_path_entries;
        break;
      default:
        break;
    }
  }
  return info;
}

std::vector<std::string> split_search_path(const std::string& value) {
  // An empty value lists no directory; inside a list, glibc's ld.so reads an
  // empty element (":/x", "/x::/y", "/x:") as the current directory ("./").
  std::vector<std::string> entries;
  if (value.empty()) return entries;
  std::string::size_type begin = 0;
  while (true) {
    const auto colon = value.find(':', begin);
    entries.push_back(value.substr(begin, colon - begin));
    if (colon == std::string::npos) return entries;
    begin = colon + 1;
  }
}

}  // namespace wheelmod::elf
