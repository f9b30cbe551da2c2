#include "pep/wheel_filename.hpp"
