// A V8 CPU profile (the probe's `profile` message) read into a compact form,
// and the few facts about its frames the attribution needs: is a frame the
// application's own code, Node's internals, a native binding, or one of V8's
// pseudo-frames ("(program)", "(idle)", "(garbage collector)").
//
// Pure functions, no I/O: tests feed hand-made cpuprofiles.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::profile {

struct Frame {
  std::string function;  // as V8 names it; "" for an anonymous function
  std::string url;       // "file:///app/server.js", "node:internal/...", "" (native, pseudo)
  int line = 0;          // 1-based (the cpuprofile's lineNumber is 0-based); 0: unknown
  int column = 0;        // 1-based; 0: unknown
};

using LineTicks = std::vector<std::pair<int, double>>;  // (1-based line, ticks)

// The lines before a function's first line that V8 gave ticks to (see
// Place::inlined). A loop's lines tick unevenly from run to run (a body line
// one run, its header the next), so the whole span is kept, not only the
// hottest line.
struct InlinedLines {
  int hottest = 0;  // 0: none
  int first = 0;
  int last = 0;
  bool holds(int line) const { return hottest > 0 && line >= first && line <= last; }
};

enum class FrameKind {
  kApplication,  // the target's own code: a file outside node_modules
  kLibrary,      // node_modules
  kNode,         // node: and internal/ URLs
  kNative,       // no URL: a C++ binding or a V8 builtin ("run", "writev")
  kProgram,      // "(program)": V8 outside JS, not attributable
  kIdle,         // "(idle)": the loop was waiting
  kGc,           // "(garbage collector)"
  kRoot,         // "(root)"
};

FrameKind kind_of(const Frame& f);

struct CpuProfile {
  struct Node {
    Frame frame;
    FrameKind kind = FrameKind::kRoot;
    int parent = -1;  // index into nodes, -1 for the root
    // V8's positionTicks: the node's own samples per source line
    // (1-based, as V8 gives them), for the hot line of a function.
    std::vector<std::pair<int, double>> line_ticks = {};
  };
  std::vector<Node> nodes;
  std::vector<int> sample_node;     // per sample: index into nodes
  std::vector<double> sample_ms;    // per sample: ms since the profile's start
  double duration_ms = 0;           // endTime - startTime
};

// Parses a cpuprofile object (nodes with callFrame and children ids,
// samples[], timeDeltas[] in µs, startTime/endTime in µs). Samples that name
// an unknown node are skipped. std::nullopt with *error when it is not a
// profile at all (no nodes, or samples without time deltas).
std::optional<CpuProfile> parse_cpuprofile(const nlohmann::json& j, std::string* error);

// Places each sample on the run clock: the profile's start in run time plus
// the sample's offset. The Timeline gives the start (Timeline::profile_t).
std::vector<double> sample_run_times(const CpuProfile& p, double start_run_ms);

// Shortens paths for people. Application files are shown relative to the
// target's working directory when the command line names the file (e.g.
// "node src/server.js" and file:///srv/app/src/server.js), else relative to
// the main script's directory, else by base name; node: URLs stay as they are.
// A template's compiled code, whose URL is its path in quotes
// ("\"/srv/app/views/orders.ejs\"", ejs's sourceURL), is named by that path
// the same way ("views/orders.ejs"); eval'd code keeps the name Node gives
// it ("evalmachine.<anonymous>").
//
// A script named by a bare file name ("node app.js") says nothing of the
// working directory; the URL of that script among `script_urls` (the
// profile's and block stacks' frames) does: "file:///srv/app/app.js" puts
// it at /srv/app/, and the application's other files are named from there
// ("views/orders.ejs", "lib/db.js"), not by their base names.
class PathNamer {
 public:
  explicit PathNamer(const std::vector<std::string>& command, const std::vector<std::string>& script_urls = {});
  std::string path(const std::string& url) const;

 private:
  std::vector<std::string> args_;
  std::string root_;  // the working directory found from script_urls, with its '/'; "" when unknown
};

// "pbkdf2Sync (node:internal/crypto/pbkdf2:62)", "(anonymous) (server.js:14)".
// Where a function with no script is: native code (a binding, V8's own).
inline constexpr std::string_view kNativeLocation = "(native)";
std::string location(const Frame& f, const PathNamer& names);   // "server.js:14"
// How a function without a name is shown: one owner for the word.
inline constexpr std::string_view kAnonymous = "(anonymous)";
std::string function_name(const Frame& f);                        // kAnonymous when empty

}  // namespace loopdoctor::profile
