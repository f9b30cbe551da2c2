#include "pep/tags.hpp"
