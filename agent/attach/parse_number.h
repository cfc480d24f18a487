// A whole string as one integer, for the /proc parsers of this folder.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>

namespace loopdoctor::attach {

// nullopt unless all of `s` is one number in `base` (no sign for unsigned
// types, no spaces, no trailing text) that fits Int.
template <class Int>
std::optional<Int> parse_number(std::string_view s, int base = 10) {
  Int v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace loopdoctor::attach
