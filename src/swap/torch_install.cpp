// A torch installation as the loader sees it: the Python package (in a prefix's site-packages,
// a distribution's dist-packages, or given directly), then the libraries its extension module
// torch/_C*.so loads and those torch/lib holds, through symlinks, RPATH/RUNPATH and the system
// directories (elf::Loader, ld.so's rules), not the regular files of one directory.
#include <algorithm>
#include <regex>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "elf/elf_file.hpp"
#include "elf/loader.hpp"
#include "elf/symbols.hpp"
#include "index_client/accelerator.hpp"
#include "pep/name.hpp"
#include "soname_major.hpp"
#include "swap/installed_projects.hpp"
#include "swap/swapcheck.hpp"
#include "symbol_tables.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

namespace {

bool is_package(const fs::path& directory) {
  std::error_code error;
  return fs::is_regular_file(directory / "__init__.py", error);
}

// torch's own names (libtorch*.so, libc10*.so, the caffe2 libraries, libshm): the libraries a
// swap replaces, wherever the loader finds them.
bool torch_library_name(const std::string& name) {
  for (const auto* stem : {"libtorch", "libc10", "libcaffe2", "libshm"})
    if (name.starts_with(stem)) return true;
  return false;
}

// torch/version.py: `__version__ = '1.13.0a0'` (setup.py writes it for every build).
std::string version_py(const fs::path& package) {
  const auto text = read_file_if_exists(package / "version.py").value_or("");
  static const std::regex line(R"re(^__version__\s*=\s*['"]([^'"]+)['"])re", std::regex::multiline);
  std::smatch match;
  return std::regex_search(text, match, line) ? match[1].str() : "";
}

// std::string in a mangled name: `Ss` (the pre-C++11 COW string, ABI 0) or
// `NSt7__cxx1112basic_string…` (ABI 1). GCC's libstdc++ "Dual ABI" manual.
std::optional<bool> cxx11_abi_of(const std::unordered_map<std::string, std::string>& exports) {
  bool old_string = false;
  for (const auto& [name, version] : exports) {
    if (!name.starts_with("_Z")) continue;
    if (name.find("St7__cxx11") != std::string::npos) return true;
    if (name.find("Ss") != std::string::npos) old_string = true;
  }
  return old_string ? std::optional<bool>(false) : std::nullopt;
}

std::optional<int> cuda_major_of(const TorchInstall& torch) {
  if (const auto plus = torch.version.find('+'); plus != std::string::npos)
    if (const auto cuda = index_client::cuda_version_of_variant(torch.version.substr(plus + 1)))
      return std::stoi(cuda->substr(0, cuda->find('.')));
  for (const auto& library : torch.needed)
    if (const auto major = detail::soname_major(library, "libcudart.so.")) return major;
  return std::nullopt;
}

std::optional<int> rocm_major_of(const TorchInstall& torch) {
  // 2.9.1+rocm6.4 -> 6
  if (const auto at = torch.version.find("+rocm"); at != std::string::npos)
    if (const auto major = detail::soname_major(torch.version.substr(at + 1), "rocm")) return major;
  for (const auto* names : {&torch.libraries, &torch.needed})
    for (const auto& name : *names)
      if (const auto major = detail::soname_major(name, "libamdhip64.so.")) return major;
  return std::nullopt;
}

fs::path real_path(const std::string& path) {
  std::error_code error;
  auto real = fs::canonical(path, error);
  return error ? fs::path(path).lexically_normal() : real;
}

}  // namespace

std::optional<fs::path> find_torch_package(const fs::path& given) {
  if (given.filename() == "torch" && is_package(given)) return given;
  if (is_package(given / "torch")) return given / "torch";
  for (const auto& directory : python_directories(given))
    if (is_package(directory / "torch")) return directory / "torch";
  return std::nullopt;
}

TorchInstall read_torch_install(const fs::path& given, elf::Loader& loader) {
  TorchInstall torch;
  torch.prefix = fs::absolute(given).lexically_normal();
  if (torch.prefix.filename().empty()) torch.prefix = torch.prefix.parent_path();
  const auto package = find_torch_package(torch.prefix);
  if (!package)
    throw UsageError(torch.prefix.string(),
                     "no torch package in it (looked for torch/__init__.py in it and in its "
                     "lib/python*/site-packages and dist-packages)",
                     "give the installation prefix of a PyTorch (wheel, source build or a "
                     "distribution's /usr), its site-packages, or the torch directory itself");
  torch.package = *package;
  torch.torch_lib = torch.package / "lib";
  const auto site = torch.package.parent_path();
  for (const auto& project : installed_projects(site))
    if (pep::canonicalize_name(project.name) == "torch" && !project.version.empty()) {
      torch.version = project.version;
      torch.version_source = project.metadata;
    }
  if (torch.version.empty()) {
    torch.version = version_py(torch.package);
    if (!torch.version.empty()) torch.version_source = "torch/version.py";
  }

  // The objects torch brings into the process: torch/lib's files (symlinks followed; a dangling
  // one loads nothing) and everything its extension modules and those files load.
  std::vector<fs::path> roots;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(torch.package, error)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("_C.") && name.ends_with(".so")) roots.push_back(entry.path());
  }
  for (const auto& entry : fs::directory_iterator(torch.torch_lib, error))
    if (entry.is_regular_file(error) && elf::is_elf(entry.path())) roots.push_back(entry.path());
  std::ranges::sort(roots);
  const auto package_real = real_path(torch.package.string());
  for (const auto& root : roots) {
    const auto checked = loader.check(root);
    if (!checked) continue;
    const bool extension = root.parent_path() == torch.package;  // torch/_C*.so: Python's
    for (std::size_t i = extension ? 1 : 0; i < checked->objects.size(); ++i) {
      const auto& object = checked->objects[i];
      const auto path = real_path(object.path);
      const auto inside = path.lexically_relative(package_real);
      const bool ours = i == 0 || torch_library_name(path.filename().string()) ||
                        torch_library_name(object.loaded_as) ||
                        (!inside.empty() && *inside.begin() != "..");
      (ours ? torch.library_files : torch.dependency_files).insert(path);
    }
  }
  for (const auto& file : torch.library_files) {
    torch.dependency_files.erase(file);
    const auto info = elf::read_dynamic(file);
    if (!info) continue;
    torch.libraries.insert(info->soname.value_or(file.filename().string()));
    torch.libraries.insert(file.filename().string());
    torch.needed.insert(info->needed.begin(), info->needed.end());
  }
  // The names torch/lib offers (libtorch.so -> libtorch.so.1.13): what a dependent may need.
  for (const auto& entry : fs::directory_iterator(torch.torch_lib, error))
    if (entry.is_regular_file(error)) torch.libraries.insert(entry.path().filename().string());
  for (const auto& file : torch.library_files)
    for (auto& symbol : elf::read_dynamic_symbols(file).exported)
      if (!symbol.hidden_version)
        torch.exports.try_emplace(symbol.name, symbol.version.value_or(""));
  if (torch.exports.empty())
    throw UsageError(torch.package.string(),
                     "no libtorch exports: neither torch/lib nor what torch/_C*.so loads defines "
                     "a symbol",
                     "give a complete PyTorch installation; a torch/lib of dangling symlinks or "
                     "a torch package without its libraries tells nothing about what dependents "
                     "may use");
  torch.cxx11_abi = cxx11_abi_of(torch.exports);
  torch.cuda_major = cuda_major_of(torch);
  torch.rocm_major = rocm_major_of(torch);
  torch.rocm = torch.version.find("+rocm") != std::string::npos ||
               torch.needed.contains("libamdhip64.so") || torch.rocm_major.has_value();
  return torch;
}

TorchInstall read_torch_install(const fs::path& given) {
  elf::Loader loader(elf::host_environment());
  return read_torch_install(given, loader);
}

}  // namespace wheelmod::swap
