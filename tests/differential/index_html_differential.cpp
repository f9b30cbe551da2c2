// Differential test driver for index pages: reads the pages gen_index_pages.py wrote with the
// answers of Python's html.parser (the reader pip uses), reads each page with wheelmod's
// src/index/html_anchors.hpp and parse_root_html, and lists every disagreement.
//
//   index_html_differential PAGES.jsonl [--show N]
//
// Compared per page: every <a>, <base> and <meta> start tag in order with its attributes (names
// lower-cased, values decoded, null without a value) and the text of each <a>; the project names
// parse_root_html returns. parse_project_html also reads every page (it must not fail other than
// with a ParseError). Exit code 0 iff every page agrees and each family has its minimum of pages.
// See tests/differential/README.md.

#include <cstddef>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "index/html_anchors.hpp"
#include "index/html_entities.hpp"
#include "index/page.hpp"

namespace {

using nlohmann::json;
namespace html = wheelmod::index::html;

// The families of gen_index_pages.py and their minimum number of pages (a guard against a
// broken generator).
const std::map<std::string, std::size_t, std::less<>> k_minimum{
    {"fixed", 50},     {"pytorch", 300},  {"pypi", 300},
    {"grammar", 6000}, {"mutated", 6000}, {"entities", 2000},
};

// An attribute name as html.parser reports it (str.lower()), or nullopt for one that is not
// ASCII once lower-cased (left out on both sides: only ASCII names can be ones a page means).
std::optional<std::string> lowered_name(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (name.substr(i, 3) == "\xE2\x84\xAA") {  // KELVIN SIGN
      out.push_back('k');
      i += 2;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      return std::nullopt;
    } else {
      out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
  }
  return out;
}

// Records what the reader reports in the shape of the reference's answer.
class Recorder final : public html::Handler {
 public:
  void start_tag(html::Element element, std::span<const html::Attribute> attributes) override {
    json attrs = json::array();
    for (const auto& attribute : attributes) {
      const auto name = lowered_name(attribute.name);
      if (!name) continue;
      json value = nullptr;
      if (attribute.value) {
        std::string text;
        html::append_unescaped(*attribute.value, text);
        value = std::move(text);
      }
      attrs.push_back(json::array({*name, std::move(value)}));
    }
    const char* tag = element == html::Element::a      ? "a"
                      : element == html::Element::base ? "base"
                                                       : "meta";
    const bool anchor = element == html::Element::a;
    if (anchor) end_anchor();  // the reference's text goes to the newest <a>
    m_tags.push_back(json::array({tag, std::move(attrs), anchor ? json("") : json(nullptr)}));
    if (anchor) m_current = m_tags.size() - 1;
  }
  void end_anchor() override {
    flush();
    m_current.reset();
    m_text.clear();
  }
  void text(std::string_view text, bool raw) override {
    if (!m_current) return;
    if (raw) {
      m_text.append(text);
    } else {
      html::append_unescaped(text, m_text);
    }
  }
  json take() && {
    flush();
    return std::move(m_tags);
  }

