// PEP 503 HTML pages, parsed with gumbo (an HTML5 parser: it decodes
// character references in attribute values and text, lower-cases tag and
// attribute names, and accepts any quoting the HTML5 tokenizer does).
#include <gumbo.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/url.hpp"
#include "index/page.hpp"
#include "page_common.hpp"

namespace wheelmod::index {

namespace {

// A parsed document, freed with gumbo's own destructor.
class HtmlTree {
 public:
  explicit HtmlTree(std::string_view html) {
    GumboOptions options = kGumboDefaultOptions;
    // We never read gumbo's list of syntax errors; do not record it.
    options.max_errors = 0;
    const char* data = html.empty() ? "" : html.data();
    m_output = gumbo_parse_with_options(&options, data, html.size());
  }
  ~HtmlTree() { gumbo_destroy_output(&kGumboDefaultOptions, m_output); }
  HtmlTree(const HtmlTree&) = delete;
  HtmlTree& operator=(const HtmlTree&) = delete;
  [[nodiscard]] const GumboNode* document() const { return m_output->document; }

 private:
  GumboOutput* m_output = nullptr;
};

const char* attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* found = gumbo_get_attribute(&element.attributes, name);
  return found == nullptr ? nullptr : found->value;
}

const GumboVector* children_of(const GumboNode& node) {
  switch (node.type) {
    case GUMBO_NODE_DOCUMENT:
      return &node.v.document.children;
    case GUMBO_NODE_ELEMENT:
    case GUMBO_NODE_TEMPLATE:
      return &node.v.element.children;
    default:
      return nullptr;
  }
}

// What a page holds for us, in document order. The walk is iterative:
// an HTML5 tree can be as deep as the input is long.
struct Scan {
  std::vector<const GumboElement*> anchors;  // `<a href>`
  const char* base_href = nullptr;           // the first `<base href>`
  const char* repository_version = nullptr;  // PEP 629 `<meta>`
};

Scan scan(const GumboNode* document) {
  Scan out;
  std::vector<const GumboNode*> stack{document};
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE) {
      const GumboElement& element = node->v.element;
      if (element.tag == GUMBO_TAG_A && attribute(element, "href") != nullptr) {
        out.anchors.push_back(&element);
      } else if (element.tag == GUMBO_TAG_BASE && out.base_href == nullptr) {
        // HTML "The base element": the first base element with an href
        // sets the document base URL.
        out.base_href = attribute(element, "href");
      } else if (element.tag == GUMBO_TAG_META && out.repository_version == nullptr) {
        const char* name = attribute(element, "name");
        if (name != nullptr && std::string_view(name) == "pypi:repository-version") {
          out.repository_version = attribute(element, "content");
        }
      }
    }
    if (const GumboVector* children = children_of(*node)) {
      for (unsigned int i = children->length; i-- > 0;) {
        stack.push_back(static_cast<const GumboNode*>(children->data[i]));
      }
    }
  }
  return out;
}

ParseError page_error(std::string_view page_url, std::string message) {
  return ParseError{std::string(page_url), std::move(message)};
}

// The text of an element and its descendants, trimmed of ASCII whitespace.
std::string text_of(const GumboElement& element) {
  std::string text;
  std::vector<const GumboNode*> stack;
  for (unsigned int i = element.children.length; i-- > 0;) {
    stack.push_back(static_cast<const GumboNode*>(element.children.data[i]));
  }
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE ||
        node->type == GUMBO_NODE_CDATA) {
      text += node->v.text.text;
    } else if (const GumboVector* children = children_of(*node)) {
      for (unsigned int i = children->length; i-- > 0;) {
        stack.push_back(static_cast<const GumboNode*>(children->data[i]));
      }
    }
  }
  constexpr std::string_view k_space = " \t\n\f\r";
  const auto begin = text.find_first_not_of(k_space);
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(k_space) - begin + 1);
}

// Like uv and pip: the file name is the last path segment of the href,
// without query and fragment, percent-decoded (PEP 503: the anchor text
// "MUST match the final path component" of the URL, so the URL is the
// authority and the text is not read).
std::string filename_of(std::string_view href) {
  href = without_fragment(href);
  href = href.substr(0, href.find('?'));
  const auto slash = href.rfind('/');
  return percent_decode(slash == std::string_view::npos ? href : href.substr(slash + 1));
}

