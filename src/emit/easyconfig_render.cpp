// Easyconfig model -> template context: the parameter values as finished
// Python lines (extensions with their per-architecture sources and
// checksums, dependencies, commands), laid out the way easyconfigs in
// easybuild-easyconfigs are (4-space indents, one item per line, 120
// columns).
#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "core/strings.hpp"
#include "emit/easyconfig_writer.hpp"

namespace wheelmod::emit {

namespace {

using Lines = std::vector<std::string>;

void append(Lines& to, const Lines& lines) { to.insert(to.end(), lines.begin(), lines.end()); }

// The URL without fragment or query, split at its last '/': the directory
// goes to source_urls, the (percent-encoded) file name is what EasyBuild
// downloads.
std::pair<std::string, std::string> split_url(std::string_view url) {
  url = url.substr(0, url.find_first_of("#?"));
  const auto slash = url.rfind('/');
  if (slash == std::string_view::npos) return {"", std::string(url)};
  return {std::string(url.substr(0, slash)), std::string(url.substr(slash + 1))};
}

// A `sources` entry: the file name, or a dict when the download name
// differs (download.pytorch.org spells '+' as %2B; the file keeps '+' so
// that pip reads the local version label from it).
Lines source_value(const WheelFile& file, std::size_t indent, std::string_view key,
                   std::string_view closing) {
  const auto download = split_url(file.url).second;
  if (download == file.filename)
    return {std::string(indent, ' ') + std::string(key) + python_string(file.filename) +
            std::string(closing)};
  return {std::string(indent, ' ') + std::string(key) + "{",
          std::string(indent + 4, ' ') + "'filename': " + python_string(file.filename) + ",",
          std::string(indent + 4, ' ') + "'download_filename': " + python_string(download) + ",",
          std::string(indent, ' ') + "}" + std::string(closing)};
}

std::string extension_head(const Extension& extension, std::size_t indent) {
  return std::string(indent, ' ') + "(" + python_string(extension.name) + ", " +
         python_string(extension.version) + ", {";
}

void append_modulename(Lines& lines, const Extension& extension, std::size_t indent) {
  if (extension.modulename)
    lines.push_back(std::string(indent, ' ') + "'modulename': " + *extension.modulename + ",");
  if (!extension.skipsteps.empty()) {
    std::string list;
    for (const auto& step : extension.skipsteps)
      list += (list.empty() ? "" : ", ") + python_string(step);
    lines.push_back(std::string(indent, ' ') + "'skipsteps': [" + list + "],");
  }
}

// One file on every architecture (or the entry of one architecture).
Lines single_file_entry(const Extension& extension, const WheelFile& file, std::size_t indent) {
  Lines lines{extension_head(extension, indent)};
  if (!file.on_pypi)
    append(lines,
           render_string_list("'source_urls': ", {split_url(file.url).first}, indent + 4, ","));
  const auto source = source_value(file, indent + 4, "", "");
  if (source.size() == 1) {
    lines.push_back(std::string(indent + 4, ' ') + "'sources': [" +
                    source.front().substr(indent + 4) + "],");
  } else {
    lines.push_back(std::string(indent + 4, ' ') + "'sources': [{");
    for (std::size_t i = 1; i + 1 < source.size(); ++i) lines.push_back(source[i]);
    lines.push_back(std::string(indent + 4, ' ') + "}],");
  }
  lines.push_back(std::string(indent + 4, ' ') + "'checksums': [" + python_string(file.sha256) +
                  "],");
  append_modulename(lines, extension, indent + 4);
  lines.push_back(std::string(indent, ' ') + "}),");
  return lines;
}

// A Python identifier from a name or version: what is not a letter, digit or '_' becomes '_'
// (project names are normalised long before; the writer stays total all the same).
std::string identifier_part(std::string_view text) {
  std::string out;
  for (const char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) != 0 && static_cast<unsigned char>(c) < 0x80
               ? c
               : '_';
  return out;
}

std::string local_name(const Extension& extension, std::set<std::string>& taken) {
  const std::string base = "local_" + identifier_part(extension.name);
  std::string name = base + "_sources";
  if (!taken.insert(name).second) {
    const std::string version = identifier_part(extension.version);
    name = base + "_" + version + "_sources";
    taken.insert(name);
  }
  return name;
}

// Different files per architecture: `sources` picks one from a local dict
// by ARCH, `checksums` is one dict keyed by file name that covers all of
// them (framework: checksums may be dicts keyed by file name).
Lines per_arch_entry(const Extension& extension, const std::string& local, Lines& locals) {
  locals.push_back(local + " = {");
  std::set<std::string> urls;
  std::map<std::string, std::string> checksums;
  for (const auto& [arch, file] : extension.files) {
    append(locals, source_value(file, 4, python_string(arch) + ": ", ","));
    urls.insert(split_url(file.url).first);
    checksums.emplace(file.filename, file.sha256);
  }
  locals.push_back("}");
  locals.push_back("");
  Lines lines{extension_head(extension, 4)};
  const bool all_on_pypi =
      std::ranges::all_of(extension.files, [](const auto& entry) { return entry.second.on_pypi; });
  if (!all_on_pypi)
    append(lines, render_string_list("'source_urls': ", {urls.begin(), urls.end()}, 8, ","));
  lines.push_back("        'sources': [" + local + "[ARCH]],");
  lines.push_back("        'checksums': [{");
  for (const auto& [filename, sha256] : checksums) {
    lines.push_back("            " + python_string(filename) + ":");
    lines.push_back("                " + python_string(sha256) + ",");
  }
  lines.push_back("        }],");
  append_modulename(lines, extension, 8);
  lines.push_back("    }),");
  return lines;
}

bool same_file_everywhere(const Extension& extension) {
  const auto& first = extension.files.begin()->second;
  return std::all_of(extension.files.begin(), extension.files.end(), [&](const auto& entry) {
    return entry.second.filename == first.filename && entry.second.sha256 == first.sha256 &&
           entry.second.url == first.url;
  });
}

struct ExtensionLines {
  Lines locals;  // local_*_sources dicts, then local_arch_exts
  Lines items;
  bool per_arch = false;
};

ExtensionLines extension_lines(const Easyconfig& easyconfig) {
  ExtensionLines out;
  std::set<std::string> taken;
  std::map<std::string, Lines> arch_items;
  for (const auto& extension : easyconfig.extensions) {
    if (extension.files.empty()) {  // a dummy package: nothing to download
      out.items.push_back("    (" + python_string(extension.name) + ", " +
                          python_string(extension.version) + "),");
      continue;
    }
    const bool everywhere =
        std::all_of(easyconfig.arches.begin(), easyconfig.arches.end(),
                    [&](const std::string& arch) { return extension.files.contains(arch); });
    if (!everywhere) {
      for (const auto& [arch, file] : extension.files)
        append(arch_items[arch], single_file_entry(extension, file, 8));
    } else if (same_file_everywhere(extension)) {
      append(out.items, single_file_entry(extension, extension.files.begin()->second, 4));
    } else {
      append(out.items, per_arch_entry(extension, local_name(extension, taken), out.locals));
    }
  }
  if (!arch_items.empty()) {
    out.per_arch = true;
    out.locals.push_back("# extensions that only some architectures' wheels require");
    out.locals.push_back("local_arch_exts = {");
    for (const auto& arch : easyconfig.arches) {
      const auto it = arch_items.find(arch);
      if (it == arch_items.end()) {
        out.locals.push_back("    " + python_string(arch) + ": [],");
        continue;
      }
      out.locals.push_back("    " + python_string(arch) + ": [");
      append(out.locals, it->second);
      out.locals.push_back("    ],");
    }
    out.locals.push_back("}");
    out.locals.push_back("");
  }
  if (!out.locals.empty() && out.locals.back().empty()) out.locals.pop_back();
  return out;
}

Lines dependency_items(const std::vector<DependencySpec>& dependencies, std::size_t indent) {
  Lines lines;
  for (const auto& dependency : dependencies)
    lines.push_back(std::string(indent, ' ') + dependency_tuple(dependency) + ",");
  return lines;
}

Lines arch_dependency_block(const Easyconfig& easyconfig) {
  Lines lines{"# dependencies that only some architectures' wheels require",
              "local_arch_dependencies = {"};
  for (const auto& arch : easyconfig.arches) {
    const auto it = easyconfig.arch_dependencies.find(arch);
    if (it == easyconfig.arch_dependencies.end() || it->second.empty()) {
      lines.push_back("    " + python_string(arch) + ": [],");
      continue;
    }
    lines.push_back("    " + python_string(arch) + ": [");
    append(lines, dependency_items(it->second, 8));
    lines.push_back("    ],");
  }
  lines.push_back("}");
  return lines;
}

// `description = """...` wrapped between words at 120 columns, its own
// line breaks kept.
// Free text (a wheel's Summary, its homepage) as EasyBuild's templating gives it back: EasyBuild
// doubles every '%' that does not start a template and then formats the value with its templates
// (framework easyconfig/easyconfig.py resolve_template: an odd run of '%' before `(name)s` is a
// template, an even one is text). So a run of '%' before `(name)s` is doubled: `%(version)s` in
// a Summary stays that text instead of becoming the version, or an error for an unknown name.
std::string easybuild_text(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] != '%') {
      out += text[at++];
      continue;
    }
    std::size_t run = at;
    while (run < text.size() && text[run] == '%') ++run;
    bool template_follows = run < text.size() && text[run] == '(';
    if (template_follows) {
      std::size_t name = run + 1;
      while (name < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[name])) != 0 || text[name] == '_'))
        ++name;
      template_follows =
          name > run + 1 && name + 1 < text.size() && text[name] == ')' && text[name + 1] == 's';
    }
    out.append((run - at) * (template_follows ? 2 : 1), '%');
    at = run;
  }
  return out;
}

