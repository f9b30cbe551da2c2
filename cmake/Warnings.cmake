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
# GCC 12 at -O2 also reports -Wnull-dereference inside libstdc++'s own
# inlined code (istreambuf_iterator -> basic_streambuf::egptr, the
# std::string copy in vector::insert), a false positive gone in GCC 13
# (reported against GCC 12 by SFML/SFML#2100 and nlohmann/json#3525). Off
# where optimising only: the -O0 dev build keeps the warning for our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(wheelmod_warnings INTERFACE $<$<NOT:$<CONFIG:Debug>>:-Wno-null-dereference>)
endif()
if(WHEELMOD_WERROR)
  target_compile_options(wheelmod_warnings INTERFACE -Werror)
endif()
