// The Catch2 main for wheelmod_unit_tests (compiled once).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
