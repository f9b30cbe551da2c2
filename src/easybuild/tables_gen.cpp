// wheelmod_tables_gen CONFIG_DIR OUTPUT.cpp: the shipped tables (config/toolchains.yaml and
// config/eb-dependencies.yaml) parsed at build time into C++ that builds them again
// (shipped_tables.hpp), with the bytes they were parsed from. A small command then loads its
// tables in microseconds instead of milliseconds of yaml-cpp; a shipped file that no longer
// holds those bytes (an edited installation) is parsed as before. Bad shipped YAML fails the
// build with the message `wheelmod` would print.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "easybuild/config.hpp"

namespace {

namespace eb = wheelmod::easybuild;

// A C++ string literal of `text`: printable ASCII as it is, the rest as three-digit octal
// escapes (a hex escape would swallow the hex digits after it).
std::string literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      std::array<char, 8> escape{};
      std::snprintf(escape.data(), escape.size(), "\\%03o", byte);
      out += escape.data();
    }
  }
  return out + "\"";
}

std::string optional_literal(const std::optional<std::string>& text) {
  return text ? "std::optional<std::string>(" + literal(*text) + ")" : "std::nullopt";
}

std::string strings(const std::vector<std::string>& items) {
  std::string out = "std::vector<std::string>{";
  for (const auto& item : items) out += literal(item) + ", ";
  return out + "}";
}

std::string module_version(const eb::ModuleVersion& value) {
  return "ModuleVersion{" + literal(value.version) + ", " + literal(value.module) + "}";
}

std::string optional_module_version(const std::optional<eb::ModuleVersion>& value) {
  return value ? "std::optional<ModuleVersion>(" + module_version(*value) + ")" : "std::nullopt";
}

std::string toolchains(const std::map<std::string, eb::Toolchain>& map) {
  std::string out = "std::map<std::string, Toolchain>{";
  for (const auto& [key, value] : map)
    out += "\n      {" + literal(key) + ", Toolchain{" + literal(value.name) + ", " +
           literal(value.version) + ", " + literal(value.compiler) + ", " + literal(value.mpi) +
           "}},";
  return out + "}";
}

std::string python_packages(const std::map<std::string, std::vector<eb::PythonProvider>>& map) {
  std::string out = "std::map<std::string, std::vector<PythonProvider>>{";
  for (const auto& [key, providers] : map) {
    out += "\n      {" + literal(key) + ", std::vector<PythonProvider>{";
    for (const auto& provider : providers)
      out += "PythonProvider{" + literal(provider.module) + ", " +
             literal(provider.package_version) + ", " + optional_literal(provider.cuda) + "}, ";
    out += "}},";
  }
  return out + "}";
}

std::string cuda_libraries(const std::map<std::string, eb::CudaLibrary>& map) {
  std::string out = "std::map<std::string, CudaLibrary>{";
  for (const auto& [key, library] : map) {
    out += "\n      {" + literal(key) + ", CudaLibrary{" + literal(library.wheel_libdir) + ", " +
           strings(library.wheel_libdir_aliases) + ", " + strings(library.libraries) +
           ", std::vector<LibraryProvider>{";
    for (const auto& provider : library.provided_by)
      out += "\n        LibraryProvider{" + literal(provider.module) + ", " +
             literal(provider.name) + ", " + literal(provider.version) + ", " +
             literal(provider.libdir) + ", " + optional_literal(provider.cuda) + ", false},";
    out += "}}},";
  }
  return out + "}";
}

std::string rocm_libraries(const std::map<std::string, eb::RocmLibrary>& map) {
  std::string out = "std::map<std::string, RocmLibrary>{";
  for (const auto& [key, library] : map) {
    out += "\n      {" + literal(key) + ", RocmLibrary{" + literal(library.soname) + ", " +
           strings(library.wheel_data) + ", std::vector<LibraryProvider>{";
    for (const auto& provider : library.provided_by)
      out += "\n        LibraryProvider{" + literal(provider.module) + ", " +
             literal(provider.name) + ", " + literal(provider.version) + ", " +
             literal(provider.libdir) + ", " + optional_literal(provider.cuda) + ", false, " +
             optional_literal(provider.rocm) + ", " + strings(provider.data) + "},";
    out += "}}},";
  }
  return out + "}";
}

std::string wheel_bundle(const std::optional<eb::CudaWheelBundle>& bundle) {
  if (!bundle) return "std::nullopt";
  std::string out = "std::optional<CudaWheelBundle>(CudaWheelBundle{" + literal(bundle->module) +
                    ", " + literal(bundle->cuda) + ", std::map<std::string, std::string>{";
  for (const auto& [name, version] : bundle->packages)
    out += "{" + literal(name) + ", " + literal(version) + "}, ";
  return out + "}})";
}

