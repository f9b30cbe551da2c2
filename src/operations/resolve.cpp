#include "operations/resolve.hpp"

namespace wheelmod::operations {

resolve::ResolveReport resolve(const Selection& selection, Reporter& reporter) {
  return resolve_selection(selection, load_site_config(selection.config_dir, selection.toolchain),
                           reporter);
}

}  // namespace wheelmod::operations
