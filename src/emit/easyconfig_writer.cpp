#include "emit/easyconfig_writer.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/strings.hpp"

namespace wheelmod::emit {

namespace {

char quote_for(std::string_view text) {
  const bool single = text.find('\'') != std::string_view::npos;
  const bool dbl = text.find('"') != std::string_view::npos;
  return single && !dbl ? '"' : '\'';
}

std::string quoted(std::string_view text, char quote) {
  std::string out(1, quote);
  constexpr std::string_view k_hex = "0123456789abcdef";
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      // Python source is UTF-8: a valid character is kept; a byte that is none is written as
      // the lone surrogate \udcXX, which Python's surrogateescape turns back into that byte
      // (PEP 383), so that the file stays readable and the value keeps what was there.
      const auto length = utf8_length(text.substr(at));
      if (length == 0) {
        out += "\\udc";
        out += k_hex[byte >> 4];
        out += k_hex[byte & 0xf];
      } else {
        out += text.substr(at, length);
        at += length - 1;
      }
    } else if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

std::string spaces(std::size_t count) { return std::string(count, ' '); }

}  // namespace

std::string python_string(std::string_view text) { return quoted(text, quote_for(text)); }

std::vector<std::string> wrap_string_item(std::string_view text, std::size_t indent,
                                          std::string_view trailer, std::size_t width) {
  const char quote = quote_for(text);
  const auto line_of = [&](std::string_view piece, std::string_view end) {
    return spaces(indent) + quoted(piece, quote) + std::string(end);
  };
  if (line_of(text, trailer).size() <= width) return {line_of(text, trailer)};
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto rest = text.substr(start);
    if (line_of(rest, trailer).size() <= width) {
      lines.push_back(line_of(rest, trailer));
      break;
    }
    // The longest piece that fits, ending after a space or '/' if possible; never all of the
    // rest (its last line carries the trailer, which did not fit with it), never inside a UTF-8
    // character (each line must stay UTF-8 on its own).
    std::vector<bool> starts(rest.size() + 1, false);  // where a character (or a lone byte)
    for (std::size_t at = 0; at < rest.size();) {      // that is no UTF-8) begins
      starts[at] = true;
      at += std::max<std::size_t>(1, utf8_length(rest.substr(at)));
    }
    starts[rest.size()] = true;
    const auto boundary = [&](std::size_t at) { return at >= rest.size() || starts[at]; };
    std::size_t fit = 1;
    while (fit + 1 < rest.size() && line_of(rest.substr(0, fit + 1), "").size() <= width) ++fit;
    while (fit > 1 && !boundary(fit)) --fit;
    while (!boundary(fit)) ++fit;  // one character wider than the width: still whole
    std::size_t cut = fit;
    for (std::size_t i = fit; i > 0; --i) {
      if (rest[i - 1] == ' ' || rest[i - 1] == '/') {
        cut = i;
        break;
      }
    }
    if (cut >= rest.size()) {  // a single character left: it carries the trailer
      lines.push_back(line_of(rest, trailer));
      break;
    }
    lines.push_back(line_of(rest.substr(0, cut), ""));
    start += cut;
  }
  return lines;
}

std::vector<std::string> wrap_comment(std::string_view raw, std::size_t indent, std::size_t width) {
  // Total over any input: a line break, NUL or other control byte in the text (an option, a
  // requirement from a wheel's METADATA) would end the comment and start Python, or make the
  // file unreadable to EasyBuild; they and bytes outside ASCII are written escaped.
  const std::string escaped = printable(raw);
  const std::string_view text = escaped;
  const std::string prefix = spaces(indent) + "# ";
  std::vector<std::string> lines;
  std::string line = prefix;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const auto word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (line.size() > prefix.size() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line = prefix;
    }
    line += (line.size() > prefix.size() ? " " : "") + std::string(word);
  }
  if (line.size() > prefix.size() || lines.empty()) lines.push_back(line);
  // EasyBuild takes a line that is exactly `# EASYCONFIGFORMAT 2.0` (at column 0) for the file's
  // format (framework easyconfig/format/format.py, FORMAT_VERSION_REGEXP
  // `^#\s+EASYCONFIGFORMAT\s*\d+\.\d+\s*$`) and then fails to parse a 1.0 file: such a line
  // gets a second '#', which that pattern does not match.
  for (auto& written : lines) {
    std::string_view rest(written);
    if (!rest.starts_with("# ")) continue;
    rest.remove_prefix(2);
    if (!rest.starts_with("EASYCONFIGFORMAT")) continue;
    rest.remove_prefix(16);
    while (rest.starts_with(' ')) rest.remove_prefix(1);
    const auto dot = rest.find('.');
    const auto digits = [](std::string_view part) {
      return !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (dot != std::string_view::npos && digits(rest.substr(0, dot)) &&
        digits(rest.substr(dot + 1)))
      written.insert(0, "#");
  }
  return lines;
}

std::vector<std::string> render_string_list(std::string_view key,
                                            const std::vector<std::string>& items,
                                            std::size_t indent, std::string_view closing,
                                            std::size_t width) {
  std::string one = spaces(indent) + std::string(key) + "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    one += (i == 0 ? "" : ", ") + python_string(items[i]);
  one += "]" + std::string(closing);
  if (one.size() <= width) return {one};
  std::vector<std::string> lines{spaces(indent) + std::string(key) + "["};
  for (const auto& item : items)
    for (auto& line : wrap_string_item(item, indent + 4, ",", width)) lines.push_back(line);
  lines.push_back(spaces(indent) + "]" + std::string(closing));
  return lines;
}

