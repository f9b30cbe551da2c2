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
  set_property(DIRECTORY APPEND PROPERTY WHEELMOD_LISTED_SCRIPTS ${script})
  # Every hostile input and fault test is bounded: the driver states how long it may take.
  wheelmod_listed_cases(${script} "${_shown} --list (the ${prefix}.* tests)"
                        _wheelmod_listed_option_variables _t TIMEOUT_REQUIRED)
  foreach(_name IN LISTS _t_cases)
    add_test(NAME ${prefix}.${_name}
             COMMAND ${WHEELMOD_REFERENCE_PYTHON} -B ${script}
                     --wheelmod ${_wheelmod} ${_t_${_name}_arguments} ${_name})
    set_tests_properties(${prefix}.${_name} PROPERTIES LABELS ${label})
    wheelmod_set_listed_properties(${prefix}.${_name} _t ${_name})
  endforeach()
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
