#include "emit/module_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <ranges>
#include <system_error>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/strings.hpp"
#include "core/url.hpp"
#include "easybuild/library_map.hpp"
#include "pep/metadata.hpp"
#include "pep/name.hpp"
#include "prefix/provenance.hpp"

namespace wheelmod::emit {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool less_ignoring_case(std::string_view a, std::string_view b) {
  const auto la = ascii_lower(a);
  const auto lb = ascii_lower(b);
  return la != lb ? la < lb : a < b;
}

// A relative path that stays inside the prefix (the provenance names files
// in it; a hand-edited one must not send the writer elsewhere).
fs::path inside(const fs::path& prefix, const std::string& relative, const fs::path& file) {
  const fs::path path(relative);
  const auto normal = path.lexically_normal();
  if (relative.empty() || path.is_absolute() || normal.begin()->string() == "..")
    throw UsageError(file.string(), "'" + relative + "' is not a path inside the prefix");
  return prefix / normal;
}

bool holds_files(const fs::path& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) return false;
  for (fs::recursive_directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error))
    if (it->is_regular_file(error)) return true;
  return false;
}

std::vector<std::string> components_of(const std::string& relative) {
  std::vector<std::string> out;
  for (const auto& part : fs::path(relative).lexically_normal()) out.push_back(part.string());
  return out;
}

// Core metadata's home page: Home-page, else a Project-URL labelled
// Homepage/Home (core metadata 2.1 "Project-URL": "label, URL").
std::string homepage_of(const pep::CoreMetadata& metadata) {
  for (const auto value : metadata.values("Home-page"))
    if (!value.empty() && value != "UNKNOWN") return std::string(value);
  std::string first;
  for (const auto value : metadata.values("Project-URL")) {
    const auto comma = value.find(',');
    if (comma == std::string_view::npos) continue;
    std::string label = ascii_lower(value.substr(0, comma));
    std::erase_if(label, [](char c) { return c == ' ' || c == '-' || c == '_' || c == '.'; });
    auto url = value.substr(comma + 1);
    while (!url.empty() && url.front() == ' ') url.remove_prefix(1);
    if (label == "homepage" || label == "home") return std::string(url);
    if (first.empty()) first = url;
  }
  return first;
}

std::string first_pth_file(const fs::path& site_packages) {
  std::error_code error;
  std::vector<std::string> names;
  for (fs::directory_iterator it(site_packages, error), end; !error && it != end;
       it.increment(error))
    if (it->path().extension() == ".pth") names.push_back(it->path().filename().string());
  std::ranges::sort(names);
  return names.empty() ? std::string() : names.front();
}

// textwrap.wrap(text, 78) for text that breaks at single spaces.
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t column = 0;
  for (const auto word : std::views::split(text, ' ')) {
    const std::string_view piece(word.begin(), word.end());
    if (column > 0 && column + 1 + piece.size() > width) {
      out += '\n';
      column = 0;
    } else if (column > 0) {
      out += ' ';
      ++column;
    }
    out += piece;
    column += piece.size();
  }
  return out;
}

std::vector<std::string> extension_items(const ModuleDescription& description, char separator) {
  std::vector<ModuleExtension> sorted = description.extensions;
  std::ranges::stable_sort(sorted, [](const ModuleExtension& a, const ModuleExtension& b) {
    return less_ignoring_case(a.name, b.name);
  });
  std::vector<std::string> out;
  for (const auto& extension : sorted)
    out.push_back(extension.name + separator + extension.version);
  return out;
}

std::string lua_path_value(const EnvironmentPath& entry) {
  if (entry.components.empty()) return "root";
  std::string out = "pathJoin(root";
  for (const auto& part : entry.components) out += ", " + lua_string(part);
  return out + ")";
}