Parsed<Link> parse_anchor(const GumboElement& anchor, std::string_view base_url,
                          std::string_view page_url) {
  const std::string_view href = attribute(anchor, "href");
  Link link;
  link.filename = filename_of(href);
  // PEP 503: URLs may be relative to the page (RFC 3986 §5.2).
  link.url = detail::clean_url(without_fragment(resolve_url(base_url, href)));
  // PEP 503: "#<hashname>=<hashvalue>" in the URL fragment.
  auto hashes = detail::fragment_hashes(percent_decode(fragment_of(href)));
  if (!hashes) return std::unexpected(page_error(page_url, link.filename + ": " + hashes.error()));
  link.hashes = std::move(*hashes);

  // PEP 503: data-requires-python, HTML-encoded (gumbo has decoded it).
  // pip reads an empty value as no constraint.
  if (const char* value = attribute(anchor, "data-requires-python"); value && *value) {
    link.requires_python = value;
  }
  // PEP 592: the attribute's presence means yanked; its value, the reason.
  if (const char* value = attribute(anchor, "data-yanked")) link.yanked = value;
  // PEP 714: data-core-metadata wins; data-dist-info-metadata (PEP 658) is
  // its old name, read only when the new one is absent.
  const char* metadata = attribute(anchor, "data-core-metadata");
  if (metadata == nullptr) metadata = attribute(anchor, "data-dist-info-metadata");
  if (metadata != nullptr) {
    auto core = detail::core_metadata_attribute(metadata);
    if (!core) return std::unexpected(page_error(page_url, link.filename + ": " + core.error()));
    link.has_core_metadata = core->present;
    link.core_metadata_hash = std::move(core->hash);
  }
  // PEP 700 defines upload-time for JSON; download.pytorch.org writes it
  // as data-upload-time (pytorch/test-infra manage_v2.py), as uv reads it.
  if (const char* value = attribute(anchor, "data-upload-time"); value && *value) {
    link.upload_time = value;
  }
  return link;
}

Parsed<Scan> scan_page(const HtmlTree& tree, std::string_view page_url) {
  Scan found = scan(tree.document());
  if (found.repository_version != nullptr) {
    if (auto ok = detail::check_api_version(found.repository_version); !ok) {
      return std::unexpected(page_error(page_url, ok.error()));
    }
  }
  return found;
}

}  // namespace

Parsed<ProjectPage> parse_project_html(std::string_view html, std::string_view page_url) {
  const HtmlTree tree(html);
  auto found = scan_page(tree, page_url);
  if (!found) return std::unexpected(found.error());
  // HTML "Document base URL": <base href> resolved against the page URL.
  const std::string base =
      found->base_href != nullptr ? resolve_url(page_url, found->base_href) : std::string(page_url);
  ProjectPage page;
  page.url = std::string(page_url);
  // No standard gives an HTML page's project name (the "Links for" heading
  // is a convention), so `name` stays empty.
  detail::LinkList links;
  for (const GumboElement* anchor : found->anchors) {
    auto link = parse_anchor(*anchor, base, page_url);
    if (!link) return std::unexpected(link.error());
    // "../", "#top", "..%2Fetc": not a file.
    if (!detail::is_file_name(link->filename)) continue;
    if (auto added = links.add(std::move(*link)); !added) {
      return std::unexpected(page_error(page_url, added.error()));
    }
  }
  page.links = std::move(links).take();
  return page;
}

Parsed<std::vector<std::string>> parse_root_html(std::string_view html) {
  const HtmlTree tree(html);
  auto found = scan_page(tree, "root page");
  if (!found) return std::unexpected(found.error());
  // PEP 503: one anchor per project, whose text is the project's name.
  std::vector<std::string> names;
  names.reserve(found->anchors.size());
  for (const GumboElement* anchor : found->anchors) {
    if (std::string name = text_of(*anchor); !name.empty()) names.push_back(std::move(name));
  }
  return names;
}

}  // namespace wheelmod::index
