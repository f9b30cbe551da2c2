// PEP 503 HTML pages, read as pip reads them: html_anchors.hpp gives the
// <a>, <base> and <meta> start tags of the page in one streaming pass over
// its bytes, and each anchor becomes a Link at once; no tree is built.
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/url.hpp"
#include "html_anchors.hpp"
#include "html_entities.hpp"
#include "index/page.hpp"
#include "page_common.hpp"

namespace wheelmod::index {

namespace {

using detail::page_error;

using html::Attribute;
using html::Element;

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

// The attributes of an anchor that a Link reads, the last of each name
// (pip: dict(attrs)). An attribute written without a value is present with
// "" (PEP 592 and PEP 658 read presence, where pip reads html.parser's None
// as absent).
struct AnchorAttributes {
  std::optional<std::string_view> href;
  std::optional<std::string_view> requires_python;     // PEP 503
  std::optional<std::string_view> yanked;              // PEP 592
  std::optional<std::string_view> core_metadata;       // PEP 714
  std::optional<std::string_view> dist_info_metadata;  // PEP 658, its old name
  std::optional<std::string_view> upload_time;
};

AnchorAttributes anchor_attributes(std::span<const Attribute> attributes) {
  AnchorAttributes out;
  for (const Attribute& attribute : attributes) {
    const std::string_view value = attribute.value.value_or("");
    if (html::name_is(attribute.name, "href")) {
      out.href = attribute.value;  // nullopt: no href, as for pip
    } else if (html::name_is(attribute.name, "data-requires-python")) {
      out.requires_python = value;
    } else if (html::name_is(attribute.name, "data-yanked")) {
      out.yanked = value;
    } else if (html::name_is(attribute.name, "data-core-metadata")) {
      out.core_metadata = value;
    } else if (html::name_is(attribute.name, "data-dist-info-metadata")) {
      out.dist_info_metadata = value;
    } else if (html::name_is(attribute.name, "data-upload-time")) {
      out.upload_time = value;
    }
  }
  return out;
}

std::string decoded(std::string_view raw) {
  std::string out;
  html::append_unescaped(raw, out);
  return out;
}

// The first of `text`'s characters in `set`, or text.size() (a loop:
// find_first_of calls memchr once per character).
std::size_t first_of(std::string_view text, std::string_view set) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    for (const char c : set) {
      if (text[at] == c) return at;
    }
  }
  return text.size();
}

// Whether `path` has a "." or ".." segment (RFC 3986 §5.2.4 would remove it).
bool has_dot_segment(std::string_view path) {
  for (std::size_t at = 0; at <= path.size();) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    const std::string_view segment = path.substr(at, end - at);
    if (segment == "." || segment == "..") return true;
    at = end + 1;
  }
  return false;
}

// The document base URL and what resolving against it needs.
struct Base {
  explicit Base(std::string base_url) : url(std::move(base_url)) {
    const std::string root = resolve_url(this->url, "/");  // "scheme://authority/"
    origin = root.substr(0, root.size() - 1);
  }
  std::string url;
  std::string origin;

  /// resolve_url(url, href), with the two shapes of nearly every index href taken directly:
  /// absolute (`https://host/path`) and from the root (`/whl/cu126/x.whl`), when their path has
  /// no dot segment: RFC 3986 §5.2.2 then gives the href itself, or the origin and the href.
  [[nodiscard]] std::string resolve(std::string_view href) const {
    const std::size_t special = first_of(href, ":/?#");
    const bool has_scheme = special > 0 && special < href.size() && href[special] == ':';
    const bool from_root = href.starts_with('/') && !href.starts_with("//");
    if (has_scheme || from_root) {
      std::string_view path = href.substr(has_scheme ? special + 1 : 0);
      if (path.starts_with("//")) path = path.substr(std::min(path.find('/', 2), path.size()));
      path = path.substr(0, first_of(path, "?#"));
      if (!has_dot_segment(path))
        return has_scheme ? std::string(href) : origin + std::string(href);
    }
    return resolve_url(url, href);
  }
};

detail::Checked<Link> make_link(std::string_view href, const AnchorAttributes& found,
                                const Base& base) {
  Link link;
  link.filename = filename_of(href);
  // PEP 503: URLs may be relative to the page (RFC 3986 §5.2).
  link.url = detail::clean_url(without_fragment(base.resolve(href)));
  // PEP 503: "#<hashname>=<hashvalue>" in the URL fragment.
  auto hashes = detail::fragment_hashes(percent_decode(fragment_of(href)));
  if (!hashes) return std::unexpected(link.filename + ": " + hashes.error());
  link.hashes = std::move(*hashes);

  // PEP 503: data-requires-python, HTML-encoded. pip reads an empty value
  // as no constraint.
  if (found.requires_python && !found.requires_python->empty()) {
    link.requires_python = decoded(*found.requires_python);
  }
  // PEP 592: the attribute's presence means yanked; its value, the reason.
  if (found.yanked) link.yanked = decoded(*found.yanked);
  // PEP 714: data-core-metadata wins; data-dist-info-metadata (PEP 658) is
  // its old name, read only when the new one is absent.
  const auto metadata = found.core_metadata ? found.core_metadata : found.dist_info_metadata;
  if (metadata) {
    auto core = detail::core_metadata_attribute(decoded(*metadata));
    if (!core) return std::unexpected(link.filename + ": " + core.error());
    link.has_core_metadata = core->present;
    link.core_metadata_hash = std::move(core->hash);
  }
  // PEP 700 defines upload-time for JSON; download.pytorch.org writes it
  // as data-upload-time (pytorch/test-infra manage_v2.py), as uv reads it.
  if (found.upload_time && !found.upload_time->empty()) {
    link.upload_time = decoded(*found.upload_time);
  }
  return link;
}