std::string tcl_path_value(const EnvironmentPath& entry) {
  if (entry.components.empty()) return "$root";
  const std::string rest = join(entry.components, "/");
  const std::string word = tcl_word(rest);
  if (word == rest) return "$root/" + rest;  // plain: nothing to quote
  return "\"$root/" + word.substr(1);        // "...": splice $root after the opening quote
}

// One line for a comment: the generator string is the user's to set.
std::string one_line(std::string text) {
  std::ranges::replace_if(
      text, [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return text;
}

// Lmod reads a Tcl module by turning help and whatis into Lua long strings of the fixed level
// [===[ ]===] (tcl2lua.tcl): text that would close one early gets a space after its "]", or Lmod
// could not load the module at all. Every "]===" is split, not only "]===]": module-whatis trims
// trailing blanks before it appends the closer, so a text ending in "]=== " would close it too.
std::string lmod_tcl_safe(std::string text) {
  for (std::size_t at = 0; (at = text.find("]===", at)) != std::string::npos; at += 2)
    text.insert(at + 1, " ");
  return text;
}

// The values Lmod's tcl2lua pastes into Lua unquoted (module_quote.cpp): refused rather than
// written into a module that would run them, or fail to load, for every user.
void check_tcl_pasteable(const ModuleDescription& description) {
  const auto check = [](const std::string& what, const std::string& value) {
    if (!lmod_tcl_pasteable(value))
      throw UsageError(terminal_text(value),
                       "the " + what +
                           " holds a double quote, backslash, control character, trailing blank "
                           "or bytes that are not UTF-8, which Lmod's conversion of a Tcl module "
                           "pastes into Lua unquoted or changes",
                       "write a Lua module (--syntax lua), which quotes it, or install into a "
                       "plainer path");
  };
  check("installation prefix", description.root);
  check("module version", description.version);
  for (const auto& module : description.dependencies) check("module it loads", module);
  for (const auto& extension : description.extensions) {
    check("extension name", extension.name);
    check("extension version", extension.version);
  }
  for (const auto* entry : {&description.python_path})
    for (const auto& part : entry->components) check("site-packages path", part);
  for (const auto& entry : description.paths) {
    check("environment variable name", entry.variable);
    for (const auto& part : entry.components) check("module path", part);
  }
}

}  // namespace

// Load order: the toolchain, Python, the accelerator's module, then the
// others case-insensitively (EasyBuild loads the toolchain first, then the
// dependencies in easyconfig order; wheelmod has no easyconfig order).
// Under HierarchicalMNS, by the names the hierarchy gives them and without the toolchain
// (module_naming.hpp, loads_toolchain).
std::vector<std::string> module_dependencies(const prefix::Provenance& provenance,
                                             const std::string& name,
                                             const easybuild::ModuleNaming& naming) {
  std::vector<std::string> rest = provenance.modules;
  std::ranges::sort(rest, less_ignoring_case);
  std::vector<std::string> order;
  if (naming.loads_toolchain() && !provenance.toolchain_module.empty())
    order.push_back(provenance.toolchain_module);
  for (const auto* module : {&provenance.python_module, &provenance.cuda_module})
    if (!module->empty()) order.push_back(*module);
  order.insert(order.end(), rest.begin(), rest.end());
  std::vector<std::string> out;
  for (const auto& module : order) {
    auto named = naming.name_of(module).name;
    if (std::ranges::find(out, named) == out.end() && !named.starts_with(name + "/"))
      out.push_back(std::move(named));
  }
  return out;
}

namespace {

pep::CoreMetadata read_metadata(const fs::path& file) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const IoError& error) {
    throw UsageError(file.string(), error.cause(), "reinstall with `wheelmod install --force`");
  }
  auto metadata = pep::CoreMetadata::parse(text);
  if (!metadata) throw UsageError(file.string(), metadata.error().describe("core metadata"));
  return std::move(*metadata);
}

