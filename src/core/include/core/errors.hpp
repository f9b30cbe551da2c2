// The error tier above the pure parsers: exceptions that orchestration code throws and `main`
// catches once, printing them and exiting with the code in README.md ("Exit codes").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wheelmod {

/// Exit codes; scripts rely on these numbers.
enum class ExitCode : int {
  success = 0,
  internal = 1,       // a bug
  usage = 2,          // bad option, unknown toolchain, bad YAML
  unsatisfiable = 3,  // nothing satisfies the request
  io = 4,             // network or file-system failure after retries
  integrity = 5,      // hash mismatch, RECORD mismatch, unsafe archive
  check_failed = 6,   // unresolved libraries, a swap that would break
};

/// A failure the user can act on: `subject` is what it is about (a file, URL, archive entry,
/// option), `cause` what went wrong, `hint` what to do. Printed as:
///   error: <subject>: <cause>
///     caused by: <detail>          (each, in order)
///   hint: <hint>
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string subject, std::string cause, std::string hint = {});

  [[nodiscard]] ExitCode code() const { return m_code; }
  [[nodiscard]] const std::string& subject() const { return m_subject; }
  [[nodiscard]] const std::string& cause() const { return m_cause; }
  [[nodiscard]] const std::string& hint() const { return m_hint; }
  [[nodiscard]] const std::vector<std::string>& details() const { return m_details; }

  /// Adds a "caused by:" line (a lower-level reason), returns *this.
  Error& with_detail(std::string detail);
  Error& with_hint(std::string hint);

  /// The whole message as printed (lines end in '\n').
  [[nodiscard]] std::string render() const;

 private:
  ExitCode m_code;
  std::string m_subject;
  std::string m_cause;
  std::string m_hint;
  std::vector<std::string> m_details;
};

class UsageError : public Error {
 public:
  UsageError(std::string subject, std::string cause, std::string hint = {})
      : Error(ExitCode::usage, std::move(subject), std::move(cause), std::move(hint)) {}
};

class UnsatisfiableError : public Error {
 public:
  UnsatisfiableError(std::string subject, std::string cause, std::string hint = {})
      : Error(ExitCode::unsatisfiable, std::move(subject), std::move(cause), std::move(hint)) {}
};

class IoError : public Error {
 public:
  IoError(std::string subject, std::string cause, std::string hint = {})
      : Error(ExitCode::io, std::move(subject), std::move(cause), std::move(hint)) {}
};

class IntegrityError : public Error {
 public:
  IntegrityError(std::string subject, std::string cause, std::string hint = {})
      : Error(ExitCode::integrity, std::move(subject), std::move(cause), std::move(hint)) {}
};

class CheckFailedError : public Error {
 public:
  CheckFailedError(std::string subject, std::string cause, std::string hint = {})
      : Error(ExitCode::check_failed, std::move(subject), std::move(cause), std::move(hint)) {}
};

}  // namespace wheelmod