// What every page declares: the document base URL and the PEP 629 version.
class PageReader : public html::Handler {
 public:
  void start_tag(Element element, std::span<const Attribute> attributes) override {
    if (element == Element::base) {
      // pip's HTMLLinkParser.get_href: the first href of the first <base>
      // whose href has a value (HTML "The base element": the first base
      // element with an href attribute sets the document base URL).
      if (m_base_href) return;
      for (const Attribute& attribute : attributes) {
        if (!html::name_is(attribute.name, "href")) continue;
        if (attribute.value) {
          m_base_href = decoded(*attribute.value);
          m_base_after_anchor = m_anchors > 0;
        }
        return;
      }
    } else if (element == Element::meta && !m_repository_version) {
      bool has_content = false;
      const auto name = html::last_value(attributes, "name");
      const auto content = html::last_value(attributes, "content", &has_content);
      if (name && has_content && decoded(*name) == "pypi:repository-version") {
        m_repository_version = decoded(content.value_or(""));
      }
    } else if (element == Element::a) {
      ++m_anchors;
      anchor(attributes);
    }
  }
  void end_anchor() override {}
  void text(std::string_view /*text*/, bool /*raw*/) override {}

  /// PEP 629: a major version other than 1 is an error.
  [[nodiscard]] detail::Checked<void> check_version() const {
    if (!m_repository_version) return {};
    return detail::check_api_version(*m_repository_version);
  }
  [[nodiscard]] const std::optional<std::string>& base_href() const { return m_base_href; }
  /// Whether <base href> came after the first <a>.
  [[nodiscard]] bool base_after_anchor() const { return m_base_after_anchor; }

 protected:
  virtual void anchor(std::span<const Attribute> attributes) = 0;

 private:
  std::optional<std::string> m_base_href;
  std::optional<std::string> m_repository_version;
  std::size_t m_anchors = 0;
  bool m_base_after_anchor = false;
};

class ProjectReader final : public PageReader {
 public:
  ProjectReader(std::string_view page_url, std::optional<std::string> base_href)
      : m_page_url(page_url),
        m_known_base(std::move(base_href)),
        m_base_given(m_known_base.has_value()) {
    // HTML "Document base URL": <base href> resolved against the page URL.
    m_base = Base(m_known_base ? resolve_url(page_url, *m_known_base) : std::string(page_url));
  }

  /// The links, or the first error of an anchor.
  detail::Checked<Links> take() && {
    if (m_error) return std::unexpected(std::move(*m_error));
    return std::move(m_links);
  }
  /// Room for the links of a page of `size` bytes: address space, used as links come.
  void reserve(std::size_t size) {
    // At least 16 bytes of markup a link (`<a href=x></a>`); their text (URL, file name,
    // digests) is about as long as the markup that gives it.
    m_links.reserve(size / 16, size + size / 2);
  }
  /// Whether the page's <base href> came after anchors already resolved without it.
  [[nodiscard]] bool base_came_late() const { return base_after_anchor() && !m_base_given; }

 private:
  void anchor(std::span<const Attribute> attributes) override {
    const AnchorAttributes found = anchor_attributes(attributes);
    // pip's Link.from_element: an anchor without an href (or an empty one)
    // is no link.
    if (!found.href || found.href->empty() || m_error) return;
    if (!m_known_base && base_href()) {
      m_known_base = base_href();  // a <base> before this anchor
      m_base = Base(resolve_url(m_page_url, *m_known_base));
    }
    const std::string_view href = html::unescaped(*found.href, m_href);
    auto link = make_link(href, found, m_base);
    if (!link) {
      m_error = std::move(link.error());
      return;
    }
    // "../", "#top", "..%2Fetc": not a file.
    if (!detail::is_file_name(link->filename)) return;
    if (auto added = m_links.add(*link); !added) m_error = std::move(added.error());
  }

  std::string_view m_page_url;
  std::optional<std::string> m_known_base;
  bool m_base_given = false;  // read again with the base the first reading found
  Base m_base{""};
  std::string m_href;  // scratch for a decoded href
  Links m_links;
  std::optional<std::string> m_error;
};

