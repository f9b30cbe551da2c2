// Lmod (Lua) and Tcl module files for a prefix `wheelmod install` made, shaped like EasyBuild 5's
// (framework tools/module_generator.py, EasyBlock.make_module_step): help, whatis, conflict,
// extensions(), depends_on, prepend_path, setenv of EBROOT/EBVERSION/EBEXTSLIST. Rendered from the
// module.lua / module.tcl templates with values quoted for the language, and written atomically
// into an EasyBuild module tree (all/<Name>/<fullversion>[.lua] plus the moduleclass link).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "easybuild/module_naming.hpp"
#include "emit/templates.hpp"

namespace wheelmod::prefix {
struct Provenance;
}

namespace wheelmod::emit {

enum class ModuleSyntax { lua, tcl };

/// How site-packages gets on Python's path (EasyBuild's --prefer-python-search-path): PYTHONPATH
/// works everywhere, venvs included; EBPYTHONPREFIXES needs EasyBuild's Python (its
/// sitecustomize.py calls site.addsitedir, so .pth files are processed).
enum class PythonSearchPath {
  automatic,         // EBPYTHONPREFIXES when site-packages holds a .pth file, like EasyBuild
  pythonpath,        // prepend_path("PYTHONPATH", <root>/lib/pythonX.Y/site-packages)
  ebpythonprefixes,  // prepend_path("EBPYTHONPREFIXES", <root>)
};

enum class ReplaceModule { no, yes };

/// What the user decides; everything else is read from the prefix.
struct ModuleRequest {
  std::filesystem::path prefix;  // absolute
  std::string name;              // "": the prefix's parent directory (PyTorch)
  std::string full_version;      // "": the prefix's directory (2.6.0-foss-2024a-...)
  std::string description;       // "": the main wheel's Summary + a sentence
  std::string origin;            // "": the index host the install recorded, if any
  PythonSearchPath python_search_path = PythonSearchPath::automatic;
  std::string generator;           // "wheelmod 0.1.0", for the footer comment
  easybuild::ModuleNaming naming;  // EasyBuildMNS unless the site names modules otherwise
  std::string toolchain;           // foss-2024a; "": the provenance's (for naming)
};

/// --name/--full-version, else from the prefix `<installpath>/software/<Name>/<fullversion>`
/// (EasyBuildMNS's name); under HierarchicalMNS the toolchain part leaves the version and
/// decides the level (hierarchical_mns.py det_full_version, det_module_subdir).
/// Throws UsageError for a name or version no module tree can hold.
struct ModuleIdentity {
  std::string name;
  std::string full_version;
  std::string subdir;  // "" (EasyBuildMNS), MPI/GCC/13.3.0/OpenMPI/5.0.3 (HierarchicalMNS)
};
ModuleIdentity module_identity(const ModuleRequest& request);

/// The modules the module file of an installation `name` (PyTorch) loads, in load order: the
/// toolchain (unless the naming scheme's hierarchy implies it), Python, the accelerator's module,
/// then the provenance's other modules case-insensitively, each by the name `naming` gives it.
std::vector<std::string> module_dependencies(const prefix::Provenance& provenance,
                                             const std::string& name,
                                             const easybuild::ModuleNaming& naming);

struct ModuleExtension {
  std::string name;
  std::string version;
};

/// An environment variable prepended with root joined with `components` (none: root itself).
struct EnvironmentPath {
  std::string variable;
  std::vector<std::string> components;
};

/// Everything a module file says, in plain (unquoted) text.
struct ModuleDescription {
  ModuleIdentity identity;
  std::string version;                      // EBVERSION<NAME>: 2.6.0
  std::string root;                         // the prefix
  std::string description;                  // help's Description and the first whatis
  std::string homepage;                     // "" when the metadata names none
  std::vector<std::string> dependencies;    // modules, in load order
  std::vector<ModuleExtension> extensions;  // installed wheels, in install order
  std::vector<EnvironmentPath> paths;       // sorted by variable
  EnvironmentPath python_path;              // PYTHONPATH or EBPYTHONPREFIXES
  std::string generator;
  std::vector<std::string> warnings;  // for the user; the file is written anyway
  std::string python_mismatch;        // "" or why the module's Python cannot import the wheels
};

/// Reads the provenance, the main wheel's METADATA (the wheel named like the module, else the
/// first installed) and which prefix directories hold files. Throws UsageError (exit 2) when the
/// provenance is missing (hint: `wheelmod install` first) or does not parse.
ModuleDescription describe_installation(const ModuleRequest& request);

/// EBVERSION: the part of `full_version` before "-<toolchain>", else the public part of
/// `main_version` (2.6.0+cu126 -> 2.6.0).
std::string module_version(std::string_view full_version, std::string_view toolchain,
                           std::string_view main_version);

/// EasyBuild's help text: Description, More information and Included extensions (sorted
/// case-insensitively, wrapped at 78 columns); starts with an empty line, ends with a newline.
std::string help_text(const ModuleDescription& description);

/// The template context: values quoted for `syntax`, plus `plain` (unquoted) for site templates.
nlohmann::json module_context(const ModuleDescription& description, ModuleSyntax syntax);

/// Renders module.lua.mustache or module.tcl.mustache with module_context.
std::string render_module(const ModuleDescription& description, ModuleSyntax syntax,
                          const TemplateSet& templates);

/// Where a module lives in an EasyBuild module tree.
struct ModuleTarget {
  std::filesystem::path file;     // <modulepath>/all/[<subdir>/]<Name>/<fullversion>[.lua]
  std::filesystem::path symlink;  // <modulepath>/<moduleclass>/<Name>/<fullversion>[.lua]; or none
  std::filesystem::path link_to;  // what the symlink holds: ../../all/<Name>/<fullversion>[.lua]
};
/// `suffix` is EasyBuild's suffix-modules-path (all). A hierarchical module (a subdir) gets no
/// moduleclass link (hierarchical_mns.py det_module_symlink_paths: none).
/// Throws UsageError for a moduleclass or suffix that is no plain name, or a moduleclass equal to
/// the suffix.
ModuleTarget module_target(const ModuleIdentity& identity, const std::filesystem::path& modulepath,
                           std::string_view moduleclass, ModuleSyntax syntax,
                           std::string_view suffix = "all");

/// `<installpath>/modules` for a prefix `<installpath>/software/<Name>/<v>`, else nullopt.
std::optional<std::filesystem::path> default_modulepath(const std::filesystem::path& prefix);

/// Throws UsageError (exit 2) when the module file, or a moduleclass link
/// pointing elsewhere, exists and `replace` is no.
void check_module_target(const ModuleTarget& target, ReplaceModule replace);

/// check_module_target, then writes `text` to a temporary beside the module, fsyncs and renames it
/// into place, then the moduleclass link (by rename too). Throws IoError (exit 4) naming the path.
void write_module(const ModuleTarget& target, std::string_view text, ReplaceModule replace);

// Quoting, one function per kind of literal.

/// A Lua double-quoted string: "a\"b\\c\n".
std::string lua_string(std::string_view text);
/// A Lua long string [==[...]==] whose value is exactly `text`: the level grows until the closing
/// bracket cannot occur in it; a leading newline is doubled, as Lua drops the first (Lua 5.1 §2.1).
std::string lua_long_string(std::string_view text);
/// Help and whatis text as a Tcl word whose value is exactly `text`: in braces, as EasyBuild
/// writes it, unless it holds a brace or backslash (Tcl(n) rule [6] would count or keep them).
std::string tcl_text(std::string_view text);
/// A Tcl double-quoted word, no substitution (Tcl(n) rules [4], [6], [9]): \ $ [ ] " { } escaped
/// (braces for a braced proc body), newlines kept, other control characters as \t or \ooo.
std::string tcl_quoted(std::string_view text);
/// `text` as is when it is one plain Tcl word (letters, digits, ./_-+:=@,%), else tcl_quoted.
std::string tcl_word(std::string_view text);
/// Whether Lmod's tcl2lua can paste `text` into a Lua string as it does a prepend-path value:
/// no double quote, backslash or control character (module_quote.cpp says why).
bool lmod_tcl_pasteable(std::string_view text);
/// Whether `text` can be an argument of a Tcl module's `extensions`, which tcl2lua evaluates a
/// second time: letters, digits and ._+-!/ only (every normalised name and PEP 440 version).
bool lmod_tcl_extension_item(std::string_view text);

}  // namespace wheelmod::emit
