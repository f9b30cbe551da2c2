# wheelmod_sanitizers: INTERFACE target adding ASan + UBSan when
# WHEELMOD_SANITIZE is on (the dev preset; the test command uses it).
option(WHEELMOD_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

add_library(wheelmod_sanitizers INTERFACE)
if(WHEELMOD_SANITIZE)
  set(_wheelmod_san -fsanitize=address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
  target_compile_options(wheelmod_sanitizers INTERFACE ${_wheelmod_san})
  target_link_options(wheelmod_sanitizers INTERFACE ${_wheelmod_san})
endif()

# WHEELMOD_FUZZ (the `fuzz` preset, clang): every library instrumented for
# libFuzzer's coverage feedback, with ASan and UBSan; tests/fuzz links the
# fuzzer's main into each target.
option(WHEELMOD_FUZZ "Build the libFuzzer targets of tests/fuzz (clang)" OFF)
if(WHEELMOD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "WHEELMOD_FUZZ needs clang (libFuzzer): configure with the fuzz preset")
  endif()
  set(_wheelmod_fuzz -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                     -fno-sanitize-recover=undefined)
  target_compile_options(wheelmod_sanitizers INTERFACE ${_wheelmod_fuzz})
  target_link_options(wheelmod_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
