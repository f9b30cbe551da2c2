#include "index_client/accelerator.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "pep/version.hpp"

namespace wheelmod::index_client {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

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
  const auto value = lower(text);
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
  if (value.starts_with("cu") && value.size() >= 4 && all_digits(value.substr(2))) {
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
  return fail(
      "expected cpu, cuda, cuda:X.Y, cuXYZ (an index variant such as cu126), rocm, rocm:X.Y or "
      "rocmX.Y[.Z]");
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

std::vector<std::string> variant_candidates(AcceleratorKind kind, std::string_view version) {
  if (kind == AcceleratorKind::cpu) return {"cpu"};
  const auto wanted = numbers(version);
  std::vector<std::string> out;
  if (kind == AcceleratorKind::cuda) {
    if (wanted.size() < 2) return out;
    for (unsigned minor = wanted[1] + 1; minor-- > 0;)
      out.push_back("cu" + std::to_string(wanted[0]) + std::to_string(minor));
    return out;
  }
  // ROCm: known directories of the same major whose version is not newer
  // than the one asked for, newest first (rocm6.2.4 before rocm6.2).
  const auto wanted_version = pep::Version::parse(version);
  for (const auto variant : k_rocm_variants) {
    const auto candidate_text = variant.substr(4);
    const auto candidate = pep::Version::parse(candidate_text);
    if (!candidate || !wanted_version) continue;
    if (numbers(candidate_text)[0] != wanted[0]) continue;
    if (*candidate <= *wanted_version) out.emplace_back(variant);
  }
  // A version the list does not know yet is still tried first.
  const auto exact = "rocm" + std::string(version);
  if (std::find(out.begin(), out.end(), exact) == out.end()) out.insert(out.begin(), exact);
  return out;
}

}  // namespace wheelmod::index_client
