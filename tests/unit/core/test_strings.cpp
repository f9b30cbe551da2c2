// core/strings: the text helpers every layer uses, printable() above all, which stands between
// text from an index or a wheel and a terminal or log.
#include <string>

#include <catch2/catch.hpp>

#include "core/strings.hpp"

TEST_CASE("printable escapes what would rewrite a terminal", "[core][strings]") {
  using wheelmod::printable;
  CHECK(printable("torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl") ==
        "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl");
  // An OSC title sequence, a carriage return that would overwrite the line, a forged log line.
  CHECK(printable("a\x1b]0;owned\x07z") == "a\\x1b]0;owned\\x07z");
  CHECK(printable("ok\rFAIL") == "ok\\x0dFAIL");
  CHECK(printable("x\nerror: forged") == "x\\x0aerror: forged");
  CHECK(printable(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(printable("del\x7f") == "del\\x7f");
  // Bytes outside ASCII (invalid UTF-8 among them) and the escape character itself.
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("a\\x1b") == "a\\\\x1b");
}

TEST_CASE("terminal_text keeps what is meant to be read", "[core][strings]") {
  using wheelmod::terminal_text;
  // UTF-8, backslashes, tabs and line breaks stay; controls and broken UTF-8 do not.
  CHECK(terminal_text("Tensors \xe2\x80\x94 fast \\ ok\tx\ny") ==
        "Tensors \xe2\x80\x94 fast \\ ok\tx\ny");
  CHECK(terminal_text("a\x1b[2Jb\rc") == "a\\x1b[2Jb\\x0dc");
  // C1 CSI (U+009B) as UTF-8, a lone 0x9b byte, U+2028, a truncated sequence, an overlong '/'.
  CHECK(terminal_text("\xc2\x9b") == "\\xc2\\x9b");
  CHECK(terminal_text("\x9b") == "\\x9b");
  CHECK(terminal_text("\xe2\x80\xa8") == "\\xe2\\x80\\xa8");
  CHECK(terminal_text("\xe2\x80") == "\\xe2\\x80");
  CHECK(terminal_text("\xc0\xaf") == "\\xc0\\xaf");
}

TEST_CASE("join, major_minor", "[core][strings]") {
  CHECK(wheelmod::join(std::vector<std::string>{"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(wheelmod::major_minor("3.12.3") == "3.12");
  CHECK(wheelmod::major_minor("3") == "3");
}
