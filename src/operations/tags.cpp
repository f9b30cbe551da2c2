#include "operations/tags.hpp"

#include "core/errors.hpp"
#include "host.hpp"
#include "operations/selection.hpp"

namespace wheelmod::operations {

TagsResult tags(const TagsOptions& options) {
  const auto arch = options.arch.empty() ? host_arch() : options.arch;
  if (!is_known_arch(arch))
    throw UsageError("--arch " + arch, "unknown architecture",
                     "use one of: " + known_arches_text());
  pep::GlibcVersion glibc = host_glibc();
  if (!options.glibc.empty()) glibc = glibc_option(options.glibc);
  const auto python = options.python.empty() ? host_python() : options.python;
  auto target = pep::TagTarget::with_python(python, arch, glibc);
  if (!target)
    throw UsageError("--python " + python, target.error().message,
                     "give the Python version as X.Y, e.g. --python 3.12 (or 3.13t)");
  return {*target, pep::supported_tags(*target)};
}

}  // namespace wheelmod::operations
