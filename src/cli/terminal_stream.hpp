// Everything wheelmod prints on standard output passes through one filter: text from an index or
// a wheel (a project's summary, a URL, a name in a warning) may hold escape sequences, carriage
// returns or bytes that are not UTF-8, which would rewrite what a terminal shows. The filter
// writes them as \xNN (core::terminal_text) wherever they come from, so that a command added
// later cannot forget it. JSON is printed ASCII-only (json_output) and passes unchanged.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wheelmod::cli {

/// A streambuf that holds what is written until a flush (or 64 KiB), then writes it to `target`
/// through terminal_text; a UTF-8 sequence cut by a write is completed by the next one.
class TerminalTextBuffer : public std::streambuf {
 public:
  explicit TerminalTextBuffer(std::ostream& target) : m_target(target) {}
  TerminalTextBuffer(const TerminalTextBuffer&) = delete;
  TerminalTextBuffer& operator=(const TerminalTextBuffer&) = delete;
  ~TerminalTextBuffer() override;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;
  int sync() override;

 private:
  void emit(bool everything);

  std::ostream& m_target;
  std::string m_pending;
};

/// An ostream over TerminalTextBuffer.
class TerminalTextStream : public std::ostream {
 public:
  explicit TerminalTextStream(std::ostream& target) : std::ostream(nullptr), m_buffer(target) {
    rdbuf(&m_buffer);
  }

 private:
  TerminalTextBuffer m_buffer;
};

/// A command's JSON output: indented by 2, every character outside printable ASCII as \uXXXX
/// (so no control character reaches a terminal, and any JSON parser reads it back), a byte that
/// is not UTF-8 as U+FFFD (never the exception that would end the command as an internal
/// error); then a newline.
std::string json_output(const nlohmann::json& document);

}  // namespace wheelmod::cli