// The generation but its eb-dependencies.yaml part, which dependencies() fills.
std::string generation(const eb::Generation& g, std::size_t index) {
  std::string out = "  {\n    Generation g;\n";
  out += "    g.name = " + literal(g.name) + ";\n";
  out += "    g.gcccore = " + literal(g.gcccore) + ";\n";
  out += "    g.toolchains = " + toolchains(g.toolchains) + ";\n";
  out += "    g.python = " + module_version(g.python) + ";\n";
  out += "    g.cuda = " + optional_module_version(g.cuda) + ";\n";
  out += "    g.cuda_other = " + strings(g.cuda_other) + ";\n";
  out += "    g.rocm = " + optional_module_version(g.rocm) + ";\n";
  out += "    g.rocm_toolchains = " + toolchains(g.rocm_toolchains) + ";\n";
  out += "    if (all || g.toolchains.contains(toolchain)) dependencies_" + std::to_string(index) +
         "(g);\n";
  out += "    out.emplace(" + literal(g.name) + ", std::move(g));\n  }\n";
  return out;
}

std::string dependencies(const eb::Generation& g, std::size_t index) {
  std::string out =
      "// " + g.name + "\nvoid dependencies_" + std::to_string(index) + "(Generation& g) {\n";
  out += "  g.python_packages = " + python_packages(g.python_packages) + ";\n";
  out += "  g.cuda_libraries = " + cuda_libraries(g.cuda_libraries) + ";\n";
  out += "  g.rocm_libraries = " + rocm_libraries(g.rocm_libraries) + ";\n";
  out += "  g.cuda_wheel_bundle = " + wheel_bundle(g.cuda_wheel_bundle) + ";\n}\n\n";
  return out;
}

// The bytes as a char array (its size, not a NUL, ends it), one source line per YAML line.
std::string bytes_constant(const char* name, const std::string& text) {
  std::string out = "constexpr char " + std::string(name) + "_bytes[] =";
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    out += "\n    " + literal(std::string_view(text).substr(start, end - start));
    start = end;
  }
  if (text.empty()) out += " \"\"";
  out += ";\n";
  return out;
}

std::string source(const std::filesystem::path& config_dir) {
  const auto config = eb::SiteConfig::load_from_yaml(config_dir, std::nullopt, "");
  const auto toolchains_yaml = wheelmod::read_file(config_dir / "toolchains.yaml");
  const auto dependencies_yaml = wheelmod::read_file(config_dir / "eb-dependencies.yaml");
  std::string out =
      "// Generated by wheelmod_tables_gen (src/easybuild/tables_gen.cpp) from config/*.yaml at\n"
      "// build time. Do not edit.\n"
      "#include \"shipped_tables.hpp\"\n\n"
      "namespace wheelmod::easybuild::detail {\n\nnamespace {\n\n";
  out += bytes_constant("k_toolchains", toolchains_yaml);
  out += bytes_constant("k_dependencies", dependencies_yaml);
  out += "\n";
  std::size_t index = 0;
  for (const auto& [name, g] : config.generations()) out += dependencies(g, index++);
  out +=
      "}  // namespace\n\n"
      "const std::string_view k_shipped_toolchains_yaml(k_toolchains_bytes,\n"
      "                                                 sizeof(k_toolchains_bytes) - 1);\n"
      "const std::string_view k_shipped_dependencies_yaml(k_dependencies_bytes,\n"
      "                                                   sizeof(k_dependencies_bytes) - 1);\n\n"
      "std::map<std::string, Generation> shipped_generations(const std::string& toolchain) {\n"
      "  bool all = toolchain.empty();\n"
      "  if (!all) {\n"
      "    all = true;\n";
  for (const auto& [name, g] : config.generations())
    for (const auto& [key, value] : g.toolchains)
      out += "    if (toolchain == " + literal(key) + ") all = false;\n";
  out +=
      "  }\n"
      "  std::map<std::string, Generation> out;\n";
  index = 0;
  for (const auto& [name, g] : config.generations()) out += generation(g, index++);
  out += "  return out;\n}\n\n}  // namespace wheelmod::easybuild::detail\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: wheelmod_tables_gen CONFIG_DIR OUTPUT.cpp\n";
    return 2;
  }
  const std::filesystem::path output = argv[2];
  try {
    const std::string text = source(argv[1]);
    // Written beside and renamed: an interrupted build leaves no half file that looks done.
    const auto temporary = output.string() + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out.flush()) throw wheelmod::IoError(temporary, "cannot write");
    }
    std::filesystem::rename(temporary, output);
  } catch (const wheelmod::Error& error) {
    std::cerr << error.render();
    return static_cast<int>(error.code());
  } catch (const std::exception& error) {
    std::cerr << "wheelmod_tables_gen: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
