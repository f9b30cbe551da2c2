#include "pep/name.hpp"

#include "ascii.hpp"

namespace wheelmod::pep {
namespace {

using detail::is_alnum;
using detail::is_separator;
using detail::to_lower;

}  // namespace

std::string canonicalize_name(std::string_view name) {
  // PEP 503 "Normalized Names": re.sub(r"[-_.]+", "-", name).lower(). Only
  // ASCII is lower-cased; valid names (PEP 508) are ASCII.
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (is_separator(c)) {
      while (i + 1 < name.size() && is_separator(name[i + 1])) ++i;
      out += '-';
    } else {
      out += to_lower(c);
    }
  }
  return out;
}

bool is_valid_name(std::string_view name) {
  // PEP 508 "Names": ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$, ignoring case.
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) return false;
  for (const char c : name) {
    if (!is_alnum(c) && !is_separator(c)) return false;
  }
  return true;
}

}  // namespace wheelmod::pep
