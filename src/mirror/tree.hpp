// The static PEP 503 tree a mirror serves: `DIR/<variant>/index.html`
// listing projects, `DIR/<variant>/<project>/index.html` listing files with
// `#sha256=` and PEP 658/714 `data-core-metadata` / `data-dist-info-metadata`
// attributes, files stored once under `DIR/files/`. Pages are rendered by
// pure functions and written atomically (temporary file, fsync, rename), and
// only rewritten when their bytes change (core/files.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/files.hpp"  // write_if_changed, for the pages

namespace wheelmod::mirror {

/// One file a project page lists.
struct PageFile {
  std::string filename;  // torch-2.6.0+cu126-cp312-cp312-…whl (not encoded)
  std::string
      href;  // relative to the page, percent-encoded ("../../files/torch-2.6.0%2Bcu126-…whl")
  std::string sha256;                          // lower-case hex
  std::optional<std::string> metadata_sha256;  // of `<file>.metadata`, when there is one
  std::optional<std::string>
      requires_python;  // copied from upstream (PEP 503 data-requires-python)
};

/// PEP 503 project page: `<!DOCTYPE html>`, a `<meta name="pypi:repository-version"
/// content="1.1">` (PEP 629/700), one anchor per file sorted by filename, each
/// `href#sha256=…`, `data-requires-python` HTML-escaped, and, with metadata,
/// both `data-core-metadata="sha256=…"` and `data-dist-info-metadata="sha256=…"`.
/// Deterministic: the same input gives the same bytes.
std::string render_project_page(const std::string& project, std::vector<PageFile> files);

/// PEP 503 root page of one variant: one anchor per project (`<project>/`), sorted.
std::string render_root_page(std::vector<std::string> projects);

/// The percent-encoded form of a file name for an href: RFC 3986 unreserved
/// characters and sub-delims stay, all else is %XX (UTF-8 bytes each), and
/// so is '+' (%2B, as download.pytorch.org writes it; S3 reads '+' as ' ').
std::string encode_filename(const std::string& filename);

}  // namespace wheelmod::mirror
