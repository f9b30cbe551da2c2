#include "elf/search_path_editor.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <vector>

#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/unique_fd.hpp"
#include "editor_grow.hpp"
#include "editor_patchelf.hpp"
#include "editor_string_users.hpp"
#include "elf_image.hpp"

namespace wheelmod::elf {

namespace {

using detail::DynEntry;
using detail::ElfImage;

std::int64_t dynamic_tag(SearchPathTag tag) {
  return tag == SearchPathTag::rpath ? DT_RPATH : DT_RUNPATH;
}

struct PathEntry {
  std::size_t index;  // into ElfImage::dynamic()
  SearchPathTag tag;
  std::string value;
};

std::vector<PathEntry> path_entries(const ElfImage& image) {
  std::vector<PathEntry> entries;
  const auto& dynamic = image.dynamic();
  for (std::size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i].tag == DT_RPATH)
      entries.push_back({i, SearchPathTag::rpath, image.read_string(dynamic[i].value)});
    if (dynamic[i].tag == DT_RUNPATH)
      entries.push_back({i, SearchPathTag::runpath, image.read_string(dynamic[i].value)});
  }
  return entries;
}

// What a string overwrite or a moved entry could damage: every other string
// the dynamic array names, in order.
std::vector<std::string> other_names(const ElfImage& image) {
  std::vector<std::string> names;
  for (const auto& entry : image.dynamic())
    if (entry.tag == DT_NEEDED || entry.tag == DT_SONAME || entry.tag == DT_AUXILIARY ||
        entry.tag == DT_FILTER)
      names.push_back(std::to_string(entry.tag) + "=" + image.read_string(entry.value));
  return names;
}

std::vector<std::size_t> indices(const std::vector<PathEntry>& entries) {
  std::vector<std::size_t> out;
  for (const auto& entry : entries) out.push_back(entry.index);
  return out;
}

// In place only when the old string's bytes belong to it alone: it must not
// be the tail of a longer string (the byte before it is a NUL) and nothing
// else may name a string starting inside it, or the overwrite would change
// that string too.
bool fits_in_place(const ElfImage& image, const PathEntry& entry, const std::string& value,
                   std::span<const std::size_t> path_indices) {
  if (value == entry.value) return true;  // only the tag or the other entries change
  if (value.size() > entry.value.size()) return false;
  const std::uint64_t index = image.dynamic()[entry.index].value;
  if (index > 0 && image.read_uint(image.strtab_offset() + index - 1, 1, "DT_STRTAB") != 0)
    return false;
  return detail::string_range_use(image, index, index + entry.value.size(), path_indices) ==
         detail::StringUse::unused;
}

// The dynamic array after an edit, without its DT_NULL: entry `keep` becomes
// `kept` (with no `keep`, `kept` is added at the end), the entries in `drop`
// go. gABI "Dynamic Section": apart from the final DT_NULL and the relative
// order of DT_NEEDED entries, entries may appear in any order, and nothing
// after the first DT_NULL is read.
std::vector<DynEntry> edited_dynamic(const ElfImage& image, std::optional<std::size_t> keep,
                                     DynEntry kept, std::span<const std::size_t> drop) {
  const auto& before = image.dynamic();
  std::vector<DynEntry> after;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (i == keep) {
      after.push_back(kept);
      continue;
    }
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) after.push_back(before[i]);
  }
  if (!keep) after.push_back(kept);
  return after;
}

// Writes `after` over the dynamic array from the first entry that differs.
// Later entries move up over dropped ones and DT_NULL fills the freed slots,
// so the array keeps its place; it grows only into slots that the caller
// knows PT_DYNAMIC holds.
void write_dynamic(const ElfImage& image, int fd, std::vector<DynEntry> after,
                   const std::filesystem::path& file) {
  const auto& before = image.dynamic();
  after.resize(std::max(after.size(), before.size()) + 1, DynEntry{DT_NULL, 0});
  std::size_t first = 0;
  while (first < before.size() && before[first].tag == after[first].tag &&
         before[first].value == after[first].value)
    ++first;
  if (first == before.size() && after.size() == before.size() + 1) return;

  const std::size_t word = image.word_size();
  std::vector<unsigned char> bytes((after.size() - first) * 2 * word);
  for (std::size_t i = first; i < after.size(); ++i) {
    const auto slot = std::span(bytes).subspan((i - first) * 2 * word, 2 * word);
    image.encode(static_cast<std::uint64_t>(after[i].tag), slot.first(word));
    image.encode(after[i].value, slot.last(word));
  }
  detail::write_at(fd, bytes, image.dynamic_offset() + first * 2 * word, file);
}

// The file, reopened for writing; refuses when it was replaced meanwhile.
UniqueFd open_for_writing(const std::filesystem::path& file, int read_fd) {
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd)
    throw IoError(file.string(), std::string("cannot open for writing: ") + std::strerror(errno),
                  "make the file writable (chmod u+w) and run again");
  struct stat read_status {};
  struct stat write_status {};
  if (::fstat(read_fd, &read_status) != 0 || ::fstat(fd.get(), &write_status) != 0 ||
      read_status.st_ino != write_status.st_ino || read_status.st_dev != write_status.st_dev)
    throw IoError(file.string(), "the file was replaced while being edited");
  return fd;
}

