#include "pep/record.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <expected>
#include <optional>
#include <ranges>
#include <system_error>
#include <utility>

namespace wheelmod::pep {

namespace {

constexpr std::string_view k_b64url_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::uint8_t k_not_b64 = 0xff;

constexpr std::array<std::uint8_t, 256> make_b64url_values() {
  std::array<std::uint8_t, 256> values{};
  values.fill(k_not_b64);
  for (std::size_t i = 0; i < k_b64url_alphabet.size(); ++i)
    values[static_cast<unsigned char>(k_b64url_alphabet[i])] = static_cast<std::uint8_t>(i);
  return values;
}
constexpr auto k_b64url_values = make_b64url_values();

bool is_line_break(char c) { return c == '\r' || c == '\n'; }

/// One CSV record as Python's csv.reader returns it, with where it came from.
struct CsvRow {
  std::vector<std::string> fields;
  std::size_t line = 0;  // 1-based line the row starts on
  std::string_view raw;  // the row as written, without its line break
};

/// Python's csv.reader (dialect 'excel', strict=False) over a whole text, as
/// when a file opened with newline='' is read: outside quotes `\r`, `\n` and
/// `\r\n` end a row; inside quotes they are data; `""` inside quotes is `"`.
/// Like Python, a quote in the middle of an unquoted field is data, and
/// characters after a closing quote are appended (`"a"b` reads `ab`).
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : m_text(text) {}

  [[nodiscard]] bool at_end() const { return m_pos >= m_text.size(); }

  /// The next row; an empty line reads as a row without fields (as Python's
  /// reader returns []). Call only when !at_end().
  Parsed<CsvRow> next() {
    CsvRow row;
    row.line = m_line;
    const std::size_t begin = m_pos;
    if (!is_line_break(m_text[m_pos])) {
      for (;;) {
        auto field = read_field();
        if (!field) {
          // The rest of the text may be the whole RECORD: show the row's
          // first line only.
          const auto first_line = m_text.substr(begin, m_text.find_first_of("\r\n", begin) - begin);
          return std::unexpected(ParseError{
              std::string(first_line), "line " + std::to_string(row.line) + ": " + field.error()});
        }
        row.fields.push_back(std::move(*field));
        if (at_end() || m_text[m_pos] != ',') break;
        ++m_pos;  // the delimiter; a row ending in ',' has a last empty field
      }
    }
    row.raw = m_text.substr(begin, m_pos - begin);
    skip_line_break();
    return row;
  }

 private:
  /// One field from m_pos; the error is a message (an unclosed quote).
  std::expected<std::string, std::string> read_field() {
    std::string field;
    if (!at_end() && m_text[m_pos] == '"') {
      for (++m_pos;; ++m_pos) {
        if (at_end()) return std::unexpected("quoted field is not closed (missing '\"')");
        const char c = m_text[m_pos];
        if (c == '"') {
          if (m_pos + 1 == m_text.size() || m_text[m_pos + 1] != '"') {
            ++m_pos;
            break;
          }
          ++m_pos;  // doublequote=True: `""` is one `"`
        }
        // Line breaks inside quotes are data, but still lines for messages.
        if (c == '\n' || (c == '\r' && (m_pos + 1 == m_text.size() || m_text[m_pos + 1] != '\n')))
          ++m_line;
        field.push_back(c);
      }
    }
    while (!at_end() && m_text[m_pos] != ',' && !is_line_break(m_text[m_pos]))
      field.push_back(m_text[m_pos++]);
    return field;
  }

  void skip_line_break() {
    if (at_end()) return;
    if (m_text[m_pos] == '\r' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n') ++m_pos;
    ++m_pos;
    ++m_line;
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::size_t m_line = 1;
};

Parsed<std::uint64_t> parse_size(std::string_view text) {
  // PEP 376 "RECORD": the size is the file's length in bytes, a decimal
  // integer. Only digits: no sign, spaces or `_` (which Python's int() takes).
  if (!std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; }))
    return std::unexpected(ParseError{std::string(text), "size must be a non-negative integer"});
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    return std::unexpected(ParseError{std::string(text), "size is too large"});
  return value;
}

Parsed<RecordHash> parse_hash(std::string_view text) {
  // Spec "The RECORD file": `<algorithm>=<urlsafe_b64encode_nopad(digest)>`.
  // The digest never contains `=` unless padded, so split at the first one.
  const auto equals = text.find('=');
  if (equals == std::string_view::npos)
    return std::unexpected(ParseError{std::string(text), "hash must be '<algorithm>=<digest>'"});
  if (equals == 0) return std::unexpected(ParseError{std::string(text), "hash algorithm is empty"});
  auto digest = urlsafe_b64decode(text.substr(equals + 1));
  if (!digest) return std::unexpected(ParseError{std::string(text), digest.error().message});
  return RecordHash{std::string(text.substr(0, equals)), std::move(*digest)};
}

Parsed<RecordEntry> parse_row(const CsvRow& row) {
  const auto fail = [&](const std::string& message) {
    return std::unexpected(
        ParseError{std::string(row.raw), "line " + std::to_string(row.line) + ": " + message});
  };
  if (row.fields.size() != 3) {
    return fail("expected 3 fields (path,hash,size), got " + std::to_string(row.fields.size()));
  }
  RecordEntry entry{row.fields[0], std::nullopt, std::nullopt};
  if (entry.path.empty()) return fail("path is empty");
  if (!row.fields[1].empty()) {
    auto hash = parse_hash(row.fields[1]);
    if (!hash) return fail("hash '" + row.fields[1] + "': " + hash.error().message);
    entry.hash = std::move(*hash);
  }
  if (!row.fields[2].empty()) {
    auto size = parse_size(row.fields[2]);
    if (!size) return fail("size '" + row.fields[2] + "': " + size.error().message);
    entry.size = *size;
  }
  return entry;
}

/// Python's csv.writer, QUOTE_MINIMAL: quote a field only when it holds the
/// delimiter, the quote character or a line break (Python 3.13 quotes `\r`
/// and `\n` whatever the line terminator; 3.11 with lineterminator='\n'
/// left `\r` bare, which its own reader then splits). Spaces are not quoted.
void append_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (const char c : field) {
    if (c == '"') out += '"';  // doublequote=True
    out += c;
  }
  out += '"';
}

}  // namespace

