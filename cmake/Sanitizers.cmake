# wheelmod_sanitizers: INTERFACE target adding ASan + UBSan when
# WHEELMOD_SANITIZE is on (the dev preset; the test command uses it).
option(WHEELMOD_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

add_library(wheelmod_sanitizers INTERFACE)
if(WHEELMOD_SANITIZE)
  set(_wheelmod_san -fsanitize=address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
  target_compile_options(wheelmod_sanitizers INTERFACE ${_wheelmod_san})
  target_link_options(wheelmod_sanitizers INTERFACE ${_wheelmod_san})
  # Executables are linked position-dependent. The instrumented -O0 `wheelmod` is a 250 MB PIE
  # with 3.5 million relative relocations (ASan's descriptor of every global and string literal
  # points at it), which ld.so applied at each start: `wheelmod --version` took 0.51 s, 0.26 s
  # without them, and the suite starts wheelmod thousands of times.
  target_link_options(wheelmod_sanitizers INTERFACE
                      $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
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