void verify(const std::filesystem::path& edited, const std::filesystem::path& subject,
            const std::vector<std::string>& names, const std::string& value, SearchPathTag tag) {
  const UniqueFd fd(::open(edited.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw IoError(subject.string(), "cannot reopen the edited file");
  const ElfImage image(fd.get(), edited);
  const auto entries = path_entries(image);
  if (entries.size() != 1 || entries[0].tag != tag || entries[0].value != value ||
      other_names(image) != names)
    throw IoError(subject.string(), "the edited file does not read back as intended",
                  "this is a bug in wheelmod; the original file is " +
                      std::string(edited == subject ? "changed" : "untouched"));
}

// The appended region, then the dynamic array pointed at it.
void apply_growth(const ElfImage& image, const detail::GrowthPlan& growth,
                  std::vector<DynEntry> grown, const std::string& value, SearchPathTag tag, int fd,
                  const std::filesystem::path& written) {
  for (auto& entry : grown) {
    if (entry.tag == dynamic_tag(tag)) entry.value = growth.string_index;
    if (entry.tag == DT_STRTAB) entry.value = growth.strtab_address;
    if (entry.tag == DT_STRSZ) entry.value = growth.strtab_size;
  }
  detail::append_grown_strtab(image, growth, value, fd, written);
  write_dynamic(image, fd, std::move(grown), written);
}

}  // namespace

SearchPathEdit set_search_path(const std::filesystem::path& file, const std::string& value,
                               SearchPathTag tag, const EditOptions& options) {
  if (value.find('\0') != std::string::npos)
    throw UsageError(file.string(), "a search path cannot contain a NUL byte");
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) throw IoError(file.string(), std::string("cannot open: ") + std::strerror(errno));
  if (!is_elf(file)) throw IoError(file.string(), "not an ELF file");
  const ElfImage image(fd.get(), file);
  if (!image.has_dynamic())
    throw IoError(file.string(),
                  "no dynamic section (PT_DYNAMIC): a static file has no search path");

  auto entries = path_entries(image);
  SearchPathEdit edit;
  edit.new_value = value;
  edit.new_tag = tag;
  // ld.so(8): with both present DT_RUNPATH is the one in force; of repeated
  // entries the last counts (as in read_dynamic).
  for (const auto wanted : {SearchPathTag::runpath, SearchPathTag::rpath}) {
    for (const auto& entry : entries) {
      if (entry.tag != wanted) continue;
      edit.old_value = entry.value;
      edit.old_tag = entry.tag;
    }
    if (edit.old_tag) break;
  }
  if (entries.size() == 1 && entries[0].tag == tag && entries[0].value == value) return edit;

  // Prefer the entry that already has the wanted tag.
  std::stable_partition(entries.begin(), entries.end(),
                        [tag](const PathEntry& e) { return e.tag == tag; });
  const auto path_indices = indices(entries);
  const auto target = std::find_if(entries.begin(), entries.end(), [&](const PathEntry& e) {
    return fits_in_place(image, e, value, path_indices);
  });
  // Growing keeps the first entry (or adds one in a spare DT_NULL slot); its
  // string index is known once the plan is.
  std::optional<std::size_t> keep;
  if (!entries.empty()) keep = entries.front().index;
  std::vector<DynEntry> grown;
  std::optional<detail::GrowthPlan> growth;
  if (target == entries.end()) {
    grown = edited_dynamic(image, keep, {dynamic_tag(tag), 0}, path_indices);
    growth = detail::plan_growth(image, value.size(), grown.size());
  }
  edit.method = target != entries.end() ? EditMethod::in_place
                : growth                ? EditMethod::appended
                                        : EditMethod::patchelf;
  if (options.dry_run) return edit;
  const auto names = other_names(image);

  if (edit.method == EditMethod::in_place) {
    const UniqueFd out = open_for_writing(file, fd.get());
    if (target->value != value) {
      const std::uint64_t index = image.dynamic()[target->index].value;
      std::vector<unsigned char> bytes(target->value.size() + 1, 0);  // NUL-padded
      std::copy(value.begin(), value.end(), bytes.begin());
      detail::write_at(out.get(), bytes, image.strtab_offset() + index, file);
    }
    write_dynamic(
        image, out.get(),
        edited_dynamic(image, target->index,
                       {dynamic_tag(tag), image.dynamic()[target->index].value}, path_indices),
        file);
    verify(file, file, names, value, tag);
    return edit;
  }

  if (growth && options.unmapped) {
    const UniqueFd out = open_for_writing(file, fd.get());
    apply_growth(image, *growth, std::move(grown), value, tag, out.get(), file);
    verify(file, file, names, value, tag);
    return edit;
  }

  detail::SiblingCopy copy(file);
  const UniqueFd out(::open(copy.path().c_str(), O_RDWR | O_CLOEXEC));
  if (!out) throw IoError(copy.path().string(), "cannot reopen the copy");
  if (growth) {
    apply_growth(image, *growth, std::move(grown), value, tag, out.get(), copy.path());
  } else {
    if (keep) {
      // patchelf overwrites an old string that it outgrows with 'X's, which
      // would break a string sharing its tail, and keeps the tag it finds.
      // So the copy's kept entry first names the empty string at index 0
      // (gABI "String Table": index 0 always holds a NUL) under the wanted
      // tag; patchelf then only appends.
      if (image.read_uint(image.strtab_offset(), 1, "DT_STRTAB") != 0)
        throw image.broken("DT_STRTAB does not start with a NUL byte");
      write_dynamic(image, out.get(),
                    edited_dynamic(image, keep, {dynamic_tag(tag), 0}, path_indices), copy.path());
    }
    detail::run_patchelf(options.patchelf, copy.path(), value, tag, file);
  }
  verify(copy.path(), file, names, value, tag);
  copy.commit();
  return edit;
}

}  // namespace wheelmod::elf
