#include "pep/requirement.hpp"
