# wheelmod_library(<target> <source>...): one library of src/<folder>.
#
# Its public headers live in src/<folder>/include/<folder>/ and are the only
# ones other targets can include (as "<folder>/<name>.hpp"); headers beside
# the sources are private to the library (included as "<name>.hpp"). Links
# are each library's own business (target_link_libraries, PRIVATE unless a
# public header needs them); tests/layering/check_layering.py compares them
# with the #include lines, from the manifest written below.
function(wheelmod_library target)
  add_library(${target} STATIC ${ARGN})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${target} PRIVATE wheelmod_warnings PUBLIC wheelmod_sanitizers)
  set_property(GLOBAL APPEND PROPERTY WHEELMOD_LIBRARIES ${target})
endfunction()

# Writes <build>/layering.json: every library's folder, public include root
# (its first INTERFACE_INCLUDE_DIRECTORIES entry) and direct links (LINK_LIBRARIES: all of them; INTERFACE_LINK_LIBRARIES: the
# PUBLIC ones, PRIVATE ones of a static library wrapped in $<LINK_ONLY:>).
function(wheelmod_write_layering_manifest)
  get_property(targets GLOBAL PROPERTY WHEELMOD_LIBRARIES)
  set(json "{}")
  string(JSON json SET "${json}" source_dir "\"${PROJECT_SOURCE_DIR}\"")
  string(JSON json SET "${json}" libraries "[]")
  set(index 0)
  foreach(target IN LISTS targets)
    get_target_property(folder ${target} SOURCE_DIR)
    get_target_property(all ${target} LINK_LIBRARIES)
    get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
    get_target_property(roots ${target} INTERFACE_INCLUDE_DIRECTORIES)
    list(GET roots 0 root)
    set(entry "{}")
    string(JSON entry SET "${entry}" target "\"${target}\"")
    string(JSON entry SET "${entry}" folder "\"${folder}\"")
    string(JSON entry SET "${entry}" include_root "\"${root}\"")
    foreach(kind all interface)
      set(list "[]")
      set(position 0)
      if(${kind})
        foreach(item IN LISTS ${kind})
          string(JSON list SET "${list}" ${position} "\"${item}\"")
          math(EXPR position "${position} + 1")
        endforeach()
      endif()
      if(kind STREQUAL "all")
        string(JSON entry SET "${entry}" link_libraries "${list}")
      else()
        string(JSON entry SET "${entry}" interface_link_libraries "${list}")
      endif()
    endforeach()
    string(JSON json SET "${json}" libraries ${index} "${entry}")
    math(EXPR index "${index} + 1")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/layering.json "${json}\n")
endfunction()
