#include "pep/name.hpp"
