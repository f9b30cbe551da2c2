#include "pep/record.hpp"
