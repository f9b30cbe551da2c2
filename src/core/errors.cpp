#include "core/errors.hpp"

namespace wheelmod {

namespace {
std::string summary(const std::string& subject, const std::string& cause) {
  return subject.empty() ? cause : subject + ": " + cause;
}
}  // namespace

Error::Error(ExitCode code, std::string subject, std::string cause, std::string hint)
    : std::runtime_error(summary(subject, cause)),
      m_code(code),
      m_subject(std::move(subject)),
      m_cause(std::move(cause)),
      m_hint(std::move(hint)) {}

Error& Error::with_detail(std::string detail) {
  m_details.push_back(std::move(detail));
  return *this;
}

Error& Error::with_hint(std::string hint) {
  m_hint = std::move(hint);
  return *this;
}

std::string Error::render() const {
  std::string out = "error: " + summary(m_subject, m_cause) + "\n";
  for (const auto& detail : m_details) out += "  caused by: " + detail + "\n";
  if (!m_hint.empty()) out += "hint: " + m_hint + "\n";
  return out;
}

}  // namespace wheelmod
