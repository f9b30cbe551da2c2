#include "swap/swapcheck.hpp"

#include <algorithm>
#include <system_error>
#include <unordered_set>

#include <sys/utsname.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "elf/elf_file.hpp"
#include "elf/search_path_editor.hpp"
#include "elf/symbols.hpp"
#include "pep/marker.hpp"
#include "pep/metadata.hpp"
#include "pep/name.hpp"
#include "prefix/relink.hpp"

namespace wheelmod::swap {

namespace fs = std::filesystem;

namespace {

// A demangled name with the two std::string spellings made one, so that a
// function exported under the other C++ ABI is recognised as the same one.
std::string abi_neutral(std::string text) {
  for (const std::string_view long_form :
       {"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        "std::basic_string<char, std::char_traits<char>, std::allocator<char> >"}) {
    for (std::size_t at = 0; (at = text.find(long_form, at)) != std::string::npos;)
      text.replace(at, long_form.size(), "std::string");
  }
  for (std::size_t at = 0; (at = text.find("std::__cxx11::", at)) != std::string::npos;)
    text.erase(at + 5, 9);  // "std::__cxx11::list" -> "std::list"
  return text;
}

std::vector<std::string> split(const std::string& value, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto at = value.find(separator, start);
    out.push_back(value.substr(start, at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

bool within(const fs::path& path, const fs::path& base) {
  const auto relative = path.lexically_normal().lexically_relative(base);
  return !relative.empty() && *relative.begin() != "..";
}

std::string machine() {
  struct utsname name {};
  return ::uname(&name) == 0 ? name.machine : "x86_64";
}

class Checker {
 public:
  Checker(const TorchInstall& current, const TorchInstall& candidate, FixRpath fix)
      : m_current(current), m_candidate(candidate), m_fix(fix) {
    for (const auto& [name, version] : candidate.exports)
      if (name.starts_with("_Z")) m_candidate_neutral.insert(abi_neutral(elf::demangle(name)));
  }

  DependentResult check(const fs::path& prefix) {
    DependentResult result;
    result.prefix = prefix;
    const auto site = prefix::find_site_packages(prefix);
    check_pins(site, result);
    std::vector<std::pair<fs::path, std::string>> relinks;  // file, new search path
    bool imports_cxx = false;
    for (const auto& file : prefix::elf_files(prefix)) {
      ++result.elf_files;
      const auto info = elf::read_dynamic(file);
      if (!info) continue;
      const auto relative = file.lexically_relative(prefix).string();
      imports_cxx |= check_symbols(file, relative, result);
      check_libraries(relative, *info, result);
      if (auto fixed = check_search_path(relative, *info, result))
        relinks.emplace_back(file, *fixed);
    }
    result.stable_abi = result.torch_imports > 0 && !imports_cxx;
    const bool breaks = std::ranges::any_of(
        result.reasons, [](const Reason& r) { return r.kind != "RPATH into the current prefix"; });
    if (breaks) {
      result.verdict = Verdict::breaks;
    } else if (!relinks.empty() && m_fix == FixRpath::no) {
      result.verdict = Verdict::relink_needed;
    } else {
      for (const auto& [file, value] : relinks) {
        const auto info = elf::read_dynamic(file);
        elf::set_search_path(
            file, value,
            info && info->runpath ? elf::SearchPathTag::runpath : elf::SearchPathTag::rpath);
      }
      result.fixed = !relinks.empty();
      result.verdict =
          result.torch_imports > 0 || result.fixed ? Verdict::compatible : Verdict::safe;
    }
    return result;
  }

 private:
  // Requires-Dist on torch (PEP 440 matching: `torch==2.7.1` admits 2.7.1+cu126).
  void check_pins(const fs::path& site, DependentResult& result) {
    std::error_code error;
    const auto python = site.parent_path().filename().string().substr(6);  // "python3.12"
    const auto environment = pep::MarkerEnvironment::linux_cpython(python, machine());
    const auto candidate = pep::Version::parse(m_candidate.version);
    for (const auto& entry : fs::directory_iterator(site, error)) {
      const auto name = entry.path().filename().string();
      if (!name.ends_with(".dist-info")) continue;
      const auto metadata =
          pep::CoreMetadata::parse(read_file_if_exists(entry.path() / "METADATA").value_or(""));
      if (!metadata || pep::canonicalize_name(metadata->name) == "torch") continue;
      result.projects.push_back(metadata->name + " " + metadata->version.str());
      for (const auto& requirement : metadata->requires_dist) {
        if (requirement.canonical_name() != "torch" || !requirement.applies_to(environment))
          continue;
        if (candidate && !requirement.specifier.contains(*candidate, pep::Prereleases::allow))
          result.reasons.push_back(
              {"pin", name, requirement.str() + " is not met by torch " + m_candidate.version});
      }
    }
  }

  // Returns whether the file imports C++ (mangled) symbols from torch.
  // Symbols the candidate lacks are gathered into one reason per kind.
  bool check_symbols(const fs::path& file, const std::string& relative, DependentResult& result) {
    bool cxx = false;
    std::vector<std::string> other_abi, missing, wrong_version;
    for (const auto& symbol : elf::read_dynamic_symbols(file).imported) {
      if (!m_current.exports.contains(symbol.name)) continue;
      ++result.torch_imports;
      const bool mangled = symbol.name.starts_with("_Z");
      cxx |= mangled;
      if (const auto found = m_candidate.exports.find(symbol.name);
          found != m_candidate.exports.end()) {
        // A versioned import binds only to that version (gABI symbol versioning).
        if (!symbol.version || *symbol.version == found->second) continue;
        wrong_version.push_back(elf::demangle(symbol.name) + " (needed at version " +
                                *symbol.version + ", the candidate has " +
                                (found->second.empty() ? "it unversioned" : found->second) + ")");
        continue;
      }
      auto readable = elf::demangle(symbol.name);
      if (mangled && m_candidate_neutral.contains(abi_neutral(readable)))
        other_abi.push_back(std::move(readable));
      else
        missing.push_back(std::move(readable));
    }
    const auto add = [&](std::vector<std::string>& symbols, const char* kind,
                         const std::string& what) {
      if (symbols.empty()) return;
      const auto count = symbols.size();
      result.reasons.push_back(
          {kind, relative, std::to_string(count) + (count == 1 ? " symbol " : " symbols ") + what,
           std::move(symbols)});
    };
    add(other_abi, "C++ ABI mismatch",
        "the candidate has only for the other _GLIBCXX_USE_CXX11_ABI");
    add(missing, "API change", "not in the candidate's libraries");
    add(wrong_version, "API change", "at another symbol version in the candidate");
    return cxx;
  }

  void check_libraries(const std::string& relative, const elf::DynamicInfo& info,
                       DependentResult& result) {
    for (const auto& needed : info.needed) {
      const bool torch_library = m_current.libraries.contains(needed);
      const bool torch_dependency = m_current.needed.contains(needed);
      if (torch_library && !m_candidate.libraries.contains(needed))
        result.reasons.push_back({"library not provided", relative,
                                  needed + " is in the current torch/lib, not in the candidate's"});
      else if (!torch_library && torch_dependency && !m_candidate.needed.contains(needed) &&
               !m_candidate.libraries.contains(needed))
        result.reasons.push_back({"library not provided", relative,
                                  needed + " comes with the current torch's dependencies, which "
                                           "the candidate does not use"});
      if (needed.starts_with("libcudart.so.")) {
        const int major = std::stoi(needed.substr(std::string("libcudart.so.").size()));
        if (!m_candidate.cuda_major)
          result.reasons.push_back(
              {"CUDA major", relative,
               "a CUDA " + std::to_string(major) + " extension; the candidate torch has no CUDA"});
        else if (*m_candidate.cuda_major != major)
          result.reasons.push_back({"CUDA major", relative,
                                    "built for CUDA " + std::to_string(major) +
                                        ", the candidate for CUDA " +
                                        std::to_string(*m_candidate.cuda_major)});
      }
    }
  }

  // Absolute entries into the current prefix: after the swap the old
  // libtorch would load next to the new one. Returns the fixed path.
  std::optional<std::string> check_search_path(const std::string& relative,
                                               const elf::DynamicInfo& info,
                                               DependentResult& result) {
    const auto& value = info.runpath ? info.runpath : info.rpath;
    if (!value) return std::nullopt;
    bool changed = false;
    auto entries = split(*value, ':');
    for (auto& entry : entries) {
      if (entry.empty() || entry.front() != '/' || !within(fs::path(entry), m_current.prefix))
        continue;
      result.reasons.push_back({"RPATH into the current prefix", relative, entry});
      entry = (m_candidate.prefix /
               fs::path(entry).lexically_normal().lexically_relative(m_current.prefix))
                  .lexically_normal()
                  .string();
      changed = true;
    }
    if (!changed) return std::nullopt;
    std::string joined;
    for (const auto& entry : entries) joined += (joined.empty() ? "" : ":") + entry;
    return joined;
  }

  const TorchInstall& m_current;
  const TorchInstall& m_candidate;
  FixRpath m_fix;
  std::unordered_set<std::string> m_candidate_neutral;  // the candidate's C++ exports, ABI-neutral
};

bool is_prefix(const fs::path& directory) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory / "lib", error))
    if (entry.path().filename().string().starts_with("python") &&
        fs::is_directory(entry.path() / "site-packages", error))
      return true;
  return false;
}

}  // namespace

std::string_view verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::safe:
      return "safe";
    case Verdict::compatible:
      return "compatible";
    case Verdict::relink_needed:
      return "relink needed";
    case Verdict::breaks:
      return "breaks";
  }
  return "breaks";
}

