#include "dist_info.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <exception>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/cpus.hpp"
#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/own_file.hpp"
#include "core/parallel.hpp"
#include "core/strings.hpp"
#include "hash/sha256.hpp"
#include "pep/name.hpp"
#include "pep/record.hpp"
#include "pep/requirement.hpp"

namespace wheelmod::prefix {

namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, std::string_view text) {
  const UniqueFd out = open_own_file(path, ExistingFile::replace, O_WRONLY);
  while (!text.empty()) {
    const auto written = ::write(out.get(), text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw IoError(path.string(), "cannot write");
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

pep::RecordEntry record_entry(const fs::path& file, std::string relative) {
  const auto digest = hash::sha256_file(file);
  return pep::RecordEntry{
      .path = std::move(relative),
      .hash = pep::RecordHash{.algorithm = "sha256",
                              .digest = {digest.sha256.begin(), digest.sha256.end()}},
      .size = digest.size};
}

// Hashes `files` (site-packages-relative) on one thread per core, largest
// first: relinked libraries are hundreds of MB each, and the .pyc files of
// a big wheel number in the thousands.
std::vector<pep::RecordEntry> record_entries(const fs::path& site_packages,
                                             const std::vector<std::string>& files) {
  std::vector<std::uintmax_t> sizes(files.size(), 0);
  std::vector<std::size_t> order(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ignored;  // a missing file fails below, with its name
    sizes[i] = fs::file_size(site_packages / files[i], ignored);
    order[i] = i;
  }
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  std::vector<pep::RecordEntry> entries(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t k = next++; k < order.size(); k = next++) {
      const auto i = order[k];
      try {
        entries[i] = record_entry(site_packages / files[i], files[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  run_in_parallel(std::min<std::size_t>(files.size(), usable_cpus()),
                  [&work](std::size_t) { work(); });
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  return entries;
}

std::vector<pep::RecordEntry> read_record(const fs::path& record) {
  auto entries = pep::parse_record(read_file(record));
  if (!entries)
    throw IoError(record.string(), "cannot parse the installed RECORD: " + entries.error().message);
  return std::move(*entries);
}

// Replaces the row for `entry.path`, or appends it.
void upsert(std::vector<pep::RecordEntry>& entries, pep::RecordEntry entry) {
  for (auto& existing : entries) {
    if (existing.path == entry.path) {
      existing = std::move(entry);
      return;
    }
  }
  entries.push_back(std::move(entry));
}

// RECORD's own row stays last, without hash and size, as installers write it.
void write_record_file(const fs::path& record, std::vector<pep::RecordEntry> entries,
                       const std::string& record_row) {
  std::erase_if(entries, [&](const pep::RecordEntry& e) { return e.path == record_row; });
  entries.push_back(
      pep::RecordEntry{.path = record_row, .hash = std::nullopt, .size = std::nullopt});
  write_text(record, pep::write_record(entries));
}

}  // namespace

MetadataRewrite without_requirements(std::string_view metadata,
                                     const std::set<std::string>& names) {
  MetadataRewrite out;
  bool in_headers = true;
  bool dropping = false;  // inside a removed header's continuation lines
  std::size_t start = 0;
  while (start < metadata.size()) {
    auto end = metadata.find('\n', start);
    end = end == std::string_view::npos ? metadata.size() : end + 1;
    const auto line = metadata.substr(start, end - start);
    start = end;
    if (in_headers && (line == "\n" || line == "\r\n")) in_headers = false;
    if (!in_headers) {
      out.text += line;
      continue;
    }
    // Core metadata: a line starting with whitespace continues the header above.
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      if (!dropping) out.text += line;
      continue;
    }
    dropping = false;
    constexpr std::string_view k_field = "requires-dist:";
    if (istarts_with(line, k_field)) {
      auto value = line.substr(k_field.size());
      while (!value.empty() && (value.back() == '\n' || value.back() == '\r'))
        value.remove_suffix(1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      const auto requirement = pep::Requirement::parse(value);
      if (requirement && names.contains(pep::canonicalize_name(requirement->name))) {
        out.removed.emplace_back(value);
        dropping = true;
        continue;
      }
    }
    out.text += line;
  }
  return out;
}

void strip_module_requirements(const fs::path& prefix, const fs::path& site_packages,
                               const wheel::InstalledWheel& installed,
                               const std::set<std::string>& names,
                               const std::map<std::string, std::string>& provided_by) {
  const fs::path dist_info = prefix / installed.dist_info;
  const fs::path metadata_path = dist_info / "METADATA";
  auto rewrite = without_requirements(read_file(metadata_path), names);
  if (rewrite.removed.empty()) return;
  write_text(metadata_path, rewrite.text);
  const nlohmann::json provenance{{"schema_version", 1},
                                  {"installer", "wheelmod"},
                                  {"removed_requires_dist", rewrite.removed},
                                  {"provided_by", provided_by}};
  write_text(dist_info / "wheelmod.json", provenance.dump(2) + "\n");

  const auto relative_dist = dist_info.lexically_relative(site_packages).generic_string();
  auto entries = read_record(dist_info / "RECORD");
  upsert(entries, record_entry(metadata_path, relative_dist + "/METADATA"));
  upsert(entries, record_entry(dist_info / "wheelmod.json", relative_dist + "/wheelmod.json"));
  write_record_file(dist_info / "RECORD", std::move(entries), relative_dist + "/RECORD");
}

void remove_from_record(const fs::path& prefix, const fs::path& dist_info,
                        const fs::path& site_packages, const std::set<std::string>& files) {
  if (files.empty()) return;
  const fs::path directory = prefix / dist_info;
  const auto relative_dist = directory.lexically_relative(site_packages).generic_string();
  auto entries = read_record(directory / "RECORD");
  std::erase_if(entries, [&](const pep::RecordEntry& entry) { return files.contains(entry.path); });
  write_record_file(directory / "RECORD", std::move(entries), relative_dist + "/RECORD");
}

void add_to_record(const fs::path& prefix, const fs::path& dist_info, const fs::path& site_packages,
                   const std::vector<std::string>& files) {
  if (files.empty()) return;
  const fs::path directory = prefix / dist_info;
  const auto relative_dist = directory.lexically_relative(site_packages).generic_string();
  auto entries = read_record(directory / "RECORD");
  // Thousands of .pyc rows against thousands of RECORD rows: by name.
  std::unordered_map<std::string, std::size_t> row_of;
  for (std::size_t i = 0; i < entries.size(); ++i) row_of.emplace(entries[i].path, i);
  for (auto& entry : record_entries(site_packages, files)) {
    if (const auto it = row_of.find(entry.path); it != row_of.end()) {
      entries[it->second] = std::move(entry);
    } else {
      row_of.emplace(entry.path, entries.size());
      entries.push_back(std::move(entry));
    }
  }
  write_record_file(directory / "RECORD", std::move(entries), relative_dist + "/RECORD");
}

}  // namespace wheelmod::prefix
