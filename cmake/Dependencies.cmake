# Finds every third-party dependency. All come from Debian 12 packages; a
# missing one stops the configure step with the package to install.
include(FindPackageHandleStandardArgs)

function(wheelmod_require found what debian_package)
  if(NOT ${found})
    message(FATAL_ERROR
      "${what} not found.\n"
      "hint: apt-get install ${debian_package}   (or run scripts/install-deps.sh)")
  endif()
endfunction()

find_package(OpenSSL 3 QUIET COMPONENTS Crypto)
wheelmod_require(OpenSSL_FOUND "OpenSSL 3 (libcrypto)" libssl-dev)

find_package(fmt QUIET CONFIG)
wheelmod_require(fmt_FOUND "fmt" libfmt-dev)

find_package(CLI11 QUIET CONFIG)
wheelmod_require(CLI11_FOUND "CLI11" libcli11-dev)

find_package(nlohmann_json 3 QUIET CONFIG)
wheelmod_require(nlohmann_json_FOUND "nlohmann-json" nlohmann-json3-dev)

find_package(PkgConfig QUIET)
wheelmod_require(PKG_CONFIG_FOUND "pkg-config" pkg-config)

find_package(CURL QUIET)
wheelmod_require(CURL_FOUND "libcurl" libcurl4-openssl-dev)

find_package(yaml-cpp QUIET CONFIG)
wheelmod_require(yaml-cpp_FOUND "yaml-cpp" libyaml-cpp-dev)

find_package(ZLIB QUIET)
wheelmod_require(ZLIB_FOUND "zlib" zlib1g-dev)

pkg_check_modules(LIBELF QUIET IMPORTED_TARGET libelf)
wheelmod_require(LIBELF_FOUND "libelf (elfutils)" libelf-dev)

pkg_check_modules(LIBZIP QUIET IMPORTED_TARGET libzip)
wheelmod_require(LIBZIP_FOUND "libzip" libzip-dev)

if(WHEELMOD_BUILD_TESTS)
  # A real HTTP server for the integration tests (Range, ETag, 304).
  find_program(WHEELMOD_NGINX NAMES nginx PATHS /usr/sbin NO_DEFAULT_PATH)
  wheelmod_require(WHEELMOD_NGINX "nginx" nginx-light)
  find_package(Catch2 2 QUIET CONFIG)
  wheelmod_require(Catch2_FOUND "Catch2 v2" catch2)
  # The differential tests run Debian's python3 with python3-packaging, the
  # reference implementation pip uses. /usr/bin/python3 first: a pyenv or
  # venv python on PATH would not see the Debian package.
  find_program(WHEELMOD_REFERENCE_PYTHON NAMES python3
               PATHS /usr/bin NO_DEFAULT_PATH)
  if(WHEELMOD_REFERENCE_PYTHON)
    execute_process(COMMAND ${WHEELMOD_REFERENCE_PYTHON} -c "import packaging"
                    RESULT_VARIABLE _wheelmod_packaging_rc OUTPUT_QUIET ERROR_QUIET)
  endif()
  if(NOT WHEELMOD_REFERENCE_PYTHON OR NOT _wheelmod_packaging_rc EQUAL 0)
    set(_wheelmod_has_packaging FALSE)
  else()
    set(_wheelmod_has_packaging TRUE)
  endif()
  wheelmod_require(_wheelmod_has_packaging "python3 with the packaging module" python3-packaging)
  # Lmod, to load the generated module files (Lua and Tcl) for real.
  find_program(WHEELMOD_LMOD NAMES lmod PATHS /usr/share/lmod/lmod/libexec NO_DEFAULT_PATH)
  wheelmod_require(WHEELMOD_LMOD "Lmod (/usr/share/lmod/lmod/libexec/lmod)" lmod)
endif()

# Header-only mustache renderer for the easyconfig and module templates.
find_path(WHEELMOD_MUSTACHE_INCLUDE kainjow/mustache.hpp)
wheelmod_require(WHEELMOD_MUSTACHE_INCLUDE "kainjow mustache" libkainjow-mustache-dev)
add_library(wheelmod_mustache INTERFACE)
target_include_directories(wheelmod_mustache SYSTEM INTERFACE ${WHEELMOD_MUSTACHE_INCLUDE})
