#include "analyzer/attribution/sourcemap/locate.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace loopdoctor::sourcemap {
namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

// "scheme:" at the start of a URL (letters, digits, + - . after a letter),
// so "C:" alone or a relative path does not count.
bool has_scheme(std::string_view url) {
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || colon < 2) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = url[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return std::isalpha(static_cast<unsigned char>(url[0]));
}

}  // namespace

std::string percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(in[i + 1]) * 16 + hex(in[i + 2])));
      i += 2;
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

std::string path_of_url(std::string_view url) {
  if (starts_with_nocase(url, "file://")) {
    std::string_view rest = url.substr(7);
    // file://host/path: only the local host (empty or "localhost") is a file here.
    if (starts_with_nocase(rest, "localhost/")) rest.remove_prefix(9);
    if (rest.empty() || rest[0] != '/') return "";
    return percent_decode(rest);
  }
  if (url.empty() || has_scheme(url)) return "";
  return std::string(url);
}

std::optional<std::string> source_mapping_url(std::string_view script) {
  for (std::size_t end = script.size();;) {
    const auto at = script.rfind("sourceMappingURL=", end);
    if (at == std::string_view::npos || at < 4) return std::nullopt;
    const std::string_view lead = script.substr(at - 4, 4);
    // "//# " / "//@ " (the space may be a tab); anything else is not the comment.
    if ((lead == "//# " || lead == "//@ " || lead == "//#\t" || lead == "//@\t")) {
      std::size_t b = at + 17, e = b;
      while (e < script.size() && !std::isspace(static_cast<unsigned char>(script[e]))) ++e;
      if (e > b) return std::string(script.substr(b, e - b));
    }
    if (at == 0) return std::nullopt;
    end = at - 1;
  }
}

bool is_data_url(std::string_view url) { return starts_with_nocase(url, "data:"); }

std::optional<std::string> base64_decode(std::string_view in) {
  static constexpr auto digits = [] {
    std::array<int, 256> d{};
    d.fill(-1);
    constexpr std::string_view a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < a.size(); ++i) d[static_cast<unsigned char>(a[i])] = static_cast<int>(i);
    return d;
  }();
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  out.reserve(in.size() * 3 / 4);
  unsigned bits = 0;
  int nbits = 0;
  for (const char c : in) {
    const int v = digits[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out.push_back(static_cast<char>((bits >> nbits) & 0xff));
    }
  }
  return out;
}

std::optional<std::string> decode_data_url(std::string_view url, std::string* error) {
  auto fail = [&](const std::string& what) -> std::optional<std::string> {
    if (error) *error = what;
    return std::nullopt;
  };
  const auto comma = url.find(',');
  if (!is_data_url(url) || comma == std::string_view::npos) return fail("not a data: URL");
  const std::string_view meta = url.substr(5, comma - 5), body = url.substr(comma + 1);
  // The media type is checked loosely: writers use application/json, a few
  // text/plain or none at all; what decides is that the body parses.
  if (meta.size() >= 7 && meta.substr(meta.size() - 7) == ";base64") {
    auto bytes = base64_decode(body);
    if (!bytes) return fail("the inline source map's base64 is corrupt");
    return bytes;
  }
  return percent_decode(body);
}

}  // namespace loopdoctor::sourcemap
