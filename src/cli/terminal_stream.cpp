#include "terminal_stream.hpp"

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/strings.hpp"

namespace wheelmod::cli {

namespace {

constexpr std::size_t k_hold_at_most = 64 * 1024;

// The number of bytes at the end of `text` that begin a UTF-8 sequence the text does not finish
// (0 to 3): held back for the next write rather than escaped as broken.
std::size_t unfinished_sequence(std::string_view text) {
  for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xc0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

}  // namespace

TerminalTextBuffer::~TerminalTextBuffer() {
  try {
    emit(true);
    m_target.flush();
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to report to from a destructor
  }
}

TerminalTextBuffer::int_type TerminalTextBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  m_pending.push_back(traits_type::to_char_type(c));
  if (m_pending.size() >= k_hold_at_most) emit(false);
  return c;
}

std::streamsize TerminalTextBuffer::xsputn(const char* text, std::streamsize count) {
  m_pending.append(text, static_cast<std::size_t>(count));
  if (m_pending.size() >= k_hold_at_most) emit(false);
  return count;
}

int TerminalTextBuffer::sync() {
  emit(true);
  m_target.flush();
  return m_target ? 0 : -1;
}

void TerminalTextBuffer::emit(bool everything) {
  const std::size_t keep = everything ? 0 : unfinished_sequence(m_pending);
  const std::string_view ready(m_pending.data(), m_pending.size() - keep);
  m_target << terminal_text(ready);
  m_pending.erase(0, ready.size());
}

std::string json_output(const nlohmann::json& document) {
  return document.dump(2, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace wheelmod::cli