// EasyBuild's default load environment, for what wheels install
// (ModuleLoadEnvironment: a path only when it holds files).
std::vector<EnvironmentPath> load_environment(const fs::path& prefix) {
  std::vector<EnvironmentPath> out{{"CMAKE_PREFIX_PATH", {}}};
  if (holds_files(prefix / "share" / "man")) out.push_back({"MANPATH", {"share", "man"}});
  if (holds_files(prefix / "bin")) out.push_back({"PATH", {"bin"}});
  if (holds_files(prefix / "share")) out.push_back({"XDG_DATA_DIRS", {"share"}});
  return out;
}

}  // namespace

ModuleDescription describe_installation(const ModuleRequest& request) {
  const fs::path file = request.prefix / prefix::k_provenance_file;
  const auto provenance = prefix::read_provenance(request.prefix);
  ModuleDescription out;
  ModuleRequest named = request;
  if (named.toolchain.empty()) named.toolchain = provenance.toolchain;
  out.identity = module_identity(named);
  out.root = request.prefix.string();
  out.generator = one_line(request.generator);
  const std::string module_key = pep::canonicalize_name(out.identity.name);
  const prefix::InstalledProject* main_wheel = nullptr;
  for (const auto& entry : provenance.installed) {
    out.extensions.push_back({entry.name, entry.version});
    if (main_wheel == nullptr && pep::canonicalize_name(entry.name) == module_key)
      main_wheel = &entry;
  }
  if (main_wheel == nullptr) main_wheel = &provenance.installed.front();

  const auto metadata =
      read_metadata(inside(request.prefix, main_wheel->dist_info, file) / "METADATA");
  // The wheel author's text, shown by `module help`, `whatis` and `spider` to every user: a
  // control byte (an escape sequence, a carriage return) is written escaped, never raw.
  out.homepage = terminal_text(homepage_of(metadata));
  out.version =
      module_version(out.identity.full_version, provenance.toolchain, main_wheel->version);
  out.description = request.description;
  if (out.description.empty()) {
    const auto summary = metadata.values("Summary");
    const std::string origin =
        !request.origin.empty() ? request.origin : std::string(Url(provenance.index).host());
    if (!summary.empty() && !summary.front().empty())
      out.description = terminal_text(summary.front()) + "\n";
    out.description += "This module provides the official wheels of " + out.identity.name +
                       (origin.empty() ? "" : " from " + origin);
  }
  out.dependencies = module_dependencies(provenance, out.identity.name, request.naming);
  out.paths = load_environment(request.prefix);

  const std::string& python = provenance.python;
  std::string site = provenance.site_packages;
  if (site.empty()) site = "lib/python" + python + "/site-packages";
  const fs::path site_path = inside(request.prefix, site, file);
  auto search = request.python_search_path;
  if (search == PythonSearchPath::automatic) {
    const auto pth = first_pth_file(site_path);
    search = pth.empty() ? PythonSearchPath::pythonpath : PythonSearchPath::ebpythonprefixes;
    if (!pth.empty())
      out.warnings.push_back("site-packages holds " + pth +
                             ", which PYTHONPATH does not process: the module sets "
                             "EBPYTHONPREFIXES, read by the sitecustomize.py of EasyBuild's "
                             "Python (--python-search-path PYTHONPATH overrides)");
  }
  out.python_path = search == PythonSearchPath::ebpythonprefixes
                        ? EnvironmentPath{"EBPYTHONPREFIXES", {}}
                        : EnvironmentPath{"PYTHONPATH", components_of(site)};

  const std::string& python_module = provenance.python_module;
  const auto slash = python_module.find('/');
  if (!python.empty() && slash != std::string::npos &&
      !python_module.substr(slash + 1).starts_with(python + "."))
    out.python_mismatch = "the module loads " + python_module +
                          " but the wheels were installed for Python " + python +
                          ": that Python will not import them";
  return out;
}

