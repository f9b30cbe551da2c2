// The output writers, one request at a time, for tests/hostile/hostile_writers.py: each line of
// stdin is a JSON request, each line of stdout the JSON answer. Every byte string travels as hex
// (any byte, NUL and invalid UTF-8 included); the answer is ASCII. The driver hands what comes
// back to the real consumers (Python's ast, EasyBuild, Lua, Tcl, Lmod, html.parser, json).
//
//   {"op": "strings", "s": HEX}
//       python_string, wrap_string_item (width 120 and 24), wrap_comment (indent 0 and 4),
//       lua_string, lua_long_string, tcl_text, tcl_quoted, tcl_word, terminal_text, printable
//   {"op": "easyconfig", "variant": "fields" | "per_arch" | "one_arch", "s": HEX}
//       a whole easyconfig (render_easyconfig with the shipped template) whose free-text fields,
//       extension, or architecture hold the string
//   {"op": "module", "name": TEXT, "version": HEX, "root": HEX, "description": HEX,
//    "homepage": HEX, "generator": HEX, "extensions": [[HEX, HEX]...],
//    "paths": [[TEXT, [HEX...]]...], "python_path": [TEXT, [HEX...]], "dependencies": [HEX...]}
//       render_module, Lua and Tcl, from that ModuleDescription
//   {"op": "html", "project": HEX, "files": [{"filename": HEX, "href": HEX, "sha256": HEX,
//    "metadata_sha256": HEX|null, "requires_python": HEX|null}...], "projects": [HEX...]}
//       the mirror's project page and root page, and encode_filename of each project
//
// A writer that throws answers {"error": printable(what)}: refusing an input is allowed, and
// the driver says which writer refused what.
#include <exception>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/strings.hpp"
#include "emit/easyconfig_writer.hpp"
#include "emit/module_writer.hpp"
#include "emit/templates.hpp"
#include "mirror/tree.hpp"

namespace {

using nlohmann::json;
using namespace wheelmod;

std::string unhex(const std::string& text) {
  const auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument("not hex");
  };
  if (text.size() % 2 != 0) throw std::invalid_argument("odd hex length");
  std::string out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2)
    out += static_cast<char>(digit(text[i]) * 16 + digit(text[i + 1]));
  return out;
}

std::string unhex(const json& value) { return unhex(value.get<std::string>()); }

std::string hex(std::string_view bytes) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += k_hex[byte >> 4];
    out += k_hex[byte & 0xf];
  }
  return out;
}

json hex_lines(const std::vector<std::string>& lines) {
  json out = json::array();
  for (const auto& line : lines) out.push_back(hex(line));
  return out;
}

json strings(const std::string& s) {
  return {{"python_string", hex(emit::python_string(s))},
          {"wrap_120", hex_lines(emit::wrap_string_item(s, 4))},
          {"wrap_24", hex_lines(emit::wrap_string_item(s, 4, ",", 24))},
          {"comment_0", hex_lines(emit::wrap_comment(s, 0))},
          {"comment_4", hex_lines(emit::wrap_comment(s, 4))},
          {"lua_string", hex(emit::lua_string(s))},
          {"lua_long_string", hex(emit::lua_long_string(s))},
          {"tcl_text", hex(emit::tcl_text(s))},
          {"tcl_quoted", hex(emit::tcl_quoted(s))},
          {"tcl_word", hex(emit::tcl_word(s))},
          {"terminal_text", hex(terminal_text(s))},
          {"printable", hex(printable(s))}};
}

emit::WheelFile wheel(std::string filename, const std::string& arch) {
  return {filename, "https://example.org/whl/" + arch + "/" + filename, std::string(64, 'a'),
          false};
}