std::string describe(const Reason& reason, std::size_t shown) {
  std::string text = reason.detail;
  const auto& symbols = reason.symbols;
  for (std::size_t i = 0; i < symbols.size() && i < shown; ++i)
    text += (i == 0 ? ": " : "; ") + symbols[i];
  if (symbols.size() > shown) text += " and " + std::to_string(symbols.size() - shown) + " more";
  return text;
}

bool SwapcheckReport::ok() const {
  return std::ranges::all_of(dependents, [](const DependentResult& d) {
    return d.verdict == Verdict::safe || d.verdict == Verdict::compatible;
  });
}

std::vector<fs::path> find_dependents(const std::vector<fs::path>& roots,
                                      const std::set<fs::path>& skip) {
  std::vector<fs::path> out;
  const auto add = [&](const fs::path& path) {
    const auto normal = fs::absolute(path).lexically_normal();
    if (!skip.contains(normal) && std::ranges::find(out, normal) == out.end())
      out.push_back(normal);
  };
  for (const auto& root : roots) {
    std::error_code error;
    if (!fs::is_directory(root, error))
      throw UsageError(root.string(), "not a directory",
                       "give install prefixes or an EasyBuild software/ tree");
    if (is_prefix(root)) {
      add(root);
      continue;
    }
    for (const auto& level1 : fs::directory_iterator(root, error)) {
      if (!level1.is_directory(error)) continue;
      if (is_prefix(level1.path())) {
        add(level1.path());
        continue;
      }
      for (const auto& level2 : fs::directory_iterator(level1.path(), error))
        if (level2.is_directory(error) && is_prefix(level2.path())) add(level2.path());
    }
  }
  std::ranges::sort(out);
  return out;
}

SwapcheckReport swapcheck(const fs::path& current, const fs::path& candidate,
                          const std::vector<fs::path>& dependents, FixRpath fix) {
  SwapcheckReport report{read_torch_install(current), read_torch_install(candidate), {}};
  Checker checker(report.current, report.candidate, fix);
  for (const auto& dependent : dependents) {
    auto result = checker.check(dependent);
    if (report.current.cxx11_abi && report.candidate.cxx11_abi &&
        *report.current.cxx11_abi != *report.candidate.cxx11_abi && result.torch_imports > 0 &&
        !result.stable_abi && result.verdict != Verdict::breaks) {
      // Every C++ symbol may still resolve (inline-only use), but std::string
      // objects cross the boundary with two layouts.
      result.reasons.push_back({"C++ ABI mismatch", "",
                                "the current torch is built with "
                                "_GLIBCXX_USE_CXX11_ABI=" +
                                    std::to_string(*report.current.cxx11_abi) +
                                    ", the candidate with " +
                                    std::to_string(*report.candidate.cxx11_abi)});
      result.verdict = Verdict::breaks;
    }
    report.dependents.push_back(std::move(result));
  }
  return report;
}

}  // namespace wheelmod::swap
