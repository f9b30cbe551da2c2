#include <fstream>
#include <sstream>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "elf/elf_file.hpp"
#include "elf/symbols.hpp"
#include "index_client/accelerator.hpp"
#include "pep/metadata.hpp"
#include "prefix/relink.hpp"
#include "swap/swapcheck.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

namespace {

// The version torch's own METADATA gives (torch-X.dist-info).
std::string torch_version(const fs::path& site) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(site, error)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with("torch-") || !name.ends_with(".dist-info")) continue;
    const auto parsed =
        pep::CoreMetadata::parse(read_file_if_exists(entry.path() / "METADATA").value_or(""));
    if (parsed) return parsed->version.str();
  }
  return {};
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
    if (library.starts_with("libcudart.so."))
      return std::stoi(library.substr(std::string("libcudart.so.").size()));
  return std::nullopt;
}

}  // namespace

TorchInstall read_torch_install(const fs::path& given) {
  TorchInstall torch;
  torch.prefix = fs::absolute(given).lexically_normal();
  const auto site = prefix::find_site_packages(torch.prefix);
  torch.torch_lib = site / "torch" / "lib";
  std::error_code error;
  if (!fs::is_directory(torch.torch_lib, error))
    throw UsageError(torch.prefix.string(), "no torch/lib in its site-packages",
                     "give the installation prefix of a PyTorch (wheel or source build)");
  torch.version = torch_version(site);
  for (const auto& file : prefix::elf_files(torch.torch_lib)) {
    const auto info = elf::read_dynamic(file);
    if (!info) continue;
    torch.libraries.insert(info->soname.value_or(file.filename().string()));
    torch.libraries.insert(file.filename().string());
    torch.needed.insert(info->needed.begin(), info->needed.end());
    for (const auto& symbol : elf::read_dynamic_symbols(file).exported)
      if (!symbol.hidden_version)
        torch.exports.try_emplace(symbol.name, symbol.version.value_or(""));
  }
  torch.cxx11_abi = cxx11_abi_of(torch.exports);
  torch.cuda_major = cuda_major_of(torch);
  torch.rocm =
      torch.version.find("+rocm") != std::string::npos || torch.needed.contains("libamdhip64.so");
  return torch;
}

}  // namespace wheelmod::swap
