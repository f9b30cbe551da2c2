// The pure rules of installing a wheel: which archive names are safe, which
// `.dist-info` directory is the wheel's, what its WHEEL file says, and where
// each member goes in the scheme. Spec: PyPA "Binary distribution format"
// (PEP 427 and updates), sections "Installing a wheel" and "The .dist-info
// directory"; PKWARE APPNOTE 4.4.17 for names.
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>

#include "pep/wheel_filename.hpp"

namespace wheelmod::wheel {

/// A member name checked and normalised: `/`-separated, relative, without
/// `.` or empty components. `directory` when the name ends in `/`.
struct MemberPath {
  std::string path;
  bool directory = false;
};

/// Checks `name` and returns it normalised, or why it is unsafe: empty,
/// absolute (`/x`, `C:x`), a `..` component, a backslash, or a control
/// character (which could hide the real name on a terminal).
std::expected<MemberPath, std::string> check_member_name(std::string_view name);

/// `name` with control characters and bytes a terminal would act on shown
/// as `\xNN`, for messages.
std::string printable(std::string_view name);

/// The `{name}-{version}.dist-info` among `top_level` (the archive's
/// first path components) that belongs to `wheel`: name compared after PEP
/// 503 normalisation, version after PEP 440 normalisation. Exactly one
/// `.dist-info` directory must exist (as pip requires); the error says why.
std::expected<std::string, std::string> find_dist_info(std::span<const std::string> top_level,
                                                       const pep::WheelFilename& wheel);

/// What the `.dist-info/WHEEL` file says.
struct WheelInfo {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  bool root_is_purelib = true;
};

/// Parses WHEEL (`Key: value` lines, keys case-insensitive as Python's
/// email parser reads them). `Wheel-Version` is required.
std::expected<WheelInfo, std::string> parse_wheel_info(std::string_view text);

/// The install scheme keys a wheel may use (`{name}-{version}.data/<key>/`).
enum class SchemeKey { purelib, platlib, scripts, headers, data };

/// Where one member goes: a scheme key and the path below that directory.
struct Placement {
  SchemeKey key = SchemeKey::purelib;
  std::string subpath;
};

/// Maps a normalised member path: `<data_dir>/<key>/<rest>` to (key, rest),
/// anything else to the root scheme (purelib or platlib per WHEEL's
/// Root-Is-Purelib). Error for an unknown key or a file directly in
/// `<data_dir>/` or `<data_dir>/<key>`.
std::expected<Placement, std::string> place_member(std::string_view path, std::string_view data_dir,
                                                   SchemeKey root_key);

}  // namespace wheelmod::wheel
