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
