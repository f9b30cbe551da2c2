// URLs: the split into components, masking, RFC 3986 reference resolution
// (with the RFC's own §5.4 examples), percent-encoding, file URLs.
#include <filesystem>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "core/url.hpp"

using wheelmod::fragment_of;
using wheelmod::join_url;
using wheelmod::mask_credentials;
using wheelmod::percent_decode;
using wheelmod::percent_encode_segment;
using wheelmod::resolve_url;
using wheelmod::to_url;
using wheelmod::Url;
using wheelmod::without_fragment;

namespace {

struct Resolution {
  std::string_view reference;
  std::string_view expected;
};

}  // namespace

TEST_CASE("resolve_url gives the RFC 3986 §5.4.1 normal examples", "[core][url]") {
  // RFC 3986 §5.4 "Reference Resolution Examples", base http://a/b/c/d;p?q.
  constexpr std::string_view base = "http://a/b/c/d;p?q";
  const Resolution cases[] = {
      {"g:h", "g:h"},
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"},
      {"g?y#s", "http://a/b/c/g?y#s"},
      {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"},
      {"g;x?y#s", "http://a/b/c/g;x?y#s"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../", "http://a/"},
      {"../../g", "http://a/g"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.reference);
    CHECK(resolve_url(base, c.reference) == c.expected);
  }
}

TEST_CASE("resolve_url gives the RFC 3986 §5.4.2 abnormal examples", "[core][url]") {
  constexpr std::string_view base = "http://a/b/c/d;p?q";
  const Resolution cases[] = {
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g#s/./x"},
      {"g#s/../x", "http://a/b/c/g#s/../x"},
      {"http:g", "http:g"},  // strict parser (§5.4.2 last example)
  };
  for (const auto& c : cases) {
    CAPTURE(c.reference);
    CHECK(resolve_url(base, c.reference) == c.expected);
  }
}

TEST_CASE("resolve_url resolves index hrefs against index pages", "[core][url]") {
  struct {
    std::string_view base;
    std::string_view reference;
    std::string_view expected;
  } const cases[] = {
      // The header's example and the href forms download.pytorch.org pages use.
      {"https://h/whl/cu126/torch/", "../x.whl", "https://h/whl/cu126/x.whl"},
      {"https://download.pytorch.org/whl/cu126/torch/",
       "/whl/cu126/torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=ab",
       "https://download.pytorch.org/whl/cu126/"
       "torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=ab"},
      {"https://download.pytorch.org/whl/cu128/torch/",
       "https://download-r2.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp312-cp312-"
       "manylinux_2_28_x86_64.whl",
       "https://download-r2.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp312-cp312-"
       "manylinux_2_28_x86_64.whl"},
      // Scheme-relative: the base's scheme, the reference's host.
      {"https://download.pytorch.org/whl/torch/", "//files.pythonhosted.org/p/x.whl",
       "https://files.pythonhosted.org/p/x.whl"},
      // Query-only and fragment-only references.
      {"https://h/simple/torch/?page=1", "?page=2", "https://h/simple/torch/?page=2"},
      {"https://h/simple/torch/?page=1", "#top", "https://h/simple/torch/?page=1#top"},
      // The base's own fragment never carries over (§5.2.2).
      {"https://h/simple/torch/#old", "x.whl", "https://h/simple/torch/x.whl"},
      // A base without a trailing '/' is a file: its last segment goes.
      {"https://h/simple/torch", "x.whl", "https://h/simple/x.whl"},
      // An authority with an empty path (§5.2.3 first rule).
      {"https://h", "x.whl", "https://h/x.whl"},
      {"https://h:8443/a/b/", "../../../../x", "https://h:8443/x"},
      // file URLs (RFC 8089) with an empty authority.
      {"file:///a/b/", "../c", "file:///a/c"},
      {"file:///a/b/", "x.whl", "file:///a/b/x.whl"},
      {"file:///srv/index/whl/cu126/torch/index.html", "../torch-2.6.0%2Bcu126-cp312.whl",
       "file:///srv/index/whl/cu126/torch-2.6.0%2Bcu126-cp312.whl"},
      {"file:///a/b/", "/c/d", "file:///c/d"},
      {"file:///a/b/", "https://h/x", "https://h/x"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.base, c.reference);
    CHECK(resolve_url(c.base, c.reference) == c.expected);
  }
}

TEST_CASE("percent_decode decodes escapes and keeps malformed ones", "[core][url]") {
  struct {
    std::string_view input;
    std::string_view expected;
  } const cases[] = {
      {"torch-2.6.0%2Bcu126-cp312-cp312-linux_x86_64.whl",
       "torch-2.6.0+cu126-cp312-cp312-linux_x86_64.whl"},
      {"%2b", "+"},
      {"a%20b", "a b"},
      {"%E2%9C%93", "\xE2\x9C\x93"},
      {"", ""},
      {"100%", "100%"},
      {"%2", "%2"},
      {"%zz", "%zz"},
      {"%%41", "%A"},
      {"%G1%41", "%G1A"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    CHECK(percent_decode(c.input) == c.expected);
  }
}

TEST_CASE("percent_encode_segment encodes what a segment may not hold, and +", "[core][url]") {
  struct {
    std::string_view input;
    std::string_view expected;
  } const cases[] = {
      {"torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
       "torch-2.6.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl"},
      {"AZaz09-._~", "AZaz09-._~"},  // RFC 3986 §2.3 unreserved
      {"!$&'()*,;=", "!$&'()*,;="},  // §2.2 sub-delims, less `+`
      {"a b", "a%20b"},
      {"50%", "50%25"},
      {"a#b?c", "a%23b%3Fc"},
      {"a/b", "a%2Fb"},
      {"caf\xC3\xA9", "caf%C3%A9"},
      {"a:b@c", "a%3Ab%40c"},
      {"", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input);
    CHECK(percent_encode_segment(c.input) == c.expected);
    CHECK(percent_decode(percent_encode_segment(c.input)) == c.input);
  }
}

TEST_CASE("without_fragment and fragment_of split at the first '#'", "[core][url]") {
  struct {
    std::string_view url;
    std::string_view base;
    std::string_view fragment;
  } const cases[] = {
      {"https://h/x.whl#sha256=ab", "https://h/x.whl", "sha256=ab"},
      {"https://h/x.whl", "https://h/x.whl", ""},
      {"https://h/x.whl#", "https://h/x.whl", ""},
      {"https://h/x.whl?a=b#c#d", "https://h/x.whl?a=b", "c#d"},
      {"#only", "", "only"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.url);
    CHECK(without_fragment(c.url) == c.base);
    CHECK(fragment_of(c.url) == c.fragment);
  }
}

TEST_CASE("to_url makes file URLs of paths and keeps URLs", "[core][url]") {
  const std::string cwd = std::filesystem::current_path().generic_string();
  struct {
    std::string input;
    std::string expected;
  } const cases[] = {
      {"/srv/index/whl", "file:///srv/index/whl"},
      {"/srv/index/whl/", "file:///srv/index/whl/"},
      {"/srv/./index/../mirror/whl/", "file:///srv/mirror/whl/"},
      {"/", "file:///"},
      {"/srv/torch-2.6.0+cu126 copy.whl", "file:///srv/torch-2.6.0%2Bcu126%20copy.whl"},
      {"/srv/#odd?", "file:///srv/%23odd%3F"},
      {"/srv/d\xC3\xA9j\xC3\xA0", "file:///srv/d%C3%A9j%C3%A0"},
      {"sub/dir/", "file://" + cwd + "/sub/dir/"},
      {"sub/../other", "file://" + cwd + "/other"},
      {"https://download.pytorch.org/whl", "https://download.pytorch.org/whl"},
      {"https://download.pytorch.org/whl/", "https://download.pytorch.org/whl/"},
      {"file:///srv/index/", "file:///srv/index/"},
      {"git+https://h/x", "git+https://h/x"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.input, cwd);
    CHECK(to_url(c.input) == c.expected);
  }
}

TEST_CASE("join_url puts exactly one '/' between its parts", "[core][url]") {
  struct {
    std::string_view base;
    std::string_view relative;
    std::string_view expected;
  } const cases[] = {
      {"https://h/whl", "cu126/torch/", "https://h/whl/cu126/torch/"},
      {"https://h/whl/", "cu126/torch/", "https://h/whl/cu126/torch/"},
      {"https://h/whl/", "/cu126/torch/", "https://h/whl/cu126/torch/"},
      {"https://h/whl", "/cu126/torch/", "https://h/whl/cu126/torch/"},
      {"file:///", "srv/index/", "file:///srv/index/"},
      {"https://h/whl/", "", "https://h/whl/"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.base, c.relative);
    CHECK(join_url(c.base, c.relative) == c.expected);
  }
}

TEST_CASE("mask_credentials hides secrets in a URL's authority", "[core][url]") {
  // As pip's redact_auth_from_url: a password becomes ***, a user name
  // without a password (a bare token) is a secret as a whole.
  struct {
    std::string_view url;
    std::string_view masked;
  } const cases[] = {
      {"https://user:secret@host/x", "https://user:***@host/x"},
      {"https://user:secret@host", "https://user:***@host"},
      {"https://user:secret@host:8443/simple/?a=b", "https://user:***@host:8443/simple/?a=b"},
      {"https://user:@host/", "https://user:***@host/"},
      {"https://:secret@host/", "https://:***@host/"},
      {"https://user:p@ss@host/x", "https://user:***@host/x"},  // an unencoded '@' in the password
      {"https://ghp_token123@host/simple/", "https://***@host/simple/"},
      {"https://__token__:pypi-AgEI@upload.pypi.org/legacy/",
       "https://__token__:***@upload.pypi.org/legacy/"},
      {"https://download.pytorch.org/whl/cu126", "https://download.pytorch.org/whl/cu126"},
      {"https://host/path/to/a@b.whl", "https://host/path/to/a@b.whl"},  // '@' in the path
      {"https://host?next=a:b@c", "https://host?next=a:b@c"},            // '@' in the query
      {"https://host#a:b@c", "https://host#a:b@c"},                      // '@' in the fragment
      {"file:///home/user/wheels@2/x.whl", "file:///home/user/wheels@2/x.whl"},
      {"user:secret@host/x", "user:secret@host/x"},  // no scheme: not read as a URL (pip too)
      {"/local/path/x.whl", "/local/path/x.whl"},
      {"", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.url);
    CHECK(mask_credentials(c.url) == c.masked);
  }
}

TEST_CASE("Url splits a URL into what wheelmod asks of it", "[core][url]") {
  struct {
    std::string_view text;
    std::string_view scheme;
    bool http;
    std::string_view host;
    std::string_view origin;
    std::string_view path;
  } const cases[] = {
      {"https://download.pytorch.org/whl/cu126", "https", true, "download.pytorch.org",
       "https://download.pytorch.org", "/whl/cu126"},
      {"HTTP://User:Pw@Mirror:8080/simple/?x=1#frag", "http", true, "Mirror",
       "HTTP://User:Pw@Mirror:8080", "/simple/"},
      {"https://[::1]:8443/whl", "https", true, "[::1]", "https://[::1]:8443", "/whl"},
      {"file:///srv/wheels/x.whl", "file", false, "", "file://", "/srv/wheels/x.whl"},
      {"file:/srv/wheels", "file", false, "", "", "/srv/wheels"},
      {"/srv/wheels/torch/", "", false, "", "", "/srv/wheels/torch/"},
      {"ftp://host/x", "ftp", false, "host", "ftp://host", "/x"},
      {"", "", false, "", "", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const Url url{std::string(c.text)};
    CHECK(url.str() == c.text);
    CHECK(url.scheme() == c.scheme);
    CHECK(url.is_http() == c.http);
    CHECK(url.host() == c.host);
    CHECK(url.origin() == c.origin);
    CHECK(url.path() == c.path);
  }
  CHECK(Url("https://h/x.whl#sha256=ab").fragment() == "sha256=ab");
  CHECK(Url("https://h/x.whl#").fragment() == "");
  CHECK_FALSE(Url("https://h/x.whl").fragment().has_value());
  const Url copied = [] {
    const Url original("https://u:secret@h/a");
    return original;  // a copy keeps its components (they are offsets, not views)
  }();
  CHECK(copied.masked() == "https://u:***@h/a");
  CHECK(copied.host() == "h");
}

TEST_CASE("credentials are stored nowhere and given back at run time", "[core][url]") {
  using wheelmod::with_credentials_of;
  using wheelmod::without_credentials;
  CHECK(without_credentials("https://user:secret@host:8443/whl/x.whl") ==
        "https://host:8443/whl/x.whl");
  CHECK(without_credentials("https://token@host/whl/") == "https://host/whl/");
  CHECK(without_credentials("https://host/a@b") == "https://host/a@b");  // '@' in the path
  CHECK(without_credentials("file:///srv/whl") == "file:///srv/whl");
  const std::string index = "https://user:secret@Host:8443/whl";
  CHECK(with_credentials_of("https://host:8443/whl/cu126/x.whl", index) ==
        "https://user:secret@host:8443/whl/cu126/x.whl");
  // Another host, scheme or port gets nothing; a URL with its own userinfo keeps it.
  CHECK(with_credentials_of("https://files.host/x.whl", index) == "https://files.host/x.whl");
  CHECK(with_credentials_of("http://host:8443/x.whl", index) == "http://host:8443/x.whl");
  CHECK(with_credentials_of("https://host/x.whl", index) == "https://host/x.whl");
  CHECK(with_credentials_of("https://other:pw@host:8443/x", index) ==
        "https://other:pw@host:8443/x");
}
