// The installer's pure rules, as tables: member names (APPNOTE 4.4.17 and
// the safety rules), the .dist-info directory and WHEEL file (PyPA "Binary
// distribution format"), the scheme mapping, entry points (PyPA "Entry
// points specification") and the `#!python` rewrite, with pip 23.0.1 and
// distlib as the reference for the wrapper text.
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "pep/wheel_filename.hpp"
#include "require_parsed.hpp"
#include "wheel/install_layout.hpp"
#include "wheel/install_scripts.hpp"

using namespace wheelmod::wheel;
using wheelmod::test::require_parsed;

namespace {

std::string rewrite(std::string_view input, std::size_t chunk) {
  ShebangRewriter rewriter("/usr/bin/env python");
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < input.size(); i += chunk) {
    const auto part = input.substr(i, chunk);
    rewriter.feed({reinterpret_cast<const std::uint8_t*>(part.data()), part.size()}, out);
  }
  rewriter.finish(out);
  return {out.begin(), out.end()};
}

}  // namespace

TEST_CASE("member names: safe ones are normalised", "[install][rules]") {
  struct Case {
    std::string_view name;
    std::string_view path;
    bool directory;
  };
  const Case cases[] = {
      {"pip/__init__.py", "pip/__init__.py", false},
      {"./pip/__init__.py", "pip/__init__.py", false},
      {"pip/./x.py", "pip/x.py", false},
      {"pip//x.py", "pip/x.py", false},
      {"pip/", "pip", true},
      {"torch/lib/libtorch_cuda.so", "torch/lib/libtorch_cuda.so", false},
      {"a..b/c", "a..b/c", false},  // `..` inside a name is only a name
      {"d\xc3\xa9j\xc3\xa0/x", "d\xc3\xa9j\xc3\xa0/x", false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto checked = check_member_name(c.name);
    REQUIRE(checked.has_value());
    CHECK(checked->path == c.path);
    CHECK(checked->directory == c.directory);
  }
}

TEST_CASE("member names: unsafe ones are refused with the reason", "[install][rules]") {
  struct Case {
    std::string_view name;
    std::string_view reason;
  };
  const Case cases[] = {
      {"", "empty name"},
      {"./", "empty name"},
      {"/etc/passwd", "absolute path"},
      {"C:/x.py", "drive letter"},
      {"c:x.py", "drive letter"},
      {"pip/../../x.py", "'..' component"},
      {"..", "'..' component"},
      {"pip/..", "'..' component"},
      {"pip\\x.py", "backslash"},
      {"pip/x\n.py", "control character"},
      {"pip/\x1b[2Kx.py", "control character"},
      {"pip/x\x7f.py", "control character"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto checked = check_member_name(c.name);
    REQUIRE_FALSE(checked.has_value());
    CHECK_THAT(checked.error(), Catch::Contains(std::string(c.reason)));
  }
  CHECK(printable("a\x1b[2K\n") == "a\\x1b[2K\\x0a");
}

TEST_CASE("the .dist-info directory is the one the file name names", "[install][rules]") {
  const auto wheel = require_parsed(
      wheelmod::pep::WheelFilename::parse("Foo.Bar-1.0.0+cu126-py3-none-any.whl"), "wheel");
  const std::vector<std::string> good{"foo", "foo_bar-1.0.0+cu126.dist-info",
                                      "foo_bar-1.0.0+cu126.data"};
  CHECK(find_dist_info(good, wheel) == "foo_bar-1.0.0+cu126.dist-info");
  const std::vector<std::string> spelled{"Foo.Bar-1.0+cu126.dist-info"};  // 1.0 == 1.0.0 (PEP 440)
  CHECK(find_dist_info(spelled, wheel) == "Foo.Bar-1.0+cu126.dist-info");

  const std::vector<std::string> none{"foo"};
  CHECK(find_dist_info(none, wheel).error() == "no .dist-info directory");
  const std::vector<std::string> two{"a-1.dist-info", "foo_bar-1.0.0+cu126.dist-info"};
  CHECK_THAT(find_dist_info(two, wheel).error(), Catch::Contains("more than one"));
  const std::vector<std::string> other{"other-1.0.0+cu126.dist-info"};
  CHECK_THAT(find_dist_info(other, wheel).error(), Catch::Contains("does not belong to foo-bar"));
  const std::vector<std::string> version{"foo_bar-1.0.1.dist-info"};
  CHECK_THAT(find_dist_info(version, wheel).error(), Catch::Contains("does not belong"));
}

TEST_CASE("WHEEL: version and root", "[install][rules]") {
  const auto info = parse_wheel_info(
      "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.38.4)\nRoot-Is-Purelib: true\nTag: py3\n");
  REQUIRE(info.has_value());
  CHECK(info->major == 1);
  CHECK(info->minor == 0);
  CHECK(info->root_is_purelib);

  const auto platlib = parse_wheel_info("wheel-version: 2.13\r\nRoot-Is-Purelib: false\r\n");
  REQUIRE(platlib.has_value());
  CHECK(platlib->major == 2);
  CHECK(platlib->minor == 13);
  CHECK_FALSE(platlib->root_is_purelib);

  CHECK(parse_wheel_info("Generator: x\n").error() == "no Wheel-Version");
  CHECK_THAT(parse_wheel_info("Wheel-Version: 1\n").error(), Catch::Contains("MAJOR.MINOR"));
  CHECK_THAT(parse_wheel_info("Wheel-Version: one.0\n").error(), Catch::Contains("MAJOR.MINOR"));
  // Headers end at the first empty line, as in Python's email parser.
  CHECK(parse_wheel_info("Generator: x\n\nWheel-Version: 1.0\n").error() == "no Wheel-Version");
}

TEST_CASE("scheme mapping of members", "[install][rules]") {
  const std::string_view data = "demo-1.0.data";
  struct Case {
    std::string_view path;
    SchemeKey key;
    std::string_view subpath;
  };
  const Case cases[] = {
      {"demo/__init__.py", SchemeKey::purelib, "demo/__init__.py"},
      {"demo-1.0.data/purelib/x.py", SchemeKey::purelib, "x.py"},
      {"demo-1.0.data/platlib/a/b.so", SchemeKey::platlib, "a/b.so"},
      {"demo-1.0.data/scripts/run", SchemeKey::scripts, "run"},
      {"demo-1.0.data/headers/demo.h", SchemeKey::headers, "demo.h"},
      {"demo-1.0.data/data/share/x", SchemeKey::data, "share/x"},
      {"demo-1.0.dataish/x", SchemeKey::purelib, "demo-1.0.dataish/x"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.path);
    const auto placed = place_member(c.path, data, SchemeKey::purelib);
    REQUIRE(placed.has_value());
    CHECK(placed->key == c.key);
    CHECK(placed->subpath == c.subpath);
  }
  CHECK(place_member("x.py", data, SchemeKey::platlib)->key == SchemeKey::platlib);
  CHECK_THAT(place_member("demo-1.0.data/lib/x", data, SchemeKey::purelib).error(),
             Catch::Contains("unknown scheme directory 'lib'"));
  CHECK_THAT(place_member("demo-1.0.data/x", data, SchemeKey::purelib).error(),
             Catch::Contains("outside any scheme directory"));
}

TEST_CASE("entry points: script groups", "[install][rules]") {
  const auto scripts = require_parsed(parse_script_entry_points(R"([console_scripts]
pip = pip._internal.cli.main:main
# a comment
; another
tool=pkg.mod : App.run [extra1, extra2]

[distutils.commands]
alias = setuptools.command.alias:alias
not an entry point line

[gui_scripts]
  viewer  =  pkg.gui:main
)"),
                                      "entry points");
  using wheelmod::wheel::ScriptKind;
  const std::vector<ScriptEntryPoint> expected{
      {"pip", "pip._internal.cli.main", "main", ScriptKind::console},
      {"tool", "pkg.mod", "App.run", ScriptKind::console},
      {"viewer", "pkg.gui", "main", ScriptKind::gui},
  };
  CHECK(scripts == expected);
}

TEST_CASE("entry points: refused lines", "[install][rules]") {
  struct Case {
    std::string_view text;
    std::string_view reason;
  };
  const Case cases[] = {
      {"[console_scripts]\nx = pkg.mod\n", "needs a callable"},
      {"[console_scripts]\nx = os; os.system('true') #:main\n", "dotted Python identifiers"},
      {"[console_scripts]\nx = pkg:main()\n", "dotted Python identifiers"},
      {"[console_scripts]\nx = 1pkg:main\n", "dotted Python identifiers"},
      {"[console_scripts]\n../x = pkg:main\n", "not a file name"},
      {"[console_scripts]\n.. = pkg:main\n", "not a file name"},
      {"[gui_scripts]\n = pkg:main\n", "not a file name"},
      {"[console_scripts]\nx = a:b\n[gui_scripts]\nx = a:c\n", "twice"},
      {"[console_scripts]\njust text\n", "expected 'name = module:function'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto parsed = parse_script_entry_points(c.text);
    REQUIRE_FALSE(parsed.has_value());
    CHECK_THAT(parsed.error().message, Catch::Contains(std::string(c.reason)));
  }
}

TEST_CASE("console script wrapper: pip's text", "[install][rules]") {
  // What pip 23.0.1 wrote for `pip = pip._internal.cli.main:main`, with
  // its interpreter line replaced.
  const ScriptEntryPoint pip{"pip", "pip._internal.cli.main", "main", ScriptKind::console};
  CHECK(script_wrapper(pip, "/usr/bin/python3") ==
        "#!/usr/bin/python3\n"
        "# -*- coding: utf-8 -*-\n"
        "import re\n"
        "import sys\n"
        "from pip._internal.cli.main import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n");
  const ScriptEntryPoint dotted{"tool", "pkg.mod", "App.run", ScriptKind::gui};
  const auto text = script_wrapper(dotted, "/usr/bin/env python");
  CHECK_THAT(text, Catch::StartsWith("#!/usr/bin/env python\n"));
  CHECK_THAT(text, Catch::Contains("from pkg.mod import App\n"));
  CHECK_THAT(text, Catch::Contains("    sys.exit(App.run())\n"));
}

TEST_CASE("#!python rewrite, in chunks of any size", "[install][rules]") {
  struct Case {
    std::string_view input;
    std::string_view output;
  };
  const Case cases[] = {
      {"#!python\nprint(1)\n", "#!/usr/bin/env python\nprint(1)\n"},
      {"#!pythonw\nx\n", "#!/usr/bin/env python\nx\n"},
      {"#!python -u\r\nx\n", "#!/usr/bin/env python\nx\n"},  // pip replaces the whole line
      {"#!python", "#!/usr/bin/env python\n"},
      {"#!/bin/sh\necho\n", "#!/bin/sh\necho\n"},
      {"#!pytho", "#!pytho"},
      {"", ""},
      {"print('#!python')\n", "print('#!python')\n"},
  };
  for (const auto& c : cases) {
    for (const std::size_t chunk : {1UL, 3UL, 8UL, 9UL, 4096UL}) {
      CAPTURE(c.input, chunk);
      CHECK(rewrite(c.input, chunk) == c.output);
    }
  }
}
