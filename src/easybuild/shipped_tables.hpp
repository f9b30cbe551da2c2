// Private to src/easybuild: the shipped tables as wheelmod_tables_gen (tables_gen.cpp) parsed
// them at build time, and the bytes of the two files they came from. SiteConfig uses them when
// no site directory is given and the installed files hold exactly these bytes.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "easybuild/config.hpp"

namespace wheelmod::easybuild::detail {

extern const std::string_view k_shipped_toolchains_yaml;
extern const std::string_view k_shipped_dependencies_yaml;

/// The generations SiteConfig::load_from_yaml(config/, nullopt, `toolchain`) returned at build
/// time: the eb-dependencies.yaml part (python_packages, cuda_libraries, cuda_wheel_bundle) of
/// the generation that has `toolchain` only, of every generation for "" or an unknown one.
std::map<std::string, Generation> shipped_generations(const std::string& toolchain);

}  // namespace wheelmod::easybuild::detail
