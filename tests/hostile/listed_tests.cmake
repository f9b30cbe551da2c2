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
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_CURRENT_LIST_FILE}
             ${CMAKE_CURRENT_LIST_DIR}/hostile_support.py
             ${PROJECT_SOURCE_DIR}/tests/cli/scenario_support.py)

function(wheelmod_listed_tests prefix label script)
  set(_wheelmod $<TARGET_FILE:wheelmod>)
  file(RELATIVE_PATH _shown ${PROJECT_SOURCE_DIR} ${script})
  set(_what "${_shown} --list (the ${prefix}.* tests)")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${script})
  set_property(DIRECTORY APPEND PROPERTY WHEELMOD_LISTED_SCRIPTS ${script})
  execute_process(COMMAND ${WHEELMOD_REFERENCE_PYTHON} -B ${script} --list
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _listing ERROR_VARIABLE _error)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${_what} failed (${_rc}):\n${_error}")
  endif()
  string(STRIP "${_listing}" _listing)
  if(_listing STREQUAL "")
    message(FATAL_ERROR "${_what} lists nothing")
  endif()
  string(REPLACE "\n" ";" _lines "${_listing}")
  set(_unregistered)
  set(_missing)
  foreach(_line IN LISTS _lines)
    string(REPLACE " " ";" _fields "${_line}")
    list(POP_FRONT _fields _name)
    if(NOT _name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "${_what}: '${_line}' does not start with a name")
    endif()
    set(_arguments)
    set(_undefined)
    set(_fixtures)
    set(_timeout)
    foreach(_field IN LISTS _fields)
      if(_field MATCHES "^options=(.+)$")
        string(REPLACE "," ";" _options "${CMAKE_MATCH_1}")
        foreach(_option IN LISTS _options)
          list(FIND _wheelmod_listed_option_variables "${_option}" _at)
          if(_at EQUAL -1 OR NOT _option MATCHES "^--")
            message(FATAL_ERROR "${_what}: ${_name} needs ${_option}, which tests/hostile/"
                                "listed_tests.cmake gives no value (_wheelmod_listed_option_variables)")
          endif()
          math(EXPR _at "${_at} + 1")
          list(GET _wheelmod_listed_option_variables ${_at} _variable)
          if(DEFINED ${_variable})
            list(APPEND _arguments ${_option} ${${_variable}})
          else()
            list(APPEND _undefined ${_variable})
          endif()
        endforeach()
      elseif(_field MATCHES "^fixtures=(.+)$")
        string(REPLACE "," ";" _fixtures "${CMAKE_MATCH_1}")
      elseif(_field MATCHES "^timeout=([0-9]+)$")
        set(_timeout ${CMAKE_MATCH_1})
      else()
        message(FATAL_ERROR "${_what}: ${_name}: unknown field '${_field}'")
      endif()
    endforeach()
    # Every hostile input and fault test is bounded: the driver states how long it may take.
    if(NOT _timeout)
      message(FATAL_ERROR "${_what}: ${_name} has no timeout= (give it one in the script's CTEST)")
    endif()
    if(_undefined)
      list(APPEND _unregistered ${_name})
      list(APPEND _missing ${_undefined})
      continue()
    endif()
    add_test(NAME ${prefix}.${_name}
             COMMAND ${WHEELMOD_REFERENCE_PYTHON} -B ${script}
                     --wheelmod ${_wheelmod} ${_arguments} ${_name})
    set_tests_properties(${prefix}.${_name} PROPERTIES LABELS ${label} TIMEOUT ${_timeout})
    if(_fixtures)
      set_tests_properties(${prefix}.${_name} PROPERTIES FIXTURES_REQUIRED "${_fixtures}")
    endif()
  endforeach()
  if(_unregistered)
    list(REMOVE_DUPLICATES _missing)
    list(JOIN _missing ", " _missing)
    list(JOIN _unregistered " " _unregistered)
    message(STATUS "${prefix}: without ${_missing}, not registered: ${_unregistered}")
  endif()
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
