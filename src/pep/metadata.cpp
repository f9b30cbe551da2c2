#include "pep/metadata.hpp"