std::string RecordHash::str() const { return algorithm + "=" + urlsafe_b64encode_nopad(digest); }

Parsed<std::vector<RecordEntry>> parse_record(std::string_view text) {
  std::vector<RecordEntry> entries;
  CsvReader reader(text);
  while (!reader.at_end()) {
    auto row = reader.next();
    if (!row) return std::unexpected(std::move(row.error()));
    // Empty lines: Python's reader yields [] for them, which pip then indexes
    // (IndexError) and `installer` rejects; no tool writes them, but a
    // hand-edited RECORD may end in one, so they are skipped.
    if (row->fields.empty()) continue;
    auto entry = parse_row(*row);
    if (!entry) return std::unexpected(std::move(entry.error()));
    entries.push_back(std::move(*entry));
  }
  return entries;
}

std::string write_record(const std::vector<RecordEntry>& entries) {
  // `\n` line ends, as wheel's bdist_wheel and `installer` write RECORD
  // (csv.writer(..., lineterminator="\n")). pip's own installed RECORD
  // uses csv's default `\r\n`; every reader accepts both.
  std::string out;
  for (const auto& entry : entries) {
    append_field(out, entry.path);
    out += ',';
    if (entry.hash) append_field(out, entry.hash->str());
    out += ',';
    if (entry.size) out += std::to_string(*entry.size);
    out += '\n';
  }
  return out;
}

RecordCheck check_record_entry(const RecordEntry& entry,
                               std::span<const std::uint8_t> sha256_digest, std::uint64_t size) {
  if (!entry.hash) return RecordCheck::no_hash;
  if (entry.hash->algorithm != "sha256") return RecordCheck::unsupported_algorithm;
  // A wrong size is the more specific diagnosis (truncated or replaced file),
  // so it wins over the hash mismatch it implies.
  if (entry.size && *entry.size != size) return RecordCheck::size_mismatch;
  if (!std::ranges::equal(entry.hash->digest, sha256_digest)) return RecordCheck::hash_mismatch;
  return RecordCheck::ok;
}

std::string urlsafe_b64encode_nopad(std::span<const std::uint8_t> bytes) {
  // RFC 4648 §5 (base64url); PEP 376/627 RECORD drops the trailing `=`.
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const auto group =
        (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) out += k_b64url_alphabet[(group >> shift) & 0x3f];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t group = std::uint32_t{bytes[i]} << 16;
    if (rest == 2) group |= std::uint32_t{bytes[i + 1]} << 8;
    out += k_b64url_alphabet[(group >> 18) & 0x3f];
    out += k_b64url_alphabet[(group >> 12) & 0x3f];
    if (rest == 2) out += k_b64url_alphabet[(group >> 6) & 0x3f];
  }
  return out;
}

Parsed<std::vector<std::uint8_t>> urlsafe_b64decode(std::string_view text) {
  const auto fail = [&](std::string message) {
    return std::unexpected(ParseError{std::string(text), std::move(message)});
  };
  // RFC 4648 §3.2: padding is optional here (RECORD omits it); when present
  // it must complete the last 4-character group.
  std::string_view data = text;
  while (!data.empty() && data.back() == '=' && text.size() - data.size() < 2)
    data.remove_suffix(1);
  const std::size_t padding = text.size() - data.size();
  if (padding > 0 && text.size() % 4 != 0)
    return fail("padding '=' must complete a group of 4 characters");
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto c = static_cast<unsigned char>(data[i]);
    if (k_b64url_values[c] != k_not_b64) continue;
    std::string shown(1, data[i]);
    if (c < 0x20 || c >= 0x7f) {
      static constexpr char k_hex[] = "0123456789abcdef";
      shown = std::string("\\x") + k_hex[c >> 4] + k_hex[c & 0x0f];
    }
    std::string message =
        "invalid base64url character '" + shown + "' at offset " + std::to_string(i);
    if (c == '+' || c == '/')
      message += " ('+' and '/' are standard base64; base64url uses '-' and '_')";
    return fail(std::move(message));
  }
  // RFC 4648 §4: 4 characters carry 3 bytes; a lone character in the last
  // group carries only 6 bits, less than one byte.
  if (data.size() % 4 == 1)
    return fail("impossible base64url length " + std::to_string(data.size()));
  std::vector<std::uint8_t> out;
  out.reserve(data.size() * 3 / 4);
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (const char c : data) {
    bits = ((bits << 6) | k_b64url_values[static_cast<unsigned char>(c)]) & 0xffffff;
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out.push_back(static_cast<std::uint8_t>((bits >> bit_count) & 0xff));
    }
  }
  return out;
}

}  // namespace wheelmod::pep
