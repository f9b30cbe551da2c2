#include "wheel/installer.hpp"
