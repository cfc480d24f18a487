// The `mappings` string: lines separated by ';', segments by ',', each
// segment 1, 4 or 5 base64 VLQ numbers, each a delta from the previous
// segment's field (the generated column resets at every line, the others
// run on through the whole string).
#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "analyzer/attribution/sourcemap/source_map.h"

namespace loopdoctor::sourcemap {
namespace {

// Base64 digit value per byte; -1 for a byte that is not a base64 digit.
constexpr std::array<std::int8_t, 256> make_digits() {
  std::array<std::int8_t, 256> d{};
  for (auto& v : d) v = -1;
  constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i) d[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
  return d;
}
constexpr auto kDigits = make_digits();
// A VLQ digit carries 5 bits; 7 digits hold 35 bits, more than the 32 a
// position can need. An 8th continuation digit is a corrupt map.
constexpr int kMaxVlqDigits = 7;

struct Cursor {
  std::string_view text;
  std::size_t at = 0;
  std::string* error;

  bool fail(const std::string& what) {
    if (error) *error = fmt::format("{} at offset {} of mappings", what, at);
    return false;
  }
  bool at_field() const { return at < text.size() && text[at] != ',' && text[at] != ';'; }

  // Reads one VLQ number into *out.
  bool vlq(std::int64_t* out) {
    // Most fields are one digit (a delta of -15..15): decoded without the loop.
    if (at < text.size()) {
      const int digit = kDigits[static_cast<unsigned char>(text[at])];
      if (digit >= 0 && digit < 32) {
        ++at;
        *out = (digit & 1) ? -(digit >> 1) : (digit >> 1);
        return true;
      }
    }
    std::int64_t value = 0;
    for (int shift = 0, n = 0;; shift += 5, ++n) {
      if (at >= text.size()) return fail("a number cut short");
      const unsigned char c = static_cast<unsigned char>(text[at]);
      const int digit = kDigits[c];
      if (digit < 0) return fail(fmt::format("invalid base64 character '{}'", static_cast<char>(c)));
      if (n >= kMaxVlqDigits) return fail("a number longer than 32 bits");
      ++at;
      value |= static_cast<std::int64_t>(digit & 31) << shift;
      if (!(digit & 32)) break;
    }
    *out = (value & 1) ? -(value >> 1) : (value >> 1);
    return true;
  }
};

// Adds a delta to a running field, refusing a result outside [0, limit).
bool advance(Cursor& c, std::int64_t delta, std::int32_t* field, std::int64_t limit,
             const char* what) {
  const std::int64_t v = *field + delta;
  if (v < 0 || v >= limit)
    return c.fail(v < 0 ? fmt::format("a negative {}", what)
                        : fmt::format("{} {} out of range (the map has {})", what, v, limit));
  *field = static_cast<std::int32_t>(v);
  return true;
}

constexpr std::int64_t kNoLimit = std::numeric_limits<std::int32_t>::max();

}  // namespace

std::optional<Mappings> decode_mappings(std::string_view text, std::size_t sources,
                                        std::size_t names, std::string* error) {
  Mappings m;
  // One segment is at least 2 characters with its separator: reserving half
  // the length at most over-allocates, and never reallocates.
  m.segments.reserve(text.size() / 4 + 1);
  m.line_starts.push_back(0);
  Cursor c{text, 0, error};
  Segment prev;  // running fields; source/line/column/name carry across lines
  prev.source = 0;
  prev.name = 0;
  std::int32_t column = 0;
  bool sorted = true;
  while (c.at < text.size()) {
    const char ch = text[c.at];
    if (ch == ';') {
      m.line_starts.push_back(static_cast<std::uint32_t>(m.segments.size()));
      column = 0;
      ++c.at;
      continue;
    }
    if (ch == ',') { ++c.at; continue; }
    std::int64_t v[5];
    int n = 0;
    while (c.at_field()) {
      if (n == 5) return c.fail("a segment of more than 5 fields"), std::nullopt;
      if (!c.vlq(&v[n++])) return std::nullopt;
    }
    if (n == 2 || n == 3) return c.fail(fmt::format("a segment of {} fields (1, 4 or 5 expected)", n)), std::nullopt;
    const std::int32_t before = column;
    if (!advance(c, v[0], &column, kNoLimit, "generated column")) return std::nullopt;
    if (column < before) sorted = false;
    Segment s;
    s.generated_column = column;
    if (n >= 4) {
      if (!advance(c, v[1], &prev.source, static_cast<std::int64_t>(sources), "source index") ||
          !advance(c, v[2], &prev.original_line, kNoLimit, "original line") ||
          !advance(c, v[3], &prev.original_column, kNoLimit, "original column"))
        return std::nullopt;
      s.source = prev.source;
      s.original_line = prev.original_line;
      s.original_column = prev.original_column;
    }
    if (n == 5) {
      if (!advance(c, v[4], &prev.name, static_cast<std::int64_t>(names), "name index")) return std::nullopt;
      s.name = prev.name;
    }
    m.segments.push_back(s);
  }
  m.line_starts.push_back(static_cast<std::uint32_t>(m.segments.size()));
  // Writers emit each line's segments by column; a map that does not still
  // looks up correctly once each line is sorted.
  if (!sorted) {
    for (std::size_t l = 0; l + 1 < m.line_starts.size(); ++l)
      std::stable_sort(m.segments.begin() + m.line_starts[l], m.segments.begin() + m.line_starts[l + 1],
                       [](const Segment& a, const Segment& b) { return a.generated_column < b.generated_column; });
  }
  return m;
}

}  // namespace loopdoctor::sourcemap