std::expected<ModuleParts, std::string> parse_module_name(std::string_view module,
                                                          const easybuild::Generation& generation) {
  const auto slash = module.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == module.size() ||
      module.find('/', slash + 1) != std::string_view::npos)
    return std::unexpected("'" + std::string(module) + "' is not <name>/<version>");
  ModuleParts parts;
  parts.name = std::string(module.substr(0, slash));
  const auto full = module.substr(slash + 1);
  // The earliest `-<toolchain>` of the generation marks the end of the
  // version (versions hold no '-' in these tables; suffixes may).
  // The ROCm modules' toolchains (rocm-compilers-19.0.0-ROCm-6.4.1) are no --toolchain value but
  // end a version all the same.
  std::size_t best = std::string_view::npos;
  for (const auto* toolchains : {&generation.toolchains, &generation.rocm_toolchains}) {
    for (const auto& [key, toolchain] : *toolchains) {
      const std::string marker = "-" + key;
      for (auto at = full.find(marker); at != std::string_view::npos;
           at = full.find(marker, at + 1)) {
        const auto after = at + marker.size();
        if (after != full.size() && full[after] != '-') continue;  // GCC-13.3.0 vs GCC-13.3.01
        if (best == std::string_view::npos || at < best ||
            (at == best && key.size() > parts.toolchain->size())) {
          best = at;
          parts.toolchain = key;
        }
        break;
      }
    }
  }
  if (best != std::string_view::npos) {
    parts.version = std::string(full.substr(0, best));
    parts.versionsuffix = std::string(full.substr(best + 1 + parts.toolchain->size()));
    return parts;
  }
  const auto dash = full.find('-');
  parts.version = std::string(full.substr(0, dash));
  if (dash != std::string_view::npos) parts.versionsuffix = std::string(full.substr(dash));
  return parts;
}

bool is_subtoolchain(std::string_view dependency, std::string_view target) {
  if (dependency == target) return true;
  // Each toolchain with the toolchains it is built on (EasyBuild framework
  // toolchains/: foss = gompi + gfbf, gompi = GCC + OpenMPI, gfbf = GCC +
  // FlexiBLAS + FFTW, GCC = GCCcore + binutils).
  static const std::map<std::string_view, std::set<std::string_view>> k_below = {
      {"GCC", {"GCCcore"}},
      {"gfbf", {"GCC", "GCCcore"}},
      {"gompi", {"GCC", "GCCcore"}},
      {"foss", {"gompi", "gfbf", "GCC", "GCCcore"}},
  };
  const auto it = k_below.find(target);
  return it != k_below.end() && it->second.contains(dependency);
}

std::string dependency_tuple(const DependencySpec& dependency) {
  std::string out = "(" + python_string(dependency.name) + ", ";
  if (dependency.own_version_and_suffix) return out + "version, versionsuffix)";
  out += python_string(dependency.version);
  if (dependency.toolchain == DependencyToolchain::system)
    return out + ", " + python_string(dependency.versionsuffix) + ", SYSTEM)";
  if (dependency.toolchain == DependencyToolchain::named)
    return out + ", " + python_string(dependency.versionsuffix) + ", (" +
           python_string(dependency.toolchain_name) + ", " +
           python_string(dependency.toolchain_version) + "))";
  if (!dependency.versionsuffix.empty()) out += ", " + python_string(dependency.versionsuffix);
  return out + ")";
}

std::expected<DependencySpec, std::string> dependency_from_module(
    std::string_view module, const easybuild::Generation& generation,
    const easybuild::Toolchain& target, std::string_view cuda_version) {
  const auto parts = parse_module_name(module, generation);
  if (!parts) return std::unexpected(parts.error());
  DependencySpec dependency{parts->name, parts->version, parts->versionsuffix,
                            DependencyToolchain::inherited, false};
  if (!parts->toolchain) {
    dependency.toolchain = DependencyToolchain::system;
  } else if (const auto rocm = generation.rocm_toolchains.find(*parts->toolchain);
             rocm != generation.rocm_toolchains.end() &&
             !generation.toolchains.contains(*parts->toolchain)) {
    // Built with a ROCm toolchain, which is below none of the generation's: EasyBuild finds it
    // only when the tuple names it.
    dependency.toolchain = DependencyToolchain::named;
    dependency.toolchain_name = rocm->second.name;
    dependency.toolchain_version = rocm->second.version;
  } else {
    const auto& toolchain = generation.toolchains.at(*parts->toolchain);
    if (!is_subtoolchain(toolchain.name, target.name))
      return std::unexpected(std::string(module) + " is built with " + *parts->toolchain +
                             ", which is not " + target.name + "-" + target.version +
                             " or one of its subtoolchains");
  }
  if (!cuda_version.empty()) {
    const std::string literal = "-CUDA-" + std::string(cuda_version);
    if (const auto at = dependency.versionsuffix.find(literal); at != std::string::npos)
      dependency.versionsuffix.replace(at, literal.size(), "-CUDA-%(cudaver)s");
  }
  return dependency;
}

std::string easyconfig_file_name(const Easyconfig& easyconfig) {
  std::string suffix = easyconfig.versionsuffix;
  if (easyconfig.cuda_version) {
    constexpr std::string_view k_template = "%(cudaver)s";
    for (auto at = suffix.find(k_template); at != std::string::npos; at = suffix.find(k_template))
      suffix.replace(at, k_template.size(), *easyconfig.cuda_version);
  }
  std::string out = easyconfig.name + "-" + easyconfig.version;
  if (easyconfig.toolchain.name != "system")
    out += "-" + easyconfig.toolchain.name + "-" + easyconfig.toolchain.version;
  return out + suffix + ".eb";
}

}  // namespace wheelmod::emit