std::string description_literal(std::string_view raw) {
  const std::string escaped = easybuild_text(raw);
  const std::string_view text = escaped;
  // Triple quotes as EasyBuild writes descriptions, for text that is plain in them: no quote or
  // backslash, no control character but the line break (a CR would be read back as LF, a NUL
  // stops Python), valid UTF-8, and no line EasyBuild would take for its format marker. Else one
  // escaped literal.
  const bool plain_in_triple_quotes =
      text.find_first_of("\"\\") == std::string_view::npos &&
      std::ranges::none_of(text,
                           [](char c) {
                             const auto byte = static_cast<unsigned char>(c);
                             return (byte < 0x20 && c != '\n') || byte == 0x7f;
                           }) &&
      text.find("EASYCONFIGFORMAT") == std::string_view::npos && [&] {
        for (std::size_t at = 0; at < text.size();) {
          const auto length = utf8_length(text.substr(at));
          if (length == 0) return false;
          at += length;
        }
        return true;
      }();
  if (!plain_in_triple_quotes) return python_string(text);
  constexpr std::size_t k_prefix = std::string_view("description = \"\"\"").size();
  std::string out = "\"\"\"";
  std::size_t column = k_prefix;
  std::size_t start = 0;
  bool first_word = true;
  while (start <= text.size()) {
    const auto end = std::min(text.find_first_of(" \n", start), text.size());
    const auto word = text.substr(start, end - start);
    const bool last = end == text.size();
    const std::size_t room = last ? 3 : 0;  // the closing quotes
    if (!first_word && column + 1 + word.size() + room > k_easyconfig_width) {
      out += '\n';
      column = 0;
    } else if (!first_word) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first_word = false;
    if (last) break;
    if (text[end] == '\n') {
      out += '\n';
      column = 0;
      first_word = true;
    }
    start = end + 1;
  }
  return out + "\"\"\"";
}

