# wheelmod_listed_tests(PREFIX LABEL SCRIPT): the tests of a hostile or fault driver, as the
# driver itself lists them (included by tests/hostile/CMakeLists.txt and tests/faults/CMakeLists.txt).
#
# `SCRIPT --list` (hostile_support.print_listing) prints one line per group or scenario in the
# format of the CLI scenarios (tests/cli/scenario_support.py, ctest_listing):
# `NAME [options=--a,--b] [fixtures=x,y] timeout=SECONDS`. Each becomes the test PREFIX.NAME with
# label LABEL, run as `python -B SCRIPT --wheelmod BIN [OPTION VALUE...] NAME`, the value of each
# option it names from _wheelmod_listed_option_variables below. A listing that fails, is empty,
# or names an option, a field or no timeout unknown here stops the configure step; editing the
# script reruns it. A group added to a driver is therefore a test, without a line here.
set(_wheelmod_listed_option_variables
  --sample WHEELMOD_SAMPLE_INDEX_DIR)
include(${PROJECT_SOURCE_DIR}/tests/cmake/ListedTests.cmake)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_CURRENT_LIST_FILE}
             ${CMAKE_CURRENT_LIST_DIR}/hostile_support.py
             ${PROJECT_SOURCE_DIR}/tests/cli/scenario_support.py)

function(wheelmod_listed_tests prefix label script)
  set(_wheelmod $<TARGET_FILE:wheelmod>)
  file(RELATIVE_PATH _shown ${PROJECT_SOURCE_DIR} ${script})
  set(_what "${_shown} --list (the ${prefix}.* tests)")
  set_property(DIRECTORY APPEND PROPERTY WHEELMOD_LISTED_SCRIPTS ${script})
  wheelmod_read_listing(${script} "${_what}" _lines)
  set(_unregistered)
  set(_missing)
  foreach(_line IN LISTS _lines)
    wheelmod_parse_listed("${_line}" "${_what}" _wheelmod_listed_option_variables _t)
    # Every hostile input and fault test is bounded: the driver states how long it may take.
    if(NOT _t_timeout)
      message(FATAL_ERROR "${_what}: ${_t_name} has no timeout= (give it one in the script's CTEST)")
    endif()
    if(_t_undefined)
      list(APPEND _unregistered ${_t_name})
      list(APPEND _missing ${_t_undefined})
      continue()
    endif()
    add_test(NAME ${prefix}.${_t_name}
             COMMAND ${WHEELMOD_REFERENCE_PYTHON} -B ${script}
                     --wheelmod ${_wheelmod} ${_t_arguments} ${_t_name})
    set_tests_properties(${prefix}.${_t_name} PROPERTIES LABELS ${label} TIMEOUT ${_t_timeout})
    if(_t_fixtures)
      set_tests_properties(${prefix}.${_t_name} PROPERTIES FIXTURES_REQUIRED "${_t_fixtures}")
    endif()
  endforeach()
  wheelmod_report_unregistered("${prefix}" "${_unregistered}" "${_missing}")
endfunction()

# wheelmod_check_drivers_listed(GLOB HELPER...): every file of the calling directory matching
# GLOB is a driver registered there (wheelmod_listed_tests) or one of HELPER (modules the
# drivers import), so that a new driver cannot go unrun either; the glob is redone at build time.
function(wheelmod_check_drivers_listed glob)
  file(GLOB _files CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       ${CMAKE_CURRENT_SOURCE_DIR}/${glob})
  get_property(_scripts DIRECTORY PROPERTY WHEELMOD_LISTED_SCRIPTS)
  foreach(_file IN LISTS _files)
    list(FIND ARGN ${_file} _helper)
    list(FIND _scripts ${CMAKE_CURRENT_SOURCE_DIR}/${_file} _listed)
    if(_helper EQUAL -1 AND _listed EQUAL -1)
      message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}/${_file} is neither a registered driver "
                          "(wheelmod_listed_tests) nor a known helper module: its tests would "
                          "never run; add it to ${CMAKE_CURRENT_LIST_FILE}")
    endif()
  endforeach()
endfunction()
