// A bound on the nesting of JSON text, checked before any parser sees it: a document nested
// 200,000 deep (a hostile PEP 691 page, a crafted report) would exhaust the stack of code that
// walks values recursively (dumping one into a message, destroying it). Pure: no allocation.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace wheelmod {

/// Deeper than anything wheelmod reads (PEP 691 pages nest 4 deep, reports and manifests 5).
inline constexpr std::size_t k_json_max_depth = 64;

/// The byte offset of the first `[` or `{` (outside strings) that opens a level deeper than
/// `limit`, or nullopt when the text never nests deeper.
std::optional<std::size_t> json_too_deep(std::string_view text,
                                         std::size_t limit = k_json_max_depth);

}  // namespace wheelmod
