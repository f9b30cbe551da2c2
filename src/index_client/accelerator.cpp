#include "index_client/accelerator.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/strings.hpp"
#include "pep/version.hpp"

namespace wheelmod::index_client {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// A dotted version of 1 to 3 numeric parts ("12", "12.6", "6.2.4").
bool is_dotted_version(std::string_view text) {
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    const auto dot = text.find('.', start);
    const auto part = text.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!all_digits(part)) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts <= 3;
}

std::vector<unsigned> numbers(std::string_view dotted) {
  std::vector<unsigned> out;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const auto part = dotted.substr(start, dot == std::string_view::npos ? dot : dot - start);
    unsigned value = 0;
    for (const char c : part) value = value * 10 + static_cast<unsigned>(c - '0');
    out.push_back(value);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

// ROCm variant directories download.pytorch.org has served (uv's
// TorchBackend list, crates/uv-torch/src/backend.rs), newest first.
constexpr std::array<std::string_view, 20> k_rocm_variants = {
    "rocm7.2", "rocm7.1", "rocm7.0",   "rocm6.4", "rocm6.3", "rocm6.2.4", "rocm6.2",
    "rocm6.1", "rocm6.0", "rocm5.7",   "rocm5.6", "rocm5.5", "rocm5.4.2", "rocm5.4",
    "rocm5.3", "rocm5.2", "rocm5.1.1", "rocm4.2", "rocm4.1", "rocm4.0.1"};

}  // namespace

std::string_view kind_text(AcceleratorKind kind) {
  switch (kind) {
    case AcceleratorKind::cpu:
      return "cpu";
    case AcceleratorKind::cuda:
      return "cuda";
    case AcceleratorKind::rocm:
      return "rocm";
  }
  return "cpu";
}

pep::Parsed<Accelerator> Accelerator::parse(std::string_view text) {
  const auto value = ascii_lower(text);
  const auto fail = [&](std::string message) {
    return std::unexpected(pep::ParseError{std::string(text), std::move(message)});
  };
  Accelerator result;
  if (value == "cpu") return result;
  for (const auto kind : {AcceleratorKind::cuda, AcceleratorKind::rocm}) {
    const auto name = std::string(kind_text(kind));
    if (value == name) {
      result.kind = kind;
      return result;
    }
    if (value.starts_with(name + ":")) {
      const auto version = std::string_view(value).substr(name.size() + 1);
      if (!is_dotted_version(version))
        return fail("'" + std::string(version) + "' is not a version such as 12.6 or 6.2.4");
      result.kind = kind;
      result.version = std::string(version);
      return result;
    }
  }
  // cuXYZ: the index runs major and minor together (cu118, cu126, cu130). Two digits cannot be
  // read without guessing: cu13 is CUDA 13 to a user and CUDA 1.3 to that rule.
  if (value.starts_with("cu") && value.size() == 4 && all_digits(value.substr(2)))
    return fail("'" + value +
                "' names no variant directory: they run major and minor together (cu126, "
                "cu130); for the newest variant of CUDA " +
                std::to_string(std::stoi(value.substr(2))) +
                " write cuda:" + std::to_string(std::stoi(value.substr(2))) +
                ". Accepted: cpu, cuda, cuda:X (a major), cuda:X.Y, cuXYZ, rocm, rocm:X.Y or "
                "rocmX.Y[.Z]");
  if (value.starts_with("cu") && value.size() >= 5 && all_digits(value.substr(2))) {
    result.kind = AcceleratorKind::cuda;
    result.variant = value;
    result.version = *cuda_version_of_variant(value);
    return result;
  }
  if (value.starts_with("rocm") && is_dotted_version(std::string_view(value).substr(4))) {
    result.kind = AcceleratorKind::rocm;
    result.variant = value;
    result.version = value.substr(4);
    return result;
  }
  if (value == "xpu")
    return fail(
        "Intel XPU wheels are not supported: their intel-* runtime requirements have no "
        "EasyBuild modules to map to, and their libraries are not relinked");
  if (classify_directory(value) == DirectoryKind::legacy_variant)
    return fail(
        "a legacy directory of download.pytorch.org, no longer updated (pytorch/test-infra "
        "manage_v2.py NOT_ACCEPTED_SUBDIR_PATTERNS)");
  return fail(
      "expected cpu, cuda, cuda:X (a major), cuda:X.Y, cuXYZ (an index variant such as cu126), "
      "rocm, rocm:X.Y or rocmX.Y[.Z]");
}

std::string Accelerator::str() const {
  if (variant) return *variant;
  std::string out(kind_text(kind));
  if (version) out += " " + *version;
  return out;
}

std::optional<std::string> cuda_variant_name(std::string_view cuda_version) {
  if (!is_dotted_version(cuda_version)) return std::nullopt;
  const auto parts = numbers(cuda_version);
  if (parts.size() < 2) return std::nullopt;
  // The index spells major and minor run together: 12.6 -> cu126, 11.8 -> cu118.
  return "cu" + std::to_string(parts[0]) + std::to_string(parts[1]);
}

std::optional<std::string> cuda_version_of_variant(std::string_view variant) {
  if (!variant.starts_with("cu") || !all_digits(variant.substr(2)) || variant.size() < 4)
    return std::nullopt;
  // The minor is the last digit: every CUDA minor so far is below 10
  // (cu80 = 8.0, cu92 = 9.2, cu118 = 11.8, cu126 = 12.6, cu130 = 13.0).
  const auto digits = variant.substr(2);
  return std::string(digits.substr(0, digits.size() - 1)) + "." +
         std::string(digits.substr(digits.size() - 1));
}

