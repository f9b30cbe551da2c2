#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "hash/sha256.hpp"
#include "pep/record.hpp"

using wheelmod::pep::check_record_entry;
using wheelmod::pep::parse_record;
using wheelmod::pep::RecordCheck;
using wheelmod::pep::RecordEntry;
using wheelmod::pep::RecordHash;
using wheelmod::pep::urlsafe_b64decode;
using wheelmod::pep::urlsafe_b64encode_nopad;
using wheelmod::pep::write_record;

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

Bytes from_hex(std::string_view hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(
        static_cast<std::uint8_t>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

// Digests below were computed with
//   /usr/bin/python3 -c "import hashlib; print(hashlib.sha256(b'...').hexdigest())"
// and their RECORD form with
//   base64.urlsafe_b64encode(hashlib.sha256(b'...').digest()).rstrip(b'=')
const Bytes k_sha256_empty =
    from_hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
const Bytes k_sha256_abc =
    from_hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
const Bytes k_sha256_hello =
    from_hex("a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447");
const Bytes k_sha256_import_torch =
    from_hex("b91a3bc5e2064d025a8ae122555c96948ec5b4895d53d809c4b66b71a4915133");

RecordEntry entry(std::string path, const Bytes& digest, std::optional<std::uint64_t> size) {
  return RecordEntry{std::move(path), RecordHash{"sha256", digest}, size};
}
RecordEntry bare(std::string path) {
  return RecordEntry{std::move(path), std::nullopt, std::nullopt};
}

// A torch wheel's RECORD in miniature, LF line ends as bdist_wheel writes it.
constexpr std::string_view k_torch_record =
    "torch/__init__.py,sha256=uRo7xeIGTQJaiuEiVVyWlI7FtIldU9gJxLZrcaSRUTM,13\n"
    "torch/lib/libtorch_cpu.so,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,123\n"
    "torch/lib/empty.so,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\n"
    "torch/__pycache__/__init__.cpython-312.pyc,,\n"
    "torch-2.6.0+cu126.dist-info/RECORD,,\n";

std::vector<RecordEntry> torch_entries() {
  return {entry("torch/__init__.py", k_sha256_import_torch, 13),
          entry("torch/lib/libtorch_cpu.so", k_sha256_abc, 123),
          entry("torch/lib/empty.so", k_sha256_empty, 0),
          bare("torch/__pycache__/__init__.cpython-312.pyc"),
          bare("torch-2.6.0+cu126.dist-info/RECORD")};
}

}  // namespace

TEST_CASE("parse_record reads a wheel's RECORD", "[pep][record]") {
  const auto parsed = parse_record(k_torch_record);
  REQUIRE(parsed.has_value());
  CHECK(*parsed == torch_entries());
}

TEST_CASE("parse_record accepts LF, CRLF and CR line ends and a last line without one",
          "[pep][record]") {
  // pip writes installed RECORDs with csv's default "\r\n"; bdist_wheel and
  // installer write "\n"; Python's reader (newline='') also splits at "\r".
  const std::vector<RecordEntry> expected{entry("a.py", k_sha256_abc, 3),
                                          bare("a-1.dist-info/RECORD")};
  const std::vector<std::string_view> inputs{
      "a.py,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,3\na-1.dist-info/RECORD,,\n",
      "a.py,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,3\r\na-1.dist-info/RECORD,,\r\n",
      "a.py,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,3\ra-1.dist-info/RECORD,,\r",
      "a.py,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,3\na-1.dist-info/RECORD,,",
      "a.py,sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0,3\r\na-1.dist-info/RECORD,,",
  };
  for (const auto input : inputs) {
    CAPTURE(input);
    const auto parsed = parse_record(input);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == expected);
  }
}

