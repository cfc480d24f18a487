#include "analyzer/render/text.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

namespace loopdoctor::render {

namespace {
constexpr double kKiB = 1024.0;
constexpr double kSecondsPerMinute = 60.0;
constexpr double kSecondsPerHour = 3600.0;
}  // namespace

std::string fmt_num(double v, int max_decimals) {
  if (!std::isfinite(v)) return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", max_decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string fmt_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double v = bytes;
  while (std::fabs(v) >= kKiB && unit < 4) {
    v /= kKiB;
    ++unit;
  }
  // Three significant digits is what a person compares at a glance.
  int decimals = std::fabs(v) >= 100 || unit == 0 ? 0 : (std::fabs(v) >= 10 ? 1 : 2);
  return fmt_num(v, decimals) + " " + kUnits[unit];
}

std::string fmt_ms(double ms) {
  if (!std::isfinite(ms)) return "–";
  if (std::fabs(ms) >= 1000) return fmt_num(ms / 1000, 2) + " s";
  if (std::fabs(ms) >= 100) return fmt_num(ms, 0) + " ms";
  if (std::fabs(ms) >= 10) return fmt_num(ms, 1) + " ms";
  return fmt_num(ms, 2) + " ms";
}

std::string fmt_seconds(double s) {
  if (!std::isfinite(s)) return "–";
  if (s < kSecondsPerMinute) return fmt_num(s, s < 10 ? 2 : 1) + " s";
  char buf[64];
  long total = std::lround(s);
  if (s < kSecondsPerHour) {
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", total / 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", total / 3600, (total % 3600) / 60);
  }
  return buf;
}

std::string fmt_percent(double fraction, int max_decimals) {
  return fmt_num(fraction * 100, max_decimals) + " %";
}

std::string fmt_signed_percent(double fraction) {
  const double pct = fraction * 100;
  const double mag = std::fabs(pct);
  const std::string digits = mag < 10 ? fmt::format("{:.1f}", mag) : fmt::format("{:.0f}", mag);
  return (pct < 0 ? "−" : "+") + digits + " %";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void append_coord(std::string& out, double v) {
  if (!std::isfinite(v)) v = 0;
  long tenths = std::lround(v * 10);
  if (tenths < 0) {
    out += '-';
    tenths = -tenths;
  }
  out += std::to_string(tenths / 10);
  if (tenths % 10 != 0) {
    out += '.';
    out += static_cast<char>('0' + tenths % 10);
  }
}

std::vector<TextSegment> split_backticks(std::string_view s) {
  std::vector<TextSegment> out;
  std::string plain;
  size_t i = 0;
  while (i < s.size()) {
    size_t open = s.find('`', i);
    size_t close = open == std::string_view::npos ? open : s.find('`', open + 1);
    if (close == std::string_view::npos) {
      plain += s.substr(i);
      break;
    }
    plain += s.substr(i, open - i);
    if (!plain.empty()) out.push_back({std::move(plain), false});
    plain.clear();
    out.push_back({std::string(s.substr(open + 1, close - open - 1)), true});
    i = close + 1;
  }
  if (!plain.empty()) out.push_back({std::move(plain), false});
  return out;
}

std::vector<std::string> split_paragraphs(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in{std::string(s)};
  std::string line;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  while (std::getline(in, line)) {
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) {
      flush();
      continue;
    }
    size_t e = line.find_last_not_of(" \t\r");
    if (!cur.empty()) cur += ' ';
    cur += line.substr(b, e - b + 1);
  }
  flush();
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+") ==
        std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') out += "'\\''";
      else out += c;
    }
    out += '\'';
  }
  return out;
}

std::string html_with_wrap_points(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' && i > 0 && s[i - 1] != ' ') out += "<wbr>";
    out += xml_escape(std::string_view(&s[i], 1));
    const bool after = c == '/' || c == '\\' || c == ',';
    if (after && i + 1 < s.size() && s[i + 1] != ' ') out += "<wbr>";
  }
  return out;
}

int balanced_columns(int cards, int max_columns) {
  if (cards <= 0 || max_columns <= 0) return 1;
  const int rows = (cards + max_columns - 1) / max_columns;
  return (cards + rows - 1) / rows;
}

std::pair<std::string, int> split_location(std::string_view location) {
  const auto colon = location.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= location.size()) return {std::string(location), 0};
  int line = 0;
  for (char c : location.substr(colon + 1)) {
    if (c < '0' || c > '9') return {std::string(location), 0};
    line = line * 10 + (c - '0');
  }
  return {std::string(location.substr(0, colon)), line};
}

}  // namespace loopdoctor::render
