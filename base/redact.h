// Secrets out of reports and recordings: the one place that decides what in
// a command line, a URL or a message looks like a secret and replaces it
// with kRedacted. Every output formats values that went through here once:
// when the collector writes a record (recording/record_secrets.h
// lists the fields), when a record enters the diagnosis (the same list, for
// a recording kept raw with --no-redact), and in the agent's hello, so the
// recording, HTML report, JSON, Markdown, terminal, /processes, /report and
// the Prometheus labels all show the same redacted text.
//
// What is redacted (docs/manual.md, "Secrets in reports"):
//  - `name=value` where the name looks secret (`--password=…`, `?token=…`,
//    `&api_key=…`, `DB_PASSWORD=…`): the value;
//  - `--token VALUE`, a secret-named option followed by its value;
//  - `Authorization:`, `Proxy-Authorization:`, `Cookie:`, `Set-Cookie:`,
//    `X-Api-Key:`, `X-Auth-Token:` headers: the value;
//  - URL userinfo (`https://user:pw@host`): all of it;
//  - keys: runs of 32+ hex digits, or of 32+ base64 characters with upper,
//    lower and digits and at most one separator (`/`, `-`, `_`) per 16
//    characters (paths and dashed names have more);
//  - the values (8+ characters) of this process's environment variables
//    whose names look secret (looks_like_secret_env_name), wherever they
//    appear: a secret the shell expanded into an argument matches no pattern.
// Over-redaction is the safe side: a `monkey=` value goes too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::base {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// True when a parameter, option or variable name says it holds a secret
// (token, secret, password, passwd, pwd, key, auth, credential, cookie,
// session, signature; any case, leading dashes ignored).
bool looks_like_secret_name(std::string_view name);

// The stricter test for environment variable names, whose values are
// redacted wherever they appear: token, secret, password, passwd,
// credential, api_key, apikey, private_key, or a name ending in _KEY (not
// PWD, SSH_AUTH_SOCK, XDG_SESSION_*: their values are ordinary paths and words).
bool looks_like_secret_env_name(std::string_view name);

class Redactor {
 public:
  // Patterns only, no environment values.
  Redactor() = default;
  // Patterns plus these literal values (each redacted wherever it appears).
  explicit Redactor(std::vector<std::string> secret_values);
  // Patterns plus the values of this process's secret-named environment
  // variables (looks_like_secret_env_name, 8+ characters).
  static Redactor from_environment();

  // A free text: a shell command, a URL, a message.
  std::string text(std::string_view s) const;
  // An argv: each element as text(), and the element after a secret-named
  // option without `=` (`--token abc`) entirely.
  std::vector<std::string> argv(const std::vector<std::string>& args) const;

 private:
  std::vector<std::string> values_;  // longest first
};

}  // namespace loopdoctor::base