TEST_CASE("parse_record skips empty lines", "[pep][record]") {
  const std::vector<RecordEntry> expected{bare("a.py"), bare("b.py")};
  const std::vector<std::string_view> inputs{
      "\na.py,,\n\nb.py,,\n\n", "a.py,,\r\n\r\nb.py,,\r\n\r\n", "a.py,,\n\r\n\rb.py,,"};
  for (const auto input : inputs) {
    CAPTURE(input);
    const auto parsed = parse_record(input);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == expected);
  }
  REQUIRE(parse_record("").has_value());
  CHECK(parse_record("").value().empty());
}

TEST_CASE("parse_record unquotes paths as Python's csv.reader does", "[pep][record]") {
  // Expected values checked with /usr/bin/python3 (3.11):
  //   list(csv.reader(io.StringIO(row, newline='')))
  struct {
    std::string_view row;
    std::string_view path;
  } const cases[] = {
      {"plain/path.py,,", "plain/path.py"},
      {"\"a,b.py\",,", "a,b.py"},
      {"\"say \"\"hi\"\".txt\",,", "say \"hi\".txt"},
      {"\"line\nbreak.txt\",,", "line\nbreak.txt"},
      {"\"crlf\r\ninside\",,", "crlf\r\ninside"},
      {"\"cr\rinside\",,", "cr\rinside"},
      {"\"\"\"\",,", "\""},
      {"a\"b.py,,", "a\"b.py"},      // a quote inside an unquoted field is data
      {"\"a\"b.py,,", "ab.py"},      // text after a closing quote is appended (strict=False)
      {"\"a\"b\"c\",,", "ab\"c\""},  // ... and quotes in it are then data
      {" spaced name.py ,,", " spaced name.py "},  // no space stripping
      {"\"quoted-plain.py\",,", "quoted-plain.py"},
      {"caf\xc3\xa9/\xe6\x97\xa5.py,,", "caf\xc3\xa9/\xe6\x97\xa5.py"},  // UTF-8 kept as bytes
      {"../escape/../../kept.py,,", "../escape/../../kept.py"},          // kept as written
  };
  for (const auto& c : cases) {
    CAPTURE(c.row);
    const auto parsed = parse_record(c.row);
    REQUIRE(parsed.has_value());
    REQUIRE(parsed->size() == 1);
    CHECK(parsed->front().path == c.path);
    CHECK_FALSE(parsed->front().hash.has_value());
    CHECK_FALSE(parsed->front().size.has_value());
  }
}

TEST_CASE("parse_record reads hash and size fields", "[pep][record]") {
  struct {
    std::string_view row;
    std::optional<RecordHash> hash;
    std::optional<std::uint64_t> size;
  } const cases[] = {
      {"f,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0",
       RecordHash{"sha256", k_sha256_empty}, 0},
      // padding is tolerated (Python's urlsafe_b64decode needs it, RECORD omits it)
      {"f,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU=,0",
       RecordHash{"sha256", k_sha256_empty}, 0},
      {"f,sha256=qUiQTy8PR5uPgZdpSzAYSw0u0cHNKh7A-4XSmaGSpEc,",
       RecordHash{"sha256", k_sha256_hello}, std::nullopt},
      {"f,,12", std::nullopt, 12},
      {"f,,007", std::nullopt, 7},
      {"f,,18446744073709551615", std::nullopt, 18446744073709551615ULL},
      {"f,sha512=Zm9vYmFy,6", RecordHash{"sha512", bytes_of("foobar")},
       6},  // kept; checking rejects it
      {"f,md5=,1", RecordHash{"md5", {}}, 1},
  };
  for (const auto& c : cases) {
    CAPTURE(c.row);
    const auto parsed = parse_record(c.row);
    REQUIRE(parsed.has_value());
    REQUIRE(parsed->size() == 1);
    CHECK(parsed->front().hash == c.hash);
    CHECK(parsed->front().size == c.size);
  }
}

