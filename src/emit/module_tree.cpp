// Where a module file goes in an EasyBuild module tree
// (MODULEPATH/all/Name/version plus the moduleclass link beside it), and
// writing it there atomically: a module a user may be loading is replaced
// only by rename(2), never rewritten in place.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/errors.hpp"
#include "core/own_file.hpp"
#include "core/unique_fd.hpp"
#include "emit/module_writer.hpp"

namespace wheelmod::emit {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void throw_io(const fs::path& path, std::string what, int error_number) {
  throw IoError(path.string(), std::move(what) + ": " + std::strerror(error_number),
                "check that the module tree is writable (--modulepath)");
}

// Only plain names and versions make a module tree path (Name/fullversion).
void check_path_part(const std::string& value, const char* option) {
  if (value.empty() || value == "." || value == ".." || std::ranges::any_of(value, [](char c) {
        return c == '/' || std::isspace(static_cast<unsigned char>(c)) ||
               std::iscntrl(static_cast<unsigned char>(c));
      }))
    throw UsageError(std::string(option) + " '" + value + "'",
                     "not usable in a module tree path (empty, '/', spaces or control characters)",
                     "module name, version and moduleclass each become one directory or file "
                     "name: give plain words (--name, --full-version, --moduleclass)");
}

}  // namespace

ModuleIdentity module_identity(const ModuleRequest& request) {
  ModuleIdentity identity{request.name, request.full_version, ""};
  if (identity.name.empty()) identity.name = request.prefix.parent_path().filename().string();
  if (identity.full_version.empty()) identity.full_version = request.prefix.filename().string();
  check_path_part(identity.name, "--name");
  check_path_part(identity.full_version, "--full-version");
  if (request.naming.hierarchical()) {
    const auto module =
        request.naming.installation(request.toolchain, identity.name, identity.full_version);
    identity.subdir = module.subdir;
    identity.full_version = module.name.substr(identity.name.size() + 1);
  }
  return identity;
}

std::string module_version(std::string_view full_version, std::string_view toolchain,
                           std::string_view main_version) {
  if (!toolchain.empty()) {
    const std::string marker = "-" + std::string(toolchain);
    if (const auto at = full_version.find(marker); at != std::string_view::npos && at > 0)
      return std::string(full_version.substr(0, at));
  }
  return std::string(main_version.substr(0, main_version.find('+')));
}

ModuleTarget module_target(const ModuleIdentity& identity, const fs::path& modulepath,
                           std::string_view moduleclass, ModuleSyntax syntax,
                           std::string_view suffix) {
  check_path_part(std::string(moduleclass), "--moduleclass");
  check_path_part(std::string(suffix), "suffix-modules-path");
  if (moduleclass == suffix)  // the link would replace the module it points to
    throw UsageError("--moduleclass " + std::string(moduleclass),
                     "'" + std::string(suffix) + "' holds the modules themselves",
                     "use an EasyBuild moduleclass such as ai, lib, tools");
  // Lmod reads a file without an extension as Tcl, "*.lua" as Lua.
  const std::string file = identity.full_version + (syntax == ModuleSyntax::lua ? ".lua" : "");
  const fs::path all = modulepath / std::string(suffix);
  if (!identity.subdir.empty()) return {all / identity.subdir / identity.name / file, {}, {}};
  return {all / identity.name / file, modulepath / std::string(moduleclass) / identity.name / file,
          fs::path("..") / ".." / std::string(suffix) / identity.name / file};
}

std::optional<fs::path> default_modulepath(const fs::path& prefix) {
  const fs::path software = prefix.parent_path().parent_path();
  if (software.filename() != "software" || !software.has_parent_path()) return std::nullopt;
  return software.parent_path() / "modules";
}

void check_module_target(const ModuleTarget& target, ReplaceModule replace) {
  if (replace == ReplaceModule::yes) return;
  std::error_code error;
  if (fs::exists(fs::symlink_status(target.file, error)))
    throw UsageError(target.file.string(), "a module file is already there",
                     "pass --force to replace it, or choose another --modulepath");
  if (target.symlink.empty()) return;
  const auto link = fs::symlink_status(target.symlink, error);
  if (fs::exists(link) &&
      !(fs::is_symlink(link) && fs::read_symlink(target.symlink, error) == target.link_to))
    throw UsageError(target.symlink.string(), "something else is already there",
                     "pass --force to replace it, or choose another --moduleclass");
}

void write_module(const ModuleTarget& target, std::string_view text, ReplaceModule replace) {
  check_module_target(target, replace);
  const auto temporary_beside = [](const fs::path& path) {
    return path.parent_path() /
           ("." + path.filename().string() + ".wheelmod-" + std::to_string(::getpid()));
  };
  for (const auto& path : {target.file, target.symlink}) {
    if (path.empty()) continue;
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (error) throw_io(path.parent_path(), "cannot create the directory", error.value());
  }
  const fs::path temporary = temporary_beside(target.file);
  {
    UniqueFd fd = open_own_file(temporary, ExistingFile::replace, O_WRONLY, 0666);
    std::string_view rest = text;
    while (!rest.empty()) {
      const auto written = ::write(fd.get(), rest.data(), rest.size());
      if (written < 0 && errno == EINTR) continue;
      if (written < 0) {
        const int error_number = errno;
        ::unlink(temporary.c_str());
        throw_io(temporary, "cannot write", error_number);
      }
      rest.remove_prefix(static_cast<std::size_t>(written));
    }
    // The data must be on disk before the rename makes it the module.
    if (::fsync(fd.get()) != 0) {
      const int error_number = errno;
      ::unlink(temporary.c_str());
      throw_io(temporary, "cannot fsync", error_number);
    }
  }
  if (::rename(temporary.c_str(), target.file.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temporary.c_str());
    throw_io(target.file, "cannot rename the new module into place", error_number);
  }
  if (const UniqueFd directory(
          ::open(target.file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      directory)
    ::fsync(directory.get());

  std::error_code error;
  if (target.symlink.empty()) return;
  if (fs::is_symlink(fs::symlink_status(target.symlink, error)) &&
      fs::read_symlink(target.symlink, error) == target.link_to)
    return;
  const fs::path link = temporary_beside(target.symlink);
  fs::remove(link, error);
  fs::create_symlink(target.link_to, link, error);
  if (error) throw_io(link, "cannot create the moduleclass link", error.value());
  if (::rename(link.c_str(), target.symlink.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(link.c_str());
    throw_io(target.symlink, "cannot rename the moduleclass link into place", error_number);
  }
}

}  // namespace wheelmod::emit
