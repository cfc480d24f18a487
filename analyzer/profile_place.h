// Where a profiled function is, as the user wrote it: its location through
// the script's source map when there is one (with the generated location
// kept beside it), its name from the map's `names` when the bundle renamed
// it, and the line most of its time went to, with that line's code.
//
// One function both attributions call (the CPU profile's hotspots here, the
// native probe's block stacks in block_attribution), so a frame reads the
// same wherever it is shown.
#pragma once

#include <string>

#include "analyzer/profile.h"
#include "analyzer/sourcemap/mapper.h"

namespace loopdoctor::profile {

struct Place {
  std::string function;            // "(anonymous)" when neither V8 nor the map names it
  bool named = false;              // false: `function` is "(anonymous)"
  std::string location;            // "src/pricing.ts:12" (original) or "server.js:32"
  std::string generated_location;  // "dist/pricing.js:9" when mapped, else ""
  std::string hot_line;            // "src/pricing.ts:14"; "" without a hot line
  std::string hot_line_text;       // that line's code, trimmed; "" when unreadable
};

// `hot_line` is a 1-based line of the generated script (0: none). Without a
// mapper, or for a script without a map, the location is V8's and the hot
// line's text is read from the script itself (when a mapper is given).
Place place_of(const Frame& f, int hot_line, const PathNamer& names, sourcemap::Mapper* mapper);

// A call site as a person reads it, mapped like place_of: "handler
// (src/app.ts:14)", or just "src/app.ts:14" for an anonymous function.
std::string caller_text(const Frame& f, const PathNamer& names, sourcemap::Mapper* mapper);

// The line of the most ticks (the lowest on a tie); 0 when there are none.
int hottest_line(const std::vector<std::pair<int, double>>& line_ticks);

}  // namespace loopdoctor::profile