TEST_CASE("parse_record rejects rows without exactly 3 fields", "[pep][record]") {
  struct {
    std::string_view text;
    std::string_view input;    // the offending row as written
    std::string_view message;  // the whole message
  } const cases[] = {
      {"a.py,,\nb.py,sha256=\n",
       "b.py,sha256=", "line 2: expected 3 fields (path,hash,size), got 2"},
      {"a.py\n", "a.py", "line 1: expected 3 fields (path,hash,size), got 1"},
      {"a.py,,,\n", "a.py,,,", "line 1: expected 3 fields (path,hash,size), got 4"},
      {"x,,\n\n\"a,b\",c,d,e", "\"a,b\",c,d,e",
       "line 3: expected 3 fields (path,hash,size), got 4"},
      // line numbers count the line breaks inside quoted fields
      {"\"x\ny\",,\nz\n", "z", "line 3: expected 3 fields (path,hash,size), got 1"},
      {"a,,\r\nb\r\n", "b", "line 2: expected 3 fields (path,hash,size), got 1"},
      {" \n", " ", "line 1: expected 3 fields (path,hash,size), got 1"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto parsed = parse_record(c.text);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().input == c.input);
    CHECK(parsed.error().message == c.message);
  }
}

TEST_CASE("parse_record rejects bad hash, size and path fields", "[pep][record]") {
  struct {
    std::string_view text;
    std::string_view message;
  } const cases[] = {
      {"f,sha256,1", "line 1: hash 'sha256': hash must be '<algorithm>=<digest>'"},
      {"f,=abcd,1", "line 1: hash '=abcd': hash algorithm is empty"},
      {"f,sha256=ab+d,1",
       "line 1: hash 'sha256=ab+d': invalid base64url character '+' at offset 2 ('+' and '/' are "
       "standard base64; base64url uses '-' and '_')"},
      {"f,sha256=abcde,1", "line 1: hash 'sha256=abcde': impossible base64url length 5"},
      {"f,sha256=ab cd,1",
       "line 1: hash 'sha256=ab cd': invalid base64url character ' ' at offset 2"},
      {"f,,-1", "line 1: size '-1': size must be a non-negative integer"},
      {"f,,+1", "line 1: size '+1': size must be a non-negative integer"},
      {"f,, 1", "line 1: size ' 1': size must be a non-negative integer"},
      {"f,,1_000", "line 1: size '1_000': size must be a non-negative integer"},
      {"f,,1.5", "line 1: size '1.5': size must be a non-negative integer"},
      {"f,,18446744073709551616", "line 1: size '18446744073709551616': size is too large"},
      {",,", "line 1: path is empty"},
      {"ok,,\n\"\",sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0", "line 2: path is empty"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto parsed = parse_record(c.text);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().message == c.message);
  }
}

TEST_CASE("parse_record rejects an unclosed quoted field", "[pep][record]") {
  // Python's non-strict reader would silently end the field at EOF; a
  // truncated RECORD must not pass as a shorter valid one.
  const auto parsed = parse_record("a.py,,\n\"b.py,,\nc.py,,\n");
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().input == "\"b.py,,");  // the row's first line, not the rest of the file
  CHECK(parsed.error().message == "line 2: quoted field is not closed (missing '\"')");
  CHECK(parsed.error().describe("RECORD row") ==
        "invalid RECORD row '\"b.py,,': line 2: quoted field is not closed (missing '\"')");
}

