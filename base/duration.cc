#include "base/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace loopdoctor::base {

namespace {

struct Unit {
  const char* suffix;
  double ms;
};
// Longest suffixes first so "ms" is not read as "m" + garbage.
constexpr Unit kUnits[] = {{"us", 0.001}, {"ms", 1.0}, {"s", 1000.0}, {"m", 60000.0},
                           {"h", 3600000.0}, {"", 1000.0}};

}  // namespace

bool parse_duration_ms(const std::string& text, double* out_ms, std::string* error) {
  auto fail = [&] {
    if (error)
      *error = "invalid duration '" + text +
               "': expected a non-negative number with an optional unit us, ms, s, m or h "
               "(e.g. 10s, 500ms, 2m; a plain number is seconds)";
    return false;
  };
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return fail();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value < 0) return fail();
  const std::string suffix(end);
  for (const Unit& unit : kUnits) {
    if (suffix == unit.suffix) {
      *out_ms = value * unit.ms;
      return true;
    }
  }
  return fail();
}

}  // namespace loopdoctor::base
