// install_wheel, following the steps of the PyPA "Binary distribution
// format" specification, "Installing a wheel": check everything first
// (names, RECORD, WHEEL, METADATA, entry points), then unpack, then write
// the scripts and the installed RECORD (PyPA "Recording installed
// projects"). Nothing is written before every check has passed.
#include "wheel/installer.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <sys/stat.h>

#include "core/cpus.hpp"
#include "core/errors.hpp"
#include "install_extract.hpp"
#include "install_layout.hpp"
#include "install_record.hpp"
#include "install_scripts.hpp"
#include "install_zip.hpp"
#include "pep/metadata.hpp"
#include "pep/name.hpp"
#include "pep/wheel_filename.hpp"
#include "zip_layout.hpp"

namespace wheelmod::wheel {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t k_supported_major = 1;
constexpr std::uint32_t k_supported_minor = 0;
constexpr std::uint64_t k_bomb_floor = 1024 * 1024;      // smaller entries are never bombs
constexpr std::uint64_t k_metadata_limit = 64ULL << 20;  // WHEEL, METADATA, RECORD, entry points
constexpr std::string_view k_unsafe_hint =
    "refusing to install it: the wheel is damaged or was crafted to write where it should not";

[[noreturn]] void unsafe(const std::string& wheel, std::string_view member, std::string_view why) {
  throw IntegrityError(wheel, "entry '" + printable(member) + "': " + std::string(why),
                       std::string(k_unsafe_hint));
}

bool is_python_version(std::string_view text) {
  const auto dot = text.find('.');
  const auto digits = [](std::string_view part) {
    return !part.empty() && std::ranges::all_of(part, [](char c) { return c >= '0' && c <= '9'; });
  };
  return dot != std::string_view::npos && digits(text.substr(0, dot)) &&
         digits(text.substr(dot + 1));
}

// The safety rules that need the central directory, not just the name.
void check_member(const ZipMember& member, const std::string& wheel,
                  std::uint64_t max_compression_ratio) {
  if (member.unix_mode) {
    const auto type = *member.unix_mode & S_IFMT;
    if (type == S_IFLNK) unsafe(wheel, member.name, "symbolic link");
    if (type != 0 && type != S_IFREG && type != S_IFDIR) {
      unsafe(wheel, member.name, "special file (not a regular file or directory)");
    }
  }
  if (member.encrypted) unsafe(wheel, member.name, "encrypted");
  // size / compressed > ratio, without overflow: ratio * compressed < size.
  if (max_compression_ratio > 0 && member.size > k_bomb_floor &&
      member.compressed_size <= (member.size - 1) / max_compression_ratio) {
    unsafe(wheel, member.name,
           "inflates from " + std::to_string(member.compressed_size) + " to " +
               std::to_string(member.size) + " bytes, more than " +
               std::to_string(max_compression_ratio) + " times (a zip bomb)");
  }
}

bool zip_says_executable(const ZipMember& member) {
  // pip's rule: a regular file with any execute bit.
  return member.unix_mode && (*member.unix_mode & S_IFMT) == S_IFREG &&
         (*member.unix_mode & 0111) != 0;
}

// setuptools puts wrappers of its own into .data/scripts (NAME, NAME.exe,
// NAME-script.py, NAME.pya); pip drops them for the ones it generates.
bool is_entry_point_wrapper(std::string_view subpath,
                            const std::unordered_set<std::string>& entry_names) {
  auto name = subpath.substr(subpath.rfind('/') + 1);
  for (const std::string_view suffix : {".exe", "-script.py", ".pya"}) {
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  return entry_names.contains(std::string(name));
}

struct Wheel {
  pep::WheelFilename filename;
  std::string dist_info;  // `pip-23.0.1.dist-info`
  WheelInfo info;
  std::string project;  // METADATA's Name, as written
  std::string version;  // METADATA's Version, as written
  std::vector<pep::RecordEntry> record;
  std::vector<ScriptEntryPoint> scripts;
};

// Reads WHEEL, METADATA, RECORD and entry_points.txt from the archive.
Wheel read_metadata(const ZipArchive& archive,
                    const std::unordered_map<std::string, const ZipMember*>& by_path,
                    pep::WheelFilename filename, std::string dist_info, const std::string& wheel,
                    const std::string& python_version, Reporter& reporter) {
  Wheel out{std::move(filename), std::move(dist_info), {}, {}, {}, {}, {}};
  const auto read = [&](std::string_view leaf) -> std::optional<std::string> {
    const auto found = by_path.find(out.dist_info + "/" + std::string(leaf));
    if (found == by_path.end()) return std::nullopt;
    return archive.read_all(found->second->index, found->second->name, k_metadata_limit);
  };
  const auto wheel_text = read("WHEEL");
  if (!wheel_text) throw UsageError(wheel, "no " + out.dist_info + "/WHEEL, so not a wheel");
  auto info = parse_wheel_info(*wheel_text);
  if (!info) throw UsageError(wheel, out.dist_info + "/WHEEL: " + info.error());
  out.info = *info;
  const std::string version = std::to_string(out.info.major) + "." + std::to_string(out.info.minor);
  if (out.info.major != k_supported_major) {
    throw UsageError(wheel, "Wheel-Version " + version + " is not supported (only 1.x)",
                     "install it with a tool that knows this wheel format");
  }
  if (out.info.minor > k_supported_minor) {
    // Spec: installers should warn on a newer minor version, and go on.
    reporter.on_warning(wheel + ": Wheel-Version " + version + " is newer than 1.0; installing it" +
                        " as 1.0");
  }

  const auto metadata_text = read("METADATA");
  if (!metadata_text) throw UsageError(wheel, "no " + out.dist_info + "/METADATA");
  const auto metadata = pep::CoreMetadata::parse(*metadata_text);
  if (!metadata) throw UsageError(wheel, metadata.error().describe("METADATA"));
  if (pep::canonicalize_name(metadata->name) != out.filename.name ||
      metadata->version != out.filename.version || !pep::is_valid_name(metadata->name)) {
    throw UsageError(wheel, "METADATA names " + metadata->name + " " + metadata->version.str() +
                                ", the file name " + out.filename.name + " " +
                                out.filename.version.str());
  }
  // Requires-Python: pip refuses to install a wheel whose value excludes the Python it installs
  // for ("requires a different Python", pip/_internal/utils/packaging.py check_requires_python).
  if (const auto python = pep::Version::parse(python_version);
      metadata->requires_python && python &&
      !metadata->requires_python->contains(*python, pep::Prereleases::allow))
    throw UnsatisfiableError(wheel,
                             metadata->name + " " + metadata->version.str() + " requires Python " +
                                 metadata->requires_python->str() +
                                 " (its METADATA), the target "
                                 "is " +
                                 python->str(),
                             "install it for a Python it supports (--python, --toolchain), or "
                             "choose a release of it that supports " +
                                 python->str());
  out.project = metadata->name;
  const auto versions = metadata->values("Version");
  out.version = versions.empty() ? metadata->version.str() : std::string(versions.front());

  const auto record_text = read("RECORD");
  if (!record_text) {
    throw IntegrityError(wheel, "no " + out.dist_info + "/RECORD",
                         "a wheel lists its files with their hashes in RECORD (PEP 427); "
                         "rebuild it");
  }
  auto record = pep::parse_record(*record_text);
  if (!record) throw IntegrityError(wheel, record.error().describe("RECORD"));
  out.record = std::move(*record);

  if (const auto entry_points = read("entry_points.txt")) {
    auto scripts = parse_script_entry_points(*entry_points);
    if (!scripts) throw UsageError(wheel, scripts.error().describe("entry point"));
    out.scripts = std::move(*scripts);
  }
  return out;
}

// Scheme directories relative to the root, `/`-separated.
struct SchemePaths {
  std::string purelib;
  std::string scripts;
  std::string headers;

  SchemePaths(const std::string& python, const std::string& project)
      : purelib("lib/python" + python + "/site-packages"),
        scripts("bin"),
        headers("include/python" + python + "/" + project) {}

  [[nodiscard]] std::string join(SchemeKey key, const std::string& subpath) const {
    switch (key) {
      case SchemeKey::purelib:
      case SchemeKey::platlib:
        return purelib + "/" + subpath;
      case SchemeKey::scripts:
        return scripts + "/" + subpath;
      case SchemeKey::headers:
        return headers + "/" + subpath;
      case SchemeKey::data:
        break;
    }
    return subpath;
  }
  /// RECORD paths are relative to site-packages (`../../../bin/pip`).
  [[nodiscard]] std::string record_path(const std::string& from_root) const {
    return fs::path(from_root).lexically_relative(purelib).generic_string();
  }
};

// Two entries writing one file, or one needing the other's file as its
// directory, would race between threads: refused.
void check_destinations(const std::map<std::string, std::string>& owner_by_destination,
                        const std::string& wheel) {
  for (const auto& [destination, owner] : owner_by_destination) {
    for (auto slash = destination.rfind('/'); slash != std::string::npos && slash > 0;
         slash = destination.rfind('/', slash - 1)) {
      const auto parent = owner_by_destination.find(destination.substr(0, slash));
      if (parent != owner_by_destination.end()) {
        unsafe(wheel, owner,
               "installs below '" + printable(parent->first) + "', which entry '" +
                   printable(parent->second) + "' installs as a file");
      }
    }
  }
}

struct MemberListing {
  std::uint64_t unpacked_bytes = 0;                             // every member's declared size
  std::unordered_map<std::string, const ZipMember*> by_path;    // normalised path
  std::vector<std::pair<std::string, const ZipMember*>> files;  // regular files, in order
  std::set<std::string> top_level;                              // first path components
};

// Checks every member (names, types, sizes); `members` must outlive the result.
MemberListing check_members(const std::vector<ZipMember>& members, const std::string& wheel,
                            std::uint64_t max_compression_ratio) {
  MemberListing out;
  std::uint64_t packed = 0;
  struct {  // sizes from the archive may be anything: a sum past 2^64 is a bomb too
    const std::string& wheel;
    std::uint64_t add(std::uint64_t a, std::uint64_t b) const {
      if (a > std::numeric_limits<std::uint64_t>::max() - b)
        throw IntegrityError(wheel, "the entries' sizes add up past 2^64 bytes",
                             std::string(k_unsafe_hint));
      return a + b;
    }
  } const sizes{wheel};
  for (const auto& member : members) {
    const auto checked = check_member_name(member.name);
    if (!checked) unsafe(wheel, member.name, checked.error());
    check_member(member, wheel, max_compression_ratio);
    const auto [previous, inserted] = out.by_path.emplace(checked->path, &member);
    if (!inserted) {
      unsafe(wheel, member.name, "a second entry for '" + printable(previous->first) + "'");
    }
    out.top_level.insert(checked->path.substr(0, checked->path.find('/')));
    if (!checked->directory) out.files.emplace_back(checked->path, &member);
    out.unpacked_bytes = sizes.add(out.unpacked_bytes, member.size);
    packed = sizes.add(packed, member.compressed_size);
  }
  // Many entries each under the per-entry floor add up as well: the same
  // ratio over the whole archive (deflate itself stops near 1032:1).
  if (max_compression_ratio > 0 && out.unpacked_bytes > k_bomb_floor * 64 &&
      packed <= (out.unpacked_bytes - 1) / max_compression_ratio)
    throw IntegrityError(wheel,
                         "its " + std::to_string(members.size()) + " entries inflate from " +
                             std::to_string(packed) + " to " + std::to_string(out.unpacked_bytes) +
                             " bytes, more than " + std::to_string(max_compression_ratio) +
                             " times (a zip bomb)",
                         std::string(k_unsafe_hint));
  return out;
}

struct InstallPlan {
  std::vector<ExtractJob> jobs;
  std::vector<std::string> job_destinations;  // root-relative, parallel to jobs
  std::vector<std::string> destinations;      // every file, generated ones too
};

// Maps each member to its destination (PEP 427 "Installing a wheel":
// "Spread"), refusing two files in one place.
InstallPlan plan_install(const MemberListing& listing, const Wheel& meta,
                         const RecordDigests& digests, const SchemePaths& paths,
                         const fs::path& root, const std::string& wheel,
                         const std::optional<std::vector<ZipEntryInfo>>& layout) {
  const std::string data_dir =
      meta.dist_info.substr(0, meta.dist_info.size() - std::string_view(".dist-info").size()) +
      ".data";
  const SchemeKey root_key = meta.info.root_is_purelib ? SchemeKey::purelib : SchemeKey::platlib;
  std::unordered_set<std::string> entry_names;
  for (const auto& entry : meta.scripts) entry_names.insert(entry.name);

  std::map<std::string, std::string> owner_by_destination;  // root-relative -> entry
  const auto claim = [&](const std::string& destination, const std::string& owner) {
    const auto [previous, inserted] = owner_by_destination.emplace(destination, owner);
    if (!inserted) {
      unsafe(wheel, owner,
             "installs to '" + printable(destination) + "' as entry '" +
                 printable(previous->second) + "' does");
    }
  };
  InstallPlan plan;
  for (const auto& [path, member] : listing.files) {
    // The wheel's RECORD and INSTALLER are replaced by the installed ones.
    if (path == meta.dist_info + "/RECORD" || path == meta.dist_info + "/INSTALLER") continue;
    const auto placement = place_member(path, data_dir, root_key);
    if (!placement) unsafe(wheel, member->name, placement.error());
    const bool script = placement->key == SchemeKey::scripts;
    if (script && is_entry_point_wrapper(placement->subpath, entry_names)) continue;
    const auto destination = paths.join(placement->key, placement->subpath);
    claim(destination, member->name);
    ExtractJob job;
    job.index = member->index;
    job.member = member->name;
    job.destination = root / destination;
    job.size = member->size;
    job.expected_sha256 = digests.at(path);
    // The layout lists the entries in libzip's order (check_same_entries).
    if (layout && member->index < layout->size()) {
      const auto& entry = (*layout)[member->index];
      if (entry.method == 0 || entry.method == 8)
        job.data = EntryData{entry.method, entry.crc32, entry.compressed_size, entry.data_offset};
    }
    job.role = script                         ? FileRole::script
               : zip_says_executable(*member) ? FileRole::executable
                                              : FileRole::plain;
    plan.jobs.push_back(std::move(job));
    plan.job_destinations.push_back(destination);
  }
  for (const auto& entry : meta.scripts) {
    claim(paths.scripts + "/" + entry.name, "entry point " + entry.name);
  }
  const std::string dist_info_dir = paths.purelib + "/" + meta.dist_info;
  claim(dist_info_dir + "/INSTALLER", "INSTALLER");
  claim(dist_info_dir + "/RECORD", "RECORD");
  check_destinations(owner_by_destination, wheel);
  for (const auto& [destination, owner] : owner_by_destination) {
    plan.destinations.push_back(destination);
  }
  return plan;
}

}  // namespace

fs::path InstallScheme::purelib() const {
  return root / "lib" / ("python" + python_version) / "site-packages";
}
fs::path InstallScheme::platlib() const { return purelib(); }
fs::path InstallScheme::scripts() const { return root / "bin"; }
fs::path InstallScheme::headers(std::string_view project) const {
  return root / "include" / ("python" + python_version) / project;
}
fs::path InstallScheme::data() const { return root; }

InstalledWheel install_wheel(const fs::path& wheel_file, const InstallScheme& scheme,
                             const InstallOptions& options, Reporter& reporter) {
  const std::string wheel = wheel_file.string();
  auto filename = pep::WheelFilename::parse(wheel_file.filename().string());
  if (!filename) throw UsageError(wheel, filename.error().describe("wheel file name"));
  if (!is_python_version(scheme.python_version)) {
    throw UsageError("python version '" + scheme.python_version + "'", "not of the form X.Y");
  }

  // 1. The archive's structure, by wheelmod's own parser before libzip opens it: one end record,
  // no overlapping entries (with those refused, the compressed sizes check_members adds are the
  // bytes the entries cover, so its archive-wide ratio holds); then libzip must list the same
  // entries. Every member's name and central-directory facts.
  const auto layout = read_zip_layout(wheel_file);
  const ZipArchive archive(wheel_file, ZipCheck::central_directory);
  const auto members = archive.members();
  if (layout) check_same_entries(wheel_file, *layout, members);
  const auto listing = check_members(members, wheel, options.max_compression_ratio);
  // The file system must hold what the archive says it unpacks to (the
  // sizes are checked again while writing): better now than at 90 %.
  {
    std::error_code error;
    const auto space = fs::space(scheme.root, error);
    if (!error && listing.unpacked_bytes > space.available)
      throw IoError(scheme.root.string(),
                    "the wheel unpacks to " + std::to_string(listing.unpacked_bytes) +
                        " bytes, the file system has " + std::to_string(space.available) + " free",
                    "free space there, or install to another file system");
  }
  // libzip compares each local header with the central directory only now:
  // a crafted duplicate name above gets its own message first.
  { const ZipArchive consistent(wheel_file, ZipCheck::local_headers); }

  // 2. The .dist-info directory and what it says.
  const std::vector<std::string> top_dirs(listing.top_level.begin(), listing.top_level.end());
  auto dist_info = find_dist_info(top_dirs, *filename);
  if (!dist_info) throw UsageError(wheel, dist_info.error());
  const auto meta = read_metadata(archive, listing.by_path, std::move(*filename),
                                  std::move(*dist_info), wheel, scheme.python_version, reporter);

  // 3. RECORD against the archive.
  std::vector<ArchiveFile> archive_files;
  for (const auto& [path, member] : listing.files) archive_files.push_back({path, member->size});
  const auto digests = match_record(meta.record, archive_files, meta.dist_info, wheel);

  // 4. Where each file goes.
  const SchemePaths paths(scheme.python_version, meta.project);
  const auto plan = plan_install(listing, meta, digests, paths, scheme.root, wheel, layout);
  const std::string dist_info_dir = paths.purelib + "/" + meta.dist_info;

  // 5. Directories, then the members on threads.
  std::set<fs::path> directories;
  for (const auto& destination : plan.destinations) {
    directories.insert((scheme.root / destination).parent_path());
  }
  for (const auto& directory : directories) {
    std::error_code error;
    fs::create_directories(directory, error);
    if (error) throw IoError(directory.string(), "cannot create directory: " + error.message());
  }
  std::uint64_t total = 0;
  for (const auto& job : plan.jobs) total += job.size;
  const TaskId task = reporter.on_start("unpack " + wheel_file.filename().string(), total);
  try {
    ExtractSettings settings;
    settings.threads = threads_or_usable(options.threads);
    settings.script_interpreter = options.script_interpreter;
    settings.task = task;
    settings.written_files = options.written_files;
    const auto extracted = extract_members(wheel_file, plan.jobs, settings, reporter);

    // 6. Wrappers, INSTALLER, and the installed RECORD.
    InstalledWheel out;
    const auto add = [&](const std::string& destination, const ExtractedFile& file) {
      out.record.push_back({paths.record_path(destination),
                            pep::RecordHash{"sha256", {file.sha256.begin(), file.sha256.end()}},
                            file.size});
      out.bytes += file.size;
    };
    for (std::size_t i = 0; i < plan.jobs.size(); ++i) add(plan.job_destinations[i], extracted[i]);
    for (const auto& entry : meta.scripts) {
      const auto destination = paths.scripts + "/" + entry.name;
      add(destination,
          write_generated(scheme.root / destination,
                          script_wrapper(entry, options.script_interpreter), FileRole::executable));
    }
    const auto installer = dist_info_dir + "/INSTALLER";
    add(installer,
        write_generated(scheme.root / installer, options.installer + "\n", FileRole::plain));
    const auto record = dist_info_dir + "/RECORD";
    out.record.push_back({paths.record_path(record), std::nullopt, std::nullopt});
    std::ranges::sort(out.record, {}, &pep::RecordEntry::path);
    const auto record_text = pep::write_record(out.record);
    write_generated(scheme.root / record, record_text, FileRole::plain);
    out.bytes += record_text.size();

    out.name = meta.filename.name;
    out.version = meta.version;
    out.dist_info = fs::path(dist_info_dir);
    out.files = out.record.size();
    reporter.on_finish(task, std::to_string(out.files) + " files");
    return out;
  } catch (const std::exception& error) {
    reporter.on_fail(task, error.what());
    throw;
  }
}

}  // namespace wheelmod::wheel
