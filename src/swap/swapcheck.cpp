#include "swap/swapcheck.hpp"

#include <algorithm>
#include <system_error>
#include <unordered_set>

#include <sys/utsname.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "elf/elf_file.hpp"
#include "elf/loader.hpp"
#include "elf/search_path_editor.hpp"
#include "elf/symbols.hpp"
#include "pep/marker.hpp"
#include "pep/name.hpp"
#include "prefix/relink.hpp"
#include "soname_major.hpp"
#include "swap/installed_projects.hpp"
#include "symbol_tables.hpp"

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

std::string machine() {
  struct utsname name {};
  return ::uname(&name) == 0 ? name.machine : "x86_64";
}

// Symbols the interpreter defines for the extension modules it loads (CPython's C API): no
// extension module lists libpython in DT_NEEDED (PEP 3149 builds; python3-config --ldflags
// --embed is for embedding), so the loader model cannot find them; the running python has them.
bool interpreter_symbol(const std::string& name) {
  return name.starts_with("Py") || name.starts_with("_Py");
}

bool is_broken_now(const Reason& reason) {
  return reason.kind == "undefined symbol" || reason.kind == "library missing now";
}

class Checker {
 public:
  Checker(const TorchInstall& current, const TorchInstall& candidate, FixRpath fix,
          elf::Loader& loader)
      : m_current(current), m_candidate(candidate), m_fix(fix), m_loader(loader) {
    for (const auto& [name, version] : current.exports) m_torch_symbols[name].current = &version;
    for (const auto& [name, version] : candidate.exports)
      m_torch_symbols[name].candidate = &version;
    // torch's own libraries are looked up in TorchInstall::exports (read once, by
    // read_torch_install); the index holds what they load.
    for (const auto* torch : {&current, &candidate})
      for (const auto& file : torch->dependency_files)
        (torch == &current ? m_current_files : m_candidate_files).add(m_symbols.add(file, true));
    for (const auto& file : current.library_files) {
      m_current_dirs.insert(file.parent_path());
      m_current_loaded.push_back(file.string());
    }
    std::vector<std::string> first, rest;
    for (const auto& file : candidate.library_files)
      if (m_candidate_dirs.insert(file.parent_path()).second)
        (file.filename().string().starts_with("libtorch") ? first : rest)
            .push_back(file.parent_path().string());
    for (const auto* list : {&first, &rest})
      for (const auto& directory : *list)
        m_candidate_search_path += (m_candidate_search_path.empty() ? "" : ":") + directory;
  }

  // What a dependent's file can bind to (closure_of): `now` the current torch, what it loads
  // and every object the file loads; `after` the candidate, what it loads, and the file's objects
  // not reached through the current torch's libraries.
  struct Closure {
    SymbolIndex::Files now;
    SymbolIndex::Files after;
    std::set<std::string> met_by_torch;  // DT_NEEDED names the file's own search does not find
    std::string not_found;               // neither found nor torch's: "liba.so.1, libb.so"
  };

