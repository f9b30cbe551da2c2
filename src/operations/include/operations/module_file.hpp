// The module file of an installation, by one pipeline for `install --module` and `module`: where
// it goes (the site's module layout) is decided and checked before anything is written; then the
// installation is described from its provenance, rendered through the templates and written
// atomically into the module tree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "core/reporter.hpp"
#include "easybuild/config.hpp"
#include "emit/module_writer.hpp"
#include "operations/site.hpp"

namespace wheelmod::operations {

/// The moduleclass EasyBuild's PyTorch easyconfigs declare (`moduleclass = 'ai'`).
inline constexpr std::string_view k_default_moduleclass = "ai";

/// What the command line asks of the module file.
struct ModuleFileChoice {
  ModuleLayoutChoice layout;  // --module-naming-scheme, --syntax, --modulepath
  std::string moduleclass = std::string(k_default_moduleclass);
  std::optional<std::filesystem::path> site_templates;  // --templates: before the shipped ones
  emit::ReplaceModule replace = emit::ReplaceModule::no;
  bool render_only = false;    // --stdout: no module tree needed, nothing written
  bool offers_stdout = false;  // the command has --stdout (`module`), for the hint
  /// A module the file loads that no module tree has fails the write (exit 6) instead of a
  /// warning (--strict).
  bool strict = false;
  Getenv getenv = process_environment();  // $MODULEPATH, where the dependencies are looked for
};

/// Where and how the module file is written, decided before the installation exists.
struct ModuleFilePlan {
  emit::ModuleRequest request;               // naming filled in from the site's layout
  std::optional<emit::ModuleTarget> target;  // nullopt: rendered only
  emit::ModuleSyntax syntax = emit::ModuleSyntax::lua;
  std::optional<std::filesystem::path> site_templates;
  emit::ReplaceModule replace = emit::ReplaceModule::no;
  /// Where the modules the file loads are looked for: its own tree and $MODULEPATH's.
  std::vector<std::filesystem::path> module_trees;
  bool strict = false;
};

/// The module trees a module file's dependencies are looked for in: `own` (the tree it goes
/// into, when there is one) and each directory of $MODULEPATH.
std::vector<std::filesystem::path> module_trees(const std::optional<std::filesystem::path>& own,
                                                const Getenv& getenv);

/// The modules of `dependencies` (Name/version) no tree of `trees` has. A module is there as
/// <dir>/<Name>/<version>.lua (Lua) or <dir>/<Name>/<version> (Tcl), <dir> anywhere in a tree
/// down to 8 levels (flat all/ and moduleclass directories, HierarchicalMNS's
/// Core, Compiler/<c>/<v> and MPI/<c>/<v>/<mpi>/<v>). In `dependencies`' order.
std::vector<std::string> missing_modules(const std::vector<std::string>& dependencies,
                                         const std::vector<std::filesystem::path>& trees);

/// The plan for `request`'s module under the site's layout. Throws UsageError when there is no
/// module tree (unless render_only: pass --modulepath), for a naming scheme or syntax wheelmod
/// does not write, and for a module file already there without replace.
ModuleFilePlan plan_module_file(emit::ModuleRequest request, const SiteSettings& site,
                                const easybuild::Generation& generation,
                                const ModuleFileChoice& choice);

/// What to do with a module whose Python cannot import the installation.
enum class PythonMismatch {
  refuse,  // UsageError: `module` without --force
  warn,    // written, with the warning: `install` (its --python was given on purpose), --force
};

struct WrittenModule {
  std::string module;  // Name/fullversion, what `module load` takes
  std::string text;
  std::optional<std::filesystem::path> file;  // nullopt: rendered only
  std::vector<std::string> missing;  // modules it loads that no module tree here has (warned)
};

/// Describes the installation (its provenance), reports the description's warnings and each
/// module it loads that no module tree has, renders and writes the file. Throws UsageError (a
/// Python mismatch with `refuse`), CheckFailedError (a missing module with strict), IoError.
WrittenModule write_module_file(const ModuleFilePlan& plan, PythonMismatch mismatch,
                                Reporter& reporter);

}  // namespace wheelmod::operations