TEST_CASE("write_record writes rows as Python's csv.writer", "[pep][record]") {
  // Expected bytes checked with Python 3.13:
  //   csv.writer(buf, lineterminator="\n").writerows(rows)
  CHECK(write_record(torch_entries()) == k_torch_record);
  CHECK(write_record({}).empty());
  struct {
    RecordEntry entry;
    std::string_view line;
  } const cases[] = {
      {bare("a,b.py"), "\"a,b.py\",,\n"},
      {bare("say \"hi\".txt"), "\"say \"\"hi\"\".txt\",,\n"},
      {bare("line\nbreak"), "\"line\nbreak\",,\n"},
      {bare("cr\rinside"), "\"cr\rinside\",,\n"},  // Python 3.11 left this bare
      {bare(" spaced "), " spaced ,,\n"},          // QUOTE_MINIMAL: spaces are not quoted
      {bare("tab\tand'apostrophe"), "tab\tand'apostrophe,,\n"},
      {RecordEntry{"s", std::nullopt, 42}, "s,,42\n"},
      {RecordEntry{"h", RecordHash{"sha256", k_sha256_empty}, std::nullopt},
       "h,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,\n"},
      {RecordEntry{"odd", RecordHash{"a,b", bytes_of("f")}, 1}, "odd,\"a,b=Zg\",1\n"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.line);
    CHECK(write_record({c.entry}) == c.line);
  }
}

TEST_CASE("parse_record reads back what write_record wrote", "[pep][record]") {
  std::vector<RecordEntry> entries = torch_entries();
  for (const std::string_view path : {"a,b", "\"", "\"\"", "q\"uote", "\"lead", "trail\"",
                                      "new\nline", "cr\r", "\r\n", ",", " ", "x,\"y\"\r\n,z"})
    entries.push_back(bare(std::string(path)));
  entries.push_back(
      RecordEntry{"sized", RecordHash{"sha256", k_sha256_hello}, 18446744073709551615ULL});
  const auto parsed = parse_record(write_record(entries));
  REQUIRE(parsed.has_value());
  CHECK(*parsed == entries);
}

