// Where a frame is, as the user wrote it: its location through the script's
// source map when there is one (with the generated location kept beside it),
// its name from the map's `names` when the bundle renamed it, or from the
// code that passes it (an anonymous request handler), a node_modules file
// by its package and version, and the line its time went to, with that
// line's code.
//
// One place both attributions call (the CPU profile's hotspots, flame view
// and callers; the native probe's block stacks in block_attribution), so a
// frame reads the same wherever it is shown.
#pragma once

#include <string>

#include "analyzer/attribution/profile.h"
#include "analyzer/attribution/sourcemap/mapper.h"

namespace loopdoctor::profile {

struct Place {
  std::string function;            // "(anonymous)" when neither V8, the map nor the code names it
  bool named = false;              // false: `function` is "(anonymous)"
  std::string location;            // "src/pricing.ts:12", "server.js:32", "express 4.22.3 lib/response.js:250"
  std::string generated_location;  // "dist/pricing.js:9" when mapped, else ""
  std::string hot_line;            // "src/pricing.ts:14"; "" without a hot line
  std::string hot_line_text;       // that line's code, trimmed; "" when unreadable
  // Lines V8 ticked that lie before the function's first line: not the
  // function's own but lines of a callee V8 had inlined, numbered in the
  // callee's script, which the profile does not name (a profile started
  // after the code was optimised). No hot line is shown when the hottest
  // is one of them.
  InlinedLines inlined = {};
};

// A function as a CPU profile gives it (its line is where it is defined).
// `line_ticks` are V8's (1-based line of the generated script, ticks), none
// for a frame placed without them. Without a mapper nothing is read from
// disk: the location is V8's.
Place place_of(const Frame& f, const LineTicks& line_ticks, const PathNamer& names, sourcemap::Mapper* mapper);

// A frame of a block stack, whose line is the line running: the location is
// that line, and so is the hot line when its code can be read (then with
// the code). Names are V8's (a map's name at a running position is whatever
// that position calls).
Place place_running(const Frame& f, const PathNamer& names, sourcemap::Mapper* mapper);

// The application frame that made a call, as a person reads it: "handler
// (src/app.ts:14)", or "src/app.ts:14" for an anonymous function that no
// code names, with the code of that line.
struct CallSite {
  std::string text;
  std::string line_text;  // "" when unknown
};

// A profile's caller frame is located by its definition line (V8's profile
// has no call lines): the call is looked for in its code, the one line from
// there that calls `callee` (V8's name of the called function) within the
// caller's own braces. When no line or two lines call it, the definition
// line is shown, without code.
CallSite call_site(const Frame& caller, const std::string& callee, const PathNamer& names,
                   sourcemap::Mapper* mapper);

// A block stack's caller frame: its line is the call line.
CallSite call_site_running(const Frame& caller, const PathNamer& names, sourcemap::Mapper* mapper);

// What a frame is part of, as a call site's "into" says it: "ejs 7.0.2" (an
// npm package, by its package.json with a mapper, else by its directory
// under node_modules), "node:zlib" (Node's own module), a native
// function's name, or an application file's path.
std::string module_label(const Frame& f, const PathNamer& names, sourcemap::Mapper* mapper);

// Whether a frame is the user's own code: an application file's, but not a
// template's or evaluated code's (views/orders.ejs, evalmachine.<anonymous>),
// which runs as part of the library that compiled it.
bool is_user_code(const Frame& f, FrameKind kind);

// The line of the most ticks (the lowest on a tie); 0 when there are none.
int hottest_line(const LineTicks& line_ticks);

// A call is looked for this many lines into its caller at most: a function
// longer than that is not read to its end.
inline constexpr int kMaxCallSearchLines = 400;

}  // namespace loopdoctor::profile