class RootReader final : public PageReader {
 public:
  struct Anchor {
    std::string text;  // trimmed of ASCII whitespace
    std::string href;  // entity-decoded, as written
  };

  // The text of the anchor being read, trimmed of ASCII whitespace, is a
  // project name; called at its end, at the next <a>, and at the page's end.
  void finish() {
    if (m_in_anchor) {
      constexpr std::string_view k_space = " \t\n\f\r";
      const auto begin = m_text.find_first_not_of(k_space);
      if (begin != std::string::npos) {
        m_anchors.push_back(
            {m_text.substr(begin, m_text.find_last_not_of(k_space) - begin + 1), m_href});
      }
    }
    m_in_anchor = false;
    m_text.clear();
  }
  [[nodiscard]] std::vector<Anchor> take() && { return std::move(m_anchors); }

 private:
  void anchor(std::span<const Attribute> attributes) override {
    finish();
    bool has_href = false;
    const auto href = html::last_value(attributes, "href", &has_href);
    m_in_anchor = has_href;
    m_href = decoded(href.value_or(""));
  }
  void end_anchor() override { finish(); }
  void text(std::string_view text, bool raw) override {
    if (!m_in_anchor) return;
    if (raw) {
      m_text.append(text);
    } else {
      html::append_unescaped(text, m_text);
    }
  }

  bool m_in_anchor = false;
  std::string m_text;
  std::string m_href;
  std::vector<Anchor> m_anchors;
};

// What a root anchor names: the href's one relative segment when it has one (a directory
// listing's `cu126/` or `nvidia-cublas-cu12/`, whose text nginx cuts to 50 characters as
// `nvidia-cuda-cupti-cu12-…..>`), else the text (a PEP 503 root's `<a
// href="/simple/torch/">torch</a>`). Sort links (`?C=N;O=D`), fragments, `../` and texts with
// spaces ("Parent Directory") name nothing.
std::optional<std::string> listing_name(const RootReader::Anchor& anchor) {
  std::string_view href = anchor.href;
  if (href.starts_with('?') || href.starts_with('#')) return std::nullopt;
  const auto relative_segment = [](std::string_view text) -> std::optional<std::string> {
    if (text.ends_with('/')) text.remove_suffix(1);
    if (text.empty() || text.find_first_of("/?#:") != std::string_view::npos) return std::nullopt;
    return percent_decode(text);
  };
  auto name = relative_segment(href);
  if (!name) {
    std::string_view text = anchor.text;
    if (text.ends_with('/')) text.remove_suffix(1);
    name = std::string(text);
  }
  if (name->empty() || *name == "." || *name == ".." ||
      name->find_first_of(" \t\n\r\f/\\") != std::string::npos)
    return std::nullopt;
  return name;
}

}  // namespace

Parsed<ProjectPage> parse_project_html(std::string_view html, std::string_view page_url) {
  const auto read = [&](std::optional<std::string> base) {
    auto reader = std::make_unique<ProjectReader>(page_url, std::move(base));
    reader->reserve(html.size());
    html::read_page(html, *reader);
    return reader;
  };
  auto reader = read(std::nullopt);
  if (auto version = reader->check_version(); !version) {
    return std::unexpected(page_error(page_url, version.error()));
  }
  if (reader->base_came_late()) {
    // pip applies the first <base href> to every anchor, also those before it: read once more
    // with it (a page rarely puts its <base> after its links).
    auto base = reader->base_href();
    reader.reset();
    reader = read(std::move(base));
  }
  auto links = std::move(*reader).take();
  if (!links) return std::unexpected(page_error(page_url, std::move(links.error())));
  ProjectPage page;
  page.url = std::string(page_url);
  // No standard gives an HTML page's project name (the "Links for" heading
  // is a convention), so `name` stays empty.
  page.links = std::move(*links);
  return page;
}

Parsed<std::vector<std::string>> parse_root_html(std::string_view html) {
  RootReader reader;
  html::read_page(html, reader);
  reader.finish();
  if (auto version = reader.check_version(); !version) {
    return std::unexpected(page_error("root page", version.error()));
  }
  // PEP 503: one anchor per project, whose text is the project's name.
  std::vector<std::string> names;
  for (auto& anchor : std::move(reader).take()) names.push_back(std::move(anchor.text));
  return names;
}

Parsed<std::vector<RootEntry>> parse_root_listing(std::string_view html,
                                                  std::string_view page_url) {
  RootReader reader;
  html::read_page(html, reader);
  reader.finish();
  if (auto version = reader.check_version(); !version) {
    return std::unexpected(page_error(page_url, version.error()));
  }
  std::vector<RootEntry> entries;
  for (const auto& anchor : std::move(reader).take()) {
    auto name = listing_name(anchor);
    if (!name) continue;
    auto url = resolve_url(page_url, anchor.href);
    entries.push_back({std::move(*name), std::move(url)});
  }
  return entries;
}

}  // namespace wheelmod::index
