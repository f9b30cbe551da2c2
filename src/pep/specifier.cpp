#include "pep/specifier.hpp"