  DependentResult check(const fs::path& prefix) {
    DependentResult result;
    result.prefix = prefix;
    check_pins(prefix, result);
    std::vector<std::pair<fs::path, std::string>> relinks;  // file, new search path
    bool imports_cxx = false;
    // Each file's dynamic facts come with the walk that finds it (one open for both).
    for (const auto& [file, info] : prefix::elf_files_with_dynamic(prefix)) {
      ++result.elf_files;
      const auto relative = file.lexically_relative(prefix).string();
      const auto& closure = closure_of(file, info, relative, result);
      imports_cxx |= check_symbols(file, relative, closure, result);
      check_libraries(relative, info, closure, result);
      if (auto fixed = check_search_path(relative, info, result))
        relinks.emplace_back(file, *fixed);
    }
    result.stable_abi = result.torch_imports > 0 && !imports_cxx;
    const bool broken_now = std::ranges::any_of(result.reasons, is_broken_now);
    const bool breaks = std::ranges::any_of(result.reasons, [](const Reason& r) {
      return r.kind != "RPATH into the current prefix" && r.kind != "version unknown";
    });
    const bool unknown = std::ranges::any_of(
        result.reasons, [](const Reason& r) { return r.kind == "version unknown"; });
    if (broken_now) {
      result.verdict = Verdict::broken_now;
    } else if (breaks) {
      result.verdict = Verdict::breaks;
    } else if (unknown) {
      result.verdict = Verdict::unknown;
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
  // Requirements on torch from every metadata form (installed_projects.hpp), with PEP 440
  // matching (`torch==2.7.1` admits 2.7.1+cu126), for the Python of each package directory.
  void check_pins(const fs::path& prefix, DependentResult& result) {
    const auto candidate = pep::Version::parse(m_candidate.version);
    for (const auto& site : python_directories(prefix)) {
      auto python = python_of(site);
      if (python.empty()) python = "3";  // markers on python_version then compare with "3"
      const auto environment = pep::MarkerEnvironment::linux_cpython(python, machine());
      for (const auto& project : installed_projects(site)) {
        if (pep::canonicalize_name(project.name) == "torch") continue;
        result.projects.push_back(project.name + " " + project.version);
        for (const auto& requirement : project.requirements) {
          if (requirement.canonical_name() != "torch" || !requirement.applies_to(environment))
            continue;
          if (!candidate) {
            if (!requirement.specifier.str().empty())
              result.reasons.push_back(
                  {"version unknown", project.metadata,
                   requirement.str() + " cannot be checked: the candidate torch's version is "
                                       "unknown (no dist-info, egg-info or torch/version.py)"});
          } else if (!requirement.specifier.contains(*candidate, pep::Prereleases::allow)) {
            result.reasons.push_back(
                {"pin", project.metadata,
                 requirement.str() + " is not met by torch " + m_candidate.version});
          }
        }
      }
    }
  }

  // Returns whether the file imports C++ (mangled) symbols from torch. Every import must be
  // defined now (else the file is broken now) and after the swap: by the candidate's libraries
  // and what they load, or by what the file loads itself apart from the current torch.
  bool check_symbols(const fs::path& file, const std::string& relative, const Closure& closure,
                     DependentResult& result) {
    bool cxx = false;
    std::vector<std::string> undefined, other_abi, missing, wrong_version;
    for (const auto& symbol : elf::read_dynamic_symbols(file).imported) {
      if (symbol.weak || interpreter_symbol(symbol.name)) continue;
      const auto defined_in = [&](const SymbolIndex::Files& files) {
        return m_symbols.defines(symbol.name, symbol.version, files);
      };
      // Most imports of a torch extension are torch's own symbols: one hash lookup each in the
      // exports of both torches (default versions) before any table is scanned.
      const auto found = m_torch_symbols.find(symbol.name);
      const TorchSymbol* torch = found == m_torch_symbols.end() ? nullptr : &found->second;
      const auto in_exports = [&symbol](const std::string* version) {
        return version != nullptr && (!symbol.version || *symbol.version == *version);
      };
      const bool from_torch = torch != nullptr && in_exports(torch->current);
      if (!from_torch && !defined_in(closure.now)) {
        undefined.push_back(demangled(symbol.name) + (symbol.version ? "@" + *symbol.version : ""));
        continue;
      }
      if (from_torch) {
        ++result.torch_imports;
        cxx |= symbol.name.starts_with("_Z");
      }
      if ((torch != nullptr && in_exports(torch->candidate)) || defined_in(closure.after)) continue;
      if (torch != nullptr && torch->candidate != nullptr && symbol.version) {
        // A versioned import binds only to that version (gABI symbol versioning).
        const auto& has = *torch->candidate;
        wrong_version.push_back(demangled(symbol.name) + " (needed at version " + *symbol.version +
                                ", the candidate has " + (has.empty() ? "it unversioned" : has) +
                                ")");
        continue;
      }
      auto readable = demangled(symbol.name);
      if (symbol.name.starts_with("_Z") && candidate_neutral().contains(abi_neutral(readable)))
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
    add(undefined, "undefined symbol",
        "nothing it loads defines, with the current torch (it does not load now)");
    add(other_abi, "C++ ABI mismatch",
        "the candidate has only for the other _GLIBCXX_USE_CXX11_ABI");
    add(missing, "API change", "not defined after the swap (not in the candidate's libraries)");
    add(wrong_version, "API change", "at another symbol version in the candidate");
    return cxx;
  }

  // What `file` loads (ld.so's search, elf::Loader), as symbol tables: `own` every object but the
  // current torch's libraries, `after` those not reached through them (what the candidate's
  // libraries bring instead comes with m_candidate_tables). A DT_NEEDED no directory has is met
  // by torch when it is one of torch's names (torch is imported first, and ld.so reuses an
  // object loaded under that SONAME); otherwise the file does not load now.
  // Files of one directory with the same DT_NEEDED, RPATH, RUNPATH and interpreter load the same
  // objects (ld.so(8): $ORIGIN is the directory): their closure is resolved once.
  const Closure& closure_of(const fs::path& file, const elf::DynamicInfo& info,
                            const std::string& relative, DependentResult& result) {
    std::string key = file.parent_path().string();
    for (const auto& needed : info.needed) key += '\n' + needed;
    key += '\0' + info.rpath.value_or("-") + '\0' + info.runpath.value_or("-") + '\0' +
           info.interpreter.value_or("-");
    auto [it, added] = m_closures.try_emplace(std::move(key));
    if (added) it->second = resolve_closure(file);
    if (!it->second.not_found.empty())
      result.reasons.push_back({"library missing now", relative,
                                it->second.not_found +
                                    ": not found by the loader (RPATH/RUNPATH, ld.so.cache, the "
                                    "system directories), and not one of torch's"});
    return it->second;
  }

  Closure resolve_closure(const fs::path& file) {
    Closure out{m_current_files, m_candidate_files, {}, {}};
    std::optional<elf::CheckResult> checked;
    try {
      checked = m_loader.check(file, m_current_loaded);
    } catch (const Error&) {
      return out;
    }
    if (!checked) return out;
    std::vector<bool> via_torch(checked->objects.size(), false);
    for (std::size_t i = 1; i < checked->objects.size(); ++i) {
      const auto& object = checked->objects[i];
      const auto& real = real_path(object.path);
      const bool torch = m_current.library_files.contains(real);
      via_torch[i] = torch || (object.loader && via_torch[*object.loader]);
      if (torch) continue;
      const auto id = m_symbols.add(real);
      out.now.add(id);
      if (!via_torch[i]) out.after.add(id);
    }
    std::vector<std::string> not_found;
    for (const auto& object : checked->objects)
      for (const auto& needed : object.needed) {
        if (needed.status != elf::NeededStatus::missing &&
            needed.status != elf::NeededStatus::invalid)
          continue;
        // torch and what it loads are in the process before the dependent.
        if (m_current.libraries.contains(needed.name) || m_current.needed.contains(needed.name))
          out.met_by_torch.insert(needed.name);
        else if (std::ranges::find(not_found, needed.name) == not_found.end())
          not_found.push_back(needed.name);
      }
    for (const auto& name : not_found) out.not_found += (out.not_found.empty() ? "" : ", ") + name;
    return out;
  }

  // A "CUDA major" / "ROCm major" reason when the file was built for `major` and the candidate
  // for another major, or for none.
  static void check_major(const std::string& relative, const std::string& kind,
                          std::optional<int> major, std::optional<int> candidate,
                          DependentResult& result) {
    if (!major) return;
    if (!candidate)
      result.reasons.push_back({kind + " major", relative,
                                "a " + kind + " " + std::to_string(*major) +
                                    " extension; the candidate torch has no " + kind});
    else if (*candidate != *major)
      result.reasons.push_back({kind + " major", relative,
                                "built for " + kind + " " + std::to_string(*major) +
                                    ", the candidate for " + kind + " " +
                                    std::to_string(*candidate)});
  }

  // A library the file needs and does not find by itself (met by torch now) that the candidate
  // neither is nor loads.
  void check_libraries(const std::string& relative, const elf::DynamicInfo& info,
                       const Closure& closure, DependentResult& result) {
    for (const auto& needed : info.needed) {
      const bool torch_library = m_current.libraries.contains(needed);
      const bool torch_dependency =
          m_current.needed.contains(needed) && closure.met_by_torch.contains(needed);
      // A library the candidate loads as its own dependency (a source build linked against the
      // HIP module needs libamdhip64.so.6, which the wheel bundled) is met the way it was.
      if (torch_library && !m_candidate.libraries.contains(needed) &&
          !m_candidate.needed.contains(needed))
        result.reasons.push_back({"library not provided", relative,
                                  needed + " is in the current torch/lib, not in the candidate's"});
      else if (!torch_library && torch_dependency && !m_candidate.needed.contains(needed) &&
               !m_candidate.libraries.contains(needed))
        result.reasons.push_back({"library not provided", relative,
                                  needed + " comes with the current torch's dependencies, which "
                                           "the candidate does not use"});
      // The runtime's SONAME carries the major (libcudart.so.12, libamdhip64.so.6 for every
      // ROCm 6.x): an extension built against another cannot share the candidate's process.
      check_major(relative, "CUDA", detail::soname_major(needed, "libcudart.so."),
                  m_candidate.cuda_major, result);
      check_major(relative, "ROCm", detail::soname_major(needed, "libamdhip64.so."),
                  m_candidate.rocm_major, result);
    }
  }

  // Absolute entries naming a directory that holds the current torch's libraries (compared by
  // real path, so /usr/lib/x86_64-linux-gnu for a distribution's torch, torch/lib for a wheel):
  // after the swap, a dependent loaded before torch would take the old libtorch from there. --fix
  // puts the directories of the candidate's libraries in their place (not the entry with one
  // prefix swapped for the other, which need not exist). Returns the new search path.
  std::optional<std::string> check_search_path(const std::string& relative,
                                               const elf::DynamicInfo& info,
                                               DependentResult& result) {
    const auto& value = info.runpath ? info.runpath : info.rpath;
    if (!value) return std::nullopt;
    bool changed = false;
    auto entries = split(*value, ':');
    for (auto& entry : entries) {
      if (entry.empty() || entry.front() != '/') continue;
      std::error_code error;
      auto real = fs::canonical(entry, error);
      if (error) real = fs::path(entry).lexically_normal();
      if (!m_current_dirs.contains(real) || m_candidate_dirs.contains(real)) continue;
      result.reasons.push_back(
          {"RPATH into the current prefix", relative,
           entry + " holds the current torch's libraries; --fix: " + m_candidate_search_path});
      entry = m_candidate_search_path;
      changed = true;
    }
    if (!changed) return std::nullopt;
    std::string joined;
    for (const auto& entry : entries) joined += (joined.empty() ? "" : ":") + entry;
    return joined;
  }

  // Each dependent names the same torch functions: demangled once each.
  const std::string& demangled(const std::string& name) {
    const auto [it, added] = m_demangled.try_emplace(name);
    if (added) it->second = elf::demangle(name);
    return it->second;
  }

  // The candidate's C++ exports, ABI-neutral: demangled when a symbol is first missing.
  const std::unordered_set<std::string>& candidate_neutral() {
    if (!m_candidate_neutral)
      for (auto& neutral = m_candidate_neutral.emplace();
           const auto& [name, version] : m_candidate.exports)
        if (name.starts_with("_Z")) neutral.insert(abi_neutral(elf::demangle(name)));
    return *m_candidate_neutral;
  }

  // A name either torch exports, with the version each exports it at (null: not exported).
  struct TorchSymbol {
    const std::string* current = nullptr;
    const std::string* candidate = nullptr;
  };

  const TorchInstall& m_current;
  const TorchInstall& m_candidate;
  FixRpath m_fix;
  elf::Loader& m_loader;
  // fs::canonical of the paths the loader gives, once each (every dependent's files load the same
  // system libraries).
  const fs::path& real_path(const std::string& path) {
    const auto [it, added] = m_real_paths.try_emplace(path);
    if (added) {
      std::error_code error;
      it->second = fs::canonical(path, error);
      if (error) it->second = fs::path(path).lexically_normal();
    }
    return it->second;
  }

  std::unordered_map<std::string, fs::path> m_real_paths;
  std::unordered_map<std::string, TorchSymbol> m_torch_symbols;
  // `import torch` has loaded the current torch's libraries before any dependent: a dependent's
  // DT_NEEDED of one of their names is met by them, not by a search (which may find another
  // libtorch, a distribution's, in the system directories).
  std::vector<std::string> m_current_loaded;
  std::unordered_map<std::string, std::string> m_demangled;
  std::unordered_map<std::string, Closure> m_closures;  // by closure_of's key
  SymbolIndex m_symbols;
  SymbolIndex::Files m_current_files;    // torch's libraries and what they load
  SymbolIndex::Files m_candidate_files;  // the same of the candidate
  std::optional<std::unordered_set<std::string>> m_candidate_neutral;
  std::set<fs::path> m_current_dirs;    // where the current torch's libraries are (real paths)
  std::set<fs::path> m_candidate_dirs;  // where the candidate's are
  std::string m_candidate_search_path;  // those, libtorch's first: what --fix writes
};

bool is_prefix(const fs::path& directory) { return !python_directories(directory).empty(); }

}  // namespace

std::string_view verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::safe:
      return "safe";
    case Verdict::compatible:
      return "compatible";
    case Verdict::relink_needed:
      return "relink needed";
    case Verdict::unknown:
      return "unknown";
    case Verdict::breaks:
      return "breaks";
    case Verdict::broken_now:
      return "broken now";
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
  elf::Loader loader(elf::host_environment());
  SwapcheckReport report{
      read_torch_install(current, loader), read_torch_install(candidate, loader), {}};
  Checker checker(report.current, report.candidate, fix, loader);
  for (const auto& dependent : dependents) {
    auto result = checker.check(dependent);
    if (report.current.cxx11_abi && report.candidate.cxx11_abi &&
        *report.current.cxx11_abi != *report.candidate.cxx11_abi && result.torch_imports > 0 &&
        !result.stable_abi && result.verdict != Verdict::breaks &&
        result.verdict != Verdict::broken_now) {
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