 private:
  void flush() {
    if (m_current) m_tags[*m_current][2] = m_text;
  }
  json m_tags = json::array();
  std::optional<std::size_t> m_current;
  std::string m_text;
};

// The last value of attribute `name` in a tag of the reference's answer (pip's dict(attrs)).
std::optional<json> last_attribute(const json& tag, std::string_view name) {
  std::optional<json> found;
  for (const auto& attribute : tag[1]) {
    if (attribute[0].get<std::string>() == name) found = attribute[1];
  }
  return found;
}

// Whether parse_root_html must refuse the page: its first pypi:repository-version <meta> with a
// content names another major version than 1 (PEP 629).
bool refused_version(const json& tags) {
  for (const auto& tag : tags) {
    if (tag[0] != "meta") continue;
    const auto name = last_attribute(tag, "name");
    const auto content = last_attribute(tag, "content");
    if (!name || *name != "pypi:repository-version" || !content) continue;
    const std::string version = content->is_null() ? "" : content->get<std::string>();
    return !(version == "1" || version.starts_with("1."));
  }
  return false;
}

std::string shown(const json& value, std::size_t limit = 400) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

struct Tally {
  std::size_t pages = 0;
  std::size_t agree = 0;
  std::size_t raises = 0;  // html.parser raised: read, not compared
  std::size_t tags = 0;
  std::size_t links = 0;  // <a> start tags compared
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: index_html_differential PAGES.jsonl [--show N]\n";
    return 2;
  }
  std::size_t show = 10;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string_view(argv[i]) == "--show") show = std::stoul(argv[i + 1]);
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "error: cannot read " << argv[1] << "\n";
    return 2;
  }
  std::map<std::string, Tally, std::less<>> tallies;
  std::size_t failed = 0;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    json c;
    try {
      c = json::parse(line);
    } catch (const json::exception& e) {
      std::cerr << "error: " << argv[1] << ":" << number << ": " << e.what() << "\n";
      return 2;
    }
    const auto family = c.at("family").get<std::string>();
    const auto page = c.at("page").get<std::string>();
    Tally& tally = tallies[family];
    ++tally.pages;

    Recorder recorder;
    html::read_page(page, recorder);
    const json got = std::move(recorder).take();
    auto root = wheelmod::index::parse_root_html(page);
    (void)wheelmod::index::parse_project_html(page, "https://download.pytorch.org/whl/torch/");
    if (c.at("raises").get<bool>()) {
      ++tally.raises;
      continue;
    }

    const json& expected = c.at("tags");
    std::string problem;
    if (got != expected) {
      std::size_t at = 0;
      while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
      problem = "tag " + std::to_string(at) + ": expected " +
                (at < expected.size() ? shown(expected[at]) : "(none)") + "\n    got      " +
                (at < got.size() ? shown(got[at]) : "(none)") + "\n    (" +
                std::to_string(expected.size()) + " tags expected, " + std::to_string(got.size()) +
                " read)";
    } else if (refused_version(expected) != !root.has_value()) {
      problem = root ? "parse_root_html read a page of an unsupported repository version"
                     : "parse_root_html refused the page: " + root.error().message;
    } else if (root && json(*root) != c.at("names")) {
      problem = "root page names: expected " + shown(c.at("names")) + "\n    got      " +
                shown(json(*root));
    }
    if (problem.empty()) {
      ++tally.agree;
      tally.tags += expected.size();
      for (const auto& tag : expected) tally.links += tag[0] == "a" ? 1U : 0U;
      continue;
    }
    if (++failed <= show) {
      std::cout << "[" << family << "] line " << number << " disagrees\n"
                << "  page: " << shown(json(page)) << "\n"
                << "  " << problem << "\n";
    }
  }

  bool too_few = false;
  std::size_t pages = 0;
  std::size_t links = 0;
  std::size_t agree = 0;
  std::size_t raises = 0;
  for (const auto& [family, minimum] : k_minimum) {
    const Tally& tally = tallies[family];
    std::cout << family << ": " << tally.pages << " pages, " << tally.agree << " agree ("
              << tally.tags << " tags, " << tally.links << " <a>), "
              << tally.pages - tally.agree - tally.raises << " disagree, " << tally.raises
              << " where html.parser raises (read, not compared)\n";
    if (tally.pages < minimum) {
      std::cout << "error: " << family << ": only " << tally.pages << " pages, at least " << minimum
                << " expected (is gen_index_pages.py broken?)\n";
      too_few = true;
    }
    pages += tally.pages;
    links += tally.links;
    agree += tally.agree;
    raises += tally.raises;
  }
  std::cout << pages << " pages, " << links << " <a> compared: " << agree << " agree, " << raises
            << " not compared (html.parser raises), " << failed << " disagree\n";
  return failed == 0 && !too_few ? 0 : 1;
}