std::string help_text(const ModuleDescription& description) {
  const auto section = [](const std::string& title, const std::string& body) {
    return "\n\n\n" + title + "\n" + std::string(title.size(), '=') + "\n" + body;
  };
  std::string body = description.description;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front()))) body.erase(0, 1);
  std::string out = section("Description", body).substr(2);
  if (!description.homepage.empty())
    out += section("More information", " - Homepage: " + description.homepage);
  if (!description.extensions.empty())
    out += section("Included extensions",
                   wrapped(terminal_text(join(extension_items(description, '-'), ", ")), 78));
  return out + "\n";
}

json module_context(const ModuleDescription& description, ModuleSyntax syntax) {
  const bool lua = syntax == ModuleSyntax::lua;
  const auto quote = [lua](std::string_view text) {
    return lua ? lua_string(text) : tcl_quoted(text);
  };
  const auto word = [lua](std::string_view text) {
    return lua ? lua_string(text) : tcl_word(text);
  };
  const auto path_value = [lua](const EnvironmentPath& entry) {
    return lua ? lua_path_value(entry) : tcl_path_value(entry);
  };
  const auto& name = description.identity.name;
  const std::string help = help_text(description);

  std::vector<std::string> whatis{"Description: " + description.description};
  if (!description.homepage.empty()) {
    whatis.push_back("Homepage: " + description.homepage);
    whatis.push_back("URL: " + description.homepage);
  }
  const auto listed = extension_items(description, '-');
  if (!listed.empty()) whatis.push_back("Extensions: " + terminal_text(join(listed, ", ")));

  const auto text = [lua](const std::string& value) {
    return lua ? lua_long_string(value) : tcl_text(lmod_tcl_safe(value));
  };
  json context{{"help", lua ? lua_long_string(help) : text("\n" + help + "    ")},
               {"whatis", json::array()},
               {"root", word(description.root)},
               {"conflict", word(name)},
               {"dependencies", json::array()},
               {"paths", json::array()},
               {"root_variable", word(easybuild::root_variable(name))},
               {"version_variable", word(easybuild::version_variable(name))},
               {"version", quote(description.version)},
               {"python_variable", word(description.python_path.variable)},
               {"python_value", path_value(description.python_path)},
               {"generator", description.generator},
               {"extslist_variable", word(easybuild::extslist_variable(name))}};
  for (const auto& line : whatis) context["whatis"].push_back({{"text", text(line)}});
  if (!lua) check_tcl_pasteable(description);
  std::vector<std::string> lmod_extensions;
  for (const auto& item : extension_items(description, '/'))
    if (lua)
      lmod_extensions.push_back(terminal_text(item));  // `module spider` prints them
    else if (lmod_tcl_extension_item(item))  // what tcl2lua could evaluate is left out; the help
      lmod_extensions.push_back(item);       // text and EBEXTSLIST still name every wheel
  context["extensions"] = lua ? lua_string(join(lmod_extensions, ",")) : join(lmod_extensions, " ");
  for (const auto& module : description.dependencies)
    context["dependencies"].push_back({{"module", word(module)}});
  for (const auto& entry : description.paths)
    context["paths"].push_back({{"variable", word(entry.variable)}, {"value", path_value(entry)}});
  std::vector<std::string> extslist;  // install order, as EasyBuild keeps exts_list order
  for (const auto& extension : description.extensions)
    extslist.push_back(extension.name + "-" + extension.version);
  context["extslist"] = quote(join(extslist, ","));
  context["plain"] = {{"name", name},
                      {"full_version", description.identity.full_version},
                      {"module", name + "/" + description.identity.full_version},
                      {"version", description.version},
                      {"root", description.root},
                      {"description", description.description},
                      {"homepage", description.homepage}};
  return context;
}

std::string render_module(const ModuleDescription& description, ModuleSyntax syntax,
                          const TemplateSet& templates) {
  return templates.render(
      syntax == ModuleSyntax::lua ? "module.lua.mustache" : "module.tcl.mustache",
      module_context(description, syntax));
}

}  // namespace wheelmod::emit
