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

std::string mask_credentials(std::string_view url) {
  // scheme://userinfo@host...: only the password part of userinfo is secret.
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const auto authority_begin = scheme_end + 3;
  const auto authority_end = url.find_first_of("/?#", authority_begin);
  const auto authority = url.substr(authority_begin, authority_end == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : authority_end - authority_begin);
  const auto at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  const auto colon = authority.substr(0, at).find(':');
  std::string out(url.substr(0, authority_begin));
  if (colon == std::string_view::npos) {
    out += "***";  // a bare token in the user part is a secret too
  } else {
    out += authority.substr(0, colon);
    out += ":***";
  }
  out += url.substr(authority_begin + at);
  return out;
}

}  // namespace wheelmod
