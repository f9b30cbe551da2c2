#include "pep/version.hpp"
