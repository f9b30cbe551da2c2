# wheelmod_warnings: an INTERFACE target every wheelmod target links.
# -Werror only when WHEELMOD_WERROR is on (the dev preset), so a newer
# compiler's new warning never breaks a user's build.
option(WHEELMOD_WERROR "Treat warnings as errors" OFF)

add_library(wheelmod_warnings INTERFACE)
target_compile_options(wheelmod_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
# GCC 12 warns -Wrestrict on `"literal" + std::string` at -O2 inside
# libstdc++ itself (GCC bug 105329, fixed in GCC 13): not our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(wheelmod_warnings INTERFACE -Wno-restrict)
endif()
if(WHEELMOD_WERROR)
  target_compile_options(wheelmod_warnings INTERFACE -Werror)
endif()
