#include "pep/marker.hpp"