namespace {

// `candidate` (6.2.4) cut to as many parts as `wanted` has (6.2), compared with it.
std::strong_ordering compare_at_precision(std::string_view candidate, std::string_view wanted) {
  auto parts = numbers(candidate);
  const auto wanted_parts = numbers(wanted);
  parts.resize(std::min(parts.size(), wanted_parts.size()));
  return parts <=> wanted_parts;
}

std::vector<std::string> rocm_candidates(std::string_view version,
                                         const std::set<std::string>* listed) {
  std::vector<std::string> known;
  if (listed != nullptr) {
    for (const auto& name : *listed)
      if (name.starts_with("rocm") && is_dotted_version(std::string_view(name).substr(4)))
        known.push_back(name);
  } else {
    known.assign(k_rocm_variants.begin(), k_rocm_variants.end());
  }
  const auto wanted = numbers(version);
  // Same major; the series asked for first (rocm6.2.4 before rocm6.2), then older ones; each
  // group newest first.
  std::vector<std::pair<bool, std::string>> keyed;
  for (const auto& name : known) {
    const auto candidate = std::string_view(name).substr(4);
    if (numbers(candidate)[0] != wanted[0]) continue;
    const auto order = compare_at_precision(candidate, version);
    if (order == std::strong_ordering::greater) continue;
    keyed.emplace_back(order == std::strong_ordering::equal, name);
  }
  std::ranges::sort(keyed, [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first;
    const auto va = pep::Version::parse(std::string_view(a.second).substr(4));
    const auto vb = pep::Version::parse(std::string_view(b.second).substr(4));
    return va && vb ? *va > *vb : a.second > b.second;
  });
  std::vector<std::string> out;
  for (auto& [unused, name] : keyed) out.push_back(std::move(name));
  // A version no list knows yet is still tried first, unless the index's own list says no.
  const auto exact = "rocm" + std::string(version);
  if (listed == nullptr && std::ranges::find(out, exact) == out.end())
    out.insert(out.begin(), exact);
  return out;
}

bool all_of_chars(std::string_view text, std::string_view allowed_extra) {
  return !text.empty() && std::ranges::all_of(text, [&](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 ||
           allowed_extra.find(c) != std::string_view::npos;
  });
}

}  // namespace

std::vector<std::string> variant_candidates(AcceleratorKind kind, std::string_view version,
                                            const std::set<std::string>* listed) {
  const auto keep_listed = [&](std::vector<std::string> names) {
    if (listed == nullptr) return names;
    std::erase_if(names, [&](const std::string& name) { return !listed->contains(name); });
    return names;
  };
  if (kind == AcceleratorKind::cpu) return {"cpu"};
  const auto wanted = numbers(version);
  if (kind == AcceleratorKind::cuda) {
    std::vector<std::string> out;
    if (wanted.empty()) return out;
    // A major alone (cuda:13): every minor of it, newest first (the index has used 0 to 9).
    const unsigned newest = wanted.size() >= 2 ? wanted[1] : 9;
    for (unsigned minor = newest + 1; minor-- > 0;)
      out.push_back("cu" + std::to_string(wanted[0]) + std::to_string(minor));
    return keep_listed(std::move(out));
  }
  return rocm_candidates(version, listed);
}

DirectoryKind classify_directory(std::string_view name) {
  if (name == "cpu" || name == "xpu") return DirectoryKind::variant;
  if (name.starts_with("cu") && all_digits(name.substr(2))) return DirectoryKind::variant;
  if (name.starts_with("rocm") && all_of_chars(name.substr(4), ".") &&
      is_dotted_version(name.substr(4)))
    return DirectoryKind::variant;
  if (name == "cpu-cxx11-abi" || name == "cpu_pypi_pkg") return DirectoryKind::legacy_variant;
  if (name.starts_with("cu")) {
    const auto underscore = name.find('_');
    const auto rest = underscore == std::string_view::npos ? "" : name.substr(underscore);
    if (all_digits(name.substr(2, underscore - 2)) && (rest == "_full" || rest == "_pypi_cudnn"))
      return DirectoryKind::legacy_variant;
  }
  return DirectoryKind::other;
}

std::optional<std::string> minimum_driver(std::string_view variant) {
  const auto cuda = cuda_version_of_variant(variant);
  if (!cuda) return std::nullopt;
  const auto major = numbers(*cuda)[0];
  if (major == 13) return "580";
  if (major == 12) return "525.60.13";
  if (major == 11) return "450.80.02";
  return std::nullopt;
}

std::optional<std::string> parse_nvidia_driver_version(std::string_view proc_text) {
  const auto line = proc_text.substr(0, proc_text.find('\n'));
  const auto module = line.find("Module");
  if (module == std::string_view::npos) return std::nullopt;
  auto rest = line.substr(module + 6);
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(rest[i])) == 0) continue;
    std::size_t end = i;
    while (end < rest.size() &&
           (std::isdigit(static_cast<unsigned char>(rest[end])) != 0 || rest[end] == '.'))
      ++end;
    const auto token = rest.substr(i, end - i);
    if (token.find('.') != std::string_view::npos && is_dotted_version(token))
      return std::string(token);
    i = end;
  }
  return std::nullopt;
}

}  // namespace wheelmod::index_client