// Variant "fields": every free-text field; "per_arch": an extension named `s` with a different
// wheel per architecture (its sources go to a local dict named after it); "one_arch": the one
// architecture `s`, with a platform wheel (a comment and a dict key name it).
json easyconfig(const std::string& variant, const std::string& s) {
  emit::Easyconfig ec;
  ec.name = "Probe";
  ec.version = "1.0";
  ec.toolchain = {"system", "system", "", ""};
  ec.homepage = "https://example.org/";
  ec.description = "A probe.";
  ec.moduleclass = "ai";
  ec.arches = {"aarch64", "x86_64"};
  if (variant == "fields") {
    ec.homepage = s;
    ec.description = s;
    ec.header = {s, "wheelmod probe " + s};
    ec.dependency_notes = {s};
    ec.postinstallcmds = {s};
    ec.sanity_check_commands = {s, "python -c 'import probe'"};
    ec.extensions.push_back({s, s, {}, std::nullopt, {}});
    ec.dummy_package = true;
  } else if (variant == "per_arch") {
    emit::Extension extension{s, "1.0", {}, std::nullopt, {}};
    for (const auto& arch : ec.arches)
      extension.files.emplace(arch,
                              wheel("probe-1.0-py3-none-manylinux_2_28_" + arch + ".whl", arch));
    ec.extensions.push_back(extension);
  } else if (variant == "one_arch") {
    ec.arches = {s};
    emit::Extension extension{"probe", "1.0", {}, std::nullopt, {}};
    extension.files.emplace(s, wheel("probe-1.0-py3-none-manylinux_2_28_x86_64.whl", "x86_64"));
    ec.extensions.push_back(extension);
  } else {
    throw std::invalid_argument("unknown easyconfig variant " + variant);
  }
  const emit::TemplateSet templates(WHEELMOD_TEMPLATES_DIR);
  return {{"text", hex(emit::render_easyconfig(ec, templates))}};
}

emit::EnvironmentPath environment_path(const json& entry) {
  emit::EnvironmentPath out{entry.at(0).get<std::string>(), {}};
  for (const auto& part : entry.at(1)) out.components.push_back(unhex(part));
  return out;
}

json module(const json& request) {
  emit::ModuleDescription d;
  d.identity = {request.at("name").get<std::string>(), "1.0", ""};
  d.version = unhex(request.at("version"));
  d.root = unhex(request.at("root"));
  d.description = unhex(request.at("description"));
  d.homepage = unhex(request.at("homepage"));
  d.generator = unhex(request.at("generator"));
  for (const auto& pair : request.at("extensions"))
    d.extensions.push_back({unhex(pair.at(0)), unhex(pair.at(1))});
  for (const auto& entry : request.at("paths")) d.paths.push_back(environment_path(entry));
  d.python_path = environment_path(request.at("python_path"));
  for (const auto& module : request.at("dependencies")) d.dependencies.push_back(unhex(module));
  const emit::TemplateSet templates(WHEELMOD_TEMPLATES_DIR);
  json out;
  for (const auto& [key, syntax] :
       {std::pair{"lua", emit::ModuleSyntax::lua}, std::pair{"tcl", emit::ModuleSyntax::tcl}}) {
    try {
      out[key] = hex(emit::render_module(d, syntax, templates));
    } catch (const std::exception& error) {
      out[std::string(key) + "_error"] = printable(error.what());
    }
  }
  return out;
}

json html(const json& request) {
  std::vector<mirror::PageFile> files;
  const auto optional = [](const json& value) -> std::optional<std::string> {
    if (value.is_null()) return std::nullopt;
    return unhex(value);
  };
  for (const auto& file : request.at("files"))
    files.push_back({unhex(file.at("filename")), unhex(file.at("href")), unhex(file.at("sha256")),
                     optional(file.at("metadata_sha256")), optional(file.at("requires_python"))});
  std::vector<std::string> projects;
  json encoded = json::array();
  for (const auto& project : request.at("projects")) {
    projects.push_back(unhex(project));
    encoded.push_back(hex(mirror::encode_filename(projects.back())));
  }
  return {{"project_page", hex(mirror::render_project_page(unhex(request.at("project")), files))},
          {"root_page", hex(mirror::render_root_page(projects))},
          {"encoded", encoded}};
}

json answer(const json& request) {
  const auto op = request.at("op").get<std::string>();
  if (op == "strings") return strings(unhex(request.at("s")));
  if (op == "easyconfig")
    return easyconfig(request.at("variant").get<std::string>(), unhex(request.at("s")));
  if (op == "module") return module(request);
  if (op == "html") return html(request);
  throw std::invalid_argument("unknown op " + op);
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    json out;
    try {
      out = answer(json::parse(line));
    } catch (const std::exception& error) {
      out = {{"error", printable(error.what())}};
    }
    std::cout << out.dump() << std::endl;  // answered at once: the driver keeps one probe open
  }
  return 0;
}
