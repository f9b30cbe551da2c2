// How `wheelmod resolve` prints its report for people: plain text for a
// terminal or log, Markdown for a pull request or ticket. JSON comes from
// resolve::to_json.
#pragma once

#include <string>

#include "resolve/report.hpp"

namespace wheelmod::cli {

std::string render_text(const resolve::ResolveReport& report);
std::string render_markdown(const resolve::ResolveReport& report);

}  // namespace wheelmod::cli
