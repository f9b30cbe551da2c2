# Reading a test driver's own list of its tests (`SCRIPT --list`), shared by the CLI scenarios
# (tests/cli), the index shapes (tests/conformance) and the hostile and fault drivers
# (tests/hostile/listed_tests.cmake). The format is scenario_support.ctest_listing's: one line
# per test, `NAME [options=--a,--b] [fixtures=x,y] [timeout=SECONDS] [node_view=1]`.
include_guard(GLOBAL)

# wheelmod_read_listing(SCRIPT WHAT OUT): the lines `SCRIPT --list` prints, as a list in OUT.
# Editing SCRIPT reruns the configure step; a listing that fails or is empty stops it, saying
# WHAT was being read.
function(wheelmod_read_listing script what out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${script})
  execute_process(COMMAND ${WHEELMOD_REFERENCE_PYTHON} -B ${script} --list
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _listing ERROR_VARIABLE _error)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${_rc}):\n${_error}")
  endif()
  string(STRIP "${_listing}" _listing)
  if(_listing STREQUAL "")
    message(FATAL_ERROR "${what} lists nothing")
  endif()
  string(REPLACE "\n" ";" _lines "${_listing}")
  set(${out} "${_lines}" PARENT_SCOPE)
endfunction()

# wheelmod_parse_listed(LINE WHAT OPTIONS PREFIX): one line of a listing, into the caller's
# PREFIX_name, PREFIX_arguments (`--option value` for each option it names, the value from the
# variable OPTIONS pairs it with: OPTIONS names a list `--a VAR_A --b VAR_B ...`),
# PREFIX_undefined (those variables not defined in this configuration), PREFIX_fixtures,
# PREFIX_timeout ("" when none) and PREFIX_node_view (ON/OFF). A name that is not an identifier,
# an option OPTIONS lacks or an unknown field stops the configure step.
function(wheelmod_parse_listed line what options prefix)
  string(REPLACE " " ";" _fields "${line}")
  list(POP_FRONT _fields _name)
  if(NOT _name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${what}: '${line}' does not start with a name")
  endif()
  set(_arguments)
  set(_undefined)
  set(_fixtures)
  set(_timeout)
  set(_node_view OFF)
  foreach(_field IN LISTS _fields)
    if(_field MATCHES "^options=(.+)$")
      string(REPLACE "," ";" _options "${CMAKE_MATCH_1}")
      foreach(_option IN LISTS _options)
        list(FIND ${options} "${_option}" _at)
        if(_at EQUAL -1 OR NOT _option MATCHES "^--")
          message(FATAL_ERROR "${what}: ${_name} needs ${_option}, which this directory gives "
                              "no value (${options} in ${CMAKE_CURRENT_LIST_FILE})")
        endif()
        math(EXPR _at "${_at} + 1")
        list(GET ${options} ${_at} _variable)
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
    elseif(_field STREQUAL "node_view=1")
      set(_node_view ON)
    else()
      message(FATAL_ERROR "${what}: ${_name}: unknown field '${_field}'")
    endif()
  endforeach()
  foreach(_part name arguments undefined fixtures timeout node_view)
    set(${prefix}_${_part} "${_${_part}}" PARENT_SCOPE)
  endforeach()
endfunction()

# wheelmod_report_unregistered(WHAT NAMES VARIABLES): one status line for the tests left out
# because the variables their options need are not defined here (the nginx and fault servers,
# the swapcheck trees, ...).
function(wheelmod_report_unregistered what names variables)
  if(NOT names)
    return()
  endif()
  list(REMOVE_DUPLICATES variables)
  list(JOIN variables ", " _variables)
  list(JOIN names " " _names)
  message(STATUS "${what}: without ${_variables}, not registered: ${_names}")
endfunction()

# wheelmod_listed_cases(SCRIPT WHAT OPTIONS PREFIX [TIMEOUT_REQUIRED]): the tests `SCRIPT --list`
# names that this configuration can run, read and parsed as above; with TIMEOUT_REQUIRED a line
# without timeout= stops the configure step (every hostile and fault test is bounded). Sets in the caller PREFIX_cases (their names,
# in the listing's order) and, for each NAME of them, PREFIX_NAME_arguments, _fixtures, _timeout
# and _node_view (wheelmod_parse_listed's fields). The ones whose option variables are not
# defined here are left out with one status line (wheelmod_report_unregistered), so each
# directory only says how to run a case.
function(wheelmod_listed_cases script what options prefix)
  wheelmod_read_listing(${script} "${what}" _lines)
  set(_cases)
  set(_unregistered)
  set(_missing)
  foreach(_line IN LISTS _lines)
    wheelmod_parse_listed("${_line}" "${what}" ${options} _case)
    if("TIMEOUT_REQUIRED" IN_LIST ARGN AND NOT _case_timeout)
      message(FATAL_ERROR "${what}: ${_case_name} has no timeout= (give it one in the script's "
                          "CTEST)")
    endif()
    if(_case_undefined)
      list(APPEND _unregistered ${_case_name})
      list(APPEND _missing ${_case_undefined})
      continue()
    endif()
    list(APPEND _cases ${_case_name})
    foreach(_part arguments fixtures timeout node_view)
      set(${prefix}_${_case_name}_${_part} "${_case_${_part}}" PARENT_SCOPE)
    endforeach()
  endforeach()
  wheelmod_report_unregistered("${what}" "${_unregistered}" "${_missing}")
  set(${prefix}_cases "${_cases}" PARENT_SCOPE)
endfunction()

# wheelmod_set_listed_properties(TEST PREFIX NAME): the FIXTURES_REQUIRED and TIMEOUT a listed
# case NAME (wheelmod_listed_cases' PREFIX) asks for, on TEST.
function(wheelmod_set_listed_properties test prefix name)
  if(${prefix}_${name}_fixtures)
    set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED "${${prefix}_${name}_fixtures}")
  endif()
  if(${prefix}_${name}_timeout)
    set_tests_properties(${test} PROPERTIES TIMEOUT ${${prefix}_${name}_timeout})
  endif()
endfunction()