nlohmann::json block(Lines lines) { return nlohmann::json{{"lines", std::move(lines)}}; }

}  // namespace

nlohmann::json easyconfig_context(const Easyconfig& easyconfig) {
  using nlohmann::json;
  Lines header;
  for (const auto& line : easyconfig.header) append(header, wrap_comment(line, 0));
  json context{
      {"header", header},
      {"easyblock", python_string("PythonBundle")},
      {"name", python_string(easyconfig.name)},
      {"version", python_string(easyconfig.version)},
      {"versionsuffix", nullptr},
      {"homepage", python_string(easybuild_text(easyconfig.homepage))},
      {"description", description_literal(easyconfig.description)},
      {"toolchain", easyconfig.toolchain.name == "system"
                        ? std::string("SYSTEM")
                        : "{'name': " + python_string(easyconfig.toolchain.name) +
                              ", 'version': " + python_string(easyconfig.toolchain.version) + "}"},
      {"builddependencies", nullptr},
      {"arch_dependencies", nullptr},
      {"dependencies", nullptr},
      {"dependencies_tail", ""},
      {"dummy_package", easyconfig.dummy_package},
      {"exts_locals", nullptr},
      {"exts_tail", ""},
      {"postinstallcmds", nullptr},
      {"sanity_check_commands", nullptr},
      {"moduleclass", python_string(easyconfig.moduleclass)}};
  if (!easyconfig.versionsuffix.empty())
    context["versionsuffix"] = python_string(easyconfig.versionsuffix);
  if (!easyconfig.builddependencies.empty())
    context["builddependencies"] = block(dependency_items(easyconfig.builddependencies, 4));
  Lines dependencies = dependency_items(easyconfig.dependencies, 4);
  for (const auto& note : easyconfig.dependency_notes) append(dependencies, wrap_comment(note, 4));
  if (!dependencies.empty()) context["dependencies"] = block(std::move(dependencies));
  if (!easyconfig.arch_dependencies.empty()) {
    context["arch_dependencies"] = block(arch_dependency_block(easyconfig));
    context["dependencies_tail"] = " + local_arch_dependencies[ARCH]";
    if (context["dependencies"].is_null()) context["dependencies"] = block({});
  }
  auto extensions = extension_lines(easyconfig);
  // A file for one architecture whose wheels are built for it: on any other, `eb` stops while
  // parsing (KeyError, as easybuild-easyconfigs' binary installs do with local_archs[ARCH])
  // instead of fetching wheels that `pip install` refuses on the node.
  const bool platform_wheels = std::ranges::any_of(easyconfig.extensions, [](const auto& e) {
    return std::ranges::any_of(
        e.files, [](const auto& entry) { return !entry.second.filename.ends_with("-any.whl"); });
  });
  if (easyconfig.arches.size() == 1 && platform_wheels) {
    const auto arch = python_string(easyconfig.arches.front());
    extensions.locals.insert(extensions.locals.begin(),
                             {"# wheelmod: wheels for " + printable(easyconfig.arches.front()) +
                                  " only; on another architecture eb stops here",
                              "local_wheel_arch = {" + arch + ": " + arch + "}[ARCH]", ""});
  }
  if (!extensions.locals.empty()) context["exts_locals"] = block(std::move(extensions.locals));
  if (extensions.per_arch) context["exts_tail"] = " + local_arch_exts[ARCH]";
  context["exts_list"] = block(std::move(extensions.items));
  const auto commands = [](const std::vector<std::string>& items) {
    Lines lines;
    for (const auto& item : items) append(lines, wrap_string_item(item, 4));
    return lines;
  };
  if (!easyconfig.postinstallcmds.empty())
    context["postinstallcmds"] = block(commands(easyconfig.postinstallcmds));
  if (!easyconfig.sanity_check_commands.empty())
    context["sanity_check_commands"] = block(commands(easyconfig.sanity_check_commands));
  return context;
}

std::string render_easyconfig(const Easyconfig& easyconfig, const TemplateSet& templates) {
  const auto text = templates.render(k_easyconfig_template, easyconfig_context(easyconfig));
  // A section that is off leaves its line break behind (kainjow drops
  // standalone tag lines only of sections it renders): runs of blank lines
  // become one, and the file starts with text and ends with one '\n'.
  std::string out;
  std::size_t blank_run = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    const auto line = std::string_view(text).substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      ++blank_run;
      continue;
    }
    if (blank_run > 0 && !out.empty()) out += '\n';
    blank_run = 0;
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace wheelmod::emit