TEST_CASE("RecordHash::str is algorithm=urlsafe-b64 without padding", "[pep][record]") {
  CHECK(RecordHash{"sha256", k_sha256_empty}.str() ==
        "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  CHECK(RecordHash{"sha256", k_sha256_abc}.str() ==
        "sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  CHECK(RecordHash{"md5", {}}.str() == "md5=");
}

TEST_CASE("RECORD hashes of Sha256 digests match Python's", "[pep][record]") {
  struct {
    std::string_view content;
    std::string_view record_hash;
  } const cases[] = {
      {"", "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"},
      {"abc", "sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0"},
      {"hello world\n", "sha256=qUiQTy8PR5uPgZdpSzAYSw0u0cHNKh7A-4XSmaGSpEc"},
      {"import torch\n", "sha256=uRo7xeIGTQJaiuEiVVyWlI7FtIldU9gJxLZrcaSRUTM"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.content);
    wheelmod::hash::Sha256 hasher;
    hasher.update(c.content);
    const auto digest = hasher.finish();
    CHECK(RecordHash{"sha256", Bytes(digest.begin(), digest.end())}.str() == c.record_hash);
  }
}

TEST_CASE("check_record_entry compares sha256 digest and size", "[pep][record]") {
  struct {
    RecordEntry entry;
    Bytes digest;
    std::uint64_t size;
    RecordCheck expected;
  } const cases[] = {
      {entry("f", k_sha256_abc, 3), k_sha256_abc, 3, RecordCheck::ok},
      {entry("f", k_sha256_abc, std::nullopt), k_sha256_abc, 3,
       RecordCheck::ok},  // no size: not checked
      {entry("f", k_sha256_abc, 3), k_sha256_empty, 3, RecordCheck::hash_mismatch},
      {entry("f", k_sha256_abc, 3), k_sha256_abc, 4, RecordCheck::size_mismatch},
      {entry("f", k_sha256_abc, 3), k_sha256_empty, 0, RecordCheck::size_mismatch},  // size wins
      {entry("f", {}, 3), k_sha256_abc, 3, RecordCheck::hash_mismatch},  // truncated digest
      {bare("f"), k_sha256_abc, 3, RecordCheck::no_hash},
      {RecordEntry{"f", std::nullopt, 3}, k_sha256_abc, 3, RecordCheck::no_hash},
      {RecordEntry{"f", RecordHash{"sha512", k_sha256_abc}, 3}, k_sha256_abc, 3,
       RecordCheck::unsupported_algorithm},
      {RecordEntry{"f", RecordHash{"SHA256", k_sha256_abc}, 3}, k_sha256_abc, 3,
       RecordCheck::unsupported_algorithm},
  };
  for (const auto& c : cases) {
    CAPTURE(write_record({c.entry}), c.size);
    CHECK(check_record_entry(c.entry, c.digest, c.size) == c.expected);
  }
}

TEST_CASE("urlsafe_b64encode_nopad follows RFC 4648 §5 without padding", "[pep][record]") {
  // RFC 4648 §10 test vectors, padding removed; the last three use the two
  // characters where base64url differs from base64 ('-' for '+', '_' for '/').
  struct {
    Bytes input;
    std::string_view encoded;
  } const cases[] = {
      {bytes_of(""), ""},
      {bytes_of("f"), "Zg"},
      {bytes_of("fo"), "Zm8"},
      {bytes_of("foo"), "Zm9v"},
      {bytes_of("foob"), "Zm9vYg"},
      {bytes_of("fooba"), "Zm9vYmE"},
      {bytes_of("foobar"), "Zm9vYmFy"},
      {Bytes{0xfb, 0xff}, "-_8"},
      {Bytes{0xfb, 0xff, 0xbf}, "-_-_"},
      {Bytes{0x3e, 0x3f}, "Pj8"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.encoded);
    CHECK(urlsafe_b64encode_nopad(c.input) == c.encoded);
    const auto decoded = urlsafe_b64decode(c.encoded);
    REQUIRE(decoded.has_value());
    CHECK(*decoded == c.input);
  }
}

TEST_CASE("urlsafe_b64decode tolerates padding", "[pep][record]") {
  struct {
    std::string_view encoded;
    Bytes decoded;
  } const cases[] = {
      {"Zg==", bytes_of("f")},
      {"Zm8=", bytes_of("fo")},
      {"Zm9vYg==", bytes_of("foob")},
      {"Zm9vYmE=", bytes_of("fooba")},
      {"-_8=", Bytes{0xfb, 0xff}},
      {"Zh", bytes_of("f")},  // non-zero unused bits are ignored, as Python does
  };
  for (const auto& c : cases) {
    CAPTURE(c.encoded);
    const auto decoded = urlsafe_b64decode(c.encoded);
    REQUIRE(decoded.has_value());
    CHECK(*decoded == c.decoded);
  }
}

TEST_CASE("urlsafe_b64decode rejects other characters and impossible lengths", "[pep][record]") {
  struct {
    std::string_view encoded;
    std::string_view message;
  } const cases[] = {
      {"Zm9v+g",
       "invalid base64url character '+' at offset 4 ('+' and '/' are standard base64; "
       "base64url uses '-' and '_')"},
      {"/w",
       "invalid base64url character '/' at offset 0 ('+' and '/' are standard base64; base64url "
       "uses '-' and '_')"},
      {"Zm 9v", "invalid base64url character ' ' at offset 2"},
      {"Zm9v\n", "invalid base64url character '\\x0a' at offset 4"},
      {"Zm9v\xc3\xa9", "invalid base64url character '\\xc3' at offset 4"},
      {"Zm=9", "invalid base64url character '=' at offset 2"},
      {"Zg===", "padding '=' must complete a group of 4 characters"},
      {"Z", "impossible base64url length 1"},
      {"Zm9vY", "impossible base64url length 5"},
      {"Zg=", "padding '=' must complete a group of 4 characters"},
      {"Zm9=v", "invalid base64url character '=' at offset 3"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.encoded);
    const auto decoded = urlsafe_b64decode(c.encoded);
    REQUIRE_FALSE(decoded.has_value());
    CHECK(decoded.error().input == c.encoded);
    CHECK(decoded.error().message == c.message);
  }
}
